//===- MmaTypes.h - element types of the tensor cores' operands -*- C++ -*-===//
//
// What the verifier, the lowering and jfa-interp must agree on about the
// operands of jfa.async_dot (wgmma) and jfa.tc_dot (tcgen05): which element
// types they multiply and how much of K one instruction covers.
//
//   16-bit: bf16, f16 (A and B the same), wgmma .bf16/.f16 and tcgen05
//           kind::f16, K = 16 per instruction;
//   8-bit:  f8E4M3FN, f8E5M2 (A and B each either; PTX's .e4m3 and .e5m2),
//           wgmma .e4m3/.e5m2 and tcgen05 kind::f8f6f4, K = 32.
//
// Either way one instruction reads 32 bytes of every K-major row, so the
// descriptor and swizzle arithmetic, which counts bytes, is the same.
//
//===----------------------------------------------------------------------===//
#ifndef JFA_DIALECT_MMATYPES_H
#define JFA_DIALECT_MMATYPES_H

#include "mlir/IR/BuiltinTypes.h"

namespace jfa {

/// f8E4M3FN or f8E5M2: the 8-bit floats the tensor cores multiply.
inline bool isMmaFp8(mlir::Type type) {
  return llvm::isa<mlir::Float8E4M3FNType, mlir::Float8E5M2Type>(type);
}

/// bf16 or f16: the 16-bit floats the tensor cores multiply.
inline bool isMma16(mlir::Type type) { return type.isBF16() || type.isF16(); }

/// Elements of K that one MMA instruction consumes: 32 bytes of a row.
inline int64_t getMmaKStep(mlir::Type element) {
  return isMmaFp8(element) ? 32 : 16;
}

/// Bytes of a K-major row that one MMA instruction consumes.
constexpr int64_t kMmaKStepBytes = 32;

} // namespace jfa

#endif // JFA_DIALECT_MMATYPES_H
