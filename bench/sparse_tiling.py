#!/usr/bin/env python3
"""How much MMA work the jagged tiling does on a block-sparse batch, against
the pairs the mask lets through (no GPU, numpy only).

    /usr/bin/python3 bench/sparse_tiling.py [--density 0.5] [--causal]
        [--kind unif4k] [--seed 3]

The kernels tile each sequence from its own start (q tiles of 128 rows in
the sm_90a forward, 64 in its backward; 128-key tiles), while the mask's
128-token blocks lie on the packed axis, as FlexAttention's do. A tile that
straddles blocks runs if any of them is listed, so it can run a whole tile
for a sliver of listed pairs. This prints, for a batch drawn by the bench's
length law (bench/batches.py) and a random mask of the given density:
  - the useful pairs, as a fraction of the dense (or causal) pairs;
  - the fraction of the dense tiling's steps that the forward and the
    backward run;
  - per half, the fraction with a listed block: the backward's 64-key
    halves (one per MMA warpgroup) and the forward's 64-row halves (one per
    consumer warpgroup), which is what either runs if a half with no listed
    block skips its products.
The ratio of the two is the work run per useful pair, against 1 for the
dense kernel.

Since run 68 the kernels place their tiles on the mask's grid (a
sequence's first tiles start at the block holding its first token;
kernels/lib/work_queue.mlir's @queue_unit and @unit), so a tile lies in
one block: the tool prints that tiling's steps too ("on the block grid"),
for the forward's 128-row and the backward's 64-row q tiles.
"""
import argparse
import os
import random
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from batches import TOKENS_UNIFORM, lengths_uniform  # noqa: E402

KINDS = {"unif1k": 1024, "unif4k": 4096}


def any_listed(mask, q0, q1, k0, k1):
    return q0 < q1 and k0 < k1 and bool(mask[q0:q1, k0:k1].any())


def grid_steps(lengths, blocks, causal, q_size):
    """Steps of the tiling on the block grid (q_size-row by 128-key tiles
    from each sequence's block start; the rows and keys before the
    sequence masked), as a fraction of the dense tiling's steps."""
    run = dense = 0
    start = 0
    for n in lengths:
        phase = start % 128 if n else 0
        blk = np.arange(start - phase, start + n) // 128
        mask = blocks[np.ix_(blk, blk)]
        seen = np.zeros_like(mask)
        seen[phase:, phase:] = True
        if causal:
            seen &= np.tri(n + phase, dtype=bool)
        mask = mask & seen
        for a in range(0, n + phase, q_size):
            for b in range(0, n + phase, 128):
                if causal and b > a + q_size - 1:
                    continue
                run += bool(mask[a:a + q_size, b:b + 128].any())
        for a in range(0, n, q_size):
            for b in range(0, n, 128):
                dense += not (causal and b > a + q_size - 1)
        start += n
    return run / dense


def measure(lengths, blocks, causal):
    useful = fwd_run = fwd_halves = fwd_all = bwd_run = bwd_halves = bwd_all = 0
    start = 0
    for n in lengths:
        blk = np.arange(start, start + n) // 128
        mask = blocks[np.ix_(blk, blk)]
        if causal:
            mask = mask & np.tri(n, dtype=bool)
        useful += int(mask.sum())
        for a in range(0, n, 128):  # forward: 128 x 128 tiles
            for b in range(0, n, 128):
                if causal and b > a + 127:
                    continue
                fwd_all += 1
                top = any_listed(mask, a, min(a + 64, n), b, min(b + 128, n))
                bottom = any_listed(mask, a + 64, min(a + 128, n), b, min(b + 128, n))
                fwd_run += top or bottom
                fwd_halves += (top + bottom) / 2
        for b in range(0, n, 128):  # backward: a unit's 64-row q tiles
            for a in range(0, n, 64):
                if causal and a + 63 < b:
                    continue
                bwd_all += 1
                lo = any_listed(mask, a, min(a + 64, n), b, min(b + 64, n))
                hi = any_listed(mask, a, min(a + 64, n), b + 64, min(b + 128, n))
                bwd_run += lo or hi
                bwd_halves += (lo + hi) / 2
        start += n
    return (useful, fwd_run / fwd_all, fwd_halves / fwd_all, bwd_run / bwd_all,
            bwd_halves / bwd_all)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--density", type=float, default=0.5)
    ap.add_argument("--causal", action="store_true")
    ap.add_argument("--kind", choices=sorted(KINDS), default="unif4k")
    ap.add_argument("--seed", type=int, default=3)
    args = ap.parse_args()
    lengths = lengths_uniform(random.Random(args.seed), KINDS[args.kind], TOKENS_UNIFORM)
    blocks_n = (sum(lengths) + 127) // 128
    blocks = np.random.default_rng(args.seed).random((blocks_n, blocks_n)) < args.density
    useful, fwd, fwd_halves, bwd, halves = measure(lengths, blocks, args.causal)
    dense = sum(n * (n + 1) // 2 if args.causal else n * n for n in lengths)
    share = useful / dense
    print(f"{args.kind}, {len(lengths)} sequences, density {args.density}"
          f"{', causal' if args.causal else ''}: useful pairs {share:.3f} of the dense")
    print(f"  forward:  runs {fwd:.3f} of the dense steps, {fwd / share:.2f}x the work per useful pair;"
          f" 64-row halves with a listed block: {fwd_halves:.3f} ({fwd_halves / share:.2f}x)")
    print(f"  backward: runs {bwd:.3f} of the dense steps, {bwd / share:.2f}x the work per useful pair;"
          f" 64-key halves with a listed block: {halves:.3f} ({halves / share:.2f}x)")
    grid_fwd = grid_steps(lengths, blocks, args.causal, 128)
    grid_bwd = grid_steps(lengths, blocks, args.causal, 64)
    print(f"  on the block grid: forward {grid_fwd:.3f} of the dense steps "
          f"({grid_fwd / share:.2f}x), backward {grid_bwd:.3f} ({grid_bwd / share:.2f}x)")


if __name__ == "__main__":
    main()
