//===- Passes.h - JFA passes ------------------------------------*- C++ -*-===//
#ifndef JFA_TRANSFORMS_PASSES_H
#define JFA_TRANSFORMS_PASSES_H

#include "JFA/JFAOps.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Pass/Pass.h"

#include <string>
#include <vector>

namespace jfa {
#define GEN_PASS_DECL
#include "lib/Transforms/Passes.h.inc"

/// Fails with an error naming `pass` at the first `replicas(N)` task under
/// `root`: passes that count a task's threads run after jfa-replicate-tasks.
mlir::LogicalResult verifyTasksExpanded(mlir::Operation *root,
                                        llvm::StringRef pass);

/// The folders a tool's `-I <dir>` options name, in order: where
/// jfa-resolve-imports looks for an imported file after the importing
/// file's folder and its own `include-dirs`. jfa-opt sets it so that
/// `--jfa-resolve-imports` and `--jfa-lower-to-llvm` see its -I.
std::vector<std::string> &importSearchPaths();

#define GEN_PASS_REGISTRATION
#include "lib/Transforms/Passes.h.inc"
} // namespace jfa

#endif // JFA_TRANSFORMS_PASSES_H
