//===- ReplicateTasks.cpp - expand replicated tasks ----------------------===//
//
// `jfa.task warps(4) replicas(2) { %g = jfa.replica_id : i32 ... }` is two
// tasks of 4 warps written once (FA3's consumer warpgroups, TLX's
// async_task(replicate=N)). Copy r replaces jfa.replica_id by r, so every
// later pass, the barrier checker's arrive counts included, sees the tasks
// as if they had been written out.
//
//===----------------------------------------------------------------------===//
#include "JFA/TaskInfo.h"
#include "lib/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace jfa {
#define GEN_PASS_DEF_JFAREPLICATETASKS
#include "lib/Transforms/Passes.h.inc"
} // namespace jfa

using namespace mlir;
using namespace jfa;

namespace {

void setReplicaIds(TaskOp task, int64_t replica) {
  task.walk([&](ReplicaIdOp id) {
    OpBuilder builder(id);
    Value constant = arith::ConstantOp::create(
        builder, id.getLoc(), builder.getIntegerAttr(id.getType(), replica));
    id.replaceAllUsesWith(constant);
    id.erase();
  });
}

struct ReplicateTasksPass
    : jfa::impl::JFAReplicateTasksBase<ReplicateTasksPass> {
  void runOnOperation() override {
    getOperation().walk([](TaskOp task) {
      int64_t replicas = task.getNumReplicas();
      task.removeReplicasAttr();
      OpBuilder builder(task);
      builder.setInsertionPointAfter(task);
      for (int64_t r = 1; r < replicas; ++r) {
        auto copy = cast<TaskOp>(builder.clone(*task.getOperation()));
        setReplicaIds(copy, r);
        builder.setInsertionPointAfter(copy);
      }
      setReplicaIds(task, 0);
    });
  }
};

} // namespace

LogicalResult jfa::verifyTasksExpanded(Operation *root, StringRef pass) {
  WalkResult result = root->walk([&](TaskOp task) {
    if (!task.getReplicas())
      return WalkResult::advance();
    task.emitError() << pass
                     << " needs replicated tasks expanded first "
                        "(jfa-replicate-tasks, which jfac runs)";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}
