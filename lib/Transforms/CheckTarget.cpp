//===- CheckTarget.cpp - reject ops the target GPU lacks
//--------------------===//
#include "lib/Transforms/Passes.h"

namespace jfa {
#define GEN_PASS_DEF_JFACHECKTARGET
#include "lib/Transforms/Passes.h.inc"
} // namespace jfa

using namespace mlir;
using namespace jfa;

namespace {
struct CheckTarget : jfa::impl::JFACheckTargetBase<CheckTarget> {
  using JFACheckTargetBase::JFACheckTargetBase;

  void runOnOperation() override {
    if (arch != "sm_90a" && arch != "sm_100a") {
      getOperation().emitError() << "jfa-check-target: unknown arch '" << arch
                                 << "'; known targets: sm_90a, sm_100a";
      return signalPassFailure();
    }
    bool failed = false;
    getOperation().walk([&](Operation *op) {
      if (isa<AsyncDotOp>(op) && arch != "sm_90a") {
        op->emitOpError() << "with a register accumulator is wgmma, which "
                          << arch << " does not have (sm_90a only); on " << arch
                          << " accumulate in tensor memory (jfa.tc_dot)";
        failed = true;
      }
      if (isa<TmemAllocOp, TmemDeallocOp, TcDotOp, TcCommitOp, TmemLoadOp,
              TmemStoreOp, TmemSliceOp>(op) &&
          arch != "sm_100a") {
        op->emitOpError() << "uses tensor memory (tcgen05), which " << arch
                          << " does not have (sm_100a only); on " << arch
                          << " use jfa.async_dot (wgmma)";
        failed = true;
      }
    });
    if (failed)
      signalPassFailure();
  }
};
} // namespace
