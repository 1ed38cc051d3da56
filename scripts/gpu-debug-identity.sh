#!/usr/bin/env bash
# --debug-barriers must not change results (issue 24): every sm_90a kernel
# the GPU tests run, compiled without and with the flag, must write
# bit-identical outputs on the H200 (test/gpu/debug_identity_test.py).
#
# Here:   bash scripts/gpu-debug-identity.sh [OUTDIR]        (default dist/identity)
# There:  bash scripts/gpu-debug-identity.sh --run [OUTDIR]  (OUTDIR carried)
#
# OUTDIR/normal and OUTDIR/debug hold the cubins (+ .meta), OUTDIR/lib the
# runtime, OUTDIR/python the jfa package. Logs and SASS go to $OUT.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/variant-args.sh

if [[ ${1:-} == --run ]]; then
  pkg=${2:-dist/identity}
  out=${OUT:-/tmp}
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
  # The test first: the SASS below takes minutes for ~100 cubins.
  PYTHONUNBUFFERED=1 timeout 420 python3 test/gpu/debug_identity_test.py \
    "$pkg/lib/libjfart.so" "$pkg/normal" "$pkg/debug" "$pkg/python" 2>&1 |
    tee "$out/debug_identity.log"
  rc=${PIPESTATUS[0]}
  # The convergence point after each bounded wait (bar.warp.sync is WARPSYNC
  # in SASS), counted per kernel from one disassembly each.
  for c in "$pkg"/normal/*.cubin "$pkg"/debug/*.cubin; do
    tag=$(basename "$(dirname "$c")")/$(basename "$c" .cubin)
    sass=$(cuobjdump -sass "$c" 2>&1 || true)
    { echo "==== $tag"; echo "$sass"; } >> "$out/identity.sass"
    printf '%-48s WARPSYNC %s  BSSY %s  BSYNC %s\n' "$tag" \
      "$(grep -c WARPSYNC <<< "$sass" || true)" \
      "$(grep -c BSSY <<< "$sass" || true)" \
      "$(grep -c BSYNC <<< "$sass" || true)"
  done | tee "$out/identity-sass-counts.txt"
  exit "$rc"
fi

out=${1:-dist/identity}
build=${BUILD_DIR:-build}
cmake --build "$build" -j2 --target jfac jfart_shared
rm -rf "$out"
mkdir -p "$out/normal" "$out/debug" "$out/lib" "$out/python"
kernels=(kernels/examples/scale_ring.mlir kernels/examples/row_softmax.mlir
         kernels/examples/blocked_roundtrip.mlir kernels/examples/matmul_sm90.mlir
         kernels/gemm/gemm_sm90.mlir test/gpu/rowstats_sm90.mlir
         kernels/jagged_attention/attention_fwd_sm90.mlir
         kernels/jagged_attention/attention_bwd_sm90.mlir
         kernels/jagged_attention/attention_bwd_delta.mlir
         kernels/jagged_attention/attention_bwd_schedule.mlir
         kernels/jagged_attention/attention_bwd_dq_convert.mlir)
for k in "${kernels[@]}"; do
  name=$(basename "$k" .mlir)
  # Every declared variant (the attention backward is picked by them, the
  # matmul example's cubins are named by them).
  mapfile -t variants < <(python3 scripts/kernel_variants.py "$k")
  for variant in "${variants[@]}"; do
    variant_args "$variant"
    "$build/bin/jfac" compile "$k" --arch sm_90a "${params[@]}" \
      -o "$out/normal/${name}_sm_90a$suffix.cubin" --quiet
    "$build/bin/jfac" compile "$k" --arch sm_90a "${params[@]}" --debug-barriers \
      -o "$out/debug/${name}_sm_90a$suffix.cubin" --quiet
  done
done
cp "$build/runtime/libjfart.so" "$out/lib/"
cp -r python/jfa "$out/python/jfa"
find "$out/python" -name __pycache__ -prune -exec rm -rf {} +
echo "gpu-debug-identity: built $out ($(du -sh "$out" | cut -f1)); on the GPU machine:"
echo "  bash scripts/gpu-debug-identity.sh --run $out      (with $out carried)"
