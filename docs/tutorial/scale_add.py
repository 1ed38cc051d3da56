#!/usr/bin/env python3
"""The tutorial's script (docs/TUTORIAL.md): compile scale_add.mlir with
jfa.compile, call it on torch tensors, compare with torch.

    python3 docs/tutorial/scale_add.py                 # jfac on this machine
    python3 docs/tutorial/scale_add.py --prebuilt DIR  # cubins compiled elsewhere

Without jfac here (a GPU machine with only the package), --prebuilt loads
DIR/scale_add_sm_90a.cubin and DIR/scale_add_sm_90a.relu=1.cubin with
jfa.load; scripts/build-package.sh puts them in <package>/kernels/tutorial,
which is also the default when no jfac is found.
"""
import argparse
import math
import os
import sys

import torch

import jfa

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "scale_add.mlir")
TILE = 64


def prebuilt_dir():
    """The package's prebuilt tutorial cubins (<package>/kernels/tutorial)."""
    from jfa import _lib
    return os.path.join(_lib.ROOT, "kernels", "tutorial")


def load_kernel(relu=False, prebuilt=None):
    """The scale_add module: compiled here (cached) or loaded from `prebuilt`."""
    if prebuilt is None:
        return jfa.compile(SOURCE, params={"relu": relu})  # arch: the current GPU's
    name = "scale_add_sm_90a" + (".relu=1" if relu else "") + ".cubin"
    return jfa.load(os.path.join(prebuilt, name))


def scale_add(mod, x, y, alpha, out=None):
    """out = alpha * x + y (relu'd if the module was compiled so)."""
    rows, cols = x.shape
    if out is None:
        out = torch.empty_like(x)
    tiles = math.ceil(rows / TILE) * math.ceil(cols / TILE)
    sms = torch.cuda.get_device_properties(x.device).multi_processor_count
    mod.scale_add(min(tiles, sms), x, y, out, rows, cols, alpha)
    return out


def check(mod, relu, rows, cols, alpha=0.75):
    """Runs one shape; returns (ok, max abs error)."""
    x = torch.randn(rows, cols, device="cuda")
    y = torch.randn(rows, cols, device="cuda")
    out = torch.full_like(x, float("nan"))
    scale_add(mod, x, y, alpha, out)
    ref = alpha * x + y
    if relu:
        ref = torch.relu(ref)
    torch.cuda.synchronize()
    err = (out - ref).abs().max().item()
    return err < 1e-5 and not torch.isnan(out).any().item(), err


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--prebuilt", help="a folder of prebuilt cubins (default: compile "
                    "with jfac, or the package's kernels/tutorial without one)")
    args = ap.parse_args()
    prebuilt = args.prebuilt
    if prebuilt is None:
        try:
            jfa.find_jfac()
        except FileNotFoundError:
            prebuilt = prebuilt_dir()
            print(f"no jfac here: loading the prebuilt cubins from {prebuilt}")
    failures = 0
    for relu in (False, True):
        mod = load_kernel(relu, prebuilt)
        print(f"{mod.scale_add!r}")
        for rows, cols in [(64, 64), (1000, 260), (4096, 4096), (1, 4), (129, 68)]:
            ok, err = check(mod, relu, rows, cols)
            failures += not ok
            print(f"{'ok  ' if ok else 'FAIL'} relu={int(relu)} {rows}x{cols}: "
                  f"max |error| {err:.2e}")
    print("PASS" if failures == 0 else f"FAIL: {failures} cases")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
