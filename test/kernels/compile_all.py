"""Compiles every kernels/**/*.mlir with jfac for its targets (ptxas runs).

A kernel is compiled for every target of the description
(dialects/JFA/Targets.def) unless its first line names its targets, as in
`// jfa-targets: sm_90a` (wgmma kernels are sm_90a-only, tensor-memory
kernels sm_100a-only). Such a kernel must also be rejected with a clear
error for the other targets.

kernels/lib/ holds libraries of helpers (`jfa.import`ed by kernels), not
kernels: each must parse and have its own imports resolve
(`jfa-opt --jfa-resolve-imports`), and is compiled only as part of the
kernels that import it.
"""
import pathlib
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "scripts"))
import kernel_variants  # noqa: E402

kernels_dir, out_dir = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
lib_dir = kernels_dir / "lib"
everything = sorted(kernels_dir.rglob("*.mlir"))
libraries = [p for p in everything if p.is_relative_to(lib_dir)]
kernels = [p for p in everything if not p.is_relative_to(lib_dir)]
if not kernels:
    sys.exit(f"no kernels under {kernels_dir}")
failed = 0
for library in libraries:
    result = subprocess.run(["jfa-opt", "--jfa-resolve-imports", str(library),
                             "-o", "/dev/null"], capture_output=True, text=True)
    if result.returncode != 0:
        failed += 1
        print(f"FAILED: the library {library} does not load:\n{result.stderr}")
ALL = kernel_variants._targets.NAMES
counts = {a: 0 for a in ALL}
for kernel in kernels:
    try:
        targets = kernel_variants.targets(kernel)
    except ValueError as e:
        failed += 1
        print(f"FAILED: {e}")
        continue
    for arch in ALL:
        if arch in targets:
            continue
        result = subprocess.run(["jfac", "compile", str(kernel), "--arch", arch,
                                 "--emit=ptx", "-o", "-"], capture_output=True, text=True)
        if result.returncode == 0 or f"{kernel.name}:" not in result.stderr:
            failed += 1
            print(f"FAILED: {kernel} is not for {arch} but was not rejected with a "
                  f"located error:\n{result.stderr}")
    # Every declared variant (`// jfa-variants:`) of a parameterized kernel.
    for arch in targets:
        counts[arch] += 1
        for variant in kernel_variants.variants(kernel):
            cubin = out_dir / f"{kernel.stem}_{arch}{kernel_variants.suffix(variant)}.cubin"
            params = [f"-P{n}={v}" for n, v in variant]
            result = subprocess.run(["jfac", "compile", str(kernel), "--arch", arch,
                                     *params, "-o", str(cubin), "--quiet"],
                                    capture_output=True, text=True)
            if result.returncode != 0 or not cubin.exists():
                failed += 1
                print(f"FAILED {kernel} for {arch} {' '.join(params)}:\n{result.stderr}")
if failed:
    sys.exit(f"{failed} compilations failed")
print(f"compiled {len(kernels)} kernels: "
      + ", ".join(f"{counts[a]} for {a}" for a in ALL)
      + f"; {len(libraries)} libraries load")
