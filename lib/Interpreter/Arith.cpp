//===- Arith.cpp - jfa-interp's data and arith ops --------------------------===//
//
// Operand access, tiles, and the arith/math/tensor.splat ops.
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

bool CTARun::execArith(Executor &e, Operation *op) {
  if (op->getNumResults() != 1)
    return false;
  Value result = op->getResult(0);
  Type rt = result.getType();
  Type inElem = op->getNumOperands() ? elementTypeOf(op->getOperand(0).getType())
                                     : Type();
  unsigned w = inElem && (inElem.isIntOrIndex()) ? bitWidth(inElem) : 64;
  auto u = [&](double x) { return asUnsigned(x, w); };
  auto i = [](double x) { return int64_t(x); };
  auto unary = [&](auto fn) {
    set(e, result,
        elementwise(e, op, [&](const double *a) { return fn(a[0]); }, rt));
    return true;
  };
  auto binary = [&](auto fn) {
    set(e, result,
        elementwise(e, op, [&](const double *a) { return fn(a[0], a[1]); },
                    rt));
    return true;
  };
  auto nonzero = [&](double d) {
    if (d == 0)
      fail(op, "division by zero");
    return d;
  };

  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    Attribute value = c.getValue();
    if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
      TileP t = newTile(rt);
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
      set(e, result, makeData(t));
      return true;
    }
    if (auto f = dyn_cast<FloatAttr>(value)) {
      set(e, result, makeData(newScalar(rt, f.getValueAsDouble())));
      return true;
    }
    if (auto iattr = dyn_cast<IntegerAttr>(value)) {
      double x = rt.isInteger(1) ? double(iattr.getValue().getZExtValue())
                                 : double(iattr.getValue().getSExtValue());
      set(e, result, makeData(newScalar(rt, x)));
      return true;
    }
    return false;
  }
  if (auto splat = dyn_cast<tensor::SplatOp>(op)) {
    double x = scalar(e, op, splat.getInput());
    TileP t = newTile(rt);
    std::fill(t->v.begin(), t->v.end(), roundTo(t->elem, x));
    set(e, result, makeData(t));
    return true;
  }

  // Tiles joined or cut along columns (whole rows): register moves that
  // need no wait, so a tile still in flight gives one still in flight (the
  // halves of a wide accumulator, waited for with jfa.async_dot_wait).
  auto keepInFlight = [](Tile &to, const Tile &from) {
    if (from.wgmmaSeq > to.wgmmaSeq) {
      to.wgmmaSeq = from.wgmmaSeq;
      to.dot = from.dot;
    }
  };
  if (auto concat = dyn_cast<tensor::ConcatOp>(op)) {
    TileP t = newTile(rt);
    int64_t start = 0;
    for (Value input : concat.getInputs()) {
      const Tile &part = dataInFlight(e, op, input);
      keepInFlight(*t, part);
      for (int64_t r = 0; r < part.rows(); ++r)
        for (int64_t c = 0; c < part.cols(); ++c)
          t->v[r * t->cols() + start + c] = part.v[r * part.cols() + c];
      start += part.cols();
    }
    set(e, result, makeData(t));
    return true;
  }
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
    if (llvm::any_of(slice.getStaticOffsets(), ShapedType::isDynamic) ||
        !slice.hasUnitStride())
      fail(op, "a slice of a register tile takes constant offsets and unit "
               "strides");
    const Tile &from = dataInFlight(e, op, slice.getSource());
    TileP t = newTile(rt);
    keepInFlight(*t, from);
    int64_t row0 = slice.getStaticOffsets()[0];
    int64_t col0 = slice.getStaticOffsets().size() > 1
                       ? slice.getStaticOffsets()[1]
                       : 0;
    for (int64_t r = 0; r < t->rows(); ++r)
      for (int64_t c = 0; c < t->cols(); ++c)
        t->v[r * t->cols() + c] =
            from.v[(row0 + r) * from.cols() + col0 + c];
    set(e, result, makeData(t));
    return true;
  }

  return llvm::TypeSwitch<Operation *, bool>(op)
      .Case<arith::AddIOp>([&](auto) {
        return binary([&](double a, double b) { return double(i(a) + i(b)); });
      })
      .Case<arith::SubIOp>([&](auto) {
        return binary([&](double a, double b) { return double(i(a) - i(b)); });
      })
      .Case<arith::MulIOp>([&](auto) {
        return binary([&](double a, double b) {
          return double(int64_t(uint64_t(i(a)) * uint64_t(i(b))));
        });
      })
      .Case<arith::DivUIOp>([&](auto) {
        return binary([&](double a, double b) {
          return double(u(a) / u(nonzero(b)));
        });
      })
      .Case<arith::RemUIOp>([&](auto) {
        return binary([&](double a, double b) {
          return double(u(a) % u(nonzero(b)));
        });
      })
      .Case<arith::DivSIOp>([&](auto) {
        return binary([&](double a, double b) {
          return double(i(a) / i(nonzero(b)));
        });
      })
      .Case<arith::RemSIOp>([&](auto) {
        return binary([&](double a, double b) {
          return double(i(a) % i(nonzero(b)));
        });
      })
      .Case<arith::CeilDivUIOp>([&](auto) {
        return binary([&](double a, double b) {
          uint64_t d = u(nonzero(b));
          return double((u(a) + d - 1) / d);
        });
      })
      .Case<arith::AndIOp>([&](auto) {
        return binary([&](double a, double b) { return double(i(a) & i(b)); });
      })
      .Case<arith::OrIOp>([&](auto) {
        return binary([&](double a, double b) { return double(i(a) | i(b)); });
      })
      .Case<arith::XOrIOp>([&](auto) {
        return binary([&](double a, double b) { return double(i(a) ^ i(b)); });
      })
      .Case<arith::ShLIOp>([&](auto) {
        return binary([&](double a, double b) {
          return u(b) >= w ? 0.0 : double(int64_t(u(a) << u(b)));
        });
      })
      .Case<arith::ShRUIOp>([&](auto) {
        return binary([&](double a, double b) {
          return u(b) >= w ? 0.0 : double(u(a) >> u(b));
        });
      })
      .Case<arith::ShRSIOp>([&](auto) {
        return binary([&](double a, double b) {
          return double(i(a) >> std::min<uint64_t>(u(b), 63));
        });
      })
      .Case<arith::MinSIOp>([&](auto) {
        return binary(
            [&](double a, double b) { return double(std::min(i(a), i(b))); });
      })
      .Case<arith::MaxSIOp>([&](auto) {
        return binary(
            [&](double a, double b) { return double(std::max(i(a), i(b))); });
      })
      .Case<arith::MinUIOp>([&](auto) {
        return binary([&](double a, double b) { return u(a) < u(b) ? a : b; });
      })
      .Case<arith::MaxUIOp>([&](auto) {
        return binary([&](double a, double b) { return u(a) > u(b) ? a : b; });
      })
      .Case<arith::CmpIOp>([&](arith::CmpIOp cmp) {
        auto p = cmp.getPredicate();
        return binary([&, p](double a, double b) -> double {
          switch (p) {
          case arith::CmpIPredicate::eq:
            return i(a) == i(b);
          case arith::CmpIPredicate::ne:
            return i(a) != i(b);
          case arith::CmpIPredicate::slt:
            return i(a) < i(b);
          case arith::CmpIPredicate::sle:
            return i(a) <= i(b);
          case arith::CmpIPredicate::sgt:
            return i(a) > i(b);
          case arith::CmpIPredicate::sge:
            return i(a) >= i(b);
          case arith::CmpIPredicate::ult:
            return u(a) < u(b);
          case arith::CmpIPredicate::ule:
            return u(a) <= u(b);
          case arith::CmpIPredicate::ugt:
            return u(a) > u(b);
          case arith::CmpIPredicate::uge:
            return u(a) >= u(b);
          }
          return 0;
        });
      })
      .Case<arith::SelectOp>([&](auto) {
        set(e, result,
            elementwise(
                e, op,
                [](const double *a) { return a[0] != 0 ? a[1] : a[2]; }, rt));
        return true;
      })
      .Case<arith::AddFOp>(
          [&](auto) { return binary([](double a, double b) { return a + b; }); })
      .Case<arith::SubFOp>(
          [&](auto) { return binary([](double a, double b) { return a - b; }); })
      .Case<arith::MulFOp>(
          [&](auto) { return binary([](double a, double b) { return a * b; }); })
      .Case<arith::DivFOp>(
          [&](auto) { return binary([](double a, double b) { return a / b; }); })
      .Case<arith::NegFOp>([&](auto) { return unary([](double a) { return -a; }); })
      .Case<arith::MaximumFOp>([&](auto) {
        return binary([](double a, double b) {
          return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b);
        });
      })
      .Case<arith::MinimumFOp>([&](auto) {
        return binary([](double a, double b) {
          return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b);
        });
      })
      .Case<arith::MaxNumFOp>([&](auto) {
        return binary([](double a, double b) { return std::fmax(a, b); });
      })
      .Case<arith::MinNumFOp>([&](auto) {
        return binary([](double a, double b) { return std::fmin(a, b); });
      })
      .Case<arith::CmpFOp>([&](arith::CmpFOp cmp) {
        auto p = cmp.getPredicate();
        return binary([p](double a, double b) -> double {
          bool unordered = std::isnan(a) || std::isnan(b);
          switch (p) {
          case arith::CmpFPredicate::AlwaysFalse:
            return 0;
          case arith::CmpFPredicate::OEQ:
            return !unordered && a == b;
          case arith::CmpFPredicate::OGT:
            return !unordered && a > b;
          case arith::CmpFPredicate::OGE:
            return !unordered && a >= b;
          case arith::CmpFPredicate::OLT:
            return !unordered && a < b;
          case arith::CmpFPredicate::OLE:
            return !unordered && a <= b;
          case arith::CmpFPredicate::ONE:
            return !unordered && a != b;
          case arith::CmpFPredicate::ORD:
            return !unordered;
          case arith::CmpFPredicate::UEQ:
            return unordered || a == b;
          case arith::CmpFPredicate::UGT:
            return unordered || a > b;
          case arith::CmpFPredicate::UGE:
            return unordered || a >= b;
          case arith::CmpFPredicate::ULT:
            return unordered || a < b;
          case arith::CmpFPredicate::ULE:
            return unordered || a <= b;
          case arith::CmpFPredicate::UNE:
            return unordered || a != b;
          case arith::CmpFPredicate::UNO:
            return unordered;
          case arith::CmpFPredicate::AlwaysTrue:
            return 1;
          }
          return 0;
        });
      })
      .Case<arith::TruncFOp, arith::ExtFOp, arith::TruncIOp,
            arith::IndexCastOp>(
          [&](auto) { return unary([](double a) { return a; }); })
      .Case<arith::SIToFPOp, arith::ExtSIOp>([&](auto) {
        // An i1 `true` is -1 as a signed value.
        return unary([&](double a) { return w == 1 && a != 0 ? -1.0 : a; });
      })
      .Case<arith::UIToFPOp, arith::ExtUIOp, arith::IndexCastUIOp>(
          [&](auto) { return unary([&](double a) { return double(u(a)); }); })
      .Case<arith::FPToSIOp>([&](auto) {
        // The GPU saturates (and gives 0 for NaN).
        return unary([&](double a) {
          if (std::isnan(a))
            return 0.0;
          unsigned bits = bitWidth(elementTypeOf(rt));
          double hi = std::ldexp(1.0, int(bits) - 1);
          return std::clamp(std::trunc(a), -hi, hi - 1);
        });
      })
      .Case<math::ExpOp>([&](auto) { return unary([](double a) { return std::exp(float(a)); }); })
      .Case<math::Exp2Op>([&](auto) { return unary([](double a) { return std::exp2(float(a)); }); })
      .Case<math::LogOp>([&](auto) { return unary([](double a) { return std::log(float(a)); }); })
      .Case<math::Log2Op>([&](auto) { return unary([](double a) { return std::log2(float(a)); }); })
      .Case<math::SqrtOp>([&](auto) { return unary([](double a) { return std::sqrt(a); }); })
      .Case<math::RsqrtOp>([&](auto) { return unary([](double a) { return 1.0 / std::sqrt(a); }); })
      .Case<math::AbsFOp>([&](auto) { return unary([](double a) { return std::fabs(a); }); })
      .Case<math::TanhOp>([&](auto) { return unary([](double a) { return std::tanh(float(a)); }); })
      .Case<math::FmaOp>([&](auto) {
        set(e, result,
            elementwise(
                e, op,
                [](const double *a) { return std::fma(a[0], a[1], a[2]); },
                rt));
        return true;
      })
      .Default([](Operation *) { return false; });
}

} // namespace jfa::interp
