#!/usr/bin/env bash
# Regenerates docs/OPS-REFERENCE.md from the ODS: the build makes it with
# mlir-tblgen -gen-op-doc, and test/docs/ops-reference.test keeps the copy
# in docs/ equal to it.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
cmake --build "$build" --target JFAOpsIncGen
cp "$build/dialects/JFA/JFAOps.md" docs/OPS-REFERENCE.md
echo "gen-docs: wrote docs/OPS-REFERENCE.md"
