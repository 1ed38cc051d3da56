"""GEMM on the H200: kernels/gemm/gemm_sm90.mlir against torch.matmul (cuBLAS).

  python3 bench/gemm_bench.py .gpu/libjfart.so .gpu/gemm_sm90.cubin
  python3 bench/gemm_bench.py .gpu/libjfart.so .gpu/gemm_sm90.cubin \
      --fp8 .gpu/gemm_fp8_sm90.cubin

C = A @ B^T, A: [M, K], B: [N, K] bf16, fp32 accumulate, C bf16. Each shape:
fresh random inputs, C poisoned with NaN, compared with an fp32 reference
(||C - ref|| / ||ref||); then both timed with CUDA events (warm-up, median of
many runs) on the same inputs, in the same process.

With --fp8 CUBIN (kernels/gemm/gemm_fp8_sm90.mlir compiled for sm_90a), also
C = (scale_a * scale_b) * A @ B^T with A, B float8_e4m3fn and C bf16, checked
the same way and timed against torch._scaled_mm (cuBLASLt, per-tensor
scales) on the same inputs.
"""
import os
import statistics
import sys

import torch

# --fp8 CUBIN may stand anywhere after the first two arguments.
fp8_cubin = None
if "--fp8" in sys.argv[3:]:
    at = sys.argv.index("--fp8", 3)
    fp8_cubin = sys.argv[at + 1]
    del sys.argv[at:at + 2]
lib, cubin = sys.argv[1], sys.argv[2]
# The jfa package from this checkout (or PYTHONPATH), with the given runtime.
os.environ["JFA_LIBRARY"] = os.path.abspath(lib)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import jfa  # noqa: E402

torch.backends.cuda.matmul.allow_tf32 = False
mod = jfa.load(cubin)


def jfa_gemm(a, b, c):
    m, k = a.shape
    n = b.shape[0]
    grid = ((m + 127) // 128) * ((n + 255) // 256)
    mod.gemm_sm90(grid, a, b, c, m, n, k)  # on torch's current stream


def median_ms(fn, reps):
    for _ in range(5):
        fn()
    times = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e))
    return statistics.median(times)


shapes = [(8192, 8192, 8192), (4096, 4096, 4096), (16384, 1024, 4096),
          (1000, 1000, 1000), (777, 1000, 520), (129, 264, 72), (128, 256, 64),
          (1, 8, 8), (8192, 8192, 1024)]
failures = 0
rows = []
for m, n, k in shapes:
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    jfa_gemm(a, b, c)
    torch.cuda.synchronize()
    ref = a.float() @ b.float().T
    err = ((c.float() - ref).norm() / ref.norm()).item()
    nan = torch.isnan(c).any().item()
    ok = (not nan) and err < 1e-2
    failures += not ok
    line = f"{'ok  ' if ok else 'FAIL'} M={m} N={n} K={k}: rel err {err:.2e}{' NaN!' if nan else ''}"
    if m * n * k >= 1 << 30:
        reps = 30 if m * n * k >= 1 << 38 else 100
        t_jfa = median_ms(lambda: jfa_gemm(a, b, c), reps)
        t_blas = median_ms(lambda: torch.matmul(a, b.T), reps)
        flops = 2.0 * m * n * k
        line += (f"  jfa {t_jfa * 1e3:.1f} us ({flops / t_jfa / 1e9:.0f} TFLOP/s)"
                 f"  cuBLAS {t_blas * 1e3:.1f} us ({flops / t_blas / 1e9:.0f} TFLOP/s)"
                 f"  ratio {t_blas / t_jfa:.2f}x")
    print(line, flush=True)
# The transposed-operand paths: C = A @ B with B stored [K, N] (N-major),
# examples/matmul_sm90.mlir with A from shared memory (a_operand=0) or from
# registers (a_operand=2), one cubin each.
for path in sys.argv[3:]:
    nn = jfa.load(path)
    name = os.path.basename(path)
    for m, n, k in [(64, 64, 64), (128, 192, 256), (100, 72, 136), (1000, 512, 1000),
                    (1, 8, 8)]:
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

# fp8 (e4m3) operands with per-tensor scales, bf16 out, against
# torch._scaled_mm. Its cuBLASLt path wants K and N multiples of 16; the jfa
# kernel wants K a multiple of 16 (TMA rows of 16 bytes).
if fp8_cubin:
    fp8 = jfa.load(fp8_cubin)
    for m, n, k in [(8192, 8192, 8192), (4096, 4096, 4096), (16384, 1024, 4096),
                    (777, 1008, 528), (129, 272, 80), (128, 256, 128), (1, 16, 16),
                    (8192, 8192, 1024)]:
        a = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
        b = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn)
        scale_a = torch.tensor(0.75, device="cuda")
        scale_b = torch.tensor(0.125, device="cuda")
        scale = (scale_a * scale_b).item()
        c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
        grid = ((m + 127) // 128) * ((n + 255) // 256)

        def jfa_fp8():
            fp8.gemm_fp8_sm90(grid, a, b, c, m, n, k, scale)

        def scaled_mm():
            return torch._scaled_mm(a, b.T, scale_a=scale_a, scale_b=scale_b,
                                    out_dtype=torch.bfloat16)

        jfa_fp8()
        torch.cuda.synchronize()
        ref = (a.float() @ b.float().T) * scale
        err = ((c.float() - ref).norm() / ref.norm()).item()
        nan = torch.isnan(c).any().item()
        ok = (not nan) and err < 1e-2
        failures += not ok
        line = (f"{'ok  ' if ok else 'FAIL'} fp8 M={m} N={n} K={k}: rel err {err:.2e}"
                f"{' NaN!' if nan else ''}")
        if m * n * k >= 1 << 30:
            reps = 30 if m * n * k >= 1 << 38 else 100
            t_jfa = median_ms(jfa_fp8, reps)
            t_ref = median_ms(scaled_mm, reps)
            flops = 2.0 * m * n * k
            line += (f"  jfa {t_jfa * 1e3:.1f} us ({flops / t_jfa / 1e9:.0f} TFLOP/s)"
                     f"  _scaled_mm {t_ref * 1e3:.1f} us ({flops / t_ref / 1e9:.0f} TFLOP/s)"
                     f"  ratio {t_ref / t_jfa:.2f}x")
        print(line, flush=True)

print(f"{'PASSED' if failures == 0 else 'FAILED'}: {failures} failures")
sys.exit(1 if failures else 0)
