"""How evenly the attention forward's work schedules load the CTAs, on the
batches of bench/attention_bench.py (bench/batches.py), without a GPU.

    python3 bench/schedule_sim.py [--grid 132] [--fixed 1.0] [--masked 1.3]

A unit is (sequence, head, 128-row q tile). Its cost, in 128x128 key tiles:
`fixed` (the unit's own start: Q's load, the epilogue) plus the key tiles it
reads, the one holding the causal diagonal or the sequence's end costing
`masked`; a unit past its sequence's end costs `dead`. Each schedule's
makespan (its busiest CTA) is printed against the ideal (the total cost
over the grid):

- static bands: the forwards before run 57. CTA i takes units i, i + G,
  i + 2G, ... of the order of bands of 7 q tiles from the highest down, every
  (sequence, head) of a band in turn, dead units included.
- dynamic bands: the same order, each unit to the CTA that frees first.
- dynamic list: the work queue of run 57 (python/jfa/_schedule.py): the
  (sequence, q tile) pairs with queries, longest sequence first, a
  sequence's tiles last first, every head of a pair in turn; each unit to
  the CTA that frees first.
- heads outer: the same list once per head (unit u = head u / n of pair
  u mod n): the CTAs in flight share one head's K and V, at some cost in
  balance (the model has no L2; this column shows only that cost).

A fetch from the queue adds `fetch` to a unit. bench/NOTES.md, run 57.
"""
import argparse
import heapq
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from batches import all_shapes  # noqa: E402

BAND = 7
TILE = 128


def unit_cost(n, tile, causal, a):
    """The cost of q tile `tile` of a sequence of n tokens."""
    tiles = -(-n // TILE)
    if causal:
        return a.fixed + tile + a.masked  # tiles 0..tile-1 whole, the diagonal masked
    ragged = n % TILE != 0
    return a.fixed + tiles - ragged + ragged * a.masked


def static_bands(lengths, heads, causal, a):
    q_tiles = -(-max(lengths) // TILE)
    band_units = len(lengths) * heads * BAND
    units = -(-q_tiles // BAND) * band_units
    costs = []
    for u in range(units):
        band, in_band = divmod(u, band_units)
        sh, band_tile = divmod(in_band, BAND)
        b = sh // heads
        tile = q_tiles - 1 - (band * BAND + band_tile)
        live = tile >= 0 and tile * TILE < lengths[b]
        costs.append(unit_cost(lengths[b], tile, causal, a) if live else a.dead)
    return costs


def queue_list(lengths, heads, causal, a):
    costs = []
    for b in sorted(range(len(lengths)), key=lambda b: (-lengths[b], b)):
        for tile in reversed(range(-(-lengths[b] // TILE))):
            costs += [unit_cost(lengths[b], tile, causal, a)] * heads
    return costs


def heads_outer(lengths, heads, causal, a):
    return queue_list(lengths, 1, causal, a) * heads


def greedy(costs, grid, fetch):
    """The makespan when each unit goes to the CTA that frees first."""
    free = [(0.0, c) for c in range(grid)]
    for cost in costs:
        t, c = heapq.heappop(free)
        heapq.heappush(free, (t + cost + fetch, c))
    return max(t for t, _ in free)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--grid", type=int, default=132, help="CTAs (the H100/H200's SMs)")
    ap.add_argument("--fixed", type=float, default=1.0, help="a unit's own cost")
    ap.add_argument("--masked", type=float, default=1.3, help="a masked key tile's cost")
    ap.add_argument("--dead", type=float, default=0.05, help="a skipped unit's cost")
    ap.add_argument("--fetch", type=float, default=0.02, help="a queue fetch's cost")
    a = ap.parse_args()
    print("| shape | B | static bands | dynamic bands | dynamic list | heads outer |")
    print("|---|---|---|---|---|---|")
    for i, (name, _d, heads, causal, lengths_of) in enumerate(all_shapes()):
        lengths = lengths_of(random.Random(1000 + i))  # the bench's batch
        bands = static_bands(lengths, heads, causal, a)
        listed = queue_list(lengths, heads, causal, a)
        grid = min(a.grid, len(bands))
        per_cta = [0.0] * grid
        for u, cost in enumerate(bands):
            per_cta[u % grid] += cost
        ideal = sum(listed) / grid
        print(f"| {name} | {len(lengths)} | {max(per_cta) / ideal:.3f} "
              f"| {greedy(bands, grid, a.fetch) / ideal:.3f} "
              f"| {greedy(listed, grid, a.fetch) / ideal:.3f} "
              f"| {greedy(heads_outer(lengths, heads, causal, a), grid, a.fetch) / ideal:.3f} |")


if __name__ == "__main__":
    main()
