#!/usr/bin/env python3
"""ldmatrix / stmatrix on the GPU: kernels/examples/matrix_roundtrip.mlir
reads a [rows, 128] bf16 tensor (TMA into a 128-byte-swizzled slot of two
64-column blocks) as a wgmma accumulator tile, which the compiler loads
with ldmatrix, and stores it plus 1 (stmatrix into a swizzled slot, TMA
out) and plus 2 (stmatrix into an unswizzled slot, read back row-wise).
The outputs are right only if the lane addresses and register order of
the matrix moves agree with TMA's placement and with the element-by-element
mapping of the other layouts, in the swizzled and the plain address paths.

    python3 test/gpu/matrix_slots_test.py CUBIN   (its .meta beside it)

Needs the jfa package on PYTHONPATH (scripts/build-package.sh) and torch.
"""
import sys

import torch

import jfa


def main():
    cubin = sys.argv[1]
    rows = 64 * 7
    x = torch.randn((rows, 128), device="cuda").to(torch.bfloat16)
    ys = [torch.full_like(x, float("nan")) for _ in range(2)]  # poisoned
    module = jfa.load(cubin)
    module.matrix_roundtrip((rows // 64, 1, 1), x, *ys)
    torch.cuda.synchronize()
    failed = False
    for y, plus in zip(ys, (1, 2)):
        want = (x.float() + plus).to(torch.bfloat16)
        bad = (y.view(torch.int16) != want.view(torch.int16)).nonzero()
        if len(bad):
            r, c = bad[0].tolist()
            print(f"FAIL x + {plus}: {len(bad)} of {y.numel()} elements differ; first at "
                  f"({r}, {c}): got {y[r, c].item()}, want {want[r, c].item()}")
            failed = True
    if failed:
        return 1
    print(f"PASS: {rows}x128 bf16 through ldmatrix / stmatrix, bit-exact (x + 1, x + 2)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
