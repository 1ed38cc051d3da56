//===- Specialize.cpp - fix the compile-time parameters ------------------===//
//
// `jfa.param` ops become constants: the value given on the command line
// (jfac -P NAME=VALUE, the pass's `params` option) or the parameter's
// default. The values chosen are recorded on the kernel (`jfa.params`) so
// that the metadata, and through it the runtime, knows which variant a
// cubin is.
//
//===----------------------------------------------------------------------===//
#include "lib/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"

namespace jfa {
#define GEN_PASS_DEF_JFASPECIALIZE
#include "lib/Transforms/Passes.h.inc"
} // namespace jfa

using namespace mlir;
using namespace jfa;

namespace {

/// `text` as a value of `type`, or null with `why` set.
TypedAttr parseParamValue(StringRef text, Type type, std::string &why) {
  StringRef trimmed = text.trim();
  if (trimmed != text || text.empty()) {
    why = "is empty or has spaces around it";
    return {};
  }
  if (type.isInteger(1)) {
    if (text == "1" || text == "true")
      return BoolAttr::get(type.getContext(), true);
    if (text == "0" || text == "false")
      return BoolAttr::get(type.getContext(), false);
    why = "is not 0, 1, true or false";
    return {};
  }
  if (type.isSignlessIntOrIndex()) {
    unsigned width = type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
    StringRef digits = text;
    bool negative = digits.consume_front("-");
    // Decimal only: a leading 0 would read as octal elsewhere.
    if (digits.empty() || !llvm::all_of(digits, llvm::isDigit) ||
        (digits.size() > 1 && digits.front() == '0')) {
      why = "is not a decimal integer";
      return {};
    }
    APInt magnitude;
    if (digits.getAsInteger(10, magnitude)) {
      why = "is not a decimal integer";
      return {};
    }
    // Signed range of the type: [-2^(w-1), 2^(w-1) - 1].
    APInt limit = APInt::getOneBitSet(width + 1, width - 1);
    magnitude =
        magnitude.zextOrTrunc(std::max(magnitude.getBitWidth(), width + 1));
    limit = limit.zext(magnitude.getBitWidth());
    if (negative ? magnitude.ugt(limit) : magnitude.uge(limit)) {
      why =
          "does not fit in a signed " + std::to_string(width) + "-bit integer";
      return {};
    }
    APInt value = magnitude.trunc(width);
    if (negative)
      value = -value;
    return IntegerAttr::get(type, value);
  }
  if (auto floatType = dyn_cast<FloatType>(type)) {
    APFloat value(floatType.getFloatSemantics());
    auto status = value.convertFromString(text, APFloat::rmNearestTiesToEven);
    if (!status) {
      llvm::consumeError(status.takeError());
      why = "is not a number";
      return {};
    }
    if (!value.isFinite()) {
      why = "is not finite";
      return {};
    }
    if (*status & (APFloat::opOverflow | APFloat::opUnderflow)) {
      why = "is out of the type's range";
      return {};
    }
    return FloatAttr::get(type, value);
  }
  why = "has a type parameters cannot have";
  return {};
}

bool isScalar(Type type) { return type.isIntOrIndexOrFloat(); }

/// Folds one pure op on scalars with a constant operand. True if it changed
/// the IR.
bool foldScalarOp(Operation *op) {
  if (op->getNumResults() != 1 || !isScalar(op->getResult(0).getType()) ||
      !isPure(op) || op->getNumRegions() != 0 ||
      op->hasTrait<OpTrait::ConstantLike>())
    return false;
  // Constant operands as attributes, the others null (a select needs only
  // its condition).
  SmallVector<Attribute> operands;
  bool anyConstant = false;
  for (Value operand : op->getOperands()) {
    Attribute value;
    if (isScalar(operand.getType()) &&
        matchPattern(operand, m_Constant(&value)))
      anyConstant = true;
    operands.push_back(value);
  }
  if (!anyConstant)
    return false;
  SmallVector<OpFoldResult> results;
  if (failed(op->fold(operands, results)) || results.size() != 1)
    return false;
  Value replacement = dyn_cast<Value>(results[0]);
  if (replacement == op->getResult(0))
    return false; // folded in place: nothing to substitute
  if (!replacement) {
    auto value = dyn_cast<TypedAttr>(cast<Attribute>(results[0]));
    if (!value || value.getType() != op->getResult(0).getType())
      return false;
    OpBuilder builder(op);
    replacement = arith::ConstantOp::create(builder, op->getLoc(), value);
  }
  op->getResult(0).replaceAllUsesWith(replacement);
  op->erase();
  return true;
}

/// Replaces an scf.if on a constant by the branch it takes.
bool inlineConstantIf(scf::IfOp ifOp) {
  BoolAttr condition;
  if (!matchPattern(ifOp.getCondition(), m_Constant(&condition)))
    return false;
  Region &taken =
      condition.getValue() ? ifOp.getThenRegion() : ifOp.getElseRegion();
  if (taken.empty()) {
    ifOp.erase(); // no else: no results either
    return true;
  }
  Block &block = taken.front();
  Operation *yield = block.getTerminator();
  ifOp.replaceAllUsesWith(yield->getOperands());
  yield->erase();
  ifOp->getBlock()->getOperations().splice(ifOp->getIterator(),
                                           block.getOperations());
  ifOp.erase();
  return true;
}

/// Folds what the parameters (and constant helper arguments) decide: scalar
/// arithmetic on constants and the scf.if branches on them, so that a kernel
/// specialized for D=64 holds no branch on the head dim at all. Tiles and
/// constants elsewhere are left where they are (the canonicalizer would hoist
/// tile constants out of their tasks).
void foldParameterBranches(KernelOp kernel) {
  bool changed = true;
  while (changed) {
    changed = false;
    kernel.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (auto ifOp = dyn_cast<scf::IfOp>(op))
        changed = inlineConstantIf(ifOp);
      else
        changed = foldScalarOp(op);
      return changed ? WalkResult::interrupt() : WalkResult::advance();
    });
  }
  // Arithmetic only the folded branches used, and shared-memory buffers
  // only they used: those take no shared memory in this variant.
  for (bool erased = true; erased;) {
    SmallVector<Operation *> dead;
    kernel.walk([&](Operation *op) {
      bool deadScalar = isa<arith::ArithDialect>(op->getDialect()) &&
                        op->getNumResults() == 1 &&
                        isScalar(op->getResult(0).getType());
      if ((deadScalar || isa<LocalAllocOp>(op)) && isOpTriviallyDead(op))
        dead.push_back(op);
    });
    for (Operation *op : dead)
      op->erase();
    erased = !dead.empty();
  }
}

/// A loop whose step the parameters fix at zero or below never ends on the
/// GPU (or counts away from its bound), and the canonicalizer deletes it
/// without a word: an error here, before anything folds it.
LogicalResult checkLoopSteps(KernelOp kernel) {
  bool ok = true;
  kernel.walk([&](scf::ForOp loop) {
    APInt step;
    if (!matchPattern(loop.getStep(), m_ConstantInt(&step)) ||
        step.isStrictlyPositive())
      return;
    loop.emitError() << "scf.for with step " << step.getSExtValue()
                     << ": the step must be positive";
    ok = false;
  });
  return success(ok);
}

struct SpecializePass : jfa::impl::JFASpecializeBase<SpecializePass> {
  using JFASpecializeBase::JFASpecializeBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto kernels = llvm::to_vector(module.getOps<KernelOp>());
    Location where = kernels.empty() ? module.getLoc() : kernels[0].getLoc();

    // NAME=VALUE pairs, each name once.
    llvm::StringMap<std::string> given;
    for (const std::string &param : params) {
      auto [name, value] = StringRef(param).split('=');
      if (name.empty() || !StringRef(param).contains('=')) {
        emitError(where) << "parameter '" << param
                         << "' is not NAME=VALUE (e.g. -P head_dim=64)";
        return signalPassFailure();
      }
      if (!given.try_emplace(name, value.str()).second) {
        emitError(where) << "parameter '" << name << "' is given twice";
        return signalPassFailure();
      }
    }

    // What each kernel declares, for the error on a name none declares.
    std::string declared;
    for (KernelOp kernel : kernels) {
      std::string names;
      for (auto param : kernel.getBodyBlock().getOps<ParamOp>())
        names += (names.empty() ? "" : ", ") + param.getParamName().str();
      declared += "; @" + kernel.getSymName().str() + " declares " +
                  (names.empty() ? std::string("none") : names);
    }

    llvm::StringSet<> used;
    bool failed = false;
    for (KernelOp kernel : kernels) {
      SmallVector<NamedAttribute> chosen;
      for (auto param : llvm::make_early_inc_range(
               kernel.getBodyBlock().getOps<ParamOp>())) {
        StringRef name = param.getParamName();
        TypedAttr value = param.getDefaultValueAttr();
        auto it = given.find(name);
        if (it != given.end()) {
          used.insert(name);
          std::string why;
          value = parseParamValue(it->second, param.getType(), why);
          if (!value) {
            param.emitError()
                << "parameter '" << name << "' of @" << kernel.getSymName()
                << " is " << param.getType() << "; the value '" << it->second
                << "' " << why;
            failed = true;
            continue;
          }
        } else if (!value) {
          param.emitError()
              << "parameter '" << name << "' of @" << kernel.getSymName()
              << " has no default; give it (jfac -P " << name << "=<value>)";
          failed = true;
          continue;
        }
        chosen.emplace_back(StringAttr::get(&getContext(), name), value);
        OpBuilder builder(param);
        Value constant =
            arith::ConstantOp::create(builder, param.getLoc(), value);
        param.replaceAllUsesWith(constant);
        param.erase();
      }
      if (!chosen.empty())
        getContext()
            .getLoadedDialect<JFADialect>()
            ->getParamsAttrHelper()
            .setAttr(kernel, DictionaryAttr::get(&getContext(), chosen));
      // Also in a kernel without parameters: a helper's constant arguments
      // (a GEMM's `multicast` flag) decide branches the same way, and
      // jfa-check-barriers counts arrivals on the straight code left.
      foldParameterBranches(kernel);
      if (mlir::failed(checkLoopSteps(kernel)))
        failed = true;
    }

    for (const auto &entry : given) {
      if (used.contains(entry.getKey()))
        continue;
      emitError(where) << "no kernel declares a parameter '" << entry.getKey()
                       << "'" << declared;
      failed = true;
    }
    if (failed)
      signalPassFailure();
  }
};

} // namespace
