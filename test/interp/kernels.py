#!/usr/bin/env python3
"""Runs the kernels of kernels/ in jfa-interp on small random inputs (fresh
each run, outputs poisoned with NaN first) and compares what they write with
a numpy reference.

    kernels.py --interp build/bin/jfa-interp [--kernels kernels/] CASE...
    kernels.py --list

Exit status 0 when every case matches. bf16 travels as raw 16-bit words.
"""
import argparse
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "python", "jfa"))
from _schedule import block_phases, schedule_list  # noqa: E402  (no torch needed)


def to_bf16(x):
    """float array -> bf16 words (round to nearest even)."""
    u = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return u.astype(np.uint16)


def from_bf16(w):
    return (np.asarray(w, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


BF16_NAN = np.uint16(0x7FC0)


class Run:
    def __init__(self, interp, kernels, tmp, rng, interp_args=()):
        self.interp, self.kernels, self.tmp, self.rng = interp, kernels, tmp, rng
        self.interp_args = list(interp_args)

    def save(self, name, array):
        path = os.path.join(self.tmp, name + ".npy")
        np.save(path, array)
        return path

    def load(self, path):
        return np.load(path)

    def bf16_input(self, name, shape, scale=1.0):
        x = self.rng.standard_normal(shape).astype(np.float32) * scale
        words = to_bf16(x)
        return self.save(name, words), from_bf16(words).astype(np.float64)

    def interp_run(self, kernel, arch, grid, args, params=None, extra=()):
        """params: {name: value} for the kernel's compile-time parameters;
        extra: more jfa-interp options (its stdout is kept in last_stdout)."""
        cmd = [self.interp, os.path.join(self.kernels, kernel), "--arch", arch,
               "--grid", grid]
        cmd += [f"-P{n}={v}" for n, v in (params or {}).items()]
        cmd += self.interp_args + list(extra)
        cmd += [str(a) for a in args]
        start = time.time()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError("jfa-interp failed:\n  " + " ".join(cmd) + "\n" +
                               proc.stderr)
        self.last_stdout = proc.stdout
        return time.time() - start


def check(name, got, want, atol, rtol):
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    if got.shape != want.shape:
        raise AssertionError(f"{name}: shape {got.shape} != {want.shape}")
    if not np.all(np.isfinite(got)):
        bad = np.argwhere(~np.isfinite(got))[0]
        raise AssertionError(f"{name}: non-finite value at {tuple(bad)} "
                             "(an element the kernel did not write)")
    err = np.abs(got - want)
    bound = atol + rtol * np.abs(want)
    if np.any(err > bound):
        i = np.unravel_index(np.argmax(err - bound), err.shape)
        raise AssertionError(f"{name}: |{got[i]} - {want[i]}| = {err[i]:.3g} at "
                             f"{i} exceeds {bound[i]:.3g}")
    return float(err.max()) if err.size else 0.0


# ---------------------------------------------------------------- GEMMs


def gemm_nt(run, kernel, arch, m, n, k, c_dtype, tile_m, tile_n, cluster_m=1, grid=None):
    """C[M, N] = A[M, K] B[N, K]^T. cluster_m: CTAs of a cluster stacked
    along M (each tile_m rows), which share B's tiles by multicast. grid: a
    persistent kernel's CTAs (default: one CTA per tile)."""
    a_path, a = run.bf16_input("a", (m, k))
    b_path, b = run.bf16_input("b", (n, k))
    if c_dtype == "bf16":
        c_path = run.save("c", np.full((m, n), BF16_NAN, dtype=np.uint16))
    else:
        c_path = run.save("c", np.full((m, n), np.nan, dtype=np.float32))
    rows = tile_m * cluster_m
    if grid is None:
        grid = cluster_m * math.ceil(m / rows) * math.ceil(n / tile_n)
    secs = run.interp_run(kernel, arch, str(grid),
                          [a_path, b_path, c_path, f"i32:{m}", f"i32:{n}", f"i32:{k}"])
    c = run.load(c_path)
    got = from_bf16(c) if c_dtype == "bf16" else c
    want = a @ b.T
    tol = (1e-2, 8e-3) if c_dtype == "bf16" else (1e-4, 1e-5)
    return check("C", got, want, *tol), secs


MATMUL = "examples/matmul_sm90.mlir"


def matmul_sm90(run, a_operand, m, n, k):
    """C[M, N] = op(A) B (B stored [K, N], N-major), f32 out, 64x64 tiles:
    a_operand=0 A[M, K] from shared memory, 1 A stored [K, M] (C = A^T B),
    2 A[M, K] from registers."""
    a_path, a = run.bf16_input("a", (k, m) if a_operand == 1 else (m, k))
    b_path, b = run.bf16_input("b", (k, n))
    c_path = run.save("c", np.full((m, n), np.nan, dtype=np.float32))
    grid = math.ceil(m / 64) * math.ceil(n / 64)
    secs = run.interp_run(MATMUL, "sm_90a", str(grid),
                          [a_path, b_path, c_path, f"i32:{m}", f"i32:{n}", f"i32:{k}"],
                          params={"a_operand": a_operand})
    want = (a.T if a_operand == 1 else a) @ b
    return check("C", run.load(c_path), want, 1e-4, 1e-5), secs


def case_gemm_sm90(run):
    return gemm_nt(run, "gemm/gemm_sm90.mlir", "sm_90a", 200, 296, 136, "bf16", 128, 256)


def case_gemm_sm100(run):
    return gemm_nt(run, "gemm/gemm_sm100.mlir", "sm_100a", 200, 296, 136, "bf16", 128, 256)


def from_e4m3(bits):
    """f8E4M3FN bit patterns -> float64, exactly (S.EEEE.MMM, bias 7, no
    infinities, NaN at S.1111.111)."""
    bits = np.asarray(bits, dtype=np.uint8).astype(np.int64)
    sign = np.where(bits & 0x80, -1.0, 1.0)
    exp, mant = (bits >> 3) & 0xF, bits & 0x7
    value = np.where(exp == 0, mant / 8.0 * 2.0**-6, (1 + mant / 8.0) * 2.0**(exp - 7))
    return np.where((exp == 15) & (mant == 7), np.nan, sign * value)


def e4m3_input(run, name, shape):
    """Standard normal values rounded to the nearest f8E4M3FN, saved as their
    uint8 bit patterns (jfa-interp's convention for 8-bit floats), and the
    values as float64."""
    table = from_e4m3(np.arange(256))
    finite = np.flatnonzero(np.isfinite(table))
    order = finite[np.argsort(table[finite], kind="stable")]
    sorted_values = table[order]
    x = run.rng.standard_normal(shape)
    i = np.clip(np.searchsorted(sorted_values, x), 1, len(order) - 1)
    nearer_left = (x - sorted_values[i - 1]) <= (sorted_values[i] - x)
    bits = order[np.where(nearer_left, i - 1, i)].astype(np.uint8)
    return run.save(name, bits), from_e4m3(bits)


def gemm_fp8(run, kernel, arch, m, n, k, grid=None):
    """C[M, N] = scale * A[M, K] B[N, K]^T, A and B f8E4M3FN, C bf16. grid:
    a persistent kernel's CTAs (default: one CTA per 128x256 tile)."""
    a_path, a = e4m3_input(run, "a", (m, k))
    b_path, b = e4m3_input(run, "b", (n, k))
    c_path = run.save("c", np.full((m, n), BF16_NAN, dtype=np.uint16))
    scale = 0.375  # scale_a * scale_b, exact in f32
    if grid is None:
        grid = math.ceil(m / 128) * math.ceil(n / 256)
    secs = run.interp_run(kernel, arch, str(grid),
                          [a_path, b_path, c_path, f"i32:{m}", f"i32:{n}", f"i32:{k}",
                           f"f32:{scale}"])
    want = scale * (a @ b.T)
    return check("C", from_bf16(run.load(c_path)), want, 1e-2, 8e-3), secs


def case_tmem_a_dot_sm100(run):
    return gemm_nt(run, "examples/tmem_a_dot_sm100.mlir", "sm_100a", 200, 100, 96, "f32", 128, 64)


# ---------------------------------------------------------------- elementwise


def scale(run, kernel, arch, rows, cols, grid, alpha=0.75):
    x = run.rng.standard_normal((rows, cols)).astype(np.float32)
    x_path = run.save("x", x)
    y_path = run.save("y", np.full((rows, cols), np.nan, dtype=np.float32))
    secs = run.interp_run(kernel, arch, str(grid),
                          [x_path, y_path] + ([f"i32:{rows}", f"i32:{cols}"]
                                              if "scale_ring" in kernel
                                              or "scale_clc" in kernel else [])
                          + [f"f32:{alpha}"])
    want = (np.float32(alpha) * x).astype(np.float64)
    return check("y", run.load(y_path), want, 0, 0), secs


def case_scale_ring(run):
    # 3 x 3 tiles over 2 CTAs: each CTA walks several tiles through the ring.
    return scale(run, "examples/scale_ring.mlir", "sm_90a", 150, 132, 2)


def case_scale_ring_sm100(run):
    return scale(run, "examples/scale_ring.mlir", "sm_100a", 70, 200, 3)


def case_scale_clc(run):
    # 3 x 4 tiles, one CTA each: the first CTA cancels the other eleven and
    # does every tile (jfa-interp runs CTAs in launch order).
    return scale(run, "examples/scale_clc_sm100.mlir", "sm_100a", 150, 200, 12)


def sum_partials(run, arch, parts):
    """examples/sum_partials.mlir: each CTA reduce-adds its 64x64 f32 tile
    into a zeroed workspace; the last to add (by a counter) writes the sum
    rounded to bf16. The workspace is the f32 sum in CTA order (jfa-interp
    runs CTAs in launch order), exactly; out is its bf16 rounding."""
    x = run.rng.standard_normal((parts * 64, 64)).astype(np.float32)
    x_path = run.save("x", x)
    acc_path = run.save("acc", np.zeros((64, 64), dtype=np.float32))
    counter_path = run.save("counter", np.zeros(1, dtype=np.int32))
    out_path = run.save("out", np.full((64, 64), BF16_NAN, dtype=np.uint16))
    secs = run.interp_run("examples/sum_partials.mlir", arch, str(parts),
                          [x_path, acc_path, counter_path, out_path])
    total = np.zeros((64, 64), dtype=np.float32)
    for p in range(parts):
        total = total + x[p * 64:(p + 1) * 64]
    counted = int(run.load(counter_path)[0])
    if counted != parts:
        raise AssertionError(f"counter is {counted}, not {parts}")
    acc = check("acc", run.load(acc_path), total.astype(np.float64), 0, 0)
    out = check("out", from_bf16(run.load(out_path)), total.astype(np.float64), 0, 2.0**-8)
    return max(acc, out), secs


def tutorial(run, arch, rows, cols, grid, relu, alpha=0.75):
    """docs/tutorial/scale_add.mlir (docs/TUTORIAL.md): out = alpha * x + y,
    relu'd with -P relu=1."""
    x = run.rng.standard_normal((rows, cols)).astype(np.float32)
    y = run.rng.standard_normal((rows, cols)).astype(np.float32)
    x_path, y_path = run.save("x", x), run.save("y", y)
    o_path = run.save("out", np.full((rows, cols), np.nan, dtype=np.float32))
    secs = run.interp_run("../docs/tutorial/scale_add.mlir", arch, str(grid),
                          [x_path, y_path, o_path, f"i32:{rows}", f"i32:{cols}",
                           f"f32:{alpha}"], {"relu": int(relu)})
    want = np.float32(alpha) * x + y
    if relu:
        want = np.maximum(want, np.float32(0))
    return check("out", run.load(o_path), want, 1e-6, 1e-6), secs


def case_tmem_roundtrip_sm100(run):
    return scale(run, "examples/tmem_roundtrip_sm100.mlir", "sm_100a", 200, 64, 2)


def blocked_roundtrip(run, arch):
    """examples/blocked_roundtrip.mlir: a [256, 128] bf16 tensor through
    blocked slots (two TMA boxes per slot), plus 1 and plus 2."""
    x_path, x = run.bf16_input("x", (256, 128))
    y_path = run.save("y", np.full((256, 128), BF16_NAN, dtype=np.uint16))
    y2_path = run.save("y2", np.full((256, 128), BF16_NAN, dtype=np.uint16))
    secs = run.interp_run("examples/blocked_roundtrip.mlir", arch, "2",
                          [x_path, y_path, y2_path])
    check("y", from_bf16(run.load(y_path)), from_bf16(to_bf16(x + 1.0)), 0, 0)
    return check("y2", from_bf16(run.load(y2_path)), from_bf16(to_bf16(x + 2.0)), 0, 0), secs


def matrix_roundtrip(run, arch):
    """examples/matrix_roundtrip.mlir: a [256, 128] tensor (bf16 and f32
    copies) through 16-bit wgmma accumulator tiles in swizzled and
    unswizzled slots, plus 1 to 4. jfa-interp runs the kernel as written
    (what it means); the ldmatrix / stmatrix lowering it exercises is
    checked on the GPU by test/gpu/matrix_slots_test.py."""
    x_path, x = run.bf16_input("x", (256, 128))
    xf_path = run.save("xf", x.astype(np.float32))
    outs = [run.save(f"y{i}", np.full((256, 128), BF16_NAN, dtype=np.uint16))
            for i in range(1, 5)]
    secs = run.interp_run("examples/matrix_roundtrip.mlir", arch, "4",
                          [x_path, xf_path] + outs)
    errs = [check(f"y{i}", from_bf16(run.load(path)), from_bf16(to_bf16(x + float(i))), 0, 0)
            for i, path in enumerate(outs, start=1)]
    return max(errs), secs


def row_softmax(run, arch):
    rows, cols, diag = 100, 50, 3
    x = run.rng.standard_normal((rows, 64)).astype(np.float32)
    x_path = run.save("x", x)
    y_path = run.save("y", np.full((rows, 64), np.nan, dtype=np.float32))
    lse_path = run.save("lse", np.full((rows + 7,), np.nan, dtype=np.float32))
    secs = run.interp_run("examples/row_softmax.mlir", arch, str(math.ceil(rows / 64)),
                          [x_path, y_path, lse_path, f"i32:{rows}", f"i32:{cols}",
                           f"i32:{diag}"])
    c = np.arange(64)[None, :]
    r = np.arange(rows)[:, None]
    keep = (c < cols) & (c <= r + diag)
    s = np.where(keep, x.astype(np.float64), -np.inf)
    mx = s.max(axis=1, keepdims=True)
    p = np.exp(s - mx)
    total = p.sum(axis=1, keepdims=True)
    err = check("y", run.load(y_path), p / total, 1e-6, 1e-5)
    lse = run.load(lse_path)
    check("lse", lse[:rows], (mx + np.log(total))[:, 0], 1e-5, 1e-5)
    if not np.all(np.isnan(lse[rows:])):
        raise AssertionError("lse: rows past `rows` were written")
    return err, secs


def case_row_softmax(run):
    return row_softmax(run, "sm_90a")


def case_row_softmax_sm100(run):
    return row_softmax(run, "sm_100a")


# ---------------------------------------------------------------- attention


def head_blocks(lengths, offsets, heads, head_dim):
    """(b, h, token rows, head columns) of every non-empty sequence and head."""
    for b, n in enumerate(lengths):
        if n == 0:
            continue
        for h in range(heads):
            yield b, h, slice(offsets[b], offsets[b] + n), slice(h * head_dim, (h + 1) * head_dim)


def visible_keys(n_q, n_k, causal, window):
    """[n_q, n_k] bool: which keys each query sees. The query and key ends
    are aligned (shift = n_k - n_q, as FlashAttention and varlen_attn
    align them); window = (left, right), -1 unbounded; causal is right = 0."""
    left, right = window
    i = np.arange(n_q)[:, None] + (n_k - n_q)
    j = np.arange(n_k)[None, :]
    seen = np.ones((n_q, n_k), dtype=bool)
    if causal:
        seen &= j <= i
    if right >= 0:
        seen &= j <= i + right
    if left >= 0:
        seen &= j >= i - left
    return seen


def block_mask(rng, mask, tokens, tokens_k):
    """A random block-sparse mask over the packed axes in 128-token blocks:
    mask = (heads of the mask: 1 shared, or the q heads; density of listed
    blocks). Returns (blocks [heads, QB, KB] bool, the kernels' bitmap
    words [heads, QB, words] int32, words per row, the head stride)."""
    heads, density = mask
    qb, kb = max(1, math.ceil(tokens / 128)), max(1, math.ceil(tokens_k / 128))
    blocks = rng.random((heads, qb, kb)) < density
    words = (kb + 31) // 32
    bits = np.zeros((heads, qb, words), dtype=np.uint32)
    for j in range(kb):
        bits[:, :, j // 32] |= blocks[:, :, j].astype(np.uint32) << np.uint32(j % 32)
    return blocks, bits.view(np.int32), words, (qb * words if heads > 1 else 0)


def block_visible(blocks, h, start, n, start_k, n_k):
    """[n, n_k] bool: the pairs of a (sequence, q head) the block mask lists
    (all without one)."""
    if blocks is None:
        return np.ones((n, n_k), dtype=bool)
    rows = (start + np.arange(n)) // 128
    cols = (start_k + np.arange(n_k)) // 128
    return blocks[h if blocks.shape[0] > 1 else 0][np.ix_(rows, cols)]


def block_args(run, blocks_bits):
    """The kernels' block-mask arguments (a one-word bitmap that is never
    read when the variant is not block-sparse)."""
    if blocks_bits is None:
        return [run.save("block_bits", np.zeros(1, dtype=np.int32)), "i32:0", "i32:0"]
    _, bits, words, stride = blocks_bits
    return [run.save("block_bits", bits), f"i32:{words}", f"i32:{stride}"]


def stats_count(stdout, op):
    """The grid's count of `op` in jfa-interp --stats=totals' op table."""
    for line in stdout.splitlines():
        words = line.split()
        if words and words[0] == op:
            return int(words[-1])
    return 0


def listed_tiles(blocks, h, start, n, start_k, n_k, q0, q_size, k0):
    """Whether the sequence-aligned tile of q_size rows from q0 and 128 keys
    from k0 (of a sequence of n queries from packed row start, n_k keys from
    start_k) meets a listed block (the tiles the kernels walk)."""
    rows = np.arange(start + q0, start + min(q0 + q_size, n)) // 128
    keys = np.arange(start_k + k0, start_k + min(k0 + 128, n_k)) // 128
    if len(rows) == 0 or len(keys) == 0:
        return False
    return bool(blocks[h if blocks.shape[0] > 1 else 0][np.ix_(rows, keys)].any())


def check_skipped(what, got, want):
    """The kernels skip the tiles with no listed block: `got` (counted by
    jfa-interp) must be what walking the listed ones alone gives."""
    if got != want:
        raise AssertionError(f"block-sparse {what}: {got}, want {want} (the listed tiles "
                             f"only)")


def general_kind(general, activation, sparse):
    """The kernels' "general" parameter: 0 plain, 1 general, 2-3 GDPA, and
    those three block-sparse at 4-6."""
    if sparse:
        return 4 + ACTIVATIONS[activation]
    if activation != "softmax":
        return 1 + ACTIVATIONS[activation]
    return int(general)


def gdpa_activation(name, x):
    """GDPA's activations (in place of softmax) and their derivatives."""
    if name == "silu":
        sig = 1 / (1 + np.exp(-x))
        return x * sig, sig * (1 + x * (1 - sig))
    c = math.sqrt(2 / math.pi)
    u = c * (x + 0.044715 * x ** 3)
    t = np.tanh(u)
    return 0.5 * x * (1 + t), 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * c * (1 + 3 * 0.044715 * x * x)


def reference_attention(q, k, v, lengths, offsets, heads, head_dim, causal, scale,
                        lengths_k=None, offsets_k=None, kv_heads=None, window=(-1, -1),
                        activation="softmax", blocks=None):
    """o, lse and each (sequence, head)'s normalized P (under a GDPA
    activation: act(scale S), masked keys 0, and o = P V), in float64. Keys of
    sequence b are offsets_k[b]... (default: the queries'); q head h reads
    k/v head h // (heads // kv_heads); blocks: a block-sparse mask
    (block_mask). A query that sees no key gets o = 0, lse = -inf and a P
    row of zeros."""
    lengths_k = lengths if lengths_k is None else lengths_k
    offsets_k = offsets if offsets_k is None else offsets_k
    group = heads // (kv_heads or heads)
    o = np.zeros((q.shape[0], heads * head_dim))
    lse = np.zeros((heads, q.shape[0]))
    probs = {}
    for b, n in enumerate(lengths):
        n_k = lengths_k[b]
        rows = slice(offsets[b], offsets[b] + n)
        keys = slice(offsets_k[b], offsets_k[b] + n_k)
        seen_all = visible_keys(n, n_k, causal, window)
        for h in range(heads):
            if n == 0:
                continue
            seen = seen_all & block_visible(blocks, h, offsets[b], n, offsets_k[b], n_k)
            cols = slice(h * head_dim, (h + 1) * head_dim)
            kv = slice((h // group) * head_dim, (h // group + 1) * head_dim)
            if activation != "softmax":
                x = (q[rows, cols] @ k[keys, kv].T) * scale
                p = np.where(seen, gdpa_activation(activation, x)[0], 0.0)
                # The kernels multiply P in bf16 (the tensor cores' operand):
                # unnormalized, P's rounding is the error that dominates, so
                # the reference rounds it too.
                o[rows, cols] = from_bf16(to_bf16(p)).astype(np.float64) @ v[keys, kv]
                probs[(b, h)] = p
                continue
            s = np.where(seen, (q[rows, cols] @ k[keys, kv].T) * scale, -np.inf)
            any_key = seen.any(axis=1, keepdims=True)
            mx = np.where(any_key, s.max(axis=1, keepdims=True, initial=-np.inf), 0.0)
            p = np.exp(s - mx)
            total = p.sum(axis=1, keepdims=True)
            p = np.divide(p, total, out=np.zeros_like(p), where=total > 0)
            o[rows, cols] = p @ v[keys, kv]
            with np.errstate(divide="ignore"):
                lse[h, rows] = np.where(any_key, mx + np.log(total), -np.inf)[:, 0]
            probs[(b, h)] = p
    return o, lse, probs


def jagged_batch(lengths, heads, head_dim):
    """(lengths as a list, tokens T, offsets [B+1] int32, row width H*D)."""
    lengths = list(lengths)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    return lengths, sum(lengths), offsets, heads * head_dim


def attention_kernel(direction, arch):
    """The forward ("fwd") or backward ("bwd") attention kernel for arch."""
    return f"jagged_attention/attention_{direction}_{'sm90' if arch == 'sm_90a' else 'sm100'}.mlir"


def variant_batch(lengths, tokens, offsets, heads, head_dim, window, kv_heads, lengths_k):
    """(general, kv_heads, lengths_k, tokens_k, offsets_k): whether the
    kernels' general variant is needed, and the key sequences."""
    general = window is not None or bool(kv_heads) or lengths_k is not None
    kv_heads = kv_heads or heads
    if lengths_k is None:
        return general, kv_heads, lengths, tokens, offsets
    lengths_k, tokens_k, offsets_k, _ = jagged_batch(lengths_k, kv_heads, head_dim)
    return general, kv_heads, lengths_k, tokens_k, offsets_k


ACTIVATIONS = {"softmax": 0, "silu": 1, "gelu_tanh": 2}


def attention(run, arch, lengths, heads, head_dim, causal, scale=None, grid=3,
              window=None, kv_heads=None, lengths_k=None, activation="softmax",
              mask=None, spike=False, kernel=None, q_rows=128):
    """The forward against numpy. window (left, right), kv_heads < heads
    (grouped-query attention) or lengths_k (per sequence: cross-attention
    over another key tensor) select the kernel's general variant; mask
    (heads of the mask, density: block_mask) its block-sparse one. spike:
    in each sequence longer than one key tile, the last key is 8 times the
    last query, whose row max then jumps by far more than 128 (base 2) in
    the last key tile: without moving its max there, P would overflow.
    kernel, q_rows: another forward of the contract and its q tile's rows
    (a specialization: attention_fwd_sm90_q192.mlir, 192)."""
    kernel = kernel or attention_kernel("fwd", arch)
    lengths, tokens, offsets, width = jagged_batch(lengths, heads, head_dim)
    general, kv_heads, lengths_k, tokens_k, offsets_k = variant_batch(
        lengths, tokens, offsets, heads, head_dim, window, kv_heads, lengths_k)
    q_path, q = run.bf16_input("q", (tokens, width))
    k_path, k = run.bf16_input("k", (tokens_k, kv_heads * head_dim))
    v_path, v = run.bf16_input("v", (tokens_k, kv_heads * head_dim))
    if spike:
        for b, n in enumerate(lengths):
            if n > 128:
                last = offsets[b] + n - 1
                k[last] = from_bf16(to_bf16(8 * q[last]))
        k_path = run.save("k", to_bf16(k))
    o_path = run.save("o", np.full((tokens, width), BF16_NAN, dtype=np.uint16))
    lse_path = run.save("lse", np.full((heads, tokens), np.nan, dtype=np.float32))
    blocks = block_mask(run.rng, mask, tokens, tokens_k) if mask else None
    off_path = run.save("offsets", offsets)
    off_k_path = run.save("offsets_k", offsets_k)
    scale = 1 / math.sqrt(head_dim) if scale is None else scale
    # Block-sparse: the tiles lie on the mask's 128-token grid of the packed
    # axis (a sequence may span one more), as the runtime asks the schedule.
    aligned = bool(mask)
    # q_tiles counts the kernel's q tiles, as the runtime does from its q box.
    q_tiles = max(1, math.ceil((max(lengths) + 127 * aligned) / q_rows))
    left, right = window or (-1, -1)
    # Block-sparse without causal or a window: every key tile of a sequence
    # is a candidate, so the MMAs the sm_90a forward issues count the tiles
    # it walks (checked below).
    count_steps = bool(mask) and not causal and window is None and arch == "sm_90a"
    # The work queue: the package's schedule over the query sequences (the
    # pairs with queries, longest sequence first), as the runtime builds it.
    sched_path = run.save("schedule", np.array(
        schedule_list(list(lengths), q_tiles, block_aligned=aligned, tile_rows=q_rows),
        dtype=np.int32))
    # Head dim, mask and window are compile-time parameters of both forwards.
    secs = run.interp_run(kernel, arch, str(grid), [
        q_path, k_path, v_path, o_path, lse_path, off_path,
        f"i32:{len(lengths)}", f"i32:{heads}", f"i32:{tokens}",
        f"i32:{width}", f"i32:{q_tiles}",
        f"f32:{scale * math.log2(math.e)!r}", off_k_path,
        f"i32:{heads // kv_heads}", f"i32:{left}", f"i32:{right}"]
        # o again, as the TMA tensor of the sm_90a forward's whole-tile
        # stores (the same buffer).
        + block_args(run, blocks) + [sched_path, o_path],
        params={"head_dim": head_dim, "causal": int(causal),
                "general": general_kind(general, activation, mask)},
        extra=["--stats=totals"] if count_steps else [])
    if count_steps:
        # Per unit (sequence, head, 128-row q tile on the block grid): its
        # listed key tiles (on the grid too: one block each), at least one.
        # Per step each warpgroup issues S and P V, D / 64 wgmma chains each.
        steps = 0
        phases, phases_k = block_phases(lengths), block_phases(lengths_k)
        for b, n in enumerate(lengths):
            n_k, pq, pk = lengths_k[b], phases[b], phases_k[b]
            for h in range(heads):
                for q0 in range(0, n + pq, 128):
                    listed = sum(listed_tiles(blocks[0], h, offsets[b] - pq, n + pq,
                                              offsets_k[b] - pk, n_k + pk, q0, 128, k0)
                                 for k0 in range(0, n_k + pk, 128))
                    steps += max(1, listed)
        check_skipped("forward wgmma", stats_count(run.last_stdout, "jfa.async_dot"),
                      steps * 2 * 2 * (head_dim // 64))
    want_o, want_lse, probs = reference_attention(
        q, k, v, lengths, offsets, heads, head_dim, causal, scale,
        lengths_k=lengths_k, offsets_k=offsets_k, kv_heads=kv_heads,
        window=(left, right), activation=activation,
        blocks=None if blocks is None else blocks[0])
    o = from_bf16(run.load(o_path))
    atol = 1e-2
    if activation != "softmax":
        # Unnormalized sums: the kernel's P (fp32, approximate exp2 and
        # division) may round to the bf16 next to the reference's, one
        # bf16 ulp (2^-8 relative) per term at most: |P| |V| 2^-8 bounds it.
        atol = np.full(o.shape, 1e-2)
        group = heads // kv_heads
        for (b, h), p in probs.items():
            rows = slice(offsets[b], offsets[b] + lengths[b])
            keys = slice(offsets_k[b], offsets_k[b] + lengths_k[b])
            cols = slice(h * head_dim, (h + 1) * head_dim)
            kv = slice((h // group) * head_dim, (h // group + 1) * head_dim)
            atol[rows, cols] += 2.0 ** -8 * (np.abs(p) @ np.abs(v[keys, kv]))
    err = check("o", o, want_o, atol, 1e-2)
    lse = run.load(lse_path).astype(np.float64)
    if activation != "softmax":
        # No lse under GDPA: the kernel leaves it as it was (NaN here).
        if not np.all(np.isnan(lse)):
            raise AssertionError("lse: written under a GDPA activation")
        return err, secs
    # Rows that see no key: lse = -inf exactly; the others as numbers.
    none = np.isneginf(want_lse)
    if not np.array_equal(np.isneginf(lse), none):
        i = np.argwhere(np.isneginf(lse) != none)[0]
        raise AssertionError(f"lse: {lse[tuple(i)]} at {tuple(i)}, want {want_lse[tuple(i)]}")
    check("lse", np.where(none, 0, lse), np.where(none, 0, want_lse), 1e-4, 1e-5)
    return err, secs


# Empty sequences (first and last), length 1, lengths around the 128-row
# tile, and one of three k tiles (the steady state of the pipelines).
JAGGED = [0, 1, 63, 64, 65, 127, 128, 129, 300, 0]


def attention_delta(run, arch, tokens, heads, head_dim):
    """The backward's row term: delta[h, t] = sum_d o[t, h, d] do[t, h, d]."""
    width = heads * head_dim
    o_path, o = run.bf16_input("o", (tokens, width))
    do_path, do = run.bf16_input("do", (tokens, width))
    delta_path = run.save("delta", np.full((heads, tokens), np.nan, dtype=np.float32))
    grid = f"{math.ceil(tokens / 128)},{heads}"
    secs = run.interp_run("jagged_attention/attention_bwd_delta.mlir", arch, grid,
                          [o_path, do_path, delta_path, f"i32:{tokens}", f"i32:{head_dim}"])
    want = (o * do).reshape(tokens, heads, head_dim).sum(axis=2).T
    return check("delta", run.load(delta_path), want, 1e-5, 1e-5), secs


def attention_schedule(run, arch, lengths, k_tiles, block_aligned=0, tile_rows=128):
    """The backward's work list on the device: equal, entry for entry, to the
    reference (python/jfa/_schedule.py). Poisoned with -7 first: an entry
    the kernel did not write stays -7. 130+ sequences take two CTAs. With
    block_aligned, the tiles of a block-sparse forward (on the packed axis's
    128-token grid). tile_rows: the tiles' rows (192: the sm_90a D = 64
    forward's q tiles)."""
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    want = schedule_list(list(lengths), k_tiles, block_aligned=bool(block_aligned),
                         tile_rows=tile_rows)
    offsets_path = run.save("offsets", offsets)
    out_path = run.save("schedule", np.full(len(want), -7, dtype=np.int32))
    grid = str(max(1, math.ceil(len(lengths) / 128)))
    secs = run.interp_run("jagged_attention/attention_bwd_schedule.mlir", arch, grid,
                          [offsets_path, out_path, f"i32:{len(lengths)}", f"i32:{k_tiles}",
                           f"i32:{block_aligned}", f"i32:{tile_rows}"])
    got = run.load(out_path).tolist()
    if got != want:
        first = next(i for i, (g, w) in enumerate(zip(got, want)) if g != w)
        raise AssertionError(f"schedule[{first}] = {got[first]}, want {want[first]} "
                             f"(lengths {list(lengths)}, k_tiles {k_tiles}, "
                             f"block_aligned {block_aligned}, tile_rows {tile_rows})")
    return 0.0, secs


def schedule_lengths(rng):
    """Ties, empty sequences, lengths at and around the 128-key tile."""
    fixed = [0, 1, 127, 128, 129, 256, 300, 300, 0, 1000, 128, 5]
    return fixed + [int(x) for x in rng.integers(0, 700, size=130)]


def attention_dq_convert(run, arch, tokens, cols, dq_stride):
    """dq = bf16(the f32 accumulator), rounded to nearest even; dq's token
    stride is dq_stride >= cols (a wider tensor's rows): the padding stays
    poisoned. cols not a multiple of 512 clamps threads to the last column."""
    accum_stride = cols + 8
    accum = run.rng.standard_normal((tokens, accum_stride)).astype(np.float32)
    accum_path = run.save("dq_accum", accum)
    dq_path = run.save("dq", np.full((tokens, dq_stride), 0x7FC0, dtype=np.uint16))
    grid = f"{tokens},{math.ceil(cols / 512)}"
    secs = run.interp_run("jagged_attention/attention_bwd_dq_convert.mlir", arch, grid,
                          [accum_path, f"i32:{accum_stride}", dq_path, f"i32:{dq_stride}",
                           f"i32:{cols}"])
    got = run.load(dq_path)
    if not np.array_equal(got[:, :cols], to_bf16(accum[:, :cols])):
        bad = np.argwhere(got[:, :cols] != to_bf16(accum[:, :cols]))[0]
        raise AssertionError(f"dq{tuple(bad)} = {got[tuple(bad)]:#x}, want "
                             f"{to_bf16(accum[:, :cols])[tuple(bad)]:#x}")
    if not np.all(got[:, cols:] == 0x7FC0):
        raise AssertionError("dq: a column past cols was written")
    return 0.0, secs


def attention_backward(run, arch, lengths, heads, head_dim, causal, scale=None, grid=3,
                       window=None, kv_heads=None, lengths_k=None, activation="softmax",
                       kv_split=None, mask=None):
    """dq, dk, dv of the jagged attention against numpy (float64 of the bf16
    inputs): P = softmax(scale S) masked, dV = P^T dO, dP = dO V^T,
    dS = P (dP - delta), dQ = scale dS K, dK = scale dS^T Q; under
    grouped-query attention dK and dV sum over the q heads of a k/v head.
    Both kernels take the same arguments (dq_accum a TMA tensor for sm_90a,
    a pointer for sm_100a: the same f32 array here), and sm_90a's two more,
    dk and dv as TMA tensors. kv_split: the units a
    k/v head's q heads are split over (None: the smallest divisor of the
    group with kv_heads * kv_split >= 4, the runtime's floor; on long walks
    the runtime splits further, docs/RUNTIME-ATTENTION.md); above 1
    the kernel adds dk and dv into f32 sums, checked in their place. mask:
    a block-sparse mask (block_mask)."""
    kernel = attention_kernel("bwd", arch)
    lengths, tokens, offsets, width = jagged_batch(lengths, heads, head_dim)
    general, kv_heads, lengths_k, tokens_k, offsets_k = variant_batch(
        lengths, tokens, offsets, heads, head_dim, window, kv_heads, lengths_k)
    group = heads // kv_heads
    if kv_split is None:
        kv_split = next((d for d in range(1, group) if group % d == 0 and kv_heads * d >= 4),
                        group)
    kv_width = kv_heads * head_dim
    left, right = window or (-1, -1)
    scale = 1 / math.sqrt(head_dim) if scale is None else scale
    q_path, q = run.bf16_input("q", (tokens, width))
    k_path, k = run.bf16_input("k", (tokens_k, kv_width))
    v_path, v = run.bf16_input("v", (tokens_k, kv_width))
    do_path, do = run.bf16_input("do", (tokens, width))
    blocks = block_mask(run.rng, mask, tokens, tokens_k) if mask else None
    o, lse, probs = reference_attention(q, k, v, lengths, offsets, heads, head_dim,
                                        causal, scale, lengths_k=lengths_k,
                                        offsets_k=offsets_k, kv_heads=kv_heads,
                                        window=(left, right), activation=activation,
                                        blocks=None if blocks is None else blocks[0])
    # The backward sees o as the forward stored it (bf16).
    o = from_bf16(to_bf16(o)).astype(np.float64)
    delta = (o * do).reshape(tokens, heads, head_dim).sum(axis=2).T
    want = {"dq": np.zeros((tokens, width)), "dk": np.zeros((tokens_k, kv_width)),
            "dv": np.zeros((tokens_k, kv_width))}
    # P and dS go to the tensor cores in bf16: one bf16 ulp (2^-8) per term
    # bounds the difference that makes (under GDPA's unnormalized sums it
    # is most of the error; under softmax it matters where a sum of many
    # terms cancels, as dk's over a grouped-query head's q heads).
    slack = {n: np.zeros_like(w) for n, w in want.items()}
    ulp = 2.0 ** -8
    for (b, h), p in probs.items():
        rows = slice(offsets[b], offsets[b] + lengths[b])
        keys = slice(offsets_k[b], offsets_k[b] + lengths_k[b])
        cols = slice(h * head_dim, (h + 1) * head_dim)
        kv = slice((h // group) * head_dim, (h // group + 1) * head_dim)
        dp = do[rows, cols] @ v[keys, kv].T
        if activation == "softmax":
            ds = p * (dp - delta[h, rows][:, None])
        else:
            seen = visible_keys(lengths[b], lengths_k[b], causal, (left, right)) & \
                block_visible(None if blocks is None else blocks[0], h, offsets[b],
                              lengths[b], offsets_k[b], lengths_k[b])
            x = (q[rows, cols] @ k[keys, kv].T) * scale
            ds = np.where(seen, dp * gdpa_activation(activation, x)[1], 0.0)
        slack["dv"][keys, kv] += ulp * np.abs(p).T @ np.abs(do[rows, cols])
        slack["dq"][rows, cols] += ulp * scale * np.abs(ds) @ np.abs(k[keys, kv])
        slack["dk"][keys, kv] += ulp * scale * np.abs(ds).T @ np.abs(q[rows, cols])
        want["dv"][keys, kv] += p.T @ do[rows, cols]
        want["dq"][rows, cols] = scale * ds @ k[keys, kv]
        want["dk"][keys, kv] += scale * ds.T @ q[rows, cols]
    # A row that sees no key has lse = -inf; its P row is 0 whatever lse is.
    lse_path = run.save("lse", np.where(np.isneginf(lse), 0.0, lse).astype(np.float32))
    delta_path = run.save("delta", np.ascontiguousarray(delta, dtype=np.float32))
    off_path = run.save("offsets", offsets)
    off_k_path = run.save("offsets_k", offsets_k)
    dq_path = run.save("dq", np.zeros((tokens, width), dtype=np.float32))
    dk_path = run.save("dk", np.full((tokens_k, kv_width), BF16_NAN, dtype=np.uint16))
    dv_path = run.save("dv", np.full((tokens_k, kv_width), BF16_NAN, dtype=np.uint16))
    summed = general and kv_split > 1
    # The sums start at 0 (the runtime zeroes them); unsplit, NaN: never read.
    sum_fill = 0.0 if summed else np.nan
    dk_sum_path = run.save("dk_sum", np.full((tokens_k, kv_width), sum_fill, dtype=np.float32))
    dv_sum_path = run.save("dv_sum", np.full((tokens_k, kv_width), sum_fill, dtype=np.float32))
    # Block-sparse: the tiles on the mask's grid, as the runtime asks (a
    # sequence may span one more key tile).
    aligned = bool(mask)
    k_tiles = max(1, math.ceil((max(lengths_k) + 127 * aligned) / 128))
    # The package's schedule over the key sequences (live units, longest
    # sequence first), as the op passes it.
    schedule = schedule_list(lengths_k, k_tiles, block_aligned=aligned)
    sched_path = run.save("schedule", np.array(schedule, dtype=np.int32))
    # As the forward's: the sm_90a backward's TMA loads count its steps.
    count_steps = bool(mask) and not causal and window is None and arch == "sm_90a"
    secs = run.interp_run(kernel, arch, str(grid), [
        q_path, k_path, v_path, do_path, dk_path, dv_path, dq_path, lse_path, delta_path,
        off_path, sched_path, f"i32:{len(lengths)}", f"i32:{heads}", f"i32:{tokens}", f"i32:{width}",
        f"i32:{k_tiles}", f"f32:{scale * math.log2(math.e)!r}", f"f32:{scale!r}",
        off_k_path, f"i32:{group}", f"i32:{left}", f"i32:{right}", f"i32:{kv_width}",
        f"i32:{kv_split}", dk_sum_path, dv_sum_path] + block_args(run, blocks)
        # sm_90a's dk and dv again as TMA tensors (whole 64-key tiles are
        # stored by TMA): the same files, so one buffer.
        + ([dk_path, dv_path] if arch == "sm_90a" else []),
        params={"head_dim": head_dim, "causal": int(causal),
                "general": general_kind(general, activation, mask)},
        extra=["--stats=totals"] if count_steps else [])
    if count_steps:
        # Per unit (sequence, 128-key tile, group of q heads; on the block
        # grid): K and V (4 loads), then per q head its listed 64-row q
        # tiles from the one holding the row floor, at least one, each a Q
        # and a dO load.
        per_unit = group // kv_split
        loads = 0
        phases, phases_k = block_phases(lengths), block_phases(lengths_k)
        for b, n in enumerate(lengths):
            n_k, pq, pk = lengths_k[b], phases[b], phases_k[b]
            for k0 in range(0, n_k + pk, 128):
                for g in range(heads // per_unit):
                    loads += 4
                    for h in range(g * per_unit, (g + 1) * per_unit):
                        listed = sum(listed_tiles(blocks[0], h, offsets[b] - pq, n + pq,
                                                  offsets_k[b] - pk, n_k + pk, q0, 64, k0)
                                     for q0 in range(pq // 64 * 64, n + pq, 64))
                        loads += 2 * max(1, listed)
        check_skipped("backward TMA loads", stats_count(run.last_stdout, "jfa.tma_load"), loads)
    if summed:
        got_dv, got_dk = run.load(dv_sum_path), run.load(dk_sum_path)
    else:
        got_dv, got_dk = from_bf16(run.load(dv_path)), from_bf16(run.load(dk_path))
    err = check("dv", got_dv, want["dv"], 2e-2 + slack["dv"], 2e-2)
    err = max(err, check("dk", got_dk, want["dk"], 2e-2 + slack["dk"], 2e-2))
    err = max(err, check("dq", run.load(dq_path), want["dq"], 2e-2 + slack["dq"], 2e-2))
    return err, secs


# Block-sparse (issue 20): random masks over the packed axes (shared or per
# q head, mask = (heads, density)) with tiles straddling blocks, combined
# with causal, a window, grouped-query and cross-attention, GDPA; an empty
# mask (every row sees nothing: o = 0, lse = -inf).
SPARSE_VARIANTS = {
    "sparse_d64": dict(head_dim=64, causal=False, mask=(1, 0.5),
                       lengths=[0, 1, 65, 129, 300, 0, 450]),
    "sparse_heads_causal_d128": dict(head_dim=128, causal=True, mask=(2, 0.5),
                                     lengths=JAGGED),
    "sparse_window_gqa_d64": dict(head_dim=64, causal=False, window=(100, 20),
                                  heads=4, kv_heads=2, mask=(4, 0.6),
                                  lengths=[0, 1, 65, 129, 300, 0, 450]),
    "sparse_cross_d128": dict(head_dim=128, causal=False, mask=(1, 0.4),
                              lengths=[0, 5, 130, 64, 3, 0],
                              lengths_k=[4, 0, 70, 300, 1, 0]),
    "sparse_empty_d64": dict(head_dim=64, causal=False, mask=(1, 0.0),
                             lengths=[1, 129, 300]),
    "sparse_silu_causal_d64": dict(head_dim=64, causal=True, activation="silu",
                                   mask=(2, 0.5), lengths=[0, 1, 65, 129, 300, 0, 450]),
    # Longest first: each sequence's units run before those of the next,
    # whose first tile (on the block grid) starts among its rows, so a tile
    # that wrote rows below its floor would overwrite them.
    "sparse_descending_d64": dict(head_dim=64, causal=False, mask=(1, 0.7),
                                  lengths=[450, 300, 129, 65, 200, 1, 64, 0, 3]),
    # Cross-attention under causal and a window: the query and key floors
    # differ (each sequence's first token lies elsewhere in its block), and
    # the bounds align the ends.
    "sparse_cross_causal_window_d64": dict(head_dim=64, causal=True, window=(150, -1),
                                           mask=(2, 0.6), heads=2,
                                           lengths=[70, 0, 300, 5, 190, 129],
                                           lengths_k=[3, 40, 260, 77, 0, 400]),
}


def attention_cases(arch, suffix):
    cases = {}
    for d in (64, 128):
        for causal in (False, True):
            name = f"attention_{suffix}_d{d}_{'causal' if causal else 'full'}"
            cases[name] = (lambda run, d=d, causal=causal:
                           attention(run, arch, JAGGED, 2, d, causal,
                                     scale=0.3 if d == 64 else None))
    # A row max that jumps by far more than 128 (in base 2) in a later key
    # tile, past where 2^(x - stale max) would overflow: the online softmax
    # must rescale there (a softmax that skipped it, or moved its max
    # lazily but not then, writes inf and NaN); a large scale makes the
    # maxima grow between tiles too.
    for d in (64, 128):
        cases[f"attention_{suffix}_sharp_d{d}"] = (
            lambda run, d=d: attention(run, arch, [1, 300, 450, 129], 2, d, True,
                                       scale=2.0, spike=True))
    # The variants (issue 20): sliding windows (a narrow band inside one
    # tile, one reaching back over tiles, one-sided, with causal),
    # grouped-query attention, cross-attention (other key lengths, 0 keys,
    # 0 queries, causal aligned at the ends) and their combinations.
    long_jagged = [0, 1, 65, 129, 300, 0, 450]
    variants = {
        "window_band_d64": dict(head_dim=64, causal=False, window=(5, 3),
                                lengths=long_jagged),
        "window_left_causal_d128": dict(head_dim=128, causal=True, window=(130, 0),
                                        lengths=long_jagged),
        "window_right_d64": dict(head_dim=64, causal=False, window=(-1, 40),
                                 lengths=long_jagged),
        "window_zero_d128": dict(head_dim=128, causal=False, window=(0, 0),
                                 lengths=[3, 129]),
        "gqa_d64": dict(head_dim=64, causal=True, heads=4, kv_heads=2,
                        lengths=JAGGED),
        "mqa_window_d128": dict(head_dim=128, causal=False, heads=3, kv_heads=1,
                                window=(64, 64), lengths=[200, 7, 130]),
        "cross_d64": dict(head_dim=64, causal=False,
                          lengths=[0, 5, 130, 64, 3, 0],
                          lengths_k=[4, 0, 70, 300, 1, 0]),
        "cross_causal_gqa_d128": dict(head_dim=128, causal=True, heads=4, kv_heads=2,
                                      lengths=[300, 5, 130, 2, 0],
                                      lengths_k=[140, 0, 260, 129, 9]),
        "cross_window_d64": dict(head_dim=64, causal=False, window=(20, 10),
                                 lengths=[260, 40], lengths_k=[100, 300]),
    }
    # GDPA: an activation in place of softmax, no normalization.
    variants.update({
        "silu_causal_d64": dict(head_dim=64, causal=True, activation="silu",
                                lengths=long_jagged),
        "gelu_full_d128": dict(head_dim=128, causal=False, activation="gelu_tanh",
                               lengths=[1, 129, 300]),
        "silu_window_gqa_d128": dict(head_dim=128, causal=False, activation="silu",
                                     window=(40, 7), heads=4, kv_heads=2,
                                     lengths=[200, 3, 130]),
        "gelu_cross_causal_d64": dict(head_dim=64, causal=True, activation="gelu_tanh",
                                      lengths=[0, 5, 130, 64], lengths_k=[4, 0, 70, 300]),
    })
    variants.update(SPARSE_VARIANTS)
    for name, v in variants.items():
        cases[f"attention_{suffix}_{name}"] = (
            lambda run, v=v: attention(
                run, arch, v["lengths"], v.get("heads", 2), v["head_dim"], v["causal"],
                scale=0.3 if v["head_dim"] == 64 else None, window=v.get("window"),
                kv_heads=v.get("kv_heads"), lengths_k=v.get("lengths_k"),
                activation=v.get("activation", "softmax"), mask=v.get("mask")))
    return cases


CASES = {
    "gemm_sm90": case_gemm_sm90,
    "gemm_sm100": case_gemm_sm100,
    # Clusters of two CTAs sharing B by multicast (issue 23): M = 300 leaves
    # the second cluster's second CTA with no rows; 3 column tiles; K = 520
    # (9 k steps) reuses every stage, so a stage goes back to both CTAs'
    # producers (the protocol the multicast needs) several times.
    "gemm_multicast_sm90": lambda run: gemm_nt(
        run, "gemm/gemm_multicast_sm90.mlir", "sm_90a", 300, 600, 520, "bf16",
        128, 256, cluster_m=2),
    # Persistent (cluster launch control): CTA 0 cancels the other eight and
    # computes all nine tiles, through both accumulator buffers and a k-step
    # ring that runs on across tiles (K = 520: 9 k steps a tile).
    "gemm_persistent_sm100": lambda run: gemm_nt(
        run, "gemm/gemm_persistent_sm100.mlir", "sm_100a", 300, 600, 520, "bf16",
        128, 256),
    # Persistent sm_90a (issue 23): a grid of 4 CTAs for 9 tiles (M = 300,
    # N = 600), so CTAs 0 to 3 take 3, 2, 2, 2 tiles; the ring (3 stages) runs
    # on across tiles and the staging tile is reused once its store is read.
    "gemm_persistent_sm90": lambda run: gemm_nt(
        run, "gemm/gemm_persistent_sm90.mlir", "sm_90a", 300, 600, 520, "bf16",
        128, 256, grid=4),
    # More CTAs than tiles (the GPU test launches such grids): CTAs 9 to 11
    # take none and must end at once (M = 300, N = 600: 9 tiles; K = 72).
    "gemm_persistent_sm90_idle_ctas": lambda run: gemm_nt(
        run, "gemm/gemm_persistent_sm90.mlir", "sm_90a", 300, 600, 72, "bf16",
        128, 256, grid=12),
    # Persistent and in clusters of two sharing B (issue 23): 2 clusters for
    # the 6 256x256 tiles of M = 300, N = 600 (3 each; the ring of 4 stages
    # runs on across tiles in both CTAs), then 8 clusters (2 take none).
    "gemm_persistent_multicast_sm90": lambda run: gemm_nt(
        run, "gemm/gemm_persistent_multicast_sm90.mlir", "sm_90a", 300, 600, 520, "bf16",
        128, 256, cluster_m=2, grid=4),
    "gemm_persistent_multicast_sm90_idle_clusters": lambda run: gemm_nt(
        run, "gemm/gemm_persistent_multicast_sm90.mlir", "sm_90a", 300, 600, 72, "bf16",
        128, 256, cluster_m=2, grid=16),
    # One cluster takes both tiles of M = 100, N = 264 (a partial one),
    # K = 8: the second CTA has no rows (its A loads are TMA's zero fill,
    # its stores clipped away) and still shares its half of B.
    "gemm_persistent_multicast_sm90_edges": lambda run: gemm_nt(
        run, "gemm/gemm_persistent_multicast_sm90.mlir", "sm_90a", 100, 264, 8, "bf16",
        128, 256, cluster_m=2, grid=2),
    "gemm_multicast_sm100": lambda run: gemm_nt(
        run, "gemm/gemm_multicast_sm100.mlir", "sm_100a", 300, 600, 520, "bf16",
        128, 256, cluster_m=2),
    # CTA-pair products (tcgen05 cta_group::2, issue 23): each CTA loads
    # its halves of A's and B's tiles, both complete on the even CTA's
    # barrier, whose MMA warp computes the pair's 256x256 tile into both
    # CTAs' tensor memory. M = 300: the second pair's odd CTA has no rows
    # (zero-filled loads, clipped stores); K = 520 wraps the 6-stage ring.
    "gemm_pair_sm100": lambda run: gemm_nt(
        run, "gemm/gemm_pair_sm100.mlir", "sm_100a", 300, 600, 520, "bf16",
        128, 256, cluster_m=2),
    # The pair's products, persistent under cluster launch control: the
    # first cluster cancels the other five and computes all six 256x256
    # tiles (M = 300: a tile's odd CTA without rows), through both
    # accumulator buffers of each CTA and a 6-stage ring run on across tiles.
    "gemm_pair_persistent_sm100": lambda run: gemm_nt(
        run, "gemm/gemm_pair_persistent_sm100.mlir", "sm_100a", 300, 600, 520, "bf16",
        128, 256, cluster_m=2),
    # fp8 (e4m3) operands, a per-tensor scale, bf16 out; K = 208: a partial
    # second k tile of 128.
    "gemm_fp8_sm90": lambda run: gemm_fp8(run, "gemm/gemm_fp8_sm90.mlir", "sm_90a",
                                          200, 296, 208),
    "gemm_fp8_sm100": lambda run: gemm_fp8(run, "gemm/gemm_fp8_sm100.mlir", "sm_100a",
                                           200, 296, 208),
    # The fp8 GEMM persistent and in clusters of two sharing B (issue 23):
    # the bf16 kernel's cases with k tiles of 128 e4m3 columns. 2 clusters
    # for the 6 256x256 tiles of M = 300, N = 600, K = 528 (5 k tiles, the
    # last of 16 columns: the 4-stage ring wraps within a tile and runs on
    # across them); 8 clusters (2 take none), K = 80; one cluster for both
    # tiles of M = 100, N = 264, K = 16 (the second CTA has no rows).
    "gemm_persistent_multicast_fp8_sm90": lambda run: gemm_fp8(
        run, "gemm/gemm_persistent_multicast_fp8_sm90.mlir", "sm_90a", 300, 600, 528, grid=4),
    "gemm_persistent_multicast_fp8_sm90_idle_clusters": lambda run: gemm_fp8(
        run, "gemm/gemm_persistent_multicast_fp8_sm90.mlir", "sm_90a", 300, 600, 80, grid=16),
    "gemm_persistent_multicast_fp8_sm90_edges": lambda run: gemm_fp8(
        run, "gemm/gemm_persistent_multicast_fp8_sm90.mlir", "sm_90a", 100, 264, 16, grid=2),
    # examples/matmul_sm90.mlir, one case per variant (-P a_operand=N).
    "matmul_sm90_nn": lambda run: matmul_sm90(run, 0, 100, 72, 80),
    "matmul_sm90_tn": lambda run: matmul_sm90(run, 1, 72, 80, 100),
    "matmul_sm90_rega": lambda run: matmul_sm90(run, 2, 100, 72, 80),
    "tmem_a_dot_sm100": case_tmem_a_dot_sm100,
    "tmem_roundtrip_sm100": case_tmem_roundtrip_sm100,
    "scale_ring": case_scale_ring,
    "scale_ring_sm100": case_scale_ring_sm100,
    "scale_clc_sm100": case_scale_clc,
    "sum_partials": lambda run: sum_partials(run, "sm_90a", 5),
    "sum_partials_sm100": lambda run: sum_partials(run, "sm_100a", 3),
    # 3 x 3 tiles over 2 CTAs: each walks several tiles, edges clipped.
    "tutorial_scale_add": lambda run: tutorial(run, "sm_90a", 150, 132, 2, False),
    "tutorial_scale_add_relu": lambda run: tutorial(run, "sm_90a", 70, 200, 3, True),
    "row_softmax": case_row_softmax,
    "blocked_roundtrip": lambda run: blocked_roundtrip(run, "sm_90a"),
    "blocked_roundtrip_sm100": lambda run: blocked_roundtrip(run, "sm_100a"),
    "matrix_roundtrip": lambda run: matrix_roundtrip(run, "sm_90a"),
    "matrix_roundtrip_sm100": lambda run: matrix_roundtrip(run, "sm_100a"),
    "row_softmax_sm100": case_row_softmax_sm100,
}
for arch, suffix in (("sm_90a", "sm90"), ("sm_100a", "sm100")):
    for d in (64, 128):
        CASES[f"attention_delta_{suffix}_d{d}"] = (
            lambda run, arch=arch, d=d: attention_delta(run, arch, 300, 3, d))
for arch, suffix in (("sm_90a", "sm90"), ("sm_100a", "sm100")):
    CASES[f"attention_schedule_{suffix}"] = (
        lambda run, arch=arch: attention_schedule(run, arch, schedule_lengths(run.rng), 8))
    CASES[f"attention_dq_convert_{suffix}"] = (
        lambda run, arch=arch: attention_dq_convert(run, arch, 5, 3 * 128 + 64, 520))
CASES["attention_schedule_one_sequence"] = (
    lambda run: attention_schedule(run, "sm_90a", [1], 1))
# The block-sparse forward's tiles on the block grid: 8 + 1 tiles each (a
# sequence may span one more), some sequences 128 long but straddling.
CASES["attention_schedule_block_aligned"] = (
    lambda run: attention_schedule(run, "sm_90a", schedule_lengths(run.rng), 9, 1))
# The sm_90a D = 64 forward's 192-row q tiles: 6 tiles (the longest, 1000,
# spans 6), lengths at and around 192 and its multiples.
CASES["attention_schedule_q192"] = (
    lambda run: attention_schedule(run, "sm_90a", schedule_lengths(run.rng)
                                   + [191, 192, 193, 383, 384, 385], 6, 0, 192))
CASES["attention_dq_convert_wide"] = (
    lambda run: attention_dq_convert(run, "sm_90a", 3, 8 * 128, 8 * 128))
CASES.update(attention_cases("sm_90a", "sm90"))
# The sm_90a forward's D = 64 specialization (three consumer warpgroups over
# 192-row q tiles; plain non-causal attention): lengths around the 192-row
# tile and its multiples (whole tiles go out by TMA stores, the others by
# clipped ones), several heads, more units than CTAs, and the spike that
# makes the row max jump in a later key tile.
Q192 = "jagged_attention/attention_fwd_sm90_q192.mlir"
CASES["attention_sm90_q192_d64_full"] = (
    lambda run: attention(run, "sm_90a", JAGGED + [191, 192, 193, 384, 385, 0, 700],
                          3, 64, False, kernel=Q192, q_rows=192))
# Causal on 192-row tiles: a tile's diagonal spans a 128-key tile and half
# of the next, and the runtime takes it for long sequences only
# (forwardVariantSuits); lengths around 128, 192 and their multiples.
CASES["attention_sm90_q192_d64_causal"] = (
    lambda run: attention(run, "sm_90a", JAGGED + [191, 192, 193, 257, 383, 384, 385, 700],
                          3, 64, True, kernel=Q192, q_rows=192))
CASES["attention_sm90_q192_sharp_d64"] = (
    lambda run: attention(run, "sm_90a", [1, 300, 450, 129], 2, 64, False,
                          scale=2.0, spike=True, kernel=Q192, q_rows=192))
for arch, suffix in (("sm_90a", "sm90"), ("sm_100a", "sm100")):
    for d in (64, 128):
        for causal in (False, True):
            CASES[f"attention_bwd_{suffix}_d{d}_{'causal' if causal else 'full'}"] = (
                lambda run, arch=arch, d=d, causal=causal:
                attention_backward(run, arch, JAGGED, 2, d, causal,
                                   scale=0.3 if d == 64 else None))
CASES.update(attention_cases("sm_100a", "sm100"))
# The backward's variants (issue 20), as the forward's: windows, grouped-query
# and cross-attention (keys no query sees get dK = dV = 0), combinations.
BACKWARD_VARIANTS = {
    "window_band_d64": dict(head_dim=64, causal=False, window=(5, 3),
                            lengths=[0, 1, 65, 129, 300, 0, 450]),
    "window_left_causal_d128": dict(head_dim=128, causal=True, window=(130, 0),
                                    lengths=[1, 65, 300, 450]),
    "window_right_d128": dict(head_dim=128, causal=False, window=(-1, 40),
                              lengths=[129, 300, 7]),
    "gqa_causal_d64": dict(head_dim=64, causal=True, heads=4, kv_heads=2,
                           lengths=JAGGED),
    "mqa_window_d128": dict(head_dim=128, causal=False, heads=3, kv_heads=1,
                            window=(64, 64), lengths=[200, 7, 130]),
    "cross_d64": dict(head_dim=64, causal=False, lengths=[0, 5, 130, 64, 3, 0],
                      lengths_k=[4, 0, 70, 300, 1, 0]),
    "cross_causal_gqa_d128": dict(head_dim=128, causal=True, heads=4, kv_heads=2,
                                  lengths=[300, 5, 130, 2, 0],
                                  lengths_k=[140, 0, 260, 129, 9]),
    "silu_causal_d64": dict(head_dim=64, causal=True, activation="silu",
                            lengths=[0, 1, 65, 129, 300, 0]),
    "gelu_full_d128": dict(head_dim=128, causal=False, activation="gelu_tanh",
                           lengths=[1, 129, 200]),
    "silu_window_gqa_d128": dict(head_dim=128, causal=False, activation="silu",
                                 window=(40, 7), heads=4, kv_heads=2, lengths=[200, 3, 130]),
    "gelu_cross_causal_d64": dict(head_dim=64, causal=True, activation="gelu_tanh",
                                  lengths=[0, 5, 130, 64], lengths_k=[4, 0, 70, 300]),
    # The q heads' split (kv_split): the cases above with H_kv = 2 split 2
    # (one q head a unit) and MQA over 3 heads splits 3; here grouped-query
    # attention unsplit (dk and dv written, summed over the group in the
    # unit), and MQA over 8 heads split 4 (2 q heads a unit, sums added by
    # 4 units).
    "gqa_unsplit_d128": dict(head_dim=128, causal=True, heads=4, kv_heads=2, kv_split=1,
                             lengths=[1, 130, 64]),
    "mqa_split4_causal_d64": dict(head_dim=64, causal=True, heads=8, kv_heads=1,
                                  lengths=[0, 200, 7, 65]),
    # Block-sparse, as the forward's (SPARSE_VARIANTS); the per-head mask
    # with grouped-query attention walks different q tiles per q head of a
    # unit.
    **{name: v for name, v in SPARSE_VARIANTS.items()},
    "sparse_gqa_split1_d128": dict(head_dim=128, causal=True, heads=4, kv_heads=2,
                                   kv_split=1, mask=(4, 0.5), lengths=[1, 130, 300]),
}
for arch, suffix in (("sm_90a", "sm90"), ("sm_100a", "sm100")):
    for name, v in BACKWARD_VARIANTS.items():
        CASES[f"attention_bwd_{suffix}_{name}"] = (
            lambda run, arch=arch, v=v: attention_backward(
                run, arch, v["lengths"], v.get("heads", 2), v["head_dim"], v["causal"],
                scale=0.3 if v["head_dim"] == 64 else None, window=v.get("window"),
                kv_heads=v.get("kv_heads"), lengths_k=v.get("lengths_k"),
                activation=v.get("activation", "softmax"), kv_split=v.get("kv_split"),
                mask=v.get("mask")))


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--interp", default="jfa-interp")
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--kernels", default=os.path.join(here, "..", "..", "kernels"))
    parser.add_argument("--seed", type=int, default=None,
                        help="random seed (default: fresh every run)")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--interp-arg", action="append", default=[],
                        help="pass this flag to every jfa-interp run too "
                             "(repeat for several): --interp-arg=--nan-check")
    parser.add_argument("cases", nargs="*")
    opts = parser.parse_args()
    if opts.list:
        print("\n".join(CASES))
        return 0
    names = opts.cases or list(CASES)
    seed = opts.seed if opts.seed is not None else int.from_bytes(os.urandom(4), "little")
    failures = 0
    for name in names:
        if name not in CASES:
            print(f"unknown case {name}; --list shows them", file=sys.stderr)
            return 2
        rng = np.random.default_rng(seed)
        with tempfile.TemporaryDirectory() as tmp:
            try:
                err, secs = CASES[name](Run(opts.interp, opts.kernels, tmp, rng,
                                               opts.interp_arg))
                print(f"PASS {name}: max abs error {err:.3g} ({secs:.1f} s, seed {seed})")
            except (AssertionError, RuntimeError) as e:
                failures += 1
                print(f"FAIL {name} (seed {seed}): {e}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
