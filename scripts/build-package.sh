#!/usr/bin/env bash
# Builds the Python package jfa into OUTDIR (default dist/jfa):
#   OUTDIR/python/jfa/           the package (ctypes over the runtime)
#   OUTDIR/lib/libjfart.so       the runtime (CUDA driver API only)
#   OUTDIR/kernels/<kernel>_<arch>.cubin (+ .meta)
#                                kernels/jagged_attention/*.mlir through jfac
#   OUTDIR/kernels/tutorial/     docs/tutorial/scale_add.mlir for sm_90a
#                                (relu=0 and relu=1), for jfa.load
#   OUTDIR/kernels/examples/     kernels/examples/sum_partials.mlir for
#                                sm_90a (test/gpu/sum_partials_test.py)
# Needs a configured build folder ($BUILD_DIR, default build; see
# scripts/test.sh) and ptxas. The result needs no MLIR, LLVM or CUDA
# toolkit: copy OUTDIR to the GPU machine and set PYTHONPATH=OUTDIR/python.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/variant-args.sh
out=${1:-dist/jfa}
build=${BUILD_DIR:-build}
if [[ ! -f $build/CMakeCache.txt ]]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
fi
cmake --build "$build" -j2 --target jfart_shared jfac

rm -rf "$out"
mkdir -p "$out/python" "$out/lib" "$out/kernels"
cp -r python/jfa "$out/python/jfa"
find "$out/python" -name __pycache__ -prune -exec rm -rf {} +
cp "$build/runtime/libjfart.so" "$out/lib/"

shopt -s nullglob
kernels=(kernels/jagged_attention/*.mlir)
if [[ ${#kernels[@]} -eq 0 ]]; then
  echo "build-package: no kernels in kernels/jagged_attention/" >&2
  exit 1
fi
for k in "${kernels[@]}"; do
  name=$(basename "$k" .mlir)
  # The targets its first line names (`// jfa-targets: sm_90a`), else every
  # target of dialects/JFA/Targets.def.
  mapfile -t archs < <(python3 scripts/kernel_variants.py --targets "$k")
  # One cubin per declared variant (`// jfa-variants:`, see
  # scripts/kernel_variants.py); the metadata records each one's values.
  mapfile -t variants < <(python3 scripts/kernel_variants.py "$k")
  for arch in "${archs[@]}"; do
    for variant in "${variants[@]}"; do
      variant_args "$variant"
      cubin=$out/kernels/${name}_$arch$suffix.cubin
      "$build/bin/jfac" compile "$k" --arch "$arch" "${params[@]}" -o "$cubin" --quiet
      echo "build-package: $cubin"
    done
  done
done

# The tutorial's kernel (docs/TUTORIAL.md), prebuilt for a GPU machine
# without jfac: docs/tutorial/scale_add.py and test/gpu/load_test.py load
# these with jfa.load when jfa.compile has no jfac to run.
mkdir -p "$out/kernels/tutorial"
for variant in "" relu=1; do
  variant_args "$variant"
  cubin=$out/kernels/tutorial/scale_add_sm_90a$suffix.cubin
  "$build/bin/jfac" compile docs/tutorial/scale_add.mlir --arch sm_90a "${params[@]}" \
    -o "$cubin" --quiet
  echo "build-package: $cubin"
done

# The cross-CTA handover example (kernels/examples/sum_partials.mlir), for
# test/gpu/sum_partials_test.py on a GPU machine without jfac.
mkdir -p "$out/kernels/examples"
cubin=$out/kernels/examples/sum_partials_sm_90a.cubin
"$build/bin/jfac" compile kernels/examples/sum_partials.mlir --arch sm_90a -o "$cubin" --quiet
echo "build-package: $cubin"

size=$(du -sb "$out" | cut -f1)
if (( size > 64 * 1024 * 1024 )); then
  echo "build-package: $out is $size bytes, over 64 MiB" >&2
  exit 1
fi
echo "build-package: $out ($((size / 1024)) KiB). Use it with:"
echo "PYTHONPATH=$out/python python3 -c \"import jfa\""
