#!/usr/bin/env python3
"""gemm_multicast_sm90, gemm_persistent_sm90, gemm_persistent_multicast_sm90
and gemm_persistent_multicast_fp8_sm90 (issue 23) at the edges on the GPU.

C = A @ B^T against an fp32 reference. gemm_multicast_sm90: the two CTAs of
a cluster share B's tile through TMA multicast. gemm_persistent_sm90: a CTA
takes tile after tile through one ring; it runs on 3 CTAs (each taking
several tiles where there are more) and on more CTAs than tiles (the extra
ones take none). gemm_persistent_multicast_sm90: both, a cluster taking
256x256 tile after tile; it runs on 3 clusters and on more clusters than
tiles. gemm_persistent_multicast_fp8_sm90: the same with e4m3 A and B and a
per-tensor scale (C = scale * A @ B^T, K a multiple of 16: 16, 80, 1008
for 8, 72, 1000; the padding 16 columns). The cubin's kernel says which.

    python3 test/gpu/gemm_cluster_test.py LIBJFART CUBIN [--sanitize] [--seed N]
    compute-sanitizer --tool memcheck  python3 test/gpu/gemm_cluster_test.py LIB CUBIN --sanitize
    compute-sanitizer --tool racecheck python3 test/gpu/gemm_cluster_test.py LIB CUBIN --sanitize

CUBIN is kernels/gemm/gemm_multicast_sm90.mlir, gemm_persistent_sm90.mlir,
gemm_persistent_multicast_sm90.mlir or gemm_persistent_multicast_fp8_sm90.mlir
compiled for sm_90a (its .meta beside it); LIBJFART the runtime library it launches through (set as
JFA_LIBRARY; the jfa package is PYTHONPATH's, else this checkout's python/).

A cluster computes a 256x256 tile of C, CTA rank r its rows [128 r, 128 r +
128). M leaves the second CTA of the last cluster no rows (1, 100; 300 =
256 + 44), one row (129) or all of its rows (256); N is one partial tile
(8: the second CTA's half of B's tile lies wholly past N, loaded as zeros
and multicast all the same) or of two (264), K of one partial k tile (8),
a full and a partial one (72) or many (1000). Each case runs twice: dense
tensors, then views into larger buffers whose padding is NaN (A and B past
K, M and N; C past M and N), so a read past the tensor's edge shows as NaN
in C and a write past it as a changed guard. C is poisoned with NaN first.
Checks: no NaN in C, |C - ref| <= 2^-8 |ref| + 2^-12 (|A| |B|^T) elementwise
(bf16's rounding of C is 2^-9 |ref| at most; for fp8 the second term is
2^-10 scale |A| |B|^T, since its wgmma accumulates with fewer bits), ||C - ref|| / ||ref|| < 1e-2
(the bench's bound), the guards untouched. Then the grid check: an odd
number of CTAs is refused before launch. --sanitize: a smaller matrix (for
compute-sanitizer). Prints ok/FAIL per case, PASS/FAIL at the end; the exit
status is 1 on any failure.
"""
import argparse
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# The jfa package: PYTHONPATH's, else this checkout's.
sys.path.append(os.path.join(HERE, "..", "..", "python"))

CLUSTER = (2, 1, 1)
FULL_M = (1, 100, 129, 256, 300)
FULL_N = (8, 264)
FULL_K = (8, 72, 1000)
# More than one cluster along M and N, and more tile rows than the schedule's
# group of 8 (2100 rows: 9 tile rows of 256, the last of 52 rows).
FULL_EXTRA = [(513, 520, 200), (2100, 600, 136), (1000, 1000, 1000)]
SANITIZE_M = (100, 129, 256, 300)
SANITIZE_N = (8, 264)
SANITIZE_K = (8, 72)
PAD = 8  # padding columns (16 bytes of bf16: TMA strides stay multiples of 16)
# fp8: K a multiple of 16 (rows of A and B 16-byte aligned), 16 padding columns.
FP8_K = {8: 16, 72: 80, 1000: 1008, 200: 208, 136: 144}
FP8_PAD = 16
FP8_SCALE = 0.375  # scale_a * scale_b, exact in f32
GUARD_ROWS = 64


def grid_of(m, n):
    """2 * ceil(M/256) * ceil(N/256) CTAs: a cluster of two per 256x256 tile."""
    return 2 * ((m + 255) // 256) * ((n + 255) // 256)


def tiles_of(m, n):
    """gemm_persistent_sm90's 128x256 tiles."""
    return ((m + 127) // 128) * ((n + 255) // 256)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("lib", help="the runtime library (libjfart.so)")
    ap.add_argument("cubin", help="gemm_multicast_sm90, gemm_persistent_sm90, "
                    "gemm_persistent_multicast_sm90 or gemm_persistent_multicast_fp8_sm90 "
                    "compiled for sm_90a (+ .meta)")
    ap.add_argument("--sanitize", action="store_true",
                    help="a smaller matrix (for compute-sanitizer memcheck / racecheck)")
    ap.add_argument("--seed", type=int, default=None, help="repeat a run's random data")
    args = ap.parse_args()
    os.environ["JFA_LIBRARY"] = os.path.abspath(args.lib)

    import torch
    import jfa
    from gpu_common import Results

    torch.backends.cuda.matmul.allow_tf32 = False
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
    print(f"seed {seed} (repeat with --seed {seed}); jfa {jfa.__version__}, "
          f"library {jfa.library_path()}; {torch.cuda.get_device_name()}, "
          f"torch {torch.__version__}", flush=True)
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    res = Results()

    mod = jfa.load(args.cubin)
    fp8 = hasattr(mod, "gemm_persistent_multicast_fp8_sm90")
    if fp8:
        kernel, want = mod.gemm_persistent_multicast_fp8_sm90, CLUSTER
        grids = ((lambda m, n: 2 * min(3, grid_of(m, n) // 2)),
                 (lambda m, n: grid_of(m, n) + 4))
    elif hasattr(mod, "gemm_persistent_multicast_sm90"):
        kernel, want = mod.gemm_persistent_multicast_sm90, CLUSTER
        # 3 clusters, and more clusters than 256x256 tiles.
        grids = ((lambda m, n: 2 * min(3, grid_of(m, n) // 2)),
                 (lambda m, n: grid_of(m, n) + 4))
    elif hasattr(mod, "gemm_persistent_sm90"):
        kernel, want = mod.gemm_persistent_sm90, (1, 1, 1)
        # 3 CTAs, and more CTAs than tiles.
        grids = ((lambda m, n: min(3, tiles_of(m, n))), (lambda m, n: tiles_of(m, n) + 2))
    else:
        kernel, want = mod.gemm_multicast_sm90, CLUSTER
        grids = (grid_of,)
    cluster = tuple(kernel.spec.cluster)
    res.report(cluster == want, f"{kernel!r}: cluster {cluster} (expected {want})")
    if cluster != want:
        return res.summary(seed)

    # The operands' element (e4m3 for the fp8 kernel; C is bf16 always) and
    # the scale the kernel takes (1 and none for bf16).
    dtype = torch.float8_e4m3fn if fp8 else torch.bfloat16
    scale = FP8_SCALE if fp8 else 1.0
    pad = FP8_PAD if fp8 else PAD

    def randn(rows, cols):
        return torch.randn(rows, cols, device="cuda", generator=gen).to(dtype)

    def nan(rows, cols, like=torch.bfloat16):
        # Through bf16: e4m3fn's NaN is the conversion's.
        return torch.full((rows, cols), float("nan"), device="cuda",
                          dtype=torch.bfloat16).to(like)

    def launch(grid, a, b, c, m, n, k):
        if fp8:
            kernel(grid, a, b, c, m, n, k, scale)
        else:
            kernel(grid, a, b, c, m, n, k)

    def case(m, n, k, padded, grid_fn):
        grid = grid_fn(m, n)
        name = f"M={m} N={n} K={k} {'padded' if padded else 'dense'} ({grid} CTAs)"
        if padded:
            # Views of larger buffers: the padding (NaN) lies past the tensors'
            # edges, where TMA must neither read nor write.
            abuf = nan(m + GUARD_ROWS, k + pad, dtype)
            bbuf = nan(n + GUARD_ROWS, k + pad, dtype)
            cbuf = nan(m + GUARD_ROWS, n + PAD)
            a, b, c = abuf[:m, :k], bbuf[:n, :k], cbuf[:m, :n]
            a.copy_(randn(m, k))
            b.copy_(randn(n, k))
        else:
            a, b, c = randn(m, k), randn(n, k), nan(m, n)
            cbuf = None
        try:
            launch(grid, a, b, c, m, n, k)
            torch.cuda.synchronize()
        except Exception as e:  # noqa: BLE001 - a failed case, reported
            res.report(False, f"{name}: {type(e).__name__}: {e}")
            return
        ref = (a.float() @ b.float().T) * scale
        # bf16's rounding of C (2^-8 |ref|) plus the accumulation's error: f32
        # for bf16 operands; for e4m3 operands Hopper's wgmma keeps fewer bits
        # while it accumulates (about 14, DeepSeek-V3 section 3.3.2), so 4x
        # more there (on the H200 one element of 1000x1000x1008 came out
        # 34.0 for 34.19: the f32 sum already 0.07 below the reference).
        acc_err = 2.0**-10 if fp8 else 2.0**-12
        bound = (ref.abs() * 2.0**-8
                 + (a.float().abs() @ b.float().abs().T) * (scale * acc_err))
        cf = c.float()
        nans = torch.isnan(cf).sum().item()
        diff = (cf - ref).abs()
        over = (diff > bound).sum().item()
        rel = ((cf - ref).norm() / ref.norm()).item() if ref.norm().item() > 0 else 0.0
        problems = []
        if nans:
            rows = torch.isnan(cf).any(dim=1).nonzero().flatten()
            problems.append(f"{nans} NaN (rows {rows.min().item()}..{rows.max().item()})")
        if over:
            worst = torch.nan_to_num(diff - bound, nan=float("inf")).argmax().item()
            problems.append(f"{over} elements over the bound (worst at row {worst // n}, "
                            f"col {worst % n}: {cf.flatten()[worst].item():.4g} vs "
                            f"{ref.flatten()[worst].item():.4g})")
        if not rel < 1e-2:
            problems.append(f"rel err {rel:.2e} >= 1e-2")
        if cbuf is not None:
            guard = torch.ones_like(cbuf, dtype=torch.bool)
            guard[:m, :n] = False
            written = (~torch.isnan(cbuf[guard])).sum().item()
            if written:
                problems.append(f"{written} guard elements past C's edges written")
        max_err = torch.nan_to_num(diff, nan=float("inf")).max().item()
        res.report(not problems, f"{name}: rel err {rel:.2e}, max |err| {max_err:.3g}"
                   + (": " + "; ".join(problems) if problems else ""))

    if args.sanitize:
        matrix = [(m, n, k) for m in SANITIZE_M for n in SANITIZE_N for k in SANITIZE_K]
    else:
        matrix = [(m, n, k) for m in FULL_M for n in FULL_N for k in FULL_K] + FULL_EXTRA
    if fp8:
        matrix = [(m, n, FP8_K[k]) for m, n, k in matrix]
    for grid_fn in grids:
        for padded in (False, True):
            for m, n, k in matrix:
                case(m, n, k, padded, grid_fn)
    if want != CLUSTER:
        return res.summary(seed)

    # An odd number of CTAs is not a whole number of clusters: refused before
    # the launch (jfa's check; the runtime checks it as well).
    k = 16 if fp8 else 8
    a, b, c = randn(100, k), randn(8, k), nan(100, 8)
    try:
        launch(3, a, b, c, 100, 8, k)
        torch.cuda.synchronize()
        res.report(False, "grid 3: expected ValueError (not a multiple of the cluster), "
                   "nothing raised")
    except ValueError as e:
        res.report("multiple" in str(e) and "cluster" in str(e), f"grid 3 refused: {e}")
    except Exception as e:  # noqa: BLE001
        res.report(False, f"grid 3: expected ValueError, got {type(e).__name__}: {e}")
    return res.summary(seed)


if __name__ == "__main__":
    sys.exit(main())
