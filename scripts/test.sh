#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds from scratch (or
# incrementally in $BUILD_DIR), then runs the runtime unit tests and the lit
# suite (dialect, passes, jfac, every kernel through ptxas for both targets)
# through ctest. Needs no GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
build=${BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$build" -j2
ctest --test-dir "$build" --output-on-failure
