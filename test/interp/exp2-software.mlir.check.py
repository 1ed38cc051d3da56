"""Checks exp2-software.mlir's output: every row alike; in the software
column groups exact values where the algorithm gives them (0 below -126,
1 at 0, 2^127 from 127 up, 2^n at integers) and 2^x within 1e-4 relative
from -126 up; elsewhere exp2 rounded to float32 (1 ulp)."""
import sys

import numpy as np

x = np.load(sys.argv[1]).astype(np.float64)
out = np.load(sys.argv[2])
assert (out == out[0:1, :]).all(), "rows differ"
row = out[0].astype(np.float64)
software = (np.arange(64) // 8) % 2 == 0
for c in np.nonzero(software)[0]:
    v, y = x[c], row[c]
    if v < -126:
        assert y == 0.0, (c, v, y)
    elif v >= 127:
        assert y == 2.0 ** 127, (c, v, y)
    elif v == np.floor(v):
        assert y == 2.0 ** v, (c, v, y)
    else:
        assert abs(y / 2.0 ** v - 1) < 1e-4, (c, v, y)
print("exp2 software columns ok")
# exp2 in float64, rounded once to float32: numpy's own float32 exp2 may be
# off by 2 ulps near the top of the range (numpy 1.24's SIMD path: 126.99).
with np.errstate(over="ignore"):
    want = np.exp2(x).astype(np.float32)
for c in np.nonzero(~software)[0]:
    w, y = float(want[c]), row[c]
    assert y == w or abs(y - w) <= abs(w) * 2.0 ** -23, (c, x[c], y, w)
print("exp2 unit columns ok")
