#!/usr/bin/env bash
# Installs what JFA needs to build and test (idempotent): LLVM/MLIR 22 from
# Debian, fmt, nlohmann-json, GoogleTest, lit/FileCheck, CMake and Ninja. The
# CUDA Toolkit (ptxas) is expected under $CUDA_HOME or /usr/local/cuda.
set -euo pipefail

packages=(llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools libfmt-dev
          nlohmann-json3-dev cmake ninja-build g++ googletest libgtest-dev
          python3 zlib1g-dev libzstd-dev python3-numpy)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; fi
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "setup: all packages present"
fi

# lit: Debian ships it inside llvm-22-tools; make sure it is runnable.
if [[ ! -x /usr/lib/llvm-22/build/utils/lit/lit.py && ! -x /usr/lib/llvm-22/bin/lit ]] \
   && ! command -v lit >/dev/null; then
  echo "setup: warning: lit not found" >&2
fi

cuda=${CUDA_HOME:-/usr/local/cuda}
if [[ ! -x $cuda/bin/ptxas ]] && ! command -v ptxas >/dev/null; then
  echo "setup: warning: ptxas not found (set CUDA_HOME); cubin emission will fail" >&2
fi
