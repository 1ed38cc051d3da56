//===- Utils.cpp - shared pieces of the JFA -> LLVM conversion ------------===//
#include "lib/Conversion/JFAToLLVM/Utils.h"
#include "JFA/MmaTypes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace jfa {

Type llvmPtr(MLIRContext *ctx, NVVM::NVVMMemorySpace space) {
  return LLVM::LLVMPointerType::get(ctx, static_cast<unsigned>(space));
}

JFATypeConverter::JFATypeConverter(MLIRContext *ctx) : LLVMTypeConverter(ctx) {
  addConversion([ctx](SharedBufferType) { return sharedPtr(ctx); });
  addConversion([ctx](SlotType) { return sharedPtr(ctx); });
  addConversion([ctx](BarrierArrayType) { return sharedPtr(ctx); });
  addConversion([ctx](BarrierType) { return sharedPtr(ctx); });
  // A __grid_constant__ parameter is used through its generic address.
  addConversion([ctx](TensorDescType) {
    return llvmPtr(ctx, NVVM::NVVMMemorySpace::Generic);
  });
  addConversion([ctx](GlobalPtrType) {
    return llvmPtr(ctx, NVVM::NVVMMemorySpace::Global);
  });
  addConversion([ctx](TensorMemoryType) { return tmemPtr(ctx); });
}

Value sharedAddress(LLVMBuilder &b, int64_t offset) {
  Value base =
      LLVM::AddressOfOp::create(b, sharedPtr(b.getContext()), kSharedWindow);
  if (offset == 0)
    return base;
  return LLVM::GEPOp::create(b, sharedPtr(b.getContext()), b.getI8Type(), base,
                             ArrayRef<LLVM::GEPArg>{int32_t(offset)});
}

Value rowInside(LLVMBuilder &b, Value row, Value count, Value first) {
  Value inside = LLVM::ICmpOp::create(b, LLVM::ICmpPredicate::slt, row, count);
  if (!first)
    return inside;
  Value above = LLVM::ICmpOp::create(b, LLVM::ICmpPredicate::sge, row, first);
  return LLVM::AndOp::create(b, inside, above);
}

Value loadOrZero(LLVMBuilder &b, Type element, Value address, Value inside) {
  auto ifOp = scf::IfOp::create(b, element, inside, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  scf::YieldOp::create(
      b, ValueRange{LLVM::LoadOp::create(b, element, address).getResult()});
  b.setInsertionPointToStart(ifOp.elseBlock());
  scf::YieldOp::create(
      b, ValueRange{LLVM::ZeroOp::create(b, element).getResult()});
  return ifOp.getResult(0);
}

FailureOr<Value> allocationAddress(LLVMBuilder &b, Operation *op,
                                   std::optional<uint64_t> offset) {
  if (!offset)
    return op->emitOpError()
           << "has no shared-memory offset; run jfa-allocate-shared-memory";
  return sharedAddress(b, *offset);
}

Value sideEffectAsm(LLVMBuilder &b, Type result, ValueRange operands,
                    StringRef text, StringRef constraints) {
  auto op = LLVM::InlineAsmOp::create(
      b, result, operands, text, constraints,
      /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr());
  return result ? op.getResult(0) : Value();
}

WarpLeader lowestActiveLane(LLVMBuilder &b) {
  Type i32 = b.getI32Type();
  Value active =
      sideEffectAsm(b, i32, ValueRange{}, "activemask.b32 $0;", "=r");
  // Never 0: this thread is active.
  Value lowest = LLVM::CountTrailingZerosOp::create(b, i32, active,
                                                    /*is_zero_poison=*/true);
  Value lane = NVVM::LaneIdOp::create(b, i32);
  return {active,
          LLVM::ICmpOp::create(b, LLVM::ICmpPredicate::eq, lane, lowest)};
}

Value mbarrierProbe(LLVMBuilder &b, Value barrier, Value phase,
                    int64_t suspendNs, bool acquireCluster) {
  // An i32 phase makes this the .parity form.
  return NVVM::MBarrierTryWaitOp::create(
             b, b.getI1Type(), barrier, phase, b.i32(suspendNs),
             acquireCluster ? NVVM::MemScopeKind::CLUSTER
                            : NVVM::MemScopeKind::CTA)
      .getResult();
}

/// `address` (this CTA's shared memory) in CTA `cta` of the cluster:
/// `mapa` into the cluster window, for ld/st.shared::cluster or a remote
/// arrival. The mapa is inline assembly with side effects, so that it
/// happens at the use: a pure one LLVM hoists out of a loop, and every
/// address derived from it then holds a register the whole loop long (the
/// sm_90a backward's dQ exchange spilled 44-100 B so).
Value clusterAddress(LLVMBuilder &b, Value address, Value cta) {
  Type i32 = b.getI32Type();
  Value local = LLVM::PtrToIntOp::create(b, i32, address);
  Value remote =
      sideEffectAsm(b, i32, ValueRange{local, cta},
                    "mapa.shared::cluster.u32 $0, $1, $2;", "=r,r,r");
  return LLVM::IntToPtrOp::create(
      b, llvmPtr(b.getContext(), NVVM::NVVMMemorySpace::SharedCluster), remote);
}

ClusterWindow::ClusterWindow(LLVMBuilder &b, Value slot, Value cta) : b(b) {
  if (!cta)
    return;
  // A CTA's shared memory is one contiguous range of the cluster window, so
  // a slot's places keep their distances there: one mapa of the slot, and
  // each piece adds the same distance to its local address.
  Type i32 = b.getI32Type();
  Value local = LLVM::PtrToIntOp::create(b, i32, slot);
  Value mapped = LLVM::PtrToIntOp::create(b, i32, clusterAddress(b, slot, cta));
  distance = LLVM::SubOp::create(b, mapped, local);
}

Value ClusterWindow::map(Value address) {
  if (!distance)
    return address;
  Type i32 = b.getI32Type();
  Value local = LLVM::PtrToIntOp::create(b, i32, address);
  Value remote = LLVM::AddOp::create(b, local, distance);
  return LLVM::IntToPtrOp::create(
      b, llvmPtr(b.getContext(), NVVM::NVVMMemorySpace::SharedCluster), remote);
}

/// The swizzle: bits [4, 4+log2(swizzle/16)) of the byte offset (the 16-byte
/// chunk within the row) are XORed with bits [7, ...), the row within an
/// 8-row atom. It moves 16-byte chunks but never splits one.
Value slotAddress(LLVMBuilder &b, Value slot, Value offset, int64_t swizzle) {
  if (swizzle) {
    int64_t mask = (swizzle / 16 - 1) << 4;
    Value rowMask = b.i32(mask);
    Value row = LLVM::AndOp::create(b, b.lshr(offset, 3), rowMask);
    offset = LLVM::XOrOp::create(b, offset, row);
  }
  return LLVM::GEPOp::create(b, slot.getType(), b.getI8Type(), slot,
                             ArrayRef<LLVM::GEPArg>{offset});
}

int64_t kStepBytes(SlotType slot, int64_t kk) {
  int64_t bytes = getElementBytes(slot.getElementType());
  // K of one instruction: 16 elements of 16 bits, 32 of 8 (MmaTypes.h).
  int64_t kStep = getMmaKStep(slot.getElementType());
  // A stored row within one column block (the whole row when unblocked).
  int64_t rowBytes = slot.getStoredShape().back() * bytes;
  if (slot.getColumnBlocks() > 1)
    rowBytes = slot.getSwizzle();
  if (slot.getTransposed())
    return kk * kStep * rowBytes;
  // K-major: kStep columns (32 bytes) on, into the next column block past
  // its end.
  int64_t column = kk * kStep * bytes;
  return column / rowBytes * slot.getStoredShape().front() * rowBytes +
         column % rowBytes;
}

LogicalResult notDistributed(Operation *op) {
  return op->emitOpError() << "run jfa-distribute-tiles first";
}

} // namespace jfa
