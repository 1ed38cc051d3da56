//===- TensorCoreOps.cpp - jfa-interp's tensor cores and tensor memory ----===//
//
// Tensor memory (the CTA's 128 lanes of 32-bit columns), the products of
// the tensor cores, and the handlers of the wgmma ops (jfa.async_dot and
// its wait), the tcgen05 ops (jfa.tc_dot, jfa.tc_commit) and the tensor
// memory ops.
//===----------------------------------------------------------------------===//
#include "lib/Interpreter/CTARun.h"
#include "lib/Interpreter/OpHandlers.h"

#include "JFA/MmaTypes.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstring>

using namespace mlir;

namespace jfa::interp {

//===----------------------------------------------------------------------===//
// Tensor memory
//===----------------------------------------------------------------------===//

std::pair<int64_t, int64_t> CTARun::tmemColumns(Operation *op, const RtValue &t,
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
                        bool write, const VC &view, Access self, bool generic) {
  for (int64_t c = lo; c < hi; ++c) {
    std::string what =
        llvm::formatv("tensor-memory column {0}", c % tmemColumnsPerLane).str();
    if (clusterSize > 1)
      what += " of " + ctaName(int(c / tmemColumnsPerLane));
    if (write)
      checkWrite(e, op, tmemShadow[c], view, self, what, generic);
    else
      checkRead(e, op, tmemShadow[c], view, self, what, false);
  }
}

//===----------------------------------------------------------------------===//
// Products
//===----------------------------------------------------------------------===//

/// Rows [lo, hi) of a K-major operand of a tensor-core product, as
/// [rows][k] values.
static std::vector<double> operandRows(CTARun &run, const RtValue &v,
                                       int64_t lo, int64_t hi, int64_t k) {
  std::vector<double> out((hi - lo) * k);
  for (int64_t r = lo; r < hi; ++r)
    for (int64_t c = 0; c < k; ++c) {
      double &x = out[(r - lo) * k + c];
      if (v.kind == RtValue::Slot)
        x = run.slotElem(v, r, c);
      else if (v.kind == RtValue::Tmem)
        x = run.tmemLoad(v, r, c);
      else
        x = v.data->v[r * v.data->cols() + c];
    }
  return out;
}

/// acc[m][n] (+)= sum_k a[m][k] b[n][k], one fp32 rounding per `kStep` of K
/// (one MMA instruction: 16 for 16-bit operands, 32 for 8-bit; MmaTypes.h).
/// 8-bit products are exact in the sum: fp8 operands decode exactly.
static void product(double *acc, const std::vector<double> &a,
                    const std::vector<double> &b, int64_t m, int64_t n,
                    int64_t k, int64_t accStride, int64_t kStep) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = acc[i * accStride + j];
      const double *ai = &a[i * k], *bj = &b[j * k];
      for (int64_t k0 = 0; k0 < k; k0 += kStep) {
        double part = 0;
        for (int64_t x = k0; x < std::min(k, k0 + kStep); ++x)
          part += ai[x] * bj[x];
        sum = double(float(sum + part));
      }
      acc[i * accStride + j] = sum;
    }
}

//===----------------------------------------------------------------------===//
// wgmma
//===----------------------------------------------------------------------===//

/// The product is computed when issued, for the rows this warpgroup holds;
/// its operands are read by the executor's wgmma pipe, and the result may
/// be read only after a jfa.async_dot_wait has completed it.
static void asyncDot(CTARun &run, Executor &e, AsyncDotOp op) {
  RtValue a = run.get(e, op.getA());
  RtValue b = run.get(e, op.getB());
  const Tile &acc = *run.get(e, op.getAcc()).data;
  if (a.kind == RtValue::Data && a.data->wgmmaSeq > e.dotsDone)
    run.fail(op, "uses as A the result of a jfa.async_dot still in flight",
             a.data->dot, "the jfa.async_dot");
  int64_t m = acc.rows(), n = acc.cols();
  int64_t k = cast<SlotType>(b.type).getShape()[1];
  auto [lo, hi] = run.ownedRows(e, op, acc.layout, m);
  ++e.dotsIssued;
  ++e.stats.mmas;
  join(e.wgmmaVC, e.vc);
  e.wgmmaVC[run.wgmmaComp(e)] = uint32_t(e.dotsIssued);
  Access read{run.wgmmaComp(e), uint32_t(e.dotsIssued), op, e.id};
  if (a.kind == RtValue::Slot) {
    auto [slo, shi] = run.slotRowsTouched(a, lo, hi);
    run.readSlotRows(e, op, a, slo, shi, e.wgmmaVC, read, true);
  }
  run.readSlotRows(e, op, b, 0, run.slotRows(b), e.wgmmaVC, read, true);
  auto out = std::make_shared<Tile>(acc);
  std::vector<double> av = operandRows(run, a, lo, hi, k);
  std::vector<double> bv = operandRows(run, b, 0, n, k);
  product(&out->v[lo * n], av, bv, hi - lo, n, k, n,
          getMmaKStep(cast<SlotType>(b.type).getElementType()));
  if (run.interp.options.nanCheck)
    run.checkProductNaN(
        op, ArrayRef<double>(out->v).slice(lo * n, (hi - lo) * n), hi - lo, n,
        lo, av, bv, ArrayRef<double>(acc.v).slice(lo * n, (hi - lo) * n));
  out->wgmmaSeq = e.dotsIssued;
  out->dot = op;
  run.set(e, op.getResult(), run.makeData(out));
}

static void asyncDotWait(CTARun &run, Executor &e, AsyncDotWaitOp op) {
  e.dotsDone = std::max(e.dotsDone, e.dotsIssued - int64_t(op.getPending()));
  uint32_t done = uint32_t(e.dotsDone);
  e.vc[run.wgmmaComp(e)] = std::max(e.vc[run.wgmmaComp(e)], done);
  e.lvc[run.wgmmaComp(e)] = std::max(e.lvc[run.wgmmaComp(e)], done);
  for (auto [result, value] : llvm::zip(op.getResults(), op.getValues()))
    run.set(e, result, run.get(e, value));
}

//===----------------------------------------------------------------------===//
// tcgen05 and tensor memory
//===----------------------------------------------------------------------===//

static void tmemAlloc(CTARun &run, Executor &e, TmemAllocOp op) {
  RtValue r;
  r.kind = RtValue::Tmem;
  // The CTA's columns of the cluster's lanes.
  r.column = run.tmemColumnOf.lookup(op) + e.ctaRank * run.tmemColumnsPerLane;
  r.type = op.getType();
  run.set(e, op.getResult(), r);
}

static void tmemSlice(CTARun &run, Executor &e, TmemSliceOp op) {
  RtValue r = run.get(e, op.getTmem());
  int64_t columns = cast<TensorMemoryType>(op.getType()).getShape()[1];
  r.column = run.tmemColumns(op, r, int64_t(op.getColumns()), columns).first;
  r.type = op.getType();
  run.set(e, op.getResult(), r);
}

/// The product runs on the tensor cores when issued by the one issuing
/// thread: it reads and writes through the executor's tcgen05 pipe, which
/// a jfa.tc_commit's barrier phase completes. A pair product (`pair`) reads
/// the operands at the same slots in both CTAs of the issuer's pair (A's
/// and B's first halves in the even CTA) and writes each CTA's tensor
/// memory its 128 rows.
static void tcDot(CTARun &run, Executor &e, TcDotOp op) {
  RtValue a = run.get(e, op.getA());
  RtValue b = run.get(e, op.getB());
  RtValue d = run.get(e, op.getAcc());
  bool accumulate = run.scalar(e, op, op.getAccumulate()) != 0;
  // The CTAs whose halves take part: this one, or the pair (even rank
  // first).
  SmallVector<int, 2> ctas = {e.ctaRank};
  if (op.getPair()) {
    int even = e.ctaRank & ~1;
    if (even + 1 >= run.clusterSize)
      run.fail(op, "is a CTA-pair product in " + run.ctaName(e.ctaRank) +
                       ", which has no peer in its cluster of " +
                       Twine(run.clusterSize));
    ctas = {even, even + 1};
  }
  // Per CTA: M rows of A and N rows of B (its half of a pair's N); the
  // accumulator may be wider (the rest is untouched).
  int64_t m = cast<TensorMemoryType>(d.type).getShape()[0];
  int64_t n = cast<SlotType>(b.type).getShape()[0];
  int64_t k = cast<SlotType>(b.type).getShape()[1];
  int64_t parts = ctas.size(), rowsAll = m * parts, colsAll = n * parts;
  ++e.tcIssued;
  ++e.stats.mmas;
  join(e.tcVC, e.lvc);
  e.tcVC[run.tcComp(e)] = uint32_t(e.tcIssued);
  Access access{run.tcComp(e), uint32_t(e.tcIssued), op, e.id};
  auto inCta = [&](RtValue v, int rank) {
    if (v.kind == RtValue::Tmem)
      v.column += (rank - e.ctaRank) * run.tmemColumnsPerLane;
    else
      v.id = run.peerBuffer(v.id, rank);
    return v;
  };
  std::vector<double> av, bv, acc(rowsAll * colsAll, 0.0);
  for (auto [part, rank] : llvm::enumerate(ctas)) {
    RtValue ap = inCta(a, rank), bp = inCta(b, rank), dp = inCta(d, rank);
    if (ap.kind == RtValue::Slot) {
      run.readSlotRows(e, op, ap, 0, run.slotRows(ap), e.tcVC, access, true);
    } else {
      auto [lo, hi] = run.tmemColumns(op, ap, 0, k);
      run.accessTmem(e, op, lo, hi, false, e.tcVC, access, false);
    }
    run.readSlotRows(e, op, bp, 0, run.slotRows(bp), e.tcVC, access, true);
    auto [dlo, dhi] = run.tmemColumns(op, dp, 0, colsAll);
    if (accumulate)
      run.accessTmem(e, op, dlo, dhi, false, e.tcVC, access, false);
    run.accessTmem(e, op, dlo, dhi, true, e.tcVC, access, false);
    std::vector<double> rowsA = operandRows(run, ap, 0, m, k);
    std::vector<double> rowsB = operandRows(run, bp, 0, n, k);
    av.insert(av.end(), rowsA.begin(), rowsA.end());
    bv.insert(bv.end(), rowsB.begin(), rowsB.end());
    if (accumulate)
      for (int64_t r = 0; r < m; ++r)
        for (int64_t c = 0; c < colsAll; ++c)
          acc[(part * m + r) * colsAll + c] = run.tmemLoad(dp, r, c);
  }
  std::vector<double> before;
  if (run.interp.options.nanCheck && accumulate)
    before = acc;
  product(acc.data(), av, bv, rowsAll, colsAll, k, colsAll,
          getMmaKStep(cast<SlotType>(b.type).getElementType()));
  if (run.interp.options.nanCheck)
    run.checkProductNaN(op, acc, rowsAll, colsAll, 0, av, bv, before);
  for (auto [part, rank] : llvm::enumerate(ctas)) {
    RtValue dp = inCta(d, rank);
    for (int64_t r = 0; r < m; ++r)
      for (int64_t c = 0; c < colsAll; ++c)
        run.tmemStore(dp, r, c, acc[(part * m + r) * colsAll + c]);
  }
}

/// The barrier's arrival when the executor's tcgen05 products so far are
/// done: it releases what they wrote (and read). With a multicast mask, the
/// arrival goes to the barrier at the same place in each CTA of the mask.
static void tcCommit(CTARun &run, Executor &e, TcCommitOp op) {
  int b = run.get(e, op.getBarrier()).id;
  uint64_t mask = run.multicastMask(e, op, op.getMulticast());
  VC view = e.tcVC;
  join(view, e.lvc);
  for (int rank = 0; rank < run.clusterSize; ++rank)
    if (mask >> rank & 1)
      run.arrive(e, op, run.peerBarrier(b, rank), 1, view);
  ++e.lvc[run.leaderComp(e)];
}

static void tmemLoad(CTARun &run, Executor &e, TmemLoadOp op) {
  RtValue t = run.get(e, op.getTmem());
  int64_t column = run.intScalar(e, op, op.getColumn());
  TileP out = run.newTile(op.getType());
  auto [lo, hi] = run.tmemColumns(op, t, column, out->cols());
  run.accessTmem(e, op, lo, hi, false, e.vc, run.genericAccess(e, op), true);
  for (int64_t r = 0; r < out->rows(); ++r)
    for (int64_t c = 0; c < out->cols(); ++c)
      out->v[r * out->cols() + c] =
          roundTo(out->elem, run.tmemLoad(t, r, column + c));
  run.set(e, op.getResult(), run.makeData(out));
}

static void tmemStore(CTARun &run, Executor &e, TmemStoreOp op) {
  const Tile &in = run.data(e, op, op.getValue());
  RtValue t = run.get(e, op.getTmem());
  int64_t column = run.intScalar(e, op, op.getColumn());
  auto [lo, hi] = run.tmemColumns(op, t, column, in.cols());
  run.accessTmem(e, op, lo, hi, true, e.vc, run.genericAccess(e, op), true);
  for (int64_t r = 0; r < in.rows(); ++r)
    for (int64_t c = 0; c < in.cols(); ++c)
      run.tmemStore(t, r, column + c, in.v[r * in.cols() + c]);
}

void registerTensorCoreHandlers(OpHandlerTable &table) {
  table.add<AsyncDotOp>(asyncDot);
  table.add<AsyncDotWaitOp>(asyncDotWait);
  table.add<TmemAllocOp>(tmemAlloc);
  table.add<TmemSliceOp>(tmemSlice);
  // Tensor memory is the CTA's for the whole run.
  table.add<TmemDeallocOp>([](CTARun &, Executor &, TmemDeallocOp) {});
  table.add<TcDotOp>(tcDot);
  table.add<TcCommitOp>(tcCommit);
  table.add<TmemLoadOp>(tmemLoad);
  table.add<TmemStoreOp>(tmemStore);
}

} // namespace jfa::interp
