#!/usr/bin/env bash
# Run 109 (bench/NOTES.md, session 32): run 107's nocopy without the rotated
# walk and the entry swap (norot: rank 0 always takes the first key tile and
# walks its q tiles in order), against nocopy and head; timing only (dq
# wrong). Variants: dist/var106/{nocopy,norot}; carry dist/head, dist/pair,
# dist/var106.
source bench/logs/lib.sh
call_start
for v in nocopy norot; do rm -rf /tmp/v_$v; cp -r dist/pair/kernels /tmp/v_$v && cp dist/var106/$v/* /tmp/v_$v/; done
SH=eq4k-d128-causal,unif4k-d128-full,tail8k-d128-causal,unif1k-d128-causal
for v in head nocopy norot head nocopy norot; do
  p=pair; [[ $v == head ]] && p=head
  d=/tmp/v_$v; [[ $v == head ]] && d=$PWD/dist/head/kernels
  TAILN=7 job 60 "bwd $v" env PYTHONPATH=$PWD/dist/$p/python JFA_KERNEL_DIR=$d python3 bench/attention_bench.py --backward --only-ours --no-check --shapes $SH
done
