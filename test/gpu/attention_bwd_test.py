"""jfa.attention_backward and jagged_attention's autograd on the GPU against
fp32 autograd.

    PYTHONPATH=dist/jfa/python python3 test/gpu/attention_bwd_test.py \
        [--quick] [--sanitize] [--variants | --plain] [--seed N] [--only TEXT]

Each case draws fresh random q, k, v and an upstream gradient do (the seed is
printed; --seed repeats a run), runs jfa's forward, poisons dq, dk and dv with
NaN (passed in as preallocated outputs), runs jfa.attention_backward and
compares with the gradients that torch.autograd gives for a reference
attention computed per sequence in fp32 from the same bf16 inputs (scores
q k^T * scale, masked, softmax, P v; do in fp32). The mask is the contract's
(kernels/jagged_attention/README.md): for sequence b with len_q queries and
len_k keys, shift = len_k - len_q, query i sees key j iff j <= i + shift
(causal), j >= i + shift - left (window left >= 0), j <= i + shift + right
(window right >= 0); for self-attention causal is col <= row. The
reference's softmax gives a query that sees no key P = 0 (its row max is
taken as 0 and its sum clamped), so its gradients are exactly 0.

The variants of issue 20 (run by default; --variants runs only them, --plain
all but them), with
the same options given to the forward and the backward: sliding windows
((0, 0), (-1, 0) without causal, (64, -1), (300, 5), causal with (100, 0),
windows past every sequence, ...), grouped-query k/v heads (H = 4 with
H_kv = 1, 2; H = 8 with 2; MQA with 16 heads; k and v views of one tensor
with dk padded), cross-attention (offsets_k with other lengths than the
queries', sequences with 0 keys or 0 queries, no keys at all (dq = 0 without
a kernel), no queries at all (dk = dv = 0 without a kernel), fewer keys
than queries under causal, 16500 keys) and combinations, D = 64 and 128;
dk and dv are [T_k, H_kv, D] (under GQA each the sum over its q heads), and
beyond the bounds below: a query that sees no key must get dq = 0 and a key
that no query sees dk = dv = 0, exactly. Also: the options through autograd
(eager and torch.compile) against the reference and against
attention_backward; a window of (-1, -1) and causal's (-1, 0) give the
plain backward's dk and dv bit for bit, and the general variant on a plain
problem (offsets_k = offsets) the plain one's gradients within the bounds;
their error paths; a CUDA graph of forward and backward with all three
options.

GDPA (activation="silu" / "gelu_tanh", part of the variants, with every
option): o = sum_j act(x_j) v_j, x = scale * q.k_j, not normalized, no lse
(the forward returns None and the backward takes lse=None). Reference: the
gradients torch.autograd gives for that o in fp32 (act = torch's silu /
tanh gelu, masked keys 0). Bound per element (test/interp/kernels.py's,
which jfa-interp's runs of the kernels pass):
  |g - ref| <= 2e-2 * |ref| + 2e-2 + slack_g,
  slack_dv = 2^-8 |P|^T |do|, slack_dq = 2^-8 scale |dS| |k|,
  slack_dk = 2^-8 scale |dS|^T |q|  (dS = dP act'(x), summed over a GQA group)
  The kernels round P and dS to bf16 for the tensor cores: unnormalized,
  that rounding (a bf16 step, 2^-8 relative, per term at most) is the error
  that dominates; the final bf16 rounding of the gradients is in the
  2e-2 * |ref|. Also through autograd (eager and torch.compile) with lse
  None, and in a CUDA graph.

Bounds, per case and per gradient g in (dq, dk, dv), ref the fp32 gradient:
  max|g - ref|  <= 2e-2 * max|ref| + 1e-4
  mean|g - ref| <= 1e-2 * mean|ref| + 1e-6  (not when max|ref| < 1e-4: a
                   reference that is 0 but for rounding, where the first decides)
  The kernel rounds P and dS to bf16 before the tensor-core products
  (relative steps of 2^-9, about 2e-3), takes delta = rowsum(o * do) from
  the forward's bf16 o, and rounds dk, dv and dq to bf16 at the end (about
  1e-3 on average); the errors of the sums are random, so about 3e-3 on
  average and ~1e-2 at the worst element are expected. Anything structural
  (a dropped or doubled q or k tile, a wrong mask or scale, a unit writing
  another sequence's rows) is an error of order |ref|.
  Every row of dq, dk and dv is written and finite (poisoned with NaN);
  where dk is a view with padding between token rows, the padding is kept.
Then: error paths (TypeError / ValueError / NotImplementedError /
RuntimeError with a message); the autograd path (jagged_attention with
requires_grad inputs, loss.backward(), gradients against the reference and
against attention_backward); torch.compile (a small function calling
jagged_attention compiled with fullgraph=False: same outputs and gradients
as eager); and a training demo: a tiny causal LM (embedding -> 2 blocks with
jagged attention -> linear) trained for a few AdamW steps on jagged batches
with jfa's attention and, from the same initial weights and data, with the
reference attention; every step's loss must agree to
  |loss_jfa - loss_ref| <= 1e-2 * |loss_ref|
(bf16's rounding step is 2^-8 = 3.9e-3: about 2.5 bf16 steps; the two runs
differ only by the rounding inside the attention kernels, amplified a little
by AdamW), and the loss must fall.

--quick: a smaller matrix. --sanitize: a few small cases (each variant too)
and the error paths only (for compute-sanitizer, e.g.
  compute-sanitizer --tool memcheck python3 test/gpu/attention_bwd_test.py --sanitize).
Exit status 0 when everything passed.
"""
import copy
import itertools
import math
import os
import sys
import tempfile
import time

import torch
import torch._dynamo  # noqa: F401  (compile_check)
import torch.nn.functional as F

import jfa
from gpu_common import (add_block_mask, describe, expect_error, make_offsets, pairs_mask,
                        random_lengths, start)
from jfa import _backward, _lib, _schedule

GRAD_MAX_REL = 2e-2
GRAD_MAX_ATOL = 1e-4
GRAD_MEAN_REL = 1e-2
GRAD_MEAN_ATOL = 1e-6
LOSS_REL = 1e-2

torch.backends.cuda.matmul.allow_tf32 = False  # the reference is true fp32
torch.backends.cudnn.allow_tf32 = False


def visible(len_q, len_k, causal, window, device):
    """[len_q, len_k] bool: query i sees key j (the contract's mask; the
    forward test's, test/gpu/attention_test.py)."""
    i = torch.arange(len_q, device=device)[:, None]
    j = torch.arange(len_k, device=device)[None, :]
    shift = len_k - len_q
    left, right = window
    seen = torch.ones((len_q, len_k), dtype=torch.bool, device=device)
    if causal:
        seen &= j <= i + shift
    if left >= 0:
        seen &= j >= i + shift - left
    if right >= 0:
        seen &= j <= i + shift + right
    return seen


def reference_grads(q, k, v, do, offsets, causal, scale, offsets_k=None, window=(-1, -1),
                    blocks=None):
    """fp32 (dq [T, H, D], dk, dv [T_k, H_kv, D]) by torch.autograd of the
    reference attention, and the masks (query sees a key [T], key is seen
    [T_k]), one sequence (and for long ones a few heads) at a time. k and v
    may have H_kv heads (q head h reads h // (H // H_kv): autograd sums dk
    and dv over each group) and, with offsets_k, other tokens. A query that
    sees no key has P = 0: its row max is taken as 0 (it is a constant of
    the softmax, detached) and its row sum clamped, so no NaN and exactly 0
    gradients; keys no query sees get exactly 0. blocks: a block-sparse mask
    (bool [Hm, QB, KB]); the masks then say whether a query sees a key in
    some head, a key is seen in some head."""
    t, h, d = q.shape
    t_k, h_kv = k.shape[0], k.shape[1]
    group = h // h_kv
    dq = torch.zeros((t, h, d), dtype=torch.float32, device=q.device)
    dk = torch.zeros((t_k, h_kv, d), dtype=torch.float32, device=q.device)
    dv = torch.zeros((t_k, h_kv, d), dtype=torch.float32, device=q.device)
    sees = torch.zeros(t, dtype=torch.bool, device=q.device)
    seen = torch.zeros(t_k, dtype=torch.bool, device=q.device)
    offs = offsets.tolist()
    offs_k = offs if offsets_k is None else offsets_k.tolist()
    for b in range(len(offs) - 1):
        s, e = offs[b], offs[b + 1]
        sk, ek = offs_k[b], offs_k[b + 1]
        n, m = e - s, ek - sk
        if n == 0 or m == 0:
            continue  # no gradient: dq = 0 (no key), dk = dv = 0 (no query)
        seq_mask = visible(n, m, causal, window, q.device)
        # Heads per chunk so that the [heads, n, m] score matrices stay under ~0.5 GiB each.
        hc = max(1, min(h, (1 << 27) // (n * m)))
        for h0 in range(0, h, hc):
            h1 = min(h, h0 + hc)
            mask = pairs_mask(seq_mask, blocks, h0, h1, s, n, sk, m)
            heads_mask = mask if mask.dim() == 3 else mask[None]
            sees[s:e] |= heads_mask.any(dim=2).any(dim=0)
            seen[sk:ek] |= heads_mask.any(dim=1).any(dim=0)
            kv_index = torch.arange(h0, h1, device=q.device) // group
            qs = q[s:e, h0:h1].float().transpose(0, 1).requires_grad_()  # [hc, n, d]
            kl, vl = (x[sk:ek].float().requires_grad_() for x in (k, v))  # [m, h_kv, d]
            dos = do[s:e, h0:h1].float().transpose(0, 1)
            with torch.enable_grad():
                ks, vs = (x.index_select(1, kv_index).transpose(0, 1) for x in (kl, vl))
                scores = torch.matmul(qs, ks.transpose(1, 2)) * scale
                scores = scores.masked_fill(~mask, float("-inf"))
                mx = scores.amax(dim=-1, keepdim=True).detach()
                mx = torch.where(torch.isfinite(mx), mx, torch.zeros_like(mx))
                p = torch.exp(scores - mx)
                p = p / p.sum(dim=-1, keepdim=True).clamp_min(1e-30)
                os_ = torch.matmul(p, vs)
                gq, gk, gv = torch.autograd.grad(os_, (qs, kl, vl), dos)
            dq[s:e, h0:h1] = gq.transpose(0, 1)
            dk[sk:ek] += gk
            dv[sk:ek] += gv
            del scores, p, os_, gq, gk, gv
    return (dq, dk, dv), sees, seen


def gdpa_act(activation, x):
    """GDPA's activation (torch's silu and tanh gelu): differentiable."""
    if activation == "silu":
        return F.silu(x)
    return F.gelu(x, approximate="tanh")


def gdpa_act_grad(activation, x):
    """act'(x), for the error bound's |dS| (test/interp/kernels.py's)."""
    if activation == "silu":
        sig = torch.sigmoid(x)
        return sig * (1 + x * (1 - sig))
    c = math.sqrt(2 / math.pi)
    t = torch.tanh(c * (x + 0.044715 * x ** 3))
    return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * c * (1 + 3 * 0.044715 * x * x)


GDPA_REL = 2e-2
GDPA_ABS = 2e-2
GDPA_ULP = 2.0 ** -8


def reference_grads_gdpa(q, k, v, do, offsets, causal, scale, activation, offsets_k=None,
                         window=(-1, -1), blocks=None):
    """reference_grads under a GDPA activation: fp32 (dq, dk, dv) by
    torch.autograd of o = sum_j act(x_j) v_j (x = scale q.k_j, 0 for keys
    the query does not see), the masks, and the error bound's slack per
    gradient (the bf16 rounding of P and dS: 2^-8 |P|^T |do| for dv,
    2^-8 scale |dS| |k| for dq, 2^-8 scale |dS|^T |q| for dk). blocks: a
    block-sparse mask, as reference_grads'."""
    t, h, d = q.shape
    t_k, h_kv = k.shape[0], k.shape[1]
    group = h // h_kv
    f32 = dict(dtype=torch.float32, device=q.device)
    dq, slack_dq = torch.zeros((t, h, d), **f32), torch.zeros((t, h, d), **f32)
    dk, dv = torch.zeros((t_k, h_kv, d), **f32), torch.zeros((t_k, h_kv, d), **f32)
    slack_dk, slack_dv = torch.zeros((t_k, h_kv, d), **f32), torch.zeros((t_k, h_kv, d), **f32)
    sees = torch.zeros(t, dtype=torch.bool, device=q.device)
    seen = torch.zeros(t_k, dtype=torch.bool, device=q.device)
    offs = offsets.tolist()
    offs_k = offs if offsets_k is None else offsets_k.tolist()
    zero = torch.zeros((), device=q.device)
    for b in range(len(offs) - 1):
        s, e = offs[b], offs[b + 1]
        sk, ek = offs_k[b], offs_k[b + 1]
        n, m = e - s, ek - sk
        if n == 0 or m == 0:
            continue
        seq_mask = visible(n, m, causal, window, q.device)
        hc = max(1, min(h, (1 << 27) // (n * m)))
        for h0 in range(0, h, hc):
            h1 = min(h, h0 + hc)
            mask = pairs_mask(seq_mask, blocks, h0, h1, s, n, sk, m)
            heads_mask = mask if mask.dim() == 3 else mask[None]
            sees[s:e] |= heads_mask.any(dim=2).any(dim=0)
            seen[sk:ek] |= heads_mask.any(dim=1).any(dim=0)
            kv_index = torch.arange(h0, h1, device=q.device) // group
            qs = q[s:e, h0:h1].float().transpose(0, 1).requires_grad_()  # [hc, n, d]
            kl, vl = (x[sk:ek].float().requires_grad_() for x in (k, v))  # [m, h_kv, d]
            dos = do[s:e, h0:h1].float().transpose(0, 1)
            with torch.enable_grad():
                ks, vs = (x.index_select(1, kv_index).transpose(0, 1) for x in (kl, vl))
                x = torch.matmul(qs, ks.transpose(1, 2)) * scale
                p = torch.where(mask, gdpa_act(activation, x), zero)
                os_ = torch.matmul(p, vs)
                gq, gk, gv = torch.autograd.grad(os_, (qs, kl, vl), dos)
            dq[s:e, h0:h1] = gq.transpose(0, 1)
            dk[sk:ek] += gk
            dv[sk:ek] += gv
            del os_, gq, gk, gv
            with torch.no_grad():
                ks, vs, x = ks.detach(), vs.detach(), x.detach()
                p = p.detach().abs_()
                ds = torch.where(mask, torch.matmul(dos, vs.transpose(1, 2)) *
                                 gdpa_act_grad(activation, x), zero).abs_()
                del x
                slack_dq[s:e, h0:h1] = GDPA_ULP * scale * torch.matmul(
                    ds, ks.abs()).transpose(0, 1)
                # [hc, m, d] per q head, summed into each one's k/v head.
                slack_dk[sk:ek].index_add_(1, kv_index, GDPA_ULP * scale * torch.matmul(
                    ds.transpose(1, 2), qs.detach().abs()).transpose(0, 1))
                slack_dv[sk:ek].index_add_(1, kv_index, GDPA_ULP * torch.matmul(
                    p.transpose(1, 2), dos.abs()).transpose(0, 1))
                del p, ds
    return (dq, dk, dv), sees, seen, (slack_dq, slack_dk, slack_dv)


def compare_gdpa(name, got, ref, slack):
    """(ok, text, problems) for one GDPA gradient: |got - ref| <= 2e-2 |ref|
    + 2e-2 + slack per element (the module's docstring)."""
    if ref.numel() == 0:
        return True, f"{name} empty", []
    diff = (got.float() - ref).abs().nan_to_num(nan=float("inf"))
    bound = GDPA_REL * ref.abs() + GDPA_ABS + slack
    excess = diff / bound
    ratio = excess.max().item()
    max_rel = (diff.max() / ref.abs().max().clamp_min(1e-30)).item()
    problems = []
    if not ratio <= 1.0:
        worst = excess.flatten().argmax().item()
        h, d = got.shape[1], got.shape[2]
        problems.append(f"{name} exceeds 2e-2 |ref| + 2e-2 + slack by {ratio:.2f}x (worst at "
                        f"token {worst // (h * d)}, head {(worst // d) % h}: "
                        f"|{got.flatten()[worst].item():.4g} - {ref.flatten()[worst].item():.4g}|"
                        f" > {bound.flatten()[worst].item():.3g})")
    return not problems, f"{name} err / bound {ratio:.2f} (max rel {max_rel:.1e})", problems


def compare(name, got, ref):
    """(ok, text, problems) for one gradient against its reference."""
    if ref.numel() == 0:
        return True, f"{name} empty", []
    diff = (got.float() - ref).abs().nan_to_num(nan=float("inf"))
    max_abs, mean_abs = diff.max().item(), diff.mean().item()
    ref_max, ref_mean = ref.abs().max().item(), ref.abs().mean().item()
    max_rel = max_abs / max(ref_max, 1e-30)
    mean_rel = mean_abs / max(ref_mean, 1e-30)
    problems = []
    if not max_abs <= GRAD_MAX_REL * ref_max + GRAD_MAX_ATOL:
        worst = diff.flatten().argmax().item()
        h, d = got.shape[1], got.shape[2]
        problems.append(f"{name} max abs err {max_abs:.3e} > {GRAD_MAX_REL} * max|ref| "
                        f"{ref_max:.3e} + {GRAD_MAX_ATOL} (worst at token {worst // (h * d)}, "
                        f"head {(worst // d) % h})")
    if ref_max >= GRAD_MAX_ATOL and not mean_abs <= GRAD_MEAN_REL * ref_mean + GRAD_MEAN_ATOL:
        problems.append(f"{name} mean abs err {mean_abs:.3e} > {GRAD_MEAN_REL} * mean|ref| "
                        f"{ref_mean:.3e} + {GRAD_MEAN_ATOL}")
    if ref_max < GRAD_MAX_ATOL:
        # A reference that is zero but for rounding (one token, or a window
        # of one key: dS = 0): relative figures mean nothing, the absolute
        # bound on the max decides.
        return (not problems,
                f"{name} max abs {max_abs:.2e} (reference max {ref_max:.1e})", problems)
    return not problems, f"{name} max rel {max_rel:.2e} mean rel {mean_rel:.2e}", problems


def not_finite_rows(name, g):
    if g.numel() == 0:
        return []
    bad = (~torch.isfinite(g)).any(dim=2).any(dim=1)
    if bad.any():
        rows = bad.nonzero().flatten()
        return [f"{rows.numel()} token rows of {name} not finite (first token {rows[0].item()})"]
    return []


def nonzero_rows(name, g, rows, what):
    """Problems when a row of g that must be 0 (exactly) is not: `rows` a
    bool mask over g's tokens."""
    if g.numel() == 0 or not rows.any():
        return []
    idx = rows.nonzero().flatten()
    bad = (g[idx] != 0).any(dim=2).any(dim=1)  # NaN != 0 too
    if bad.any():
        return [f"{int(bad.sum())} {what} have {name} != 0 (first token "
                f"{idx[bad.nonzero()[0]].item()})"]
    return []


def run_case(res, name, lengths, h, d, causal, scale=None, layout="packed", gen=None, *,
             h_kv=None, lengths_k=None, window=None, activation="softmax", block_mask=None):
    """One case: random q, k, v, do for the given lengths; jfa's forward; dq, dk,
    dv poisoned; attention_backward against the fp32 reference. h_kv: k's and
    v's heads (default h); lengths_k: the key sequences' lengths
    (cross-attention through offsets_k); window: the forward's and the
    backward's window; activation: the forward's and the backward's ("silu",
    "gelu_tanh": GDPA, no lse, against reference_grads_gdpa's bound). layout
    "qkv": q, k, v views of one [T, 3, H, D] tensor, do and dk with padding
    after each token row; "kv": k and v views of one [T_k, 2, H_kv, D]
    tensor, dk with padding. block_mask: (mask heads, density, form) of a
    random block-sparse mask for both calls."""
    gdpa = activation != "softmax"
    h_kv = h if h_kv is None else h_kv
    t = sum(lengths)
    offsets = make_offsets(lengths)
    max_seqlen = max(lengths) if lengths else 0
    cross = lengths_k is not None
    t_k = sum(lengths_k) if cross else t
    offsets_k = make_offsets(lengths_k) if cross else None
    pad = 0
    if layout == "qkv":
        # q, k, v views of one [T, 3, H, D] tensor; do and dk views with 64
        # elements of padding after each token row (copies inside).
        assert not cross and h_kv == h
        pad = 64
        qkv = torch.randn((t, 3, h, d), generator=gen, device="cuda").to(torch.bfloat16)
        q, k, v = qkv[:, 0], qkv[:, 1], qkv[:, 2]
        do_store = torch.randn((t, h * d + pad), generator=gen, device="cuda").to(torch.bfloat16)
        do = do_store[:, :h * d].view(t, h, d)
    else:
        q, do = (torch.randn((t, h, d), generator=gen, device="cuda").to(torch.bfloat16)
                 for _ in range(2))
        if layout == "kv":  # k, v views of one [T_k, 2, H_kv, D] tensor
            pad = 64
            kv = torch.randn((t_k, 2, h_kv, d), generator=gen, device="cuda").to(torch.bfloat16)
            k, v = kv[:, 0], kv[:, 1]
        else:
            k, v = (torch.randn((t_k, h_kv, d), generator=gen, device="cuda")
                    .to(torch.bfloat16) for _ in range(2))
    if pad:
        dk_store = torch.full((t_k, h_kv * d + pad), 7.0, dtype=torch.bfloat16, device="cuda")
        dk_store[:, :h_kv * d] = float("nan")
        dk = dk_store[:, :h_kv * d].view(t_k, h_kv, d)
    else:
        dk = torch.full((t_k, h_kv, d), float("nan"), dtype=torch.bfloat16, device="cuda")
    dq = torch.full((t, h, d), float("nan"), dtype=torch.bfloat16, device="cuda")
    dv = torch.full((t_k, h_kv, d), float("nan"), dtype=torch.bfloat16, device="cuda")
    options = {}
    if window is not None:
        options["window"] = window
    if cross:
        options.update(offsets_k=offsets_k, max_seqlen_k=max(lengths_k) if lengths_k else 0)
    if gdpa:
        options["activation"] = activation
    blocks, skip = add_block_mask(options, gen, block_mask, t, t_k)
    if skip:
        res.report(True, f"{name}: {skip}")
        return
    label = (f"{name}: {activation + ' ' if gdpa else ''}"
             f"T={t} H={h}{f' H_kv={h_kv}' if h_kv != h else ''} D={d} "
             f"{'causal' if causal else 'full'}"
             f"{f' window={tuple(window)}' if window is not None else ''}"
             f"{f' block_mask={block_mask}' if block_mask is not None else ''}"
             f"{f' scale={scale}' if scale is not None else ''}"
             f"{f' layout={layout}' if layout != 'packed' else ''} {describe(lengths)}"
             f"{f' keys T_k={t_k} {describe(lengths_k)}' if cross else ''}")
    problems = []
    try:
        o, lse = jfa.jagged_attention(q, k, v, offsets, max_seqlen, causal=causal,
                                      softmax_scale=scale, **options)
        torch.cuda.synchronize()
        start = time.perf_counter()
        got = jfa.attention_backward(do, q, k, v, o, lse, offsets, max_seqlen, causal, scale,
                                     dq=dq, dk=dk, dv=dv, **options)
        torch.cuda.synchronize()
        elapsed = time.perf_counter() - start
    except Exception as e:  # noqa: BLE001 - reported as a failure
        res.report(False, f"{label}: {type(e).__name__}: {e}")
        return
    if any(g is not w for g, w in zip(got, (dq, dk, dv))):
        problems.append("did not return the given dq / dk / dv")
    if gdpa and lse is not None:
        problems.append(f"the forward returned an lse ({type(lse).__name__}); GDPA has none")
    if t == 0 and t_k == 0:
        res.report(not problems, f"{label}{': ' + '; '.join(problems) if problems else ''}")
        return
    for gname, g in zip(("dq", "dk", "dv"), (dq, dk, dv)):
        problems += not_finite_rows(gname, g)
    if pad and not (dk_store[:, h_kv * d:] == 7.0).all():
        problems.append("dk's padding between token rows was written")
    eff_scale = scale if scale is not None else 1.0 / math.sqrt(d)
    win = tuple(window) if window is not None else (-1, -1)
    if gdpa:
        refs, sees, seen, slacks = reference_grads_gdpa(q, k, v, do, offsets, causal, eff_scale,
                                                        activation, offsets_k, win, blocks)
    else:
        refs, sees, seen = reference_grads(q, k, v, do, offsets, causal, eff_scale, offsets_k,
                                           win, blocks)
    problems += nonzero_rows("dq", dq, ~sees, "queries that see no key")
    for gname, g in (("dk", dk), ("dv", dv)):
        problems += nonzero_rows(gname, g, ~seen, "keys that no query sees")
    texts = []
    for i, (gname, g, ref) in enumerate(zip(("dq", "dk", "dv"), (dq, dk, dv), refs)):
        if gdpa:
            _, text, probs = compare_gdpa(gname, g, ref, slacks[i])
        else:
            _, text, probs = compare(gname, g, ref)
        texts.append(text)
        problems += probs
    blind = int((~sees).sum())
    unseen = int((~seen).sum())
    counts = (f", {blind} queries see no key" if blind else "") + \
        (f", {unseen} keys unseen" if unseen else "")
    res.report(not problems, f"{label}: {', '.join(texts)}{counts}, {elapsed * 1e3:.1f} ms"
               f"{'; ' + '; '.join(problems) if problems else ''}")


def no_backward_cubins_check(res, f, kernels):
    """A kernel folder with the forward's cubins only: the backward raises a
    RuntimeError that says which are missing and how to get them. A handle
    of its own on that folder; the caller's handle and $JFA_KERNEL_DIR are
    restored after. f(**changes) is error_paths' call."""
    saved_handle, saved_available = _lib._handle, dict(_backward._available)
    saved_env = os.environ.get("JFA_KERNEL_DIR")
    with tempfile.TemporaryDirectory() as forward_only:
        # Absolute targets: JFA_KERNEL_DIR may be relative to the cwd.
        kernels = os.path.abspath(kernels)
        for name in os.listdir(kernels):
            if name.startswith("attention_fwd_"):
                os.symlink(os.path.join(kernels, name),
                           os.path.join(forward_only, name))
        os.environ["JFA_KERNEL_DIR"] = forward_only
        _lib._handle = None
        _backward._available.clear()
        try:
            expect_error(res, "no backward cubins", RuntimeError, f(),
                         "lacks attention_bwd_sm90_sm_90a.*.cubin",
                         "attention_bwd_schedule_sm_90a.cubin", "build-package.sh",
                         "JFA_KERNEL_DIR")
        finally:
            _lib._handle = saved_handle
            _backward._available.clear()
            _backward._available.update(saved_available)
            if saved_env is None:
                os.environ.pop("JFA_KERNEL_DIR", None)
            else:
                os.environ["JFA_KERNEL_DIR"] = saved_env


def error_paths(res):
    h, d = 2, 64
    lengths = [5, 0, 9]
    t = sum(lengths)
    q, k, v, do = (torch.randn((t, h, d), device="cuda").to(torch.bfloat16) for _ in range(4))
    offs = make_offsets(lengths)
    o, lse = jfa.jagged_attention(q, k, v, offs, 9)
    base = dict(do=do, q=q, k=k, v=v, o=o, lse=lse, offsets=offs, max_seqlen=9)

    def f(**changes):
        kw = dict(base, **changes)
        return lambda: jfa.attention_backward(**kw)

    bf = dict(dtype=torch.bfloat16, device="cuda")
    expect_error(res, "do fp32", TypeError, f(do=do.float()), "do", "bfloat16")
    expect_error(res, "o fp16", TypeError, f(o=o.half()), "o", "bfloat16")
    expect_error(res, "lse bf16", TypeError, f(lse=lse.bfloat16()), "lse", "float32")
    expect_error(res, "offsets int64", TypeError, f(offsets=offs.long()), "offsets", "int32")
    expect_error(res, "q not a tensor", TypeError, f(q=q.tolist()), "q")
    expect_error(res, "q on the CPU", ValueError, f(q=q.cpu()), "cuda")
    expect_error(res, "do on the CPU", ValueError, f(do=do.cpu()), "do", "device")
    expect_error(res, "lse on the CPU", ValueError, f(lse=lse.cpu()), "lse", "device")
    expect_error(res, "do shape", ValueError, f(do=do[:, :1]), "do", "shape")
    expect_error(res, "o shape", ValueError, f(o=o[:-1]), "o", "shape")
    expect_error(res, "lse [T, H]", ValueError, f(lse=lse.t()), "lse", "[H, T]")
    expect_error(res, "k shape", ValueError, f(k=k[:, :1]), "k", "shape")
    expect_error(res, "D = 96", ValueError,
                 f(q=torch.zeros((t, h, 96), **bf), k=torch.zeros((t, h, 96), **bf),
                   v=torch.zeros((t, h, 96), **bf), do=torch.zeros((t, h, 96), **bf),
                   o=torch.zeros((t, h, 96), **bf)), "96")
    expect_error(res, "offsets not ending at T", ValueError,
                 f(offsets=make_offsets([5, 0, 8])), "T = 14")
    expect_error(res, "offsets decreasing", ValueError,
                 f(offsets=torch.tensor([0, 6, 3, t], dtype=torch.int32, device="cuda"),
                   max_seqlen=11), "non-decreasing")
    expect_error(res, "max_seqlen too small", ValueError, f(max_seqlen=8), "max_seqlen")
    expect_error(res, "max_seqlen not an int", TypeError, f(max_seqlen=9.0), "max_seqlen")
    expect_error(res, "softmax_scale 0", ValueError, f(softmax_scale=0.0), "softmax_scale")
    expect_error(res, "dq fp32", TypeError, f(dq=torch.empty((t, h, d), device="cuda")),
                 "dq", "bfloat16")
    expect_error(res, "dk of the wrong shape", ValueError,
                 f(dk=torch.empty((t, h, d + 1), **bf)), "dk", "shape")
    expect_error(res, "dv on the CPU", ValueError,
                 f(dv=torch.empty((t, h, d), dtype=torch.bfloat16)), "dv", "device")
    # Over the kernel's int32 element offsets: T * H * D = 2^31 (zero-stride
    # views, nothing allocated).
    big_t, big_h, big_d = 1 << 17, 128, 128
    zq = torch.zeros((1, 1, big_d), **bf).expand(big_t, big_h, big_d)
    expect_error(res, "T * H * D over int32", ValueError,
                 f(q=zq, k=zq, v=zq, do=zq, o=zq,
                   lse=torch.zeros((1, 1), device="cuda").expand(big_h, big_t),
                   offsets=make_offsets([big_t]), max_seqlen=big_t), "T * H * D", "int32")
    # Another device kind (pretended): NotImplementedError.
    saved = _backward._device_capability
    _backward._device_capability = lambda torch_, device: (8, 0)
    try:
        expect_error(res, "not sm_90a or sm_100a", NotImplementedError, f(),
                     "sm_90a and sm_100a", "8.0")
    finally:
        _backward._device_capability = saved
    # No backward cubins in the kernel folder. With the kernels embedded in
    # libjfart.so (no kernel folder) there are no forward cubins to take: the
    # check needs a package with its folder.
    kernels = _lib.kernel_dir()
    if kernels is None:
        print("skipped: error path no backward cubins (the kernels are embedded in "
              "libjfart.so; it needs a package's kernel folder or $JFA_KERNEL_DIR)")
    else:
        no_backward_cubins_check(res, f, kernels)
    # Nothing above may have broken anything: a good call still works.
    run_case(res, "after the error paths", lengths, h, d, True)


def schedule_check(res, rng):
    """The work list attention_bwd_schedule builds on the device (no host
    synchronisation), launched alone through jfa.load and read back, is the
    pure-Python reference's entry for entry, for empty, short, long and
    tied sequences and batches over one CTA."""
    # The kernel alone, from the package's kernel folder, or with the kernels
    # embedded in libjfart.so from $JFA_TEST_CUBINS (a folder holding
    # attention_bwd_schedule_sm_90a.cubin and its .meta).
    folder = _lib.kernel_dir() or os.environ.get("JFA_TEST_CUBINS")
    if folder is None:
        print("skipped: schedule on the device (the kernels are embedded in libjfart.so; "
              "set $JFA_TEST_CUBINS to a folder holding attention_bwd_schedule_sm_90a.cubin)")
        return
    cubin = os.path.join(folder, "attention_bwd_schedule_sm_90a.cubin")
    kernel = jfa.load(cubin).attention_bwd_schedule
    batches = [[0], [1], [128, 129, 0, 256], [300, 300, 5], [0, 0, 0]]
    batches += [random_lengths(rng, rng.randint(1, 300), 0, 3000) for _ in range(4)]
    for lengths in batches:
        offsets = make_offsets(lengths)
        # Tiles from each sequence's start, and on the block grid (a
        # block-sparse forward's: a sequence may span one tile more).
        # And in 192-row tiles (the sm_90a D = 64 forward's q tiles).
        for aligned, rows in ((0, 128), (1, 128), (0, 192)):
            k_tiles = max(1, -(-(max(lengths) + 127 * aligned) // rows))
            want = _schedule.schedule_list(lengths, k_tiles, block_aligned=bool(aligned),
                                           tile_rows=rows)
            out = torch.full((len(want),), -7, dtype=torch.int32, device="cuda")
            kernel(-(-len(lengths) // 128), offsets, out, len(lengths), k_tiles, aligned, rows)
            got = out.tolist()
            res.report(got == want, f"schedule on the device{', block-aligned' if aligned else ''}"
                       f"{', 192-row tiles' if rows == 192 else ''}, "
                       f"{len(lengths)} sequences (max {max(lengths)}): {got[:6]}... == the reference")


def check_grads(res, label, pairs):
    """pairs: (name, got, ref) or, for GDPA, (name, got, ref, slack)
    (compare_gdpa's bound); one report line."""
    problems, texts = [], []
    for name, got, ref, *slack in pairs:
        if got is None:
            problems.append(f"{name} is None")
            continue
        problems += not_finite_rows(name, got)
        if slack:
            _, text, probs = compare_gdpa(name, got, ref, slack[0])
        else:
            _, text, probs = compare(name, got, ref)
        texts.append(text)
        problems += probs
    res.report(not problems, f"{label}: {', '.join(texts)}"
               f"{'; ' + '; '.join(problems) if problems else ''}")


def autograd_check(res, gen):
    """jagged_attention with requires_grad inputs, loss.backward()."""
    lengths = [37, 0, 200, 129, 1, 64]
    h, d, causal = 4, 128, True
    t = sum(lengths)
    offsets = make_offsets(lengths)
    scale = 1.0 / math.sqrt(d)
    # q, k, v as views of one [T, 3, H, D] leaf: the gradients meet in qkv.grad.
    qkv = torch.randn((t, 3, h, d), generator=gen, device="cuda").to(torch.bfloat16)
    qkv.requires_grad_()
    w = torch.randn((t, h, d), generator=gen, device="cuda")
    try:
        q, k, v = qkv.unbind(1)
        o, lse = jfa.jagged_attention(q, k, v, offsets, max(lengths), causal=causal)
        flags = (o.requires_grad, lse.requires_grad, o.grad_fn is not None)
        # lse in the loss too: it is non-differentiable, so it adds no gradient.
        loss = (o.float() * w).sum() + 0.5 * lse.sum()
        loss.backward()
    except Exception as e:  # noqa: BLE001
        res.report(False, f"autograd: {type(e).__name__}: {e}")
        return
    res.report(flags == (True, False, True),
               f"autograd: o.requires_grad {flags[0]}, lse.requires_grad {flags[1]} "
               f"(want True, False), o.grad_fn {type(o.grad_fn).__name__}")
    do = w.to(torch.bfloat16)  # what o.float()'s backward hands to o
    qd, kd, vd = (x.detach() for x in qkv.unbind(1))
    refs, _, _ = reference_grads(qd, kd, vd, do, offsets, causal, scale)
    g = qkv.grad
    check_grads(res, f"autograd vs fp32 reference: T={t} H={h} D={d} causal "
                f"{describe(lengths)}",
                [(n, g[:, i], r) for i, (n, r) in enumerate(zip(("dq", "dk", "dv"), refs))])
    direct = jfa.attention_backward(do, qd, kd, vd, o.detach(), lse, offsets, max(lengths),
                                    causal)
    check_grads(res, "autograd vs jfa.attention_backward",
                [(n, g[:, i], x.float()) for i, (n, x) in enumerate(zip(("dq", "dk", "dv"),
                                                                         direct))])
    # Only v requires grad: q.grad and k.grad stay None.
    qs, ks = qd.clone(), kd.clone()
    vs = vd.clone().requires_grad_()
    try:
        o2, _ = jfa.jagged_attention(qs, ks, vs, offsets, max(lengths), causal=causal)
        (o2.float() * w).sum().backward()
        check_grads(res, "autograd, only v requires grad", [("dv", vs.grad, refs[2])])
        res.report(qs.grad is None and ks.grad is None,
                   "autograd, only v requires grad: q.grad and k.grad stay None")
    except Exception as e:  # noqa: BLE001
        res.report(False, f"autograd, only v requires grad: {type(e).__name__}: {e}")
    # Under no_grad the plain path: no graph.
    with torch.no_grad():
        o3, _ = jfa.jagged_attention(qkv[:, 0], qkv[:, 1], qkv[:, 2], offsets, max(lengths),
                                     causal=causal)
    res.report(o3.grad_fn is None and not o3.requires_grad,
               f"no_grad: o.requires_grad {o3.requires_grad} (want False)")


def compile_check(res, gen):
    """A small function calling jagged_attention under torch.compile(fullgraph=False)."""
    lengths = [100, 0, 257, 1, 64]
    h, d = 2, 64
    t = sum(lengths)
    offsets = make_offsets(lengths)
    max_seqlen = max(lengths)
    q, k, v = (torch.randn((t, h, d), generator=gen, device="cuda").to(torch.bfloat16)
               for _ in range(3))
    w = torch.randn((t, h), generator=gen, device="cuda")

    def f(q, k, v, offsets, max_seqlen):
        o, lse = jfa.jagged_attention(q, k, v, offsets, max_seqlen, causal=True,
                                      check_offsets=False)
        return (o.float().sum(dim=-1) * w).sum(), o, lse * 1.0

    pass  # torch._dynamo is imported at the top (a local import would shadow torch)
    try:
        torch._dynamo.reset()
        cf = torch.compile(f, fullgraph=False, dynamic=False)
        start = time.perf_counter()
        _, o_c, lse_c = cf(q, k, v, offsets, max_seqlen)
        torch.cuda.synchronize()
        elapsed = time.perf_counter() - start
        _, o_e, lse_e = f(q, k, v, offsets, max_seqlen)
        o_diff = (o_c.float() - o_e.float()).abs().max().item()
        lse_diff = (lse_c - lse_e).abs().max().item()
        ok = o_diff <= 1e-2 and lse_diff <= 1e-4
        res.report(ok, f"torch.compile forward: o max abs diff {o_diff:.2e} (<= 1e-2), lse "
                   f"{lse_diff:.2e} (<= 1e-4) vs eager; compiled + first call {elapsed:.1f} s")
        grads = []
        for fn in (cf, f):
            xs = [x.clone().requires_grad_() for x in (q, k, v)]
            loss, _, _ = fn(*xs, offsets, max_seqlen)
            loss.backward()
            grads.append([x.grad for x in xs])
        check_grads(res, "torch.compile backward vs eager",
                    [(n, gc, ge.float()) for n, gc, ge in zip(("dq", "dk", "dv"), *grads)])
    except Exception as e:  # noqa: BLE001
        res.report(False, f"torch.compile: {type(e).__name__}: {e}")
        return
    # Informational: whether the whole function makes one graph.
    try:
        torch._dynamo.reset()
        torch.compile(f, fullgraph=True, dynamic=False)(q, k, v, offsets, max_seqlen)
        print("info torch.compile(fullgraph=True) traces jagged_attention without a graph break")
    except Exception as e:  # noqa: BLE001
        print(f"info torch.compile(fullgraph=True) does not: {type(e).__name__}: "
              f"{str(e).strip().splitlines()[0] if str(e).strip() else ''}")


# --- issue 20's variants ----------------------------------------------------

def variant_cases(case, rng, quick):
    """Windows, GQA, cross-attention and their combinations, as the forward's
    (attention_test.py) and jfa-interp's (test/interp/kernels.py) cases."""
    boundary = [0, 1, 63, 64, 65, 127, 128, 129, 700]
    windows = (((0, 0), False), ((-1, 0), False), ((64, -1), False), ((300, 5), False),
               ((100, 0), True), ((100, -1), True), ((127, 129), False), ((5, 3), False),
               ((0, -1), False), ((2**40, 2**40), False))
    for window, causal in windows:
        for d in (64, 128) if not quick else (128,):
            case("window", boundary, 2, d, causal, window=window)
    case("window, scale 0.3", [300, 17, 64, 0, 129], 4, 64, False, scale=0.3, window=(32, 32))
    case("window on a long sequence", [16500], 2, 128, True, window=(256, 0))
    if not quick:
        case("window on a long sequence", [3, 16500, 0, 129], 1, 64, False,
             window=(1000, 1000))
    # Grouped-query / multi-query attention: dk, dv summed over each group.
    for h_kv in (1, 2):
        for d in (64, 128):
            for causal in (False, True):
                case("GQA", boundary, 4, d, causal, h_kv=h_kv)
    case("GQA, k and v views of one tensor, padded dk", [250, 1, 0, 128, 77], 8, 128, True,
         h_kv=2, layout="kv")
    case("MQA, many heads", random_lengths(rng, 6, 1, 600), 16, 64, True, h_kv=1)
    # Cross-attention: other key lengths, 0 keys, 0 queries, bottom-right causal.
    lq = [5, 0, 130, 64, 1, 200, 0, 77, 129, 300]
    lk = [9, 4, 0, 64, 300, 129, 0, 1, 128, 700]
    for d in (64, 128):
        for causal in (False, True):
            case("cross", lq, 2, d, causal, lengths_k=lk)
    for causal in (False, True):
        case("cross, no keys at all (dq = 0, no kernel)", [5, 0, 130], 2, 64, causal,
             lengths_k=[0, 0, 0])
    case("cross, no queries (dk = dv = 0, no kernel)", [0, 0], 2, 64, True,
         lengths_k=[50, 7])
    case("cross, no queries, GQA", [0], 4, 128, False, h_kv=2, lengths_k=[300])
    case("cross, equal lengths", boundary, 2, 128, True, lengths_k=boundary)
    case("cross, fewer keys (causal: the first queries see none)", [300, 129, 64], 2, 128,
         True, lengths_k=[100, 1, 0])
    case("cross, more keys under causal (the first keys' tiles)", [3, 64], 2, 64, True,
         lengths_k=[400, 129])
    case("cross, long keys", [128, 3], 2, 128, True, lengths_k=[16500, 5000])
    # Combinations.
    case("window + GQA", boundary, 8, 128, True, h_kv=2, window=(128, 0))
    case("window + GQA", boundary, 8, 64, False, h_kv=2, window=(50, 50))
    case("cross + GQA + causal", lq, 4, 128, True, h_kv=1, lengths_k=lk)
    case("cross + GQA + causal, k and v views", lq, 4, 64, True, h_kv=2, lengths_k=lk,
         layout="kv")
    case("cross + window", lq, 2, 64, False, lengths_k=lk, window=(32, 8))
    case("cross + GQA + window + causal", lq, 4, 128, True, h_kv=2, lengths_k=lk,
         window=(100, 0))
    case("cross + window, some queries see no key", [300, 129], 2, 128, False,
         lengths_k=[50, 300], window=(10, 10))
    for i in range(4 if quick else 16):
        d = rng.choice((64, 128))
        h = rng.choice((1, 2, 4, 8))
        h_kv = rng.choice([x for x in (1, 2, 4, 8) if h % x == 0])
        causal = rng.random() < 0.5
        left = rng.choice((-1, 0, 17, 128, 500))
        right = 0 if causal else rng.choice((-1, 0, 5, 200))
        window = rng.choice((None, (left, right)))
        b = rng.randint(1, 30)
        hi = rng.choice((16, 130, 700))
        lengths = random_lengths(rng, b, 1, hi)
        lengths_k = random_lengths(rng, b, 1, hi) if rng.random() < 0.5 else None
        case(f"random variant {i}", lengths, h, d, causal, h_kv=h_kv, window=window,
             lengths_k=lengths_k, scale=rng.choice((None, 0.3)))
    block_sparse_cases(case, rng, quick)


def block_sparse_cases(case, rng, quick):
    """Block-sparse (block_mask) gradients: the forward test's cases
    (test/gpu/attention_test.py): each form of the mask, shared or per q
    head (a unit's q heads then walk different q tiles), with GQA (split
    and not), a window, cross-attention; empty and full masks."""
    boundary = [0, 1, 63, 64, 65, 127, 128, 129, 300]
    for form in ("bool", "lists", "flex"):
        for d in (64, 128):
            case(f"block-sparse ({form})", boundary, 2, d, False, block_mask=(1, 0.5, form))
            case(f"block-sparse per head ({form})", boundary, 4, d, True,
                 block_mask=(4, 0.5, form))
    case("block-sparse, empty", [130, 7, 300], 2, 64, False, block_mask=(1, 0.0, "bool"))
    case("block-sparse, full", [130, 7, 300], 2, 128, True, block_mask=(1, 1.0, "bool"))
    case("block-sparse + MQA (split)", boundary, 8, 64, True, h_kv=1,
         block_mask=(8, 0.5, "lists"))
    case("block-sparse + GQA + window", boundary, 8, 128, True, h_kv=2, window=(200, 0),
         block_mask=(8, 0.6, "lists"))
    case("block-sparse + cross", [0, 5, 130, 64, 3, 0], 2, 64, False,
         lengths_k=[4, 0, 70, 300, 1, 0], block_mask=(1, 0.4, "lists"))
    case("block-sparse, a long sequence", [16500], 2, 128, True, block_mask=(2, 0.1, "bool"))
    # The tiles lie on the mask's grid (a sequence's first tile starts at the
    # block holding its first token): the longest sequence first, so a unit
    # that wrote below its row floor would overwrite rows already written;
    # cross-attention under causal and a window, query and key floors apart.
    case("block-sparse, longest first", [450, 300, 129, 65, 200, 1, 64, 0, 3], 2, 64, False,
         block_mask=(1, 0.7, "bool"))
    case("block-sparse + cross, causal and a window", [70, 0, 300, 5, 190, 129], 2, 64, True,
         lengths_k=[3, 40, 260, 77, 0, 400], window=(150, -1), block_mask=(2, 0.6, "lists"))
    for act in ("silu", "gelu_tanh"):
        case("block-sparse GDPA", boundary, 4, 64, True, activation=act,
             block_mask=(4, 0.5, "lists"))
        case("block-sparse GDPA + GQA + cross", [0, 5, 130, 64, 3, 0], 4, 128, False, h_kv=2,
             activation=act, lengths_k=[4, 0, 70, 300, 1, 0], block_mask=(1, 0.4, "bool"))
    for i in range(2 if quick else 8):
        d = rng.choice((64, 128))
        h = rng.choice((1, 2, 4))
        lengths = random_lengths(rng, rng.randint(1, 30), 1, rng.choice((130, 700, 2100)))
        case(f"random block-sparse {i}", lengths, h, d, rng.random() < 0.5,
             block_mask=(rng.choice((1, h)), rng.choice((0.05, 0.3, 0.7)),
                         rng.choice(("bool", "lists"))))


def plain_equivalences(res, gen):
    """A window of (-1, -1) and causal's own (-1, 0) run the plain backward:
    dk and dv bit for bit the plain call's (dq's atomic adds may differ in
    the last bits: within 1e-2)."""
    lengths = [0, 1, 63, 129, 300]
    t, h, d = sum(lengths), 4, 128
    q, k, v, do = (torch.randn((t, h, d), generator=gen, device="cuda").to(torch.bfloat16)
                   for _ in range(4))
    offs = make_offsets(lengths)
    for causal, window in ((False, (-1, -1)), (True, (-1, -1)), (True, (-1, 0))):
        o, lse = jfa.jagged_attention(q, k, v, offs, 300, causal=causal)
        plain = jfa.attention_backward(do, q, k, v, o, lse, offs, 300, causal)
        windowed = jfa.attention_backward(do, q, k, v, o, lse, offs, 300, causal, window=window)
        dq_diff = ((plain[0].float() - windowed[0].float()).abs().max() /
                   plain[0].float().abs().max()).item()
        same = torch.equal(plain[1], windowed[1]) and torch.equal(plain[2], windowed[2])
        res.report(same and dq_diff <= 1e-2,
                   f"backward with window={window} {'causal' if causal else 'full'} is the "
                   f"plain backward: dk, dv bit for bit {same}, dq max rel diff {dq_diff:.1e}")
    # The general variant on a plain problem (cross-attention with offsets_k
    # = offsets) agrees with the plain variant within the bounds.
    o, lse = jfa.jagged_attention(q, k, v, offs, 300, causal=True)
    plain = jfa.attention_backward(do, q, k, v, o, lse, offs, 300, True)
    general = jfa.attention_backward(do, q, k, v, o, lse, offs, 300, True, offsets_k=offs,
                                     max_seqlen_k=300)
    check_grads(res, "general variant (offsets_k = offsets) vs the plain backward",
                [(n, g, p.float()) for n, g, p in zip(("dq", "dk", "dv"), general, plain)])


def variant_autograd_check(res, gen):
    """jagged_attention with the options and requires_grad inputs: eager
    autograd and torch.compile give the reference's gradients and
    attention_backward's (k.grad and v.grad of k's shape)."""
    lengths, lengths_k = [37, 0, 200, 129, 1, 64], [50, 3, 0, 300, 20, 64]
    h, h_kv, d, causal, window = 4, 2, 128, True, (64, 0)
    t, t_k = sum(lengths), sum(lengths_k)
    offsets, offsets_k = make_offsets(lengths), make_offsets(lengths_k)
    scale = 1.0 / math.sqrt(d)
    q = torch.randn((t, h, d), generator=gen, device="cuda").to(torch.bfloat16)
    k, v = (torch.randn((t_k, h_kv, d), generator=gen, device="cuda").to(torch.bfloat16)
            for _ in range(2))
    w = torch.randn((t, h, d), generator=gen, device="cuda")
    opts = dict(window=window, offsets_k=offsets_k, max_seqlen_k=max(lengths_k))
    label = (f"T={t} H={h} H_kv={h_kv} D={d} causal window={window} "
             f"{describe(lengths)} keys {describe(lengths_k)}")

    def f(q, k, v, offsets, offsets_k):
        o, lse = jfa.jagged_attention(q, k, v, offsets, max(lengths), causal=causal,
                                      check_offsets=False, window=window, offsets_k=offsets_k,
                                      max_seqlen_k=max(lengths_k))
        return (o.float() * w).sum(), o, lse

    refs, _, _ = reference_grads(q, k, v, w.to(torch.bfloat16), offsets, causal, scale,
                                 offsets_k, window)
    grads = {}
    for kind in ("eager", "torch.compile"):
        try:
            fn = f
            if kind == "torch.compile":
                torch._dynamo.reset()
                fn = torch.compile(f, fullgraph=False, dynamic=False)
            xs = [x.clone().requires_grad_() for x in (q, k, v)]
            loss, o, lse = fn(*xs, offsets, offsets_k)
            loss.backward()
            grads[kind] = [x.grad for x in xs]
        except Exception as e:  # noqa: BLE001
            res.report(False, f"autograd with the options ({kind}): {type(e).__name__}: {e}")
            continue
        shapes_ok = [tuple(g.shape) for g in grads[kind]] == [(t, h, d), (t_k, h_kv, d),
                                                              (t_k, h_kv, d)]
        res.report(shapes_ok, f"autograd with the options ({kind}): q.grad, k.grad, v.grad "
                   f"shapes {[list(g.shape) for g in grads[kind]]}")
        check_grads(res, f"autograd with the options ({kind}) vs fp32 reference: {label}",
                    [(n, g, r) for n, g, r in zip(("dq", "dk", "dv"), grads[kind], refs)])
        if kind == "eager":
            direct = jfa.attention_backward(w.to(torch.bfloat16), q, k, v, o.detach(), lse,
                                            offsets, max(lengths), causal, **opts)
            check_grads(res, "autograd with the options vs jfa.attention_backward",
                        [(n, g, x.float()) for n, g, x in zip(("dq", "dk", "dv"),
                                                              grads[kind], direct)])


def variant_error_paths(res):
    """attention_backward's errors for the options (the runtime's own are
    tested on the CPU: test/runtime/AttentionBackwardTest.cpp)."""
    h, h_kv, d = 4, 2, 64
    lengths, lengths_k = [5, 0, 9], [3, 8, 0]
    t, t_k = sum(lengths), sum(lengths_k)
    q, do = (torch.randn((t, h, d), device="cuda").to(torch.bfloat16) for _ in range(2))
    k, v = (torch.randn((t_k, h_kv, d), device="cuda").to(torch.bfloat16) for _ in range(2))
    offs, offs_k = make_offsets(lengths), make_offsets(lengths_k)
    o, lse = jfa.jagged_attention(q, k, v, offs, 9, offsets_k=offs_k, max_seqlen_k=8)
    base = dict(do=do, q=q, k=k, v=v, o=o, lse=lse, offsets=offs, max_seqlen=9,
                offsets_k=offs_k, max_seqlen_k=8)

    def f(**changes):
        kw = dict(base, **changes)
        return lambda: jfa.attention_backward(**kw)

    bf = dict(dtype=torch.bfloat16, device="cuda")
    expect_error(res, "dk of q's shape under GQA", ValueError,
                 f(dk=torch.empty((t, h, d), **bf)), "dk must have the shape of k")
    expect_error(res, "dq of k's shape", ValueError, f(dq=torch.empty((t_k, h_kv, d), **bf)),
                 "dq must have the shape of q")
    expect_error(res, "H not a multiple of H_kv", ValueError,
                 f(k=torch.zeros((t_k, 3, d), **bf), v=torch.zeros((t_k, 3, d), **bf)),
                 "H_kv = 3", "multiple")
    expect_error(res, "other key tokens without offsets_k", ValueError,
                 f(offsets_k=None, max_seqlen_k=None), "offsets_k", "self-attention")
    expect_error(res, "offsets_k without max_seqlen_k", ValueError, f(max_seqlen_k=None),
                 "max_seqlen_k", "required")
    expect_error(res, "offsets_k int64", TypeError, f(offsets_k=offs_k.long()), "offsets_k",
                 "int32")
    expect_error(res, "offsets_k on the CPU", ValueError, f(offsets_k=offs_k.cpu()),
                 "offsets_k", "device")
    expect_error(res, "offsets_k not ending at T_k", ValueError,
                 f(offsets_k=make_offsets([3, 7, 0])), "offsets_k", "T_k = 11")
    expect_error(res, "max_seqlen_k too small", ValueError, f(max_seqlen_k=7), "max_seqlen_k",
                 "8 keys")
    expect_error(res, "causal with window right > 0", ValueError,
                 f(causal=True, window=(10, 5)), "causal", "window")
    expect_error(res, "window left -2", ValueError, f(window=(-2, 0)), "window[0]", "-2")
    # dk on the memory of offsets_k (one buffer seen as both).
    buf = torch.zeros((t_k * h_kv * d,), **bf)
    offs_k_alias = buf.view(torch.int32)[:len(lengths_k) + 1]
    offs_k_alias.copy_(offs_k)
    expect_error(res, "dk over offsets_k", ValueError,
                 f(offsets_k=offs_k_alias, dk=buf.view(t_k, h_kv, d)),
                 "dk overlaps the input offsets_k")
    # GDPA: no lse (None in, as the forward returns it), the activation named.
    o_g, lse_g = jfa.jagged_attention(q, k, v, offs, 9, offsets_k=offs_k, max_seqlen_k=8,
                                      activation="silu")
    res.report(lse_g is None, f"silu forward: lse {lse_g!r} (want None)")
    gdpa = dict(base, o=o_g, lse=None, activation="silu")

    def g(**changes):
        kw = dict(gdpa, **changes)
        return lambda: jfa.attention_backward(**kw)

    expect_error(res, "GDPA backward given an lse", ValueError, g(lse=lse), "lse must be None",
                 "activation='silu'")
    expect_error(res, "softmax backward without lse", TypeError, f(lse=None), "lse",
                 "got None", "GDPA")
    expect_error(res, "activation relu", ValueError, g(activation="relu"), "activation='relu'",
                 "'silu'", "'gelu_tanh'")
    expect_error(res, "activation not a str", TypeError, g(activation=1), "activation", "str")
    expect_error(res, "GDPA backward, dk of q's shape", ValueError,
                 g(dk=torch.empty((t, h, d), **bf)), "dk must have the shape of k")
    # Nothing above may have broken anything: a good call still works.
    run_case(res, "after the variants' error paths", lengths, h, d, True, h_kv=h_kv,
             lengths_k=lengths_k, window=(2, -1))
    run_case(res, "after the variants' error paths", lengths, h, d, True, h_kv=h_kv,
             lengths_k=lengths_k, window=(2, -1), activation="gelu_tanh")


def variant_cuda_graph_check(res, gen, activation="softmax"):
    """Forward and backward with all three options (and `activation`)
    captured in one CUDA graph (the offsets' host checks are skipped under
    capture), replayed on new data: as eager calls on that data."""
    lengths, lengths_k, h, h_kv, d = [37, 0, 128, 200, 1], [60, 5, 0, 300, 1], 4, 2, 64
    t, t_k = sum(lengths), sum(lengths_k)
    offs, offs_k = make_offsets(lengths), make_offsets(lengths_k)
    q, do = (torch.randn((t, h, d), device="cuda", generator=gen).to(torch.bfloat16)
             for _ in range(2))
    k, v = (torch.randn((t_k, h_kv, d), device="cuda", generator=gen).to(torch.bfloat16)
            for _ in range(2))
    opts = dict(window=(32, 0), offsets_k=offs_k, max_seqlen_k=300, activation=activation)

    def step():
        o, lse = jfa.jagged_attention(q, k, v, offs, 200, causal=True, **opts)
        grads = jfa.attention_backward(do, q, k, v, o, lse, offs, 200, True, **opts)
        return (o,) + ((lse,) if lse is not None else ()) + grads  # GDPA: no lse

    name = (f"CUDA graph, forward and backward with window, GQA and cross-attention"
            f"{f', {activation}' if activation != 'softmax' else ''}")
    try:
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            step()
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            captured = step()
        for x in (q, k, v, do):
            x.copy_(torch.randn(x.shape, device="cuda", generator=gen).to(torch.bfloat16))
        graph.replay()
        torch.cuda.synchronize()
        eager = step()
        torch.cuda.synchronize()
        worst = 0.0
        for a, b in zip(captured, eager):
            a, b = a.float(), b.float()
            fin = torch.isfinite(b)  # lse = -inf where a query sees no key
            if not torch.equal(fin, torch.isfinite(a)):
                worst = float("inf")
                break
            worst = max(worst, float((a[fin] - b[fin]).abs().max() /
                                     b[fin].abs().max().clamp_min(1e-6)))
        res.report(worst <= 1e-2, f"{name}: replay on new data vs eager, worst max rel "
                                  f"error {worst:.2e}")
    except Exception as e:  # noqa: BLE001
        res.report(False, f"{name}: {type(e).__name__}: {e}")


def gdpa_cases(case, rng, quick):
    """GDPA (silu, gelu_tanh), alone and with the options: the jfa-interp
    cases' shapes (test/interp/kernels.py) and the edges of the variants."""
    boundary = [0, 1, 63, 64, 65, 127, 128, 129, 700]
    lq = [5, 0, 130, 64, 1, 200, 0, 77, 129, 300]
    lk = [9, 4, 0, 64, 300, 129, 0, 1, 128, 700]
    for act in ("silu", "gelu_tanh"):
        for d in (64, 128):
            for causal in (False, True):
                case("GDPA", boundary, 2, d, causal, activation=act,
                     scale=0.3 if d == 64 else None)
        case("GDPA, window", boundary, 2, 128, False, window=(40, 7), activation=act)
        case("GDPA, window + causal", boundary, 2, 64, True, window=(130, 0), activation=act)
        case("GDPA, window of one key", [3, 129], 2, 128, False, window=(0, 0), activation=act)
        case("GDPA, GQA", boundary, 4, 64, True, h_kv=2, activation=act)
        case("GDPA, MQA + window", [200, 7, 130], 3, 128, False, h_kv=1, window=(64, 64),
             activation=act)
        case("GDPA, cross", lq, 2, 64, False, lengths_k=lk, activation=act)
        case("GDPA, cross + causal (the first queries see none)", [300, 129, 64], 2, 128, True,
             lengths_k=[100, 1, 0], activation=act)
        case("GDPA, cross + GQA + window + causal", lq, 4, 128, True, h_kv=2, lengths_k=lk,
             window=(100, 0), activation=act)
        case("GDPA, cross, no keys at all (dq = 0, no kernel)", [5, 0, 130], 2, 64, True,
             lengths_k=[0, 0, 0], activation=act)
        case("GDPA, cross, no queries (dk = dv = 0, no kernel)", [0, 0], 2, 64, False,
             lengths_k=[50, 7], activation=act)
        case("GDPA, qkv views, padded do and dk", [250, 1, 0, 128, 77], 8, 128, True,
             layout="qkv", activation=act)
        case("GDPA, k and v views, padded dk", [250, 1, 0, 128, 77], 8, 64, False, h_kv=2,
             layout="kv", activation=act)
        case("GDPA, a long sequence", [16500], 2, 128, True, window=(256, 0), activation=act)
        if not quick:
            case("GDPA, a long sequence", [3, 5000, 0, 129], 1, 64, False, activation=act)
            case("GDPA, 1200 sequences", random_lengths(rng, 1200, 1, 200, p_empty=0.05), 4,
                 128, True, activation=act)
    for i in range(2 if quick else 8):
        d = rng.choice((64, 128))
        h = rng.choice((1, 2, 4, 8))
        h_kv = rng.choice([x for x in (1, 2, 4, 8) if h % x == 0])
        causal = rng.random() < 0.5
        left = rng.choice((-1, 0, 17, 128, 500))
        right = 0 if causal else rng.choice((-1, 0, 5, 200))
        b = rng.randint(1, 30)
        hi = rng.choice((16, 130, 700))
        lengths = random_lengths(rng, b, 1, hi)
        lengths_k = random_lengths(rng, b, 1, hi) if rng.random() < 0.5 else None
        case(f"random GDPA {i}", lengths, h, d, causal, h_kv=h_kv,
             window=rng.choice((None, (left, right))), lengths_k=lengths_k,
             scale=rng.choice((None, 0.3)), activation=rng.choice(("silu", "gelu_tanh")))


def gdpa_autograd_check(res, gen):
    """jagged_attention with a GDPA activation (and the options) and
    requires_grad inputs: lse is None; eager autograd and torch.compile give
    the reference's gradients (compare_gdpa's bound) and attention_backward's
    (lse=None)."""
    lengths, lengths_k = [37, 0, 200, 129, 1, 64], [50, 3, 0, 300, 20, 64]
    h, h_kv, d, causal, window = 4, 2, 128, True, (64, 0)
    t, t_k = sum(lengths), sum(lengths_k)
    offsets, offsets_k = make_offsets(lengths), make_offsets(lengths_k)
    scale = 1.0 / math.sqrt(d)
    q = torch.randn((t, h, d), generator=gen, device="cuda").to(torch.bfloat16)
    k, v = (torch.randn((t_k, h_kv, d), generator=gen, device="cuda").to(torch.bfloat16)
            for _ in range(2))
    w = torch.randn((t, h, d), generator=gen, device="cuda")
    for act in ("silu", "gelu_tanh"):
        opts = dict(window=window, offsets_k=offsets_k, max_seqlen_k=max(lengths_k),
                    activation=act)
        label = (f"{act}, T={t} H={h} H_kv={h_kv} D={d} causal window={window} "
                 f"{describe(lengths)} keys {describe(lengths_k)}")

        def f(q, k, v, offsets, offsets_k, act=act):
            o, lse = jfa.jagged_attention(q, k, v, offsets, max(lengths), causal=causal,
                                          check_offsets=False, window=window,
                                          offsets_k=offsets_k, max_seqlen_k=max(lengths_k),
                                          activation=act)
            return (o.float() * w).sum(), o, lse

        refs, _, _, slacks = reference_grads_gdpa(q, k, v, w.to(torch.bfloat16), offsets,
                                                  causal, scale, act, offsets_k, window)
        for kind in ("eager", "torch.compile"):
            try:
                fn = f
                if kind == "torch.compile":
                    torch._dynamo.reset()
                    fn = torch.compile(f, fullgraph=False, dynamic=False)
                xs = [x.clone().requires_grad_() for x in (q, k, v)]
                loss, o, lse = fn(*xs, offsets, offsets_k)
                loss.backward()
                grads = [x.grad for x in xs]
            except Exception as e:  # noqa: BLE001
                res.report(False, f"GDPA autograd ({kind}, {act}): {type(e).__name__}: {e}")
                continue
            res.report(lse is None and o.requires_grad,
                       f"GDPA autograd ({kind}, {act}): lse {lse!r} (want None), "
                       f"o.requires_grad {o.requires_grad}")
            check_grads(res, f"GDPA autograd ({kind}) vs fp32 reference: {label}",
                        [(n, g, r, sl) for n, g, r, sl in zip(("dq", "dk", "dv"), grads, refs,
                                                              slacks)])
            if kind == "eager":
                direct = jfa.attention_backward(w.to(torch.bfloat16), q, k, v, o.detach(), None,
                                                offsets, max(lengths), causal, **opts)
                check_grads(res, f"GDPA autograd ({act}) vs jfa.attention_backward",
                            [(n, g, x.float()) for n, g, x in zip(("dq", "dk", "dv"), grads,
                                                                  direct)])


# --- the training demo -------------------------------------------------------

def reference_attention(q, k, v, offsets_list, causal, scale):
    """Differentiable fp32 attention per sequence on bf16 [T, H, D]; bf16 out."""
    outs = []
    for b in range(len(offsets_list) - 1):
        s, e = offsets_list[b], offsets_list[b + 1]
        n = e - s
        if n == 0:
            continue
        qs, ks, vs = (x[s:e].float().transpose(0, 1) for x in (q, k, v))
        scores = torch.matmul(qs, ks.transpose(1, 2)) * scale
        if causal:
            mask = torch.ones((n, n), dtype=torch.bool, device=q.device).triu_(1)
            scores = scores.masked_fill(mask, float("-inf"))
        outs.append(torch.matmul(torch.softmax(scores, dim=-1), vs).transpose(0, 1))
    if not outs:
        return q.new_zeros(q.shape)
    return torch.cat(outs).to(torch.bfloat16)


class Block(torch.nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.ln1 = torch.nn.LayerNorm(dim)
        self.qkv = torch.nn.Linear(dim, 3 * dim)
        self.proj = torch.nn.Linear(dim, dim)
        self.ln2 = torch.nn.LayerNorm(dim)
        self.fc1 = torch.nn.Linear(dim, 4 * dim)
        self.fc2 = torch.nn.Linear(4 * dim, dim)

    def forward(self, x, attn):
        t = x.shape[0]
        qkv = self.qkv(self.ln1(x)).view(t, 3, self.heads, self.head_dim).to(torch.bfloat16)
        q, k, v = qkv.unbind(1)  # bf16 [T, H, D] views (token stride 3 * H * D)
        x = x + self.proj(attn(q, k, v).float().reshape(t, -1))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class TinyLM(torch.nn.Module):
    def __init__(self, vocab, dim, heads, layers):
        super().__init__()
        self.emb = torch.nn.Embedding(vocab, dim)
        self.blocks = torch.nn.ModuleList(Block(dim, heads) for _ in range(layers))
        self.ln = torch.nn.LayerNorm(dim)
        self.out = torch.nn.Linear(dim, vocab)

    def forward(self, tokens, attn):
        x = self.emb(tokens)
        for blk in self.blocks:
            x = blk(x, attn)
        return self.out(self.ln(x))


def training_batches(rng, steps, vocab):
    """Jagged batches of arithmetic sequences token_i = (a + c * i) mod vocab (c
    in 1..3, a random): the next token needs the sequence's earlier tokens."""
    batches = []
    for _ in range(steps):
        lengths = [0 if rng.random() < 0.1 else rng.choice((1, rng.randint(2, 300)))
                   for _ in range(rng.randint(6, 14))]
        lengths.append(rng.randint(100, 300))  # at least one long sequence
        tokens, inputs_at, targets = [], [], []
        for n in lengths:
            a, c = rng.randrange(vocab), rng.randint(1, 3)
            seq = [(a + c * i) % vocab for i in range(n)]
            base = len(tokens)
            tokens += seq
            inputs_at += [base + i for i in range(n - 1)]
            targets += seq[1:]
        batches.append(dict(
            tokens=torch.tensor(tokens, device="cuda"),
            offsets=make_offsets(lengths),
            offsets_list=[0] + list(itertools.accumulate(lengths)),
            max_seqlen=max(lengths), at=torch.tensor(inputs_at, device="cuda"),
            targets=torch.tensor(targets, device="cuda")))
    return batches


def training_demo(res, rng, steps):
    vocab, dim, heads, layers = 128, 256, 4, 2
    scale = 1.0 / math.sqrt(dim // heads)
    batches = training_batches(rng, steps, vocab)
    torch.manual_seed(rng.randrange(1 << 31))
    model_jfa = TinyLM(vocab, dim, heads, layers).cuda()
    model_ref = copy.deepcopy(model_jfa)
    losses = {}
    for kind, model in (("jfa", model_jfa), ("ref", model_ref)):
        opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=0.01)
        curve = []
        try:
            for batch in batches:
                if kind == "jfa":
                    def attn(q, k, v, batch=batch):
                        return jfa.jagged_attention(q, k, v, batch["offsets"], batch["max_seqlen"],
                                                    causal=True, check_offsets=False)[0]
                else:
                    def attn(q, k, v, batch=batch):
                        return reference_attention(q, k, v, batch["offsets_list"], True, scale)
                logits = model(batch["tokens"], attn)
                loss = F.cross_entropy(logits[batch["at"]], batch["targets"])
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
                curve.append(loss.item())
        except Exception as e:  # noqa: BLE001
            res.report(False, f"training demo ({kind}): {type(e).__name__}: {e}")
            return
        losses[kind] = curve
    print("training demo: step  loss(jfa)  loss(ref)  |diff|/ref")
    worst = 0.0
    for i, (a, b) in enumerate(zip(losses["jfa"], losses["ref"])):
        rel = abs(a - b) / abs(b)
        worst = max(worst, rel)
        print(f"  {i:4d}  {a:9.5f}  {b:9.5f}  {rel:.2e}")
    ok_match = all(math.isfinite(a) for a in losses["jfa"]) and worst <= LOSS_REL
    res.report(ok_match, f"training demo: {steps} AdamW steps, TinyLM({vocab}, {dim}, {heads} "
               f"heads of {dim // heads}, {layers} layers), causal jagged batches: worst "
               f"|loss_jfa - loss_ref| / loss_ref = {worst:.2e} (<= {LOSS_REL})")
    fell = losses["jfa"][-1] < losses["jfa"][0] and losses["ref"][-1] < losses["ref"][0]
    res.report(fell, f"training demo: the loss falls ({losses['jfa'][0]:.4f} -> "
               f"{losses['jfa'][-1]:.4f} with jfa, {losses['ref'][0]:.4f} -> "
               f"{losses['ref'][-1]:.4f} with the reference)")


def cuda_graph_check(res, gen):
    """The default calls (offsets checked on the host) captured in one CUDA
    graph, forward then backward; replayed on new data in the same tensors,
    they match eager calls on that data."""
    lengths, h = [37, 0, 128, 200, 1], 2
    t = sum(lengths)
    offs = make_offsets(lengths)
    for d, causal in ((64, True), (128, False)):
        q, k, v, do = (torch.randn((t, h, d), device="cuda", generator=gen)
                       .to(torch.bfloat16) for _ in range(4))

        def step():
            o, lse = jfa.jagged_attention(q, k, v, offs, 200, causal=causal)
            return (o, lse) + jfa.attention_backward(do, q, k, v, o, lse, offs, 200,
                                                     causal=causal)

        name = f"CUDA graph, forward and backward, D = {d}, causal = {causal}"
        try:
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):  # warm-up off the default stream
                step()
            torch.cuda.current_stream().wait_stream(side)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                captured = step()
            for x in (q, k, v, do):
                x.copy_(torch.randn(x.shape, device="cuda", generator=gen).to(torch.bfloat16))
            graph.replay()
            torch.cuda.synchronize()
            eager = step()
            torch.cuda.synchronize()
            # o, lse, dk, dv are deterministic; dq's atomic adds are not.
            worst = max(float((a.float() - b.float()).abs().max() /
                              b.float().abs().max().clamp_min(1e-6))
                        for a, b in zip(captured, eager))
            res.report(worst <= 1e-2, f"{name}: replay on new data vs eager, "
                                      f"worst max rel error {worst:.2e}")
        except Exception as e:  # noqa: BLE001
            res.report(False, f"{name}: {type(e).__name__}: {e}")


def main():
    args, seed, rng, gen, res = start(
        __doc__, "a few small cases and the error paths (for compute-sanitizer)",
        flags=[("--variants", "only issue 20's variants (window, GQA, cross-attention, GDPA)"),
               ("--plain", "only the plain attention's cases and checks (the whole matrix is "
                "--plain and --variants, e.g. run side by side on two GPUs)")])

    def case(name, *a, **kw):
        if args.only is None or args.only in name:
            run_case(res, name, *a, gen=gen, **kw)

    if args.sanitize:
        if not args.variants:
            case("sanitize small", [1, 0, 63, 129], 2, 64, False)
            case("sanitize causal", [65, 128, 0, 7], 2, 128, True)
            case("sanitize qkv views", [130, 3], 1, 64, True, scale=0.3, layout="qkv")
            error_paths(res)
        if args.plain:
            return res.summary(seed)
        case("sanitize window", [1, 0, 63, 129], 2, 64, True, window=(64, 0))
        case("sanitize window", [130, 7], 2, 128, False, window=(3, 70))
        case("sanitize GQA", [65, 128, 0, 7], 4, 128, True, h_kv=1)
        case("sanitize GQA, k and v views", [130, 3], 4, 64, False, h_kv=2, layout="kv")
        case("sanitize cross + GQA + window", [5, 0, 130], 4, 64, True, h_kv=2,
             lengths_k=[9, 4, 0], window=(16, -1))
        case("sanitize cross, fewer keys", [200, 3], 2, 128, True, lengths_k=[70, 0])
        case("sanitize cross, no keys", [5, 3], 2, 64, False, lengths_k=[0, 0])
        case("sanitize cross, no queries", [0, 0], 2, 64, False, lengths_k=[40, 3])
        case("sanitize GDPA", [65, 128, 0, 7], 2, 64, True, activation="silu")
        case("sanitize GDPA + cross + GQA + window", [5, 0, 130], 4, 128, True, h_kv=2,
             lengths_k=[9, 4, 0], window=(16, -1), activation="gelu_tanh")
        case("sanitize GDPA, no keys", [5, 3], 2, 64, False, lengths_k=[0, 0],
             activation="silu")
        case("sanitize block-sparse", [1, 0, 63, 129, 300], 2, 64, True,
             block_mask=(2, 0.5, "lists"))
        case("sanitize block-sparse + cross + GQA", [5, 0, 130], 4, 128, False, h_kv=2,
             lengths_k=[9, 4, 300], block_mask=(1, 0.5, "bool"))
        variant_error_paths(res)
    elif args.variants:
        variant_cases(case, rng, args.quick)
        gdpa_cases(case, rng, args.quick)
        plain_equivalences(res, gen)
        variant_error_paths(res)
        variant_autograd_check(res, gen)
        gdpa_autograd_check(res, gen)
        variant_cuda_graph_check(res, gen)
        variant_cuda_graph_check(res, gen, activation="silu")
    else:
        boundary = [0, 1, 63, 64, 65, 127, 128, 129]
        for d in (64, 128):
            for causal in (False, True):
                case("boundary lengths", boundary, 2, d, causal)
        case("one token", [1], 1, 128, True)
        case("all empty", [0, 0, 0], 2, 64, False)
        case("no tokens, no sequences", [], 2, 64, False)
        case("empty at the ends", [0, 200, 0], 4, 64, True)
        case("scale 0.3", [300, 17, 64, 0, 129], 4, 128, False, scale=0.3)
        case("scale 0.3 causal", [300, 17, 64, 0, 129], 4, 64, True, scale=0.3)
        case("qkv views, padded do and dk", [250, 1, 0, 128, 77], 8, 128, True, layout="qkv")
        if not args.quick:
            case("qkv views, padded do and dk", [250, 1, 0, 128, 77], 8, 64, False,
                 layout="qkv")
        n_random = 4 if args.quick else 16
        for i in range(n_random):
            d = rng.choice((64, 128))
            h = rng.choice((1, 2, 3, 8, 16))
            causal = rng.random() < 0.5
            hi = rng.choice((16, 130, 700, 2100))
            lengths = random_lengths(rng, rng.randint(1, 40), 1, hi)
            scale = rng.choice((None, None, 0.3, 0.05))
            case(f"random {i}", lengths, h, d, causal, scale=scale)
        long_len = 16500
        for d, causal in ((128, True), (64, False)) if not args.quick else ((128, True),):
            case("one long sequence", [long_len], 2, d, causal)
        if not args.quick:
            case("long and short", [3, long_len, 0, 129], 1, 128, False)
        for d in (64, 128) if not args.quick else (128,):
            lengths = random_lengths(rng, 1200, 1, 200, p_empty=0.05)
            case("1200 sequences", lengths, 8 if d == 64 else 4, d, rng.random() < 0.5)
        if not args.quick:
            case("many heads", random_lengths(rng, 6, 1, 600), 32, 64, True)
        error_paths(res)
        schedule_check(res, rng)
        autograd_check(res, gen)
        compile_check(res, gen)
        cuda_graph_check(res, gen)
        training_demo(res, rng, 5 if args.quick else 10)
        if args.plain:
            return res.summary(seed)
        variant_cases(case, rng, args.quick)
        gdpa_cases(case, rng, args.quick)
        plain_equivalences(res, gen)
        variant_error_paths(res)
        variant_autograd_check(res, gen)
        gdpa_autograd_check(res, gen)
        variant_cuda_graph_check(res, gen)
        variant_cuda_graph_check(res, gen, activation="silu")

    return res.summary(seed)


if __name__ == "__main__":
    sys.exit(main())
