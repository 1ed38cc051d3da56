//===- CheckTarget.cpp - reject ops the target GPU lacks ------------------===//
//
// Ops declare the hardware feature they need (JFA_RequiresFeature in
// JFAOps.td); the target description (JFA/Targets.def) says which GPU has
// which, and its limits. The target is recorded on the module (`jfa.target`)
// for the passes after this one.
//
//===----------------------------------------------------------------------===//
#include "lib/Transforms/Passes.h"

#include "JFA/TaskInfo.h"

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
  else if (feature == TargetFeature::TensorMemory)
    diag << "uses tensor memory (tcgen05), which " << arch << " does not have ("
         << where << " only); on " << arch << " use jfa.async_dot (wgmma)";
  else if (feature == TargetFeature::ClusterLaunchControl)
    diag << "uses cluster launch control (clusterlaunchcontrol), which " << arch
         << " does not have (" << where << " only); on " << arch
         << " take work from a counter (jfa.atomic_fetch_add)";
  else if (feature == TargetFeature::Setmaxnreg)
    diag << "sets a register budget (setmaxnreg), which " << arch
         << " does not have (" << where << " only)";
  else
    diag << "needs " << featureName(feature) << ", which " << arch
         << " does not have (" << where << " only)";
}

/// The target's own limits, which may be below the largest of any target
/// (what the verifier checks).
bool checkLimits(KernelOp kernel, const Target &target) {
  bool ok = true;
  int64_t shared = kernel.computeSharedMemoryBytes();
  if (shared > target.maxSharedMemoryPerBlock) {
    kernel.emitOpError() << "uses " << shared
                         << " bytes of shared memory, more than the "
                         << target.maxSharedMemoryPerBlock << " a CTA has on "
                         << target.name;
    ok = false;
  }
  int64_t columns = 0;
  for (auto alloc : kernel.getBodyBlock().getOps<TmemAllocOp>())
    columns += alloc.getType().getColumns();
  // No tensor memory at all is the feature check's to report.
  if (target.tensorMemoryColumns > 0 && columns > target.tensorMemoryColumns) {
    kernel.emitOpError() << "allocates " << columns
                         << " tensor-memory columns; an SM of " << target.name
                         << " has " << target.tensorMemoryColumns;
    ok = false;
  }
  int64_t budget = 0;
  for (auto tasks : kernel.getBodyBlock().getOps<AsyncTasksOp>()) {
    FailureOr<SmallVector<TaskInfo>> layout = computeTaskLayout(tasks);
    if (failed(layout))
      continue; // the verifier reports it
    for (const TaskInfo &info : *layout)
      if (info.registers)
        budget += int64_t(*info.registers) * info.numThreads() * info.replicas;
  }
  if (budget > target.registersPerSM) {
    kernel.emitOpError() << "register budgets add up to " << budget
                         << " registers, more than the "
                         << target.registersPerSM << " of an SM of "
                         << target.name;
    ok = false;
  }
  return ok;
}

/// A kernel's tensor-core products span CTA pairs all or none (the
/// hardware does not mix cta_group::1 and ::2 in one kernel), in a cluster
/// of pairs; a load that completes on a peer's barrier (`on cta`) feeds
/// such a product. `target` must have tensor memory for either.
bool checkCtaPairs(KernelOp kernel, const Target &target) {
  TcDotOp pair = findPairProduct(kernel);
  bool ok = true;
  if (pair) {
    int64_t ctas = kernel.getClusterSize();
    if (ctas % 2 != 0) {
      auto diag = kernel.emitOpError()
                  << "has a CTA-pair product but a cluster of " << ctas
                  << (ctas == 1 ? " CTA" : " CTAs")
                  << "; a pair is ranks 2i and 2i + 1: set cluster(x, y, z) to "
                     "an even number of CTAs";
      diag.attachNote(pair.getLoc()) << "the pair product";
      ok = false;
    }
    kernel.walk([&](TcDotOp dot) {
      if (dot.getPair())
        return;
      auto diag = dot.emitOpError()
                  << "is a single-CTA product in a kernel with CTA-pair "
                     "products; tcgen05 ops of cta_group::1 and ::2 do not "
                     "mix in one kernel: make every product `pair`";
      diag.attachNote(pair.getLoc()) << "a pair product";
      ok = false;
    });
  }
  kernel.walk([&](TMALoadOp load) {
    if (!load.getCta())
      return;
    if (!target.has(TargetFeature::TensorMemory)) {
      load.emitOpError() << "completes on a peer CTA's barrier (on cta, "
                            "cta_group::2), which "
                         << target.name << " does not have ("
                         << targetsWith(TargetFeature::TensorMemory)
                         << " only); on " << target.name
                         << " share a tile with multicast(...)";
      ok = false;
    } else if (!pair) {
      load.emitOpError()
          << "completes on a peer CTA's barrier (on cta), which feeds a CTA-"
             "pair product, but the kernel has no `jfa.tc_dot ... pair`";
      ok = false;
    }
  });
  return ok;
}

struct CheckTarget : jfa::impl::JFACheckTargetBase<CheckTarget> {
  using JFACheckTargetBase::JFACheckTargetBase;

  void runOnOperation() override {
    const Target *target = lookupTarget(arch);
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
    for (auto kernel : getOperation().getOps<KernelOp>()) {
      failed |= !checkLimits(kernel, *target);
      failed |= !checkCtaPairs(kernel, *target);
    }
    if (failed)
      return signalPassFailure();
    setModuleTarget(getOperation(), *target);
  }
};
} // namespace
