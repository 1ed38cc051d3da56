#!/usr/bin/env python3
"""The variants a kernel source declares, for the build to compile.

A kernel with compile-time parameters (`jfa.param`) names the values the
build compiles in a header comment, the product of the lists:

    // jfa-variants: head_dim=64,128 causal=0,1

gives four cubins, one per (head_dim, causal). Each variant's cubin is
named <stem>_<arch>.<name>=<value>....cubin (build-package.sh) and its
metadata records the values: the runtime and the Python package pick a
variant by reading the metadata, never by parsing these names.

    kernel_variants.py KERNEL.mlir     one variant per line: NAME=VALUE ...
                                       (one empty line: no variants)
    kernel_variants.py --targets KERNEL.mlir
                                       the targets to compile it for, one
                                       per line (targets() below)
"""
import itertools
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "python"))
from jfa import _targets  # noqa: E402  (the target description, no torch)

PREFIX = "// jfa-variants:"
TARGETS_PREFIX = "// jfa-targets:"


def targets(path):
    """The targets a kernel is compiled for: those its first line names
    (`// jfa-targets: sm_90a`), else every target of the description
    (dialects/JFA/Targets.def through python/jfa/_targets.py). Raises
    ValueError for a name that is not a target."""
    lines = pathlib.Path(path).read_text().splitlines()
    first = lines[0].strip() if lines else ""
    if not first.startswith(TARGETS_PREFIX):
        return list(_targets.NAMES)
    named = first[len(TARGETS_PREFIX):].split()
    for name in named:
        if name not in _targets.NAMES:
            raise ValueError(f"{path}:1: '{name}' is not a target (known: "
                             f"{', '.join(_targets.NAMES)})")
    return named


def variants(path):
    """[[(name, value), ...], ...]: the declared product, in declaration
    order; [[]] when the kernel declares none. Raises ValueError naming the
    file and line for a malformed declaration."""
    axes = []
    for number, line in enumerate(pathlib.Path(path).read_text().splitlines(), 1):
        line = line.strip()
        if not line.startswith("//"):
            break  # only the header comment
        if not line.startswith(PREFIX):
            continue
        for item in line[len(PREFIX):].split():
            name, sep, values = item.partition("=")
            if not sep or not name or not values or "" in values.split(","):
                raise ValueError(f"{path}:{number}: '{item}' is not NAME=V1,V2,...")
            if any(name == n for n, _ in axes):
                raise ValueError(f"{path}:{number}: parameter '{name}' is listed twice")
            axes.append((name, values.split(",")))
    return [list(zip([n for n, _ in axes], combo))
            for combo in itertools.product(*[v for _, v in axes])]


def suffix(variant):
    """The file-name part of a variant: '.head_dim=64.causal=0' ('' for none)."""
    return "".join(f".{n}={v}" for n, v in variant)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--targets":
        try:
            print("\n".join(targets(sys.argv[2])))
        except (OSError, ValueError) as e:
            sys.exit(f"kernel_variants: {e}")
        sys.exit(0)
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    try:
        for v in variants(sys.argv[1]):
            print(" ".join(f"{n}={x}" for n, x in v))
    except (OSError, ValueError) as e:
        sys.exit(f"kernel_variants: {e}")
