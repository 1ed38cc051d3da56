#!/usr/bin/env bash
# Run 108 (bench/NOTES.md, session 32): two of run 107's suspects for the
# pair machinery's cost, timing only. clu: main's backward launched in
# clusters of two, nothing else changed (the launch alone, D = 128). alt:
# run 107's nocopy with the dQ chunk alternating between the warpgroups (g
# xor stage, as alone) instead of fixed (dq wrong). Variants:
# dist/var106/{clu,alt}; carry dist/head, dist/pair, dist/var106.
source bench/logs/lib.sh
call_start
rm -rf /tmp/v_clu /tmp/v_alt /tmp/v_nocopy
cp -r dist/head/kernels /tmp/v_clu && cp dist/var106/clu/* /tmp/v_clu/
for v in alt nocopy; do cp -r dist/pair/kernels /tmp/v_$v && cp dist/var106/$v/* /tmp/v_$v/; done
SH=eq4k-d128-causal,unif4k-d128-full,tail8k-d128-causal,eq1k-d128-causal
for v in head clu nocopy alt head clu nocopy alt; do
  p=pair; [[ $v == head ]] && p=head
  d=/tmp/v_$v; [[ $v == head ]] && d=$PWD/dist/head/kernels
  TAILN=7 job 60 "bwd $v" env PYTHONPATH=$PWD/dist/$p/python JFA_KERNEL_DIR=$d python3 bench/attention_bench.py --backward --only-ours --no-check --shapes $SH
done
