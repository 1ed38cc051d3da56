#!/usr/bin/env bash
# ptxas's spill figures for every declared variant of a kernel, one line
# each: `bash bench/spills.sh kernels/jagged_attention/attention_bwd_sm90.mlir`
# (every target its `// jfa-targets:` line names, every `// jfa-variants:`
# combination; JFAC=path/to/jfac, default build/bin/jfac). Prints
# "<arch> <variant>: <stack> B stack, <stores> B spill stores, <loads> B
# spill loads" and, last, the variants that spill.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/variant-args.sh
kernel=${1:?usage: bench/spills.sh KERNEL.mlir}
jfac=${JFAC:-build/bin/jfac}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
spilling=()
mapfile -t variants < <(python3 scripts/kernel_variants.py "$kernel")
[[ ${#variants[@]} -gt 0 ]] || variants=("")
for arch in $(python3 scripts/kernel_variants.py --targets "$kernel"); do
  for variant in "${variants[@]}"; do
    variant_args "$variant"
    report=$("$jfac" compile "$kernel" --arch "$arch" "${params[@]}" \
      -o "$out/k.cubin" 2>&1) || { echo "$arch $variant: jfac failed" >&2; echo "$report" >&2; exit 1; }
    line=$(grep -m1 -oE '[0-9]+ bytes stack frame, [0-9]+ bytes spill stores, [0-9]+ bytes spill loads' <<<"$report" || true)
    stack=$(grep -oE '^[0-9]+' <<<"$line" || echo "?")
    stores=$(grep -oE '[0-9]+ bytes spill stores' <<<"$line" | grep -oE '^[0-9]+' || echo "?")
    loads=$(grep -oE '[0-9]+ bytes spill loads' <<<"$line" | grep -oE '^[0-9]+' || echo "?")
    echo "$arch ${variant:-(no parameters)}: $stack B stack, $stores B spill stores, $loads B spill loads"
    if [[ $stores != 0 || $loads != 0 ]]; then spilling+=("$arch ${variant}"); fi
  done
done
echo "spilling: ${#spilling[@]}"
for v in "${spilling[@]}"; do echo "  $v"; done
