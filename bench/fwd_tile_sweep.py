"""Our forward alone over a sweep of length laws: where a q-tile choice wins.

    PYTHONPATH=dist/jfa/python python3 bench/fwd_tile_sweep.py [--d 64] [--causal]
                                                               [--label NAME]

One line per batch: its law, batch size, longest and mean length, and our
forward's median time and useful TFLOP/s (attention_bench.py's count and
timing). Run it once per package (the same seeds give the same batches) and
compare the lines: where the forward's 192-row specialization at D = 64
wins under causal masking, which the runtime's rule
(runtime/src/AttentionCommon.h, forwardVariantSuits and
kTallTileDiagonalMinSeqlen) takes from max_seqlen (bench/NOTES.md run 98).
Laws, 32K tokens each (tail8k: 64K, as attention_bench.py's): uniform 1..M
for M = 256 to 8192, equal lengths S = 512 to 16384, log-normal capped at
8192, and one 8192-token sequence among uniform 1..512 ones (a long
maximum over mostly short work).
"""
import argparse
import random

import torch

from attention_bench import Problem, median_ms, run_ours
from batches import TOKENS_TAIL, TOKENS_UNIFORM, lengths_tail, lengths_uniform


def laws():
    for hi in (256, 512, 1024, 2048, 4096, 8192):
        yield f"unif{hi}", lambda rng, hi=hi: lengths_uniform(rng, hi, TOKENS_UNIFORM)
    for s in (512, 1024, 2048, 4096, 16384):
        yield f"eq{s}", lambda rng, s=s: [s] * (TOKENS_UNIFORM // s)
    yield "tail8k", lambda rng: lengths_tail(rng, 8192, TOKENS_TAIL)
    yield "one8k+unif512", lambda rng: [8192] + lengths_uniform(rng, 512,
                                                                TOKENS_UNIFORM - 8192)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, default=64, choices=(64, 128))
    ap.add_argument("--causal", action="store_true")
    ap.add_argument("--label", default="")
    args = ap.parse_args()
    h = 32 if args.d == 64 else 16
    for i, (name, law) in enumerate(laws()):
        lengths = law(random.Random(2000 + i))
        p = Problem(lengths, args.d, h, args.causal, seed=i)
        t = median_ms(run_ours(p))
        print(f"sweep {args.label} {name:14s} d{args.d} {'causal' if args.causal else 'full'}"
              f" B={p.b:5d} max={p.smax:5d} mean={p.t / p.b:7.1f}"
              f" {t:8.4f} ms {p.flops / t / 1e9:7.1f} TFLOP/s", flush=True)
        p.release()
        del p
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
