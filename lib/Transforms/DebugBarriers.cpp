//===- DebugBarriers.cpp - bounded barrier waits that report and trap -----===//
//
// `jfac compile --debug-barriers`: a deadlocked kernel hangs the GPU and says
// nothing. Here every jfa.barrier_wait becomes a spin of single probes
// bounded by %globaltimer; when the budget (seconds, far beyond any healthy
// wait) runs out, the thread reports the wait and traps:
//
//   %entered = activemask                  // the lanes entering the wait
//   %start = nvvm.read.ptx.sreg.globaltimer
//   scf.while (%done = false) {
//     scf.condition(!vote.sync.all(%entered, %done)) %done
//   } do {
//     %done' = %done ? true : {
//       %ready = jfa.barrier_try_wait %b, %phase
//       if (!%ready && globaltimer - %start > budget)
//         jfa.debug_trap "<kernel, wait location, barrier array> ..." (...)
//       %ready }
//   }
//   nvvm.bar.warp.sync %entered
//
// The code after a wait assumes converged warps: a task barrier
// (`bar.sync id, n`) is `barrier.sync.aligned`, as are wgmma and setmaxnreg,
// and a half-warp at `bar.sync 1, 128` counts as the whole warp. A spin that
// each lane leaves when its own probe succeeds lets the lanes of a warp
// leave at different probes, and since the spin's other exit ends in a trap,
// the loop has no post-dominator where ptxas would make the warp converge
// again (and ptxas drops a bar.warp.sync after it as redundant). The barrier
// before a TMA store then opened while half a warp had not written its share
// of the staging slot, and the store sent stale rows: results changed, with
// no error (issue 24, rowstats_sm90 on the H200). So a lane whose probe
// succeeds stops probing and the warp leaves the loop only when a vote says
// every lane that entered is done: all of them leave at the same iteration.
//
// Runs after jfa-lower-async-tasks (the waits are then where they execute)
// and before jfa-convert-to-llvm, which lowers the two debug ops.
//
//===----------------------------------------------------------------------===//
#include "lib/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace jfa {
#define GEN_PASS_DEF_JFADEBUGBARRIERS
#include "lib/Transforms/Passes.h.inc"
} // namespace jfa

using namespace mlir;
using namespace jfa;

namespace {

/// `file:line:col` of the first file location in `loc`, or "unknown".
std::string formatLocation(Location loc) {
  std::string text = "unknown location";
  loc->walk([&](Location nested) {
    if (auto file = dyn_cast<FileLineColLoc>(nested)) {
      text = (file.getFilename().getValue() + ":" + Twine(file.getLine()) +
              ":" + Twine(file.getColumn()))
                 .str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return text;
}

/// printf treats '%' as a conversion: file names and kernel names may hold
/// one.
std::string escapePercent(StringRef text) {
  std::string escaped;
  for (char c : text) {
    escaped += c;
    if (c == '%')
      escaped += '%';
  }
  return escaped;
}

Value toI32(OpBuilder &b, Location loc, Value v) {
  Type i32 = b.getI32Type();
  if (v.getType().isIndex())
    return arith::IndexCastOp::create(b, loc, i32, v);
  auto type = cast<IntegerType>(v.getType());
  if (type.getWidth() > 32)
    return arith::TruncIOp::create(b, loc, i32, v);
  if (type.getWidth() < 32)
    return arith::ExtUIOp::create(b, loc, i32, v);
  return v;
}

struct DebugBarriers : jfa::impl::JFADebugBarriersBase<DebugBarriers> {
  using JFADebugBarriersBase::JFADebugBarriersBase;

  void runOnOperation() override {
    SmallVector<BarrierWaitOp> waits;
    bool waitOutsideKernel = false;
    getOperation().walk([&](BarrierWaitOp wait) {
      // The report names the kernel: a wait still in a device helper (before
      // jfa-inline-helpers, as jfac runs it) has none.
      if (!wait->getParentOfType<KernelOp>()) {
        wait.emitOpError("is not in a kernel: jfa-debug-barriers needs "
                         "helpers inlined first (jfa-inline-helpers, which "
                         "jfac runs)");
        waitOutsideKernel = true;
        return;
      }
      waits.push_back(wait);
    });
    if (waitOutsideKernel)
      return signalPassFailure();
    for (BarrierWaitOp wait : waits)
      rewrite(wait);
  }

  void rewrite(BarrierWaitOp wait) {
    Location loc = wait.getLoc();
    OpBuilder b(wait);
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    auto kernel = wait->getParentOfType<KernelOp>();

    // What the report names: the barrier array (by the location of its
    // jfa.alloc_barriers; SSA names do not survive parsing) and the index.
    std::string array = "an untraced barrier";
    Value index;
    if (auto barrier = wait.getBarrier().getDefiningOp<BarrierOp>()) {
      Operation *alloc = barrier.getBarriers().getDefiningOp();
      array = "barrier array allocated at " +
              formatLocation(alloc ? alloc->getLoc() : barrier.getLoc());
      index = toI32(b, loc, barrier.getIndex());
    } else {
      index = arith::ConstantIntOp::create(b, loc, i32, -1);
    }
    // The runtime's error after a trap (barrierTrapMessage in
    // runtime/src/Runtime.cpp) quotes this line's start: keep them in step.
    std::string format =
        "jfa: kernel " + escapePercent(kernel.getSymName()) +
        ": barrier wait at " + escapePercent(formatLocation(loc)) +
        " timed out after " + std::to_string(timeoutMs) +
        " ms: " + escapePercent(array) +
        ", index %d, waiting for phase parity %d; block (%d, %d, %d), warp "
        "%d; trapping\n";

    // The lanes that enter the wait together (see the header).
    Value entered =
        LLVM::InlineAsmOp::create(
            b, loc, i32, ValueRange{}, "activemask.b32 $0;", "=r",
            /*has_side_effects=*/true, /*is_align_stack=*/false,
            LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr())
            .getResult(0);
    Value start = NVVM::GlobalTimerOp::create(b, loc, i64);
    Value budget = arith::ConstantIntOp::create(
        b, loc, i64, int64_t(timeoutMs) * 1000 * 1000);
    // A lane that sees the phase complete stops probing, and the warp leaves
    // the loop only when every lane that entered has (a vote): all of them
    // leave at the same iteration, converged.
    Type i1 = b.getI1Type();
    Value notYet = arith::ConstantIntOp::create(b, loc, i1, 0);
    auto loop = scf::WhileOp::create(b, loc, TypeRange{i1}, ValueRange{notYet});
    {
      Block *before = b.createBlock(&loop.getBefore(), {}, {i1}, {loc});
      b.setInsertionPointToStart(before);
      Value done = before->getArgument(0);
      Value all = NVVM::VoteSyncOp::create(b, loc, i1, entered, done,
                                           NVVM::VoteSyncKind::all);
      Value more = arith::XOrIOp::create(
          b, loc, all, arith::ConstantIntOp::create(b, loc, i1, 1));
      scf::ConditionOp::create(b, loc, more, ValueRange{done});
    }
    {
      Block *after = b.createBlock(&loop.getAfter(), {}, {i1}, {loc});
      b.setInsertionPointToStart(after);
      Value done = after->getArgument(0);
      auto ifDone = scf::IfOp::create(b, loc, TypeRange{i1}, done,
                                      /*withElseRegion=*/true);
      b.setInsertionPointToStart(ifDone.thenBlock());
      scf::YieldOp::create(b, loc, done);
      b.setInsertionPointToStart(ifDone.elseBlock());
      Value ready = BarrierTryWaitOp::create(
          b, loc, wait.getBarrier(), wait.getPhase(), wait.getAcquireCluster());
      // Unsigned difference: correct across a wrap of the timer.
      Value now = NVVM::GlobalTimerOp::create(b, loc, i64);
      Value elapsed = arith::SubIOp::create(b, loc, now, start);
      Value late = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                         elapsed, budget);
      Value stuck = arith::AndIOp::create(
          b, loc, late,
          arith::XOrIOp::create(b, loc, ready,
                                arith::ConstantIntOp::create(b, loc, i1, 1)));
      auto ifLate = scf::IfOp::create(b, loc, stuck, /*withElse=*/false);
      b.setInsertionPointToStart(ifLate.thenBlock());
      Value warp =
          arith::DivUIOp::create(b, loc, ThreadIdOp::create(b, loc, i32),
                                 arith::ConstantIntOp::create(b, loc, i32, 32));
      SmallVector<Value> args = {index,
                                 wait.getPhase(),
                                 ProgramIdOp::create(b, loc, Dim::x),
                                 ProgramIdOp::create(b, loc, Dim::y),
                                 ProgramIdOp::create(b, loc, Dim::z),
                                 warp};
      DebugTrapOp::create(b, loc, b.getStringAttr(format), args);
      b.setInsertionPointAfter(ifLate);
      scf::YieldOp::create(b, loc, ready);
      b.setInsertionPointToEnd(after);
      scf::YieldOp::create(b, loc, ifDone.getResult(0));
    }
    b.setInsertionPointAfter(loop);
    NVVM::SyncWarpOp::create(b, loc, entered);
    wait.erase();
  }
};

} // namespace
