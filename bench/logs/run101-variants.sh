#!/usr/bin/env bash
# Run 101 (bench/NOTES.md, session 31): the sm_90a backward's gelu_tanh
# variants as they were before b096df8 (the tanh form of @activation_grad,
# in the kernel itself) into dist/var/gelu_old, for JFA_KERNEL_DIR over a
# package's kernels (copy them, overlay these). Needs build/bin/jfac; run
# from the repository root on main.
set -euo pipefail
old=bcb54be
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/jagged_attention" "$tmp/lib"
git show "$old:kernels/jagged_attention/attention_bwd_sm90.mlir" > "$tmp/jagged_attention/attention_bwd_sm90.mlir"
for f in $(git ls-tree --name-only "$old" kernels/lib/); do git show "$old:$f" > "$tmp/lib/$(basename "$f")"; done
mkdir -p dist/var/gelu_old
for d in 128 64; do for c in 0 1; do for g in 3 6; do
  build/bin/jfac compile "$tmp/jagged_attention/attention_bwd_sm90.mlir" --arch sm_90a \
    -P head_dim=$d -P causal=$c -P general=$g --quiet \
    -o "dist/var/gelu_old/attention_bwd_sm90_sm_90a.head_dim=$d.causal=$c.general=$g.cubin"
done; done; done
echo "run101-variants: dist/var/gelu_old"
