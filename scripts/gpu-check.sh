#!/usr/bin/env bash
# Builds everything the GPU check needs into .gpu/ (cubins for both targets,
# the runtime-only test program). Run here, then on the GPU machine:
#   bash scripts/gpu-check.sh --run        (with .gpu carried)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/variant-args.sh

if [[ ${1:-} == --run ]]; then
  set +e  # run every check and report each; the exit status sums them up
  out=${OUT:-/tmp}
  set -o pipefail
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
  timeout 120 ./.gpu/scale_ring_test .gpu/scale_ring_sm_90a.cubin .gpu/scale_ring_sm_100a.cubin \
    2>&1 | tee "$out/scale_ring_test.log"
  rc=${PIPESTATUS[0]}
  timeout 120 ./.gpu/row_softmax_test .gpu/row_softmax_sm_90a.cubin 2>&1 | tee "$out/row_softmax_test.log"
  rc3=${PIPESTATUS[0]}
  PYTHONUNBUFFERED=1 timeout 300 python3 bench/gemm_bench.py .gpu/libjfart.so .gpu/gemm_sm90_sm_90a.cubin \
    ".gpu/matmul_sm90_sm_90a.a_operand=0.cubin" ".gpu/matmul_sm90_sm_90a.a_operand=2.cubin" \
    2>&1 | tee "$out/gemm_bench.log"
  rc2=${PIPESTATUS[0]}
  # Issue 7: the debug builds still pass, and the broken kernel reports and
  # traps instead of hanging (its own process: the trap ends its context).
  timeout 120 ./.gpu/scale_ring_test .gpu/debug/scale_ring_sm_90a.cubin .gpu/scale_ring_sm_100a.cubin \
    2>&1 | tee "$out/scale_ring_debug.log"
  rc4=${PIPESTATUS[0]}
  PYTHONUNBUFFERED=1 timeout 300 python3 bench/gemm_bench.py .gpu/libjfart.so .gpu/debug/gemm_sm90_sm_90a.cubin \
    2>&1 | tee "$out/gemm_bench_debug.log"
  rc5=${PIPESTATUS[0]}
  PYTHONUNBUFFERED=1 timeout 90 python3 bench/broken_barrier_demo.py .gpu/libjfart.so \
    .gpu/debug/broken_phase_sm_90a.cubin 2>&1 | tee "$out/broken_barrier_demo.log"
  rc6=${PIPESTATUS[0]}
  for cubin in .gpu/*.cubin; do
    name=$(basename "$cubin" .cubin)
    cuobjdump -sass "$cubin" > "/tmp/$name.sass" 2>&1 || true
    { echo "==== $name"; cat "/tmp/$name.sass"; } >> "$out/all.sass"
    echo "== SASS $name: instructions of interest"
    grep -oE "HGMMA[.A-Z0-9_]*|UTCHMMA[.A-Z0-9]*|UTCBAR[.A-Z0-9]*|LDTM[.A-Z0-9]*|STTM[.A-Z0-9]*|UTCATOMSWS[.A-Z0-9]*|UTMALDG[.A-Z0-9]*|UTMASTG[.A-Z0-9]*|SYNCS\.[A-Z.0-9]*|USETMAXREG[.A-Z0-9]*|WARPGROUP[.A-Z]*" \
      "/tmp/$name.sass" | sort | uniq -c
  done
  [[ $rc -eq 0 && $rc2 -eq 0 && $rc3 -eq 0 && $rc4 -eq 0 && $rc5 -eq 0 && $rc6 -eq 0 ]]
  exit
fi

build=${BUILD_DIR:-build}
cmake --build "$build" -j2 --target jfac scale_ring_test row_softmax_test jfart_shared
mkdir -p .gpu
# Every target of dialects/JFA/Targets.def (the H200 runs the sm_90a ones).
for a in $(python3 scripts/kernel_variants.py --targets kernels/examples/scale_ring.mlir); do
  for k in scale_ring row_softmax; do
    "$build/bin/jfac" compile "kernels/examples/$k.mlir" --arch "$a" \
      -o ".gpu/${k}_$a.cubin" --quiet
  done
done
for k in kernels/gemm/*.mlir kernels/examples/*_sm90.mlir kernels/examples/*_sm100.mlir; do
  name=$(basename "$k" .mlir)
  # The one target its first line names (`// jfa-targets:`).
  arch=$(python3 scripts/kernel_variants.py --targets "$k" | head -n 1)
  # Every declared variant (`// jfa-variants:`), named like build-package.sh's.
  mapfile -t variants < <(python3 scripts/kernel_variants.py "$k")
  for variant in "${variants[@]}"; do
    variant_args "$variant"
    "$build/bin/jfac" compile "$k" --arch "$arch" "${params[@]}" \
      -o ".gpu/${name}_$arch$suffix.cubin" --quiet
  done
done
mkdir -p .gpu/debug
for k in kernels/examples/scale_ring.mlir kernels/gemm/gemm_sm90.mlir \
         kernels/examples/broken_phase.mlir; do
  name=$(basename "$k" .mlir)
  "$build/bin/jfac" compile "$k" --arch sm_90a --debug-barriers \
    -o ".gpu/debug/${name}_sm_90a.cubin" --quiet
done
cp "$build/test/scale_ring_test" "$build/test/row_softmax_test" \
  "$build/runtime/libjfart.so" .gpu/
echo "gpu-check: built .gpu/; now run 'bash scripts/gpu-check.sh --run' on the GPU machine with .gpu carried"
