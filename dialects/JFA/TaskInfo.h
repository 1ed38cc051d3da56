//===- TaskInfo.h - warps owned by async tasks ------------------*- C++ -*-===//
#ifndef JFA_DIALECT_TASKINFO_H
#define JFA_DIALECT_TASKINFO_H

#include "JFA/JFAOps.h"

namespace jfa {

/// The warps a task runs on. Outside `jfa.async_tasks` the "task" is the
/// whole CTA.
struct TaskInfo {
  int64_t firstWarp = 0;
  int64_t numWarps = 0;
  /// Index among the kernel's tasks, -1 for the whole CTA.
  int64_t index = -1;
  std::optional<int32_t> registers;
  /// Copies of a `replicas(N)` task not yet expanded by jfa-replicate-tasks;
  /// firstWarp/numWarps describe the first copy, the others follow it.
  int64_t replicas = 1;

  int64_t firstThread() const { return firstWarp * 32; }
  int64_t numThreads() const { return numWarps * 32; }
  /// Named-barrier id for `jfa.task_barrier` (0 is the CTA-wide barrier).
  int64_t namedBarrierId() const { return index + 1; }
};

/// Lays out the tasks of `tasks` over the kernel's warps: consecutive, in
/// program order, the default task taking what the others leave. Fails
/// (without diagnostics) if the warps do not add up.
mlir::FailureOr<llvm::SmallVector<TaskInfo>>
computeTaskLayout(AsyncTasksOp tasks);

/// The task that executes `op`.
TaskInfo getEnclosingTask(mlir::Operation *op);

} // namespace jfa

#endif // JFA_DIALECT_TASKINFO_H
