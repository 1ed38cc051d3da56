"""The Python package's host time per attention call, without torch or a GPU
(bench/host_time/run.sh runs it): jfa.attention_backward and
jfa.jagged_attention on the eq1k shape (T = 32768, H = 16, D = 128, causal,
check_offsets=False, outputs given: the calls bench/attention_bench.py
times), with test/python/test_jfa.py's stand-in torch and the real runtime
library over bench/host_time's do-nothing driver. What it times is the
package's own Python and the runtime's host work; a real torch adds its own
cost per tensor attribute read. `--profile` prints cProfile's top entries
(of attention_backward; with `--forward`, of jagged_attention).

  LD_LIBRARY_PATH=<dir of the fake libcuda.so.1> JFA_LIBRARY=build/runtime/libjfart.so \
      python3 bench/host_time/python_calls.py [--profile]
"""
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "python"))
sys.path.insert(0, os.path.join(REPO, "test", "python"))
import test_jfa  # noqa: E402  (its stand-in torch, as source text)

# The stand-in torch that allocates, runs autograd and records custom ops;
# the runtime's real entry points stay (the test replaces them after this).
STAND_IN = test_jfa.FAKE_TORCH_GDPA.split("seen = {}")[0]
# Distinct addresses for what torch.empty makes (the workspace), so that the
# runtime's no-overlap check passes.
STAND_IN += """
torch.empty = lambda shape, dtype=None, device=None: Tensor(
    (shape,) if isinstance(shape, int) else shape, dtype,
    dev=device.type if device is not None else "cuda", ptr=0xf00000000)
"""
TIMING = r"""
import time, cProfile, pstats
T_, H, D = 32768, 16, 128
def tensor(shape, dt, i):
    return T(shape, dt, ptr=0x10000000 * (i + 1))
q, k, v, o, do, dq, dk, dv = (tensor((T_, H, D), bf, i) for i in range(8))
lse, offs = tensor((H, T_), f32, 8), tensor((33,), i32, 9)
def backward():
    jfa.attention_backward(do, q, k, v, o, lse, offs, 1024, True, dq=dq, dk=dk, dv=dv,
                           check_offsets=False)
def forward():
    jfa.jagged_attention(q, k, v, offs, 1024, causal=True, check_offsets=False, o=o, lse=lse)
for call in (backward, forward):
    for _ in range(50):
        call()
    n = 3000
    t0 = time.perf_counter()
    for _ in range(n):
        call()
    print(f"{call.__name__}: {(time.perf_counter() - t0) / n * 1e6:.1f} us a call "
          f"(Python and the runtime's host work; stand-in torch, no driver)")
if "--profile" in sys.argv:
    profile = cProfile.Profile()
    which = forward if "--forward" in sys.argv else backward
    profile.runcall(lambda: [which() for _ in range(2000)])
    profile.dump_stats(PROFILE)
    pstats.Stats(PROFILE).sort_stats("tottime").print_stats(25)
"""

if __name__ == "__main__":
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        exec(STAND_IN + TIMING, {"__name__": "host_time", "sys": sys,
                                 "PROFILE": os.path.join(tmp, "calls.prof")})
