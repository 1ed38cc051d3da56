//===- ScalarOps.cpp - jfa-interp's ids and scalars -----------------------===//
//
// The handlers of the ops that make scalars: program, cluster and thread
// ids, ring positions; and the debug trap.
//===----------------------------------------------------------------------===//
#include "lib/Interpreter/CTARun.h"
#include "lib/Interpreter/OpHandlers.h"

using namespace mlir;

namespace jfa::interp {

static void programId(CTARun &run, Executor &e, ProgramIdOp op) {
  double id = double(e.ctaId[int(op.getDim())]);
  run.set(e, op.getResult(), run.makeData(run.newScalar(op.getType(), id)));
}

static void clusterRank(CTARun &run, Executor &e, ClusterRankOp op) {
  run.set(e, op.getResult(),
          run.makeData(run.newScalar(op.getType(), double(e.ctaRank))));
}

static void clusterId(CTARun &run, Executor &e, ClusterIdOp op) {
  int d = int(op.getDim());
  double id = double(e.ctaId[d] / run.interp.clusterDims[d]);
  run.set(e, op.getResult(), run.makeData(run.newScalar(op.getType(), id)));
}

static void numPrograms(CTARun &run, Executor &e, NumProgramsOp op) {
  double n = double(run.interp.options.grid[int(op.getDim())]);
  run.set(e, op.getResult(), run.makeData(run.newScalar(op.getType(), n)));
}

/// jfa.thread_id and jfa.task_thread_id: one value per thread.
static void threadId(CTARun &run, Executor &e, Operation *op) {
  auto t = std::make_shared<Tile>();
  t->elem = op->getResult(0).getType();
  t->varying = true;
  int64_t base =
      isa<ThreadIdOp>(op) ? e.firstThread : e.firstThread - e.taskFirstThread;
  for (int64_t i = 0; i < e.numThreads; ++i)
    t->v.push_back(double(base + i));
  run.set(e, op->getResult(0), run.makeData(t));
}

static void ringPosition(CTARun &run, Executor &e, RingPositionOp op) {
  uint64_t n = asUnsigned(run.scalar(e, op, op.getIndex()), 32);
  uint64_t stages = op.getStages();
  run.set(
      e, op.getSlot(),
      run.makeData(run.newScalar(op.getSlot().getType(), double(n % stages))));
  run.set(e, op.getPhase(),
          run.makeData(run.newScalar(op.getPhase().getType(),
                                     double((n / stages) % 2))));
}

static void debugTrap(CTARun &run, Executor &, DebugTrapOp op) {
  run.fail(op, "jfa.debug_trap: " + op.getFormat());
}

void registerScalarHandlers(OpHandlerTable &table) {
  table.add<ProgramIdOp>(programId);
  table.add<ClusterRankOp>(clusterRank);
  table.add<ClusterIdOp>(clusterId);
  table.add<NumProgramsOp>(numPrograms);
  table.addForEach<ThreadIdOp, TaskThreadIdOp>(threadId);
  table.add<RingPositionOp>(ringPosition);
  table.add<DebugTrapOp>(debugTrap);
}

} // namespace jfa::interp
