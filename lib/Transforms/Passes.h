//===- Passes.h - JFA passes ------------------------------------*- C++ -*-===//
#ifndef JFA_TRANSFORMS_PASSES_H
#define JFA_TRANSFORMS_PASSES_H

#include "JFA/JFAOps.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace jfa {
#define GEN_PASS_DECL
#include "lib/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "lib/Transforms/Passes.h.inc"

/// The LLVM/NVVM lowerings of the debug-mode ops (jfa.barrier_try_wait,
/// jfa.debug_trap); jfa-convert-to-llvm adds them to its patterns.
void populateJFADebugToLLVMPatterns(mlir::LLVMTypeConverter &converter,
                                    mlir::RewritePatternSet &patterns);
} // namespace jfa

#endif // JFA_TRANSFORMS_PASSES_H
