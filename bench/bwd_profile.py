"""One jagged attention backward on a fixed batch, for ncu / compute-sanitizer.

    ncu --metrics ... -k regex:attention_bwd_sm90 -c 1 python3 bench/bwd_profile.py --shape eq4k

Shapes: eq4k (B=8, S=4096, H=16, D=128, causal: issue 17's profile point),
eq4k-full (the same without the causal mask), tail8k-full (32K tokens in
log-normal lengths up to 8192, as attention_bench's tail8k, H=16, D=128,
full: the jagged shape furthest from issue 17's 1.5x since run 78),
unif4k-gqa4 (32K tokens up to 4096, H=16 over 4 k/v heads, D=128, causal)
and unif4k-win (the same with 16 k/v heads and a window wider than any
sequence: the same general kernel variant, one q head per unit),
eq1k (B=32, S=1024, the same otherwise: its short-sequence point), unif4k-d64 (20 sequences up to 4096, H=32, D=64, full), unif1k (32K tokens in
sequences of 1 to 1024 tokens, H=16, D=128, causal: the jagged shape
furthest from issue 17's 1.5x). The forward runs
first (its launch is not the backward kernel's name, so -k skips it), then
one warm-up backward, then the profiled one: use -c 1 --launch-skip 1.
"""
import argparse
import random

import torch

import jfa
from batches import TOKENS_UNIFORM, lengths_tail, lengths_uniform

ap = argparse.ArgumentParser()
ap.add_argument("--shape", default="eq4k",
                choices=("eq4k", "eq4k-full", "eq1k", "unif4k-d64", "unif1k", "tail8k-full",
                         "unif4k-gqa4", "unif4k-win"))
args = ap.parse_args()
rng = random.Random(7)
if args.shape in ("eq4k", "eq4k-full", "eq1k"):
    s = 1024 if args.shape == "eq1k" else 4096
    lens, heads, d, causal = [s] * (32768 // s), 16, 128, args.shape != "eq4k-full"
elif args.shape == "unif1k":
    lens, heads, d, causal = lengths_uniform(rng, 1024, TOKENS_UNIFORM), 16, 128, True
elif args.shape == "tail8k-full":
    lens, heads, d, causal = lengths_tail(rng, 8192, TOKENS_UNIFORM), 16, 128, False
elif args.shape in ("unif4k-gqa4", "unif4k-win"):
    lens, heads, d, causal = lengths_uniform(rng, 4096, TOKENS_UNIFORM), 16, 128, True
else:
    lens, heads, d, causal = [rng.randint(1, 4096) for _ in range(20)], 32, 64, False
offsets = torch.tensor([0] + list(torch.tensor(lens).cumsum(0)), dtype=torch.int32,
                       device="cuda")
t = int(offsets[-1])
# unif4k-gqa4: 4 k/v heads for the 16 q heads; unif4k-win: the same general
# kernel variant with one k/v head per q head (a window wider than any
# sequence), its MHA twin.
kv_heads = 4 if args.shape == "unif4k-gqa4" else heads
opts = {"window": (8192, 0)} if args.shape == "unif4k-win" else {}
q, do = (torch.randn(t, heads, d, device="cuda", dtype=torch.bfloat16) for _ in range(2))
k, v = (torch.randn(t, kv_heads, d, device="cuda", dtype=torch.bfloat16) for _ in range(2))
o, lse = jfa.jagged_attention(q, k, v, offsets, max(lens), causal=causal, **opts)
for _ in range(2):
    dq, dk, dv = jfa.attention_backward(do, q, k, v, o, lse, offsets, max(lens), causal=causal,
                                        **opts)
torch.cuda.synchronize()
print(f"{args.shape}: T={t} H={heads} D={d} causal={causal}: dq norm {dq.float().norm():.4g}")
