//===- HelperOps.h - a helper's parameters -----------------*- C++ -*-===//
#ifndef JFA_DIALECT_HELPEROPS_H
#define JFA_DIALECT_HELPEROPS_H

#include "mlir/IR/Types.h"

#include <string>

namespace jfa {
/// Why `unscaled` (a !jfa.smem, !jfa.slot or !jfa.tma of element `param`)
/// cannot take element `element`: its rows' bits are no whole number of
/// `element` (FuncOp::bindElement).
std::string describeUnscaled(mlir::Type unscaled, mlir::Type param,
                             mlir::Type element);
} // namespace jfa

#endif // JFA_DIALECT_HELPEROPS_H
