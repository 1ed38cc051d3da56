"""The --debug-barriers demonstration (docs/BARRIERS.md) on a GPU.

  python3 bench/broken_barrier_demo.py .gpu/libjfart.so .gpu/debug/broken_phase_sm_90a.cubin

Launches kernels/examples/broken_phase.mlir, built with
`jfac compile --debug-barriers`: a two-slot TMA ring copying y = x whose
producer waits on the wrong phase, so every CTA deadlocks. The debug build
must print the located report line and trap within seconds, and the runtime
must turn that into an error saying so. Exits 0 when that is what happened.
Never run the kernel built without the flag: it hangs the GPU.
"""
import os
import sys
import time

import torch

lib_path, cubin = sys.argv[1], sys.argv[2]
os.environ["JFA_LIBRARY"] = os.path.abspath(lib_path)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import jfa  # noqa: E402

mod = jfa.load(cubin)
rows = cols = 256
x = torch.randn(rows, cols, device="cuda", dtype=torch.float32)
y = torch.zeros(rows, cols, device="cuda", dtype=torch.float32)
torch.cuda.synchronize()
start = time.time()
mod.broken_phase((rows + 63) // 64, x, y, rows, cols)
try:
    jfa.synchronize()  # the runtime's jfa_synchronize: explains the trap
    rc, message = 0, ""
except RuntimeError as e:
    rc, message = 1, str(e)
elapsed = time.time() - start
sys.stdout.flush()
print(f"jfa.synchronize {'raised' if rc else 'returned'} after {elapsed:.1f} s", flush=True)
print(f"runtime error: {message}", flush=True)
ok = rc != 0 and "barrier wait" in message
print("DEMO PASSED" if ok else "DEMO FAILED", flush=True)
sys.exit(0 if ok else 1)
