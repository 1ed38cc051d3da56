#!/usr/bin/env bash
# Builds everything the GPU check needs into .gpu/ (cubins for both targets,
# the runtime-only test program). Run here, then on the GPU machine:
#   bash scripts/gpu-check.sh --run        (with .gpu carried)
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ ${1:-} == --run ]]; then
  out=${OUT:-/tmp}
  set -o pipefail
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
  ./.gpu/scale_ring_test .gpu/scale_ring_sm_90a.cubin .gpu/scale_ring_sm_100a.cubin \
    2>&1 | tee "$out/scale_ring_test.log"
  rc=${PIPESTATUS[0]}
  for a in sm_90a sm_100a; do
    cuobjdump -sass ".gpu/scale_ring_$a.cubin" > "$out/scale_ring_$a.sass" || true
    echo "== SASS $a: instructions of interest"
    grep -oE "UTMALDG[.A-Z0-9]*|UTMASTG[.A-Z0-9]*|SYNCS\.[A-Z.0-9]*|USETMAXREG[.A-Z0-9]*|BAR\.[A-Z.]*|UTMACMDFLUSH|DEPBAR[.A-Z]*" \
      "$out/scale_ring_$a.sass" | sort | uniq -c
  done
  exit "$rc"
fi

build=${BUILD_DIR:-build}
cmake --build "$build" -j2 --target jfac scale_ring_test
mkdir -p .gpu
for a in sm_90a sm_100a; do
  "$build/bin/jfac" compile kernels/examples/scale_ring.mlir --arch "$a" \
    -o ".gpu/scale_ring_$a.cubin"
done
cp "$build/test/scale_ring_test" .gpu/
echo "gpu-check: built .gpu/; now run 'bash scripts/gpu-check.sh --run' on the GPU machine with .gpu carried"
