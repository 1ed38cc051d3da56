#!/usr/bin/env bash
# Run 107 (bench/NOTES.md, session 32): what run 106's pairs lose, split.
# Timing only (dq wrong in both variants): nowait, the pairs without the
# wait for the peer's copy; nocopy, the pairs' half-size adds with no copy
# and no waits (the pair machinery and its spill, and the bytes saved).
# Variants: dist/var106/{nowait,nocopy} over dist/pair's kernels; carry
# dist/head, dist/pair, dist/var106.
source bench/logs/lib.sh
call_start
for v in nowait nocopy; do rm -rf /tmp/v_$v; cp -r dist/pair/kernels /tmp/v_$v; cp dist/var106/$v/* /tmp/v_$v/; done
SH=unif1k-d128-causal,eq1k-d128-causal,eq4k-d128-causal,unif4k-d128-full,tail8k-d128-causal
for v in head pair nowait nocopy head pair nowait nocopy; do
  p=pair; [[ $v == head ]] && p=head
  d=$PWD/dist/$p/kernels; [[ $v == nowait || $v == nocopy ]] && d=/tmp/v_$v
  TAILN=8 job 60 "bwd $v" env PYTHONPATH=$PWD/dist/$p/python JFA_KERNEL_DIR=$d python3 bench/attention_bench.py --backward --only-ours --no-check --shapes $SH
done
