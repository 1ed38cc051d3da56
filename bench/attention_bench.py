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

--variants (issue 20; forward, or with --backward the backward): ours
(jfa.jagged_attention / jfa.attention_backward with window=, k/v of H_kv
heads, offsets_k= / max_seqlen_k=, activation=) on 32K-token jagged batches
(unif1k, unif4k, tail8k with 32K tokens; the same query lengths for a kind in
every variant), D = 128 (H = 16) and 64 (H = 32; H = 16 under GQA): windows
(256, 0), (1024, 0), (128, 128) and causal (-1, 0) as the reference point
(win-*), GQA H_kv = 4, 1 causal (gqa-*), cross-attention with key lengths
drawn independently, causal (bottom-right) and not (cross-*), window + GQA
(combo-*), GDPA silu / gelu_tanh causal and not (gdpa-*), block-sparse masks
over the packed axes in 128x128 blocks, each listed with probability 0.5 or
0.25 (seeded), shared or per q head, full and causal (sparse-*: ours takes
the mask built once with jfa.build_block_mask; flex the same mask in its
mask_mod, element by element, so its BlockMask skips the same blocks;
varlen_attn has no block mask: '-'). Peers: FlexAttention
with a mask_mod on the packed axes (same document and the variant's mask in
sequence positions, bottom-right; enable_gqa=True with H_kv heads; q and kv of
their own lengths), varlen_attn (window_size, enable_gqa where its signature
has them; n/a with its exception where it refuses), and for GDPA, which
neither can express (flex's score_mod acts before the softmax's
normalization), torch-ref: torch.compile of where(mask, act(q k^T * scale),
0) @ v on the padded batch ('-' in the table: not a peer of the variant). Our
GDPA backward is timed through autograd. Useful FLOPs count the exact visible
(query, key) pairs of each sequence (the kernel README's Contract: shift =
len_k - len_q, causal j <= i + shift, window i + shift - left <= j <= i +
shift + right), 4 D H per pair. The first shape of each variant checks ours on
fresh inputs with poisoned outputs against an fp32 reference (the GPU tests'
bounds; exit status 1 if one fails). Where ours raises NotImplementedError
(an option not there yet) its row is n/a and the peers are skipped. A table
of the windows' times against causal's on the same batch follows. --results
appends one row per shape with kernel attention_fwd_variants /
attention_bwd_variants (plot.py draws neither), the variant, the shape's
sizes, ours and the peers' TFLOP/s, the n/a reasons, the check and the commit.
"""
import argparse
import inspect
import json
import math
import random
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

# The batches (bench/batches.py, shared with bench/schedule_sim.py, which
# needs no torch).
from batches import (TOKENS_TAIL, TOKENS_UNIFORM, all_shapes, git_commit,  # noqa: E402,F401
                     lengths_tail, lengths_uniform)
from timing import queued_median_ms  # noqa: E402 - bench/timing.py


QUICK = ("unif1k-d128-full", "unif4k-d128-causal")


def median_ms(fn, max_seconds=1.5, min_reps=20):
    """Median time of fn in ms over >= min_reps runs (as many as fit in about
    max_seconds, at most 200), each timed alone behind an L2-evicting write
    (bench/timing.py's queued_median_ms)."""
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
    return queued_median_ms(fn, reps)


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


# --- issue 20's variants (--variants): windows, GQA, cross-attention, GDPA ---

class NotAPeer(Exception):
    """A peer that cannot express the variant at all (shown as '-', not n/a)."""


# kind -> (the query lengths, one key length). The key lengths of a
# cross-attention batch are drawn independently of the queries', one per
# query sequence, from the same law (so T_k != T). 32K query tokens each.
def _key_length_tail(rng, cap):
    return max(1, min(cap, int(math.exp(rng.gauss(6.0, 1.5)))))


VARIANT_KINDS = {
    "unif1k": (lambda rng: lengths_uniform(rng, 1024, TOKENS_UNIFORM),
               lambda rng: rng.randint(1, 1024)),
    "unif4k": (lambda rng: lengths_uniform(rng, 4096, TOKENS_UNIFORM),
               lambda rng: rng.randint(1, 4096)),
    "tail8k": (lambda rng: lengths_tail(rng, 8192, TOKENS_UNIFORM),
               lambda rng: _key_length_tail(rng, 8192)),
}
KIND_ORDER = ("unif1k", "unif4k", "tail8k")
ACTIVATIONS = ("silu", "gelu_tanh")


class Variant:
    """One of issue 20's variants: the options of the call (causal, window,
    H_kv, cross-attention, activation)."""

    def __init__(self, name, causal, window=None, h_kv=None, cross=False, activation="softmax",
                 density=None, mask_per_head=False):
        self.name, self.causal, self.window = name, causal, window
        self.h_kv, self.cross, self.activation = h_kv, cross, activation
        # Block-sparse: each 128x128 block of the packed axes listed with
        # probability density (seeded by the shape), one mask for every head
        # or one per q head.
        self.density, self.mask_per_head = density, mask_per_head

    @property
    def win(self):
        """(left, right), -1 unbounded: the window as the mask reads it."""
        return tuple(self.window) if self.window is not None else (-1, -1)

    def describe(self):
        parts = ["causal" if self.causal else "full"]
        if self.window is not None:
            parts.append(f"window={tuple(self.window)}")
        if self.cross:
            parts.append("cross (offsets_k)")
        if self.activation != "softmax":
            parts.append(f"activation={self.activation}")
        if self.density is not None:
            parts.append(f"block_mask density={self.density}"
                         f"{' per head' if self.mask_per_head else ''}")
        return " ".join(parts)


# (kind, D, H) per family; the first is the one the check runs on.
WINDOW_SHAPES = (("unif1k", 128, 16), ("unif4k", 128, 16), ("tail8k", 128, 16), ("unif4k", 64, 32))
GQA_SHAPES = (("unif1k", 128, 16), ("unif4k", 128, 16), ("unif4k", 64, 16))
COMBO_SHAPES = (("unif4k", 128, 16), ("tail8k", 128, 16), ("unif4k", 64, 16))
OTHER_SHAPES = (("unif1k", 128, 16), ("unif4k", 128, 16), ("unif4k", 64, 32))
VARIANT_QUICK = "unif4k-d128"  # --variants --quick: this shape of each variant

VARIANTS = (
    (Variant("win-causal", True), WINDOW_SHAPES),  # (-1, 0): the reference point
    (Variant("win-256-0", True, window=(256, 0)), WINDOW_SHAPES),
    (Variant("win-1024-0", True, window=(1024, 0)), WINDOW_SHAPES),
    (Variant("win-128-128", False, window=(128, 128)), WINDOW_SHAPES),
    (Variant("gqa-kv4", True, h_kv=4), GQA_SHAPES),
    (Variant("gqa-kv1", True, h_kv=1), GQA_SHAPES),
    (Variant("cross-causal", True, cross=True), OTHER_SHAPES),
    (Variant("cross-full", False, cross=True), OTHER_SHAPES),
    (Variant("combo-win256-kv4", True, window=(256, 0), h_kv=4), COMBO_SHAPES),
    (Variant("combo-win1024-kv1", True, window=(1024, 0), h_kv=1), COMBO_SHAPES),
    (Variant("sparse-50-full", False, density=0.5), OTHER_SHAPES),
    (Variant("sparse-25-causal", True, density=0.25), OTHER_SHAPES),
    (Variant("sparse-50-heads-causal", True, density=0.5, mask_per_head=True), OTHER_SHAPES),
) + tuple((Variant(f"gdpa-{act}-{'causal' if c else 'full'}", c, activation=act), OTHER_SHAPES)
          for act in ACTIVATIONS for c in (True, False))


def all_variant_shapes():
    """[(name, variant, kind, D, H)], name = '<variant>/<kind>-d<D>'."""
    return [(f"{var.name}/{kind}-d{d}", var, kind, d, h)
            for var, shapes in VARIANTS for kind, d, h in shapes]


def variant_lengths(var, kind):
    """(query lengths, key lengths): the same query batch for a kind in every
    variant (seeded by the kind), so the windows' times compare on one batch;
    the key lengths are the query lengths unless var.cross."""
    ki = KIND_ORDER.index(kind)
    lengths = VARIANT_KINDS[kind][0](random.Random(2000 + ki))
    if not var.cross:
        return lengths, lengths
    rk = random.Random(3000 + ki)
    return lengths, [VARIANT_KINDS[kind][1](rk) for _ in lengths]


def visible_pairs(len_q, len_k, causal, window):
    """The exact number of (query, key) pairs the mask lets through in one
    sequence (kernels/jagged_attention/README.md, Contract: shift = len_k -
    len_q; query i sees key j in [0, len_k) iff j <= i + shift (causal),
    j >= i + shift - left (left >= 0), j <= i + shift + right (right >= 0))."""
    left, right = window
    shift = len_k - len_q
    total = 0
    for i in range(len_q):
        diag = i + shift
        lo, hi = 0, len_k - 1
        if causal:
            hi = min(hi, diag)
        if right >= 0:
            hi = min(hi, diag + right)
        if left >= 0:
            lo = max(lo, diag - left)
        if hi >= lo:
            total += hi - lo + 1
    return total


def batch_pairs(var, lengths, lengths_k):
    return sum(visible_pairs(n, m, var.causal, var.win) for n, m in zip(lengths, lengths_k))


class VProblem:
    """One variant shape's packed batch: q [T, H, D], k and v [T_k, H_kv, D]."""

    def __init__(self, var, kind, d, h, seed):
        self.var, self.d, self.h, self.seed = var, d, h, seed
        self.h_kv = var.h_kv or h
        self.lengths, self.lengths_k = variant_lengths(var, kind)
        self.cross = var.cross
        self.b = len(self.lengths)
        self.t, self.t_k = sum(self.lengths), sum(self.lengths_k)
        self.smax, self.smax_k = max(self.lengths), max(self.lengths_k)
        self.blocks = self.block_bits = None
        if var.density is not None:
            gb = torch.Generator(device="cuda")
            gb.manual_seed(seed + 31337)
            shape = (h if var.mask_per_head else 1, _round_up(self.t, 128) // 128,
                     _round_up(self.t_k, 128) // 128)
            self.blocks = torch.rand(shape, generator=gb, device="cuda") < var.density
        # Useful pairs: over every head (a mask per head differs by head).
        self.offsets = _offsets_tensor(self.lengths)
        self.offsets_k = _offsets_tensor(self.lengths_k) if self.cross else None
        self.pairs = batch_pairs(var, self.lengths, self.lengths_k) if self.blocks is None else \
            _block_pairs(self, h) / h
        self.flops = 4.0 * self.pairs * d * h
        g = torch.Generator(device="cuda")
        g.manual_seed(seed)
        self.q = torch.randn((self.t, h, d), generator=g, device="cuda").to(torch.bfloat16)
        self.k, self.v = (torch.randn((self.t_k, self.h_kv, d), generator=g, device="cuda")
                          .to(torch.bfloat16) for _ in range(2))
        if self.blocks is not None and jfa is not None:
            # Built once (jfa.build_block_mask): the timed calls take it as is.
            self.block_bits = jfa.build_block_mask(self.blocks, h, self.t, self.t_k)
        self.batch_idx, self.pos = _token_index(self.lengths, self.offsets)
        if self.cross:
            self.batch_idx_k, self.pos_k = _token_index(self.lengths_k, self.offsets_k)
        else:
            self.batch_idx_k, self.pos_k = self.batch_idx, self.pos
        self._padded = None
        self._do = None

    def keys_offsets(self):
        return self.offsets_k if self.cross else self.offsets

    def options(self):
        """jfa.jagged_attention's (and attention_backward's) keyword options
        for the variant; only those that differ from the defaults."""
        kw = {}
        if self.var.window is not None:
            kw["window"] = tuple(self.var.window)
        if self.cross:
            kw.update(offsets_k=self.offsets_k, max_seqlen_k=self.smax_k)
        if self.var.activation != "softmax":
            kw["activation"] = self.var.activation
        if self.block_bits is not None:
            kw["block_mask"] = self.block_bits
        return kw

    def grad_out(self):
        if self._do is None:
            g = torch.Generator(device="cuda")
            g.manual_seed(self.seed + 7919)
            self._do = torch.randn((self.t, self.h, self.d), generator=g,
                                   device="cuda").to(torch.bfloat16)
        return self._do

    def pad(self, x):
        """packed [T, H', D] (query tokens) -> [B, H', Smax, D] view of a zero-padded tensor."""
        p = torch.zeros((self.b, self.smax, x.shape[1], x.shape[2]), dtype=x.dtype, device="cuda")
        p[self.batch_idx, self.pos] = x
        return p.transpose(1, 2)

    def padded(self):
        if self.cross or self.h_kv != self.h:
            raise RuntimeError("the padded batch is built for self-attention with H_kv = H only")
        if self._padded is None:
            self._padded = [self.pad(x) for x in (self.q, self.k, self.v)]
        return self._padded

    def release(self):
        self._padded = None
        self._do = None


def block_visible(blocks, h0, h1, s, n, sk, m):
    """[h1 - h0 (1 for a shared mask), n, m] bool: the pairs a block mask
    (bool [Hm, QB, KB] over the packed axes) lists for heads h0..h1-1 of a
    sequence of n queries from packed row s and m keys from sk."""
    rows = torch.arange(s, s + n, device="cuda") // 128
    cols = torch.arange(sk, sk + m, device="cuda") // 128
    sel = blocks if blocks.shape[0] == 1 else blocks[h0:h1]
    return sel[:, rows][:, :, cols]


def _block_pairs(p, h):
    """The visible (query, key) pairs over every head under p's block mask."""
    offs, offs_k = p.offsets.tolist(), (p.offsets_k if p.cross else p.offsets).tolist()
    total = 0
    for b in range(len(p.lengths)):
        s, n, sk, m = offs[b], p.lengths[b], offs_k[b], p.lengths_k[b]
        if n == 0 or m == 0:
            continue
        seen = variant_visible(n, m, p.var.causal, p.var.win) & \
            block_visible(p.blocks, 0, h, s, n, sk, m)
        total += int(seen.sum()) * (h if seen.shape[0] == 1 else 1)
    return total


def _offsets_tensor(lengths):
    offs = [0]
    for n in lengths:
        offs.append(offs[-1] + n)
    return torch.tensor(offs, dtype=torch.int32, device="cuda")


def _token_index(lengths, offsets):
    """(sequence of each token, its position in the sequence), int64 [T] each."""
    lens = torch.tensor(lengths, device="cuda")
    batch_idx = torch.repeat_interleave(torch.arange(len(lengths), device="cuda"), lens)
    pos = torch.arange(int(sum(lengths)), device="cuda") - offsets[:-1].long()[batch_idx]
    return batch_idx, pos


def _first(out):
    """o of jagged_attention's result ((o, lse), or o alone)."""
    return out[0] if isinstance(out, (tuple, list)) else out


def _require_jfa():
    if jfa is None:
        raise RuntimeError(f"import jfa failed: {JFA_IMPORT_ERROR}")


def vrun_ours(p):
    _require_jfa()
    kw = p.options()
    jfa.jagged_attention(p.q, p.k, p.v, p.offsets, p.smax, causal=p.var.causal, **kw)  # checks once
    if p.var.activation == "softmax":
        o = torch.empty_like(p.q)
        lse = torch.empty((p.h, p.t), dtype=torch.float32, device="cuda")
        return lambda: jfa.jagged_attention(p.q, p.k, p.v, p.offsets, p.smax, causal=p.var.causal,
                                            check_offsets=False, o=o, lse=lse, **kw)
    # GDPA: no lse (issue 20); o is allocated by the call (the caching allocator).
    return lambda: jfa.jagged_attention(p.q, p.k, p.v, p.offsets, p.smax, causal=p.var.causal,
                                        check_offsets=False, **kw)


def vbwd_ours(p):
    """jfa.attention_backward with the variant's options; GDPA through
    autograd (torch.autograd.grad on jagged_attention's o), whatever the
    direct call's name for the activation turns out to be."""
    _require_jfa()
    kw = p.options()
    do = p.grad_out()
    if p.var.activation != "softmax":
        q, k, v = leaves(p.q, p.k, p.v)
        o = _first(jfa.jagged_attention(q, k, v, p.offsets, p.smax, causal=p.var.causal, **kw))
        torch.autograd.grad(o, (q, k, v), do, retain_graph=True)  # fails here if unsupported
        return grad_fn(o, (q, k, v), do)
    o, lse = jfa.jagged_attention(p.q, p.k, p.v, p.offsets, p.smax, causal=p.var.causal, **kw)
    dq = torch.empty_like(p.q)
    dk, dv = torch.empty_like(p.k), torch.empty_like(p.v)
    jfa.attention_backward(do, p.q, p.k, p.v, o, lse, p.offsets, p.smax, p.var.causal,
                           **kw)  # checks once
    return lambda: jfa.attention_backward(do, p.q, p.k, p.v, o, lse, p.offsets, p.smax,
                                          p.var.causal, dq=dq, dk=dk, dv=dv, check_offsets=False,
                                          **kw)


def vvarlen_kwargs(p):
    """varlen_attn and its keyword arguments for the variant: window_size
    (left, right) (causal: right 0), enable_gqa where its signature has it
    (without it, k and v with fewer heads are passed as they are: a torch
    that refuses them shows n/a with its exception)."""
    if p.var.activation != "softmax":
        raise NotAPeer("varlen_attn has softmax only (no GDPA activation)")
    if p.var.density is not None:
        raise NotAPeer("varlen_attn has no block-sparse mask")
    from torch.nn.attention.varlen import varlen_attn
    params = inspect.signature(varlen_attn).parameters
    left, right = p.var.win
    if p.var.causal:
        right = 0
    kw = {}
    if (left, right) != (-1, -1):
        if "window_size" in params:
            kw["window_size"] = (left, right)
        elif (left, right) == (-1, 0) and "is_causal" in params:
            kw["is_causal"] = True
        else:
            raise RuntimeError(f"varlen_attn{inspect.signature(varlen_attn)}: no window_size "
                               f"for window ({left}, {right})")
    if p.h_kv != p.h and "enable_gqa" in params:
        kw["enable_gqa"] = True
    return varlen_attn, kw


def vrun_varlen(p):
    fn, kw = vvarlen_kwargs(p)
    ko = p.keys_offsets()
    fn(p.q, p.k, p.v, p.offsets, ko, p.smax, p.smax_k, **kw)  # raises here if refused
    return lambda: fn(p.q, p.k, p.v, p.offsets, ko, p.smax, p.smax_k, **kw)


def vbwd_varlen(p):
    fn, kw = vvarlen_kwargs(p)
    q, k, v = leaves(p.q, p.k, p.v)
    out = fn(q, k, v, p.offsets, p.keys_offsets(), p.smax, p.smax_k, **kw)
    if isinstance(out, tuple):
        out = out[0]
    return grad_fn(out, (q, k, v), p.grad_out())


def _round_up(n, m):
    return max(m, -(-n // m) * m)


def _raise_dynamo_limits():
    import torch._dynamo
    cfg = torch._dynamo.config
    for name in ("cache_size_limit", "recompile_limit", "accumulated_cache_size_limit",
                 "accumulated_recompile_limit"):
        if hasattr(cfg, name):
            try:
                setattr(cfg, name, max(getattr(cfg, name), 512))
            except Exception:  # noqa: BLE001 - an alias that refuses: the other name did it
                pass


def vflex_setup(p):
    """The compiled flex_attention, p's block mask over the packed axes
    (queries padded to a multiple of 128 with a document id no key has, keys
    likewise), and the padded lengths. The mask_mod: same document, and the
    variant's mask in the sequence's positions with the bottom-right
    alignment (diag = query position + len_k - len_q)."""
    global _flex
    if p.var.activation != "softmax":
        raise NotAPeer("FlexAttention's score_mod acts before the softmax's normalization and "
                       "cannot express an unnormalized o = sum act(s) v")
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    _raise_dynamo_limits()
    if _flex is None:
        _flex = torch.compile(flex_attention, dynamic=False)
    tq, tk = _round_up(p.t, 128), _round_up(p.t_k, 128)
    doc_q = torch.full((tq,), -1, dtype=torch.int32, device="cuda")
    doc_q[:p.t] = p.batch_idx.to(torch.int32)
    doc_k = torch.full((tk,), -2, dtype=torch.int32, device="cuda")
    doc_k[:p.t_k] = p.batch_idx_k.to(torch.int32)
    pos_k = torch.zeros((tk,), dtype=torch.int32, device="cuda")
    pos_k[:p.t_k] = p.pos_k.to(torch.int32)
    shift = torch.tensor([m - n for n, m in zip(p.lengths, p.lengths_k)], device="cuda")
    diag = torch.zeros((tq,), dtype=torch.int32, device="cuda")
    diag[:p.t] = (p.pos + shift[p.batch_idx]).to(torch.int32)
    causal = p.var.causal
    left, right = p.var.win
    blocks = p.blocks  # the same block mask, element by element
    per_head = blocks is not None and blocks.shape[0] > 1

    def mask_mod(b, h, q_idx, kv_idx):
        keep = doc_q[q_idx] == doc_k[kv_idx]
        if blocks is not None:
            keep = keep & blocks[h if per_head else 0, q_idx // 128, kv_idx // 128]
        kp, dg = pos_k[kv_idx], diag[q_idx]
        if causal:
            keep = keep & (kp <= dg)
        if left >= 0:
            keep = keep & (kp >= dg - left)
        if right >= 0:
            keep = keep & (kp <= dg + right)
        return keep
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            bm = create_block_mask(mask_mod, None, None, tq, tk, device="cuda", _compile=True)
        except TypeError:
            bm = create_block_mask(mask_mod, None, None, tq, tk, device="cuda")
    return _flex, bm, tq, tk


def _to_flex(x, n):
    """packed [T, H', D] -> [1, H', n, D], zero rows after T."""
    out = torch.zeros((n, x.shape[1], x.shape[2]), dtype=x.dtype, device="cuda")
    out[:x.shape[0]] = x
    return out.transpose(0, 1).contiguous().unsqueeze(0)


def _flex_kwargs(p, bm):
    kw = {"block_mask": bm}
    if p.h_kv != p.h:
        kw["enable_gqa"] = True
    return kw


def vrun_flex(p):
    flex, bm, tq, tk = vflex_setup(p)
    q, k, v = _to_flex(p.q, tq), _to_flex(p.k, tk), _to_flex(p.v, tk)
    kw = _flex_kwargs(p, bm)
    start = time.perf_counter()
    flex(q, k, v, **kw)
    torch.cuda.synchronize()
    print(f"  (flex: compiled / first call in {time.perf_counter() - start:.1f} s)", flush=True)
    return lambda: flex(q, k, v, **kw)


def vbwd_flex(p):
    import torch._functorch.config
    torch._functorch.config.donated_buffer = False  # see bwd_flex
    flex, bm, tq, tk = vflex_setup(p)
    q, k, v = leaves(_to_flex(p.q, tq), _to_flex(p.k, tk), _to_flex(p.v, tk))
    do = _to_flex(p.grad_out(), tq)
    kw = _flex_kwargs(p, bm)
    start = time.perf_counter()
    out = flex(q, k, v, **kw)
    torch.autograd.grad(out, (q, k, v), do, retain_graph=True)
    torch.cuda.synchronize()
    print(f"  (flex: compiled / first forward + backward in {time.perf_counter() - start:.1f} s)",
          flush=True)
    return grad_fn(out, (q, k, v), do)


def _activation_fn(name):
    if name == "silu":
        return F.silu
    if name == "gelu_tanh":
        return lambda x: F.gelu(x, approximate="tanh")
    raise ValueError(f"unknown activation {name!r}")


_gdpa_padded = None


def _gdpa_padded_fn():
    """torch.compile of o = where(mask, act(q k^T * scale), 0) @ v on padded
    [B, H, Smax, D] tensors (the activation in fp32, its output in bf16)."""
    global _gdpa_padded
    if _gdpa_padded is None:
        def gdpa(q, k, v, mask, scale, activation):
            s = torch.matmul(q, k.transpose(-1, -2)).float() * scale
            a = _activation_fn(activation)(s).masked_fill(~mask, 0.0).to(q.dtype)
            return torch.matmul(a, v)
        _raise_dynamo_limits()
        _gdpa_padded = torch.compile(gdpa, dynamic=False)
    return _gdpa_padded


def _gdpa_mask(p):
    """[B, 1, Smax or 1, Smax] bool: key padding, and causal (self-attention)."""
    keep = (torch.arange(p.smax, device="cuda")[None, :] <
            torch.tensor(p.lengths, device="cuda")[:, None])
    mask = keep[:, None, None, :]
    if p.var.causal:
        mask = mask & torch.ones((p.smax, p.smax), dtype=torch.bool, device="cuda").tril()
    return mask


def _gdpa_peer(p):
    if p.var.activation == "softmax":
        raise NotAPeer("softmax variants: varlen_attn and FlexAttention are the peers")
    return _gdpa_padded_fn(), _gdpa_mask(p), 1.0 / math.sqrt(p.d)


def vrun_gdpa_ref(p):
    fn, mask, scale = _gdpa_peer(p)
    q, k, v = p.padded()
    act = p.var.activation
    start = time.perf_counter()
    fn(q, k, v, mask, scale, act)
    torch.cuda.synchronize()
    print(f"  (torch-ref: compiled / first call in {time.perf_counter() - start:.1f} s)",
          flush=True)
    return lambda: fn(q, k, v, mask, scale, act)


def vbwd_gdpa_ref(p):
    import torch._functorch.config
    torch._functorch.config.donated_buffer = False
    fn, mask, scale = _gdpa_peer(p)
    q, k, v = leaves(*p.padded())
    do = p.pad(p.grad_out())
    start = time.perf_counter()
    out = fn(q, k, v, mask, scale, p.var.activation)
    torch.autograd.grad(out, (q, k, v), do, retain_graph=True)
    torch.cuda.synchronize()
    print(f"  (torch-ref: compiled / first forward + backward in "
          f"{time.perf_counter() - start:.1f} s)", flush=True)
    return grad_fn(out, (q, k, v), do)


VFWD_PEERS = [("varlen", vrun_varlen), ("flex", vrun_flex), ("torch-ref", vrun_gdpa_ref)]
VBWD_PEERS = [("varlen", vbwd_varlen), ("flex", vbwd_flex), ("torch-ref", vbwd_gdpa_ref)]


# --- the check: ours against an fp32 reference (test/gpu/attention_test.py's
# and attention_bwd_test.py's bounds), fresh random inputs, poisoned outputs ---

O_MAX_REL, O_MEAN_REL, LSE_MAX_ABS = 1e-2, 4e-3, 1e-2
GRAD_MAX_REL, GRAD_MAX_ATOL, GRAD_MEAN_REL, GRAD_MEAN_ATOL = 2e-2, 1e-4, 1e-2, 1e-6


def variant_visible(n, m, causal, window):
    """[n, m] bool: query i sees key j (the contract's mask, bottom-right)."""
    i = torch.arange(n, device="cuda")[:, None]
    j = torch.arange(m, device="cuda")[None, :]
    diag = i + (m - n)
    left, right = window
    seen = torch.ones((n, m), dtype=torch.bool, device="cuda")
    if causal:
        seen &= j <= diag
    if left >= 0:
        seen &= j >= diag - left
    if right >= 0:
        seen &= j <= diag + right
    return seen


def _attend(qs, ks, vs, mask, rows, scale, activation):
    """fp32 [hc, n, D] x [hc, m, D]: (o [hc, n, D], lse [hc, n] or None). A
    row that sees no key: o = 0, lse = -inf (and no NaN in the gradients)."""
    scores = torch.matmul(qs, ks.transpose(1, 2)) * scale
    if activation != "softmax":
        a = _activation_fn(activation)(scores).masked_fill(~mask, 0.0)
        return torch.matmul(a, vs), None
    rows = rows if rows.dim() == 2 else rows[None]  # [1 or hc, n]
    s = scores.masked_fill(~mask, float("-inf"))
    s = torch.where(rows[..., None], s, torch.zeros((), device=s.device))
    lse = torch.logsumexp(s, dim=-1)
    p = torch.exp(s - lse[..., None]) * rows[..., None]
    return torch.matmul(p, vs), lse.masked_fill(~rows, float("-inf"))


def variant_reference(p, q, k, v, do=None):
    """fp32 o [T, H, D], lse [H, T] (None under GDPA) and whether each query
    sees a key [T]; with do also the fp32 gradients (dq, dk, dv) by autograd.
    One sequence (and a few heads) at a time; q head h reads k/v head
    h // (H / H_kv)."""
    var = p.var
    t, h, d = q.shape
    group = h // k.shape[1]
    scale = 1.0 / math.sqrt(d)
    softmax = var.activation == "softmax"
    o = torch.zeros((t, h, d), dtype=torch.float32, device="cuda")
    lse = torch.full((h, t), float("-inf"), dtype=torch.float32, device="cuda") if softmax else None
    sees = torch.zeros(t, dtype=torch.bool, device="cuda")
    grads = None
    if do is not None:
        grads = [torch.zeros(x.shape, dtype=torch.float32, device="cuda") for x in (q, k, v)]
    offs, offs_k = p.offsets.tolist(), p.keys_offsets().tolist()
    budget = (1 << 26) if do is not None else (1 << 28)  # score elements per chunk
    for b in range(p.b):
        s, e, sk, ek = offs[b], offs[b + 1], offs_k[b], offs_k[b + 1]
        n, m = e - s, ek - sk
        if n == 0 or m == 0:
            continue
        seq_mask = variant_visible(n, m, var.causal, var.win)
        hc = max(1, min(h, budget // (n * m)))
        for h0 in range(0, h, hc):
            h1 = min(h, h0 + hc)
            mask = seq_mask if p.blocks is None else \
                seq_mask & block_visible(p.blocks, h0, h1, s, n, sk, m)
            rows = mask.any(dim=-1)  # [n], or [heads, n] under a block mask
            sees[s:e] |= rows if rows.dim() == 1 else rows.any(dim=0)
            kvh = torch.arange(h0, h1, device="cuda") // group
            qs = q[s:e, h0:h1].float().transpose(0, 1).contiguous()
            ks = k[sk:ek].index_select(1, kvh).float().transpose(0, 1).contiguous()
            vs = v[sk:ek].index_select(1, kvh).float().transpose(0, 1).contiguous()
            if do is None:
                with torch.no_grad():
                    oc, lc = _attend(qs, ks, vs, mask, rows, scale, var.activation)
            else:
                qs, ks, vs = (x.requires_grad_() for x in (qs, ks, vs))
                with torch.enable_grad():
                    oc, lc = _attend(qs, ks, vs, mask, rows, scale, var.activation)
                    dos = do[s:e, h0:h1].float().transpose(0, 1)
                    gq, gk, gv = torch.autograd.grad(oc, (qs, ks, vs), dos)
                grads[0][s:e, h0:h1] = gq.transpose(0, 1)
                grads[1][sk:ek].index_add_(1, kvh, gk.transpose(0, 1))
                grads[2][sk:ek].index_add_(1, kvh, gv.transpose(0, 1))
                oc, lc = oc.detach(), (lc.detach() if lc is not None else None)
            o[s:e, h0:h1] = oc.transpose(0, 1)
            if lc is not None:
                lse[h0:h1, s:e] = lc
    return o, lse, sees, grads


def _fresh_inputs(p, seed):
    g = torch.Generator(device="cuda")
    g.manual_seed(seed)
    q = torch.randn((p.t, p.h, p.d), generator=g, device="cuda").to(torch.bfloat16)
    k, v = (torch.randn((p.t_k, p.h_kv, p.d), generator=g, device="cuda").to(torch.bfloat16)
            for _ in range(2))
    do = torch.randn((p.t, p.h, p.d), generator=g, device="cuda").to(torch.bfloat16)
    return q, k, v, do


def _errors(got, ref):
    diff = (got.float() - ref).abs().nan_to_num(nan=float("inf"))
    return (diff.max().item(), ref.abs().max().item(), diff.mean().item(),
            ref.abs().mean().item())


def vcheck_forward(p, seed):
    """Ours on fresh inputs with o (and lse) poisoned with NaN, against the
    fp32 reference: attention_test.py's bounds (o max rel <= 1e-2, mean rel
    <= 4e-3, lse max abs <= 1e-2; a query that sees no key: o = 0, lse = -inf
    exactly). Returns the line printed ('ok: ...' or 'FAIL: ...')."""
    _require_jfa()
    var = p.var
    softmax = var.activation == "softmax"
    q, k, v, _ = _fresh_inputs(p, seed)
    kw = p.options()
    o = torch.full_like(q, float("nan"))
    given = {"o": o}
    if softmax:
        given["lse"] = torch.full((p.h, p.t), float("nan"), dtype=torch.float32, device="cuda")
    notes, problems = [], []
    try:
        out = jfa.jagged_attention(q, k, v, p.offsets, p.smax, causal=var.causal, **kw, **given)
    except (TypeError, ValueError) as e:
        if softmax:
            raise
        notes.append(f"o not given (refused: {type(e).__name__}: {e})")
        out = jfa.jagged_attention(q, k, v, p.offsets, p.smax, causal=var.causal, **kw)
    got_o = _first(out)
    got_lse = out[1] if isinstance(out, (tuple, list)) and len(out) > 1 else None
    torch.cuda.synchronize()
    ref_o, ref_lse, sees, _ = variant_reference(p, q, k, v)
    blind = ~sees
    bad = (~torch.isfinite(got_o)).any(dim=2).any(dim=1) & sees
    if bad.any():
        problems.append(f"{int(bad.sum())} token rows of o not finite")
    if blind.any() and (got_o[blind] != 0).any():
        problems.append("a query that sees no key has o != 0")
    dmax, rmax, dmean, rmean = _errors(got_o, ref_o)
    max_rel, mean_rel = dmax / max(rmax, 1e-30), dmean / max(rmean, 1e-30)
    if not max_rel <= O_MAX_REL:
        problems.append(f"o max rel {max_rel:.2e} > {O_MAX_REL}")
    if not mean_rel <= O_MEAN_REL:
        problems.append(f"o mean rel {mean_rel:.2e} > {O_MEAN_REL}")
    line = f"o max rel {max_rel:.2e} mean rel {mean_rel:.2e}"
    if softmax:
        if got_lse is None:
            problems.append("no lse returned")
        else:
            if blind.any() and (got_lse[:, blind] != float("-inf")).any():
                problems.append("a query that sees no key has lse != -inf")
            ld = (got_lse - ref_lse).abs().nan_to_num(nan=float("inf"))
            ld[:, blind] = 0.0
            # A head that sees no key through its block mask: -inf both sides.
            ld[torch.isneginf(got_lse) & torch.isneginf(ref_lse)] = 0.0
            lse_err = ld.max().item()
            line += f", lse max abs {lse_err:.2e}"
            if not lse_err <= LSE_MAX_ABS:
                problems.append(f"lse max abs {lse_err:.2e} > {LSE_MAX_ABS}")
    elif got_lse is not None:
        notes.append("an lse was returned (issue 20: None under GDPA), not checked")
    if blind.any():
        line += f", {int(blind.sum())} queries see no key"
    line += "".join(f"; {n}" for n in notes)
    return ("FAIL: " + line + "; " + "; ".join(problems)) if problems else "ok: " + line


def vcheck_backward(p, seed):
    """Our gradients on fresh inputs (dq, dk, dv poisoned with NaN and given
    to attention_backward; GDPA through autograd) against fp32 autograd of the
    reference: attention_bwd_test.py's bounds (max|g - ref| <= 2e-2 max|ref|
    + 1e-4, mean|g - ref| <= 1e-2 mean|ref| + 1e-6, every row finite)."""
    _require_jfa()
    var = p.var
    q, k, v, do = _fresh_inputs(p, seed)
    kw = p.options()
    if var.activation == "softmax":
        o, lse = jfa.jagged_attention(q, k, v, p.offsets, p.smax, causal=var.causal, **kw)
        dq = torch.full_like(q, float("nan"))
        dk, dv = torch.full_like(k, float("nan")), torch.full_like(v, float("nan"))
        got = jfa.attention_backward(do, q, k, v, o, lse, p.offsets, p.smax, var.causal,
                                     dq=dq, dk=dk, dv=dv, **kw)
        how = "attention_backward"
    else:
        ql, kl, vl = leaves(q, k, v)
        o = _first(jfa.jagged_attention(ql, kl, vl, p.offsets, p.smax, causal=var.causal, **kw))
        got = torch.autograd.grad(o, (ql, kl, vl), do)
        how = "autograd"
    torch.cuda.synchronize()
    _, _, _, ref = variant_reference(p, q, k, v, do=do)
    parts, problems = [], []
    for name, g, r in zip(("dq", "dk", "dv"), got, ref):
        bad = (~torch.isfinite(g)).flatten(1).any(dim=1)
        if bad.any():
            problems.append(f"{int(bad.sum())} rows of {name} not finite")
        dmax, rmax, dmean, rmean = _errors(g, r)
        parts.append(f"{name} max {dmax:.2e} (max|ref| {rmax:.2e}) mean {dmean:.2e} "
                     f"(mean|ref| {rmean:.2e})")
        if not dmax <= GRAD_MAX_REL * rmax + GRAD_MAX_ATOL:
            problems.append(f"{name} max err {dmax:.2e} > {GRAD_MAX_REL} * {rmax:.2e} + "
                            f"{GRAD_MAX_ATOL}")
        if not dmean <= GRAD_MEAN_REL * rmean + GRAD_MEAN_ATOL:
            problems.append(f"{name} mean err {dmean:.2e} > {GRAD_MEAN_REL} * {rmean:.2e} + "
                            f"{GRAD_MEAN_ATOL}")
    line = f"({how}) " + ", ".join(parts)
    return ("FAIL: " + line + "; " + "; ".join(problems)) if problems else "ok: " + line


def _cell(r):
    if r is None:
        return "n/a"
    if r[0] == "ok":
        return f"{r[1]:.1f}"
    return {"na": "n/a", "none": "-", "skip": "skip"}[r[0]]


def run_variants(args):
    """--variants: issue 20's table (see the module docstring)."""
    torch.backends.cuda.matmul.allow_tf32 = False  # the check's reference is true fp32
    shapes = all_variant_shapes()
    if args.quick:
        shapes = [s for s in shapes if s[0].endswith("/" + VARIANT_QUICK)]
    if args.shapes:
        wanted = [w.strip() for w in args.shapes.split(",") if w.strip()]
        shapes = [s for s in shapes if any(w in s[0] for w in wanted)]
    if not shapes:
        print("no variant shape matches; shapes: " + ", ".join(s[0] for s in all_variant_shapes()))
        return 2
    backward = args.backward
    ours_make = vbwd_ours if backward else vrun_ours
    peers = VBWD_PEERS if backward else VFWD_PEERS
    flops_x = BWD_FLOPS if backward else 1.0
    commit = args.commit or git_commit()
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}; jfa "
          f"{jfa.__version__ + ' (' + jfa.library_path() + ')' if jfa else 'n/a: ' + JFA_IMPORT_ERROR}"
          f"; commit {commit or 'unknown'}; issue 20's variants, "
          f"{'backward' if backward else 'forward'} pass", flush=True)
    started = time.perf_counter()
    position = {s[0]: i for i, s in enumerate(all_variant_shapes())}
    rows, errors, checks = [], [], []
    not_peers = {}
    checked = set()
    for name, var, kind, d, h in shapes:
        i = position[name]
        p = VProblem(var, kind, d, h, seed=20000 + i)
        flops = p.flops * flops_x
        full = sum(n * m for n, m in zip(p.lengths, p.lengths_k))
        print(f"{name}: {var.describe()}; B={p.b} T={p.t} Smax={p.smax}"
              f"{f' T_k={p.t_k} Smax_k={p.smax_k}' if p.cross else ''} H={h}"
              f"{f' H_kv={p.h_kv}' if p.h_kv != h else ''} D={d}; {p.pairs / 1e6:.1f}M visible "
              f"pairs ({p.pairs / max(full, 1):.3f} of all), {flops / 1e12:.2f} useful "
              f"{'backward ' if backward else ''}TFLOP", flush=True)
        check = None
        if not args.no_check and var.name not in checked and jfa is not None:
            checked.add(var.name)
            try:
                check = (vcheck_backward if backward else vcheck_forward)(p, seed=p.seed + 500000)
            except NotImplementedError as e:  # an option not there yet: not a failure
                check = f"n/a: {type(e).__name__}: {str(e).strip()}"
            except Exception as e:  # noqa: BLE001
                check = f"ours failed: {type(e).__name__}: {str(e).strip()}"
                if args.traceback:
                    traceback.print_exc()
            print(f"  check {'backward' if backward else 'forward'}: {check}", flush=True)
            checks.append((name, check))
            torch.cuda.synchronize()
        result = {}
        ours_missing = None
        for peer, make in [("ours", ours_make)] + ([] if args.only_ours else peers):
            if peer != "ours" and ours_missing:
                result[peer] = ("skip", ours_missing)
                continue
            fn = None
            try:
                fn = make(p)
                ms = median_ms(fn)
                result[peer] = ("ok", flops / (ms * 1e-3) / 1e12, ms)
                print(f"  {peer:11s} {ms:9.3f} ms  {result[peer][1]:7.1f} TFLOP/s", flush=True)
            except NotAPeer as e:
                result[peer] = ("none", str(e))
                not_peers.setdefault(peer, set()).add(str(e))
                print(f"  {peer:11s} -   ({e})", flush=True)
            except Exception as e:  # noqa: BLE001
                text = str(e).strip()
                msg = f"{type(e).__name__}: {text.splitlines()[0] if text else ''}"
                result[peer] = ("na", msg)
                errors.append(f"{name} {peer}: {msg}")
                print(f"  {peer:11s} n/a ({msg})", flush=True)
                if args.traceback:
                    traceback.print_exc()
                if peer == "ours" and isinstance(e, NotImplementedError):
                    ours_missing = f"ours is n/a ({msg}): peers skipped to save device time"
                    print(f"  {ours_missing}", flush=True)
            del fn
            torch.cuda.synchronize()
        meta = {"B": p.b, "T": p.t, "T_k": p.t_k, "Smax": p.smax, "Smax_k": p.smax_k, "H": h,
                "H_kv": p.h_kv, "D": d, "pairs": p.pairs}
        p.release()
        del p
        torch.cuda.empty_cache()
        rows.append((name, var, kind, d, meta, result, check))

    names = ["ours"] + [n for n, _ in peers]
    print()
    what = ("backward pass, useful TFLOP/s (2.5x the forward FLOPs)" if backward
            else "forward pass, useful TFLOP/s")
    print(f"issue 20's variants, {what} (visible pairs only; '-': not a peer of the variant, "
          f"n/a: failed, see below):")
    print("| variant | shape | B | T | T_k | Smax | H/H_kv | ours ms | " +
          " | ".join(f"{n} TFLOP/s" for n in names) + " | ours / best peer |")
    print("|---" * (len(names) + 9) + "|")
    for name, var, kind, d, meta, result, check in rows:
        best = max((result[n][1] for n in names[1:] if result.get(n) and result[n][0] == "ok"),
                   default=None)
        ours = result.get("ours")
        ours_ok = ours is not None and ours[0] == "ok"
        ratio = f"{ours[1] / best:.2f}x" if ours_ok and best else "n/a"
        print(f"| {var.name} | {kind}-d{d} | {meta['B']} | {meta['T']} | {meta['T_k']} | "
              f"{meta['Smax']} | {meta['H']}/{meta['H_kv']} | "
              f"{f'{ours[2]:.3f}' if ours_ok else 'n/a'} | " +
              " | ".join(_cell(result.get(n)) for n in names) + f" | {ratio} |")

    # The windows' cost against causal on the same batch (issue 20: the cost
    # grows with the window, not the sequence).
    win = [r for r in rows if r[1].name.startswith("win-")]
    base = {(r[2], r[3]): r[5] for r in win if r[1].name == "win-causal"}
    if win and base:
        print("\ntime relative to causal (-1, 0) on the same batch (win-causal's time = 1):")
        for (kind, d), causal_result in base.items():
            for n in names:
                c = causal_result.get(n)
                if not c or c[0] != "ok":
                    continue
                cells = []
                for r in win:
                    x = r[5].get(n)
                    same = (r[2], r[3]) == (kind, d) and r[1].name != "win-causal"
                    if same and x and x[0] == "ok":
                        cells.append(f"{r[1].name} {x[2] / c[2]:.2f}")
                if cells:
                    print(f"  {kind}-d{d} {n:9s} causal {c[2]:.3f} ms; " + ", ".join(cells))

    if args.results:
        kernel = "attention_bwd_variants" if backward else "attention_fwd_variants"
        with open(args.results, "a") as f:
            for name, var, kind, d, meta, result, check in rows:
                ok = {n: result[n] for n in names if result.get(n) and result[n][0] == "ok"}
                best_name = max((n for n in ok if n != "ours"), key=lambda n: ok[n][1],
                                default=None)
                f.write(json.dumps({
                    "kernel": kernel, "variant": var.name, "tag": args.tag, "commit": commit,
                    "date": time.strftime("%Y-%m-%d"), "device": torch.cuda.get_device_name(),
                    "shape": name, **meta,
                    "causal": var.causal, "window": list(var.window) if var.window else None,
                    "activation": var.activation, "cross": var.cross,
                    "tflops": round(ok["ours"][1], 1) if "ours" in ok else None,
                    "ms": round(ok["ours"][2], 4) if "ours" in ok else None,
                    "peers_tflops": {n: round(ok[n][1], 1) for n in ok if n != "ours"},
                    "peers_na": {n: result[n][1] for n in names
                                 if result.get(n) and result[n][0] in ("na", "none", "skip")},
                    "ours_over_best_peer": (round(ok["ours"][1] / ok[best_name][1], 3)
                                            if "ours" in ok and best_name else None),
                    "check": check,
                }) + "\n")
        print(f"\nappended {len(rows)} rows to {args.results}")
    if not_peers:
        print("\n'-' (not a peer of the variant):")
        for peer, reasons in not_peers.items():
            for reason in sorted(reasons):
                print(f"  {peer}: {reason}")
    if errors:
        print("\nn/a:")
        for e in errors:
            print(f"  {e}")
    failed = [(n, c) for n, c in checks if c.startswith(("FAIL", "ours failed"))]
    if checks:
        print(f"\nchecks ({'backward' if backward else 'forward'}, fresh inputs, poisoned "
              f"outputs, fp32 reference): {sum(c.startswith('ok') for _, c in checks)} ok, "
              f"{len(failed)} failed, {sum(c.startswith('n/a') for _, c in checks)} n/a "
              f"of {len(checks)}")
        for n, c in checks:
            if not c.startswith("ok"):
                print(f"  {n}: {c}")
    print(f"\ntotal {time.perf_counter() - started:.0f} s")
    return 1 if failed else 0


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
    ap.add_argument("--variants", action="store_true",
                    help="issue 20's variants instead (windows, GQA, cross-attention, "
                    "window+GQA, GDPA activations) against FlexAttention, varlen_attn and a "
                    "compiled PyTorch GDPA; with --backward the backward pass; --quick: the "
                    f"{VARIANT_QUICK} shape of each variant; --shapes matches "
                    "'<variant>/<kind>-d<D>' (e.g. win-,gqa-,cross-,combo-,gdpa-)")
    ap.add_argument("--commit", default=None,
                    help="recorded with --variants --results (default: git rev-parse HEAD "
                    "where this is a checkout)")
    args = ap.parse_args()
    if args.variants:
        return run_variants(args)
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
                    "commit": args.commit or git_commit(),
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
