"""The --debug-barriers demonstration (docs/BARRIERS.md) on a GPU.

  python3 bench/broken_barrier_demo.py .gpu/libjfart.so .gpu/broken_phase_debug_sm_90a.cubin

Launches kernels/examples/broken_phase_sm90.mlir, built with
`jfac compile --debug-barriers`: its producer waits on the wrong phase, so
every CTA deadlocks. The debug build must print the located report line and
trap within seconds, and the runtime must turn that into an error saying so.
Exits 0 when that is what happened. Never run the kernel built without the
flag: it hangs the GPU.
"""
import ctypes
import sys
import time

import torch

sys.path.insert(0, __import__("os").path.dirname(__file__))
from jfa_ctypes import Module  # noqa: E402

lib_path, cubin = sys.argv[1], sys.argv[2]
mod = Module(lib_path, cubin)
m = n = k = 256
a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
c = torch.zeros(m, n, device="cuda", dtype=torch.bfloat16)
torch.cuda.synchronize()
start = time.time()
mod.launch("broken_phase_sm90", (2,), [a, b, c, ("i32", m), ("i32", n), ("i32", k)],
           torch.cuda.current_stream().cuda_stream)
rc = mod.lib.jfa_synchronize()
elapsed = time.time() - start
sys.stdout.flush()
message = mod.lib.jfa_last_error().decode() if rc else ""
print(f"jfa_synchronize returned {rc} after {elapsed:.1f} s", flush=True)
print(f"runtime error: {message}", flush=True)
ok = rc != 0 and "barrier wait" in message
print("DEMO PASSED" if ok else "DEMO FAILED", flush=True)
sys.exit(0 if ok else 1)
