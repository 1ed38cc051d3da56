//===- NanCheck.cpp - jfa-interp --nan-check --------------------------------===//
//
// The first op that makes a NaN or an infinity from finite operands.
//===----------------------------------------------------------------------===//
#include "lib/Interpreter/CTARun.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;

namespace jfa::interp {

//===----------------------------------------------------------------------===//
// --nan-check
//===----------------------------------------------------------------------===//

std::pair<int64_t, int64_t> CTARun::heldRows(Executor &e, Attribute layout,
                                             int64_t rows) {
  if (auto rowsOf = dyn_cast_or_null<RowsOfLayoutAttr>(layout))
    return heldRows(e, rowsOf.getParent(), rows);
  if (e.numWg > 1 && isa_and_nonnull<WgmmaAccLayoutAttr>(layout)) {
    int64_t block = rows / e.numWg;
    return {e.wg * block, (e.wg + 1) * block};
  }
  return {0, rows};
}

void CTARun::failNaN(Operation *op, double value, const std::string &element,
                     const std::string &operands) {
  fail(op, "nan-check: '" + op->getName().getStringRef() + "' turns finite " +
               "operands into " + formatNumber(value) + element +
               (operands.empty() ? "" : " (operands there: " + operands + ")"));
}

void CTARun::checkNaN(Executor &e, Operation *op) {
  // Constants and loads bring values in (a NaN loaded was made elsewhere or
  // is in the input); the tensor-core products are checked where they are
  // computed, and async_dot_wait only passes them on.
  if (op->getNumOperands() == 0 ||
      isa<scf::ForOp, scf::WhileOp, scf::IfOp, LocalLoadOp, TmemLoadOp, LoadOp,
          LoadRowsOp, LoadColsOp, LoadScalarOp, AsyncDotOp, AsyncDotWaitOp>(op))
    return;
  for (Value result : op->getResults()) {
    auto it = e.env.find(result);
    if (it == e.env.end() || it->second.kind != RtValue::Data)
      continue;
    const Tile &out = *it->second.data;
    if (!isa<FloatType>(out.elem))
      continue;
    // Only the rows this executor holds: the others may be computed from
    // data its warpgroup never reads.
    auto [lo, hi] = heldRows(e, out.layout, out.rows());
    int64_t cols = out.cols();
    size_t first = out.shape.empty() ? 0 : size_t(lo * cols);
    size_t last = out.shape.empty() ? out.v.size() : size_t(hi * cols);
    size_t bad = last;
    for (size_t i = first; i < last; ++i)
      if (!std::isfinite(out.v[i])) {
        bad = i;
        break;
      }
    if (bad == last)
      continue;
    // Operands of the result's shape are elementwise: the element itself;
    // others (a reduction's input) must be finite in every held row.
    std::vector<std::string> operands;
    bool elementwise = true;
    for (Value v : op->getOperands()) {
      auto in = e.env.find(v);
      if (in == e.env.end() || in->second.kind != RtValue::Data)
        continue;
      const Tile &t = *in->second.data;
      if (t.v.size() == out.v.size() && t.shape == out.shape) {
        if (!std::isfinite(t.v[bad]))
          return;
        operands.push_back(formatNumber(t.v[bad]));
      } else if (t.v.size() == 1) {
        if (!std::isfinite(t.v[0]))
          return;
        operands.push_back(formatNumber(t.v[0]));
      } else {
        elementwise = false;
        auto [tlo, thi] = heldRows(e, t.layout, t.rows());
        size_t tfirst = t.shape.empty() ? 0 : size_t(tlo * t.cols());
        size_t tlast = t.shape.empty() ? t.v.size() : size_t(thi * t.cols());
        for (size_t i = tfirst; i < tlast; ++i)
          if (!std::isfinite(t.v[i]))
            return;
      }
    }
    std::string element;
    if (out.shape.size() == 2)
      element =
          llvm::formatv(" at element [{0}, {1}]", bad / cols, bad % cols).str();
    else if (out.shape.size() == 1)
      element = llvm::formatv(" at element [{0}]", bad).str();
    else if (out.varying)
      element = llvm::formatv(" in thread {0}", e.firstThread + bad).str();
    if (op->getNumResults() > 1)
      element += llvm::formatv(" of result #{0}",
                               cast<OpResult>(result).getResultNumber())
                     .str();
    failNaN(op, out.v[bad], element,
            elementwise ? llvm::join(operands, ", ") : "");
  }
}

void CTARun::checkProductNaN(Operation *op, ArrayRef<double> out, int64_t m,
                             int64_t n, int64_t rowOffset, ArrayRef<double> a,
                             ArrayRef<double> b, ArrayRef<double> acc) {
  auto finite = [](ArrayRef<double> xs) {
    return llvm::all_of(xs, [](double x) { return std::isfinite(x); });
  };
  for (int64_t i = 0; i < m * n; ++i) {
    if (std::isfinite(out[i]))
      continue;
    if (!finite(a) || !finite(b) || !finite(acc))
      return;
    failNaN(op, out[i],
            llvm::formatv(" at element [{0}, {1}] of the product",
                          rowOffset + i / n, i % n)
                .str(),
            "");
  }
}

} // namespace jfa::interp
