//===- Ops.cpp - jfa-interp's jfa ops ---------------------------------------===//
//
// Tensor memory, global memory and the handlers of the jfa ops.
//===----------------------------------------------------------------------===//
#include "lib/Interpreter/CTARun.h"

#include "JFA/TaskInfo.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace jfa::interp {

void CTARun::checkGlobal(Operation *op, const RtValue &ptr, int64_t index,
                         const char *verb) {
  ArgState &arg = argOf(ptr);
  if (index < 0 || index >= arg.numElements())
    fail(op, Twine(op->getName().getStringRef()) + " " + verb + " element " +
                 Twine(index) + " of argument " + Twine(ptr.id) + " (" +
                 arg.name + ", " + arg.path + "), which has " +
                 Twine(arg.numElements()) + " elements");
}

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
      fn(buf.data[(slot.index * buf.rows + r) * buf.cols + c + slot.column],
         inside ? gr * gcols + gc : -1);
    }
}

//===----------------------------------------------------------------------===//
// Tensor memory
//===----------------------------------------------------------------------===//

std::pair<int64_t, int64_t> CTARun::tmemColumns(Operation *op,
                                                const RtValue &t,
                                                int64_t firstElem,
                                                int64_t elems) {
  auto type = cast<TensorMemoryType>(t.type);
  int64_t bits = type.getElementType().getIntOrFloatBitWidth();
  if (firstElem < 0 || firstElem + elems > type.getShape()[1])
    fail(op, "accesses columns [" + Twine(firstElem) + ", " +
                 Twine(firstElem + elems) + ") of a tensor-memory tile of " +
                 Twine(type.getShape()[1]) + " columns");
  if (bits == 16 && firstElem % 2 != 0)
    fail(op, "accesses a 16-bit tensor-memory tile from column " +
                 Twine(firstElem) +
                 "; it packs two elements per 32-bit column, so the first "
                 "column must be even");
  int64_t lo = t.column + firstElem * bits / 32;
  int64_t hi = t.column + ((firstElem + elems) * bits + 31) / 32;
  return {lo, hi};
}

double CTARun::tmemLoad(const RtValue &t, int64_t r, int64_t c) {
  auto type = cast<TensorMemoryType>(t.type);
  Type elem = type.getElementType();
  if (elem.getIntOrFloatBitWidth() == 32) {
    uint32_t w = tmemWord(r, t.column + c);
    float f;
    std::memcpy(&f, &w, 4);
    return f;
  }
  uint32_t w = tmemWord(r, t.column + c / 2);
  uint16_t bits = uint16_t(w >> (16 * (c % 2)));
  return elem.isBF16() ? fromBF16Bits(bits) : fromF16Bits(bits);
}

void CTARun::tmemStore(const RtValue &t, int64_t r, int64_t c, double x) {
  auto type = cast<TensorMemoryType>(t.type);
  Type elem = type.getElementType();
  if (elem.getIntOrFloatBitWidth() == 32) {
    float f = float(x);
    std::memcpy(&tmemWord(r, t.column + c), &f, 4);
    return;
  }
  uint32_t &w = tmemWord(r, t.column + c / 2);
  uint32_t bits = elem.isBF16() ? bf16Bits(x) : f16Bits(x);
  int shift = 16 * (c % 2);
  w = (w & ~(0xffffu << shift)) | (bits << shift);
}

void CTARun::accessTmem(Executor &e, Operation *op, int64_t lo, int64_t hi,
                        bool write, const VC &view, Access self,
                        bool generic) {
  for (int64_t c = lo; c < hi; ++c) {
    std::string what = llvm::formatv("tensor-memory column {0}", c).str();
    if (write)
      checkWrite(e, op, tmemShadow[c], view, self, what, generic);
    else
      checkRead(e, op, tmemShadow[c], view, self, what, false);
  }
}

//===----------------------------------------------------------------------===//
// JFA ops
//===----------------------------------------------------------------------===//

void CTARun::execJFA(Executor &e, Operation *op) {
  auto &cta = interp.ctaId;
  const RunOptions &options = interp.options;
  Access self = genericAccess(e, op);

  auto slotIndexCheck = [&](Operation *at, int64_t index, int64_t size,
                            const char *what) {
    if (index < 0 || index >= size)
      fail(at, Twine(what) + " index " + Twine(index) +
                   " is out of bounds for " + Twine(size) + " " + what +
                   (size == 1 ? "" : "s"));
  };

  // A K-major operand of a tensor-core product, as [rows][k] values.
  auto operandRows = [&](const RtValue &v, int64_t lo, int64_t hi,
                         int64_t k) {
    std::vector<double> out((hi - lo) * k);
    if (v.kind == RtValue::Slot) {
      for (int64_t r = lo; r < hi; ++r)
        for (int64_t c = 0; c < k; ++c)
          out[(r - lo) * k + c] = slotElem(v, r, c);
    } else if (v.kind == RtValue::Tmem) {
      for (int64_t r = lo; r < hi; ++r)
        for (int64_t c = 0; c < k; ++c)
          out[(r - lo) * k + c] = tmemLoad(v, r, c);
    } else {
      const Tile &t = *v.data;
      for (int64_t r = lo; r < hi; ++r)
        for (int64_t c = 0; c < k; ++c)
          out[(r - lo) * k + c] = t.v[r * t.cols() + c];
    }
    return out;
  };
  // acc[m][n] (+)= sum_k a[m][k] b[n][k], one fp32 rounding per 16 of K
  // (one MMA instruction).
  auto product = [](double *acc, const std::vector<double> &a,
                    const std::vector<double> &b, int64_t m, int64_t n,
                    int64_t k, int64_t accStride) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = acc[i * accStride + j];
        const double *ai = &a[i * k], *bj = &b[j * k];
        for (int64_t k0 = 0; k0 < k; k0 += 16) {
          double part = 0;
          for (int64_t x = k0; x < std::min(k, k0 + 16); ++x)
            part += ai[x] * bj[x];
          sum = double(float(sum + part));
        }
        acc[i * accStride + j] = sum;
      }
  };
  auto slotRowsTouched = [&](const RtValue &slot, int64_t lo, int64_t hi)
      -> std::pair<int64_t, int64_t> {
    if (cast<SlotType>(slot.type).getTransposed())
      return {0, buffers[slot.id].rows};
    return {lo, hi};
  };
  auto ptrIndexCheck = [&](const RtValue &ptr, int64_t index,
                           const char *verb) {
    checkGlobal(op, ptr, index, verb);
  };

  llvm::TypeSwitch<Operation *, void>(op)
      .Case<ProgramIdOp>([&](ProgramIdOp id) {
        set(e, id.getResult(),
            makeData(newScalar(id.getType(),
                               double(cta[int(id.getDim())]))));
      })
      .Case<NumProgramsOp>([&](NumProgramsOp n) {
        set(e, n.getResult(),
            makeData(newScalar(n.getType(),
                               double(options.grid[int(n.getDim())]))));
      })
      .Case<ThreadIdOp, TaskThreadIdOp>([&](Operation *) {
        auto t = std::make_shared<Tile>();
        t->elem = op->getResult(0).getType();
        t->varying = true;
        int64_t base = isa<ThreadIdOp>(op) ? e.firstThread
                                           : e.firstThread - e.taskFirstThread;
        for (int64_t i = 0; i < e.numThreads; ++i)
          t->v.push_back(double(base + i));
        set(e, op->getResult(0), makeData(t));
      })
      .Case<LocalAllocOp>([&](LocalAllocOp alloc) {
        RtValue r;
        r.kind = RtValue::Buffer;
        r.id = bufferOf.lookup(op);
        r.type = alloc.getType();
        set(e, alloc.getResult(), r);
      })
      .Case<AllocBarriersOp>([&](AllocBarriersOp alloc) {
        RtValue r;
        r.kind = RtValue::Barriers;
        r.id = barrierBaseOf.lookup(op);
        r.index = cast<BarrierArrayType>(alloc.getType()).getSize();
        r.type = alloc.getType();
        set(e, alloc.getResult(), r);
      })
      .Case<TmemAllocOp>([&](TmemAllocOp alloc) {
        RtValue r;
        r.kind = RtValue::Tmem;
        r.column = tmemColumnOf.lookup(op);
        r.type = alloc.getType();
        set(e, alloc.getResult(), r);
      })
      .Case<TmemSliceOp>([&](TmemSliceOp slice) {
        RtValue r = get(e, slice.getTmem());
        auto [lo, hi] = tmemColumns(op, r, int64_t(slice.getColumns()),
                                    cast<TensorMemoryType>(slice.getType())
                                        .getShape()[1]);
        (void)hi;
        r.column = lo;
        r.type = slice.getType();
        set(e, slice.getResult(), r);
      })
      .Case<TmemDeallocOp>([&](auto) {})
      .Case<SlotOp>([&](SlotOp s) {
        RtValue buffer = get(e, s.getBuffer());
        int64_t index = intScalar(e, op, s.getIndex());
        slotIndexCheck(op, index, buffers[buffer.id].numSlots, "slot");
        RtValue r = buffer;
        r.kind = RtValue::Slot;
        r.index = index;
        r.type = s.getType();
        set(e, s.getResult(), r);
      })
      .Case<ColumnBlockOp>([&](ColumnBlockOp cb) {
        RtValue r = get(e, cb.getSlot());
        SlotType slot = cb.getSlot().getType();
        int64_t index = intScalar(e, op, cb.getIndex());
        slotIndexCheck(op, index, slot.getColumnBlocks(), "column block");
        r.column += index * cb.getType().getShape()[1];
        r.type = cb.getType();
        set(e, cb.getResult(), r);
      })
      .Case<TransposeOp>([&](TransposeOp t) {
        RtValue r = get(e, t.getSlot());
        r.type = t.getType();
        set(e, t.getResult(), r);
      })
      .Case<BarrierOp>([&](BarrierOp b) {
        RtValue array = get(e, b.getBarriers());
        int64_t index = intScalar(e, op, b.getIndex());
        slotIndexCheck(op, index, array.index, "barrier");
        RtValue r;
        r.kind = RtValue::Barrier;
        r.id = int(array.id + index);
        r.type = b.getType();
        set(e, b.getResult(), r);
      })
      .Case<LocalLoadOp>([&](LocalLoadOp load) {
        RtValue slot = get(e, load.getSlot());
        TileP t = newTile(load.getType());
        auto [lo, hi] = ownedRows(e, op, t->layout, t->rows());
        auto [slo, shi] = slotRowsTouched(slot, lo, hi);
        readSlotRows(e, op, slot, slo, shi, e.vc, self, false);
        for (int64_t r = 0; r < t->rows(); ++r)
          for (int64_t c = 0; c < t->cols(); ++c)
            t->v[r * t->cols() + c] = slotElem(slot, r, c);
        set(e, load.getResult(), makeData(t));
      })
      .Case<LocalStoreOp>([&](LocalStoreOp store) {
        const Tile &t = data(e, op, store.getValue());
        RtValue slot = get(e, store.getSlot());
        auto [lo, hi] = ownedRows(e, op, t.layout, t.rows());
        auto [slo, shi] = slotRowsTouched(slot, lo, hi);
        writeSlotRows(e, op, slot, slo, shi, e.vc, self, true);
        for (int64_t r = lo; r < hi; ++r)
          for (int64_t c = 0; c < t.cols(); ++c)
            slotElem(slot, r, c) = roundTo(buffers[slot.id].elem,
                                           t.v[r * t.cols() + c]);
      })
      .Case<ConvertLayoutOp>([&](ConvertLayoutOp convert) {
        const Tile &in = data(e, op, convert.getValue());
        RtValue slot = get(e, convert.getScratch());
        TileP out = newTile(convert.getType());
        auto [lo, hi] = ownedRows(e, op, in.layout, in.rows());
        writeSlotRows(e, op, slot, lo, hi, e.vc, self, true);
        for (int64_t r = lo; r < hi; ++r)
          for (int64_t c = 0; c < in.cols(); ++c)
            slotElem(slot, r, c) = in.v[r * in.cols() + c];
        int64_t id = e.taskIndex + 1;
        if (e.numWg > 1)
          namedBarrier(e, op, id, e.taskThreads, true);
        auto [olo, ohi] = ownedRows(e, op, out->layout, out->rows());
        readSlotRows(e, op, slot, olo, ohi, e.vc, genericAccess(e, op),
                     false);
        for (int64_t r = 0; r < out->rows(); ++r)
          for (int64_t c = 0; c < out->cols(); ++c)
            out->v[r * out->cols() + c] = slotElem(slot, r, c);
        if (e.numWg > 1)
          namedBarrier(e, op, id, e.taskThreads, true);
        set(e, convert.getResult(), makeData(out));
      })
      .Case<LoadFragmentOp, StoreFragmentOp, WarpgroupDotOp>([&](auto) {
        fail(op, "'" + op->getName().getStringRef() +
                     "' is the per-thread form jfa-distribute-tiles makes; "
                     "run jfa-interp on the kernel as written");
      })
      .Case<TaskBarrierOp>([&](auto) {
        namedBarrier(e, op, e.taskIndex + 1, e.taskThreads, true);
      })
      .Case<NamedBarrierSyncOp>([&](NamedBarrierSyncOp sync) {
        namedBarrier(e, op, sync.getId(), sync.getThreads(), true);
      })
      .Case<NamedBarrierArriveOp>([&](NamedBarrierArriveOp arriveOp) {
        namedBarrier(e, op, arriveOp.getId(), arriveOp.getThreads(), false);
      })
      .Case<BarrierExpectOp>([&](BarrierExpectOp expect) {
        int b = get(e, expect.getBarrier()).id;
        barriers[b].tx += int64_t(expect.getBytes());
        arrive(e, op, b, 1, e.lvc);
        ++e.lvc[leaderComp(e)];
      })
      .Case<BarrierArriveOp>([&](BarrierArriveOp arriveOp) {
        int b = get(e, arriveOp.getBarrier()).id;
        arrive(e, op, b, e.numThreads, releaseView(e));
        tickAll(e);
      })
      .Case<BarrierWaitOp>([&](BarrierWaitOp wait) {
        int b = get(e, wait.getBarrier()).id;
        int64_t parity = intScalar(e, op, wait.getPhase());
        if (parity != 0 && parity != 1)
          fail(op, "waits for phase parity " + Twine(parity) +
                       "; a parity is 0 or 1");
        ++e.stats.mbarrierWaits;
        if (!phaseDone(b, parity))
          ++e.stats.mbarrierWaitsBlocked;
        block(
            e, op, [&] { return phaseDone(b, parity); },
            [this, b, parity] { return describeWait(b, parity); });
        acquirePhase(e, b, parity);
      })
      .Case<BarrierTryWaitOp>([&](BarrierTryWaitOp wait) {
        int b = get(e, wait.getBarrier()).id;
        int64_t parity = intScalar(e, op, wait.getPhase());
        bool ready = (parity == 0 || parity == 1) && phaseDone(b, parity);
        ++e.stats.mbarrierWaits;
        if (!ready)
          ++e.stats.mbarrierWaitsBlocked;
        if (ready)
          acquirePhase(e, b, parity);
        else
          yieldToScheduler(e); // a spin: let the others move
        set(e, wait.getReady(),
            makeData(newScalar(wait.getType(), ready ? 1 : 0)));
      })
      .Case<TMALoadOp>([&](TMALoadOp load) {
        RtValue desc = get(e, load.getDesc());
        RtValue slot = get(e, load.getSlot());
        int b = get(e, load.getBarrier()).id;
        ArgState &arg = argOf(desc);
        SmallVector<int64_t, 2> coords;
        for (Value c : load.getCoords())
          coords.push_back(intScalar(e, op, c));
        BufferState &buf = buffers[slot.id];
        Access write{barrierComp(b), barriers[b].completed + 1, op, e.id};
        writeSlotRows(e, op, slot, 0, buf.rows, e.lvc, write, false);
        forEachBoxElement(desc, slot, coords, [&](double &x, int64_t g) {
          x = g < 0 ? 0.0 : roundTo(buf.elem, arg.load(g));
        });
        int64_t bytes = cast<SlotType>(slot.type).getBytes();
        ++e.stats.tmaLoads;
        e.stats.tmaLoadBytes += bytes;
        completeTx(op, b, bytes);
      })
      .Case<TMAStoreOp>([&](TMAStoreOp store) {
        RtValue slot = get(e, store.getSlot());
        RtValue desc = get(e, store.getDesc());
        ArgState &arg = argOf(desc);
        SmallVector<int64_t, 2> coords;
        for (Value c : store.getCoords())
          coords.push_back(intScalar(e, op, c));
        ++e.stats.tmaStores;
        e.stats.tmaStoreBytes += cast<SlotType>(slot.type).getBytes();
        // The bulk copy reads the slot asynchronously.
        ++e.storesIssued;
        VC view = e.lvc;
        view[storeComp(e)] = uint32_t(e.storesIssued);
        Access read{storeComp(e), uint32_t(e.storesIssued), op, e.id};
        BufferState &buf = buffers[slot.id];
        readSlotRows(e, op, slot, 0, buf.rows, view, read, true);
        // Out-of-bounds parts of the box are not written.
        forEachBoxElement(desc, slot, coords, [&](double &x, int64_t g) {
          if (g >= 0)
            arg.store(g, store.getAdd() ? double(float(arg.load(g) + x)) : x);
        });
        ++e.lvc[leaderComp(e)];
      })
      .Case<TMAStoreWaitOp>([&](TMAStoreWaitOp wait) {
        int64_t done = e.storesIssued - int64_t(wait.getPending());
        // The bulk groups are the issuing thread's: the others learn of
        // their completion through a barrier.
        if (done > 0)
          e.lvc[storeComp(e)] = std::max(e.lvc[storeComp(e)], uint32_t(done));
      })
      .Case<FenceAsyncSharedOp>([&](auto) {
        e.fences.push_back(e.vc[execComp(e)]);
        e.leaderFences.push_back(e.lvc[leaderComp(e)]);
        tickAll(e);
      })
      .Case<AsyncDotOp>([&](AsyncDotOp dot) {
        RtValue a = get(e, dot.getA());
        RtValue b = get(e, dot.getB());
        RtValue accValue = get(e, dot.getAcc());
        const Tile &acc = *accValue.data;
        if (a.kind == RtValue::Data && a.data->wgmmaSeq > e.dotsDone)
          fail(op, "uses as A the result of a jfa.async_dot still in flight",
               a.data->dot, "the jfa.async_dot");
        int64_t m = acc.rows(), n = acc.cols();
        int64_t k = cast<SlotType>(b.type).getShape()[1];
        auto [lo, hi] = ownedRows(e, op, acc.layout, m);
        ++e.dotsIssued;
        ++e.stats.mmas;
        join(e.wgmmaVC, e.vc);
        e.wgmmaVC[wgmmaComp(e)] = uint32_t(e.dotsIssued);
        Access read{wgmmaComp(e), uint32_t(e.dotsIssued), op, e.id};
        if (a.kind == RtValue::Slot) {
          auto [slo, shi] = slotRowsTouched(a, lo, hi);
          readSlotRows(e, op, a, slo, shi, e.wgmmaVC, read, true);
        }
        readSlotRows(e, op, b, 0, buffers[b.id].rows, e.wgmmaVC, read, true);
        auto out = std::make_shared<Tile>(acc);
        std::vector<double> av = operandRows(a, lo, hi, k);
        std::vector<double> bv = operandRows(b, 0, n, k);
        product(&out->v[lo * n], av, bv, hi - lo, n, k, n);
        if (interp.options.nanCheck)
          checkProductNaN(op,
                          ArrayRef<double>(out->v).slice(lo * n, (hi - lo) * n),
                          hi - lo, n, lo, av, bv,
                          ArrayRef<double>(acc.v).slice(lo * n, (hi - lo) * n));
        out->wgmmaSeq = e.dotsIssued;
        out->dot = op;
        set(e, dot.getResult(), makeData(out));
      })
      .Case<AsyncDotWaitOp>([&](AsyncDotWaitOp wait) {
        e.dotsDone = std::max(e.dotsDone,
                              e.dotsIssued - int64_t(wait.getPending()));
        e.vc[wgmmaComp(e)] =
            std::max(e.vc[wgmmaComp(e)], uint32_t(e.dotsDone));
        e.lvc[wgmmaComp(e)] =
            std::max(e.lvc[wgmmaComp(e)], uint32_t(e.dotsDone));
        for (auto [result, value] :
             llvm::zip(wait.getResults(), wait.getValues()))
          set(e, result, get(e, value));
      })
      .Case<TcDotOp>([&](TcDotOp dot) {
        RtValue a = get(e, dot.getA());
        RtValue b = get(e, dot.getB());
        RtValue d = get(e, dot.getAcc());
        bool accumulate = scalar(e, op, dot.getAccumulate()) != 0;
        auto dType = cast<TensorMemoryType>(d.type);
        // N is B's rows; the accumulator may be wider (the rest is untouched).
        int64_t m = dType.getShape()[0];
        int64_t n = cast<SlotType>(b.type).getShape()[0];
        int64_t k = cast<SlotType>(b.type).getShape()[1];
        ++e.tcIssued;
        ++e.stats.mmas;
        join(e.tcVC, e.lvc);
        e.tcVC[tcComp(e)] = uint32_t(e.tcIssued);
        Access access{tcComp(e), uint32_t(e.tcIssued), op, e.id};
        if (a.kind == RtValue::Slot) {
          readSlotRows(e, op, a, 0, buffers[a.id].rows, e.tcVC, access, true);
        } else {
          auto [lo, hi] = tmemColumns(op, a, 0, k);
          accessTmem(e, op, lo, hi, false, e.tcVC, access, false);
        }
        readSlotRows(e, op, b, 0, buffers[b.id].rows, e.tcVC, access, true);
        auto [dlo, dhi] = tmemColumns(op, d, 0, n);
        if (accumulate)
          accessTmem(e, op, dlo, dhi, false, e.tcVC, access, false);
        accessTmem(e, op, dlo, dhi, true, e.tcVC, access, false);
        std::vector<double> av = operandRows(a, 0, m, k);
        std::vector<double> bv = operandRows(b, 0, n, k);
        std::vector<double> acc(m * n, 0.0);
        if (accumulate)
          for (int64_t r = 0; r < m; ++r)
            for (int64_t c = 0; c < n; ++c)
              acc[r * n + c] = tmemLoad(d, r, c);
        std::vector<double> before;
        if (interp.options.nanCheck && accumulate)
          before = acc;
        product(acc.data(), av, bv, m, n, k, n);
        if (interp.options.nanCheck)
          checkProductNaN(op, acc, m, n, 0, av, bv, before);
        for (int64_t r = 0; r < m; ++r)
          for (int64_t c = 0; c < n; ++c)
            tmemStore(d, r, c, acc[r * n + c]);
      })
      .Case<TcCommitOp>([&](TcCommitOp commit) {
        int b = get(e, commit.getBarrier()).id;
        VC view = e.tcVC;
        join(view, e.lvc);
        arrive(e, op, b, 1, view);
        ++e.lvc[leaderComp(e)];
      })
      .Case<TmemLoadOp>([&](TmemLoadOp load) {
        RtValue t = get(e, load.getTmem());
        int64_t column = intScalar(e, op, load.getColumn());
        TileP out = newTile(load.getType());
        auto [lo, hi] = tmemColumns(op, t, column, out->cols());
        accessTmem(e, op, lo, hi, false, e.vc, self, true);
        for (int64_t r = 0; r < out->rows(); ++r)
          for (int64_t c = 0; c < out->cols(); ++c)
            out->v[r * out->cols() + c] =
                roundTo(out->elem, tmemLoad(t, r, column + c));
        set(e, load.getResult(), makeData(out));
      })
      .Case<TmemStoreOp>([&](TmemStoreOp store) {
        const Tile &in = data(e, op, store.getValue());
        RtValue t = get(e, store.getTmem());
        int64_t column = intScalar(e, op, store.getColumn());
        auto [lo, hi] = tmemColumns(op, t, column, in.cols());
        accessTmem(e, op, lo, hi, true, e.vc, self, true);
        for (int64_t r = 0; r < in.rows(); ++r)
          for (int64_t c = 0; c < in.cols(); ++c)
            tmemStore(t, r, column + c, in.v[r * in.cols() + c]);
      })
      .Case<ReduceRowsOp>([&](ReduceRowsOp reduce) {
        const Tile &in = data(e, op, reduce.getInput());
        TileP out = newTile(reduce.getType());
        bool isMax = reduce.getKind() == ReduceKind::max;
        for (int64_t r = 0; r < in.rows(); ++r) {
          double acc = isMax ? -INFINITY : 0.0;
          for (int64_t c = 0; c < in.cols(); ++c) {
            double x = in.v[r * in.cols() + c];
            acc = isMax ? std::fmax(acc, x) : double(float(acc + x));
          }
          out->v[r] = roundTo(out->elem, acc);
        }
        set(e, reduce.getResult(), makeData(out));
      })
      .Case<BroadcastRowsOp>([&](BroadcastRowsOp broadcast) {
        const Tile &in = data(e, op, broadcast.getInput());
        TileP out = newTile(broadcast.getType());
        for (int64_t r = 0; r < out->rows(); ++r)
          for (int64_t c = 0; c < out->cols(); ++c)
            out->v[r * out->cols() + c] = in.v[r];
        set(e, broadcast.getResult(), makeData(out));
      })
      .Case<IotaOp>([&](IotaOp iota) {
        TileP out = newTile(iota.getType());
        bool rows = iota.getDim() == IotaDim::rows;
        for (int64_t r = 0; r < out->rows(); ++r)
          for (int64_t c = 0; c < out->cols(); ++c)
            out->v[r * out->cols() + c] = double(rows ? r : c);
        set(e, iota.getResult(), makeData(out));
      })
      .Case<MaskColsOp>([&](MaskColsOp mask) {
        const Tile &in = data(e, op, mask.getInput());
        const Tile &limit = data(e, op, mask.getLimit());
        double fill = scalar(e, op, mask.getFill());
        TileP out = newTile(mask.getType());
        for (int64_t r = 0; r < out->rows(); ++r)
          for (int64_t c = 0; c < out->cols(); ++c)
            out->v[r * out->cols() + c] = double(c) < limit.v[r]
                                              ? in.v[r * out->cols() + c]
                                              : fill;
        set(e, mask.getResult(), makeData(out));
      })
      .Case<RingPositionOp>([&](RingPositionOp ring) {
        uint64_t n = asUnsigned(scalar(e, op, ring.getIndex()), 32);
        uint64_t stages = ring.getStages();
        set(e, ring.getSlot(),
            makeData(newScalar(ring.getSlot().getType(),
                               double(n % stages))));
        set(e, ring.getPhase(),
            makeData(newScalar(ring.getPhase().getType(),
                               double((n / stages) % 2))));
      })
      .Case<LoadOp>([&](LoadOp load) {
        RtValue ptr = get(e, load.getPtr());
        // A per-thread index reads per thread.
        const Tile &index = data(e, op, load.getIndex());
        TileP out = newScalar(load.getType(), 0.0);
        out->varying = index.varying;
        out->v.resize(index.v.size());
        for (auto [i, at] : llvm::enumerate(index.v)) {
          ptrIndexCheck(ptr, int64_t(at), "reads");
          out->v[i] = roundTo(out->elem, argOf(ptr).load(int64_t(at)));
        }
        set(e, load.getResult(), makeData(out));
      })
      .Case<StoreOp>([&](StoreOp store) {
        RtValue ptr = get(e, store.getPtr());
        const Tile &value = data(e, op, store.getValue());
        const Tile &index = data(e, op, store.getIndex());
        size_t n = std::max(value.v.size(), index.v.size());
        // Threads may write one element only with one value (the hardware
        // keeps any one of them).
        llvm::SmallDenseMap<int64_t, double> written;
        for (size_t i = 0; i < n; ++i) {
          int64_t at = int64_t(index.v.size() == 1 ? index.v[0] : index.v[i]);
          double x = value.v.size() == 1 ? value.v[0] : value.v[i];
          ptrIndexCheck(ptr, at, "writes");
          auto [it, fresh] = written.try_emplace(at, x);
          if (!fresh && it->second != x)
            fail(op, "threads " + Twine(e.firstThread) + ".." +
                         Twine(e.firstThread + int64_t(n) - 1) +
                         " write different values (" +
                         formatNumber(it->second) + " and " + formatNumber(x) +
                         ") to element " + Twine(at) + " of argument " +
                         Twine(ptr.id) + " (" + argOf(ptr).name + ")");
          argOf(ptr).store(at, x);
        }
      })
      .Case<LoadScalarOp>([&](LoadScalarOp load) {
        RtValue slot = get(e, load.getSlot());
        BufferState &buf = buffers[slot.id];
        int64_t index = intScalar(e, op, load.getIndex());
        if (index < 0 || index >= buf.rows * buf.cols)
          fail(op, "reads element " + Twine(index) + " of a slot of " +
                       Twine(buf.rows * buf.cols) + " elements");
        int64_t r = index / buf.cols, c = index % buf.cols;
        readSlotRows(e, op, slot, r, r + 1, e.vc, self, false);
        set(e, load.getResult(),
            makeData(newScalar(load.getType(), slotElem(slot, r, c))));
      })
      .Case<AtomicFetchAddOp>([&](AtomicFetchAddOp add) {
        RtValue counter = get(e, add.getCounter());
        int64_t index = intScalar(e, op, add.getIndex());
        ptrIndexCheck(counter, index, "updates");
        // CTAs run one after another here, so the first takes every unit a
        // dynamic schedule hands out: one of the orders a GPU may produce.
        int64_t old = int64_t(argOf(counter).load(index));
        int64_t sum = old + intScalar(e, op, add.getValue());
        argOf(counter).store(index, double(int32_t(uint32_t(sum))));
        RtValue slot = get(e, add.getSlot());
        writeSlotRows(e, op, slot, 0, 1, e.lvc, leaderAccess(e, op), true);
        slotElem(slot, 0, 0) = double(old);
        arrive(e, op, get(e, add.getBarrier()).id, 1, e.lvc);
        ++e.lvc[leaderComp(e)];
      })
      .Case<LoadRowsOp>([&](LoadRowsOp load) {
        RtValue ptr = get(e, load.getPtr());
        int64_t offset = intScalar(e, op, load.getOffset());
        int64_t count = intScalar(e, op, load.getCount());
        TileP out = newTile(load.getType());
        for (int64_t r = 0; r < out->rows(); ++r) {
          if (r >= count)
            continue;
          ptrIndexCheck(ptr, offset + r, "reads");
          out->v[r] = roundTo(out->elem, argOf(ptr).load(offset + r));
        }
        set(e, load.getResult(), makeData(out));
      })
      .Case<StoreRowsOp>([&](StoreRowsOp store) {
        const Tile &in = data(e, op, store.getValue());
        RtValue ptr = get(e, store.getPtr());
        int64_t offset = intScalar(e, op, store.getOffset());
        int64_t count = intScalar(e, op, store.getCount());
        auto [lo, hi] = ownedRows(e, op, in.layout, in.rows());
        for (int64_t r = lo; r < std::min(hi, count); ++r) {
          ptrIndexCheck(ptr, offset + r, "writes");
          argOf(ptr).store(offset + r, in.v[r]);
        }
      })
      .Case<StoreTileOp>([&](StoreTileOp store) {
        const Tile &in = data(e, op, store.getValue());
        RtValue ptr = get(e, store.getPtr());
        int64_t offset = intScalar(e, op, store.getOffset());
        int64_t stride = intScalar(e, op, store.getRowStride());
        int64_t count = intScalar(e, op, store.getCount());
        auto [lo, hi] = ownedRows(e, op, in.layout, in.rows());
        // The vector stores the lowering emits (see the op's description).
        int64_t bytes = in.elem.getIntOrFloatBitWidth() / 8;
        int64_t width = store.getAdd() ? 1
                        : isa_and_nonnull<TmemRowLayoutAttr>(in.layout)
                            ? std::max<int64_t>(1, 16 / bytes)
                        : isa_and_nonnull<WgmmaAccLayoutAttr>(in.layout) ? 2
                                                                         : 1;
        width = std::min(width, in.cols());
        if (offset % width != 0 || stride % width != 0)
          fail(op, "jfa.store_tile stores runs of " + Twine(width) +
                       " elements, so its offset (" + Twine(offset) +
                       ") and row stride (" + Twine(stride) +
                       ") must be multiples of " + Twine(width));
        for (int64_t r = lo; r < std::min(hi, count); ++r)
          for (int64_t c = 0; c < in.cols(); ++c) {
            int64_t index = offset + r * stride + c;
            ptrIndexCheck(ptr, index, "writes");
            double x = in.v[r * in.cols() + c];
            if (store.getAdd())
              x = double(float(argOf(ptr).load(index) + x));
            argOf(ptr).store(index, x);
          }
      })
      .Case<DebugTrapOp>([&](DebugTrapOp trap) {
        fail(op, "jfa.debug_trap: " + trap.getFormat());
      })
      .Default([&](Operation *) {
        fail(op, "jfa-interp does not model '" + op->getName().getStringRef() +
                     "'");
      });
}

} // namespace jfa::interp
