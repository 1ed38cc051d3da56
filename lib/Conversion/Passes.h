//===- Passes.h - JFA conversion passes -------------------------*- C++ -*-===//
#ifndef JFA_CONVERSION_PASSES_H
#define JFA_CONVERSION_PASSES_H

#include "JFA/JFAOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Pass/Pass.h"

namespace jfa {
#define GEN_PASS_DECL
#include "lib/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "lib/Conversion/Passes.h.inc"
} // namespace jfa

#endif // JFA_CONVERSION_PASSES_H
