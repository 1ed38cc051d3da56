#!/usr/bin/env python3
"""jfa-interp on 8-bit float operands against numpy, on the small kernels of
test/jfac/Inputs (also compiled through ptxas by test/jfac/fp8-ptxas.test):

  fp8_mixed_sm90.mlir    wgmma, an e4m3 A by an e5m2 B, both K-major
  fp8_mmajor_sm100.mlir  tcgen05, an M-major e5m2 A (stored K x M) by a
                         K-major e4m3 B

    fp8_operands.py JFA_INTERP INPUTS_DIR

Inputs are random bit patterns (uint8 .npy files, jfa-interp's convention
for 8-bit floats; docs/INTERPRETER.md) of finite values below 16, decoded
here independently of the interpreter's APFloat.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

E4M3 = (4, 3, 7)  # exponent bits, mantissa bits, bias (no infinities)
E5M2 = (5, 2, 15)


def decode(bits, exp_bits, man_bits, bias):
    b = np.asarray(bits, dtype=np.int64)
    sign = np.where(b >> 7, -1.0, 1.0)
    exp, man = (b >> man_bits) & ((1 << exp_bits) - 1), b & ((1 << man_bits) - 1)
    value = np.where(exp == 0, man / 2**man_bits * 2.0**(1 - bias),
                     (1 + man / 2**man_bits) * 2.0**(exp - bias))
    return sign * value


def random_fp8(rng, shape, fmt):
    """Bit patterns of finite values below 16 (the top exponent, which holds
    e5m2's infinities and NaNs and e4m3's NaN, is left out) and their values."""
    exp_bits, man_bits, _ = fmt
    bits = rng.integers(0, 256, size=shape).astype(np.uint8)
    top = ((bits.astype(np.int64) >> man_bits) & ((1 << exp_bits) - 1)) == (1 << exp_bits) - 1
    bits = np.where(top | (np.abs(decode(bits, *fmt)) >= 16), 0, bits).astype(np.uint8)
    return bits, decode(bits, *fmt)


def run(interp, kernel, arch, tmp, a, b, c_shape):
    paths = [os.path.join(tmp, n + ".npy") for n in "abc"]
    np.save(paths[0], a)
    np.save(paths[1], b)
    np.save(paths[2], np.full(c_shape, np.nan, np.float32))
    proc = subprocess.run([interp, kernel, "--arch", arch, *paths], capture_output=True, text=True)
    if proc.returncode:
        sys.exit(f"jfa-interp failed on {kernel}:\n{proc.stderr}")
    return np.load(paths[2]).astype(np.float64)


def check(name, got, want):
    err = np.abs(got - want)
    bound = 1e-5 * np.abs(want) + 1e-4  # one f32 rounding per 32 of K
    if not np.all(np.isfinite(got)) or np.any(err > bound):
        sys.exit(f"FAIL {name}: max error {np.nanmax(err):.3g}")
    print(f"PASS {name}: max abs error {err.max():.3g}")


def main():
    interp, inputs = sys.argv[1], sys.argv[2]
    rng = np.random.default_rng(23)
    with tempfile.TemporaryDirectory() as tmp:
        a, av = random_fp8(rng, (64, 64), E4M3)
        b, bv = random_fp8(rng, (64, 64), E5M2)
        c = run(interp, os.path.join(inputs, "fp8_mixed_sm90.mlir"), "sm_90a", tmp, a, b, (64, 64))
        check("fp8_mixed_sm90 (e4m3 x e5m2)", c, av @ bv.T)
        at, atv = random_fp8(rng, (128, 128), E5M2)  # stored K x M
        b, bv = random_fp8(rng, (64, 128), E4M3)
        c = run(interp, os.path.join(inputs, "fp8_mmajor_sm100.mlir"), "sm_100a", tmp, at, b,
                (128, 64))
        check("fp8_mmajor_sm100 (M-major e5m2 x e4m3)", c, atv.T @ bv.T)


if __name__ == "__main__":
    main()
