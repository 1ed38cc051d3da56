"""Compiles every kernels/**/*.mlir with jfac for both targets (ptxas runs)."""
import pathlib
import subprocess
import sys

kernels_dir, out_dir = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
kernels = sorted(kernels_dir.rglob("*.mlir"))
if not kernels:
    sys.exit(f"no kernels under {kernels_dir}")
failed = 0
for kernel in kernels:
    for arch in ("sm_90a", "sm_100a"):
        cubin = out_dir / f"{kernel.stem}_{arch}.cubin"
        result = subprocess.run(["jfac", "compile", str(kernel), "--arch", arch,
                                 "-o", str(cubin), "--quiet"],
                                capture_output=True, text=True)
        if result.returncode != 0 or not cubin.exists():
            failed += 1
            print(f"FAILED {kernel} for {arch}:\n{result.stderr}")
if failed:
    sys.exit(f"{failed} compilations failed")
print(f"compiled {len(kernels)} kernels for sm_90a and sm_100a")
