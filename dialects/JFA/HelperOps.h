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

/// The rows of a type a rows parameter binds and rewrites: a register tile's
/// or row vector's (a tensor with a tile layout), a 2-d slot's (a transposed
/// view's dimension 1: the rows as stored), a 2-d ring slot's, a 2-d TMA
/// box's; 0 for any other type (a 1-d buffer, a hand-off list or a ring of
/// scalars, has none).
int64_t rowsOf(mlir::Type type);
} // namespace jfa

#endif // JFA_DIALECT_HELPEROPS_H
