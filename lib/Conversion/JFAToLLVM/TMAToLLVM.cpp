//===- TMAToLLVM.cpp - TMA copies and the async-proxy fence ---------------===//
//
// jfa.tma_load/tma_store are cp.async.bulk.tensor in tile mode, one per
// column block of a blocked slot; a store commits a bulk group that
// jfa.tma_store_wait waits on; jfa.tma_prefetch is the L2 prefetch of a box;
// jfa.copy_to_cta is cp.async.bulk from this CTA's shared memory into a
// peer's, completing on the peer's barrier.
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/JFAToLLVM/JFAToLLVM.h"

using namespace mlir;
using namespace jfa;

/// TMA coordinates are innermost first; JFA's are outermost first.
static SmallVector<Value> tmaCoordinates(ValueRange coords) {
  return llvm::to_vector(llvm::reverse(coords));
}

/// Calls `copy(slot address, coordinates)` once per column block of `slot`
/// (once for an unblocked slot): block b is `b * block bytes` into the
/// slot and `b * box width` columns on in the tensor.
static void
forEachBlock(ConversionPatternRewriter &rewriter, Location loc,
             SlotType slotType, TensorDescType desc, Value slot,
             ValueRange coords,
             function_ref<void(Value slot, SmallVector<Value> coords)> copy) {
  int64_t blocks = slotType.getColumnBlocks();
  if (blocks == 1)
    return copy(slot, tmaCoordinates(coords));
  LLVMBuilder b(loc, rewriter);
  int64_t blockBytes = desc.getBoxBytes();
  int64_t blockColumns = desc.getBoxShape().back();
  for (int64_t i = 0; i < blocks; ++i) {
    SmallVector<Value> at = tmaCoordinates(coords);
    at.front() = b.add(at.front(), i * blockColumns);
    Value address =
        LLVM::GEPOp::create(b, slot.getType(), b.getI8Type(), slot,
                            ArrayRef<LLVM::GEPArg>{b.i32(i * blockBytes)});
    copy(address, at);
  }
}

/// A CTA pair's load (`on cta %rank`): the box lands in this CTA's slot and
/// its bytes complete on the barrier at `barrier`'s place in CTA `rank`
/// (this one or its peer; .cta_group::2). Inline PTX: the NVVM op takes the
/// barrier as a shared::cta pointer, and the peer's is a shared::cluster
/// address (mapa; the same value for this CTA's own).
static void pairLoad(LLVMBuilder &b, Value slot, Value desc,
                     ArrayRef<Value> coords, Value barrier, Value rank) {
  Type i32 = b.getI32Type();
  SmallVector<Value> operands = {LLVM::PtrToIntOp::create(b, i32, slot), desc,
                                 LLVM::PtrToIntOp::create(b, i32, barrier),
                                 rank};
  std::string box;
  for (auto [i, c] : llvm::enumerate(coords)) {
    operands.push_back(c);
    box += (i ? ", $" : "$") + std::to_string(4 + i);
  }
  std::string text =
      "{\n.reg .b32 %peer_bar;\nmapa.shared::cluster.u32 %peer_bar, $2, $3;\n"
      "cp.async.bulk.tensor." +
      std::to_string(coords.size()) +
      "d.cta_group::2.shared::cluster.global.mbarrier::complete_tx::bytes "
      "[$0], [$1, {" +
      box + "}], [%peer_bar];\n}";
  std::string constraints = "r,l,r,r";
  for (size_t i = 0; i < coords.size(); ++i)
    constraints += ",r";
  sideEffectAsm(b, Type(), operands, text, constraints + ",~{memory}");
}

namespace {

struct TMALoadLowering : JFAPattern<TMALoadOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(TMALoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getCta()) {
      forEachBlock(rewriter, op.getLoc(), op.getSlot().getType(),
                   op.getDesc().getType(), adaptor.getSlot(),
                   adaptor.getCoords(),
                   [&](Value slot, SmallVector<Value> coords) {
                     LLVMBuilder b(op.getLoc(), rewriter);
                     pairLoad(b, slot, adaptor.getDesc(), coords,
                              adaptor.getBarrier(), adaptor.getCta());
                   });
      rewriter.eraseOp(op);
      return success();
    }
    forEachBlock(
        rewriter, op.getLoc(), op.getSlot().getType(), op.getDesc().getType(),
        adaptor.getSlot(), adaptor.getCoords(),
        [&](Value slot, SmallVector<Value> coords) {
          // A multicast copy names its destination in the
          // cluster's window; the hardware writes it at the same
          // offset in every CTA of the mask.
          Value multicast = adaptor.getMulticast();
          if (multicast)
            slot = LLVM::AddrSpaceCastOp::create(
                rewriter, op.getLoc(),
                LLVM::LLVMPointerType::get(
                    getContext(), int(NVVM::NVVMMemorySpace::SharedCluster)),
                slot);
          NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
              rewriter, op.getLoc(), slot, adaptor.getDesc(), coords,
              adaptor.getBarrier(), ValueRange{}, multicast,
              /*l2CacheHint=*/Value(), NVVM::TMALoadMode::TILE,
              /*isCTAOnly=*/!multicast,
              /*group=*/NVVM::CTAGroupKindAttr(),
              /*predicate=*/Value());
        });
    rewriter.eraseOp(op);
    return success();
  }
};

struct TMAStoreLowering : JFAPattern<TMAStoreOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(TMAStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    forEachBlock(rewriter, op.getLoc(), op.getSlot().getType(),
                 op.getDesc().getType(), adaptor.getSlot(), adaptor.getCoords(),
                 [&](Value slot, SmallVector<Value> coords) {
                   if (op.getAdd())
                     NVVM::CpAsyncBulkTensorReduceOp::create(
                         rewriter, op.getLoc(), adaptor.getDesc(), slot,
                         NVVM::TMAReduxKind::ADD, NVVM::TMAStoreMode::TILE,
                         coords,
                         /*l2CacheHint=*/Value());
                   else
                     NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
                         rewriter, op.getLoc(), adaptor.getDesc(), slot, coords,
                         /*l2CacheHint=*/Value(), NVVM::TMAStoreMode::TILE,
                         /*predicate=*/Value());
                 });
    NVVM::CpAsyncBulkCommitGroupOp::create(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

/// A slot's bytes into the same place in CTA `cta` of the cluster, completing
/// on the barrier at `barrier`'s place there: the destination and the
/// barrier are mapped at the copy (clusterAddress: never hoisted out of a
/// loop to hold a register), and the copy is inline PTX because the NVVM op
/// takes the barrier as a shared::cta pointer while the peer's is a
/// shared::cluster address. One copy for the whole slot, blocked or not: a
/// slot or view is one contiguous byte range. No bulk group: its completion
/// shows on the peer's barrier only.
struct CopyToCtaLowering : JFAPattern<CopyToCtaOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(CopyToCtaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LLVMBuilder b(op.getLoc(), rewriter);
    Type i32 = b.getI32Type();
    Value dst = clusterAddress(b, adaptor.getDst(), adaptor.getCta());
    Value barrier = clusterAddress(b, adaptor.getBarrier(), adaptor.getCta());
    SmallVector<Value> operands = {
        LLVM::PtrToIntOp::create(b, i32, dst),
        LLVM::PtrToIntOp::create(b, i32, adaptor.getSrc()),
        LLVM::PtrToIntOp::create(b, i32, barrier)};
    std::string text = "cp.async.bulk.shared::cluster.shared::cta.mbarrier::"
                       "complete_tx::bytes [$0], [$1], " +
                       std::to_string(op.getSrc().getType().getBytes()) +
                       ", [$2];";
    sideEffectAsm(b, Type(), operands, text, "r,r,r,~{memory}");
    rewriter.eraseOp(op);
    return success();
  }
};

/// An L2 prefetch of the box: one per descriptor box, nothing to complete.
struct TMAPrefetchLowering : JFAPattern<TMAPrefetchOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(TMAPrefetchOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::CpAsyncBulkTensorPrefetchOp::create(
        rewriter, op.getLoc(), adaptor.getDesc(),
        tmaCoordinates(adaptor.getCoords()), /*im2colOffsets=*/ValueRange{},
        NVVM::TMALoadMode::TILE, /*l2CacheHint=*/Value());
    rewriter.eraseOp(op);
    return success();
  }
};

/// Waits until the shared memory of all but `pending` stores may be reused
/// (the `.read` form: the global writes need not have landed), or with
/// `writes` until their global writes are done (no `.read`).
struct TMAStoreWaitLowering : JFAPattern<TMAStoreWaitOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(TMAStoreWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkWaitGroupOp>(
        op, op.getPending(),
        op.getWrites() ? UnitAttr() : rewriter.getUnitAttr());
    return success();
  }
};

struct FenceAsyncSharedLowering : JFAPattern<FenceAsyncSharedOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(FenceAsyncSharedOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::FenceProxyOp>(
        op, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(getContext(),
                                   NVVM::SharedSpace::shared_cta));
    return success();
  }
};

/// fence.proxy.async.global: TMA's global writes against the thread's
/// accesses.
struct FenceAsyncGlobalLowering : JFAPattern<FenceAsyncGlobalOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(FenceAsyncGlobalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::FenceProxyOp>(
        op, NVVM::ProxyKind::async_global, NVVM::SharedSpaceAttr());
    return success();
  }
};

/// fence.acq_rel.gpu, as NVPTX emits LLVM's acq_rel fence at device scope.
struct FenceGpuLowering : JFAPattern<FenceGpuOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(FenceGpuOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::FenceOp>(
        op, LLVM::AtomicOrdering::acq_rel, StringRef("device"));
    return success();
  }
};

} // namespace

void jfa::populateTMAToLLVMPatterns(JFATypeConverter &converter,
                                    RewritePatternSet &patterns,
                                    const TargetInfo &targetInfo) {
  patterns.add<FenceAsyncSharedLowering, FenceAsyncGlobalLowering,
               FenceGpuLowering>(converter);
  if (targetInfo.has(TargetFeature::Tma))
    patterns.add<TMALoadLowering, TMAStoreLowering, TMAStoreWaitLowering,
                 TMAPrefetchLowering, CopyToCtaLowering>(converter);
}
