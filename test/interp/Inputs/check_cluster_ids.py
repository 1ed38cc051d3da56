#!/usr/bin/env python3
"""Checks what test/interp/cluster-ids.mlir's kernels wrote:

    check_cluster_ids.py OUT.npy GRID_X,GRID_Y CLUSTER_X,CLUSTER_Y

OUT[y * GRID_X + x] must be (x, y, rank, x // CX, y // CY, 0), rank = the
CTA's position in its cluster, x fastest. Prints the ranks in grid order.
"""
import sys

import numpy as np

out = np.load(sys.argv[1])
gx, gy = (int(v) for v in sys.argv[2].split(","))
cx, cy = (int(v) for v in sys.argv[3].split(","))
ranks = []
for y in range(gy):
    for x in range(gx):
        rank = x % cx + cx * (y % cy)
        want = [x, y, rank, x // cx, y // cy, 0]
        got = list(out[y * gx + x])
        if got != want:
            sys.exit(f"CTA ({x}, {y}): wrote {got}, want {want}")
        ranks.append(rank)
print(f"cluster ids ok: {gx * gy} CTAs, ranks " + " ".join(map(str, ranks)))
