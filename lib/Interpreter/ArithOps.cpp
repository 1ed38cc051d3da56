//===- ArithOps.cpp - jfa-interp's arith, math and tensor ops -------------===//
//
// The handlers of the arith and math ops (elementwise on scalars and
// register tiles, rounded to the result's type) and of the tensor ops on
// register tiles (splat, and the column joins and cuts).
//===----------------------------------------------------------------------===//
#include "lib/Interpreter/CTARun.h"
#include "lib/Interpreter/OpHandlers.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <algorithm>
#include <cmath>

using namespace mlir;

namespace jfa::interp {

namespace {
/// What an elementwise function may need besides its operands: the integer
/// view of its operands' width, and the op for errors.
struct Elementwise {
  CTARun &run;
  Operation *op;
  /// The operands' bit width (64 for floats).
  unsigned width;

  uint64_t u(double x) const { return asUnsigned(x, width); }
  static int64_t i(double x) { return int64_t(x); }
  double nonzero(double d) const {
    if (d == 0)
      run.fail(op, "division by zero");
    return d;
  }
};
} // namespace

/// Sets `op`'s result to fn(context, operands) element by element.
template <typename Fn>
static void setElementwise(CTARun &run, Executor &e, Operation *op, Fn fn) {
  Type inElem = op->getNumOperands()
                    ? elementTypeOf(op->getOperand(0).getType())
                    : Type();
  Elementwise ctx{run, op,
                  inElem && inElem.isIntOrIndex() ? bitWidth(inElem) : 64};
  Value result = op->getResult(0);
  run.set(e, result,
          run.elementwise(
              e, op, [&](const double *a) { return fn(ctx, a); },
              result.getType()));
}

template <typename OpT, typename Fn>
static void addUnary(OpHandlerTable &table, Fn fn) {
  table.addForEach<OpT>([fn](CTARun &run, Executor &e, Operation *op) {
    setElementwise(run, e, op, [&](const Elementwise &ctx, const double *a) {
      return fn(ctx, a[0]);
    });
  });
}

template <typename OpT, typename Fn>
static void addBinary(OpHandlerTable &table, Fn fn) {
  table.addForEach<OpT>([fn](CTARun &run, Executor &e, Operation *op) {
    setElementwise(run, e, op, [&](const Elementwise &ctx, const double *a) {
      return fn(ctx, a[0], a[1]);
    });
  });
}

template <typename OpT, typename Fn>
static void addTernary(OpHandlerTable &table, Fn fn) {
  table.addForEach<OpT>([fn](CTARun &run, Executor &e, Operation *op) {
    setElementwise(run, e, op, [&](const Elementwise &, const double *a) {
      return fn(a[0], a[1], a[2]);
    });
  });
}

//===----------------------------------------------------------------------===//
// Constants and tensor ops
//===----------------------------------------------------------------------===//

static void constant(CTARun &run, Executor &e, arith::ConstantOp c) {
  Operation *op = c;
  Value result = c.getResult();
  Type rt = result.getType();
  Attribute value = c.getValue();
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    TileP t = run.newTile(rt);
    auto read = [&](Attribute a) -> double {
      if (auto f = dyn_cast<FloatAttr>(a))
        return f.getValueAsDouble();
      auto iattr = cast<IntegerAttr>(a);
      return iattr.getType().isInteger(1)
                 ? double(iattr.getValue().getZExtValue())
                 : double(iattr.getValue().getSExtValue());
    };
    if (dense.isSplat()) {
      double x = roundTo(t->elem, read(dense.getSplatValue<Attribute>()));
      std::fill(t->v.begin(), t->v.end(), x);
    } else {
      size_t k = 0;
      for (Attribute a : dense.getValues<Attribute>())
        t->v[k++] = roundTo(t->elem, read(a));
    }
    run.set(e, result, run.makeData(t));
    return;
  }
  if (auto f = dyn_cast<FloatAttr>(value)) {
    run.set(e, result, run.makeData(run.newScalar(rt, f.getValueAsDouble())));
    return;
  }
  if (auto iattr = dyn_cast<IntegerAttr>(value)) {
    double x = rt.isInteger(1) ? double(iattr.getValue().getZExtValue())
                               : double(iattr.getValue().getSExtValue());
    run.set(e, result, run.makeData(run.newScalar(rt, x)));
    return;
  }
  run.fail(op, "jfa-interp does not model '" + op->getName().getStringRef() +
                   "' of this value");
}

static void splat(CTARun &run, Executor &e, tensor::SplatOp op) {
  double x = run.scalar(e, op, op.getInput());
  TileP t = run.newTile(op.getType());
  std::fill(t->v.begin(), t->v.end(), roundTo(t->elem, x));
  run.set(e, op.getResult(), run.makeData(t));
}

// Tiles joined or cut along columns (whole rows): register moves that need
// no wait, so a tile still in flight gives one still in flight (the halves
// of a wide accumulator, waited for with jfa.async_dot_wait).
static void keepInFlight(Tile &to, const Tile &from) {
  if (from.wgmmaSeq > to.wgmmaSeq) {
    to.wgmmaSeq = from.wgmmaSeq;
    to.dot = from.dot;
  }
}

static void concat(CTARun &run, Executor &e, tensor::ConcatOp op) {
  TileP t = run.newTile(op.getType());
  int64_t start = 0;
  for (Value input : op.getInputs()) {
    const Tile &part = run.dataInFlight(e, op, input);
    keepInFlight(*t, part);
    for (int64_t r = 0; r < part.rows(); ++r)
      for (int64_t c = 0; c < part.cols(); ++c)
        t->v[r * t->cols() + start + c] = part.v[r * part.cols() + c];
    start += part.cols();
  }
  run.set(e, op.getResult(), run.makeData(t));
}

static void extractSlice(CTARun &run, Executor &e, tensor::ExtractSliceOp op) {
  if (llvm::any_of(op.getStaticOffsets(), ShapedType::isDynamic) ||
      !op.hasUnitStride())
    run.fail(op, "a slice of a register tile takes constant offsets and unit "
                 "strides");
  const Tile &from = run.dataInFlight(e, op, op.getSource());
  TileP t = run.newTile(op.getType());
  keepInFlight(*t, from);
  int64_t row0 = op.getStaticOffsets()[0];
  int64_t col0 =
      op.getStaticOffsets().size() > 1 ? op.getStaticOffsets()[1] : 0;
  for (int64_t r = 0; r < t->rows(); ++r)
    for (int64_t c = 0; c < t->cols(); ++c)
      t->v[r * t->cols() + c] = from.v[(row0 + r) * from.cols() + col0 + c];
  run.set(e, op.getResult(), run.makeData(t));
}

//===----------------------------------------------------------------------===//
// Comparisons
//===----------------------------------------------------------------------===//

static void cmpI(CTARun &run, Executor &e, arith::CmpIOp cmp) {
  arith::CmpIPredicate p = cmp.getPredicate();
  setElementwise(run, e, cmp, [p](const Elementwise &x, const double *v) {
    double a = v[0], b = v[1];
    auto i = Elementwise::i;
    switch (p) {
    case arith::CmpIPredicate::eq:
      return double(i(a) == i(b));
    case arith::CmpIPredicate::ne:
      return double(i(a) != i(b));
    case arith::CmpIPredicate::slt:
      return double(i(a) < i(b));
    case arith::CmpIPredicate::sle:
      return double(i(a) <= i(b));
    case arith::CmpIPredicate::sgt:
      return double(i(a) > i(b));
    case arith::CmpIPredicate::sge:
      return double(i(a) >= i(b));
    case arith::CmpIPredicate::ult:
      return double(x.u(a) < x.u(b));
    case arith::CmpIPredicate::ule:
      return double(x.u(a) <= x.u(b));
    case arith::CmpIPredicate::ugt:
      return double(x.u(a) > x.u(b));
    case arith::CmpIPredicate::uge:
      return double(x.u(a) >= x.u(b));
    }
    return 0.0;
  });
}

static void cmpF(CTARun &run, Executor &e, arith::CmpFOp cmp) {
  arith::CmpFPredicate p = cmp.getPredicate();
  setElementwise(run, e, cmp, [p](const Elementwise &, const double *v) {
    double a = v[0], b = v[1];
    bool unordered = std::isnan(a) || std::isnan(b);
    switch (p) {
    case arith::CmpFPredicate::AlwaysFalse:
      return 0.0;
    case arith::CmpFPredicate::OEQ:
      return double(!unordered && a == b);
    case arith::CmpFPredicate::OGT:
      return double(!unordered && a > b);
    case arith::CmpFPredicate::OGE:
      return double(!unordered && a >= b);
    case arith::CmpFPredicate::OLT:
      return double(!unordered && a < b);
    case arith::CmpFPredicate::OLE:
      return double(!unordered && a <= b);
    case arith::CmpFPredicate::ONE:
      return double(!unordered && a != b);
    case arith::CmpFPredicate::ORD:
      return double(!unordered);
    case arith::CmpFPredicate::UEQ:
      return double(unordered || a == b);
    case arith::CmpFPredicate::UGT:
      return double(unordered || a > b);
    case arith::CmpFPredicate::UGE:
      return double(unordered || a >= b);
    case arith::CmpFPredicate::ULT:
      return double(unordered || a < b);
    case arith::CmpFPredicate::ULE:
      return double(unordered || a <= b);
    case arith::CmpFPredicate::UNE:
      return double(unordered || a != b);
    case arith::CmpFPredicate::UNO:
      return double(unordered);
    case arith::CmpFPredicate::AlwaysTrue:
      return 1.0;
    }
    return 0.0;
  });
}

/// The GPU saturates (and gives 0 for NaN).
static void fpToSI(CTARun &run, Executor &e, arith::FPToSIOp op) {
  unsigned bits = bitWidth(elementTypeOf(op.getType()));
  setElementwise(run, e, op, [bits](const Elementwise &, const double *v) {
    if (std::isnan(v[0]))
      return 0.0;
    double hi = std::ldexp(1.0, int(bits) - 1);
    return std::clamp(std::trunc(v[0]), -hi, hi - 1);
  });
}

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

void registerArithHandlers(OpHandlerTable &table) {
  using E = const Elementwise &;
  auto i = Elementwise::i;
  table.add<arith::ConstantOp>(constant);
  table.add<tensor::SplatOp>(splat);
  table.add<tensor::ConcatOp>(concat);
  table.add<tensor::ExtractSliceOp>(extractSlice);
  table.add<arith::CmpIOp>(cmpI);
  table.add<arith::CmpFOp>(cmpF);
  table.add<arith::FPToSIOp>(fpToSI);

  // Integers: held sign-extended, wrapped to their width by roundTo.
  addBinary<arith::AddIOp>(
      table, [i](E, double a, double b) { return double(i(a) + i(b)); });
  addBinary<arith::SubIOp>(
      table, [i](E, double a, double b) { return double(i(a) - i(b)); });
  addBinary<arith::MulIOp>(table, [i](E, double a, double b) {
    return double(int64_t(uint64_t(i(a)) * uint64_t(i(b))));
  });
  addBinary<arith::DivUIOp>(table, [](E x, double a, double b) {
    return double(x.u(a) / x.u(x.nonzero(b)));
  });
  addBinary<arith::RemUIOp>(table, [](E x, double a, double b) {
    return double(x.u(a) % x.u(x.nonzero(b)));
  });
  addBinary<arith::DivSIOp>(table, [i](E x, double a, double b) {
    return double(i(a) / i(x.nonzero(b)));
  });
  addBinary<arith::RemSIOp>(table, [i](E x, double a, double b) {
    return double(i(a) % i(x.nonzero(b)));
  });
  addBinary<arith::CeilDivUIOp>(table, [](E x, double a, double b) {
    uint64_t d = x.u(x.nonzero(b));
    return double((x.u(a) + d - 1) / d);
  });
  addBinary<arith::AndIOp>(
      table, [i](E, double a, double b) { return double(i(a) & i(b)); });
  addBinary<arith::OrIOp>(
      table, [i](E, double a, double b) { return double(i(a) | i(b)); });
  addBinary<arith::XOrIOp>(
      table, [i](E, double a, double b) { return double(i(a) ^ i(b)); });
  addBinary<arith::ShLIOp>(table, [](E x, double a, double b) {
    return x.u(b) >= x.width ? 0.0 : double(int64_t(x.u(a) << x.u(b)));
  });
  addBinary<arith::ShRUIOp>(table, [](E x, double a, double b) {
    return x.u(b) >= x.width ? 0.0 : double(x.u(a) >> x.u(b));
  });
  addBinary<arith::ShRSIOp>(table, [i](E x, double a, double b) {
    return double(i(a) >> std::min<uint64_t>(x.u(b), 63));
  });
  addBinary<arith::MinSIOp>(table, [i](E, double a, double b) {
    return double(std::min(i(a), i(b)));
  });
  addBinary<arith::MaxSIOp>(table, [i](E, double a, double b) {
    return double(std::max(i(a), i(b)));
  });
  addBinary<arith::MinUIOp>(
      table, [](E x, double a, double b) { return x.u(a) < x.u(b) ? a : b; });
  addBinary<arith::MaxUIOp>(
      table, [](E x, double a, double b) { return x.u(a) > x.u(b) ? a : b; });
  addTernary<arith::SelectOp>(
      table, [](double c, double a, double b) { return c != 0 ? a : b; });

  // Floats: computed in double, rounded to the result's type.
  addBinary<arith::AddFOp>(table, [](E, double a, double b) { return a + b; });
  addBinary<arith::SubFOp>(table, [](E, double a, double b) { return a - b; });
  addBinary<arith::MulFOp>(table, [](E, double a, double b) { return a * b; });
  addBinary<arith::DivFOp>(table, [](E, double a, double b) { return a / b; });
  addUnary<arith::NegFOp>(table, [](E, double a) { return -a; });
  addBinary<arith::MaximumFOp>(table, [](E, double a, double b) {
    return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b);
  });
  addBinary<arith::MinimumFOp>(table, [](E, double a, double b) {
    return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b);
  });
  addBinary<arith::MaxNumFOp>(
      table, [](E, double a, double b) { return std::fmax(a, b); });
  addBinary<arith::MinNumFOp>(
      table, [](E, double a, double b) { return std::fmin(a, b); });

  // Conversions: the value is kept; roundTo gives it the result's type.
  auto same = [](E, double a) { return a; };
  addUnary<arith::TruncFOp>(table, same);
  addUnary<arith::ExtFOp>(table, same);
  addUnary<arith::TruncIOp>(table, same);
  addUnary<arith::IndexCastOp>(table, same);
  // An i1 `true` is -1 as a signed value.
  auto signedValue = [](E x, double a) {
    return x.width == 1 && a != 0 ? -1.0 : a;
  };
  addUnary<arith::SIToFPOp>(table, signedValue);
  addUnary<arith::ExtSIOp>(table, signedValue);
  auto unsignedValue = [](E x, double a) { return double(x.u(a)); };
  addUnary<arith::UIToFPOp>(table, unsignedValue);
  addUnary<arith::ExtUIOp>(table, unsignedValue);
  addUnary<arith::IndexCastUIOp>(table, unsignedValue);

  // Math: the transcendental functions in fp32, as the GPU computes them.
  addUnary<math::ExpOp>(table, [](E, double a) { return std::exp(float(a)); });
  addUnary<math::Exp2Op>(table,
                         [](E, double a) { return std::exp2(float(a)); });
  addUnary<math::LogOp>(table, [](E, double a) { return std::log(float(a)); });
  addUnary<math::Log2Op>(table,
                         [](E, double a) { return std::log2(float(a)); });
  addUnary<math::SqrtOp>(table, [](E, double a) { return std::sqrt(a); });
  addUnary<math::RsqrtOp>(table,
                          [](E, double a) { return 1.0 / std::sqrt(a); });
  addUnary<math::AbsFOp>(table, [](E, double a) { return std::fabs(a); });
  addUnary<math::TanhOp>(table,
                         [](E, double a) { return std::tanh(float(a)); });
  addTernary<math::FmaOp>(
      table, [](double a, double b, double c) { return std::fma(a, b, c); });
}

} // namespace jfa::interp
