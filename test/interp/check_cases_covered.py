#!/usr/bin/env python3
"""Every case of kernels.py is run by some lit test of this folder: names
each case that no test/interp/*.test names (a case added to kernels.py but
to no RUN line would never run in CI). Exit status 1 when one is missing."""
import pathlib
import subprocess
import sys

here = pathlib.Path(__file__).resolve().parent
cases = subprocess.run([sys.executable, str(here / "kernels.py"), "--list"], check=True,
                       capture_output=True, text=True).stdout.split()
named = set()
for test in here.glob("*.test"):
    for line in test.read_text().splitlines():
        if line.startswith("RUN:") and "kernels.py" in line:
            named.update(line.split())
missing = [c for c in cases if c not in named]
for c in missing:
    print(f"test/interp/kernels.py case '{c}' is in no RUN line of test/interp/*.test")
print(f"{len(cases) - len(missing)} of {len(cases)} cases run by lit")
sys.exit(1 if missing else 0)
