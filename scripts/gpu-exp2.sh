#!/usr/bin/env bash
# Builds the folder test/gpu/exp2_test.py reads (jfa.exp2 on the GPU against
# jfa-interp): test/gpu/exp2_columns.mlir compiled for sm_90a with shares 0,
# 5 and 16, random inputs (and -inf, 0, the clamp's edges), and for each
# share jfa-interp's output.
#   bash scripts/gpu-exp2.sh DIR     then, on the GPU machine (DIR carried):
#   PYTHONPATH=<package>/python python3 test/gpu/exp2_test.py DIR
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:?usage: gpu-exp2.sh DIR}
build=${BUILD_DIR:-build}
py=/usr/bin/python3; [[ -x $py ]] || py=python3
mkdir -p "$dir"
"$py" - "$dir" <<'PY'
import sys
import numpy as np
rng = np.random.default_rng(20261206)
a = rng.uniform(-140, 135, 64).astype(np.float32)
a[:6] = [-np.inf, -127, -126, 0, 127, 126.5]
b = rng.uniform(-2, 2, 128).astype(np.float32)
b[:4] = [0, 0.5, -0.25, 1e-30]
np.save(f"{sys.argv[1]}/a.npy", a)
np.save(f"{sys.argv[1]}/b.npy", b)
PY
for share in 0 5 16; do
  base=$dir/exp2_columns.share=$share
  "$build/bin/jfac" compile test/gpu/exp2_columns.mlir --arch sm_90a -P share=$share \
    -o "$base.cubin" --quiet
  "$py" -c "import numpy as n; n.save('$base.interp.npy', n.full((64, 128), n.nan, n.float32))"
  "$build/bin/jfa-interp" test/gpu/exp2_columns.mlir --arch sm_90a -P share=$share \
    "$dir/a.npy" "$dir/b.npy" "$base.interp.npy" > /dev/null
  echo "gpu-exp2: $base.cubin, $base.interp.npy"
done
