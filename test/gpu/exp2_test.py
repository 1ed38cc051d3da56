#!/usr/bin/env python3
"""jfa.exp2 on the GPU against jfa-interp, bit for bit in its software
columns (test/gpu/exp2_columns.mlir: x[r, c] = a[r] + b[c], 64 x 128,
software(share of 16)).

    here:  bash scripts/gpu-exp2.sh DIR        (jfac and jfa-interp: the cubin,
                                              the inputs and the interpreter's
                                              output for several shares)
    there: PYTHONPATH=<package>/python python3 test/gpu/exp2_test.py DIR

The software columns (8-column group g with g < share) must equal the
interpreter's bits (it evaluates the same clamps, floor, fused multiply-adds
and exponent add); the others, ex2.approx.ftz against the interpreter's
exp2, within 2 ulp (0 where the result is below 2^-126: ftz). The output is
poisoned with NaN first. Prints ok/FAIL per share, PASS/FAIL at the end;
exit status 1 on any failure.
"""
import glob
import os
import sys

import numpy as np
import torch

import jfa


def main():
    folder = sys.argv[1]
    a = np.load(os.path.join(folder, "a.npy"))
    b = np.load(os.path.join(folder, "b.npy"))
    failures = 0
    cubins = sorted(glob.glob(os.path.join(folder, "exp2_columns.share=*.cubin")))
    if not cubins:
        print(f"FAIL: no exp2_columns.share=*.cubin in {folder}")
        return 1
    for cubin in cubins:
        share = int(cubin.rsplit("=", 1)[1].split(".")[0])
        want = np.load(cubin[:-len(".cubin")] + ".interp.npy")
        mod = jfa.load(cubin)
        out = torch.full((64, 128), float("nan"), device="cuda")
        mod.exp2_columns(1, torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda(), out)
        got = out.cpu().numpy()
        software = (np.arange(128) // 8) < share
        soft_bits_equal = np.array_equal(got[:, software].view(np.uint32),
                                         want[:, software].view(np.uint32))
        unit, ref = got[:, ~software].astype(np.float64), want[:, ~software].astype(np.float64)
        tiny = ref < 2.0 ** -126
        with np.errstate(invalid="ignore"):
            close = (unit == ref) | (np.abs(unit - ref) <= 2 * 2.0 ** -23 * np.abs(ref))
        unit_ok = bool(np.all(np.where(tiny, unit == 0, close)))
        ok = soft_bits_equal and unit_ok and not np.isnan(got).any()
        failures += not ok
        diff = int(np.sum(got[:, software].view(np.uint32) != want[:, software].view(np.uint32)))
        print(f"{'ok  ' if ok else 'FAIL'} share {share}: {int(software.sum()) * 64} software "
              f"values, {diff} differ from jfa-interp; unit columns within 2 ulp: {unit_ok}",
              flush=True)
    print("PASS" if failures == 0 else f"FAIL: {failures} shares")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
