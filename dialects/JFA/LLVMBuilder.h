//===- LLVMBuilder.h - index arithmetic in the LLVM dialect -----*- C++ -*-===//
//
// The builder the tile layouts (emitThreadBase) and the JFA -> LLVM
// conversion write their address and index arithmetic with.
//
//===----------------------------------------------------------------------===//
#ifndef JFA_DIALECT_LLVMBUILDER_H
#define JFA_DIALECT_LLVMBUILDER_H

#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace jfa {

/// An ImplicitLocOpBuilder with the integer arithmetic of address and index
/// computations (LLVM dialect ops, i32 unless said otherwise).
class LLVMBuilder : public mlir::ImplicitLocOpBuilder {
public:
  using ImplicitLocOpBuilder::ImplicitLocOpBuilder;

  mlir::Value i32(int64_t v);
  mlir::Value i64(int64_t v);
  mlir::Value add(mlir::Value x, mlir::Value y);
  mlir::Value add(mlir::Value x, int64_t y);
  mlir::Value mul(mlir::Value x, mlir::Value y);
  mlir::Value mul(mlir::Value x, int64_t y);
  mlir::Value udiv(mlir::Value x, int64_t y);
  mlir::Value urem(mlir::Value x, int64_t y);
  mlir::Value lshr(mlir::Value x, int64_t y);
  /// Element `i` of a vector.
  mlir::Value element(mlir::Value vector, int64_t i);
  /// `vector` with element `i` set to `value`.
  mlir::Value insert(mlir::Value vector, mlir::Value value, int64_t i);
  /// The i32 or i64 constant of `x`'s type.
  mlir::Value constLike(mlir::Value x, int64_t v);
};

} // namespace jfa

#endif // JFA_DIALECT_LLVMBUILDER_H
