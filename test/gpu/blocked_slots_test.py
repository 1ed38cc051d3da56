#!/usr/bin/env python3
"""Blocked slots on the GPU: kernels/examples/blocked_roundtrip.mlir copies a
[rows, 128] bf16 tensor through two blocked shared-memory slots (TMA in and
out, one box per 64-column block; register tiles in between) and adds 1
through #jfa.tmem_row (a row per thread, as the sm_100a attention backward
writes P and dS) and 2 through #jfa.blocked. The outputs are right only if
TMA's placement of the boxes and the compiler's address mapping of a
blocked slot agree, in both of the mapping's code paths.

    python3 test/gpu/blocked_slots_test.py CUBIN   (its .meta beside it)

Needs the jfa package on PYTHONPATH (scripts/build-package.sh) and torch.
"""
import sys

import torch

import jfa
from gpu_common import plus_mismatches


def main():
    cubin = sys.argv[1]
    rows = 128 * 5
    x = torch.randn((rows, 128), device="cuda").to(torch.bfloat16)
    ys = [torch.full_like(x, float("nan")) for _ in range(2)]  # poisoned
    module = jfa.load(cubin)
    module.blocked_roundtrip((rows // 128, 1, 1), x, *ys)
    torch.cuda.synchronize()
    failures = plus_mismatches(x, ys, (1, 2))
    for line in failures:
        print(line)
    if failures:
        return 1
    print(f"PASS: {rows}x128 bf16 through blocked slots, bit-exact (x + 1, x + 2)")
    return 0

if __name__ == "__main__":
    sys.exit(main())
