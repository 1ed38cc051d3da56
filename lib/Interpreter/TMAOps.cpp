//===- TMAOps.cpp - jfa-interp's TMA copies -------------------------------===//
//
// The handlers of the TMA loads (multicast to a cluster's CTAs too) and
// stores (cp.async.bulk.tensor) and of the wait for the stores, the box a
// copy moves, and the bulk copy of a slot into a peer CTA's
// (jfa.copy_to_cta).
//===----------------------------------------------------------------------===//
#include "lib/Interpreter/CTARun.h"
#include "lib/Interpreter/OpHandlers.h"

using namespace mlir;

namespace jfa::interp {

void CTARun::forEachBoxElement(const RtValue &desc, const RtValue &slot,
                               ArrayRef<int64_t> coords,
                               function_ref<void(double &, int64_t)> fn) {
  ArgState &arg = argOf(desc);
  auto type = cast<TensorDescType>(desc.type);
  BufferState &buf = buffers[slot.id];
  int64_t rows = coords.size() == 2 ? type.getBoxShape()[0] : 1;
  // The slot's width: a blocked slot takes one box per column block, the
  // boxes side by side in the tensor; a column block's view (`column` stored
  // columns into its slot) takes one.
  int64_t cols = cast<SlotType>(slot.type).getStoredShape().back();
  int64_t row0 = coords.size() == 2 ? coords[0] : 0;
  int64_t col0 = coords.back();
  int64_t gcols = arg.dims.back();
  int64_t grows = arg.dims.size() == 2 ? arg.dims[0] : 1;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      int64_t gr = row0 + r, gc = col0 + c;
      bool inside = gr >= 0 && gr < grows && gc >= 0 && gc < gcols;
      fn(buf.data[(slot.index * buf.rows + slot.row + r) * buf.cols + c +
                  slot.column],
         inside ? gr * gcols + gc : -1);
    }
}

static SmallVector<int64_t, 2> boxCoords(CTARun &run, Executor &e,
                                         Operation *op, ValueRange coords) {
  SmallVector<int64_t, 2> out;
  for (Value c : coords)
    out.push_back(run.intScalar(e, op, c));
  return out;
}

/// The copy writes the slot when the barrier's current phase completes:
/// the write belongs to that phase, so reading it needs a wait on it. A
/// multicast copy does so in each CTA of its mask: the slot and the barrier
/// at the same places there, each write belonging to that CTA's barrier's
/// phase (whose expect may come after the bytes: a phase completes once
/// its arrivals are made and its transaction count is back at zero).
static void tmaLoad(CTARun &run, Executor &e, TMALoadOp op) {
  RtValue desc = run.get(e, op.getDesc());
  RtValue slot = run.get(e, op.getSlot());
  int b = run.get(e, op.getBarrier()).id;
  ArgState &arg = run.argOf(desc);
  SmallVector<int64_t, 2> coords = boxCoords(run, e, op, op.getCoords());
  uint64_t mask = run.multicastMask(e, op, op.getMulticast());
  int64_t bytes = cast<SlotType>(slot.type).getBytes();
  ++e.stats.tmaLoads;
  e.stats.tmaLoadBytes += bytes;
  // A pair's load (`on cta`) completes on this CTA's or its peer's barrier.
  std::optional<int> barrierCta;
  if (op.getCta()) {
    int rank = run.peerRank(e, op, op.getCta(), "completes on a barrier of");
    if (rank != e.ctaRank && rank != (e.ctaRank ^ 1))
      run.fail(op, "completes on a barrier of " + run.ctaName(int(rank)) +
                       " from " + run.ctaName(e.ctaRank) +
                       ": a pair's load signals its own CTA or its pair peer "
                       "(rank xor 1)");
    barrierCta = int(rank);
  }
  for (int rank = 0; rank < run.clusterSize; ++rank) {
    if (!(mask >> rank & 1))
      continue;
    RtValue dst = slot;
    dst.id = run.peerBuffer(slot.id, rank);
    int db = run.peerBarrier(b, barrierCta.value_or(rank));
    BufferState &buf = run.buffers[dst.id];
    Access write{run.barrierComp(db), run.barriers[db].completed + 1, op, e.id};
    run.writeSlotRows(e, op, dst, 0, run.slotRows(dst), e.lvc, write, false);
    // Out-of-bounds parts of the box are zero-filled.
    run.forEachBoxElement(desc, dst, coords, [&](double &x, int64_t g) {
      x = g < 0 ? 0.0 : roundTo(buf.elem, arg.load(g));
    });
    run.completeTx(op, db, bytes);
  }
}

static void tmaStore(CTARun &run, Executor &e, TMAStoreOp op) {
  RtValue slot = run.get(e, op.getSlot());
  RtValue desc = run.get(e, op.getDesc());
  ArgState &arg = run.argOf(desc);
  SmallVector<int64_t, 2> coords = boxCoords(run, e, op, op.getCoords());
  ++e.stats.tmaStores;
  e.stats.tmaStoreBytes += cast<SlotType>(slot.type).getBytes();
  // The bulk copy reads the slot asynchronously.
  ++e.storesIssued;
  VC view = e.lvc;
  view[run.storeComp(e)] = uint32_t(e.storesIssued);
  Access read{run.storeComp(e), uint32_t(e.storesIssued), op, e.id};
  run.readSlotRows(e, op, slot, 0, run.slotRows(slot), view, read, true);
  // Out-of-bounds parts of the box are not written.
  bool add = op.getAdd();
  run.forEachBoxElement(desc, slot, coords, [&](double &x, int64_t g) {
    if (g >= 0)
      arg.store(g, add ? double(float(arg.load(g) + x)) : x);
  });
  ++e.lvc[run.leaderComp(e)];
}

static void tmaStoreWait(CTARun &run, Executor &e, TMAStoreWaitOp op) {
  int64_t done = e.storesIssued - int64_t(op.getPending());
  // The bulk groups are the issuing thread's: the others learn of their
  // completion through a barrier.
  if (done > 0)
    e.lvc[run.storeComp(e)] = std::max(e.lvc[run.storeComp(e)], uint32_t(done));
}

/// jfa.copy_to_cta: the async proxy reads the slot here and writes its bytes
/// at the slot's place in CTA %cta, completing them on the barrier at %bar's
/// place there (as a TMA load does). Both accesses belong to that barrier's
/// current phase: the receiver reads the slot after a wait on it, and the
/// sender may write its own slot again only once the receiver has told it
/// so (an arrival on a barrier here after its wait): the copy is in no bulk
/// group, and its completion shows on the peer's barrier alone.
static void copyToCta(CTARun &run, Executor &e, CopyToCtaOp op) {
  RtValue src = run.get(e, op.getSrc());
  RtValue dst = run.get(e, op.getDst());
  int b = run.get(e, op.getBarrier()).id;
  int rank = run.peerRank(e, op, op.getCta(), "copies into");
  dst.id = run.peerBuffer(dst.id, rank);
  int db = run.peerBarrier(b, rank);
  auto type = cast<SlotType>(src.type);
  Access access{run.barrierComp(db), run.barriers[db].completed + 1, op, e.id};
  int64_t rows = run.slotRows(src);
  int64_t cols = type.getShape().size() == 2 ? type.getShape()[1] : 1;
  run.readSlotRows(e, op, src, 0, rows, e.lvc, access, true);
  run.writeSlotRows(e, op, dst, 0, rows, e.lvc, access, false);
  // The same type on both sides (the verifier's): element by element is
  // byte by byte.
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      run.slotElem(dst, r, c) = run.slotElem(src, r, c);
  run.completeTx(op, db, type.getBytes());
  ++e.lvc[run.leaderComp(e)];
}

/// An L2 prefetch changes nothing a thread can see: only its operands are
/// evaluated (--stats counts it in the op table).
static void tmaPrefetch(CTARun &run, Executor &e, TMAPrefetchOp op) {
  run.get(e, op.getDesc());
  boxCoords(run, e, op, op.getCoords());
}

void registerTMAHandlers(OpHandlerTable &table) {
  table.add<TMALoadOp>(tmaLoad);
  table.add<TMAStoreOp>(tmaStore);
  table.add<TMAStoreWaitOp>(tmaStoreWait);
  table.add<TMAPrefetchOp>(tmaPrefetch);
  table.add<CopyToCtaOp>(copyToCta);
}

} // namespace jfa::interp
