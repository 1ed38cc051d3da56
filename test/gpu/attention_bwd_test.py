"""jfa.attention_backward and jagged_attention's autograd on the GPU against
fp32 autograd.

    PYTHONPATH=dist/jfa/python python3 test/gpu/attention_bwd_test.py \
        [--quick] [--sanitize] [--seed N]

Each case draws fresh random q, k, v and an upstream gradient do (the seed is
printed; --seed repeats a run), runs jfa's forward, poisons dq, dk and dv with
NaN (passed in as preallocated outputs), runs jfa.attention_backward and
compares with the gradients that torch.autograd gives for a reference
attention computed per sequence in fp32 from the same bf16 inputs (scores
q k^T * scale, causal = top-left mask col <= row within the sequence,
softmax, P v; do in fp32).

Bounds, per case and per gradient g in (dq, dk, dv), ref the fp32 gradient:
  max|g - ref|  <= 2e-2 * max|ref| + 1e-4
  mean|g - ref| <= 1e-2 * mean|ref| + 1e-6
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

--quick: a smaller matrix. --sanitize: a few small cases and the error paths
only (for compute-sanitizer, e.g.
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
from gpu_common import describe, expect_error, make_offsets, random_lengths, start
from jfa import _backward, _lib, _schedule

GRAD_MAX_REL = 2e-2
GRAD_MAX_ATOL = 1e-4
GRAD_MEAN_REL = 1e-2
GRAD_MEAN_ATOL = 1e-6
LOSS_REL = 1e-2

torch.backends.cuda.matmul.allow_tf32 = False  # the reference is true fp32
torch.backends.cudnn.allow_tf32 = False


def reference_grads(q, k, v, do, offsets, causal, scale):
    """fp32 (dq, dk, dv) [T, H, D] by torch.autograd of the reference attention,
    one sequence (and for long ones one head) at a time."""
    t, h, d = q.shape
    grads = [torch.zeros((t, h, d), dtype=torch.float32, device=q.device) for _ in range(3)]
    offs = offsets.tolist()
    for b in range(len(offs) - 1):
        s, e = offs[b], offs[b + 1]
        n = e - s
        if n == 0:
            continue
        # Heads per chunk so that the [heads, n, n] score matrices stay under ~0.5 GiB each.
        hc = max(1, min(h, (1 << 27) // (n * n)))
        for h0 in range(0, h, hc):
            h1 = min(h, h0 + hc)
            qs, ks, vs = (x[s:e, h0:h1].float().transpose(0, 1).requires_grad_()
                          for x in (q, k, v))  # [hc, n, d]
            dos = do[s:e, h0:h1].float().transpose(0, 1)
            with torch.enable_grad():
                scores = torch.matmul(qs, ks.transpose(1, 2)) * scale
                if causal:
                    mask = torch.ones((n, n), dtype=torch.bool, device=q.device).triu_(1)
                    scores = scores.masked_fill(mask, float("-inf"))
                os_ = torch.matmul(torch.softmax(scores, dim=-1), vs)
                gq, gk, gv = torch.autograd.grad(os_, (qs, ks, vs), dos)
            for g, x in zip(grads, (gq, gk, gv)):
                g[s:e, h0:h1] = x.transpose(0, 1)
            del scores, os_, gq, gk, gv
    return grads


def compare(name, got, ref):
    """(ok, text, problems) for one gradient against its reference."""
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
    if not mean_abs <= GRAD_MEAN_REL * ref_mean + GRAD_MEAN_ATOL:
        problems.append(f"{name} mean abs err {mean_abs:.3e} > {GRAD_MEAN_REL} * mean|ref| "
                        f"{ref_mean:.3e} + {GRAD_MEAN_ATOL}")
    if ref_max < GRAD_MAX_ATOL:
        # A reference that is zero but for rounding (one token: dS = 0):
        # relative figures mean nothing, the absolute bound decides.
        return (not problems,
                f"{name} max abs {max_abs:.2e} (reference max {ref_max:.1e})", problems)
    return not problems, f"{name} max rel {max_rel:.2e} mean rel {mean_rel:.2e}", problems


def not_finite_rows(name, g):
    bad = (~torch.isfinite(g)).any(dim=2).any(dim=1)
    if bad.any():
        rows = bad.nonzero().flatten()
        return [f"{rows.numel()} token rows of {name} not finite (first token {rows[0].item()})"]
    return []


def run_case(res, name, lengths, h, d, causal, scale=None, layout="packed", gen=None):
    """One case: random q, k, v, do for the given lengths; jfa's forward; dq, dk,
    dv poisoned; attention_backward against the fp32 reference."""
    t = sum(lengths)
    offsets = make_offsets(lengths)
    max_seqlen = max(lengths) if lengths else 0
    pad = 0
    if layout == "qkv":
        # q, k, v views of one [T, 3, H, D] tensor; do and dk views with 64
        # elements of padding after each token row (copies inside).
        pad = 64
        qkv = torch.randn((t, 3, h, d), generator=gen, device="cuda").to(torch.bfloat16)
        q, k, v = qkv[:, 0], qkv[:, 1], qkv[:, 2]
        do_store = torch.randn((t, h * d + pad), generator=gen, device="cuda").to(torch.bfloat16)
        do = do_store[:, :h * d].view(t, h, d)
        dk_store = torch.full((t, h * d + pad), 7.0, dtype=torch.bfloat16, device="cuda")
        dk_store[:, :h * d] = float("nan")
        dk = dk_store[:, :h * d].view(t, h, d)
    else:
        q, k, v, do = (torch.randn((t, h, d), generator=gen, device="cuda").to(torch.bfloat16)
                       for _ in range(4))
        dk = torch.full((t, h, d), float("nan"), dtype=torch.bfloat16, device="cuda")
    dq = torch.full((t, h, d), float("nan"), dtype=torch.bfloat16, device="cuda")
    dv = torch.full((t, h, d), float("nan"), dtype=torch.bfloat16, device="cuda")
    label = (f"{name}: T={t} H={h} D={d} {'causal' if causal else 'full'}"
             f"{f' scale={scale}' if scale is not None else ''}"
             f"{f' layout={layout}' if layout != 'packed' else ''} {describe(lengths)}")
    problems = []
    try:
        o, lse = jfa.jagged_attention(q, k, v, offsets, max_seqlen, causal=causal,
                                      softmax_scale=scale)
        torch.cuda.synchronize()
        start = time.perf_counter()
        got = jfa.attention_backward(do, q, k, v, o, lse, offsets, max_seqlen, causal, scale,
                                     dq=dq, dk=dk, dv=dv)
        torch.cuda.synchronize()
        elapsed = time.perf_counter() - start
    except Exception as e:  # noqa: BLE001 - reported as a failure
        res.report(False, f"{label}: {type(e).__name__}: {e}")
        return
    if any(g is not w for g, w in zip(got, (dq, dk, dv))):
        problems.append("did not return the given dq / dk / dv")
    if t == 0:
        res.report(not problems, f"{label}{': ' + '; '.join(problems) if problems else ''}")
        return
    for gname, g in zip(("dq", "dk", "dv"), (dq, dk, dv)):
        problems += not_finite_rows(gname, g)
    if pad and not (dk_store[:, h * d:] == 7.0).all():
        problems.append("dk's padding between token rows was written")
    eff_scale = scale if scale is not None else 1.0 / math.sqrt(d)
    refs = reference_grads(q, k, v, do, offsets, causal, eff_scale)
    texts = []
    for gname, g, ref in zip(("dq", "dk", "dv"), (dq, dk, dv), refs):
        _, text, probs = compare(gname, g, ref)
        texts.append(text)
        problems += probs
    res.report(not problems, f"{label}: {', '.join(texts)}, {elapsed * 1e3:.1f} ms"
               f"{'; ' + '; '.join(problems) if problems else ''}")


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
    # No backward cubins in the kernel folder: RuntimeError that says which
    # are missing and how to get them. A handle of its own, on a folder with
    # the forward's cubins only.
    saved_handle, saved_available = _lib._handle, dict(_backward._available)
    saved_env = os.environ.get("JFA_KERNEL_DIR")
    with tempfile.TemporaryDirectory() as forward_only:
        # Absolute targets: JFA_KERNEL_DIR may be relative to the cwd.
        kernels = os.path.abspath(_lib.kernel_dir())
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
    # Nothing above may have broken anything: a good call still works.
    run_case(res, "after the error paths", lengths, h, d, True)


def schedule_check(res, rng):
    """The work list attention_bwd_schedule builds on the device (no host
    synchronisation), launched alone through jfa.load and read back, is the
    pure-Python reference's entry for entry, for empty, short, long and
    tied sequences and batches over one CTA."""
    cubin = os.path.join(_lib.kernel_dir(), "attention_bwd_schedule_sm_90a.cubin")
    kernel = jfa.load(cubin).attention_bwd_schedule
    batches = [[0], [1], [128, 129, 0, 256], [300, 300, 5], [0, 0, 0]]
    batches += [random_lengths(rng, rng.randint(1, 300), 0, 3000) for _ in range(4)]
    for lengths in batches:
        k_tiles = max(1, -(-max(lengths) // 128))
        offsets = make_offsets(lengths)
        want = _schedule.backward_schedule_list(lengths, k_tiles)
        out = torch.full((len(want),), -7, dtype=torch.int32, device="cuda")
        kernel(-(-len(lengths) // 128), offsets, out, len(lengths), k_tiles)
        got = out.tolist()
        res.report(got == want, f"schedule on the device, {len(lengths)} sequences "
                   f"(max {max(lengths)}): {got[:6]}... == the reference")


def check_grads(res, label, pairs):
    """pairs: (name, got, ref); one report line."""
    problems, texts = [], []
    for name, got, ref in pairs:
        if got is None:
            problems.append(f"{name} is None")
            continue
        problems += not_finite_rows(name, got)
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
    refs = reference_grads(qd, kd, vd, do, offsets, causal, scale)
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
        __doc__, "a few small cases and the error paths (for compute-sanitizer)")

    def case(*a, **kw):
        run_case(res, *a, gen=gen, **kw)

    if args.sanitize:
        case("sanitize small", [1, 0, 63, 129], 2, 64, False)
        case("sanitize causal", [65, 128, 0, 7], 2, 128, True)
        case("sanitize qkv views", [130, 3], 1, 64, True, scale=0.3, layout="qkv")
        error_paths(res)
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

    return res.summary(seed)


if __name__ == "__main__":
    sys.exit(main())
