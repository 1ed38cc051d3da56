#!/usr/bin/env python3
"""ldmatrix / stmatrix on the GPU: kernels/examples/matrix_roundtrip.mlir
moves a [rows, 128] tensor (x in bf16, and the same values in f32) through
16-bit wgmma accumulator tiles, which the compiler moves with ldmatrix and
stmatrix. Each output crosses one matrix move and otherwise only paths
that do not use matrices (TMA, the f32 pair loads, row-wise loads and
stores, stores from the registers), so a wrong lane address or register
order shows: x + 1 (stmatrix, 128-byte swizzle), x + 2 (ldmatrix, same),
x + 3 (stmatrix, unswizzled), x + 4 (ldmatrix, unswizzled).

    python3 test/gpu/matrix_slots_test.py CUBIN   (its .meta beside it)

Needs the jfa package on PYTHONPATH (scripts/build-package.sh) and torch.
"""
import sys

import torch

import jfa
from gpu_common import plus_mismatches


def main():
    cubin = sys.argv[1]
    rows = 64 * 7
    x = torch.randn((rows, 128), device="cuda").to(torch.bfloat16)
    ys = [torch.full_like(x, float("nan")) for _ in range(4)]  # poisoned
    module = jfa.load(cubin)
    module.matrix_roundtrip((rows // 64, 1, 1), x, x.float(), *ys)
    torch.cuda.synchronize()
    failures = plus_mismatches(x, ys, (1, 2, 3, 4))
    for line in failures:
        print(line)
    if failures:
        return 1
    print(f"PASS: {rows}x128 through ldmatrix / stmatrix, bit-exact (x + 1 .. x + 4)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
