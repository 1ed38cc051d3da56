//===- Utils.h - shared pieces of the JFA -> LLVM conversion ----*- C++ -*-===//
//
// What more than one conversion file needs: a builder with the i32/i64
// arithmetic the lowerings write, the base pattern, shared-memory addresses
// and the swizzle, and the k-step of a tensor-core operand.
//
//===----------------------------------------------------------------------===//
#ifndef JFA_CONVERSION_JFATOLLVM_UTILS_H
#define JFA_CONVERSION_JFATOLLVM_UTILS_H

#include "JFA/JFAOps.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace jfa {

/// The symbol of the kernel's dynamic shared-memory window.
constexpr llvm::StringLiteral kSharedWindow = "jfa_smem";

/// A pointer into an NVVM memory space.
mlir::Type llvmPtr(mlir::MLIRContext *ctx, mlir::NVVM::NVVMMemorySpace space);
inline mlir::Type sharedPtr(mlir::MLIRContext *ctx) {
  return llvmPtr(ctx, mlir::NVVM::NVVMMemorySpace::Shared);
}
inline mlir::Type tmemPtr(mlir::MLIRContext *ctx) {
  return llvmPtr(ctx, mlir::NVVM::NVVMMemorySpace::Tensor);
}

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

/// Converts JFA's types: buffers, slots and barriers are shared-memory
/// pointers, tensor memory a tensor-memory pointer, TMA descriptors the
/// generic address of their __grid_constant__ parameter.
struct JFATypeConverter : mlir::LLVMTypeConverter {
  explicit JFATypeConverter(mlir::MLIRContext *ctx);
};

/// The base of every JFA lowering pattern.
template <typename Op> struct JFAPattern : mlir::ConvertOpToLLVMPattern<Op> {
  using mlir::ConvertOpToLLVMPattern<Op>::ConvertOpToLLVMPattern;
};

/// Address `offset` bytes into the kernel's dynamic shared-memory window.
mlir::Value sharedAddress(LLVMBuilder &b, int64_t offset);

/// Where jfa-allocate-shared-memory placed allocation `op` (its `offset`),
/// or a located error if that pass has not run.
mlir::FailureOr<mlir::Value> allocationAddress(LLVMBuilder &b,
                                               mlir::Operation *op,
                                               std::optional<uint64_t> offset);

/// `slot + offset` (bytes), after the swizzle when `swizzle` is not 0.
mlir::Value slotAddress(LLVMBuilder &b, mlir::Value slot, mlir::Value offset,
                        int64_t swizzle);

/// Byte offset of the k16 step `kk` in a tensor-core operand slot: along a
/// K-major row it is 16 elements; in a transposed (N-major) view it is 16
/// stored rows.
int64_t kStepBytes(SlotType slot, int64_t kk);

/// The layout a distributed op names, #jfa.blocked when it names none.
TileLayoutAttrInterface layoutOrBlocked(mlir::MLIRContext *ctx,
                                        TileLayoutAttrInterface layout);

/// The "run jfa-distribute-tiles first" failure of a pattern that met a
/// tile-level op.
mlir::LogicalResult notDistributed(mlir::Operation *op);

} // namespace jfa

#endif // JFA_CONVERSION_JFATOLLVM_UTILS_H
