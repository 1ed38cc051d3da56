//===- JFAOps.h - JFA dialect, types and operations -------------*- C++ -*-===//
#ifndef JFA_DIALECT_JFAOPS_H
#define JFA_DIALECT_JFAOPS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace jfa {
/// Marks ops issued by one thread of the enclosing task (see JFAOps.td).
template <typename ConcreteType>
class SingleThreadIssue
    : public mlir::OpTrait::TraitBase<ConcreteType, SingleThreadIssue> {};

/// Verifies that an op is nested in a jfa.kernel.
mlir::LogicalResult verifyInKernel(mlir::Operation *op);
template <typename ConcreteType>
class InKernel : public mlir::OpTrait::TraitBase<ConcreteType, InKernel> {
public:
  static mlir::LogicalResult verifyTrait(mlir::Operation *op) {
    return verifyInKernel(op);
  }
};
} // namespace jfa

#include "JFA/JFAAttrs.h.inc"
#include "JFA/JFAOpsDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "JFA/JFATypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "JFA/JFAAttrDefs.h.inc"

#define GET_OP_CLASSES
#include "JFA/JFAOps.h.inc"

namespace jfa {
/// Hardware limits shared by sm_90a and sm_100a.
constexpr int64_t kMaxSharedMemoryBytes = 232448; // 227 KiB per CTA
constexpr int64_t kRegistersPerSM = 65536;
constexpr int64_t kSharedBufferAlignment = 1024; // what 128B swizzles need
constexpr int64_t kMaxWarpsPerCTA = 32;

/// Where each buffer and barrier array of a kernel lives in shared memory.
struct SharedMemoryLayout {
  llvm::SmallVector<std::pair<mlir::Operation *, int64_t>> offsets;
  int64_t totalBytes = 0;
};
SharedMemoryLayout computeSharedMemoryLayout(KernelOp kernel);

/// Bytes of one element of `type` (integer or float), or 0 if not a memory
/// element type.
int64_t getElementBytes(mlir::Type type);
} // namespace jfa

#endif // JFA_DIALECT_JFAOPS_H
