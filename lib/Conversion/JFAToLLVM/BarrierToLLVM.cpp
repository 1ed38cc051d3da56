//===- BarrierToLLVM.cpp - mbarriers and named barriers -------------------===//
//
// An mbarrier array is 8 bytes per barrier in the shared-memory window,
// initialized once by thread 0; the ops map one to one onto NVVM's mbarrier,
// bar.sync/bar.arrive and barrier.cluster ops (an arrival on a peer CTA's
// barrier goes through mapa).
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/JFAToLLVM/JFAToLLVM.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace jfa;

namespace {

/// How long one mbarrier probe may suspend the thread (ns) before retrying.
constexpr int64_t kWaitSuspendTimeHint = 10000000;

struct AllocBarriersLowering : JFAPattern<AllocBarriersOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(AllocBarriersOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LLVMBuilder b(op.getLoc(), rewriter);
    FailureOr<Value> allocated = allocationAddress(b, op, op.getOffset());
    if (failed(allocated))
      return failure();
    Value base = *allocated;
    // Thread 0 initializes every barrier; the fence and the CTA barrier make
    // the initialization visible to all threads and to the async proxy.
    Value tid = NVVM::ThreadIdXOp::create(b, b.getI32Type());
    Value leader =
        LLVM::ICmpOp::create(b, LLVM::ICmpPredicate::eq, tid, b.i32(0));
    Value count = b.i32(op.getArriveCount());
    for (int64_t i = 0, e = op.getType().getSize(); i < e; ++i) {
      Value bar =
          LLVM::GEPOp::create(b, sharedPtr(getContext()), b.getI64Type(), base,
                              ArrayRef<LLVM::GEPArg>{int32_t(i)});
      NVVM::MBarrierInitOp::create(b, bar, count, leader);
    }
    NVVM::FenceMbarrierInitOp::create(b);
    // In a cluster, peers arrive on these barriers and multicast copies
    // complete on them: after the last array is initialized, the whole
    // cluster waits for every CTA's initialization (the fence above releases
    // it at cluster scope), not just this CTA.
    int64_t ctas = convertedClusterSize(op);
    bool lastArray = true;
    for (Operation *next = op->getNextNode(); next; next = next->getNextNode())
      lastArray &= !isa<AllocBarriersOp>(next);
    if (ctas > 1 && lastArray) {
      NVVM::ClusterArriveRelaxedOp::create(b, b.getUnitAttr());
      NVVM::ClusterWaitOp::create(b, b.getUnitAttr());
    } else {
      NVVM::Barrier0Op::create(b);
    }
    rewriter.replaceOp(op, base);
    return success();
  }
};

/// Element `index`: base + 8 * index.
struct BarrierLowering : JFAPattern<BarrierOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(BarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::GEPOp>(
        op, sharedPtr(getContext()), rewriter.getI64Type(),
        adaptor.getBarriers(), ArrayRef<LLVM::GEPArg>{adaptor.getIndex()});
    return success();
  }
};

struct BarrierExpectLowering : JFAPattern<BarrierExpectOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(BarrierExpectOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LLVMBuilder b(op.getLoc(), rewriter);
    NVVM::MBarrierArriveExpectTxOp::create(
        b, b.getI64Type(), adaptor.getBarrier(), b.i32(op.getBytes()),
        NVVM::MemScopeKind::CTA, /*relaxed=*/false, /*predicate=*/Value());
    rewriter.eraseOp(op);
    return success();
  }
};

struct BarrierArriveLowering : JFAPattern<BarrierArriveOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(BarrierArriveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!adaptor.getCta()) {
      NVVM::MBarrierArriveOp::create(rewriter, op.getLoc(),
                                     rewriter.getI64Type(),
                                     adaptor.getBarrier(), Value());
      rewriter.eraseOp(op);
      return success();
    }
    // A remote arrival crosses the cluster's network: one per warp, from its
    // lowest active lane, counting the warp's active threads (the same
    // arrivals as one per thread, a 32nd of the messages; CUTLASS's
    // consumers release a multicast stage per warp too). bar.warp.sync
    // orders the lanes' earlier accesses before the leader's arrival, whose
    // release at cluster scope is cumulative: the peer's waiter sees them.
    // With release(cta) the release stays at CTA scope (no cluster-scope
    // fence before the message), for slots the threads only read.
    LLVMBuilder b(op.getLoc(), rewriter);
    WarpLeader warp = lowestActiveLane(b);
    NVVM::SyncWarpOp::create(b, warp.activeMask);
    Value count = LLVM::CtPopOp::create(b, b.getI32Type(), warp.activeMask);
    auto ifOp = scf::IfOp::create(b, warp.isLeader, /*withElseRegion=*/false);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    // The same barrier in the peer's shared memory (mapped here, not
    // hoisted out of a loop to hold a register).
    Value remote = clusterAddress(b, adaptor.getBarrier(), adaptor.getCta());
    NVVM::MBarrierArriveOp::create(b, Type(), remote, count,
                                   op.getReleaseCta()
                                       ? NVVM::MemScopeKind::CTA
                                       : NVVM::MemScopeKind::CLUSTER,
                                   /*relaxed=*/false);
    rewriter.eraseOp(op);
    return success();
  }
};

/// A wait is a loop of `mbarrier.try_wait.parity` probes (the intrinsic,
/// which returns the probe's predicate) until one sees the phase complete.
/// NVVM's MBarrierTryWaitParityOp spins inside inline assembly with
/// `bra.uni`, which tells ptxas that every active lane of the warp takes
/// the branch the same way. A warp that an elected thread leaves (a TMA
/// issuer's expect and copies) reaches its waits on two paths, and with
/// `bra.uni` ptxas treated the spins as warp-uniform: the block-sparse
/// causal forward's producer warp split, its issuing lane a unit ahead of
/// the others, and the kernel hung (bench/NOTES.md, run 64). The loop here
/// is ordinary control flow that ptxas reconverges.
struct BarrierWaitLowering : JFAPattern<BarrierWaitOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(BarrierWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    OpBuilder::InsertionGuard guard(rewriter);
    LLVMBuilder b(op.getLoc(), rewriter);
    auto loop = scf::WhileOp::create(b, TypeRange(), ValueRange());
    // Blocks made by the rewriter, which tracks them for the conversion.
    b.setInsertionPointToStart(rewriter.createBlock(&loop.getBefore()));
    Value ready = mbarrierProbe(b, adaptor.getBarrier(), adaptor.getPhase(),
                                kWaitSuspendTimeHint, op.getAcquireCluster());
    Value notReady = LLVM::XOrOp::create(
        b, ready,
        LLVM::ConstantOp::create(b, b.getI1Type(), b.getBoolAttr(true)));
    scf::ConditionOp::create(b, notReady, ValueRange());
    b.setInsertionPointToStart(rewriter.createBlock(&loop.getAfter()));
    scf::YieldOp::create(b);
    rewriter.eraseOp(op);
    return success();
  }
};

struct NamedBarrierSyncLowering : JFAPattern<NamedBarrierSyncOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(NamedBarrierSyncOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LLVMBuilder b(op.getLoc(), rewriter);
    Value threads = b.i32(op.getThreads());
    Value id = b.i32(op.getId());
    NVVM::BarrierOp::create(b, Type(), id, threads,
                            NVVM::BarrierReductionAttr(), Value());
    rewriter.eraseOp(op);
    return success();
  }
};

struct NamedBarrierArriveLowering : JFAPattern<NamedBarrierArriveOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(NamedBarrierArriveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LLVMBuilder b(op.getLoc(), rewriter);
    Value threads = b.i32(op.getThreads());
    Value id = b.i32(op.getId());
    rewriter.replaceOpWithNewOp<NVVM::BarrierArriveOp>(op, id, threads);
    return success();
  }
};

struct ClusterArriveLowering : JFAPattern<ClusterArriveOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(ClusterArriveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Not .aligned: the op may sit where a warp's threads have diverged.
    rewriter.replaceOpWithNewOp<NVVM::ClusterArriveOp>(op, /*aligned=*/nullptr);
    return success();
  }
};

struct ClusterWaitLowering : JFAPattern<ClusterWaitOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(ClusterWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::ClusterWaitOp>(op, /*aligned=*/nullptr);
    return success();
  }
};

} // namespace

void jfa::populateBarrierToLLVMPatterns(JFATypeConverter &converter,
                                        RewritePatternSet &patterns) {
  patterns.add<AllocBarriersLowering, BarrierLowering, BarrierExpectLowering,
               BarrierArriveLowering, BarrierWaitLowering,
               NamedBarrierSyncLowering, NamedBarrierArriveLowering,
               ClusterArriveLowering, ClusterWaitLowering>(converter);
}
