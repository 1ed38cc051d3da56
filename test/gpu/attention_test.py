"""jfa.jagged_attention on the GPU against an fp32 reference.

    PYTHONPATH=dist/jfa/python python3 test/gpu/attention_test.py [--quick] [--sanitize] [--seed N]

Each case draws fresh random data (the seed is printed; --seed repeats a
run), poisons o and lse with NaN, runs the kernel and compares with a
reference computed per sequence in fp32 from the same bf16 inputs (scores
q k^T * scale, causal = top-left mask col <= row within the sequence,
softmax, P v, lse = logsumexp of the scaled scores).

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
  every o row and lse entry is written and finite (poisoned with NaN before);
  where o is a view with padding between token rows, the padding is not
  touched.
Then the error paths: wrong dtypes, devices, shapes, offsets and max_seqlen
raise TypeError / ValueError with a message; and the runtime's own offset
checks (check_offsets in the C API) raise RuntimeError.

--sanitize: a few small cases only (for compute-sanitizer, e.g.
  compute-sanitizer --tool memcheck python3 test/gpu/attention_test.py --sanitize).
Exit status 0 when everything passed.
"""
import math
import sys
import time

import torch

import jfa
from gpu_common import describe, expect_error, make_offsets, random_lengths, start
from jfa import _forward

O_MAX_REL = 1e-2
O_MEAN_REL = 4e-3
LSE_MAX_ABS = 1e-2


def reference(q, k, v, offsets, causal, scale):
    """fp32 o [T, H, D] and lse [H, T], one sequence (and for long ones one
    head) at a time."""
    t, h, d = q.shape
    o = torch.zeros((t, h, d), dtype=torch.float32, device=q.device)
    lse = torch.zeros((h, t), dtype=torch.float32, device=q.device)
    offs = offsets.tolist()
    for b in range(len(offs) - 1):
        s, e = offs[b], offs[b + 1]
        n = e - s
        if n == 0:
            continue
        # Heads per chunk so that the [heads, n, n] score matrix stays under ~2 GiB.
        hc = max(1, min(h, (1 << 29) // (n * n)))
        for h0 in range(0, h, hc):
            h1 = min(h, h0 + hc)
            qs = q[s:e, h0:h1].float().transpose(0, 1)  # [hc, n, d]
            ks = k[s:e, h0:h1].float().transpose(0, 1)
            vs = v[s:e, h0:h1].float().transpose(0, 1)
            scores = torch.matmul(qs, ks.transpose(1, 2)) * scale
            if causal:
                mask = torch.ones((n, n), dtype=torch.bool, device=q.device).triu_(1)
                scores.masked_fill_(mask, float("-inf"))
            lse[h0:h1, s:e] = torch.logsumexp(scores, dim=-1)
            o[s:e, h0:h1] = torch.matmul(torch.softmax(scores, dim=-1), vs).transpose(0, 1)
            del scores
    return o, lse


def run_case(res, name, lengths, h, d, causal, scale=None, layout="packed", gen=None):
    """One case: random q, k, v for the given sequence lengths; o and lse
    poisoned; compared with the reference."""
    t = sum(lengths)
    offsets = make_offsets(lengths)
    max_seqlen = max(lengths) if lengths else 0
    if layout == "qkv":  # q, k, v as views of one [T, 3, H, D] tensor (token stride 3*H*D)
        qkv = torch.randn((t, 3, h, d), generator=gen, device="cuda").to(torch.bfloat16)
        q, k, v = qkv[:, 0], qkv[:, 1], qkv[:, 2]
    else:
        q, k, v = (torch.randn((t, h, d), generator=gen, device="cuda").to(torch.bfloat16)
                   for _ in range(3))
    pad = 0
    if layout == "qkv":  # and o with 64 elements of padding after each token row
        pad = 64
        o_store = torch.full((t, h * d + pad), 7.0, dtype=torch.bfloat16, device="cuda")
        o_store[:, :h * d] = float("nan")
        o = o_store[:, :h * d].view(t, h, d)
    else:
        o = torch.full((t, h, d), float("nan"), dtype=torch.bfloat16, device="cuda")
    lse = torch.full((h, t), float("nan"), dtype=torch.float32, device="cuda")
    start = time.perf_counter()
    o_ret, lse_ret = jfa.jagged_attention(q, k, v, offsets, max_seqlen, causal=causal,
                                          softmax_scale=scale, o=o, lse=lse)
    torch.cuda.synchronize()
    elapsed = time.perf_counter() - start
    eff_scale = scale if scale is not None else 1.0 / math.sqrt(d)
    label = (f"{name}: T={t} H={h} D={d} {'causal' if causal else 'full'}"
             f"{f' scale={scale}' if scale is not None else ''}"
             f"{f' layout={layout}' if layout != 'packed' else ''} {describe(lengths)}")
    problems = []
    if o_ret.data_ptr() != o.data_ptr() or lse_ret.data_ptr() != lse.data_ptr():
        problems.append("did not return the given o / lse")
    if t == 0:
        res.report(not problems, f"{label}{': ' + '; '.join(problems) if problems else ''}")
        return
    bad_o = (~torch.isfinite(o)).any(dim=2).any(dim=1)  # per token
    bad_lse = (~torch.isfinite(lse)).any(dim=0)
    if bad_o.any():
        rows = bad_o.nonzero().flatten()
        problems.append(f"{rows.numel()} token rows of o not finite (first token {rows[0].item()})")
    if bad_lse.any():
        cols = bad_lse.nonzero().flatten()
        problems.append(f"{cols.numel()} tokens' lse not finite (first token {cols[0].item()})")
    if pad and not (o_store[:, h * d:] == 7.0).all():
        problems.append("o's padding between token rows was written")
    ref_o, ref_lse = reference(q, k, v, offsets, causal, eff_scale)
    of = o.float()
    diff = (of - ref_o).abs().nan_to_num(nan=float("inf"))
    max_rel = (diff.max() / ref_o.abs().max().clamp_min(1e-30)).item()
    mean_rel = (diff.mean() / ref_o.abs().mean().clamp_min(1e-30)).item()
    lse_err = (lse - ref_lse).abs().nan_to_num(nan=float("inf")).max().item()
    if not max_rel <= O_MAX_REL:
        worst = diff.flatten().argmax().item()
        problems.append(f"o max rel err {max_rel:.2e} > {O_MAX_REL} (worst at token "
                        f"{worst // (h * d)}, head {(worst // d) % h})")
    if not mean_rel <= O_MEAN_REL:
        problems.append(f"o mean rel err {mean_rel:.2e} > {O_MEAN_REL}")
    if not lse_err <= LSE_MAX_ABS:
        worst = (lse - ref_lse).abs().nan_to_num(nan=float("inf")).flatten().argmax().item()
        problems.append(f"lse max abs err {lse_err:.2e} > {LSE_MAX_ABS} (worst at head "
                        f"{worst // t}, token {worst % t})")
    res.report(not problems,
               f"{label}: o max rel {max_rel:.2e} mean rel {mean_rel:.2e}, lse max abs "
               f"{lse_err:.2e}, {elapsed * 1e3:.1f} ms{'; ' + '; '.join(problems) if problems else ''}")


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
    expect_error(res, "k shape", ValueError, lambda: f(q, k[:, :1], v, offs, 9), "k", "shape")
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


def main():
    args, seed, rng, gen, res = start(__doc__, "a few small cases (for compute-sanitizer)")

    def case(*a, **kw):
        run_case(res, *a, gen=gen, **kw)

    if args.sanitize:
        case("sanitize small", [1, 0, 63, 129], 2, 64, False)
        case("sanitize causal", [65, 128, 0, 7], 2, 128, True)
        case("sanitize qkv view", [130, 3], 1, 64, True, scale=0.3, layout="qkv")
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
        for d in (64, 128) if not args.quick else (128,):
            lengths = random_lengths(rng, 1200, 1, 200, p_empty=0.05)
            case("1200 sequences", lengths, 8 if d == 64 else 4, d, rng.random() < 0.5)
        case("many heads", random_lengths(rng, 6, 1, 600), 32, 64, True)
        error_paths(res)

    return res.summary(seed)


if __name__ == "__main__":
    sys.exit(main())
