//===- Operands.cpp - jfa-interp's operands and tiles ---------------------===//
//
// How handlers read their operands (data, uniform scalars, accumulators in
// flight) and make tiles, and the elementwise evaluation the arith and math
// handlers share.
//===----------------------------------------------------------------------===//
#include "lib/Interpreter/CTARun.h"

using namespace mlir;

namespace jfa::interp {

//===----------------------------------------------------------------------===//
// Data
//===----------------------------------------------------------------------===//

const Tile &CTARun::dataInFlight(Executor &e, Operation *op, Value v) {
  RtValue &r = get(e, v);
  if (r.kind != RtValue::Data)
    fail(op, "jfa-interp: internal error: operand is not data");
  return *r.data;
}

const Tile &CTARun::data(Executor &e, Operation *op, Value v) {
  const Tile &t = dataInFlight(e, op, v);
  if (t.wgmmaSeq > e.dotsDone)
    fail(op,
         "reads the accumulator of a jfa.async_dot that is still in flight "
         "(wait for it with jfa.async_dot_wait first)",
         t.dot, "the jfa.async_dot");
  return t;
}

double CTARun::scalar(Executor &e, Operation *op, Value v) {
  const Tile &t = data(e, op, v);
  if (!t.shape.empty())
    fail(op, "jfa-interp: internal error: expected a scalar operand");
  if (t.varying) {
    for (double x : t.v)
      if (x != t.v[0])
        fail(op, "this value differs between the threads of a warpgroup (it "
                 "comes from jfa.thread_id/jfa.task_thread_id); jfa-interp "
                 "models control flow, indices and addresses that are "
                 "uniform per warpgroup");
  }
  return t.v[0];
}

TileP CTARun::newTile(Type type) {
  auto t = std::make_shared<Tile>();
  if (auto ranked = dyn_cast<RankedTensorType>(type)) {
    t->shape.assign(ranked.getShape().begin(), ranked.getShape().end());
    t->elem = ranked.getElementType();
    t->layout = ranked.getEncoding();
    int64_t n = 1;
    for (int64_t d : t->shape)
      n *= d;
    t->v.assign(n, 0.0);
  } else {
    t->elem = type;
    t->v.assign(1, 0.0);
  }
  return t;
}

RtValue CTARun::elementwise(Executor &e, Operation *op,
                            const std::function<double(const double *)> &f,
                            Type resultType) {
  SmallVector<const Tile *, 3> in;
  for (Value v : op->getOperands())
    in.push_back(&data(e, op, v));
  TileP out = newTile(resultType);
  // A per-thread scalar combined with a tile must be uniform per warpgroup.
  SmallVector<Tile, 3> uniform(in.size());
  if (!out->shape.empty())
    for (auto [k, v] : llvm::enumerate(op->getOperands()))
      if (in[k]->varying) {
        uniform[k].v = {scalar(e, op, v)};
        in[k] = &uniform[k];
      }
  size_t n = out->v.size();
  bool varying = false;
  if (out->shape.empty()) {
    for (const Tile *t : in)
      if (t->varying) {
        varying = true;
        n = std::max(n, t->v.size());
      }
    out->varying = varying;
    out->v.assign(n, 0.0);
  }
  double buf[4];
  for (size_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < in.size(); ++k)
      buf[k] = in[k]->v.size() == 1 ? in[k]->v[0] : in[k]->v[i];
    out->v[i] = roundTo(out->elem, f(buf));
  }
  return makeData(out);
}

} // namespace jfa::interp
