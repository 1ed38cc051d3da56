#!/usr/bin/env python3
"""kernels/examples/sum_partials.mlir on the GPU: the handover of TMA's global
writes from one CTA to another (jfa.tma_store_wait ... writes,
jfa.fence_async_global, jfa.fence_gpu and a counter).

    PYTHONPATH=$PWD/dist/X/python python3 test/gpu/sum_partials_test.py [--repeats N]
                                                                         [--cubin FILE]

Each of P CTAs reduce-adds its 64x64 f32 tile into a zeroed workspace; the
last to add converts the workspace to bf16. Checks per launch, on fresh
random tiles with out poisoned (NaN):
  - the counter ends at P (every CTA counted once);
  - the workspace is the f32 sum of the tiles (any order: within P f32
    rounding steps of the float64 sum);
  - out is the workspace rounded to bf16, bit for bit: the last CTA read
    every other CTA's sum. A CTA whose adds had not landed shows as out
    missing its tile, which the float64 bound alone might miss at small P;
    the bitwise check does not. What this can catch is mostly the wait
    (`.read` instead of the full wait): the copies, the atomic and the
    loads meet in L2, so a missing fence would likely still pass here; the
    fences rest on the PTX memory model (docs/DIALECT.md), not on this test.
P from 1 (the only CTA is the last) to several waves of CTAs, each launch
repeated (--repeats) to give a race its chance. Needs the package's
kernels/examples/sum_partials_sm_90a.cubin (scripts/build-package.sh) or a
jfac for jfa.compile. Exit status 1 on any failure.
"""
import argparse
import os
import sys

import torch

import jfa

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "..", "..", "kernels", "examples", "sum_partials.mlir")


def load(cubin=None):
    if cubin:
        return jfa.load(cubin)
    from jfa import _lib
    prebuilt = os.path.join(_lib.ROOT, "kernels", "examples", "sum_partials_sm_90a.cubin")
    if os.path.isfile(prebuilt):
        return jfa.load(prebuilt)
    return jfa.compile(SOURCE)


def run_once(mod, parts, gen):
    x = torch.randn((parts * 64, 64), generator=gen, device="cuda", dtype=torch.float32)
    acc = torch.zeros((64, 64), device="cuda", dtype=torch.float32)
    counter = torch.zeros(1, device="cuda", dtype=torch.int32)
    out = torch.full((64, 64), float("nan"), device="cuda", dtype=torch.bfloat16)
    mod.sum_partials(parts, x, acc, counter, out)
    torch.cuda.synchronize()
    want = x.double().view(parts, 64, 64).sum(0)
    problems = []
    if int(counter.item()) != parts:
        problems.append(f"counter {int(counter.item())} != {parts}")
    # Each of the P adds rounds once in f32: |error| <= P * 2^-24 * max|partial sum|.
    bound = parts * 2.0 ** -24 * x.double().view(parts, 64, 64).abs().sum(0).max().item()
    acc_err = (acc.double() - want).abs().max().item()
    if not acc_err <= bound:
        problems.append(f"workspace off the sum by {acc_err:.3g} (bound {bound:.3g})")
    rounded = acc.to(torch.bfloat16)
    same = torch.equal(out.view(torch.int16), rounded.view(torch.int16))
    if not same:
        bad = (out.float() != rounded.float()) | torch.isnan(out.float())
        problems.append(f"out differs from bf16(workspace) at {int(bad.sum().item())} of 4096")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--cubin", default=None,
                    help="a build of the kernel to load instead (e.g. a mutant without "
                         "`writes`, to see whether the checks catch it)")
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "little")
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    print(f"sum_partials_test: {torch.cuda.get_device_name()}, seed {seed}", flush=True)
    mod = load(args.cubin)
    failures = 0
    for parts in (1, 2, 7, sms, 2 * sms + 3, 1000):
        bad = []
        for _ in range(args.repeats):
            bad += run_once(mod, parts, gen)
        failures += bool(bad)
        print(f"{'ok  ' if not bad else 'FAIL'} P = {parts}, {args.repeats} launches"
              + (": " + "; ".join(sorted(set(bad))[:3]) if bad else ""), flush=True)
    print("PASS" if not failures else f"FAIL ({failures} sizes)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
