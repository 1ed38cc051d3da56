//===- TaskInfo.cpp - warps owned by async tasks
//----------------------------===//
#include "JFA/TaskInfo.h"

using namespace mlir;

namespace jfa {

FailureOr<SmallVector<TaskInfo>> computeTaskLayout(AsyncTasksOp tasks) {
  auto kernel = tasks->getParentOfType<KernelOp>();
  int64_t totalWarps = kernel.getNumWarps();
  int64_t claimed = 0;
  int defaults = 0;
  for (auto task : tasks.getBody().front().getOps<TaskOp>()) {
    if (task.getIsDefault())
      ++defaults;
    else if (task.getNumWarps())
      claimed += *task.getNumWarps() * task.getNumReplicas();
  }
  if (defaults > 1 || claimed > totalWarps ||
      (defaults == 0 && claimed != totalWarps) ||
      (defaults == 1 && claimed == totalWarps))
    return failure();

  SmallVector<TaskInfo> layout;
  int64_t nextWarp = 0;
  for (auto task : tasks.getBody().front().getOps<TaskOp>()) {
    TaskInfo info;
    info.firstWarp = nextWarp;
    info.numWarps = task.getIsDefault()
                        ? totalWarps - claimed
                        : int64_t(task.getNumWarps().value_or(0));
    info.index = layout.size();
    if (auto regs = task.getRegisters())
      info.registers = int32_t(*regs);
    info.replicas = task.getNumReplicas();
    nextWarp += info.numWarps * info.replicas;
    layout.push_back(info);
  }
  return layout;
}

TaskInfo getEnclosingTask(Operation *op) {
  if (auto task = op->getParentOfType<TaskOp>()) {
    auto tasks = cast<AsyncTasksOp>(task->getParentOp());
    auto layout = computeTaskLayout(tasks);
    if (succeeded(layout)) {
      int64_t i = 0;
      for (auto sibling : tasks.getBody().front().getOps<TaskOp>()) {
        if (sibling == task)
          return (*layout)[i];
        ++i;
      }
    }
  }
  TaskInfo whole;
  if (auto kernel = op->getParentOfType<KernelOp>())
    whole.numWarps = kernel.getNumWarps();
  return whole;
}

} // namespace jfa
