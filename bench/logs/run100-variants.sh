#!/usr/bin/env bash
# Run 100 (bench/NOTES.md): builds the sm_90a backward cubins of three
# variants of @add_dq_chunk into dist/var/{nowait,noadd,red}, for
# JFA_KERNEL_DIR over a package's kernels (copy them, overlay these):
#   nowait  main without the slot wait and its barrier (timing only: a race)
#   noadd   main without the TMA reduce-add (timing only: dq stays 0)
#   red     bench/logs/run100-dq-from-registers.patch (dQ added from
#           registers with red.global.add.v2.f32; no slot, no wait)
# Plain variants (general 0) at D = 128 causal and full, D = 64 causal and
# full. Needs build/bin/jfac; run from the repository root on main.
set -euo pipefail
source bench/logs/lib.sh
kernel=kernels/jagged_attention/attention_bwd_sm90.mlir
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$kernel" "$tmp" <<'PY'
import sys
src = open(sys.argv[1]).read()
a = src.index("jfa.func @add_dq_chunk(")
b = src.index("jfa.return", a)
body = src[a:b]
wait = "  jfa.tma_store_wait pending(0)\n  jfa.task_barrier\n"
add = body[body.index("  jfa.tma_store %dq_slot"):]
for name, cut in (("nowait", wait), ("noadd", add)):
    assert cut in body, name
    open(f"{sys.argv[2]}/{name}.mlir", "w").write(src[:a] + body.replace(cut, "", 1) + "  " + src[b:])
PY
cp "$kernel" "$tmp/red.mlir"
(cd "$tmp" && patch -s red.mlir) < <(sed -n '/^diff --git a\/kernels\/jagged_attention\/attention_bwd_sm90.mlir/,/^diff --git/p' bench/logs/run100-dq-from-registers.patch | sed '$d')
for v in nowait noadd red; do compile_plain "$tmp/$v.mlir" dist/var/$v; done
echo "run100-variants: dist/var/{nowait,noadd,red}"
