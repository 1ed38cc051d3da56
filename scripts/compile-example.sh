#!/usr/bin/env bash
# The main job: install what is missing, build jfac, and compile the flagship
# kernels (kernels/jagged_attention/attention_fwd_<suffix>.mlir for each
# target of dialects/JFA/Targets.def: attention_fwd_sm90.mlir for sm_90a,
# attention_fwd_sm100.mlir for sm_100a) and the small example kernel
# (kernels/examples/scale_ring.mlir, every target) to cubins, printing where
# each cubin is and its resource use (ptxas -v).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/variant-args.sh
./scripts/setup.sh
build=${BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$build" -j2 --target jfac
mkdir -p "$build/kernels"
# One variant of each forward: head dim 128, causal, plain where its
# `// jfa-variants:` line has it, else the first it names (a specialization
# such as attention_fwd_sm90_q192 declares only some); the runtime embeds
# every variant the line names, per target (kernels/jagged_attention/README.md).
for k in kernels/jagged_attention/attention_fwd_*.mlir; do
  name=$(basename "$k" .mlir)
  mapfile -t variants < <(python3 scripts/kernel_variants.py "$k")
  variant=${variants[0]}
  for v in "${variants[@]}"; do
    if [[ $v == "head_dim=128 causal=1 general=0" ]]; then variant=$v; fi
  done
  variant_args "$variant"
  for arch in $(python3 scripts/kernel_variants.py --targets "$k"); do
    "$build/bin/jfac" compile "$k" --arch "$arch" "${params[@]}" \
      -o "$build/kernels/${name}_$arch$suffix.cubin"
  done
done
for arch in ${ARCHS:-$(python3 scripts/kernel_variants.py --targets kernels/examples/scale_ring.mlir)}; do
  "$build/bin/jfac" compile kernels/examples/scale_ring.mlir --arch "$arch" \
    -o "$build/kernels/scale_ring_$arch.cubin"
done
