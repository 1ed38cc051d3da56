"""The attention kernels' work schedule: the (sequence, 128-row tile) pairs
that hold rows, longest sequence first. The backward's is over the key
sequences (key tiles), the forward's over the query sequences (q tiles,
which the forward takes last first within a sequence: bench/NOTES.md, run
57). The runtime builds both on the device with
kernels/jagged_attention/attention_bwd_schedule.mlir; this is its reference
and the reasoning behind the order.

The kernels are persistent, a unit being one listed pair for one head
(unit u is pair u // H, head u % H). History, from the backward (the
forward followed in run 57): its CTA i of G first took units i, i + G, ...
Before the schedule, every CTA walked all B * H * ceil(max_seqlen /
128) units and skipped the dead ones (a key tile past its sequence's end),
paying a few dependent loads for each: most units of a heavy-tailed batch
are dead. Listing only the live pairs, the longest sequences first (their
first key tiles cost most under causal, and they no longer start last), and
each sequence's key tiles in order (so that the CTAs running at once share
its Q and dO rows in L2) gave +3% to +26% (bench/NOTES.md, run 29). Sorting
the pairs by their own cost balanced the CTAs better on paper but put every
sequence's first tile in flight at once and lost up to 18% on causal batches
to L2 misses (run 29).

The kernels hand the units out dynamically: each CTA's producer takes the
next unit from a counter with an atomic add as it starts one, so a CTA that
drew short units takes more (static round robin left the busiest CTA 3-18%
above the mean on causal batches in a simulation; run 31).

The schedule is an int32 array [n, counter, pair_0, ..., pair_{B*k_tiles-1}]:
n is the number of live pairs (the tile's first key lies inside its
sequence; on the block grid, the tile's first token lies before its
sequence's end), counter starts at 0 (the kernel adds to it: a schedule serves one
launch), pair_j = b * k_tiles + kt; the live pairs first, ordered by
decreasing sequence length, then b, then kt; then the dead ones, which the
kernels never read.
"""

KEY_TILE = 128


def block_phases(lengths):
    """Each sequence's first token's place in its 128-token block of the
    packed axis (sequences packed from token 0): what a sequence's tiles
    start before it when they lie on the block grid (a block-sparse mask)."""
    phases, start = [], 0
    for n in lengths:
        phases.append(start % KEY_TILE if n > 0 else 0)  # no tile when empty
        start += n
    return phases


def schedule_list(lengths, k_tiles, block_aligned=False, tile_rows=KEY_TILE):
    """The schedule as a Python list, for sequences of these lengths and
    k_tiles tiles of tile_rows rows each (128: the backward's key tiles, the
    forwards' q tiles but the sm_90a D = 64 one's, 192; the kernel's
    %tile_rows): the reference that the device's
    kernels/jagged_attention/attention_bwd_schedule.mlir is checked against
    (test/interp/kernels.py, test/gpu/attention_bwd_test.py) and what the
    interpreter's forward and backward tests pass. With block_aligned the
    tiles lie on the packed axis's 128-token grid (the kernel's
    %block_aligned): a sequence spans its block phase more tokens."""
    phases = block_phases(lengths) if block_aligned else [0] * len(lengths)
    pairs = [(b, kt) for b in range(len(lengths)) for kt in range(k_tiles)]
    live = [kt * tile_rows < lengths[b] + phases[b] for b, kt in pairs]
    order = sorted(range(len(pairs)),  # stable: b, then kt, within a length
                   key=lambda j: -lengths[pairs[j][0]] if live[j] else 1)
    return [sum(live), 0] + order
