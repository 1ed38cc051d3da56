r"""One GEMM launch for ncu (issue 23): gemm_persistent_sm90 or
gemm_persistent_multicast_sm90 (the cubin's kernel says which; or cuBLAS with
--peer) on one shape, after a warm-up launch.

    ncu --section SpeedOfLight -c 1 --launch-skip 1 -k regex:gemm_persistent \
        python3 bench/gemm_profile.py LIB CUBIN --shape 4096x4096x2048
    ncu ... -k regex:'nvjet|gemm|xmma' python3 bench/gemm_profile.py LIB CUBIN \
        --shape 4096x4096x2048 --peer

C = A @ B^T, A [M, K], B [N, K] bf16 (bench/gemm_bench.py's GEMM), launched
as gemm_bench.py launches it: gemm_persistent_sm90 on min(#SMs, ceil(M/128) *
ceil(N/256)) CTAs, gemm_persistent_multicast_sm90 on clusters of two, one per
two SMs and at most one per 256x256 tile; the result is checked against an
fp32 reference after the launches.
"""
import argparse
import os
import sys

ap = argparse.ArgumentParser(description=__doc__,
                             formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument("lib", help="the runtime library (libjfart.so)")
ap.add_argument("cubin", help="kernels/gemm/gemm_persistent_sm90.mlir compiled for sm_90a")
ap.add_argument("--shape", default="4096x4096x2048", help="MxNxK")
ap.add_argument("--peer", action="store_true", help="torch.matmul (cuBLAS) instead")
args = ap.parse_args()
m, n, k = (int(x) for x in args.shape.split("x"))
os.environ["JFA_LIBRARY"] = os.path.abspath(args.lib)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import torch  # noqa: E402

import jfa  # noqa: E402

torch.backends.cuda.matmul.allow_tf32 = False
a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
if args.peer:
    for _ in range(2):
        c = torch.matmul(a, b.T)
else:
    mod = jfa.load(args.cubin)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    if "gemm_persistent_multicast_sm90" in mod.kernels:
        name = "gemm_persistent_multicast_sm90"
        grid = 2 * min(sms // 2, ((m + 255) // 256) * ((n + 255) // 256))
    else:
        name = "gemm_persistent_sm90"
        grid = min(sms, ((m + 127) // 128) * ((n + 255) // 256))
    kernel = mod[name]
    for _ in range(2):
        kernel(grid, a, b, c, m, n, k)
torch.cuda.synchronize()
ref = a.float() @ b.float().T
err = ((c.float() - ref).norm() / ref.norm()).item()
print(f"{'cuBLAS' if args.peer else name} {m}x{n}x{k}: rel err {err:.2e}")
sys.exit(0 if err < 1e-2 else 1)
