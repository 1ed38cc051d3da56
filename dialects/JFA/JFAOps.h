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
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "JFA/Targets.h"

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

/// The memories the ops' effects are on (JFAOps.td).
struct SharedMemoryResource
    : mlir::SideEffects::Resource::Base<SharedMemoryResource> {
  llvm::StringRef getName() final { return "<SharedMemory>"; }
};
struct TensorMemoryResource
    : mlir::SideEffects::Resource::Base<TensorMemoryResource> {
  llvm::StringRef getName() final { return "<TensorMemory>"; }
};
struct BarrierResource : mlir::SideEffects::Resource::Base<BarrierResource> {
  llvm::StringRef getName() final { return "<Barriers>"; }
};
struct AsyncGroupsResource
    : mlir::SideEffects::Resource::Base<AsyncGroupsResource> {
  llvm::StringRef getName() final { return "<AsyncGroups>"; }
};

/// A register's (row, column) offset from its thread's first coordinates.
struct TileOffset {
  int64_t row = 0, col = 0;
};
/// A thread's first (row, column) in a tile, as i32 values.
struct TileCoords {
  mlir::Value row, col;
};
} // namespace jfa

#include "JFA/JFAAttrInterfaces.h.inc"
#include "JFA/JFAAttrs.h.inc"
#include "JFA/JFAOpsDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "JFA/JFATypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "JFA/JFAAttrDefs.h.inc"

#define GET_OP_CLASSES
#include "JFA/JFAOps.h.inc"

namespace jfa {
/// The verifier does not know the target: it accepts what some target
/// (Targets.def) accepts; jfa-check-target holds a kernel to its target's own
/// limits.
constexpr int64_t kMaxSharedMemoryBytes =
    maxOverTargets(&Target::maxSharedMemoryPerBlock);
constexpr int64_t kRegistersPerSM = maxOverTargets(&Target::registersPerSM);
constexpr int64_t kTensorMemoryColumns =
    maxOverTargets(&Target::tensorMemoryColumns);
/// CUDA's limits on every target.
constexpr int64_t kSharedBufferAlignment = 1024; // what 128B swizzles need
constexpr int64_t kMaxWarpsPerCTA = 32;
/// An mbarrier is one 64-bit word of shared memory, 8-byte aligned.
constexpr int64_t kMbarrierBytes = 8;

/// The discardable attribute on a jfa.kernel holding its parameters' names as
/// written (`%rows` -> "rows"); set by the parser, read by the metadata.
constexpr llvm::StringLiteral kArgNamesAttrName = "jfa.arg_names";

/// Where each buffer and barrier array of a kernel lives in shared memory.
struct SharedMemoryLayout {
  llvm::SmallVector<std::pair<mlir::Operation *, int64_t>> offsets;
  int64_t totalBytes = 0;
};
SharedMemoryLayout computeSharedMemoryLayout(KernelOp kernel);

/// The first `jfa.tc_dot ... pair` in `root` (a kernel after its helpers
/// are inlined), or null: such a kernel's tcgen05 ops are all cta_group::2.
TcDotOp findPairProduct(mlir::Operation *root);

/// The layout of a register tile: its encoding, #jfa.blocked when it has
/// none, null when the encoding is not a tile layout.
TileLayoutAttrInterface getTileLayout(mlir::RankedTensorType tile);
/// `layout`, or #jfa.blocked when it is null (a distributed op that names no
/// layout, like a tile without an encoding, is blocked).
TileLayoutAttrInterface layoutOrBlocked(mlir::MLIRContext *ctx,
                                        TileLayoutAttrInterface layout);

/// Bytes of one element of `type` (integer or float), or 0 if not a memory
/// element type.
int64_t getElementBytes(mlir::Type type);

/// The elements a thread writes per access when jfa.store_tile stores a
/// tile in `layout` (`threads` in its task): the layout's vector width, at
/// most 16 bytes, or 1 for the atomic adds (`add`), which go element by
/// element. Each access is aligned to its size. The lowering emits these
/// accesses and jfa-interp checks their alignment with this one function.
int64_t getStoreTileVectorWidth(TileLayoutAttrInterface layout,
                                llvm::ArrayRef<int64_t> shape, int64_t threads,
                                int64_t elementBytes, bool add);

/// jfa.exp2's polynomial for 2^f, f in [0, 1): c0 + c1 f + c2 f^2 + c3 f^3,
/// a minimax fit of the relative error (below 9e-5; c0 = 1 so that 2^n is
/// exact). The lowering and jfa-interp evaluate it the same way.
inline constexpr float kExp2Poly[4] = {1.0f, 0x1.63e65p-1f, 0x1.d2382p-3f,
                                       0x1.3ba994p-4f};
} // namespace jfa

#endif // JFA_DIALECT_JFAOPS_H
