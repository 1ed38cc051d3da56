"""jfa.jagged_attention on the GPU against an fp32 reference.

    PYTHONPATH=dist/jfa/python python3 test/gpu/attention_test.py [--quick] [--sanitize] \
        [--variants | --plain] [--seed N] [--only TEXT]

Each case draws fresh random data (the seed is printed; --seed repeats a
run), poisons o and lse with NaN, runs the kernel and compares with a
reference computed per sequence in fp32 from the same bf16 inputs (scores
q k^T * scale, masked, softmax, P v, lse = logsumexp of the scaled scores).
The reference's mask is the contract's (kernels/jagged_attention/README.md):
for sequence b with len_q queries and len_k keys, shift = len_k - len_q,
query i sees key j (0 <= j < len_k) iff j <= i + shift (causal), j >= i +
shift - left (window left >= 0) and j <= i + shift + right (window right >=
0); for self-attention len_k = len_q, so causal is col <= row. A query that
sees no key must get o = 0 and lse = -inf (exactly).

The variants of issue 20 (run by default; --variants runs only them,
--plain all but them):
sliding windows ((0, 0), (-1, 0) without causal, (64, -1), (300, 5), causal
with (100, 0), ...), grouped-query k/v heads (H = 4 with H_kv = 1, 2; H = 8
with 2), cross-attention (offsets_k with other lengths than the queries',
sequences with 0 keys or 0 queries, no keys at all, causal bottom-right) and
combinations, D = 64 and 128. Besides the reference: the reference's mask
against torch's own bottom-right causal mask (causal_lower_right), ours
against torch's varlen_attn where this torch's takes the case (window_size,
enable_gqa), a window of (-1, -1) and causal's own (-1, 0) bit for bit the
plain call, the error paths of the new options, and calls with
gradients through them (their values: attention_bwd_test.py).

GDPA (activation="silu" / "gelu_tanh", part of the variants): o = sum_j
act(scale * q.k_j) v_j over the keys a query sees (the same mask), not
normalized, no lse (jagged_attention returns None). Reference: x = scale *
q k^T in fp32, P = act(x) masked to 0 and rounded to bf16 (the tensor
cores' operand; unnormalized, P's rounding is the error that dominates),
o = P v in fp32. Cases: plain, causal, windows, GQA, cross-attention (0
keys, 0 queries, no keys at all), combinations, a 16500-token sequence, a
padded o; and lse is never written (the runtime's own call with a poisoned
lse keeps it, also when there are no keys).

Bounds, per case:
  o:   max|o - ref| / max|ref| <= 1e-2 and mean|o - ref| / mean|ref| <= 4e-3.
       o is bf16 (a relative rounding step of 2^-8, so about 1e-3 on average
       from the final rounding alone) and P is rounded to bf16 before P v;
       anything structural (a dropped or doubled key block, a wrong mask or
       scale) is an error of order |ref|.
  lse: max|lse - ref| <= 1e-2 (absolute: lse is a logarithm). The kernel
       keeps scores, row max and row sum in fp32 from exact bf16 products, so
       it differs from the reference only by summation order and exp2
       approximation, about 1e-5 on values of order 10; 1e-2 is far above
       that and still catches a dropped or doubled 64-key block in any
       sequence shorter than about 6000 tokens (log(1 + 64/L)), a wrong scale,
       or a wrong row max.
  every o row and lse entry is written (poisoned with NaN before): finite
  where the query sees a key, o = 0 and lse = -inf where it sees none;
  where o is a view with padding between token rows, the padding is not
  touched.
  Against varlen_attn (both bf16 kernels): o max rel <= 2e-2, mean rel
  <= 8e-3, on the queries that see a key.
  GDPA, per element (test/interp/kernels.py's bound, which jfa-interp's
  runs of the kernels pass):
       |o - ref| <= 2^-8 * (|P| |v|) + 1e-2 + 1e-2 * |ref|
       the kernel's P (fp32, approximate exp2 and division) may round to the
       bf16 next to the reference's: one bf16 step, 2^-8 relative, per term
       at most, which |P| |v| 2^-8 bounds; o's own bf16 rounding (2^-9
       relative) is in the 1e-2 * |ref|. A query that sees no key: o = 0
       exactly.
Then the error paths: wrong dtypes, devices, shapes, offsets and max_seqlen
raise TypeError / ValueError with a message; and the runtime's own offset
checks (check_offsets in the C API) raise RuntimeError.

--sanitize: a few small cases only (for compute-sanitizer, e.g.
  compute-sanitizer --tool memcheck python3 test/gpu/attention_test.py --sanitize).
Exit status 0 when everything passed.
"""
import ctypes
import inspect
import math
import random
import sys
import time

import torch

import jfa
from gpu_common import (add_block_mask, describe, expect_error, make_offsets, pairs_mask,
                        random_lengths, start)
from jfa import _forward

O_MAX_REL = 1e-2
O_MEAN_REL = 4e-3
LSE_MAX_ABS = 1e-2


def visible(len_q, len_k, causal, window, device):
    """[len_q, len_k] bool: query i sees key j (the contract's mask)."""
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


def gdpa_act(activation, x):
    """GDPA's activation of fp32 scores (torch's silu and tanh gelu)."""
    if activation == "silu":
        return torch.nn.functional.silu(x)
    return torch.nn.functional.gelu(x, approximate="tanh")


def reference_gdpa(q, k, v, offsets, causal, scale, activation, offsets_k=None,
                   window=(-1, -1), blocks=None):
    """fp32 o [T, H, D] of GDPA, its error bound's |P| |v| [T, H, D] and
    whether each query sees a key [T]: x = scale q k^T, P = act(x) where
    the query sees the key, else 0, rounded to bf16 as the kernels' tensor
    cores take it, o = P v (not normalized). k and v (and blocks, a
    block-sparse mask) as reference()'s."""
    t, h, d = q.shape
    group = h // k.shape[1]
    o = torch.zeros((t, h, d), dtype=torch.float32, device=q.device)
    pv = torch.zeros((t, h, d), dtype=torch.float32, device=q.device)
    sees = torch.zeros(t, dtype=torch.bool, device=q.device)
    offs = offsets.tolist()
    offs_k = offs if offsets_k is None else offsets_k.tolist()
    for b in range(len(offs) - 1):
        s, e = offs[b], offs[b + 1]
        sk, ek = offs_k[b], offs_k[b + 1]
        n, m = e - s, ek - sk
        if n == 0 or m == 0:
            continue  # no key: o = 0
        seq_mask = visible(n, m, causal, window, q.device)
        hc = max(1, min(h, (1 << 28) // (n * m)))
        for h0 in range(0, h, hc):
            h1 = min(h, h0 + hc)
            mask = pairs_mask(seq_mask, blocks, h0, h1, s, n, sk, m)
            rows = mask.any(dim=-1)
            sees[s:e] |= rows if rows.dim() == 1 else rows.any(dim=0)
            kv_heads = torch.arange(h0, h1, device=q.device) // group
            qs = q[s:e, h0:h1].float().transpose(0, 1)  # [hc, n, d]
            ks = k[sk:ek].index_select(1, kv_heads).float().transpose(0, 1)  # [hc, m, d]
            vs = v[sk:ek].index_select(1, kv_heads).float().transpose(0, 1)
            x = torch.matmul(qs, ks.transpose(1, 2)) * scale
            p = torch.where(mask, gdpa_act(activation, x), torch.zeros((), device=q.device))
            del x
            p = p.to(torch.bfloat16).float()
            o[s:e, h0:h1] = torch.matmul(p, vs).transpose(0, 1)
            pv[s:e, h0:h1] = torch.matmul(p.abs_(), vs.abs()).transpose(0, 1)
            del p
    return o, pv, sees


def reference(q, k, v, offsets, causal, scale, offsets_k=None, window=(-1, -1),
              blocks=None):
    """fp32 o [T, H, D], lse [H, T], whether each query sees a key [T] in some
    head, and whether it does in each head [H, T] (a per-head block mask
    differs by head)
    (in some head), one sequence (and for long ones a few heads) at a time.
    k and v may have H_kv heads (q head h reads h // (H // H_kv)) and, with
    offsets_k, other tokens; blocks: a block-sparse mask (bool [Hm, QB, KB],
    gpu_common.random_block_mask)."""
    t, h, d = q.shape
    group = h // k.shape[1]
    o = torch.zeros((t, h, d), dtype=torch.float32, device=q.device)
    lse = torch.full((h, t), float("-inf"), dtype=torch.float32, device=q.device)
    sees = torch.zeros(t, dtype=torch.bool, device=q.device)
    sees_h = torch.zeros((h, t), dtype=torch.bool, device=q.device)
    offs = offsets.tolist()
    offs_k = offs if offsets_k is None else offsets_k.tolist()
    for b in range(len(offs) - 1):
        s, e = offs[b], offs[b + 1]
        sk, ek = offs_k[b], offs_k[b + 1]
        n, m = e - s, ek - sk
        if n == 0 or m == 0:
            continue  # no key: o = 0, lse = -inf
        seq_mask = visible(n, m, causal, window, q.device)
        # Heads per chunk so that the [heads, n, m] score matrix stays under ~2 GiB.
        hc = max(1, min(h, (1 << 29) // (n * m)))
        for h0 in range(0, h, hc):
            h1 = min(h, h0 + hc)
            mask = pairs_mask(seq_mask, blocks, h0, h1, s, n, sk, m)
            rows = mask.any(dim=-1)  # [n], or [heads, n] under a block mask
            sees[s:e] |= rows if rows.dim() == 1 else rows.any(dim=0)
            sees_h[h0:h1, s:e] |= rows
            kv_heads = torch.arange(h0, h1, device=q.device) // group
            qs = q[s:e, h0:h1].float().transpose(0, 1)  # [hc, n, d]
            ks = k[sk:ek].index_select(1, kv_heads).float().transpose(0, 1)  # [hc, m, d]
            vs = v[sk:ek].index_select(1, kv_heads).float().transpose(0, 1)
            scores = torch.matmul(qs, ks.transpose(1, 2)) * scale
            scores.masked_fill_(~mask, float("-inf"))
            row_lse = torch.logsumexp(scores, dim=-1)  # -inf where no key is seen
            p = torch.exp(scores - row_lse[..., None])
            p = torch.where(rows[..., None], p, torch.zeros((), device=q.device))
            lse[h0:h1, s:e] = row_lse
            o[s:e, h0:h1] = torch.matmul(p, vs).transpose(0, 1)
            del scores, p
    return o, lse, sees, sees_h


_varlen = []  # [(varlen_attn, its parameters) or None], looked up once


def varlen_peer():
    """torch's varlen_attn and its parameter names, or None without it."""
    if not _varlen:
        try:
            from torch.nn.attention.varlen import varlen_attn
            _varlen.append((varlen_attn, set(inspect.signature(varlen_attn).parameters)))
        except Exception:  # noqa: BLE001 - an older torch: no peer
            _varlen.append(None)
    return _varlen[0]


def compare_varlen(q, k, v, offsets, offsets_k, max_q, max_k, causal, scale, window, o,
                   sees):
    """(ok, line) for ours against torch's varlen_attn, or (None, why) when
    this torch's varlen_attn does not take the case."""
    peer = varlen_peer()
    if peer is None:
        return None, "no torch.nn.attention.varlen"
    fn, params = peer
    kw = {}
    left, right = window
    if causal:
        right = 0  # causal's own bound (a right bound > 0 with causal is refused)
    if (left, right) != (-1, -1):
        if "window_size" in params:
            kw["window_size"] = (left, right)
        elif (left, right) == (-1, 0) and "is_causal" in params:
            kw["is_causal"] = True
        else:
            return None, "varlen_attn has no window_size"
    if k.shape[1] != q.shape[1]:
        if "enable_gqa" not in params:
            return None, "varlen_attn has no enable_gqa"
        kw["enable_gqa"] = True
    if "scale" in params:
        kw["scale"] = scale
    elif abs(scale - 1 / math.sqrt(q.shape[2])) > 1e-12:
        return None, "varlen_attn has no scale"
    try:
        ref = fn(q, k, v, offsets, offsets if offsets_k is None else offsets_k, max(max_q, 1),
                 max(max_k, 1), **kw)
    except Exception as e:  # noqa: BLE001 - a case this torch does not take
        return None, f"varlen_attn refused it: {type(e).__name__}: {str(e)[:120]}"
    rows = sees.nonzero().flatten()
    if rows.numel() == 0:
        return None, "no query sees a key"
    ours, theirs = o[rows].float(), ref[rows].float()
    diff = (ours - theirs).abs().nan_to_num(nan=float("inf"))
    max_rel = (diff.max() / theirs.abs().max().clamp_min(1e-30)).item()
    mean_rel = (diff.mean() / theirs.abs().mean().clamp_min(1e-30)).item()
    ok = max_rel <= 2e-2 and mean_rel <= 8e-3
    return ok, f"vs varlen_attn: o max rel {max_rel:.2e} mean rel {mean_rel:.2e}"


GDPA_ABS = 1e-2
GDPA_REL = 1e-2
GDPA_ULP = 2.0 ** -8


def random_inputs(lengths, h, d, gen, layout, h_kv, lengths_k):
    """q, k, v (bf16; views of one tensor for layouts "qkv" and "kv"), the
    offsets, offsets_k (None for self-attention) and T, T_k."""
    t = sum(lengths)
    cross = lengths_k is not None
    t_k = sum(lengths_k) if cross else t
    if layout == "qkv":  # q, k, v as views of one [T, 3, H, D] tensor
        assert not cross and h_kv == h
        qkv = torch.randn((t, 3, h, d), generator=gen, device="cuda").to(torch.bfloat16)
        q, k, v = qkv[:, 0], qkv[:, 1], qkv[:, 2]
    elif layout == "kv":  # k, v as views of one [T_k, 2, H_kv, D] tensor
        q = torch.randn((t, h, d), generator=gen, device="cuda").to(torch.bfloat16)
        kv = torch.randn((t_k, 2, h_kv, d), generator=gen, device="cuda").to(torch.bfloat16)
        k, v = kv[:, 0], kv[:, 1]
    else:
        q = torch.randn((t, h, d), generator=gen, device="cuda").to(torch.bfloat16)
        k, v = (torch.randn((t_k, h_kv, d), generator=gen, device="cuda").to(torch.bfloat16)
                for _ in range(2))
    return (q, k, v, make_offsets(lengths), make_offsets(lengths_k) if cross else None,
            t, t_k)


def run_case(res, name, lengths, h, d, causal, scale=None, layout="packed", gen=None, *,
             h_kv=None, lengths_k=None, window=None, peer=False, activation="softmax",
             block_mask=None):
    """One case: random q, k, v for the given sequence lengths; o and lse
    poisoned; compared with the reference. h_kv: k's and v's heads (default
    h); lengths_k: the key sequences' lengths (cross-attention through
    offsets_k); window: jagged_attention's window; peer: also compare with
    torch's varlen_attn; activation: "silu" or "gelu_tanh" (GDPA, against
    reference_gdpa; no lse); block_mask: (mask heads, density, form) of a
    random block-sparse mask (gpu_common.block_mask_form)."""
    if activation != "softmax":
        return run_gdpa_case(res, name, lengths, h, d, causal, scale, layout, gen,
                             h_kv=h_kv, lengths_k=lengths_k, window=window,
                             activation=activation, block_mask=block_mask)
    h_kv = h if h_kv is None else h_kv
    cross = lengths_k is not None
    q, k, v, offsets, offsets_k, t, t_k = random_inputs(lengths, h, d, gen, layout, h_kv,
                                                        lengths_k)
    max_seqlen = max(lengths) if lengths else 0
    max_seqlen_k = (max(lengths_k) if lengths_k else 0) if cross else None
    pad = 0
    if layout == "qkv":  # and o with 64 elements of padding after each token row
        pad = 64
        o_store = torch.full((t, h * d + pad), 7.0, dtype=torch.bfloat16, device="cuda")
        o_store[:, :h * d] = float("nan")
        o = o_store[:, :h * d].view(t, h, d)
    else:
        o = torch.full((t, h, d), float("nan"), dtype=torch.bfloat16, device="cuda")
    lse = torch.full((h, t), float("nan"), dtype=torch.float32, device="cuda")
    options = {}
    if window is not None:
        options["window"] = window
    if cross:
        options.update(offsets_k=offsets_k, max_seqlen_k=max_seqlen_k)
    blocks, skip = add_block_mask(options, gen, block_mask, t, t_k)
    if skip:
        res.report(True, f"{name}: {skip}")
        return
    start = time.perf_counter()
    o_ret, lse_ret = jfa.jagged_attention(q, k, v, offsets, max_seqlen, causal=causal,
                                          softmax_scale=scale, o=o, lse=lse, **options)
    torch.cuda.synchronize()
    elapsed = time.perf_counter() - start
    eff_scale = scale if scale is not None else 1.0 / math.sqrt(d)
    label = (f"{name}: T={t} H={h}{f' H_kv={h_kv}' if h_kv != h else ''} D={d} "
             f"{'causal' if causal else 'full'}"
             f"{f' window={tuple(window)}' if window is not None else ''}"
             f"{f' block_mask={block_mask}' if block_mask is not None else ''}"
             f"{f' scale={scale}' if scale is not None else ''}"
             f"{f' layout={layout}' if layout != 'packed' else ''} {describe(lengths)}"
             f"{f' keys T_k={t_k} {describe(lengths_k)}' if cross else ''}")
    problems = []
    if o_ret.data_ptr() != o.data_ptr() or lse_ret.data_ptr() != lse.data_ptr():
        problems.append("did not return the given o / lse")
    if t == 0:
        res.report(not problems, f"{label}{': ' + '; '.join(problems) if problems else ''}")
        return
    ref_o, ref_lse, sees, sees_h = reference(q, k, v, offsets, causal, eff_scale, offsets_k,
                                     tuple(window) if window is not None else (-1, -1),
                                     blocks)
    blind = ~sees  # queries that see no key: o = 0 and lse = -inf exactly
    bad_o = ((~torch.isfinite(o)).any(dim=2) & sees_h.T).any(dim=1)  # per token
    # Per head: under a per-head block mask a query may see keys in one head
    # and none in another (lse -inf there, as the contract says).
    bad_lse = ((~torch.isfinite(lse)) & sees_h).any(dim=0)
    blind_h = ~sees_h & sees  # heads in which a seeing query sees no key
    if blind_h.any():
        heads, toks = blind_h.nonzero(as_tuple=True)
        if (o[toks, heads] != 0).any() or (lse[heads, toks] != float("-inf")).any():
            problems.append(f"{int(blind_h.sum())} (head, query) pairs see no key through "
                            f"the per-head mask but have o != 0 or lse != -inf")
    if bad_o.any():
        rows = bad_o.nonzero().flatten()
        problems.append(f"{rows.numel()} token rows of o not finite (first token {rows[0].item()})")
    if bad_lse.any():
        cols = bad_lse.nonzero().flatten()
        problems.append(f"{cols.numel()} tokens' lse not finite (first token {cols[0].item()})")
    if blind.any():
        rows = blind.nonzero().flatten()
        not_zero = (o[rows] != 0).any(dim=2).any(dim=1)  # NaN != 0 too
        not_inf = (lse[:, rows] != float("-inf")).any(dim=0)
        if not_zero.any():
            problems.append(f"{int(not_zero.sum())} queries that see no key have o != 0 "
                            f"(first token {rows[not_zero.nonzero()[0]].item()})")
        if not_inf.any():
            problems.append(f"{int(not_inf.sum())} queries that see no key have lse != -inf "
                            f"(first token {rows[not_inf.nonzero()[0]].item()})")
    if pad and not (o_store[:, h * d:] == 7.0).all():
        problems.append("o's padding between token rows was written")
    of = o.float()
    diff = (of - ref_o).abs().nan_to_num(nan=float("inf"))
    max_rel = (diff.max() / ref_o.abs().max().clamp_min(1e-30)).item()
    mean_rel = (diff.mean() / ref_o.abs().mean().clamp_min(1e-30)).item()
    lse_diff = (lse - ref_lse).abs().nan_to_num(nan=float("inf"))
    lse_diff[:, blind] = 0.0  # checked exactly above (-inf - -inf is NaN)
    # A head that sees no key through its block mask: -inf on both sides.
    lse_diff[torch.isneginf(lse) & torch.isneginf(ref_lse)] = 0.0
    lse_err = lse_diff.max().item()
    if not max_rel <= O_MAX_REL:
        worst = diff.flatten().argmax().item()
        problems.append(f"o max rel err {max_rel:.2e} > {O_MAX_REL} (worst at token "
                        f"{worst // (h * d)}, head {(worst // d) % h})")
    if not mean_rel <= O_MEAN_REL:
        problems.append(f"o mean rel err {mean_rel:.2e} > {O_MEAN_REL}")
    if not lse_err <= LSE_MAX_ABS:
        worst = lse_diff.flatten().argmax().item()
        problems.append(f"lse max abs err {lse_err:.2e} > {LSE_MAX_ABS} (worst at head "
                        f"{worst // t}, token {worst % t})")
    peer_line = ""
    if peer:
        ok, line = compare_varlen(q, k, v, offsets, offsets_k, max_seqlen,
                                  max_seqlen_k if cross else max_seqlen, causal, eff_scale,
                                  tuple(window) if window is not None else (-1, -1), o, sees)
        peer_line = f"; {line}" if ok is not None else f"; (varlen_attn skipped: {line})"
        if ok is False:
            problems.append("ours and varlen_attn differ")
    blind_line = f", {int(blind.sum())} queries see no key" if blind.any() else ""
    res.report(not problems,
               f"{label}: o max rel {max_rel:.2e} mean rel {mean_rel:.2e}, lse max abs "
               f"{lse_err:.2e}{blind_line}, {elapsed * 1e3:.1f} ms{peer_line}"
               f"{'; ' + '; '.join(problems) if problems else ''}")


def run_gdpa_case(res, name, lengths, h, d, causal, scale, layout, gen, *, h_kv, lengths_k,
                  window, activation, block_mask=None):
    """run_case under a GDPA activation: o poisoned (with padding between
    token rows for layout "qkv"), no lse (None back); o against
    reference_gdpa within 2^-8 |P| |v| + 1e-2 + 1e-2 |ref| per element."""
    h_kv = h if h_kv is None else h_kv
    cross = lengths_k is not None
    q, k, v, offsets, offsets_k, t, t_k = random_inputs(lengths, h, d, gen, layout, h_kv,
                                                        lengths_k)
    max_seqlen = max(lengths) if lengths else 0
    pad = 64 if layout == "qkv" else 0
    o_store = torch.full((t, h * d + pad), 7.0, dtype=torch.bfloat16, device="cuda")
    o_store[:, :h * d] = float("nan")
    o = o_store[:, :h * d].view(t, h, d)
    options = dict(activation=activation)
    if window is not None:
        options["window"] = window
    if cross:
        options.update(offsets_k=offsets_k,
                       max_seqlen_k=max(lengths_k) if lengths_k else 0)
    blocks, skip = add_block_mask(options, gen, block_mask, t, t_k)
    if skip:
        res.report(True, f"{name}: {skip}")
        return
    label = (f"{name}: {activation} T={t} H={h}{f' H_kv={h_kv}' if h_kv != h else ''} D={d} "
             f"{'causal' if causal else 'full'}"
             f"{f' window={tuple(window)}' if window is not None else ''}"
             f"{f' block_mask={block_mask}' if block_mask is not None else ''}"
             f"{f' scale={scale}' if scale is not None else ''}"
             f"{f' layout={layout}' if layout != 'packed' else ''} {describe(lengths)}"
             f"{f' keys T_k={t_k} {describe(lengths_k)}' if cross else ''}")
    try:
        start = time.perf_counter()
        o_ret, lse_ret = jfa.jagged_attention(q, k, v, offsets, max_seqlen, causal=causal,
                                              softmax_scale=scale, o=o, **options)
        torch.cuda.synchronize()
        elapsed = time.perf_counter() - start
    except Exception as e:  # noqa: BLE001 - reported as a failure
        res.report(False, f"{label}: {type(e).__name__}: {e}")
        return
    problems = []
    if o_ret.data_ptr() != o.data_ptr():
        problems.append("did not return the given o")
    if lse_ret is not None:
        problems.append(f"returned an lse ({type(lse_ret).__name__}); GDPA has none")
    if t == 0:
        res.report(not problems, f"{label}{': ' + '; '.join(problems) if problems else ''}")
        return
    eff_scale = scale if scale is not None else 1.0 / math.sqrt(d)
    ref_o, pv, sees = reference_gdpa(q, k, v, offsets, causal, eff_scale, activation,
                                     offsets_k, tuple(window) if window is not None else (-1, -1),
                                     blocks)
    bad_o = (~torch.isfinite(o)).any(dim=2).any(dim=1) & sees
    if bad_o.any():
        rows = bad_o.nonzero().flatten()
        problems.append(f"{rows.numel()} token rows of o not finite (first token {rows[0].item()})")
    blind = ~sees
    if blind.any():
        rows = blind.nonzero().flatten()
        not_zero = (o[rows] != 0).any(dim=2).any(dim=1)  # NaN != 0 too
        if not_zero.any():
            problems.append(f"{int(not_zero.sum())} queries that see no key have o != 0 "
                            f"(first token {rows[not_zero.nonzero()[0]].item()})")
    if pad and not (o_store[:, h * d:] == 7.0).all():
        problems.append("o's padding between token rows was written")
    diff = (o.float() - ref_o).abs().nan_to_num(nan=float("inf"))
    bound = GDPA_ULP * pv + GDPA_ABS + GDPA_REL * ref_o.abs()
    ratio = (diff / bound).max().item()
    max_rel = (diff.max() / ref_o.abs().max().clamp_min(1e-30)).item()
    mean_rel = (diff.mean() / ref_o.abs().mean().clamp_min(1e-30)).item()
    if not ratio <= 1.0:
        worst = (diff / bound).flatten().argmax().item()
        tok, head = worst // (h * d), (worst // d) % h
        problems.append(f"o exceeds 2^-8 |P||v| + {GDPA_ABS} + {GDPA_REL} |ref| by "
                        f"{ratio:.2f}x (worst at token {tok}, head {head}: "
                        f"|{o.flatten()[worst].item():.4g} - {ref_o.flatten()[worst].item():.4g}|"
                        f" > {bound.flatten()[worst].item():.3g})")
    blind_line = f", {int(blind.sum())} queries see no key" if blind.any() else ""
    res.report(not problems,
               f"{label}: o err / bound max {ratio:.2f}, max rel {max_rel:.2e} mean rel "
               f"{mean_rel:.2e}{blind_line}, {elapsed * 1e3:.1f} ms"
               f"{'; ' + '; '.join(problems) if problems else ''}")


def error_paths(res):
    h, d = 2, 64
    lengths = [5, 0, 9]
    t = sum(lengths)
    q, k, v = (torch.randn((t, h, d), device="cuda").to(torch.bfloat16) for _ in range(3))
    offs = make_offsets(lengths)
    f = jfa.jagged_attention
    expect_error(res, "q fp16", TypeError, lambda: f(q.half(), k, v, offs, 9), "q", "bfloat16")
    expect_error(res, "v fp32", TypeError, lambda: f(q, k, v.float(), offs, 9), "v", "bfloat16")
    expect_error(res, "offsets int64", TypeError, lambda: f(q, k, v, offs.long(), 9),
                 "offsets", "int32")
    expect_error(res, "q not a tensor", TypeError, lambda: f(q.tolist(), k, v, offs, 9), "q")
    expect_error(res, "q on the CPU", ValueError, lambda: f(q.cpu(), k, v, offs, 9), "cuda")
    expect_error(res, "offsets on the CPU", ValueError, lambda: f(q, k, v, offs.cpu(), 9),
                 "offsets", "device")
    expect_error(res, "q 2-d", ValueError, lambda: f(q.flatten(1), k, v, offs, 9), "q", "3-d")
    expect_error(res, "k tokens", ValueError, lambda: f(q, k[:-1], v[:-1], offs, 9), "k",
                 "T = 14")
    expect_error(res, "v shape", ValueError, lambda: f(q, k, v[:, :1], offs, 9), "v",
                 "shape of k")
    expect_error(res, "D = 96", ValueError,
                 lambda: f(*(torch.zeros((t, h, 96), dtype=torch.bfloat16, device="cuda")
                             for _ in range(3)), offs, 9), "96")
    expect_error(res, "offsets 2-d", ValueError, lambda: f(q, k, v, offs.view(1, -1), 9),
                 "offsets", "1-d")
    expect_error(res, "offsets not starting at 0", ValueError,
                 lambda: f(q, k, v, make_offsets([5, 0, 9]) + 1, 10), "offsets[0]")
    expect_error(res, "offsets decreasing", ValueError,
                 lambda: f(q, k, v, torch.tensor([0, 6, 3, t], dtype=torch.int32,
                                                 device="cuda"), 11), "non-decreasing")
    expect_error(res, "offsets not ending at T", ValueError,
                 lambda: f(q, k, v, make_offsets([5, 0, 8]), 9), "T = 14")
    expect_error(res, "max_seqlen too small", ValueError,
                 lambda: f(q, k, v, offs, 8), "max_seqlen", "9 tokens")
    expect_error(res, "max_seqlen not an int", TypeError, lambda: f(q, k, v, offs, 9.0),
                 "max_seqlen")
    expect_error(res, "softmax_scale 0", ValueError,
                 lambda: f(q, k, v, offs, 9, softmax_scale=0.0), "softmax_scale")
    expect_error(res, "softmax_scale negative", ValueError,
                 lambda: f(q, k, v, offs, 9, softmax_scale=-0.5), "softmax_scale")
    expect_error(res, "o of the wrong shape", ValueError,
                 lambda: f(q, k, v, offs, 9, o=torch.empty((t, h, d + 1), dtype=torch.bfloat16,
                                                          device="cuda")), "o")
    expect_error(res, "lse transposed", ValueError,
                 lambda: f(q, k, v, offs, 9, lse=torch.empty((t, h), device="cuda").t()), "lse")
    # The runtime's own checks (check_offsets in the C API), past the Python ones.
    o = torch.empty_like(q)
    lse = torch.empty((h, t), device="cuda")
    scale = 1 / math.sqrt(d)
    for name, bad, ms in (("not starting at 0", make_offsets(lengths) + 1, 10),
                          ("decreasing", torch.tensor([0, 6, 3, t], dtype=torch.int32,
                                                      device="cuda"), 11),
                          ("not ending at T", make_offsets([5, 0, 8]), 9),
                          ("max_seqlen too small", offs, 8)):
        expect_error(res, f"runtime check: offsets {name}", RuntimeError,
                     lambda: (_forward.run_kernel(q, k, v, o, lse, bad, ms, False, scale, True),
                              torch.cuda.synchronize()))
    # Nothing above may have broken the context: a good call still works.
    run_case(res, "after the error paths", lengths, h, d, False)


tanh = ctypes.create_string_buffer(b"tanh")  # an activation the runtime does not know


def variant_error_paths(res):
    """The errors of issue 20's options, in Python and in the runtime."""
    h, d = 2, 64
    lengths, lengths_k = [5, 0, 9], [3, 8, 0]
    t, t_k = sum(lengths), sum(lengths_k)
    q = torch.randn((t, h, d), device="cuda").to(torch.bfloat16)
    k, v = (torch.randn((t_k, 1, d), device="cuda").to(torch.bfloat16) for _ in range(2))
    ks, vs = (torch.randn((t, h, d), device="cuda").to(torch.bfloat16) for _ in range(2))
    offs, offs_k = make_offsets(lengths), make_offsets(lengths_k)
    f = jfa.jagged_attention

    def cross(**kw):
        return f(q, k, v, offs, 9, **dict(dict(offsets_k=offs_k, max_seqlen_k=8), **kw))
    expect_error(res, "causal with window right > 0", ValueError,
                 lambda: f(q, ks, vs, offs, 9, causal=True, window=(10, 5)), "causal", "window")
    expect_error(res, "window left -2", ValueError,
                 lambda: f(q, ks, vs, offs, 9, window=(-2, 0)), "window[0]", "-2")
    expect_error(res, "window not a pair", TypeError, lambda: f(q, ks, vs, offs, 9, window=5),
                 "window")
    expect_error(res, "window of three", ValueError,
                 lambda: f(q, ks, vs, offs, 9, window=(1, 2, 3)), "window", "pair")
    expect_error(res, "H not a multiple of H_kv", ValueError,
                 lambda: f(q, *(torch.zeros((t, 3, d), dtype=torch.bfloat16, device="cuda")
                                for _ in range(2)), offs, 9), "H_kv = 3", "multiple")
    expect_error(res, "k's head dim", ValueError,
                 lambda: f(q, *(torch.zeros((t, 1, 128), dtype=torch.bfloat16, device="cuda")
                                for _ in range(2)), offs, 9), "head dim")
    expect_error(res, "other key tokens without offsets_k", ValueError,
                 lambda: f(q, k, v, offs, 9), "offsets_k", "self-attention")
    expect_error(res, "offsets_k without max_seqlen_k", ValueError,
                 lambda: cross(max_seqlen_k=None), "max_seqlen_k", "required")
    expect_error(res, "max_seqlen_k without offsets_k", ValueError,
                 lambda: f(q, ks, vs, offs, 9, max_seqlen_k=9), "max_seqlen_k", "offsets_k")
    expect_error(res, "offsets_k int64", TypeError, lambda: cross(offsets_k=offs_k.long()),
                 "offsets_k", "int32")
    expect_error(res, "offsets_k on the CPU", ValueError, lambda: cross(offsets_k=offs_k.cpu()),
                 "offsets_k", "device")
    expect_error(res, "offsets_k of another batch", ValueError,
                 lambda: cross(offsets_k=make_offsets([3, 8])), "offsets_k", "shape")
    expect_error(res, "offsets_k not ending at T_k", ValueError,
                 lambda: cross(offsets_k=make_offsets([3, 7, 0])), "offsets_k", "T_k = 11")
    expect_error(res, "offsets_k decreasing", ValueError,
                 lambda: cross(offsets_k=torch.tensor([0, 8, 3, t_k], dtype=torch.int32,
                                                      device="cuda")), "non-decreasing")
    expect_error(res, "max_seqlen_k too small", ValueError, lambda: cross(max_seqlen_k=7),
                 "max_seqlen_k", "8 keys")
    expect_error(res, "block_mask of no known form", TypeError,
                 lambda: f(q, ks, vs, offs, 9, block_mask=object()), "block_mask must be",
                 "BlockMask", "got object")
    expect_error(res, "activation relu", ValueError,
                 lambda: f(q, ks, vs, offs, 9, activation="relu"), "activation='relu'",
                 "'silu'", "'gelu_tanh'")
    expect_error(res, "activation not a str", TypeError,
                 lambda: f(q, ks, vs, offs, 9, activation=None), "activation", "str")
    expect_error(res, "lse given with a GDPA activation", ValueError,
                 lambda: f(q, ks, vs, offs, 9, activation="silu",
                           lse=torch.empty((h, t), device="cuda")), "lse must be None",
                 "activation='silu'")
    # Gradients with the options: the call takes them (the backward has them
    # too: test/gpu/attention_bwd_test.py checks its gradients).
    qg = q.detach().clone().requires_grad_()
    for name, call in (
            ("window", lambda: f(qg, ks, vs, offs, 9, window=(4, 0), causal=True)),
            ("GQA", lambda: f(qg, ks[:, :1], vs[:, :1], offs, 9)),
            ("cross-attention", lambda: f(qg, k, v, offs, 9, offsets_k=offs_k,
                                          max_seqlen_k=8)),
            ("silu + cross-attention + window", lambda: f(
                qg, k, v, offs, 9, offsets_k=offs_k, max_seqlen_k=8, window=(3, 0), causal=True,
                activation="silu")),
            ("gelu_tanh", lambda: f(qg, ks, vs, offs, 9, activation="gelu_tanh"))):
        try:
            og, _ = call()
            og.float().sum().backward()
            torch.cuda.synchronize()
            ok = og.requires_grad and qg.grad is not None and bool(torch.isfinite(qg.grad).all())
            res.report(ok, f"{name} with gradients: runs, q.grad finite")
        except Exception as e:  # noqa: BLE001 - reported as a failure
            res.report(False, f"{name} with gradients: {type(e).__name__}: {e}")
        qg.grad = None
    # GDPA through autograd: lse is None there too.
    og, lse_g = f(qg, ks, vs, offs, 9, activation="silu")
    res.report(lse_g is None and og.requires_grad,
               f"silu with gradients: lse {lse_g!r} (want None), o.requires_grad "
               f"{og.requires_grad}")
    # Without grad mode the same call runs, and gives what the plain inputs give.
    with torch.no_grad():
        o1, lse1 = f(qg, ks, vs, offs, 9, window=(4, 0), causal=True)
    o2, lse2 = f(q, ks, vs, offs, 9, window=(4, 0), causal=True)
    res.report(torch.equal(o1, o2) and torch.equal(lse1, lse2),
               "window with requires_grad inputs under torch.no_grad: runs, same as without")
    # The runtime's own checks (check_offsets and the window's rules in the C API).
    o = torch.empty_like(q)
    lse = torch.empty((h, t), device="cuda")
    scale = 1 / math.sqrt(d)
    for name, bad, ms, needles in (
            ("offsets_k decreasing", torch.tensor([0, 8, 3, t_k], dtype=torch.int32,
                                                  device="cuda"), 8, ("offsets_k[2]",)),
            ("offsets_k not ending at T_k", make_offsets([3, 7, 0]), 8, ("T_k = 11",)),
            ("max_seqlen_k too small", offs_k, 7, ("max_seqlen_k = 7",))):
        expect_error(res, f"runtime check: {name}", RuntimeError,
                     lambda: (_forward.run_kernel(q, k, v, o, lse, offs, 9, False, scale, True,
                                                  offsets_k=bad, max_seqlen_k=ms),
                              torch.cuda.synchronize()), *needles)
    expect_error(res, "runtime check: causal with window right > 0", RuntimeError,
                 lambda: _forward.run_kernel(q, ks, vs, o, lse, offs, 9, True, scale, False,
                                             window=(5, 3)), "causal and window_right = 3")
    expect_error(res, "runtime check: window right -2", RuntimeError,
                 lambda: _forward.run_kernel(q, ks, vs, o, lse, offs, 9, False, scale, False,
                                             window=(5, -2)), "window_right must be -1")
    # GDPA writes no lse: the runtime's own call with a poisoned lse keeps
    # it, with keys (the kernel) and without (T_k = 0: o = 0 by a memset).
    for name, keys_k, offs_kk, ms_k in (("with keys", k, offs_k, 8),
                                        ("without keys (T_k = 0)",
                                         torch.empty((0, 1, d), dtype=torch.bfloat16,
                                                     device="cuda"),
                                         make_offsets([0, 0, 0]), 0)):
        for act in ("silu", "gelu_tanh"):
            o_p = torch.full_like(q, float("nan"))
            lse_p = torch.full((h, t), float("nan"), device="cuda")
            try:
                _forward.run_kernel(q, keys_k, keys_k, o_p, lse_p, offs, 9, False, scale, True,
                                    offsets_k=offs_kk, max_seqlen_k=ms_k, activation=act)
                torch.cuda.synchronize()
                kept = bool(torch.isnan(lse_p).all())
                written = bool(torch.isfinite(o_p).all())
                zero = ms_k > 0 or bool((o_p == 0).all())
                res.report(kept and written and zero,
                           f"{act} {name}: lse untouched {kept}, o written {written}"
                           f"{'' if ms_k else f', o = 0 {zero}'}")
            except Exception as e:  # noqa: BLE001
                res.report(False, f"{act} {name}: {type(e).__name__}: {e}")
    expect_error(res, "runtime check: activation 'tanh'", RuntimeError,
                 lambda: _forward._lib.forward(
                     q.get_device(), _forward._lib.packed_forward_args(
                         *([0] * 16), 0, 0, _forward._lib.BF16_ADDRESS, _forward._lib.I32_ADDRESS,
                         0, 1, 64, 0, 0, 0, 0.0, 0, 0, 0, 0, 0, 0, -1, -1,
                         ctypes.addressof(tanh), 0, 0), 0),
                 "activation 'tanh' is not supported")
    run_case(res, "after the variants' error paths", lengths, h, d, True, h_kv=1,
             lengths_k=lengths_k, window=(2, -1))


def reference_mask_check(res):
    """The reference's causal mask for other query and key lengths against
    torch's own bottom-right one (torch.nn.attention.bias.causal_lower_right)."""
    try:
        from torch.nn.attention.bias import causal_lower_right
    except ImportError as e:
        print(f"skip: the reference's mask against causal_lower_right: {e}", flush=True)
        return
    bad = []
    for n, m in ((5, 9), (9, 5), (1, 1), (1, 7), (7, 1), (128, 300), (300, 128), (64, 64)):
        try:
            theirs = causal_lower_right(n, m)._materialize("cuda")
        except Exception as e:  # noqa: BLE001 - a private helper of torch's
            print(f"skip: causal_lower_right({n}, {m})._materialize: {e}", flush=True)
            return
        if not torch.equal(visible(n, m, True, (-1, -1), "cuda"), theirs.bool()):
            bad.append((n, m))
    res.report(not bad, "the reference's causal mask is torch's causal_lower_right"
               f"{f' (differs for {bad})' if bad else ''}")


def plain_equivalences(res, gen):
    """A window of (-1, -1) and causal's own (-1, 0) launch exactly the plain
    forward: the same bits."""
    lengths = [0, 1, 63, 129, 300]
    t, h, d = sum(lengths), 4, 128
    q, k, v = (torch.randn((t, h, d), generator=gen, device="cuda").to(torch.bfloat16)
               for _ in range(3))
    offs = make_offsets(lengths)
    for causal, window in ((False, (-1, -1)), (True, (-1, -1)), (True, (-1, 0))):
        o1, lse1 = jfa.jagged_attention(q, k, v, offs, 300, causal=causal)
        o2, lse2 = jfa.jagged_attention(q, k, v, offs, 300, causal=causal, window=window)
        res.report(torch.equal(o1, o2) and torch.equal(lse1, lse2),
                   f"window={window} {'causal' if causal else 'full'} is the plain forward, "
                   f"bit for bit")


def variant_cases(case, rng, quick):
    """Issue 20's variants: windows, GQA, cross-attention, combinations."""
    boundary = [0, 1, 63, 64, 65, 127, 128, 129, 700]
    # Sliding windows (self-attention); causal with (100, 0) / (100, -1).
    windows = (((0, 0), False), ((-1, 0), False), ((64, -1), False), ((300, 5), False),
               ((100, 0), True), ((100, -1), True), ((127, 129), False), ((5, 3), False),
               ((0, -1), False), ((2**40, 2**40), False))
    for window, causal in windows:
        for d in (64, 128):
            peer = d == 128 and window != (2**40, 2**40)
            case("window", boundary, 2, d, causal, window=window, peer=peer)
    case("window, scale 0.3", [300, 17, 64, 0, 129], 4, 64, False, scale=0.3, window=(32, 32))
    case("window on a long sequence", [16500], 2, 128, True, window=(256, 0), peer=True)
    if not quick:
        case("window on a long sequence", [3, 16500, 0, 129], 1, 64, False,
             window=(1000, 1000))
    # Grouped-query / multi-query attention.
    for h_kv in (1, 2):
        for d in (64, 128):
            for causal in (False, True):
                case("GQA", boundary, 4, d, causal, h_kv=h_kv, peer=d == 128)
    case("GQA, k and v views of one tensor", [250, 1, 0, 128, 77], 8, 128, True, h_kv=2,
         layout="kv")
    case("MQA, many heads", random_lengths(rng, 6, 1, 600), 16, 64, True, h_kv=1)
    # Cross-attention: other key lengths, 0 keys, 0 queries, bottom-right causal.
    lq = [5, 0, 130, 64, 1, 200, 0, 77, 129, 300]
    lk = [9, 4, 0, 64, 300, 129, 0, 1, 128, 700]
    for d in (64, 128):
        for causal in (False, True):
            case("cross", lq, 2, d, causal, lengths_k=lk, peer=True)
    for causal in (False, True):
        case("cross, no keys at all", [5, 0, 130], 2, 64, causal, lengths_k=[0, 0, 0])
    case("cross, no queries", [0, 0], 2, 64, True, lengths_k=[50, 7])
    case("cross, equal lengths", boundary, 2, 128, True, lengths_k=boundary)
    case("cross, fewer keys (causal: the first queries see none)", [300, 129, 64], 2, 128,
         True, lengths_k=[100, 1, 0], peer=True)
    case("cross, long keys", [128, 3], 2, 128, True, lengths_k=[16500, 5000], peer=True)
    # Combinations.
    case("window + GQA", boundary, 8, 128, True, h_kv=2, window=(128, 0), peer=True)
    case("window + GQA", boundary, 8, 64, False, h_kv=2, window=(50, 50))
    case("cross + GQA + causal", lq, 4, 128, True, h_kv=1, lengths_k=lk, peer=True)
    case("cross + GQA + causal", lq, 4, 64, True, h_kv=2, lengths_k=lk, layout="kv")
    case("cross + window", lq, 2, 64, False, lengths_k=lk, window=(32, 8), peer=True)
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
             lengths_k=lengths_k)
    gdpa_cases(case, rng, quick)
    block_sparse_cases(case, rng, quick)


def block_sparse_cases(case, rng, quick):
    """Block-sparse (block_mask): random masks over the packed axes, shared
    or per q head, in each form jagged_attention takes (a bool tensor, the
    (kv_num_blocks, kv_indices) lists with junk past the counts, a
    FlexAttention BlockMask), alone and with the other options; an empty
    mask (o = 0, lse = -inf) and a full one (the general variant's result)."""
    boundary = [0, 1, 63, 64, 65, 127, 128, 129, 300]
    for form in ("bool", "lists", "flex"):
        for d in (64, 128):
            case(f"block-sparse ({form})", boundary, 2, d, False, block_mask=(1, 0.5, form))
            case(f"block-sparse per head ({form})", boundary, 4, d, True,
                 block_mask=(4, 0.5, form))
    case("block-sparse, empty", [130, 7, 300], 2, 64, False, block_mask=(1, 0.0, "bool"))
    case("block-sparse, full", [130, 7, 300], 2, 128, True, block_mask=(1, 1.0, "bool"))
    case("block-sparse + window + GQA", boundary, 8, 128, True, h_kv=2, window=(200, 0),
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
    # attention_bench.py's sparse-25-causal batch (unif4k: lengths up to 4096,
    # 32K tokens): it hung until the waits lost their inline bra.uni (run 64).
    bench_rng, unif4k = random.Random(2001), []
    while sum(unif4k) < 32768:
        unif4k.append(bench_rng.randint(1, 4096))
    unif4k[-1] -= sum(unif4k) - 32768
    case("block-sparse causal, the bench's unif4k batch", unif4k, 16, 128, True,
         block_mask=(1, 0.25, "bool"))
    for act in ("silu", "gelu_tanh"):
        case("block-sparse GDPA", boundary, 4, 64, True, activation=act,
             block_mask=(4, 0.5, "lists"))
        case("block-sparse GDPA + cross", [0, 5, 130, 64, 3, 0], 2, 128, False, activation=act,
             lengths_k=[4, 0, 70, 300, 1, 0], block_mask=(1, 0.4, "bool"))
    for i in range(2 if quick else 8):
        d = rng.choice((64, 128))
        h = rng.choice((1, 2, 4))
        lengths = random_lengths(rng, rng.randint(1, 30), 1, rng.choice((130, 700, 2100)))
        case(f"random block-sparse {i}", lengths, h, d, rng.random() < 0.5,
             block_mask=(rng.choice((1, h)), rng.choice((0.05, 0.3, 0.7)),
                         rng.choice(("bool", "lists"))))


def gdpa_cases(case, rng, quick):
    """GDPA (silu, gelu_tanh in place of softmax), alone and with the
    options: the jfa-interp cases' shapes (test/interp/kernels.py) and the
    edges above."""
    boundary = [0, 1, 63, 64, 65, 127, 128, 129, 700]
    lq = [5, 0, 130, 64, 1, 200, 0, 77, 129, 300]
    lk = [9, 4, 0, 64, 300, 129, 0, 1, 128, 700]
    for act in ("silu", "gelu_tanh"):
        for d in (64, 128):
            for causal in (False, True):
                case("GDPA", boundary, 2, d, causal, activation=act,
                     scale=0.3 if d == 64 else None)
        case("GDPA, window", boundary, 2, 128, False, window=(40, 7), activation=act)
        case("GDPA, window + causal", boundary, 2, 64, True, window=(100, 0), activation=act)
        case("GDPA, window of one key", [3, 129], 2, 128, False, window=(0, 0), activation=act)
        case("GDPA, GQA", boundary, 4, 128, True, h_kv=2, activation=act)
        case("GDPA, MQA + window", [200, 7, 130], 3, 128, False, h_kv=1, window=(64, 64),
             activation=act)
        case("GDPA, cross", lq, 2, 64, False, lengths_k=lk, activation=act)
        case("GDPA, cross + causal (the first queries see none)", [300, 129, 64], 2, 128, True,
             lengths_k=[100, 1, 0], activation=act)
        case("GDPA, cross + GQA + window + causal", lq, 4, 128, True, h_kv=2, lengths_k=lk,
             window=(100, 0), activation=act)
        case("GDPA, cross, no keys at all", [5, 0, 130], 2, 64, True, lengths_k=[0, 0, 0],
             activation=act)
        case("GDPA, cross, no queries", [0, 0], 2, 64, False, lengths_k=[50, 7],
             activation=act)
        case("GDPA, qkv views, padded o", [250, 1, 0, 128, 77], 8, 128, True, layout="qkv",
             activation=act)
        case("GDPA, k and v views", [250, 1, 0, 128, 77], 8, 64, False, h_kv=2, layout="kv",
             activation=act)
        case("GDPA, a long sequence", [16500], 2, 128, True, activation=act)
        if not quick:
            case("GDPA, a long sequence, window", [3, 16500, 0, 129], 1, 64, False,
                 window=(1000, 1000), activation=act)
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


def main():
    args, seed, rng, gen, res = start(
        __doc__, "a few small cases (for compute-sanitizer)",
        flags=[("--variants", "only issue 20's variants (window, GQA, cross-attention, GDPA)"),
               ("--plain", "only the plain attention's cases (the whole matrix is --plain "
                "and --variants, e.g. run side by side on two GPUs)")])

    def case(name, *a, **kw):
        if args.only is None or args.only in name:
            run_case(res, name, *a, gen=gen, **kw)

    if args.sanitize:
        if not args.variants:
            case("sanitize small", [1, 0, 63, 129], 2, 64, False)
            case("sanitize causal", [65, 128, 0, 7], 2, 128, True)
            case("sanitize qkv view", [130, 3], 1, 64, True, scale=0.3, layout="qkv")
            # Long enough for the 192-row specialization under causal
            # masking (the runtime's kTallTileDiagonalMinSeqlen, 2048).
            case("sanitize causal d64 long", [2050, 1, 190], 1, 64, True)
            error_paths(res)
        if args.plain:
            return res.summary(seed)
        case("sanitize window", [1, 0, 63, 129], 2, 64, True, window=(64, 0))
        case("sanitize window", [130, 7], 2, 128, False, window=(3, 70))
        case("sanitize GQA", [65, 128, 0, 7], 4, 128, True, h_kv=1)
        case("sanitize cross + GQA + window", [5, 0, 130], 4, 64, True, h_kv=2,
             lengths_k=[9, 4, 0], window=(16, -1))
        case("sanitize cross, no keys", [5, 3], 2, 64, False, lengths_k=[0, 0])
        case("sanitize GDPA", [1, 0, 63, 129], 2, 64, True, activation="silu")
        case("sanitize GDPA + cross + GQA + window", [5, 0, 130], 4, 128, True, h_kv=2,
             lengths_k=[9, 4, 0], window=(16, -1), activation="gelu_tanh")
        case("sanitize GDPA, no keys", [5, 3], 2, 64, False, lengths_k=[0, 0],
             activation="silu")
        case("sanitize block-sparse", [1, 0, 63, 129, 300], 2, 64, True,
             block_mask=(2, 0.5, "lists"))
        case("sanitize block-sparse + cross + GQA", [5, 0, 130], 4, 128, False, h_kv=2,
             lengths_k=[9, 4, 300], block_mask=(1, 0.5, "bool"))
    else:
        if not args.variants:
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
            case("qkv views, padded o", [250, 1, 0, 128, 77], 8, 128, True, layout="qkv")
            case("qkv views, padded o", [250, 1, 0, 128, 77], 8, 64, False, layout="qkv")
            n_random = 6 if args.quick else 24
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
            case("long and short", [3, long_len, 0, 129], 1, 128, False)
            # Causal at D = 64 past the runtime's bound for 192-row q tiles
            # (kTallTileDiagonalMinSeqlen): the specialization's diagonal.
            case("long and short, causal", [3, 4100, 0, 193, 2048], 2, 64, True)
            for d in (64, 128) if not args.quick else (128,):
                lengths = random_lengths(rng, 1200, 1, 200, p_empty=0.05)
                case("1200 sequences", lengths, 8 if d == 64 else 4, d, rng.random() < 0.5)
            case("many heads", random_lengths(rng, 6, 1, 600), 32, 64, True)
            error_paths(res)
        if not args.plain:
            reference_mask_check(res)
            plain_equivalences(res, gen)
            variant_cases(case, rng, args.quick)
            variant_error_paths(res)

    return res.summary(seed)


if __name__ == "__main__":
    sys.exit(main())
