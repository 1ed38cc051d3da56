"""Jagged attention on the GPU: jfa.jagged_attention against PyTorch's attention.

    PYTHONPATH=dist/jfa/python python3 bench/attention_bench.py [--quick] [--shapes SUBSTR,...]
                                                                [--backward]

Peers, each on the same data in the same process:
  varlen      torch.nn.attention.varlen.varlen_attn on the packed batch
              (causal: window_size=(-1, 0), or is_causal=True on the older API)
  sdpa-cudnn  F.scaled_dot_product_attention, SDPBackend.CUDNN_ATTENTION,
  sdpa-flash  and SDPBackend.FLASH_ATTENTION, on the padded batch
              [B, H, Smax, D] (the padding costs them time; for non-causal
              shapes it is attended, not masked: the cost of masking it)
  flex        flex_attention under torch.compile on [1, H, T, D] with a
              document mask (and causal) in the block mask, built outside the
              timed region
Useful TFLOP/s = 4 * sum(L^2) * D * H / t, half that for causal; padding is
not counted. Time: CUDA events around each call, warm-up, median of >= 20
runs, the L2 cache flushed before each (see median_ms). A peer that
fails shows n/a (the exception is printed). Ours is checked against varlen
and masked SDPA on the first causal and first non-causal shape.

--backward: the backward pass alone, same shapes and batches. The forward
runs once outside the timed region (with the inputs requiring grad for the
peers), and an upstream gradient do (random bf16) is fixed; then each timed
call is: ours jfa.attention_backward(do, q, k, v, o, lse, ...) (sm_90a only;
it includes zeroing dq's fp32 workspace and converting it to bf16); the
peers torch.autograd.grad(out, (q, k, v), do, retain_graph=True) on their
own forward's output (varlen on the packed batch, cuDNN and flash SDPA on the
padded batch, FlexAttention with the document mask). Useful TFLOP/s =
2.5 x the forward's useful FLOPs (dQ, dK, dV, dP and the recomputed S: five
matmuls to the forward's two) / t. Ours is checked against varlen's
gradients on the first causal and first non-causal shape.
"""
import argparse
import inspect
import json
import math
import random
import statistics
import sys
import time
import traceback
import warnings

import torch
import torch.nn.functional as F

try:
    import jfa
except Exception as e:  # noqa: BLE001 - reported, the peers still run
    jfa = None
    JFA_IMPORT_ERROR = f"{type(e).__name__}: {e}"

TOKENS_UNIFORM = 32768
TOKENS_TAIL = 65536


def lengths_uniform(rng, hi, total):
    out = []
    while sum(out) < total:
        out.append(rng.randint(1, hi))
    out[-1] -= sum(out) - total
    return [n for n in out if n > 0]


def lengths_tail(rng, cap, total):
    """Log-normal lengths (median ~400, a long tail), capped."""
    out = []
    while sum(out) < total:
        out.append(max(1, min(cap, int(math.exp(rng.gauss(6.0, 1.5))))))
    out[-1] -= sum(out) - total
    return [n for n in out if n > 0]


def all_shapes():
    shapes = []
    for d, h in ((128, 16), (64, 32)):
        for kind, hi in (("unif1k", 1024), ("unif4k", 4096)):
            for causal in (False, True):
                shapes.append((f"{kind}-d{d}-{'causal' if causal else 'full'}", d, h, causal,
                               lambda rng, hi=hi: lengths_uniform(rng, hi, TOKENS_UNIFORM)))
        for causal in (False, True):
            shapes.append((f"tail8k-d{d}-{'causal' if causal else 'full'}", d, h, causal,
                           lambda rng: lengths_tail(rng, 8192, TOKENS_TAIL)))
    for s in (1024, 4096, 16384):
        shapes.append((f"eq{s // 1024}k-d128-causal", 128, 16, True,
                       lambda rng, s=s: [s] * (32768 // s)))
    return shapes


QUICK = ("unif1k-d128-full", "unif4k-d128-causal")


_flush = None


def median_ms(fn, max_seconds=1.5, min_reps=20):
    """Median time of fn in ms over >= min_reps runs, each timed alone with CUDA
    events after a 256 MB write that evicts the L2 cache and keeps the GPU busy
    while the host launches fn (so host-side overhead of fn is hidden unless it
    is longer than the flush, about 0.1 ms)."""
    global _flush
    if _flush is None:
        _flush = torch.empty(64 << 20, dtype=torch.int32, device="cuda")
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    fn()
    e.record()
    e.synchronize()
    est = s.elapsed_time(e) / 1e3
    reps = max(min_reps, min(200, int(max_seconds / max(est, 1e-6))))
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
              for _ in range(reps)]
    for s, e in events:
        _flush.zero_()
        s.record()
        fn()
        e.record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in events)


class Problem:
    def __init__(self, lengths, d, h, causal, seed):
        self.lengths, self.d, self.h, self.causal = lengths, d, h, causal
        self.b = len(lengths)
        self.t = sum(lengths)
        self.smax = max(lengths)
        g = torch.Generator(device="cuda")
        g.manual_seed(seed)
        self.q, self.k, self.v = (torch.randn((self.t, h, d), generator=g, device="cuda")
                                  .to(torch.bfloat16) for _ in range(3))
        offs = [0]
        for n in lengths:
            offs.append(offs[-1] + n)
        self.offsets = torch.tensor(offs, dtype=torch.int32, device="cuda")
        self.flops = 4.0 * sum(n * n for n in lengths) * d * h * (0.5 if causal else 1.0)
        lens = torch.tensor(lengths, device="cuda")
        self.batch_idx = torch.repeat_interleave(torch.arange(self.b, device="cuda"), lens)
        self.pos = torch.arange(self.t, device="cuda") - self.offsets[:-1].long()[self.batch_idx]
        self._padded = None
        self._do = None
        self.seed = seed

    def padded(self):
        """q, k, v as [B, H, Smax, D] views of zero-padded [B, Smax, H, D] tensors."""
        if self._padded is None:
            self._padded = [self.pad(x) for x in (self.q, self.k, self.v)]
        return self._padded

    def grad_out(self):
        """A fixed random upstream gradient do, bf16 [T, H, D]."""
        if self._do is None:
            g = torch.Generator(device="cuda")
            g.manual_seed(self.seed + 7919)
            self._do = torch.randn((self.t, self.h, self.d), generator=g,
                                   device="cuda").to(torch.bfloat16)
        return self._do

    def pad(self, x):
        """packed [T, H, D] -> [B, H, Smax, D], a view of a zero-padded [B, Smax, H, D]."""
        p = torch.zeros((self.b, self.smax, self.h, self.d), dtype=x.dtype, device="cuda")
        p[self.batch_idx, self.pos] = x
        return p.transpose(1, 2)

    def unpad(self, o_padded):
        """[B, H, Smax, D] -> packed [T, H, D]."""
        return o_padded.transpose(1, 2)[self.batch_idx, self.pos]

    def release(self):
        self._padded = None
        self._do = None


def run_ours(p):
    if jfa is None:
        raise RuntimeError(f"import jfa failed: {JFA_IMPORT_ERROR}")
    o = torch.empty_like(p.q)
    lse = torch.empty((p.h, p.t), dtype=torch.float32, device="cuda")
    jfa.jagged_attention(p.q, p.k, p.v, p.offsets, p.smax, causal=p.causal)  # checks once
    return lambda: jfa.jagged_attention(p.q, p.k, p.v, p.offsets, p.smax, causal=p.causal,
                                        check_offsets=False, o=o, lse=lse)


def varlen_kwargs(causal):
    from torch.nn.attention.varlen import varlen_attn
    params = inspect.signature(varlen_attn).parameters
    if not causal:
        return varlen_attn, {}
    if "window_size" in params:
        return varlen_attn, {"window_size": (-1, 0)}
    if "is_causal" in params:
        return varlen_attn, {"is_causal": True}
    raise RuntimeError(f"varlen_attn{inspect.signature(varlen_attn)}: no causal argument")


def run_varlen(p):
    fn, kw = varlen_kwargs(p.causal)
    return lambda: fn(p.q, p.k, p.v, p.offsets, p.offsets, p.smax, p.smax, **kw)


def run_sdpa(backend):
    def make(p):
        from torch.nn.attention import SDPBackend, sdpa_kernel
        q, k, v = p.padded()
        be = getattr(SDPBackend, backend)

        def fn():
            with sdpa_kernel(be):
                return F.scaled_dot_product_attention(q, k, v, is_causal=p.causal)
        return fn
    return make


_flex = None


def flex_setup(p):
    """The compiled flex_attention and p's block mask (document mask, and causal)."""
    global _flex
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    if _flex is None:
        torch._dynamo.config.cache_size_limit = max(torch._dynamo.config.cache_size_limit, 64)
        _flex = torch.compile(flex_attention, dynamic=False)
    doc = p.batch_idx.to(torch.int32)
    causal = p.causal

    def mask_mod(b, h, q_idx, kv_idx):
        same = doc[q_idx] == doc[kv_idx]
        return (same & (q_idx >= kv_idx)) if causal else same
    # _compile=True: build it with torch.compile (eager evaluates the mask densely).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            bm = create_block_mask(mask_mod, None, None, p.t, p.t, device="cuda", _compile=True)
        except TypeError:
            bm = create_block_mask(mask_mod, None, None, p.t, p.t, device="cuda")
    return _flex, bm


def run_flex(p):
    _flex, bm = flex_setup(p)
    q, k, v = (x.transpose(0, 1).contiguous().unsqueeze(0) for x in (p.q, p.k, p.v))
    start = time.perf_counter()
    _flex(q, k, v, block_mask=bm)
    torch.cuda.synchronize()
    print(f"  (flex: compiled / first call in {time.perf_counter() - start:.1f} s)", flush=True)
    return lambda: _flex(q, k, v, block_mask=bm)


PEERS = [("varlen", run_varlen), ("sdpa-cudnn", run_sdpa("CUDNN_ATTENTION")),
         ("sdpa-flash", run_sdpa("FLASH_ATTENTION")), ("flex", run_flex)]


# --- backward (--backward): the forward once, untimed; the backward timed ---

def bwd_ours(p):
    if jfa is None:
        raise RuntimeError(f"import jfa failed: {JFA_IMPORT_ERROR}")
    o, lse = jfa.jagged_attention(p.q, p.k, p.v, p.offsets, p.smax, causal=p.causal)
    do = p.grad_out()
    dq, dk, dv = (torch.empty_like(p.q) for _ in range(3))
    jfa.attention_backward(do, p.q, p.k, p.v, o, lse, p.offsets, p.smax, p.causal)  # checks once
    return lambda: jfa.attention_backward(do, p.q, p.k, p.v, o, lse, p.offsets, p.smax, p.causal,
                                          dq=dq, dk=dk, dv=dv, check_offsets=False)


def leaves(*xs):
    """Tensors that require grad, sharing the storage of xs (views stay views)."""
    return [x.detach().requires_grad_() for x in xs]


def grad_fn(out, inputs, do):
    return lambda: torch.autograd.grad(out, inputs, do, retain_graph=True)


def bwd_varlen(p):
    fn, kw = varlen_kwargs(p.causal)
    q, k, v = leaves(p.q, p.k, p.v)
    out = fn(q, k, v, p.offsets, p.offsets, p.smax, p.smax, **kw)
    if isinstance(out, tuple):
        out = out[0]
    return grad_fn(out, (q, k, v), p.grad_out())


def bwd_sdpa(backend):
    def make(p):
        from torch.nn.attention import SDPBackend, sdpa_kernel
        q, k, v = leaves(*p.padded())
        with sdpa_kernel(getattr(SDPBackend, backend)):
            out = F.scaled_dot_product_attention(q, k, v, is_causal=p.causal)
        return grad_fn(out, (q, k, v), p.pad(p.grad_out()))
    return make


def bwd_flex(p):
    # The backward is timed by repeated torch.autograd.grad(retain_graph=True)
    # on one graph, which compiled graphs with donated buffers refuse.
    import torch._functorch.config
    torch._functorch.config.donated_buffer = False
    _flex, bm = flex_setup(p)
    q, k, v = leaves(*(x.transpose(0, 1).contiguous().unsqueeze(0) for x in (p.q, p.k, p.v)))
    do = p.grad_out().transpose(0, 1).contiguous().unsqueeze(0)
    start = time.perf_counter()
    out = _flex(q, k, v, block_mask=bm)
    torch.autograd.grad(out, (q, k, v), do, retain_graph=True)
    torch.cuda.synchronize()
    print(f"  (flex: compiled / first forward + backward in {time.perf_counter() - start:.1f} s)",
          flush=True)
    return grad_fn(out, (q, k, v), do)


BWD_PEERS = [("varlen", bwd_varlen), ("sdpa-cudnn", bwd_sdpa("CUDNN_ATTENTION")),
             ("sdpa-flash", bwd_sdpa("FLASH_ATTENTION")), ("flex", bwd_flex)]
BWD_FLOPS = 2.5  # backward useful FLOPs / forward useful FLOPs


def sanity_check_backward(p):
    """Our gradients against varlen_attn's (both bf16; the difference is rounding)."""
    o, lse = jfa.jagged_attention(p.q, p.k, p.v, p.offsets, p.smax, causal=p.causal)
    ours = jfa.attention_backward(p.grad_out(), p.q, p.k, p.v, o, lse, p.offsets, p.smax,
                                  p.causal)
    try:
        theirs = bwd_varlen(p)()
        diffs = ", ".join(f"{n} max abs diff {(a.float() - b.float()).abs().max().item():.3e} "
                          f"(max |{n}| {b.float().abs().max().item():.3e})"
                          for n, a, b in zip(("dq", "dk", "dv"), ours, theirs))
        line = f"vs varlen_attn: {diffs}"
    except Exception as e:  # noqa: BLE001
        line = f"vs varlen_attn: n/a ({type(e).__name__}: {e})"
    print(f"  check backward {'causal' if p.causal else 'full'}: {line}", flush=True)


def sanity_check(p):
    """Ours against varlen_attn and masked SDPA (packed rows only)."""
    o, lse = jfa.jagged_attention(p.q, p.k, p.v, p.offsets, p.smax, causal=p.causal)
    lines = []
    try:
        from torch.nn.attention.varlen import AuxRequest
        fn, kw = varlen_kwargs(p.causal)
        try:
            ov, lv = fn(p.q, p.k, p.v, p.offsets, p.offsets, p.smax, p.smax,
                        return_aux=AuxRequest(lse=True), **kw)
        except TypeError:
            ov, lv = fn(p.q, p.k, p.v, p.offsets, p.offsets, p.smax, p.smax, **kw), None
        line = f"vs varlen_attn: o max abs diff {(o.float() - ov.float()).abs().max().item():.3e}"
        if lv is not None and lv.shape == lse.shape:
            line += f", lse max abs diff {(lse - lv.float()).abs().max().item():.3e}"
        elif lv is not None:
            line += f" (its lse has shape {list(lv.shape)}, not compared)"
        lines.append(line)
    except Exception as e:  # noqa: BLE001
        lines.append(f"vs varlen_attn: n/a ({type(e).__name__}: {e})")
    try:
        q, k, v = p.padded()
        keep = torch.arange(p.smax, device="cuda")[None, :] < torch.tensor(p.lengths,
                                                                          device="cuda")[:, None]
        mask = keep[:, None, None, :]  # [B, 1, 1, Smax]: key padding
        if p.causal:
            mask = mask & torch.ones((p.smax, p.smax), dtype=torch.bool, device="cuda").tril()
        os_ = p.unpad(F.scaled_dot_product_attention(q, k, v, attn_mask=mask))
        lines.append(f"vs masked SDPA: o max abs diff {(o.float() - os_.float()).abs().max().item():.3e}")
    except Exception as e:  # noqa: BLE001
        lines.append(f"vs masked SDPA: n/a ({type(e).__name__}: {e})")
    for line in lines:
        print(f"  check {'causal' if p.causal else 'full'}: {line}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help=f"two shapes: {', '.join(QUICK)}")
    ap.add_argument("--shapes", default=None,
                    help="comma-separated substrings of shape names (e.g. unif1k,eq16k)")
    ap.add_argument("--no-check", action="store_true", help="skip the output check")
    ap.add_argument("--traceback", action="store_true", help="print a failing peer's traceback")
    ap.add_argument("--only-ours", action="store_true",
                    help="time our kernel alone (e.g. kernel variants through $JFA_KERNEL_DIR)")
    ap.add_argument("--backward", action="store_true",
                    help="time the backward pass (forward once, untimed); useful FLOPs = 2.5x "
                    "the forward's")
    ap.add_argument("--results", metavar="FILE",
                    help="append one JSON object per shape (ours, the peers, the ratio) to FILE, "
                    "e.g. bench/results.jsonl")
    ap.add_argument("--tag", default="",
                    help="recorded with --results: the commit or variant measured")
    args = ap.parse_args()
    if args.backward:
        ours_make, peers, flops_x = bwd_ours, BWD_PEERS, BWD_FLOPS
    else:
        ours_make, peers, flops_x = run_ours, PEERS, 1.0
    shapes = all_shapes()
    if args.quick:
        shapes = [s for s in shapes if s[0] in QUICK]
    if args.shapes:
        wanted = [w.strip() for w in args.shapes.split(",") if w.strip()]
        shapes = [s for s in shapes if any(w in s[0] for w in wanted)]
    if not shapes:
        print("no shape matches; shapes: " + ", ".join(s[0] for s in all_shapes()))
        return 2
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}; jfa "
          f"{jfa.__version__ + ' (' + jfa.library_path() + ')' if jfa else 'n/a: ' + JFA_IMPORT_ERROR}"
          f"{'; backward pass' if args.backward else ''}", flush=True)
    started = time.perf_counter()
    rows = []
    checked = set()
    errors = []
    # Each shape's batch is seeded by its place in the whole list, so a run
    # of some shapes (--shapes) sees the same batches as a run of all.
    position = {s[0]: i for i, s in enumerate(all_shapes())}
    for name, d, h, causal, gen_lengths in shapes:
        i = position[name]
        rng = random.Random(1000 + i)
        lengths = gen_lengths(rng)
        p = Problem(lengths, d, h, causal, seed=i)
        flops = p.flops * flops_x
        print(f"{name}: B={p.b} T={p.t} Smax={p.smax} H={h} D={d} "
              f"{'causal' if causal else 'full'}, {flops / 1e12:.2f} useful "
              f"{'backward ' if args.backward else ''}TFLOP", flush=True)
        if not args.no_check and causal not in checked and jfa is not None:
            checked.add(causal)
            try:
                (sanity_check_backward if args.backward else sanity_check)(p)
            except Exception as e:  # noqa: BLE001
                print(f"  check: ours failed: {type(e).__name__}: {e}", flush=True)
        result = {}
        for peer, make in [("ours", ours_make)] + ([] if args.only_ours else peers):
            fn = None
            try:
                fn = make(p)
                ms = median_ms(fn)
                result[peer] = (flops / (ms * 1e-3) / 1e12, ms)
                print(f"  {peer:11s} {ms:9.3f} ms  {result[peer][0]:7.1f} TFLOP/s", flush=True)
            except Exception as e:  # noqa: BLE001
                msg = f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"
                result[peer] = None
                errors.append(f"{name} {peer}: {msg}")
                print(f"  {peer:11s} n/a ({msg})", flush=True)
                if args.traceback:
                    traceback.print_exc()
            del fn  # a backward closure holds its forward's graph
            torch.cuda.synchronize()
        p.release()
        del p
        torch.cuda.empty_cache()
        rows.append((name, lengths, result))

    names = ["ours"] + [n for n, _ in peers]
    print()
    if args.backward:
        print("backward pass, useful TFLOP/s (2.5x the forward's FLOPs):")
    print("| shape | B | T | Smax | " + " | ".join(f"{n} TFLOP/s" for n in names) +
          " | ours / best peer |")
    print("|---" * (len(names) + 5) + "|")
    for name, lengths, result in rows:
        cells = [f"{result[n][0]:.1f}" if result.get(n) else "n/a" for n in names]
        best = max((result[n][0] for n in names[1:] if result.get(n)), default=None)
        ratio = (f"{result['ours'][0] / best:.2f}x" if result.get("ours") and best else "n/a")
        print(f"| {name} | {len(lengths)} | {sum(lengths)} | {max(lengths)} | " +
              " | ".join(cells) + f" | {ratio} |")
    if args.results:
        with open(args.results, "a") as f:
            for name, lengths, result in rows:
                best_name = max((n for n in names[1:] if result.get(n)),
                                key=lambda n: result[n][0], default=None)
                f.write(json.dumps({
                    "kernel": "attention_bwd" if args.backward else "attention_fwd",
                    "tag": args.tag, "date": time.strftime("%Y-%m-%d"),
                    "device": torch.cuda.get_device_name(), "shape": name,
                    "B": len(lengths), "T": sum(lengths), "Smax": max(lengths),
                    "tflops": round(result["ours"][0], 1) if result.get("ours") else None,
                    "peers_tflops": {n: round(result[n][0], 1) for n in names[1:]
                                     if result.get(n)},
                    "ours_over_best_peer": (round(result["ours"][0] / result[best_name][0], 3)
                                            if result.get("ours") and best_name else None),
                }) + "\n")
        print(f"\nappended {len(rows)} rows to {args.results}")
    if errors:
        print("\nn/a:")
        for e in errors:
            print(f"  {e}")
    print(f"\ntotal {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
