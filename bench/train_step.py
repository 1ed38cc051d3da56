"""Issue 17: one AdamW training step of a small GEM-like LM, per attention backend.

    PYTHONPATH=dist/jfa/python python3 bench/train_step.py [--steps 20] [--tokens 110592]
        [--seqs 512] [--backends jfa,varlen,flex] [--results FILE] [--tag TAG]

Model: embedding (vocab 32000), 4 pre-norm blocks (RMSNorm, qkv 512 -> 1536, causal
attention over the packed jagged batch with H=4, D=128, out projection, MLP 512 ->
2048 -> 512 with GELU), final norm, LM head; fp32 weights under autocast bf16 (the
attention gets bf16 q, k, v [T, H, D] views, autocast off); fp32 next-token loss
within each sequence. Batch: --seqs lengths exp(N(5.2, 1)) clipped to [1, 4096],
scaled to --tokens in all, fixed seed. Backends (same weights, deep-copied; same batch):
jfa.jagged_attention; varlen = torch.nn.attention.varlen.varlen_attn; flex =
torch.compile'd flex_attention on [1, H, T, D] with a document-causal BlockMask
(built once, outside the step). Each: 3 warm-up steps, then --steps steps (forward
+ backward + AdamW step + zero_grad) timed one by one with CUDA events, median shown;
attention share = forward + backward of the attention alone on the same q, k, v
shapes, x 4 layers, over the step. The first step's loss must agree across backends
(relative difference < 1e-2, else exit 1). A failing backend shows n/a with its error.
"""
import argparse
import copy
import gc
import inspect
import itertools
import json
import math
import random
import statistics
import sys
import time
import warnings

import torch
import torch.nn.functional as F

from batches import git_commit  # bench/batches.py (no torch)

try:
    import jfa
    JFA_ERROR = None
except Exception as e:  # noqa: BLE001 - reported for the jfa backend only
    jfa, JFA_ERROR = None, f"{type(e).__name__}: {e}"

VOCAB, DIM, HEADS, HEAD_DIM, LAYERS, HIDDEN = 32000, 512, 4, 128, 4, 2048
LOSS_REL = 1e-2
Norm = getattr(torch.nn, "RMSNorm", torch.nn.LayerNorm)  # RMSNorm: torch >= 2.4


def linear(n_in, n_out):
    return torch.nn.Linear(n_in, n_out, bias=False)


def make_lengths(seqs, tokens, seed, cap=4096):
    """seqs heavy-tailed lengths in [1, cap] summing to tokens (clamped to what fits)."""
    rng = random.Random(seed)
    raw = [min(cap, max(1.0, math.exp(rng.gauss(5.2, 1.0)))) for _ in range(seqs)]
    tokens = max(seqs, min(tokens, seqs * cap))
    lengths = [min(cap, max(1, round(x * tokens / sum(raw)))) for x in raw]
    total = sum(lengths)
    while total != tokens:
        i, step = rng.randrange(seqs), (1 if total < tokens else -1)
        if 1 <= lengths[i] + step <= cap:
            lengths[i] += step
            total += step
    return lengths


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1, self.norm2 = Norm(DIM), Norm(DIM)
        self.qkv, self.proj = linear(DIM, 3 * DIM), linear(DIM, DIM)
        self.fc1, self.fc2 = linear(DIM, HIDDEN), linear(HIDDEN, DIM)

    def forward(self, x, attn):
        t = x.shape[0]
        qkv = self.qkv(self.norm1(x)).view(t, 3, HEADS, HEAD_DIM).to(torch.bfloat16)
        q, k, v = qkv.unbind(1)  # bf16 [T, H, D] views (token stride 3 * H * D)
        with torch.autocast("cuda", enabled=False):
            o = attn(q, k, v)
        x = x + self.proj(o.reshape(t, DIM))
        return x + self.fc2(F.gelu(self.fc1(self.norm2(x))))


class LM(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(VOCAB, DIM)
        self.blocks = torch.nn.ModuleList(Block() for _ in range(LAYERS))
        self.norm, self.head = Norm(DIM), linear(DIM, VOCAB)

    def forward(self, tokens, attn):
        x = self.emb(tokens)
        for blk in self.blocks:
            x = blk(x, attn)
        return self.head(self.norm(x))


def make_jfa(b):
    if jfa is None:
        raise RuntimeError(f"import jfa failed: {JFA_ERROR}")
    with torch.no_grad():  # check the offsets once (a host copy), not in the timed steps
        z = torch.zeros((b["T"], HEADS, HEAD_DIM), dtype=torch.bfloat16, device="cuda")
        jfa.jagged_attention(z, z, z, b["offsets"], b["smax"], causal=True)
    return lambda q, k, v: jfa.jagged_attention(q, k, v, b["offsets"], b["smax"], causal=True,
                                                check_offsets=False)[0]


def make_varlen(b):
    from torch.nn.attention.varlen import varlen_attn
    params = inspect.signature(varlen_attn).parameters  # causal: newer API, then older
    kw = ({"window_size": (-1, 0)} if "window_size" in params else
          {"is_causal": True} if "is_causal" in params else None)
    if kw is None:
        raise RuntimeError(f"varlen_attn{inspect.signature(varlen_attn)}: no causal argument")

    def attn(q, k, v):
        o = varlen_attn(q, k, v, b["offsets"], b["offsets"], b["smax"], b["smax"], **kw)
        return o[0] if isinstance(o, tuple) else o
    return attn


def make_flex(b):
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    # Document ids padded to a multiple of 128 (-1 after T): the kernel may
    # evaluate the mask on a partial last block's out-of-range indices.
    pad = -b["T"] % 128
    doc = torch.cat([b["doc"], b["doc"].new_full((pad,), -1)])

    def mask_mod(bi, h, q_idx, kv_idx):
        return (doc[q_idx] == doc[kv_idx]) & (q_idx >= kv_idx)

    def build():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:  # _compile=True: not the dense T x T mask in eager
                return create_block_mask(mask_mod, None, None, b["T"], b["T"], device="cuda",
                                         _compile=True)
            except TypeError:
                return torch.compile(create_block_mask)(mask_mod, None, None, b["T"], b["T"],
                                                        device="cuda")
    bm = build()
    torch.cuda.synchronize()
    start = time.perf_counter()
    bm = build()  # again, compiled: what a trainer would pay per batch
    torch.cuda.synchronize()
    print(f"  flex: block mask {(time.perf_counter() - start) * 1e3:.1f} ms a batch "
          "(not in the step time)", flush=True)
    flex = torch.compile(flex_attention, dynamic=False)

    def attn(q, k, v):
        q4, k4, v4 = (x.transpose(0, 1).contiguous().unsqueeze(0) for x in (q, k, v))
        return flex(q4, k4, v4, block_mask=bm)[0].transpose(0, 1)
    return attn


BACKENDS = {"jfa": make_jfa, "varlen": make_varlen, "flex": make_flex}


def step(model, opt, b, attn):
    with torch.autocast("cuda", dtype=torch.bfloat16):
        logits = model(b["tokens"], attn)
    loss = F.cross_entropy(logits.float(), b["targets"], ignore_index=-100)
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    return loss.detach()


def timed(fn, reps):
    """Median ms of fn over reps runs, each between its own CUDA events."""
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
              for _ in range(reps)]
    for s, e in events:
        s.record()
        fn()
        e.record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in events)


def run_backend(name, base, b, steps):
    """(ms/step, attention fwd+bwd ms for one layer, first loss)."""
    attn = BACKENDS[name](b)
    model = copy.deepcopy(base)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1)
    start = time.perf_counter()
    losses = [step(model, opt, b, attn) for _ in range(3)]
    torch.cuda.synchronize()
    print(f"  {name}: 3 warm-up steps in {time.perf_counter() - start:.1f} s, losses "
          f"{', '.join(f'{x.item():.5f}' for x in losses)}", flush=True)
    if not all(math.isfinite(x.item()) for x in losses):
        raise RuntimeError(f"loss not finite: {[x.item() for x in losses]}")
    ms = timed(lambda: step(model, opt, b, attn), steps)
    del model, opt
    # The attention alone: q, k, v leaves laid out like the model's (views of [T, 3, H, D]).
    try:
        torch.manual_seed(1)
        qkv = torch.randn((b["T"], 3, HEADS, HEAD_DIM), device="cuda").to(torch.bfloat16)
        q, k, v = (x.detach().requires_grad_() for x in qkv.unbind(1))
        do = torch.randn((b["T"], HEADS, HEAD_DIM), device="cuda").to(torch.bfloat16)

        def fwd_bwd():
            torch.autograd.grad(attn(q, k, v), (q, k, v), do)
        for _ in range(3):
            fwd_bwd()
        attn_ms = timed(fwd_bwd, steps)
    except Exception as e:  # noqa: BLE001 - the step time stands
        attn_ms = None
        print(f"  {name}: attention alone n/a ({type(e).__name__}: {e})", flush=True)
    return ms, attn_ms, losses[0].item()



def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=20, help="timed steps per backend")
    ap.add_argument("--tokens", type=int, default=110592, help="total tokens (864 * 128)")
    ap.add_argument("--seqs", type=int, default=512, help="sequences B")
    ap.add_argument("--backends", default="jfa,varlen,flex", help="comma list: jfa,varlen,flex")
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--results", metavar="FILE", help="append one JSON line per backend")
    ap.add_argument("--tag", default="", help="recorded with --results (commit or variant)")
    ap.add_argument("--commit", default=None,
                    help="recorded with --results (default: this checkout's git commit)")
    args = ap.parse_args()
    names = [n.strip() for n in args.backends.split(",") if n.strip()]
    if not names or any(n not in BACKENDS for n in names):
        ap.error(f"--backends {args.backends!r}: choose from {','.join(BACKENDS)}")
    if not torch.cuda.is_available():
        print("no CUDA device")
        return 1
    lengths = make_lengths(args.seqs, args.tokens, args.seed)
    t, smax, nb = sum(lengths), max(lengths), len(lengths)
    device = torch.cuda.get_device_name()
    print(f"{device}, torch {torch.__version__}: B={nb} T={t} max length {smax} (median "
          f"{statistics.median(lengths)}); vocab {VOCAB}, d_model {DIM}, {LAYERS} blocks, "
          f"H={HEADS} D={HEAD_DIM}, causal", flush=True)
    offs = torch.tensor([0] + list(itertools.accumulate(lengths)), device="cuda")
    torch.manual_seed(args.seed)
    tokens = torch.randint(0, VOCAB, (t,), device="cuda")
    targets = torch.roll(tokens, -1)
    targets[offs[1:] - 1] = -100  # a sequence's last token predicts nothing (lengths >= 1)
    doc = torch.repeat_interleave(torch.arange(nb, device="cuda"), offs.diff())
    b = dict(T=t, smax=smax, tokens=tokens, targets=targets, offsets=offs.to(torch.int32),
             doc=doc.to(torch.int32))
    base = LM().cuda()
    results, errors = {}, {}
    for name in names:
        print(f"{name}:", flush=True)
        try:
            results[name] = run_backend(name, base, b, args.steps)
            torch.cuda.synchronize()
        except Exception as e:  # noqa: BLE001 - reported, the other backends still run
            errors[name] = " ".join(f"{type(e).__name__}: {e}".split())[:400]
            print(f"  {name}: n/a ({errors[name]})", flush=True)
        gc.collect()
        try:
            torch.cuda.empty_cache()
        except Exception:  # noqa: BLE001 - a broken context shows in the next backend
            pass
    print(f"\n{'backend':8} {'ms/step':>9} {'attn fwd+bwd x4':>16} {'attn share':>11} "
          f"{'first loss':>11} {'x best other':>13}")
    for name in names:
        if name not in results:
            print(f"{name:8} {'n/a':>9}   {errors[name]}")
            continue
        ms, attn_ms, loss0 = results[name]
        others = [r[0] for n, r in results.items() if n != name]
        ratio = f"{min(others) / ms:.3f}" if others else "-"
        attn_txt = (f"{4 * attn_ms:16.2f} {4 * attn_ms / ms:11.1%}" if attn_ms is not None
                    else f"{'n/a':>16} {'n/a':>11}")
        print(f"{name:8} {ms:9.2f} {attn_txt} {loss0:11.5f} {ratio:>13}")
    print("x best other: the best other backend's ms/step over this one's (> 1: faster)")
    status = 0 if results else 1
    ref_name = next(iter(results), None)
    for name, (_, _, loss0) in list(results.items())[1:]:
        ref = results[ref_name][2]
        rel = abs(loss0 - ref) / max(abs(ref), 1e-30)
        status = status if rel < LOSS_REL else 1
        print(f"first-step loss {name} {loss0:.6f} vs {ref_name} {ref:.6f}: relative "
              f"difference {rel:.2e} ({'ok' if rel < LOSS_REL else 'FAIL'}: < {LOSS_REL})")
    if args.results and results:
        with open(args.results, "a") as f:
            for name, (ms, attn_ms, loss0) in results.items():
                f.write(json.dumps({
                    "bench": "train_step", "backend": name, "ms_per_step": round(ms, 3),
                    "tokens": t, "B": nb, "date": time.strftime("%Y-%m-%d"), "device": device,
                    "tag": args.tag, "max_len": smax, "steps": args.steps,
                    "attn_fwd_bwd_ms_x4": None if attn_ms is None else round(4 * attn_ms, 3),
                    "first_loss": round(loss0, 6),
                    "commit": args.commit or git_commit()}) + "\n")
        print(f"appended {len(results)} rows to {args.results}")
    return status


if __name__ == "__main__":
    sys.exit(main())
