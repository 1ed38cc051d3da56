"""One jagged attention forward on a fixed batch, ours and cuDNN's, for ncu.

    ncu --section SpeedOfLight --section WarpStateStats -k regex:attention_fwd_sm90 \
        --launch-skip 1 -c 1 python3 bench/fwd_profile.py --shape eq1k
    ncu ... -k regex:'sdpa|fprop|fmha' --launch-skip 1 -c 1 python3 bench/fwd_profile.py --peer

Shapes (issue 19's equal-length causal points, D = 128, H = 16, 32K
tokens): eq1k (B = 32, S = 1024), eq4k (B = 8, S = 4096), eq16k (B = 2,
S = 16384); --head-dim 64 and --full change D and the mask (D = 64 full
attention on long sequences is where the forward is furthest from 1.5x
its best peer, bench/NOTES.md run 81). Ours runs twice (warm-up, profiled) unless --peer, which runs
cuDNN's SDPA (SDPBackend.CUDNN_ATTENTION) twice on the same data as
[B, H, S, D] instead. Each prints a checksum so the runs are not idle.
"""
import argparse

import torch

import jfa

SHAPES = {"eq1k": (32, 1024), "eq4k": (8, 4096), "eq16k": (2, 16384)}

ap = argparse.ArgumentParser()
ap.add_argument("--shape", default="eq1k", choices=sorted(SHAPES))
ap.add_argument("--peer", action="store_true", help="cuDNN's SDPA instead of ours")
ap.add_argument("--head-dim", type=int, default=128, choices=(64, 128))
ap.add_argument("--full", action="store_true", help="no causal mask")
args = ap.parse_args()
batch, seq = SHAPES[args.shape]
heads, d = 16, args.head_dim
causal = not args.full
t = batch * seq
g = torch.Generator(device="cuda").manual_seed(19)
q, k, v = (torch.randn(t, heads, d, device="cuda", dtype=torch.bfloat16, generator=g)
           for _ in range(3))
if args.peer:
    from torch.nn.attention import SDPBackend, sdpa_kernel
    qb, kb, vb = (x.view(batch, seq, heads, d).transpose(1, 2) for x in (q, k, v))
    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        for _ in range(2):
            o = torch.nn.functional.scaled_dot_product_attention(qb, kb, vb, is_causal=causal)
else:
    offsets = torch.arange(0, t + 1, seq, dtype=torch.int32, device="cuda")
    for _ in range(2):
        o, lse = jfa.jagged_attention(q, k, v, offsets, seq, causal=causal)
torch.cuda.synchronize()
print(f"{args.shape} {'cudnn' if args.peer else 'jfa'}: T={t} H={heads} D={d} "
      f"{'causal' if causal else 'full'}: "
      f"o norm {o.float().norm():.6g}")
