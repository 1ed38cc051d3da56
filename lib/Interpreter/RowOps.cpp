//===- RowOps.cpp - jfa-interp's row ops ----------------------------------===//
//
// The handlers of the ops on the rows and columns of register tiles: row
// reductions and broadcasts, iota and column masks.
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

void registerRowOpHandlers(OpHandlerTable &table) {
  table.add<ReduceRowsOp>(reduceRows);
  table.add<BroadcastRowsOp>(broadcastRows);
  table.add<IotaOp>(iota);
  table.add<MaskColsOp>(maskCols);
}

} // namespace jfa::interp
