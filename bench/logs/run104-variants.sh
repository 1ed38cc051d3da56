#!/usr/bin/env bash
# Run 104 (bench/NOTES.md, session 31): dist/var/halfadd, the sm_90a
# backward whose @add_dq_chunk reduce-adds only the first 32-column box of
# each 64-column dQ chunk (half the bytes; timing only: dq is wrong), plain
# variants at D = 128 and 64, causal and full. Needs build/bin/jfac.
set -euo pipefail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp/halfadd.mlir" <<'PY'
import sys
src = open("kernels/jagged_attention/attention_bwd_sm90.mlir").read()
old = ("  jfa.tma_store %dq_slot, %dq_accum[%q_row, %dq_col] add : "
       "!jfa.slot<64x64xf32, swizzle 128>, !jfa.tma<64x32xf32, swizzle 128>\n")
assert old in src
new = ("  %c0h = arith.constant 0 : i32\n"
       "  %dq_half = jfa.column_block %dq_slot[%c0h] : !jfa.slot<64x64xf32, swizzle 128>"
       " -> !jfa.slot<64x32xf32, swizzle 128>\n"
       "  jfa.tma_store %dq_half, %dq_accum[%q_row, %dq_col] add : "
       "!jfa.slot<64x32xf32, swizzle 128>, !jfa.tma<64x32xf32, swizzle 128>\n")
open(sys.argv[1], "w").write(src.replace(old, new))
PY
mkdir -p dist/var/halfadd
for dc in "128 1" "128 0" "64 1" "64 0"; do
  set -- $dc
  build/bin/jfac compile "$tmp/halfadd.mlir" -I kernels/jagged_attention --arch sm_90a \
    -P head_dim=$1 -P causal=$2 -P general=0 --quiet \
    -o "dist/var/halfadd/attention_bwd_sm90_sm_90a.head_dim=$1.causal=$2.general=0.cubin"
done
echo "run104-variants: dist/var/halfadd"
