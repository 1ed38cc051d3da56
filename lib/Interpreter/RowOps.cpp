//===- RowOps.cpp - jfa-interp's row ops ----------------------------------===//
//
// The handlers of the ops on the rows and columns of register tiles: row
// reductions and broadcasts, iota, column masks and jfa.exp2 (whose
// software columns it computes as the GPU does, operation for operation).
//===----------------------------------------------------------------------===//
#include "lib/Interpreter/CTARun.h"
#include "lib/Interpreter/OpHandlers.h"

#include <cmath>

using namespace mlir;

namespace jfa::interp {

static void reduceRows(CTARun &run, Executor &e, ReduceRowsOp op) {
  const Tile &in = run.data(e, op, op.getInput());
  TileP out = run.newTile(op.getType());
  bool isMax = op.getKind() == ReduceKind::max;
  for (int64_t r = 0; r < in.rows(); ++r) {
    double acc = isMax ? -INFINITY : 0.0;
    for (int64_t c = 0; c < in.cols(); ++c) {
      double x = in.v[r * in.cols() + c];
      // The lowering adds in fp32, one rounding per addition.
      acc = isMax ? std::fmax(acc, x) : double(float(acc + x));
    }
    out->v[r] = roundTo(out->elem, acc);
  }
  run.set(e, op.getResult(), run.makeData(out));
}

static void broadcastRows(CTARun &run, Executor &e, BroadcastRowsOp op) {
  const Tile &in = run.data(e, op, op.getInput());
  TileP out = run.newTile(op.getType());
  for (int64_t r = 0; r < out->rows(); ++r)
    for (int64_t c = 0; c < out->cols(); ++c)
      out->v[r * out->cols() + c] = in.v[r];
  run.set(e, op.getResult(), run.makeData(out));
}

static void iota(CTARun &run, Executor &e, IotaOp op) {
  TileP out = run.newTile(op.getType());
  bool rows = op.getDim() == IotaDim::rows;
  for (int64_t r = 0; r < out->rows(); ++r)
    for (int64_t c = 0; c < out->cols(); ++c)
      out->v[r * out->cols() + c] = double(rows ? r : c);
  run.set(e, op.getResult(), run.makeData(out));
}

static void maskCols(CTARun &run, Executor &e, MaskColsOp op) {
  const Tile &in = run.data(e, op, op.getInput());
  const Tile &limit = run.data(e, op, op.getLimit());
  const Tile *lower = op.getLower() ? &run.data(e, op, op.getLower()) : nullptr;
  double fill = run.scalar(e, op, op.getFill());
  TileP out = run.newTile(op.getType());
  for (int64_t r = 0; r < out->rows(); ++r)
    for (int64_t c = 0; c < out->cols(); ++c) {
      bool keep =
          double(c) < limit.v[r] && (!lower || double(c) >= lower->v[r]);
      out->v[r * out->cols() + c] = keep ? in.v[r * out->cols() + c] : fill;
    }
  run.set(e, op.getResult(), run.makeData(out));
}

/// The lowering's softwareExp2 in float arithmetic: the same clamps,
/// rounding (add.rm.ftz flushes a subnormal x to 0 before the floor) and
/// fused multiply-adds give the same bits.
static float softwareExp2(float x) {
  if (std::isnan(x))
    return x;
  x = std::fmin(std::fmax(x, -127.0f), 127.0f);
  float whole = std::fpclassify(x) == FP_SUBNORMAL ? 0.0f : std::floor(x);
  float frac = x - whole;
  float poly = std::fma(kExp2Poly[3], frac, kExp2Poly[2]);
  poly = std::fma(poly, frac, kExp2Poly[1]);
  poly = std::fma(poly, frac, kExp2Poly[0]);
  // 2^n as the lowering builds it: 0 for n = -127, else a normal float.
  float scale = whole <= -127.0f ? 0.0f : std::ldexp(1.0f, int(whole));
  return poly * scale;
}

static void exp2Columns(CTARun &run, Executor &e, Exp2Op op) {
  const Tile &in = run.data(e, op, op.getInput());
  auto share = int64_t(run.scalar(e, op, op.getShare()));
  int64_t period = op.getPeriod();
  if (share < 0 || share > period)
    run.fail(op, "software share " + std::to_string(share) +
                     " is outside [0, " + std::to_string(period) + "]");
  TileP out = run.newTile(op.getType());
  for (int64_t r = 0; r < out->rows(); ++r)
    for (int64_t c = 0; c < out->cols(); ++c) {
      auto x = float(in.v[r * out->cols() + c]);
      out->v[r * out->cols() + c] =
          (c / 8) % period < share ? softwareExp2(x) : std::exp2(x);
    }
  run.set(e, op.getResult(), run.makeData(out));
}

void registerRowOpHandlers(OpHandlerTable &table) {
  table.add<ReduceRowsOp>(reduceRows);
  table.add<BroadcastRowsOp>(broadcastRows);
  table.add<IotaOp>(iota);
  table.add<MaskColsOp>(maskCols);
  table.add<Exp2Op>(exp2Columns);
}

} // namespace jfa::interp
