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
#include "JFA/LLVMBuilder.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

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

/// Converts JFA's types: buffers, slots and barriers are shared-memory
/// pointers, tensor memory a tensor-memory pointer, TMA descriptors the
/// generic address of their __grid_constant__ parameter.
struct JFATypeConverter : mlir::LLVMTypeConverter {
  explicit JFATypeConverter(mlir::MLIRContext *ctx);
};

/// The target facts the patterns need (Triton's TargetInfo), handed to the
/// populate* functions that depend on the target: the module's target
/// (`jfa.target`, recorded by jfa-check-target), or none when no target was
/// chosen (jfa-opt running the conversion alone), in which case every
/// feature's patterns are added.
class TargetInfo {
public:
  explicit TargetInfo(const Target *target) : target(target) {}
  /// The target, or null when none was chosen.
  const Target *getTarget() const { return target; }
  /// Whether ops needing `feature` lower here (always without a target).
  bool has(TargetFeature feature) const {
    return !target || target->has(feature);
  }

private:
  const Target *target;
};

/// The base of every JFA lowering pattern.
template <typename Op> struct JFAPattern : mlir::ConvertOpToLLVMPattern<Op> {
  using mlir::ConvertOpToLLVMPattern<Op>::ConvertOpToLLVMPattern;
};

/// Address `offset` bytes into the kernel's dynamic shared-memory window.
mlir::Value sharedAddress(LLVMBuilder &b, int64_t offset);

/// Whether a row of a row-clipped global store (jfa.store_tile,
/// jfa.store_rows) is written: below `count`, and not below `first` when
/// the op has one (a null Value: no lower bound).
mlir::Value rowInside(LLVMBuilder &b, mlir::Value row, mlir::Value count,
                      mlir::Value first);

/// The `element` at `address` where `inside`, else 0 without reading it
/// (an scf.if: rows or columns past a sequence's end are never loaded).
mlir::Value loadOrZero(LLVMBuilder &b, mlir::Type element, mlir::Value address,
                       mlir::Value inside);

/// Where jfa-allocate-shared-memory placed allocation `op` (its `offset`),
/// or a located error if that pass has not run.
mlir::FailureOr<mlir::Value> allocationAddress(LLVMBuilder &b,
                                               mlir::Operation *op,
                                               std::optional<uint64_t> offset);

/// Inline PTX with side effects and one result (none for a null `result`:
/// the null Value): LLVM neither hoists, merges nor reorders it across
/// other side effects, which is what keeps a value computed where it is
/// used (a wgmma's descriptor, a waited accumulator).
/// `address` (this CTA's shared memory) mapped to the same place in CTA
/// `cta` of the cluster (mapa at the use, never hoisted).
mlir::Value clusterAddress(LLVMBuilder &b, mlir::Value address,
                           mlir::Value cta);

/// The places of one slot in CTA `cta` of the cluster (`on cta`): one mapa
/// of the slot at the move, and each piece's local address moved by the
/// same distance (the local addresses are the slot's own, shared with its
/// local moves; nothing new lives across a loop). With a null `cta`,
/// `map` returns its argument.
class ClusterWindow {
public:
  ClusterWindow(LLVMBuilder &b, mlir::Value slot, mlir::Value cta);
  mlir::Value map(mlir::Value address);

private:
  LLVMBuilder &b;
  mlir::Value distance;
};

mlir::Value sideEffectAsm(LLVMBuilder &b, mlir::Type result,
                          mlir::ValueRange operands, llvm::StringRef text,
                          llvm::StringRef constraints);

/// The warp's active lanes (`activemask`) and whether this thread is the
/// lowest of them: one thread that speaks for its warp (a debug line, a
/// remote arrival counting the warp's lanes).
struct WarpLeader {
  mlir::Value activeMask; // i32
  mlir::Value isLeader;   // i1
};
WarpLeader lowestActiveLane(LLVMBuilder &b);

/// One `mbarrier.try_wait.parity` probe of `barrier` for `phase` (i32),
/// which may suspend the thread up to `suspendNs`: true once that phase has
/// completed. Both waits are made of it: jfa.barrier_wait's loop and the
/// debug mode's bounded spin (jfa.barrier_try_wait). It acquires at CTA
/// scope, or with `acquireCluster` at cluster scope (`.acquire.cluster`:
/// what peer CTAs released before arriving).
mlir::Value mbarrierProbe(LLVMBuilder &b, mlir::Value barrier,
                          mlir::Value phase, int64_t suspendNs,
                          bool acquireCluster = false);

/// `slot + offset` (bytes), after the swizzle when `swizzle` is not 0.
mlir::Value slotAddress(LLVMBuilder &b, mlir::Value slot, mlir::Value offset,
                        int64_t swizzle);

/// Byte offset of the K step `kk` (one MMA instruction's K: 16 elements of
/// 16 bits, 32 of 8; JFA/MmaTypes.h) in a tensor-core operand slot: along a
/// K-major row it is 32 bytes; in a transposed (N-major) view it is a K
/// step of stored rows.
int64_t kStepBytes(SlotType slot, int64_t kk);

/// The "run jfa-distribute-tiles first" failure of a pattern that met a
/// tile-level op.
mlir::LogicalResult notDistributed(mlir::Operation *op);

} // namespace jfa

#endif // JFA_CONVERSION_JFATOLLVM_UTILS_H
