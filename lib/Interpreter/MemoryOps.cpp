//===- MemoryOps.cpp - jfa-interp's shared and global memory --------------===//
//
// The handlers of the shared-memory ops (buffers, slots and their views,
// loads and stores of register tiles, layout conversions through scratch)
// and of the global-memory ops that do not go through TMA.
//===----------------------------------------------------------------------===//
#include "lib/Interpreter/CTARun.h"
#include "lib/Interpreter/OpHandlers.h"

using namespace mlir;

namespace jfa::interp {

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

static void localAlloc(CTARun &run, Executor &e, LocalAllocOp op) {
  RtValue r;
  r.kind = RtValue::Buffer;
  r.id = run.bufferOf.lookup(op) + e.ctaRank * run.buffersPerCta;
  r.type = op.getType();
  run.set(e, op.getResult(), r);
}

static void slot(CTARun &run, Executor &e, SlotOp op) {
  RtValue buffer = run.get(e, op.getBuffer());
  int64_t index = run.intScalar(e, op, op.getIndex());
  run.checkIndex(op, index, run.buffers[buffer.id].numSlots, "slot");
  RtValue r = buffer;
  r.kind = RtValue::Slot;
  r.index = index;
  r.type = op.getType();
  run.set(e, op.getResult(), r);
}

static void columnBlock(CTARun &run, Executor &e, ColumnBlockOp op) {
  RtValue r = run.get(e, op.getSlot());
  int64_t index = run.intScalar(e, op, op.getIndex());
  run.checkIndex(op, index, op.getSlot().getType().getColumnBlocks(),
                 "column block");
  r.column += index * op.getType().getShape()[1];
  r.type = op.getType();
  run.set(e, op.getResult(), r);
}

/// Rows [i * R, i * R + R) of the slot: the view starts i * R stored rows
/// further in (the verifier keeps it to untransposed slots).
static void rowBlock(CTARun &run, Executor &e, RowBlockOp op) {
  RtValue r = run.get(e, op.getSlot());
  int64_t rows = op.getType().getShape()[0];
  int64_t index = run.intScalar(e, op, op.getIndex());
  run.checkIndex(op, index, op.getSlot().getType().getShape()[0] / rows,
                 "row block");
  r.row += index * rows;
  r.type = op.getType();
  run.set(e, op.getResult(), r);
}

static void transpose(CTARun &run, Executor &e, TransposeOp op) {
  RtValue r = run.get(e, op.getSlot());
  r.type = op.getType();
  run.set(e, op.getResult(), r);
}

/// The slot a register tile moves through: this CTA's, or with `on cta
/// %rank` the one at its place in CTA %rank (distributed shared memory).
/// The peer's rows keep their access history like local ones: a read of
/// what another CTA stored there needs a wait that orders the store before
/// it (the writers' arrival on a barrier the reader waits on).
static RtValue tileSlot(CTARun &run, Executor &e, Operation *op, Value slot,
                        Value cta, const char *verb) {
  RtValue r = run.get(e, slot);
  if (cta)
    r.id = run.peerBuffer(r.id, run.peerRank(e, op, cta, verb));
  return r;
}

/// Every thread reads what it holds; the tile is the whole slot.
static void localLoad(CTARun &run, Executor &e, LocalLoadOp op) {
  RtValue slot = tileSlot(run, e, op, op.getSlot(), op.getCta(), "loads from");
  TileP t = run.newTile(op.getType());
  auto [lo, hi] = run.ownedRows(e, op, t->layout, t->rows());
  auto [slo, shi] = run.slotRowsTouched(slot, lo, hi);
  run.readSlotRows(e, op, slot, slo, shi, e.vc, run.genericAccess(e, op),
                   false);
  for (int64_t r = 0; r < t->rows(); ++r)
    for (int64_t c = 0; c < t->cols(); ++c)
      t->v[r * t->cols() + c] = run.slotElem(slot, r, c);
  run.set(e, op.getResult(), run.makeData(t));
}

static void localStore(CTARun &run, Executor &e, LocalStoreOp op) {
  const Tile &t = run.data(e, op, op.getValue());
  RtValue slot = tileSlot(run, e, op, op.getSlot(), op.getCta(), "stores into");
  auto [lo, hi] = run.ownedRows(e, op, t.layout, t.rows());
  auto [slo, shi] = run.slotRowsTouched(slot, lo, hi);
  run.writeSlotRows(e, op, slot, slo, shi, e.vc, run.genericAccess(e, op),
                    true);
  Type elem = run.buffers[slot.id].elem;
  for (int64_t r = lo; r < hi; ++r)
    for (int64_t c = 0; c < t.cols(); ++c)
      run.slotElem(slot, r, c) = roundTo(elem, t.v[r * t.cols() + c]);
}

/// Through the scratch slot, as the lowering does: each thread stores what
/// it holds, the task synchronizes (when it has several warpgroups), each
/// thread loads what it holds in the new layout, and the task synchronizes
/// again before the scratch is reused.
static void convertLayout(CTARun &run, Executor &e, ConvertLayoutOp op) {
  const Tile &in = run.data(e, op, op.getValue());
  RtValue slot = run.get(e, op.getScratch());
  TileP out = run.newTile(op.getType());
  auto [lo, hi] = run.ownedRows(e, op, in.layout, in.rows());
  run.writeSlotRows(e, op, slot, lo, hi, e.vc, run.genericAccess(e, op), true);
  for (int64_t r = lo; r < hi; ++r)
    for (int64_t c = 0; c < in.cols(); ++c)
      run.slotElem(slot, r, c) = in.v[r * in.cols() + c];
  int64_t id = e.taskIndex + 1;
  if (e.numWg > 1)
    run.namedBarrier(e, op, id, e.taskThreads, true);
  auto [olo, ohi] = run.ownedRows(e, op, out->layout, out->rows());
  run.readSlotRows(e, op, slot, olo, ohi, e.vc, run.genericAccess(e, op),
                   false);
  for (int64_t r = 0; r < out->rows(); ++r)
    for (int64_t c = 0; c < out->cols(); ++c)
      out->v[r * out->cols() + c] = run.slotElem(slot, r, c);
  if (e.numWg > 1)
    run.namedBarrier(e, op, id, e.taskThreads, true);
  run.set(e, op.getResult(), run.makeData(out));
}

/// The per-thread forms: the interpreter runs kernels as written.
static void distributedForm(CTARun &run, Executor &, Operation *op) {
  run.fail(op, "'" + op->getName().getStringRef() +
                   "' is the per-thread form jfa-distribute-tiles makes; "
                   "run jfa-interp on the kernel as written");
}

static void loadScalar(CTARun &run, Executor &e, LoadScalarOp op) {
  RtValue slot = run.get(e, op.getSlot());
  BufferState &buf = run.buffers[slot.id];
  int64_t index = run.intScalar(e, op, op.getIndex());
  int64_t elements = run.slotRows(slot) * buf.cols;
  if (index < 0 || index >= elements)
    run.fail(op, "reads element " + Twine(index) + " of a slot of " +
                     Twine(elements) + " elements");
  int64_t r = index / buf.cols, c = index % buf.cols;
  run.readSlotRows(e, op, slot, r, r + 1, e.vc, run.genericAccess(e, op),
                   false);
  run.set(e, op.getResult(),
          run.makeData(run.newScalar(op.getType(), run.slotElem(slot, r, c))));
}

//===----------------------------------------------------------------------===//
// Global memory
//===----------------------------------------------------------------------===//

void CTARun::checkGlobal(Operation *op, const RtValue &ptr, int64_t index,
                         const char *verb) {
  ArgState &arg = argOf(ptr);
  if (index < 0 || index >= arg.numElements())
    fail(op, Twine(op->getName().getStringRef()) + " " + verb + " element " +
                 Twine(index) + " of argument " + Twine(ptr.id) + " (" +
                 arg.name + ", " + arg.path + "), which has " +
                 Twine(arg.numElements()) + " elements");
}

/// A per-thread index reads per thread.
static void load(CTARun &run, Executor &e, LoadOp op) {
  RtValue ptr = run.get(e, op.getPtr());
  const Tile &index = run.data(e, op, op.getIndex());
  TileP out = run.newScalar(op.getType(), 0.0);
  out->varying = index.varying;
  out->v.resize(index.v.size());
  for (auto [i, at] : llvm::enumerate(index.v)) {
    run.checkGlobal(op, ptr, int64_t(at), "reads");
    out->v[i] = roundTo(out->elem, run.argOf(ptr).load(int64_t(at)));
  }
  run.set(e, op.getResult(), run.makeData(out));
}

/// Each thread its value at its index; threads may write one element only
/// with one value (the hardware keeps any one of them).
static void store(CTARun &run, Executor &e, StoreOp op) {
  RtValue ptr = run.get(e, op.getPtr());
  const Tile &value = run.data(e, op, op.getValue());
  const Tile &index = run.data(e, op, op.getIndex());
  size_t n = std::max(value.v.size(), index.v.size());
  llvm::SmallDenseMap<int64_t, double> written;
  for (size_t i = 0; i < n; ++i) {
    int64_t at = int64_t(index.v.size() == 1 ? index.v[0] : index.v[i]);
    double x = value.v.size() == 1 ? value.v[0] : value.v[i];
    run.checkGlobal(op, ptr, at, "writes");
    auto [it, fresh] = written.try_emplace(at, x);
    if (!fresh && it->second != x)
      run.fail(op, "threads " + Twine(e.firstThread) + ".." +
                       Twine(e.firstThread + int64_t(n) - 1) +
                       " write different values (" + formatNumber(it->second) +
                       " and " + formatNumber(x) + ") to element " + Twine(at) +
                       " of argument " + Twine(ptr.id) + " (" +
                       run.argOf(ptr).name + ")");
    run.argOf(ptr).store(at, x);
  }
}

static void atomicFetchAdd(CTARun &run, Executor &e, AtomicFetchAddOp op) {
  RtValue counter = run.get(e, op.getCounter());
  int64_t index = run.intScalar(e, op, op.getIndex());
  run.checkGlobal(op, counter, index, "updates");
  // CTAs run one after another here, so the first takes every unit a
  // dynamic schedule hands out: one of the orders a GPU may produce.
  ArgState &arg = run.argOf(counter);
  int64_t old = int64_t(arg.load(index));
  int64_t sum = old + run.intScalar(e, op, op.getValue());
  arg.store(index, double(int32_t(uint32_t(sum))));
  RtValue slot = run.get(e, op.getSlot());
  int b = run.get(e, op.getBarrier()).id;
  run.writeSlotRows(e, op, slot, 0, 1, e.lvc, run.leaderAccess(e, op), true);
  run.slotElem(slot, 0, 0) = double(old);
  run.arrive(e, op, b, 1, e.lvc);
  ++e.lvc[run.leaderComp(e)];
  // `and cta`: the same store and arrival at the slot's and the barrier's
  // places in the peer, the arrival releasing the store there.
  if (Value cta = op.getCta()) {
    int rank = run.peerRank(e, op, cta, "writes into");
    RtValue peer = slot;
    peer.id = run.peerBuffer(slot.id, rank);
    run.writeSlotRows(e, op, peer, 0, 1, e.lvc, run.leaderAccess(e, op), true);
    run.slotElem(peer, 0, 0) = double(old);
    run.arrive(e, op, run.peerBarrier(b, rank), 1, e.lvc);
    ++e.lvc[run.leaderComp(e)];
  }
}

static void loadRows(CTARun &run, Executor &e, LoadRowsOp op) {
  RtValue ptr = run.get(e, op.getPtr());
  int64_t offset = run.intScalar(e, op, op.getOffset());
  int64_t count = run.intScalar(e, op, op.getCount());
  TileP out = run.newTile(op.getType());
  for (int64_t r = 0; r < std::min(out->rows(), count); ++r) {
    run.checkGlobal(op, ptr, offset + r, "reads");
    out->v[r] = roundTo(out->elem, run.argOf(ptr).load(offset + r));
  }
  run.set(e, op.getResult(), run.makeData(out));
}

static void loadCols(CTARun &run, Executor &e, LoadColsOp op) {
  RtValue source = run.get(e, op.getSource());
  int64_t offset = run.intScalar(e, op, op.getOffset());
  TileP out = run.newTile(op.getType());
  int64_t count =
      op.getCount() ? run.intScalar(e, op, op.getCount()) : out->cols();
  int64_t read = std::min(out->cols(), count); // columns [0, read)
  auto broadcast = [&](int64_t c, double x) {
    x = roundTo(out->elem, x);
    for (int64_t r = 0; r < out->rows(); ++r)
      out->v[r * out->cols() + c] = x;
  };
  if (isa<SlotType>(op.getSource().getType())) {
    BufferState &buf = run.buffers[source.id];
    int64_t elements = run.slotRows(source) * buf.cols;
    int64_t end = offset + read;
    if (end > offset && (offset < 0 || end > elements))
      run.fail(op, "jfa.load_cols reads elements [" + Twine(offset) + ", " +
                       Twine(end) + ") of a slot of " + Twine(elements) +
                       " elements");
    if (end > offset)
      run.readSlotRows(e, op, source, offset / buf.cols,
                       (end - 1) / buf.cols + 1, e.vc, run.genericAccess(e, op),
                       false);
    for (int64_t c = 0; c < read; ++c)
      broadcast(c, run.slotElem(source, (offset + c) / buf.cols,
                                (offset + c) % buf.cols));
  } else {
    for (int64_t c = 0; c < read; ++c) {
      run.checkGlobal(op, source, offset + c, "reads");
      broadcast(c, run.argOf(source).load(offset + c));
    }
  }
  run.set(e, op.getResult(), run.makeData(out));
}

static void storeRows(CTARun &run, Executor &e, StoreRowsOp op) {
  const Tile &in = run.data(e, op, op.getValue());
  RtValue ptr = run.get(e, op.getPtr());
  int64_t offset = run.intScalar(e, op, op.getOffset());
  int64_t count = run.intScalar(e, op, op.getCount());
  auto [lo, hi] = run.ownedRows(e, op, in.layout, in.rows());
  if (op.getFirst())
    lo = std::max(lo, run.intScalar(e, op, op.getFirst()));
  for (int64_t r = lo; r < std::min(hi, count); ++r) {
    run.checkGlobal(op, ptr, offset + r, "writes");
    run.argOf(ptr).store(offset + r, in.v[r]);
  }
}

static void storeTile(CTARun &run, Executor &e, StoreTileOp op) {
  const Tile &in = run.data(e, op, op.getValue());
  RtValue ptr = run.get(e, op.getPtr());
  int64_t offset = run.intScalar(e, op, op.getOffset());
  int64_t stride = run.intScalar(e, op, op.getRowStride());
  int64_t count = run.intScalar(e, op, op.getCount());
  auto [lo, hi] = run.ownedRows(e, op, in.layout, in.rows());
  hi = std::min(hi, count);
  if (op.getFirst()) // rows [first, count) only
    lo = std::max(lo, run.intScalar(e, op, op.getFirst()));
  // The accesses the lowering emits, from the same function: runs of
  // `width` columns of one row, starting at a multiple of `width` columns,
  // each aligned to its size. The tensor starts aligned (cudaMalloc), so a
  // run is aligned when its first element index is a multiple of `width`.
  auto tile = cast<RankedTensorType>(op.getValue().getType());
  int64_t bytes = getElementBytes(tile.getElementType());
  int64_t width = getStoreTileVectorWidth(getTileLayout(tile), tile.getShape(),
                                          e.taskThreads, bytes, op.getAdd());
  for (int64_t r = lo; r < hi; ++r) {
    int64_t first = offset + r * stride;
    if (first % width != 0)
      run.fail(op, "jfa.store_tile stores runs of " + Twine(width) +
                       " elements, so its offset (" + Twine(offset) +
                       ") and row stride (" + Twine(stride) +
                       ") must be multiples of " + Twine(width) + ": row " +
                       Twine(r) + " starts at element " + Twine(first) +
                       ", not aligned to its run's " + Twine(width * bytes) +
                       " bytes (the GPU faults on a misaligned address)");
  }
  ArgState &arg = run.argOf(ptr);
  for (int64_t r = lo; r < hi; ++r)
    for (int64_t c = 0; c < in.cols(); ++c) {
      int64_t index = offset + r * stride + c;
      run.checkGlobal(op, ptr, index, "writes");
      double x = in.v[r * in.cols() + c];
      if (op.getAdd())
        x = double(float(arg.load(index) + x));
      arg.store(index, x);
    }
}

void registerMemoryHandlers(OpHandlerTable &table) {
  table.add<LocalAllocOp>(localAlloc);
  table.add<SlotOp>(slot);
  table.add<ColumnBlockOp>(columnBlock);
  table.add<RowBlockOp>(rowBlock);
  table.add<TransposeOp>(transpose);
  table.add<LocalLoadOp>(localLoad);
  table.add<LocalStoreOp>(localStore);
  table.add<ConvertLayoutOp>(convertLayout);
  table.addForEach<LoadFragmentOp, StoreFragmentOp, WarpgroupDotOp>(
      distributedForm);
  table.add<LoadScalarOp>(loadScalar);
  table.add<LoadOp>(load);
  table.add<StoreOp>(store);
  table.add<AtomicFetchAddOp>(atomicFetchAdd);
  table.add<LoadRowsOp>(loadRows);
  table.add<LoadColsOp>(loadCols);
  table.add<StoreRowsOp>(storeRows);
  table.add<StoreTileOp>(storeTile);
}

} // namespace jfa::interp
