#!/usr/bin/env bash
# The attention checks on the GPU machine, one call (see bench/NOTES.md).
# Here:   bash scripts/build-package.sh dist/jfa
# There:  bash scripts/gpu-attention.sh [dist/jfa]     (dist/jfa carried)
# Logs go to $OUT (default /tmp). Optional: dist/var/<name>/ folders of
# sm_90a kernel variants, timed against each other (ours only).
# STEPS=name,name,... runs only those steps (test-full, test-embedded,
# test-bwd, bench, bench-bwd, variant-<name>, memcheck, racecheck,
# memcheck-bwd): the timeouts of all of them add up to more than one
# 10-minute call of the GPU machine.
set -uo pipefail
cd "$(dirname "$0")/.."
pkg=${1:-dist/jfa}
out=${OUT:-/tmp}
export PYTHONPATH=$PWD/$pkg/python
rc=0
step() { local name=$1 limit=$2; shift 2
  [[ -z ${STEPS:-} || ,$STEPS, == *,$name,* ]] || return 0
  echo "== $name"
  timeout "$limit" "$@" > "$out/$name.log" 2>&1; local r=$?
  tail -n "${TAIL:-4}" "$out/$name.log"; [[ $r -eq 0 ]] || { echo "($name: exit $r)"; rc=1; }; }
# The forward's whole matrix, issue 20's variants (window, GQA, cross) included.
step test-full 300 python3 test/gpu/attention_test.py
# The cubins embedded in the library (no kernels folder next to it).
if [[ -d ${pkg}_embedded ]]; then
  PYTHONPATH=$PWD/${pkg}_embedded/python step test-embedded 60 \
    python3 test/gpu/attention_test.py --sanitize
fi
# The backward (sm_90a): jfa.attention_backward, autograd, torch.compile, training demo,
# issue 20's variants (window, GQA, cross; --variants: only them).
step test-bwd 420 python3 test/gpu/attention_bwd_test.py
TAIL=20 step bench 280 python3 bench/attention_bench.py
TAIL=20 step bench-bwd 300 python3 bench/attention_bench.py --backward
for c in "$pkg"/kernels/*.cubin; do
  cuobjdump -sass "$c" > "$out/$(basename "$c").sass" 2>&1
  echo "== SASS $(basename "$c")"
  grep -oE "HGMMA[.A-Z0-9_]*|UTCHMMA[.A-Z0-9]*|UTCBAR[.A-Z0-9]*|LDTM[.A-Z0-9]*|STTM[.A-Z0-9]*|UTCATOMSWS[.A-Z0-9]*|UTMALDG[.A-Z0-9]*|SYNCS\.PHASECHK[.A-Z0-9]*" \
    "$out/$(basename "$c").sass" | sort | uniq -c
done
for v in dist/var/*/; do
  [[ -d $v ]] || continue
  JFA_KERNEL_DIR=$PWD/$v TAIL=6 step "variant-$(basename "$v")" 100 python3 bench/attention_bench.py \
    --only-ours --no-check --shapes unif1k-d128-full,unif4k-d64-full,eq16k-d128-causal,tail8k-d128-causal
done
# --sanitize has a few small cases of each forward variant (window, GQA, cross).
step memcheck 150 compute-sanitizer --tool memcheck python3 test/gpu/attention_test.py --sanitize
step racecheck 150 compute-sanitizer --tool racecheck python3 test/gpu/attention_test.py --sanitize
# The backward's --sanitize has small cases of each variant too.
step memcheck-bwd 180 compute-sanitizer --tool memcheck python3 test/gpu/attention_bwd_test.py --sanitize
exit $rc
