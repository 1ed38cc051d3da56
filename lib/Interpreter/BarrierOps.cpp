//===- BarrierOps.cpp - jfa-interp's barriers and fences ------------------===//
//
// The handlers of the mbarrier ops, the named barriers, the cluster
// barrier and the proxy fence; the barriers' state and the happens-before
// they carry are in HappensBefore.cpp.
//===----------------------------------------------------------------------===//
#include "lib/Interpreter/CTARun.h"
#include "lib/Interpreter/OpHandlers.h"

using namespace mlir;

namespace jfa::interp {

static void allocBarriers(CTARun &run, Executor &e, AllocBarriersOp op) {
  RtValue r;
  r.kind = RtValue::Barriers;
  r.id = run.barrierBaseOf.lookup(op) + e.ctaRank * run.barriersPerCta;
  r.index = cast<BarrierArrayType>(op.getType()).getSize();
  r.type = op.getType();
  run.set(e, op.getResult(), r);
}

static void barrier(CTARun &run, Executor &e, BarrierOp op) {
  RtValue array = run.get(e, op.getBarriers());
  int64_t index = run.intScalar(e, op, op.getIndex());
  run.checkIndex(op, index, array.index, "barrier");
  RtValue r;
  r.kind = RtValue::Barrier;
  r.id = int(array.id + index);
  r.type = op.getType();
  run.set(e, op.getResult(), r);
}

/// The issuing thread's arrival with the transaction bytes it expects.
static void barrierExpect(CTARun &run, Executor &e, BarrierExpectOp op) {
  int b = run.get(e, op.getBarrier()).id;
  run.barriers[b].tx += int64_t(op.getBytes());
  run.arrive(e, op, b, 1, e.lvc);
  ++e.lvc[run.leaderComp(e)];
}

/// Every thread of the executor arrives, with `on cta` on the barrier at
/// the same place in a peer CTA: it releases what the threads know there.
static void barrierArrive(CTARun &run, Executor &e, BarrierArriveOp op) {
  int b = run.get(e, op.getBarrier()).id;
  if (Value cta = op.getCta())
    b = run.peerBarrier(b, run.peerRank(e, op, cta, "arrives on"));
  run.arrive(e, op, b, e.numThreads, run.releaseView(e));
  run.tickAll(e);
}

static void barrierWait(CTARun &run, Executor &e, BarrierWaitOp op) {
  int b = run.get(e, op.getBarrier()).id;
  int64_t parity = run.intScalar(e, op, op.getPhase());
  if (parity != 0 && parity != 1)
    run.fail(op, "waits for phase parity " + Twine(parity) +
                     "; a parity is 0 or 1");
  ++e.stats.mbarrierWaits;
  if (!run.phaseDone(b, parity))
    ++e.stats.mbarrierWaitsBlocked;
  run.block(
      e, op, [&] { return run.phaseDone(b, parity); },
      [&run, b, parity] { return run.describeWait(b, parity); });
  run.acquirePhase(e, b, parity);
}

static void barrierTryWait(CTARun &run, Executor &e, BarrierTryWaitOp op) {
  int b = run.get(e, op.getBarrier()).id;
  int64_t parity = run.intScalar(e, op, op.getPhase());
  bool ready = (parity == 0 || parity == 1) && run.phaseDone(b, parity);
  ++e.stats.mbarrierWaits;
  if (ready)
    run.acquirePhase(e, b, parity);
  else {
    ++e.stats.mbarrierWaitsBlocked;
    run.yieldToScheduler(e); // a spin: let the others move
  }
  run.set(e, op.getReady(),
          run.makeData(run.newScalar(op.getType(), ready ? 1 : 0)));
}

static void clusterArrive(CTARun &run, Executor &e, ClusterArriveOp op) {
  run.clusterBarrierStep(e, op, false);
}

static void clusterWait(CTARun &run, Executor &e, ClusterWaitOp op) {
  run.clusterBarrierStep(e, op, true);
}

static void taskBarrier(CTARun &run, Executor &e, TaskBarrierOp op) {
  // The task's named barrier (0 is the CTA's).
  run.namedBarrier(e, op, e.taskIndex + 1, e.taskThreads, true);
}

static void namedBarrierSync(CTARun &run, Executor &e, NamedBarrierSyncOp op) {
  run.namedBarrier(e, op, op.getId(), op.getThreads(), true);
}

static void namedBarrierArrive(CTARun &run, Executor &e,
                               NamedBarrierArriveOp op) {
  run.namedBarrier(e, op, op.getId(), op.getThreads(), false);
}

/// Orders the threads' earlier generic-proxy writes before the async
/// proxy's later accesses: remembered as the clocks at the fence.
static void fenceAsyncShared(CTARun &run, Executor &e, FenceAsyncSharedOp) {
  e.fences.push_back(e.vc[run.execComp(e)]);
  e.leaderFences.push_back(e.lvc[run.leaderComp(e)]);
  run.tickAll(e);
}

/// The global-memory fences order accesses between CTAs (a TMA store's
/// writes, then a counter another CTA reads). The interpreter runs CTAs one
/// after another on memory that is always current, so they change nothing
/// it can see.
static void fenceAsyncGlobal(CTARun &, Executor &, FenceAsyncGlobalOp) {}
static void fenceGpu(CTARun &, Executor &, FenceGpuOp) {}

void registerBarrierHandlers(OpHandlerTable &table) {
  table.add<AllocBarriersOp>(allocBarriers);
  table.add<BarrierOp>(barrier);
  table.add<BarrierExpectOp>(barrierExpect);
  table.add<BarrierArriveOp>(barrierArrive);
  table.add<BarrierWaitOp>(barrierWait);
  table.add<BarrierTryWaitOp>(barrierTryWait);
  table.add<TaskBarrierOp>(taskBarrier);
  table.add<NamedBarrierSyncOp>(namedBarrierSync);
  table.add<NamedBarrierArriveOp>(namedBarrierArrive);
  table.add<ClusterArriveOp>(clusterArrive);
  table.add<ClusterWaitOp>(clusterWait);
  table.add<FenceAsyncSharedOp>(fenceAsyncShared);
  table.add<FenceAsyncGlobalOp>(fenceAsyncGlobal);
  table.add<FenceGpuOp>(fenceGpu);
}

} // namespace jfa::interp
