#!/usr/bin/env bash
# The main job: install what is missing, build jfac, and compile the example
# kernel (kernels/examples/scale_ring.mlir) to a cubin for each target,
# printing where each cubin is and its resource use (ptxas -v).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
build=${BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$build" -j2 --target jfac
mkdir -p "$build/kernels"
for arch in ${ARCHS:-sm_100a sm_90a}; do
  "$build/bin/jfac" compile kernels/examples/scale_ring.mlir --arch "$arch" \
    -o "$build/kernels/scale_ring_$arch.cubin"
done
