//===- TMAToLLVM.cpp - TMA copies and the async-proxy fence ---------------===//
//
// jfa.tma_load/tma_store are cp.async.bulk.tensor in tile mode; a store
// commits a bulk group that jfa.tma_store_wait waits on.
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/JFAToLLVM/JFAToLLVM.h"

using namespace mlir;
using namespace jfa;

/// TMA coordinates are innermost first; JFA's are outermost first.
static SmallVector<Value> tmaCoordinates(ValueRange coords) {
  return llvm::to_vector(llvm::reverse(coords));
}

namespace {

struct TMALoadLowering : JFAPattern<TMALoadOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(TMALoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
        rewriter, op.getLoc(), adaptor.getSlot(), adaptor.getDesc(),
        tmaCoordinates(adaptor.getCoords()), adaptor.getBarrier(), ValueRange{},
        /*multicastMask=*/Value(), /*l2CacheHint=*/Value(),
        NVVM::TMALoadMode::TILE, /*isCTAOnly=*/true,
        /*group=*/NVVM::CTAGroupKindAttr(), /*predicate=*/Value());
    rewriter.eraseOp(op);
    return success();
  }
};

struct TMAStoreLowering : JFAPattern<TMAStoreOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(TMAStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getAdd())
      NVVM::CpAsyncBulkTensorReduceOp::create(
          rewriter, op.getLoc(), adaptor.getDesc(), adaptor.getSlot(),
          NVVM::TMAReduxKind::ADD, NVVM::TMAStoreMode::TILE,
          tmaCoordinates(adaptor.getCoords()), /*l2CacheHint=*/Value());
    else
      NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
          rewriter, op.getLoc(), adaptor.getDesc(), adaptor.getSlot(),
          tmaCoordinates(adaptor.getCoords()), /*l2CacheHint=*/Value(),
          NVVM::TMAStoreMode::TILE, /*predicate=*/Value());
    NVVM::CpAsyncBulkCommitGroupOp::create(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

/// Waits until the shared memory of all but `pending` stores may be reused
/// (the `.read` form: the global writes need not have landed).
struct TMAStoreWaitLowering : JFAPattern<TMAStoreWaitOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(TMAStoreWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkWaitGroupOp>(
        op, op.getPending(), rewriter.getUnitAttr());
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

} // namespace

void jfa::populateTMAToLLVMPatterns(JFATypeConverter &converter,
                                    RewritePatternSet &patterns) {
  patterns.add<TMALoadLowering, TMAStoreLowering, TMAStoreWaitLowering,
               FenceAsyncSharedLowering>(converter);
}
