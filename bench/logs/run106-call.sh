#!/usr/bin/env bash
# Run 106 (bench/NOTES.md, session 32): the sm_90a backward's CTA pairs
# (dQ partials summed over distributed shared memory before a half-size
# reduce-add, D = 128 plain) against the single-CTA backward. Before:
# scripts/build-package.sh dist/pair (at 946c94c) and dist/head (the
# package of 469bac4, whose backward kernels and runtime are e0ec3a4's);
# carry dist/head and dist/pair.
source bench/logs/lib.sh
call_start
# env ... for package $1 (job runs its command under timeout: no functions).
pkg() { echo env PYTHONPATH=$PWD/dist/$1/python JFA_KERNEL_DIR=$PWD/dist/$1/kernels; }
TAILN=15 job 150 "bwd test plain quick (pair)" $(pkg pair) python3 test/gpu/attention_bwd_test.py --plain --quick
SH=${SH:-unif1k-d128-causal,eq1k-d128-causal,eq4k-d128-causal,eq16k-d128-causal,unif4k-d128-full,unif4k-d128-causal,tail8k-d128-full,tail8k-d128-causal}
for v in head pair head pair; do
  TAILN=12 job 80 "bwd $v" $(pkg $v) python3 bench/attention_bench.py --backward --only-ours --no-check --shapes $SH
done
