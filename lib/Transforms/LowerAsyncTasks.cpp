//===- LowerAsyncTasks.cpp - warp specialization
//----------------------------===//
//
// After this pass no op depends on which task encloses it: single-thread ops
// are predicated on their task's first thread, task barriers name their
// hardware barrier and thread count, and tasks are branches on the warp index.
//
//===----------------------------------------------------------------------===//
#include "JFA/TaskInfo.h"
#include "lib/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

#include <limits>

namespace jfa {
#define GEN_PASS_DEF_JFALOWERASYNCTASKS
#include "lib/Transforms/Passes.h.inc"
} // namespace jfa

using namespace mlir;
using namespace jfa;

namespace {

Value constI32(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
}

/// The per-thread register count the kernel starts with when tasks re-budget
/// registers: the whole register file of the target (else the smallest of
/// any target) shared evenly, a multiple of 8 (what setmaxnreg counts in),
/// at most the target's per-thread cap rounded down to 8 (248 of 255).
int64_t entryRegisters(const Target *target, int64_t threads) {
  int64_t file = std::numeric_limits<int64_t>::max(), cap = file;
  for (const Target &t : kTargets) {
    if (target && &t != target)
      continue;
    file = std::min(file, t.registersPerSM);
    cap = std::min(cap, t.maxRegistersPerThread);
  }
  return std::min<int64_t>(cap / 8 * 8, (file / threads) / 8 * 8);
}

struct LowerAsyncTasks : jfa::impl::JFALowerAsyncTasksBase<LowerAsyncTasks> {
  void predicateSingleThreadOps(KernelOp kernel) {
    SmallVector<Operation *> ops;
    kernel.walk([&](Operation *op) {
      if (op->hasTrait<SingleThreadIssue>())
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      TaskInfo task = getEnclosingTask(op);
      OpBuilder b(op);
      Location loc = op->getLoc();
      Value tid = ThreadIdOp::create(b, loc);
      Value leader =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                constI32(b, loc, task.firstThread()));
      auto ifOp = scf::IfOp::create(b, loc, leader, /*withElseRegion=*/false);
      op->moveBefore(ifOp.thenBlock()->getTerminator());
    }
  }

  /// Each task that issued TMA stores waits for them to finish reading shared
  /// memory before it ends, so the CTA never exits under a running store.
  void drainTMAStores(KernelOp kernel) {
    auto drain = [&](Block &block) {
      bool stores = false;
      block.walk([&](TMAStoreOp) { stores = true; });
      if (!stores)
        return;
      OpBuilder b = OpBuilder::atBlockEnd(&block);
      if (!block.empty() && block.back().hasTrait<OpTrait::IsTerminator>())
        b.setInsertionPoint(&block.back());
      TMAStoreWaitOp::create(b, kernel.getLoc(), 0);
    };
    bool hasTasks = false;
    kernel.walk([&](TaskOp task) {
      hasTasks = true;
      drain(task.getBody().front());
    });
    if (!hasTasks)
      drain(kernel.getBodyBlock());
  }

  void lowerTaskLocalOps(KernelOp kernel) {
    kernel.walk([&](Operation *op) {
      if (!isa<TaskBarrierOp, TaskThreadIdOp>(op))
        return;
      TaskInfo task = getEnclosingTask(op);
      OpBuilder b(op);
      if (isa<TaskBarrierOp>(op)) {
        NamedBarrierSyncOp::create(b, op->getLoc(), task.namedBarrierId(),
                                   task.numThreads());
        op->erase();
        return;
      }
      Value tid = ThreadIdOp::create(b, op->getLoc());
      Value local = arith::SubIOp::create(
          b, op->getLoc(), tid, constI32(b, op->getLoc(), task.firstThread()));
      op->getResult(0).replaceAllUsesWith(local);
      op->erase();
    });
  }

  void lowerTasks(KernelOp kernel, AsyncTasksOp tasks) {
    auto layout = computeTaskLayout(tasks);
    assert(succeeded(layout) && "verified");
    auto taskOps = llvm::to_vector(tasks.getBody().front().getOps<TaskOp>());
    int64_t entry =
        entryRegisters(getModuleTarget(getOperation()), kernel.getNumThreads());
    bool budgets = llvm::any_of(
        *layout, [](const TaskInfo &t) { return t.registers.has_value(); });
    if (budgets)
      kernel->getContext()
          ->getLoadedDialect<JFADialect>()
          ->getEntryRegistersAttrHelper()
          .setAttr(kernel, OpBuilder(kernel).getI32IntegerAttr(entry));

    OpBuilder b(tasks);
    Location loc = tasks.getLoc();
    // warp = tid / 32, the same in every lane of a warp.
    Value warp = arith::DivUIOp::create(b, loc, ThreadIdOp::create(b, loc),
                                        constI32(b, loc, 32));
    for (auto [i, pair] : llvm::enumerate(llvm::zip(taskOps, *layout))) {
      auto [task, info] = pair;
      Block *body = &task.getBody().front();
      // The last task runs on the warps left over: no test needed.
      bool last = i + 1 == taskOps.size();
      scf::IfOp ifOp;
      if (!last) {
        Value lo =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, warp,
                                  constI32(b, loc, info.firstWarp));
        Value hi = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::ult, warp,
            constI32(b, loc, info.firstWarp + info.numWarps));
        Value inTask = arith::AndIOp::create(b, loc, lo, hi);
        ifOp = scf::IfOp::create(b, loc, inTask, /*withElseRegion=*/true);
        b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      }
      if (info.registers && *info.registers != entry) {
        auto action = *info.registers > entry
                          ? NVVM::SetMaxRegisterAction::increase
                          : NVVM::SetMaxRegisterAction::decrease;
        NVVM::SetMaxRegisterOp::create(b, task.getLoc(), *info.registers,
                                       action);
      }
      // Move the task's ops to the branch.
      while (!body->empty())
        body->front().moveBefore(b.getInsertionBlock(), b.getInsertionPoint());
      if (ifOp)
        b.setInsertionPoint(ifOp.elseBlock()->getTerminator());
    }
    tasks.erase();
  }

  /// Tensor memory is freed when every task is done with it: a CTA barrier at
  /// the end of the kernel, then warp 0 deallocates.
  void freeTensorMemory(KernelOp kernel) {
    auto allocs = llvm::to_vector(kernel.getBodyBlock().getOps<TmemAllocOp>());
    if (allocs.empty())
      return;
    OpBuilder b = OpBuilder::atBlockEnd(&kernel.getBodyBlock());
    NamedBarrierSyncOp::create(b, kernel.getLoc(), 0, kernel.getNumThreads());
    // A pair product writes the peer's tensor memory too: neither CTA frees
    // its columns (cta_group::2, with the peer) before both are done.
    if (findPairProduct(kernel)) {
      ClusterArriveOp::create(b, kernel.getLoc());
      ClusterWaitOp::create(b, kernel.getLoc());
    }
    for (auto alloc : allocs)
      TmemDeallocOp::create(b, kernel.getLoc(), alloc);
  }

  void runOnOperation() override {
    if (failed(verifyTasksExpanded(getOperation(), "jfa-lower-async-tasks")))
      return signalPassFailure();
    for (auto kernel : getOperation().getOps<KernelOp>()) {
      freeTensorMemory(kernel);
      drainTMAStores(kernel);
      predicateSingleThreadOps(kernel);
      lowerTaskLocalOps(kernel);
      for (auto tasks : llvm::make_early_inc_range(
               kernel.getBodyBlock().getOps<AsyncTasksOp>()))
        lowerTasks(kernel, tasks);
    }
  }
};
} // namespace
