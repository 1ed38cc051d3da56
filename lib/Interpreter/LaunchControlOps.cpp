//===- LaunchControlOps.cpp - jfa-interp's cluster launch control --------===//
//
// jfa.try_cancel and jfa.query_cancel (sm_100a clusterlaunchcontrol). The
// interpreter runs clusters one after another in launch order, so a
// request cancels the next cluster that has not run (Interpreter::
// cancelNextCluster), which then never runs: the running CTAs take all the
// work, one of the orders the hardware may produce. The 16-byte response
// is, in this model, four i32 rows: taken (1 or 0) and the first cancelled
// CTA's program ids; only jfa.query_cancel may read it (any other read is
// an error: on the GPU the 16 bytes are opaque).
//===----------------------------------------------------------------------===//
#include "lib/Interpreter/CTARun.h"
#include "lib/Interpreter/OpHandlers.h"

using namespace mlir;

namespace jfa::interp {

/// The response is an async write (like a TMA copy) into the slot of every
/// CTA of the cluster, belonging to each one's barrier's phase, with 16
/// transaction bytes on that barrier.
static void tryCancel(CTARun &run, Executor &e, TryCancelOp op) {
  if (Operation *seen = run.cancelFailureSeenAt[e.ctaRank])
    run.fail(op,
             "asks to cancel again after this CTA saw a request cancel "
             "nothing; the hardware does not allow it: end the loop at the "
             "first response whose jfa.query_cancel says not taken",
             seen, "where the CTA saw it");
  RtValue slot = run.get(e, op.getResponse());
  int b = run.get(e, op.getBarrier()).id;
  std::optional<std::array<int64_t, 3>> taken = run.interp.cancelNextCluster();
  std::array<int64_t, 3> ids = taken.value_or(std::array<int64_t, 3>{0, 0, 0});
  double response[4] = {taken ? 1.0 : 0.0, double(ids[0]), double(ids[1]),
                        double(ids[2])};
  for (int rank = 0; rank < run.clusterSize; ++rank) {
    RtValue dst = slot;
    dst.id = run.peerBuffer(slot.id, rank);
    int db = run.peerBarrier(b, rank);
    Access write{run.barrierComp(db), run.barriers[db].completed + 1, op, e.id};
    run.writeSlotRows(e, op, dst, 0, run.slotRows(dst), e.lvc, write, false);
    for (int64_t r = 0; r < 4; ++r)
      run.slotElem(dst, r, 0) = response[r];
    run.completeTx(op, db, 16);
  }
}

static void queryCancel(CTARun &run, Executor &e, QueryCancelOp op) {
  RtValue slot = run.get(e, op.getResponse());
  run.readSlotRows(e, op, slot, 0, 4, e.vc, run.genericAccess(e, op), false);
  double taken = run.slotElem(slot, 0, 0);
  if (taken != 0 && taken != 1)
    run.fail(op, "reads a response that no jfa.try_cancel wrote");
  if (taken == 0 && !run.cancelFailureSeenAt[e.ctaRank])
    run.cancelFailureSeenAt[e.ctaRank] = op;
  run.set(e, op.getTaken(),
          run.makeData(run.newScalar(op.getTaken().getType(), taken)));
  Value ids[3] = {op.getX(), op.getY(), op.getZ()};
  for (int i = 0; i < 3; ++i)
    run.set(e, ids[i],
            run.makeData(
                run.newScalar(ids[i].getType(), run.slotElem(slot, i + 1, 0))));
}

void registerLaunchControlHandlers(OpHandlerTable &table) {
  table.add<TryCancelOp>(tryCancel);
  table.add<QueryCancelOp>(queryCancel);
}

} // namespace jfa::interp
