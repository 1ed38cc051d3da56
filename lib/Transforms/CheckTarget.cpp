//===- CheckTarget.cpp - reject ops the target GPU lacks ------------------===//
//
// Ops declare the hardware feature they need (JFA_RequiresFeature in
// JFAOps.td); the target table (JFA/Targets.h) says which GPU has which.
//
//===----------------------------------------------------------------------===//
#include "lib/Transforms/Passes.h"

namespace jfa {
#define GEN_PASS_DEF_JFACHECKTARGET
#include "lib/Transforms/Passes.h.inc"
} // namespace jfa

using namespace mlir;
using namespace jfa;

namespace {
/// What an op needing `feature` is, and what to use where it is missing.
void describeMissing(InFlightDiagnostic &diag, Operation *op,
                     TargetFeature feature, StringRef arch) {
  std::string where = targetsWith(feature);
  if (isa<AsyncDotWaitOp>(op))
    diag << "waits for wgmma groups, which " << arch << " does not have ("
         << where << " only); on " << arch
         << " jfa.tc_commit arrives on a barrier when jfa.tc_dot finishes";
  else if (feature == TargetFeature::Wgmma)
    diag << "with a register accumulator is wgmma, which " << arch
         << " does not have (" << where << " only); on " << arch
         << " accumulate in tensor memory (jfa.tc_dot)";
  else
    diag << "uses tensor memory (tcgen05), which " << arch << " does not have ("
         << where << " only); on " << arch << " use jfa.async_dot (wgmma)";
}

struct CheckTarget : jfa::impl::JFACheckTargetBase<CheckTarget> {
  using JFACheckTargetBase::JFACheckTargetBase;

  void runOnOperation() override {
    std::optional<Target> target = lookupTarget(arch);
    if (!target) {
      getOperation().emitError() << "jfa-check-target: unknown arch '" << arch
                                 << "'; known targets: " << knownTargetNames();
      return signalPassFailure();
    }
    bool failed = false;
    getOperation().walk([&](Operation *op) {
      std::optional<TargetFeature> feature = getRequiredTargetFeature(op);
      if (!feature || target->has(*feature))
        return;
      InFlightDiagnostic diag = op->emitOpError();
      describeMissing(diag, op, *feature, arch);
      failed = true;
    });
    if (failed)
      signalPassFailure();
  }
};
} // namespace
