#!/usr/bin/env bash
# The runtime's own host time per attention call, without a GPU: the C API
# (jfa_attention_backward / _forward on a 32K-token, H = 16, D = 128 causal
# batch) against a do-nothing libcuda.so.1 (fake_libcuda.c: every driver
# entry point succeeds at once), so what is timed is the runtime's checks,
# argument binding and bookkeeping, not the driver's launches.
# Then the same through the Python package (python_calls.py; a stand-in
# torch, so torch's own per-attribute cost is not in it).
#   [PYTHON=python3] bench/host_time/run.sh [BUILD_DIR] [CALLS] [--profile]
#   (default: build, 20000 calls)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../../build}" && pwd)
calls=${2:-20000}
cuda_inc=${CUDA_HOME:-/usr/local/cuda}/include
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
gcc -O2 -shared -fPIC -I"$cuda_inc" "$here/fake_libcuda.c" -o "$out/libcuda.so.1"
g++ -O2 -std=c++17 -I"$here/../../runtime/include" -I"$cuda_inc" "$here/probe.cpp" \
    -o "$out/probe" -L"$build/runtime" -ljfart -Wl,-rpath,"$build/runtime"
LD_LIBRARY_PATH="$out" "$out/probe" "$calls"
# The Python package's calls over the same driver (a stand-in torch).
LD_LIBRARY_PATH="$out" JFA_LIBRARY="$build/runtime/libjfart.so" \
    "${PYTHON:-python3}" "$here/python_calls.py" "${@:3}"
