#!/usr/bin/env python3
"""Checks what test/interp/cluster-multicast.mlir's kernel wrote:

    check_multicast.py A.npy TILES.npy MINE.npy

CTA p (cluster p // 2, rank p % 2) in step i holds tile t = 2 * (p // 2) + i
of A (rows 128 t to 128 t + 128) and its own row block, rows 64 of them
from 128 t + 64 * rank.
"""
import sys

import numpy as np

a, tiles, mine = (np.load(p) for p in sys.argv[1:4])
ctas, steps = tiles.shape[:2]
for p in range(ctas):
    for i in range(steps):
        t = 2 * (p // 2) + i
        rank = p % 2
        want = a[128 * t:128 * t + 128]
        if not (tiles[p, i] == want).all():
            sys.exit(f"CTA {p} step {i}: tile {tiles[p, i]}, want {want}")
        want = a[128 * t + 64 * rank:128 * t + 64 * rank + 64]
        if not (mine[p, i] == want).all():
            sys.exit(f"CTA {p} step {i}: row block {mine[p, i]}, want {want}")
print(f"multicast ok: {ctas} CTAs, {steps} steps")
