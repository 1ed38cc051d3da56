//===- DebugBarriers.cpp - bounded barrier waits that report and trap -----===//
//
// `jfac compile --debug-barriers`: a deadlocked kernel hangs the GPU and says
// nothing. Here every jfa.barrier_wait becomes a spin of single probes
// bounded by %globaltimer; when the budget (seconds, far beyond any healthy
// wait) runs out, the thread reports the wait and traps:
//
//   %start = nvvm.read.ptx.sreg.globaltimer
//   scf.while {
//     %ready = jfa.barrier_try_wait %b, %phase
//     scf.condition(!%ready)
//   } do {
//     if (globaltimer - %start > budget)
//       jfa.debug_trap "<kernel, wait location, barrier array> ..." (...)
//   }
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
    getOperation().walk([&](BarrierWaitOp wait) { waits.push_back(wait); });
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

    Value start = NVVM::GlobalTimerOp::create(b, loc, i64);
    Value budget = arith::ConstantIntOp::create(
        b, loc, i64, int64_t(timeoutMs) * 1000 * 1000);
    auto loop = scf::WhileOp::create(b, loc, TypeRange{}, ValueRange{});
    {
      Block *before = b.createBlock(&loop.getBefore());
      b.setInsertionPointToStart(before);
      Value ready =
          BarrierTryWaitOp::create(b, loc, wait.getBarrier(), wait.getPhase());
      Value notReady = arith::XOrIOp::create(
          b, loc, ready, arith::ConstantIntOp::create(b, loc, 1, 1));
      scf::ConditionOp::create(b, loc, notReady, ValueRange{});
    }
    {
      Block *after = b.createBlock(&loop.getAfter());
      b.setInsertionPointToStart(after);
      // Unsigned difference: correct across a wrap of the timer.
      Value now = NVVM::GlobalTimerOp::create(b, loc, i64);
      Value elapsed = arith::SubIOp::create(b, loc, now, start);
      Value late = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                         elapsed, budget);
      auto ifLate = scf::IfOp::create(b, loc, late, /*withElse=*/false);
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
      b.setInsertionPointToEnd(after);
      scf::YieldOp::create(b, loc);
    }
    wait.erase();
  }
};

} // namespace
