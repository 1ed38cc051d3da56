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

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

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

/// The upstream math ops jfac lowers, each with the element types it takes
/// (checked through ptxas; NVPTX has no instruction or library call for
/// the others, and its instruction selection aborts on some of them).
struct MathSupport {
  StringRef ops, types;
  bool (*takes)(Type);
};
bool isFloatElement(Type t) {
  return t.isF16() || t.isBF16() || t.isF32() || t.isF64();
}
bool isIntElement(Type t) {
  return t.isSignlessInteger(8) || t.isSignlessInteger(16) ||
         t.isSignlessInteger(32) || t.isSignlessInteger(64);
}
const MathSupport kMathSupport[] = {
    {"absf ceil copysign floor fma round roundeven rsqrt sqrt trunc isfinite "
     "isnan",
     "f16, bf16, f32, f64", isFloatElement},
    {"exp2", "f16, bf16, f32",
     [](Type t) { return t.isF16() || t.isBF16() || t.isF32(); }},
    {"log log2", "f32", [](Type t) { return t.isF32(); }},
    {"absi ctlz ctpop cttz", "i8, i16, i32, i64", isIntElement},
};

/// How to write a math op jfac does not lower with the ones it does.
StringRef mathRewriteHint(StringRef op) {
  return llvm::StringSwitch<StringRef>(op)
      .Case("exp", "; write exp(x) as exp2(x * 1.44269504) (log2(e))")
      .Case("expm1", "; write expm1(x) as exp2(x * 1.44269504) - 1")
      .Case("powf", "; write powf(x, y) for x > 0 as exp2(y * log2(x))")
      .Case("log10", "; write log10(x) as log2(x) * 0.30103 (log10(2))")
      .Case("log1p", "; write log1p(x) as log(1 + x)")
      .Case("tanh", "; write tanh(x) as 1 - 2 / (exp2(x * 2.88539008) + 1)")
      .Case("sinh", "; write sinh and cosh with exp2")
      .Case("cosh", "; write sinh and cosh with exp2")
      .Default("");
}

/// The element types arith and math ops take in jfac's lowering (NVPTX
/// aborts on i128 conversions; fp8, fp6, fp4 and tf32 values have no
/// arithmetic or conversions in the LLVM translation).
bool isLowerableElement(Type t) {
  return t.isSignlessInteger(1) || isIntElement(t) || t.isIndex() ||
         isFloatElement(t);
}

/// Rejects upstream arith and math ops the lowering cannot compile, before
/// the NVPTX backend stops on them without a location (or with a stack
/// dump): an allowlist of math ops, and of element types for both.
bool checkUpstreamOps(ModuleOp module) {
  bool ok = true;
  module.walk([&](Operation *op) {
    Dialect *dialect = op->getDialect();
    if (!dialect)
      return;
    StringRef ns = dialect->getNamespace();
    if (ns != "math" && ns != "arith")
      return;
    StringRef name = op->getName().stripDialect();
    if (ns == "arith") {
      // A constant is folded into its uses (fp8 ones fill fp8 tiles).
      if (isa<arith::ConstantOp>(op))
        return;
      for (Type type :
           llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes())) {
        Type element = getElementTypeOrSelf(type);
        if (isLowerableElement(element))
          continue;
        InFlightDiagnostic diag =
            op->emitOpError()
            << "on " << element
            << " is not supported by jfac's lowering: arith ops take i1, i8, "
               "i16, i32, i64, index, f16, bf16, f32 and f64 elements";
        if (isa<FloatType>(element) && element.getIntOrFloatBitWidth() < 16)
          diag << " (8-bit and narrower floats are loaded, stored and "
                  "multiplied by jfa.async_dot/jfa.tc_dot only)";
        ok = false;
        return;
      }
      return;
    }
    const MathSupport *support = nullptr;
    for (const MathSupport &s : kMathSupport) {
      SmallVector<StringRef> names;
      s.ops.split(names, ' ');
      if (llvm::is_contained(names, name))
        support = &s;
    }
    auto listSupported = [&](InFlightDiagnostic &diag) {
      diag << "; jfac lowers these math ops:";
      for (const MathSupport &s : kMathSupport) {
        SmallVector<StringRef> names;
        s.ops.split(names, ' ');
        diag << (&s == &kMathSupport[0] ? " " : "; ") << llvm::join(names, ", ")
             << " (" << s.types << ")";
      }
    };
    if (!support) {
      InFlightDiagnostic diag =
          op->emitError()
          << "'" << op->getName()
          << "' is not supported by jfac's lowering (NVPTX has no "
             "instruction or library call for it)";
      listSupported(diag);
      diag << mathRewriteHint(name);
      ok = false;
      return;
    }
    for (Type type : op->getOperandTypes()) {
      Type element = getElementTypeOrSelf(type);
      if (support->takes(element))
        continue;
      InFlightDiagnostic diag =
          op->emitError() << "'" << op->getName() << "' on " << element
                          << " is not supported by jfac's lowering: it takes "
                          << support->types;
      ok = false;
      return;
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
    if (lowering)
      failed |= !checkUpstreamOps(getOperation());
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
