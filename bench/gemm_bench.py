r"""GEMM on the H200: kernels/gemm/gemm_sm90.mlir against torch.matmul (cuBLAS).

  python3 bench/gemm_bench.py .gpu/libjfart.so .gpu/gemm_sm90.cubin
  python3 bench/gemm_bench.py .gpu/libjfart.so .gpu/gemm_sm90.cubin \
      --fp8 .gpu/gemm_fp8_sm90.cubin
  python3 bench/gemm_bench.py .gpu/libjfart.so .gpu/gemm_sm90.cubin \
      --multicast .gpu/gemm_multicast_sm90.cubin --results bench/results.jsonl
  python3 bench/gemm_bench.py .gpu/libjfart.so .gpu/gemm_sm90.cubin \
      --fp8 .gpu/gemm_fp8_sm90.cubin \
      --persistent-multicast-fp8 .gpu/gemm_persistent_multicast_fp8_sm90.cubin

The runtime library and the gemm_sm90 cubin come first; options (below) may
stand anywhere after them, and any further arguments are cubins of
examples/matmul_sm90.mlir (the transposed-operand paths: C = A @ B with B
stored [K, N]), each checked on a few shapes.

C = A @ B^T, A: [M, K], B: [N, K] bf16, fp32 accumulate, C bf16. Each shape:
fresh random inputs, C poisoned with NaN, compared with an fp32 reference
(||C - ref|| / ||ref|| < 1e-2, no NaN); then both timed with CUDA events
(warm-up, median of many runs) on the same inputs, in the same process.
Shapes of fewer than 2^30 multiply-adds are checked only, not timed.

--fp8 CUBIN (kernels/gemm/gemm_fp8_sm90.mlir compiled for sm_90a): also
C = (scale_a * scale_b) * A @ B^T with A, B float8_e4m3fn and C bf16, checked
the same way and timed against torch._scaled_mm (cuBLASLt, per-tensor
scales) on the same inputs.

--persistent-multicast-fp8 CUBIN
(kernels/gemm/gemm_persistent_multicast_fp8_sm90.mlir; issue 23): the fp8
GEMM persistent, in clusters of (2, 1, 1) sharing B, launched on
2 * min(#SMs / 2, ceil(M/256) * ceil(N/256)) CTAs, checked as --fp8 is and
timed against torch._scaled_mm on the same inputs (and against
gemm_fp8_sm90 where --fp8 is given too). The cubin's metadata must say
cluster (2, 1, 1).

--multicast CUBIN (kernels/gemm/gemm_multicast_sm90.mlir compiled for
sm_90a; issue 23): the same GEMM in clusters of (2, 1, 1) CTAs that share
B's tile through TMA multicast, launched on 2 * ceil(M/256) * ceil(N/256)
CTAs. On every shape of the list: fresh inputs, C poisoned, checked as the
plain kernel; then timed against torch.matmul and gemm_sm90 on the same
inputs, one row per shape with both ratios (> 1: the multicast kernel is
faster). The cubin's metadata must say cluster (2, 1, 1) (the grid above
assumes it).

--persistent CUBIN (kernels/gemm/gemm_persistent_sm90.mlir; issue 23): the
same GEMM persistent, launched on min(#SMs, ceil(M/128) * ceil(N/256)) CTAs,
checked and timed as --multicast is (against torch.matmul and gemm_sm90).

--persistent-multicast CUBIN (kernels/gemm/gemm_persistent_multicast_sm90.mlir):
both, persistent clusters of (2, 1, 1) sharing B, launched on
2 * min(#SMs / 2, ceil(M/256) * ceil(N/256)) CTAs, checked and timed as
--multicast is.

--timing queued|synced: how each run is timed (median_ms): queued (the
default) behind an L2-evicting write with no synchronization between runs,
so the host's launch work is hidden and L2 starts cold, as
bench/attention_bench.py times; synced, each run alone (runs 51-71: the
host's launch time counts, L2 stays warm).

--results FILE: appends one JSON object per timed (kernel, shape) to FILE
(e.g. bench/results.jsonl, shared with bench/attention_bench.py), as it is
measured: kernel (gemm_sm90, gemm_multicast_sm90, gemm_persistent_sm90,
gemm_fp8_sm90, gemm_persistent_multicast_fp8_sm90), tag,
commit, date, device, shape ("MxNxK", a name as attention's shapes are) with
M, N, K, tflops, ms, peers_tflops ({"cublas": ...}; fp8: {"scaled_mm": ...}),
ours_over_best_peer (ours / the peer's TFLOP/s), check ("ok" or "FAIL: ..."),
rel_err; the multicast and persistent rows also plain_tflops (gemm_sm90 in the same run)
and over_plain (the persistent multicast fp8 rows: gemm_fp8_sm90's, with --fp8). bench/plot.py draws none of them (it skips other kernels).
--commit HASH: the commit recorded (default: git rev-parse --short=12 HEAD
where this is a checkout). --tag TAG: recorded too.

The exit status is 1 when any check fails (a wrong result, NaN left in C, or
a kernel that cannot be launched), 2 for bad arguments.
"""
import argparse
import json
import math
import os
import statistics
import sys
import time

from batches import git_commit  # bench/batches.py: the checkout's commit
from timing import queued_median_ms  # bench/timing.py: the attention bench's method

# torch and jfa are imported by main(), after the arguments are parsed (so
# --help and the argument checks work on a machine without them).
torch = None
jfa = None

# The shapes (3000x5000x1000, 2048x2048x8192, 4096x4096x2048, 6144^3,
# 12288x4096x4096) after the earlier ones; the small ones are edges (partial
# tiles; M = 1, 129 and 777 leave the second CTA of a cluster without rows).
SHAPES = [(8192, 8192, 8192), (4096, 4096, 4096), (16384, 1024, 4096),
          (1000, 1000, 1000), (777, 1000, 520), (129, 264, 72), (128, 256, 64),
          (1, 8, 8), (8192, 8192, 1024),
          (3000, 5000, 1000), (2048, 2048, 8192), (4096, 4096, 2048),
          (6144, 6144, 6144), (12288, 4096, 4096)]
MATMUL_SHAPES = [(64, 64, 64), (128, 192, 256), (100, 72, 136), (1000, 512, 1000), (1, 8, 8)]
# torch._scaled_mm's cuBLASLt path wants K and N multiples of 16; the jfa
# kernel wants K a multiple of 16 (TMA rows of 16 bytes).
FP8_SHAPES = [(8192, 8192, 8192), (4096, 4096, 4096), (16384, 1024, 4096),
              (777, 1008, 528), (129, 272, 80), (128, 256, 128), (1, 16, 16),
              (8192, 8192, 1024),
              (2048, 2048, 8192), (4096, 4096, 2048), (6144, 6144, 6144),
              (12288, 4096, 4096)]
REL_ERR = 1e-2  # bf16 output: ||C - ref|| / ||ref|| (bf16's rounding alone is ~2e-3)
TIMED_MACS = 1 << 30  # shapes with fewer multiply-adds are checked only
MULTICAST_CLUSTER = (2, 1, 1)


def parse_args(argv):
    """The command line (argv without the program name): lib and cubin
    first, then the options anywhere, the rest matmul_sm90 cubins. Exits 2
    (argparse) on bad arguments, 0 after --help."""
    ap = argparse.ArgumentParser(
        prog="gemm_bench.py", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("lib", help="the runtime library (libjfart.so)")
    ap.add_argument("cubin", help="kernels/gemm/gemm_sm90.mlir compiled for sm_90a")
    ap.add_argument("matmul", nargs="*", metavar="MATMUL_CUBIN",
                    help="examples/matmul_sm90.mlir cubins (transposed-operand paths)")
    ap.add_argument("--fp8", metavar="CUBIN", help="gemm_fp8_sm90 against torch._scaled_mm")
    ap.add_argument("--multicast", metavar="CUBIN",
                    help="gemm_multicast_sm90 (clusters of 2) against torch.matmul and "
                    "gemm_sm90")
    ap.add_argument("--persistent", metavar="CUBIN",
                    help="gemm_persistent_sm90 (one CTA per SM) against torch.matmul and "
                    "gemm_sm90")
    ap.add_argument("--persistent-multicast", dest="persistent_multicast", metavar="CUBIN",
                    help="gemm_persistent_multicast_sm90 (persistent clusters of 2) against "
                    "torch.matmul and gemm_sm90")
    ap.add_argument("--persistent-multicast-fp8", dest="persistent_multicast_fp8",
                    metavar="CUBIN",
                    help="gemm_persistent_multicast_fp8_sm90 (persistent clusters of 2, fp8) "
                    "against torch._scaled_mm (and gemm_fp8_sm90 with --fp8)")
    ap.add_argument("--results", metavar="FILE",
                    help="append one JSON object per timed (kernel, shape) to FILE, e.g. "
                    "bench/results.jsonl")
    ap.add_argument("--commit", metavar="HASH", default=None,
                    help="recorded with --results (default: git rev-parse HEAD where this "
                    "is a checkout)")
    ap.add_argument("--tag", default="", help="recorded with --results")
    ap.add_argument("--shapes", metavar="MxNxK,...",
                    help="only these shapes of the list (default: all; the matmul and fp8 "
                    "lists are not filtered)")
    ap.add_argument("--timing", choices=("queued", "synced"), default="queued",
                    help="queued (default): each timed run queued behind an L2-evicting "
                    "write, no synchronization between runs (the host's launch time is "
                    "hidden, as in attention_bench.py); synced: each run synchronized alone "
                    "(the host's launch time counts; runs 51-71)")
    # Intermixed: `lib cubin --fp8 X m1 m2` gives matmul [m1, m2] (plain
    # parse_args would call m1 m2 unrecognized).
    return ap.parse_intermixed_args(argv)


SHAPE_FILTER = None  # --shapes


def selected_shapes():
    """SHAPES, or those --shapes names (in the list's order)."""
    if SHAPE_FILTER is None:
        return SHAPES
    return [s for s in SHAPES if "x".join(map(str, s)) in SHAPE_FILTER]


def gemm_grid(m, n):
    """gemm_sm90: one CTA per 128x256 tile of C."""
    return ((m + 127) // 128) * ((n + 255) // 256)


def multicast_grid(m, n):
    """gemm_multicast_sm90: a cluster of two CTAs per 256x256 tile of C."""
    return 2 * ((m + 255) // 256) * ((n + 255) // 256)


def timed(m, n, k):
    return m * n * k >= TIMED_MACS


def reps_for(m, n, k):
    return 30 if m * n * k >= 1 << 38 else 100


def tflops(m, n, k, ms):
    return 2.0 * m * n * k / ms / 1e9


def results_row(kernel, m, n, k, ms, peer, peer_ms, check, rel_err, meta, **extra):
    """One --results object (the field names of bench/attention_bench.py's
    rows: kernel, tag, commit, date, device, shape, tflops, ms, peers_tflops,
    ours_over_best_peer, check)."""
    ours = tflops(m, n, k, ms)
    theirs = tflops(m, n, k, peer_ms)
    row = {"kernel": kernel, "tag": meta["tag"], "commit": meta["commit"],
           "date": meta["date"], "device": meta["device"], "timing": meta["timing"],
           "shape": f"{m}x{n}x{k}", "M": m, "N": n, "K": k,
           "tflops": round(ours, 1), "ms": round(ms, 4),
           "peers_tflops": {peer: round(theirs, 1)},
           "ours_over_best_peer": round(ours / theirs, 3),
           "check": check,
           "rel_err": float(f"{rel_err:.3g}") if math.isfinite(rel_err) else None}
    row.update(extra)
    return row


def append_result(path, row):
    """Appends one row at once (a run cut short keeps what it measured)."""
    if path:
        with open(path, "a") as f:
            f.write(json.dumps(row) + "\n")


TIMING = "queued"  # --timing


def median_ms(fn, reps):
    """Median GPU time of fn in ms over `reps` runs, each between two CUDA
    events. --timing queued (the default, as bench/attention_bench.py times):
    each run is queued behind a 256 MB write that evicts the L2 cache and
    keeps the GPU busy while the host launches fn, with no synchronization
    between runs, so the events time the kernel and not the host's launch
    work (Python's argument packing for jfa, torch's dispatch for cuBLAS),
    and both start from a cold L2. --timing synced (the method of runs 51-71):
    each run synchronized alone, so the host's launch time between the first
    event and the kernel counts, and L2 stays warm from the last run."""
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    if TIMING == "queued":
        return queued_median_ms(fn, reps)
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
              for _ in range(reps)]
    for s, e in events:
        s.record()
        fn()
        e.record()
        e.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in events)


def check_bf16(c, ref):
    """(ok, rel err, message suffix) of a bf16 C against its fp32 reference."""
    err = ((c.float() - ref).norm() / ref.norm()).item()
    nan = torch.isnan(c).any().item()
    return (not nan) and err < REL_ERR, err, " NaN!" if nan else ""


def bf16_inputs(m, n, k):
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    return a, b, c


def run_plain(mod, meta, results):
    """gemm_sm90 against cuBLAS on SHAPES; returns the number of failures."""
    failures = 0
    for m, n, k in selected_shapes():
        a, b, c = bf16_inputs(m, n, k)

        def jfa_gemm():
            mod.gemm_sm90(gemm_grid(m, n), a, b, c, m, n, k)  # on torch's current stream

        jfa_gemm()
        torch.cuda.synchronize()
        ref = a.float() @ b.float().T
        ok, err, nan = check_bf16(c, ref)
        del ref
        failures += not ok
        line = f"{'ok  ' if ok else 'FAIL'} M={m} N={n} K={k}: rel err {err:.2e}{nan}"
        if timed(m, n, k):
            reps = reps_for(m, n, k)
            t_jfa = median_ms(jfa_gemm, reps)
            t_blas = median_ms(lambda: torch.matmul(a, b.T), reps)
            line += (f"  jfa {t_jfa * 1e3:.1f} us ({tflops(m, n, k, t_jfa):.0f} TFLOP/s)"
                     f"  cuBLAS {t_blas * 1e3:.1f} us ({tflops(m, n, k, t_blas):.0f} TFLOP/s)"
                     f"  ratio {t_blas / t_jfa:.2f}x")
            append_result(results, results_row(
                "gemm_sm90", m, n, k, t_jfa, "cublas", t_blas,
                "ok" if ok else f"FAIL: rel err {err:.2e}{nan}", err, meta))
        print(line, flush=True)
    return failures


def run_matmul(paths):
    """The transposed-operand paths: C = A @ B with B stored [K, N] (N-major),
    examples/matmul_sm90.mlir with A from shared memory (a_operand=0) or from
    registers (a_operand=2), one cubin each. Returns the number of failures."""
    failures = 0
    for path in paths:
        nn = jfa.load(path)
        name = os.path.basename(path)
        for m, n, k in MATMUL_SHAPES:
            a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
            b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
            c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
            grid = ((m + 63) // 64) * ((n + 63) // 64)
            nn.matmul_sm90(grid, a, b, c, m, n, k)
            torch.cuda.synchronize()
            ref = a.double() @ b.double()
            err = ((c.double() - ref).norm() / ref.norm()).item()
            nan = torch.isnan(c).any().item()
            ok = (not nan) and err < 1e-5
            failures += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {name} M={m} N={n} K={k}: "
                  f"rel err {err:.2e}{' NaN!' if nan else ''}", flush=True)
    return failures


def fp8_inputs(m, n, k):
    a = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
    b = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    return a, b, c


def cluster_ok(label, path, kernel, cluster):
    """Prints the kernel; False (and why) if its cluster is not the one its
    grid assumes."""
    print(f"{label}: {kernel!r}, cluster {kernel.spec.cluster}", flush=True)
    if tuple(kernel.spec.cluster) != cluster:
        print(f"FAIL {label}: {path} has cluster {tuple(kernel.spec.cluster)}, expected "
              f"{cluster} (the grid assumes it)", flush=True)
        return False
    return True


def first_launch_ok(label, launch, m, n, k, grid):
    """Runs `launch` once; False (and why) if it raises: the remaining
    shapes would fail alike, so the caller skips them."""
    try:
        launch()
        torch.cuda.synchronize()
    except Exception as e:  # noqa: BLE001 - reported; later shapes would fail alike
        print(f"FAIL {label} M={m} N={n} K={k} (grid {grid}): {type(e).__name__}: {e}",
              flush=True)
        print(f"{label}: the remaining shapes are skipped", flush=True)
        return False
    return True


def run_fp8(path, meta, results, name="gemm_fp8_sm90", grid_of=None, plain=None):
    """fp8 (e4m3) operands with per-tensor scales, bf16 out, against
    torch._scaled_mm: gemm_fp8_sm90 (one CTA per tile), or `name` launched
    on grid_of(m, n) CTAs and also timed against `plain` (gemm_fp8_sm90's
    cubin path, if given). Returns the number of failures."""
    failures = 0
    kernel = getattr(jfa.load(path), name)
    grid_of = grid_of or gemm_grid
    plain_kernel = jfa.load(plain).gemm_fp8_sm90 if plain else None
    label = "fp8" if name == "gemm_fp8_sm90" else name
    if name != "gemm_fp8_sm90" and not cluster_ok(label, path, kernel, MULTICAST_CLUSTER):
        return 1
    rows = []
    for m, n, k in FP8_SHAPES:
        a, b, c = fp8_inputs(m, n, k)
        scale_a = torch.tensor(0.75, device="cuda")
        scale_b = torch.tensor(0.125, device="cuda")
        scale = (scale_a * scale_b).item()
        grid = grid_of(m, n)

        def jfa_fp8():
            kernel(grid, a, b, c, m, n, k, scale)

        def jfa_plain():
            plain_kernel(gemm_grid(m, n), a, b, c, m, n, k, scale)

        def scaled_mm():
            return torch._scaled_mm(a, b.T, scale_a=scale_a, scale_b=scale_b,
                                    out_dtype=torch.bfloat16)

        if not first_launch_ok(label, jfa_fp8, m, n, k, grid):
            failures += 1
            break
        ref = (a.float() @ b.float().T) * scale
        ok, err, nan = check_bf16(c, ref)
        del ref
        failures += not ok
        line = (f"{'ok  ' if ok else 'FAIL'} {label} M={m} N={n} K={k} ({grid} CTAs): "
                f"rel err {err:.2e}{nan}")
        if timed(m, n, k):
            reps = reps_for(m, n, k)
            t_jfa = median_ms(jfa_fp8, reps)
            t_ref = median_ms(scaled_mm, reps)
            line += (f"  jfa {t_jfa * 1e3:.1f} us ({tflops(m, n, k, t_jfa):.0f} TFLOP/s)"
                     f"  _scaled_mm {t_ref * 1e3:.1f} us ({tflops(m, n, k, t_ref):.0f} TFLOP/s)"
                     f"  ratio {t_ref / t_jfa:.2f}x")
            extra = {}
            t_plain = None
            if plain_kernel is not None:
                t_plain = median_ms(jfa_plain, reps)
                line += (f"  gemm_fp8_sm90 {t_plain * 1e3:.1f} us "
                         f"({tflops(m, n, k, t_plain):.0f})  vs gemm_fp8_sm90 "
                         f"{t_plain / t_jfa:.2f}x")
                extra = {"plain_tflops": round(tflops(m, n, k, t_plain), 1),
                         "over_plain": round(t_plain / t_jfa, 3)}
            rows.append((m, n, k, ok, t_jfa, t_ref, t_plain))
            append_result(results, results_row(
                name, m, n, k, t_jfa, "scaled_mm", t_ref,
                "ok" if ok else f"FAIL: rel err {err:.2e}{nan}", err, meta, **extra))
        print(line, flush=True)
    if rows and name != "gemm_fp8_sm90":
        print(f"\n| M | N | K | {label} TFLOP/s | _scaled_mm TFLOP/s | gemm_fp8_sm90 TFLOP/s "
              f"| / _scaled_mm | / gemm_fp8_sm90 |")
        print("|---" * 8 + "|")
        for m, n, k, ok, t_jfa, t_ref, t_plain in rows:
            plain_tf = f"{tflops(m, n, k, t_plain):.0f}" if t_plain else "-"
            over_plain = f"{t_plain / t_jfa:.2f}x" if t_plain else "-"
            print(f"| {m} | {n} | {k} | {tflops(m, n, k, t_jfa):.0f}{'' if ok else ' (FAIL)'} "
                  f"| {tflops(m, n, k, t_ref):.0f} | {plain_tf} "
                  f"| {t_ref / t_jfa:.2f}x | {over_plain} |")
        print(flush=True)
    return failures


# The variants of gemm_sm90 timed against it (--multicast, --persistent):
# option -> (kernel, grid(m, n), cluster the grid assumes).
VARIANTS = {
    "multicast": ("gemm_multicast_sm90", lambda m, n: multicast_grid(m, n), MULTICAST_CLUSTER),
    "persistent": ("gemm_persistent_sm90", lambda m, n: persistent_grid(m, n), (1, 1, 1)),
    "persistent_multicast": ("gemm_persistent_multicast_sm90",
                             lambda m, n: persistent_multicast_grid(m, n), MULTICAST_CLUSTER),
}


def persistent_grid(m, n):
    """gemm_persistent_sm90: one CTA per SM, at most one per tile."""
    sms = torch.cuda.get_device_properties(torch.cuda.current_device()).multi_processor_count
    return min(sms, gemm_grid(m, n))


def persistent_multicast_grid(m, n):
    """gemm_persistent_multicast_sm90: one cluster of two per two SMs, at most
    one per 256x256 tile."""
    sms = torch.cuda.get_device_properties(torch.cuda.current_device()).multi_processor_count
    return 2 * min(sms // 2, multicast_grid(m, n) // 2)


def run_variant(option, path, mod, meta, results):
    """A variant of gemm_sm90 (issue 23: VARIANTS) on SHAPES: checked, then
    timed against torch.matmul and gemm_sm90 (`mod`) on the same inputs.
    Returns the number of failures."""
    name, grid_of, cluster = VARIANTS[option]
    kernel = getattr(jfa.load(path), name)
    if not cluster_ok(option, path, kernel, cluster):
        return 1
    failures = 0
    rows = []
    for m, n, k in selected_shapes():
        a, b, c = bf16_inputs(m, n, k)
        grid = grid_of(m, n)

        def jfa_variant():
            kernel(grid, a, b, c, m, n, k)

        def jfa_plain():
            mod.gemm_sm90(gemm_grid(m, n), a, b, c, m, n, k)

        if not first_launch_ok(option, jfa_variant, m, n, k, grid):
            failures += 1
            break
        ref = a.float() @ b.float().T
        ok, err, nan = check_bf16(c, ref)
        del ref
        failures += not ok
        line = (f"{'ok  ' if ok else 'FAIL'} {option} M={m} N={n} K={k} ({grid} CTAs): "
                f"rel err {err:.2e}{nan}")
        if timed(m, n, k):
            reps = reps_for(m, n, k)
            t_var = median_ms(jfa_variant, reps)
            t_plain = median_ms(jfa_plain, reps)
            t_blas = median_ms(lambda: torch.matmul(a, b.T), reps)
            line += (f"  {option} {t_var * 1e3:.1f} us ({tflops(m, n, k, t_var):.0f} TFLOP/s)"
                     f"  gemm_sm90 {t_plain * 1e3:.1f} us ({tflops(m, n, k, t_plain):.0f})"
                     f"  cuBLAS {t_blas * 1e3:.1f} us ({tflops(m, n, k, t_blas):.0f})"
                     f"  vs cuBLAS {t_blas / t_var:.2f}x  vs gemm_sm90 {t_plain / t_var:.2f}x")
            rows.append((m, n, k, ok, t_var, t_plain, t_blas))
            append_result(results, results_row(
                name, m, n, k, t_var, "cublas", t_blas,
                "ok" if ok else f"FAIL: rel err {err:.2e}{nan}", err, meta,
                plain_tflops=round(tflops(m, n, k, t_plain), 1),
                over_plain=round(t_plain / t_var, 3)))
        print(line, flush=True)
    if rows:
        print(f"\n| M | N | K | {option} TFLOP/s | gemm_sm90 TFLOP/s | cuBLAS TFLOP/s "
              f"| {option} / cuBLAS | {option} / gemm_sm90 |")
        print("|---" * 8 + "|")
        for m, n, k, ok, t_var, t_plain, t_blas in rows:
            print(f"| {m} | {n} | {k} | {tflops(m, n, k, t_var):.0f}{'' if ok else ' (FAIL)'} "
                  f"| {tflops(m, n, k, t_plain):.0f} | {tflops(m, n, k, t_blas):.0f} "
                  f"| {t_blas / t_var:.2f}x | {t_plain / t_var:.2f}x |")
        print(flush=True)
    return failures


def main(argv=None):
    global torch, jfa
    args = parse_args(sys.argv[1:] if argv is None else argv)
    # The jfa package from this checkout (or PYTHONPATH), with the given runtime.
    os.environ["JFA_LIBRARY"] = os.path.abspath(args.lib)
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                    "python"))
    import torch as torch_module
    import jfa as jfa_module
    torch, jfa = torch_module, jfa_module

    global TIMING, SHAPE_FILTER
    TIMING = args.timing
    if args.shapes:
        SHAPE_FILTER = set(args.shapes.split(","))
        unknown = SHAPE_FILTER - {"x".join(map(str, s)) for s in SHAPES}
        if unknown:
            print(f"gemm_bench.py: --shapes: not in the list: {', '.join(sorted(unknown))}",
                  file=sys.stderr)
            return 2
    torch.backends.cuda.matmul.allow_tf32 = False
    mod = jfa.load(args.cubin)
    meta = {"tag": args.tag, "commit": args.commit or git_commit(), "timing": TIMING,
            "date": time.strftime("%Y-%m-%d"), "device": torch.cuda.get_device_name()}
    print(f"{meta['device']}, torch {torch.__version__}; jfa {jfa.__version__} "
          f"({jfa.library_path()}); commit {meta['commit'] or 'unknown'}", flush=True)

    failures = run_plain(mod, meta, args.results)
    failures += run_matmul(args.matmul)
    if args.fp8:
        failures += run_fp8(args.fp8, meta, args.results)
    if args.persistent_multicast_fp8:
        failures += run_fp8(args.persistent_multicast_fp8, meta, args.results,
                            name="gemm_persistent_multicast_fp8_sm90",
                            grid_of=persistent_multicast_grid, plain=args.fp8)
    for option in VARIANTS:
        if getattr(args, option):
            failures += run_variant(option, getattr(args, option), mod, meta, args.results)
    if args.results:
        print(f"results appended to {args.results}")
    print(f"{'PASSED' if failures == 0 else 'FAILED'}: {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
