#!/usr/bin/env python3
"""jfa.load / jfa.compile on the GPU (issue 22): the tutorial end to end,
then the argument checks' error paths, streams, a CUDA graph and the
attention ops' alias check. Prints ok/FAIL per case, PASS/FAIL at the end;
exit status 1 on any failure.

    PYTHONPATH=$PWD/dist/X/python python3 test/gpu/load_test.py [--prebuilt DIR]

With a jfac (JFAC=..., the package's bin/jfac or PATH) the tutorial kernel is
compiled by jfa.compile (and compiled again from the cache); without one, the
package's prebuilt cubins (<package>/kernels/tutorial, written by
scripts/build-package.sh) are loaded with jfa.load.
"""
import argparse
import os
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "docs", "tutorial"))
import jfa  # noqa: E402
import scale_add as tutorial  # noqa: E402

failures = 0
cases = 0


def report(ok, line):
    global failures, cases
    cases += 1
    failures += not ok
    print(f"{'ok  ' if ok else 'FAIL'} {line}", flush=True)


def expect_error(name, exc_type, fn, *needles):
    try:
        fn()
        torch.cuda.synchronize()
    except exc_type as e:
        msg = str(e)
        missing = [n for n in needles if n not in msg]
        report(not missing, f"error path {name}: {exc_type.__name__}: {msg}"
               + (f"  (missing {missing})" if missing else ""))
        return
    except Exception as e:  # noqa: BLE001
        report(False, f"error path {name}: expected {exc_type.__name__}, got "
                      f"{type(e).__name__}: {e}")
        return
    report(False, f"error path {name}: nothing raised")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prebuilt")
    args = ap.parse_args()
    print(f"load_test: {torch.cuda.get_device_name()}, jfa from {jfa.__file__}, "
          f"runtime {jfa.library_path()}", flush=True)
    prebuilt = args.prebuilt
    if prebuilt is None:
        try:
            print(f"load_test: jfac {jfa.find_jfac()}, cache {jfa.cache_dir()}")
        except FileNotFoundError:
            prebuilt = tutorial.prebuilt_dir()
            print(f"load_test: no jfac; prebuilt cubins from {prebuilt}")

    # 1. The tutorial end to end, both variants.
    mods = {}
    for relu in (False, True):
        t0 = time.time()
        try:
            mods[relu] = tutorial.load_kernel(relu, prebuilt)
        except Exception as e:  # noqa: BLE001
            report(False, f"load relu={int(relu)}: {type(e).__name__}: {e}")
            continue
        report(True, f"load relu={int(relu)} in {time.time() - t0:.2f} s: {mods[relu]!r}")
        if prebuilt is None:  # the second compile is a cache hit
            t0 = time.time()
            again = tutorial.load_kernel(relu, None)
            report(again.path == mods[relu].path,
                   f"compile again relu={int(relu)}: {time.time() - t0:.3f} s, same cubin "
                   f"{again.path}")
        for rows, cols in [(64, 64), (1000, 260), (4096, 4096), (1, 4), (129, 68),
                           (8192, 1028)]:
            ok, err = tutorial.check(mods[relu], relu, rows, cols)
            report(ok, f"scale_add relu={int(relu)} {rows}x{cols}: max |error| {err:.2e}")
    if False not in mods:
        print("FAIL: the tutorial kernel did not load; no further cases")
        return 1
    mod = mods[False]
    k = mod.scale_add
    rows, cols = 256, 128
    x = torch.randn(rows, cols, device="cuda")
    y = torch.randn(rows, cols, device="cuda")
    out = torch.full_like(x, float("nan"))

    # 2. Error paths: each names the argument; nothing is launched.
    expect_error("wrong dtype", TypeError,
                 lambda: k(1, x.bfloat16(), y, out, rows, cols, 1.0),
                 "scale_add: argument 0 (%x): expected a float32 CUDA tensor, got bfloat16")
    expect_error("wrong argument count", TypeError,
                 lambda: k(1, x, y, out, rows, cols), "scale_add: takes 6 arguments", "got 5")
    base = torch.empty(rows * cols + 1, device="cuda")
    misaligned = base[1:].view(rows, cols)
    expect_error("misaligned tensor", ValueError,
                 lambda: k(1, misaligned, y, out, rows, cols, 1.0),
                 "argument 0 (%x): TMA needs a 16-byte aligned address")
    expect_error("i32 scalar out of range", ValueError,
                 lambda: k(1, x, y, out, 2**31, cols, 1.0),
                 "argument 3 (%rows): 2147483648 does not fit in i32")
    expect_error("float for an i32", TypeError,
                 lambda: k(1, x, y, out, 256.0, cols, 1.0),
                 "argument 3 (%rows): expected an int (i32), got float")
    expect_error("string for an f32", TypeError,
                 lambda: k(1, x, y, out, rows, cols, "2"),
                 "argument 5 (%alpha): expected a float (f32), got str")
    expect_error("CPU tensor", ValueError,
                 lambda: k(1, x, y, out.cpu(), rows, cols, 1.0),
                 "argument 2 (%out): expected a float32 CUDA tensor, got a tensor on cpu")
    expect_error("transposed view", ValueError,
                 lambda: k(1, x.t(), y, out, rows, cols, 1.0),
                 "argument 0 (%x)", "stride 1")
    expect_error("odd row pitch", ValueError,
                 lambda: k(1, torch.randn(rows, 37, device="cuda")[:, :36], y, out, rows,
                           cols, 1.0),
                 "argument 0 (%x)", "multiple of 16 bytes")
    expect_error("rank", ValueError, lambda: k(1, x.view(rows, 2, 64), y, out, rows, cols, 1.0),
                 "expected a rank-2 tensor")
    expect_error("grid 0", ValueError, lambda: k(0, x, y, out, rows, cols, 1.0),
                 "grid x = 0 must be in")
    expect_error("grid y too large", ValueError, lambda: k((1, 70000), x, y, out, rows, cols,
                                                            1.0), "grid y = 70000")
    expect_error("unknown kernel", AttributeError, lambda: mod.nope, "has no kernel 'nope'")
    if torch.cuda.device_count() > 1:
        expect_error("two devices", ValueError,
                     lambda: k(1, x, y.to("cuda:1"), out, rows, cols, 1.0),
                     "argument 1 (%y): is on cuda:1")
    report(bool(torch.isnan(out).all().item()), "no error path wrote the output")

    # 3. Still healthy; streams: the current stream, an explicit one.
    ref = 0.5 * x + y
    k(4, x, y, out, rows, cols, 0.5)
    torch.cuda.synchronize()
    report(torch.allclose(out, ref, atol=1e-5), "a good launch after the errors")
    s = torch.cuda.Stream()
    out2 = torch.full_like(x, float("nan"))
    out3 = torch.full_like(x, float("nan"))
    s.wait_stream(torch.cuda.current_stream())  # the fills before s's kernels
    with torch.cuda.stream(s):
        k(4, x, y, out2, rows, cols, 0.5)  # torch's current stream: s
    s.synchronize()
    report(torch.allclose(out2, ref, atol=1e-5), "launch on torch.cuda.stream(s)")
    k(4, x, y, out3, rows, cols, 0.5, stream=s)
    s.synchronize()
    report(torch.allclose(out3, ref, atol=1e-5), "launch with stream=s")

    # 4. A CUDA graph: capture, replay on new data in the same tensors.
    try:
        g = torch.cuda.CUDAGraph()
        gout = torch.empty_like(x)
        k(4, x, y, gout, rows, cols, 2.0)  # warm-up (loads the module)
        with torch.cuda.graph(g):
            k(4, x, y, gout, rows, cols, 2.0)
        x.copy_(torch.randn_like(x))
        g.replay()
        torch.cuda.synchronize()
        report(torch.allclose(gout, 2.0 * x + y, atol=1e-5), "CUDA graph capture and replay")
    except Exception as e:  # noqa: BLE001
        report(False, f"CUDA graph capture and replay: {type(e).__name__}: {e}")

    # 5. Host time of a launch (informational).
    for _ in range(10):
        k(4, x, y, out, rows, cols, 0.5)
    torch.cuda.synchronize()
    n = 1000
    t0 = time.perf_counter()
    for _ in range(n):
        k(4, x, y, out, rows, cols, 0.5)
    host = (time.perf_counter() - t0) / n * 1e6
    torch.cuda.synchronize()
    print(f"info: host time of one mod.scale_add(...) call: {host:.1f} us", flush=True)

    # 6. The attention ops refuse an output that aliases an input.
    q = torch.randn(128, 2, 64, device="cuda", dtype=torch.bfloat16)
    kk, v = torch.randn_like(q), torch.randn_like(q)
    offsets = torch.tensor([0, 100, 128], dtype=torch.int32, device="cuda")
    expect_error("attention o=q", ValueError,
                 lambda: jfa.jagged_attention(q, kk, v, offsets, 100, o=q),
                 "o overlaps the input q")
    lse = torch.empty(2, 128, device="cuda")
    expect_error("attention lse inside k", ValueError,
                 lambda: jfa.jagged_attention(q, kk, v, offsets, 100,
                                              lse=kk.view(torch.float32).view(-1)[:256]
                                              .view(2, 128)),
                 "lse overlaps the input k")
    o, lse = jfa.jagged_attention(q, kk, v, offsets, 100, lse=lse)
    report(o.shape == q.shape, "attention with separate outputs still runs")

    print(f"{'PASS' if failures == 0 else 'FAIL'}: {cases - failures}/{cases} cases passed",
          flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
