#!/usr/bin/env bash
# Run 104 (bench/NOTES.md, session 31): is the dQ reduce-add's cost its
# bytes? halfadd adds only the first 32-column box of each chunk (half the
# bytes; timing only, dq wrong) against base and noadd. Before:
# scripts/build-package.sh dist/head, bench/logs/run100-variants.sh (noadd)
# and bench/logs/run104-variants.sh (halfadd); carry dist/head and dist/var.
set -u
exec > >(tee -a "$OUT/log.txt") 2>&1
export PYTHONUNBUFFERED=1
H=$PWD/dist/head/python
for v in noadd halfadd; do rm -rf /tmp/v_$v; cp -r dist/head/kernels /tmp/v_$v; cp dist/var/$v/* /tmp/v_$v/; done
SH=unif1k-d128-causal,eq1k-d128-causal,eq4k-d128-causal,unif4k-d128-full,unif1k-d64-causal,unif4k-d64-full
for v in base halfadd noadd base halfadd noadd; do d=/tmp/v_$v; [[ $v == base ]] && d=$PWD/dist/head/kernels
  echo "#### bwd $v"; env PYTHONPATH=$H JFA_KERNEL_DIR=$d timeout 60 python3 bench/attention_bench.py --backward --only-ours --no-check --shapes $SH 2>&1 | grep "^| [a-z]"; done
