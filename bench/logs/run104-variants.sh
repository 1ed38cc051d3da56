#!/usr/bin/env bash
# Run 104 (bench/NOTES.md, session 31): dist/var/halfadd, the sm_90a
# backward whose @add_dq_chunk reduce-adds only the first 32-column box of
# each 64-column dQ chunk (half the bytes; timing only: dq is wrong), plain
# variants at D = 128 and 64, causal and full. Needs build/bin/jfac.
set -euo pipefail
source bench/logs/lib.sh
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
compile_plain "$tmp/halfadd.mlir" dist/var/halfadd
echo "run104-variants: dist/var/halfadd"
