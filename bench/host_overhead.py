#!/usr/bin/env python3
"""Host time per call (issue 22): how long the CPU spends in one call of
jfa.jagged_attention (forward), jfa.attention_backward and a jfa.load kernel
at small sizes, where the GPU work is a few microseconds and the host is the
cost. Peers in the same process: PyTorch's varlen attention forward and
backward when this torch has them, and torch's SDPA on one padded batch.

    PYTHONPATH=$PWD/dist/X/python python3 bench/host_overhead.py [--calls N]
        [--profile] [--results FILE --tag TAG]

Method: per measured call kind, warm-up calls, then `--calls` calls back to
back timed with time.perf_counter (no synchronization inside the loop: the
host time of a call, not its GPU time; the GPU keeps up at these sizes, so
the launch queue never fills), repeated 5 times; the median of the 5
per-call means is printed. --profile also prints the top of a cProfile of
the forward and the backward (check_offsets=False), to see where the time
goes.
"""
import argparse
import cProfile
import io
import json
import os
import pstats
import statistics
import subprocess
import sys
import time

import torch

import jfa

HERE = os.path.dirname(os.path.abspath(__file__))


def host_us(fn, calls, repeats=5, warmup=20):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    means = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        means.append((time.perf_counter() - start) / calls * 1e6)
        torch.cuda.synchronize()
    return statistics.median(means)


def profile(name, fn, calls):
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(calls):
        fn()
    prof.disable()
    torch.cuda.synchronize()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(25)
    print(f"--- cProfile of {calls} calls: {name} (tottime per call = column / {calls})")
    print("\n".join(out.getvalue().splitlines()[:45]))


def captured(module, name, call):
    """The arguments `call` hands module.name, captured from one real call."""
    seen = []
    real = getattr(module, name)

    def spy(*a):
        seen.append(a)
        return real(*a)
    setattr(module, name, spy)
    try:
        call()
    finally:
        setattr(module, name, real)
    torch.cuda.synchronize()
    return real, seen[0]


def breakdown(measure, q, k, v, do, o, lse, offsets):
    """Parts of a call, each timed alone: the runtime's C call through ctypes
    with arguments already packed (its checks, kernel choice, TMA
    descriptors, the launch), torch's allocations and stream lookup."""
    from jfa import _lib
    fn, a = captured(_lib, "forward", lambda: jfa.jagged_attention(
        q, k, v, offsets, 156, True, check_offsets=False))
    measure("  part: _lib.forward alone (C API call, packed args)", lambda: fn(*a))
    fn, a = captured(_lib, "backward", lambda: jfa.attention_backward(
        do, q, k, v, o, lse, offsets, 156, True, check_offsets=False))
    measure("  part: _lib.backward alone (C API call, 4 kernels + memset)", lambda: fn(*a))
    measure("  part: two torch.empty (o, lse)",
            lambda: (torch.empty((256, 4, 128), dtype=torch.bfloat16, device="cuda"),
                     torch.empty((4, 256), device="cuda")))
    measure("  part: torch.cuda.current_stream(0).cuda_stream",
            lambda: torch.cuda.current_stream(0).cuda_stream)
    measure("  part: _lib.current_stream", lambda: _lib.current_stream(torch, 0))
    measure("  part: _lib.ensure_context", lambda: _lib.ensure_context(0))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--breakdown", action="store_true")
    ap.add_argument("--results")
    ap.add_argument("--tag", default="")
    opts = ap.parse_args()
    dev = torch.device("cuda")
    torch.manual_seed(0)
    # T = 256 tokens in 2 sequences, H = 4, D = 128: a few microseconds of GPU work.
    lengths = [100, 156]
    t, h, d = sum(lengths), 4, 128
    offsets = torch.tensor([0, 100, 256], dtype=torch.int32, device=dev)
    q, k, v, do = (torch.randn(t, h, d, device=dev).to(torch.bfloat16) for _ in range(4))
    o, lse = jfa.jagged_attention(q, k, v, offsets, max(lengths), causal=True)
    rows = []

    def measure(name, fn, peer=False):
        us = host_us(fn, opts.calls)
        rows.append((name, us, peer))
        print(f"{name:58s} {us:8.1f} us", flush=True)

    measure("jfa.jagged_attention (check_offsets=False)",
            lambda: jfa.jagged_attention(q, k, v, offsets, 156, True, check_offsets=False))
    measure("jfa.jagged_attention (default: offsets checked on the host)",
            lambda: jfa.jagged_attention(q, k, v, offsets, 156, True))
    measure("jfa.attention_backward (check_offsets=False)",
            lambda: jfa.attention_backward(do, q, k, v, o, lse, offsets, 156, True,
                                           check_offsets=False))
    measure("jfa.attention_backward (default)",
            lambda: jfa.attention_backward(do, q, k, v, o, lse, offsets, 156, True))
    qg, kg, vg = (x.detach().clone().requires_grad_() for x in (q, k, v))

    def autograd_step():
        out, _ = jfa.jagged_attention(qg, kg, vg, offsets, 156, True, check_offsets=False)
        out.backward(do)
    measure("forward + backward through autograd (eager)", autograd_step)
    measure("  forward alone in grad mode (no backward)",
            lambda: jfa.jagged_attention(qg, kg, vg, offsets, 156, True, check_offsets=False))
    scale = 1.0 / 128 ** 0.5
    measure("  torch.ops.jfa.jagged_attention_backward called directly",
            lambda: torch.ops.jfa.jagged_attention_backward(do, q, k, v, o, lse, offsets, 156,
                                                            True, scale, None, 0, -1, -1))

    prebuilt = os.path.join(os.path.dirname(jfa.__file__), "..", "..", "kernels", "tutorial")
    cubin = os.path.join(prebuilt, "scale_add_sm_90a.cubin")
    if os.path.isfile(cubin):
        mod = jfa.load(cubin)
        x, y = (torch.randn(128, 128, device=dev) for _ in range(2))
        out = torch.empty_like(x)
        measure("jfa.load kernel: mod.scale_add(4, x, y, out, 128, 128, 0.5)",
                lambda: mod.scale_add(4, x, y, out, 128, 128, 0.5))

    varlen = getattr(getattr(torch.nn, "attention", None), "varlen", None)
    if varlen is not None and hasattr(varlen, "varlen_attn"):
        cu = offsets

        def peer_fwd():
            return varlen.varlen_attn(q, k, v, cu, cu, 156, 156, is_causal=True)
        try:
            peer_fwd()
            measure("peer: torch varlen_attn forward", peer_fwd, True)
            qp, kp, vp = (x.detach().clone().requires_grad_() for x in (q, k, v))

            def peer_step():
                varlen.varlen_attn(qp, kp, vp, cu, cu, 156, 156, is_causal=True).backward(do)
            measure("peer: torch varlen_attn forward + backward (autograd)", peer_step, True)
        except Exception as e:  # noqa: BLE001
            print(f"(varlen_attn unavailable: {e})")
    qs, ks, vs = (x[:128].view(1, 128, h, d).transpose(1, 2) for x in (q, k, v))
    measure("peer: torch SDPA forward, one padded [1, H, 128, D] batch",
            lambda: torch.nn.functional.scaled_dot_product_attention(qs, ks, vs, is_causal=True),
            True)

    if opts.breakdown:
        breakdown(measure, q, k, v, do, o, lse, offsets)
    if opts.profile:
        profile("jagged_attention (check_offsets=False)",
                lambda: jfa.jagged_attention(q, k, v, offsets, 156, True, check_offsets=False),
                opts.calls)
        qa, ka, va = (x.detach().clone().requires_grad_() for x in (q, k, v))

        def step():
            out, _ = jfa.jagged_attention(qa, ka, va, offsets, 156, True, check_offsets=False)
            out.backward(do)
        profile("forward + backward through autograd", step, opts.calls)
        profile("attention_backward (check_offsets=False)",
                lambda: jfa.attention_backward(do, q, k, v, o, lse, offsets, 156, True,
                                               check_offsets=False), opts.calls)
    if opts.results:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, cwd=HERE).stdout.strip()
        with open(opts.results, "a") as f:
            for name, us, peer in rows:
                f.write(json.dumps({"kernel": "host_overhead", "call": name, "host_us": us,
                                    "peer": peer, "shape": {"T": t, "H": h, "D": d},
                                    "tag": opts.tag, "commit": commit,
                                    "date": time.strftime("%Y-%m-%d"),
                                    "device": torch.cuda.get_device_name()}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
