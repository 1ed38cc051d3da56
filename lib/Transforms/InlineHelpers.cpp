//===- InlineHelpers.cpp - inline the device helpers ---------------------===//
//
// A helper (jfa.func) is code written once for several tasks or kernels: the
// unit schedule that a producer and its consumers must agree on, a mask, an
// online-softmax step. GPU kernels here have no calls: each jfa.call becomes
// a copy of the helper's body, so every later pass (barrier checking, tile
// distribution, task lowering) sees the kernel as if it had been written
// out. Copied ops keep the helper's location, "called from" the call, so
// a diagnostic in a helper says which use it is about. A helper's layout
// parameter is written as the layout the call binds it to, its stage
// parameter as the ring depth, its element parameter as the operands'
// element type and its rows parameter as the tiles' rows (HelperOps.cpp); a
// helper without a stage parameter called from a bound copy takes that copy's
// binding, so that its jfa.ring_position of the parameter's depth follows the
// ring.
//
//===----------------------------------------------------------------------===//
#include "lib/Transforms/Passes.h"

#include "JFA/HelperOps.h"

#include "mlir/IR/IRMapping.h"

namespace jfa {
#define GEN_PASS_DEF_JFAINLINEHELPERS
#include "lib/Transforms/Passes.h.inc"
} // namespace jfa

using namespace mlir;
using namespace jfa;

namespace {

/// A stage parameter and the depth a call bound it to.
struct StageBinding {
  int64_t param = 0;
  int64_t stages = 0;
};

/// A copy whose rows parameter the call binds to other rows cannot hold a
/// dense constant tile of those rows that is not a splat (its data has the
/// written rows): an error at the first, "called from" the call.
LogicalResult checkRowsConstants(FuncOp callee, ArrayRef<Operation *> copies,
                                 int64_t rows) {
  std::optional<uint64_t> param = callee.getRowsParameter();
  if (!param || rows <= 0 || uint64_t(rows) == *param)
    return success();
  for (Operation *copy : copies) {
    WalkResult walk = copy->walk([&](Operation *op) {
      for (NamedAttribute attr : op->getAttrs()) {
        auto dense = dyn_cast<DenseElementsAttr>(attr.getValue());
        if (!dense || dense.isSplat() ||
            rowsOf(dense.getType()) != int64_t(*param))
          continue;
        op->emitOpError() << "in @" << callee.getSymName()
                          << ", its rows parameter " << *param << " bound to "
                          << rows << ": " << dense.getType()
                          << " holds a constant that is not a splat, whose "
                             "values cannot take other rows";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
  }
  return success();
}

/// Inlines every call under `root`; `active` holds the helpers being
/// inlined around it (a call to one of them is a cycle), `outer` the stage
/// binding of the copy `root` is in (none at a kernel).
LogicalResult inlineCalls(Operation *root, SymbolTable &helpers,
                          SmallVectorImpl<FuncOp> &active,
                          StageBinding outer = {}) {
  SmallVector<CallOp> calls;
  root->walk([&](CallOp call) { calls.push_back(call); });
  for (CallOp call : calls) {
    auto callee = helpers.lookup<FuncOp>(call.getCallee());
    if (!callee)
      return call.emitOpError() << "calls @" << call.getCallee()
                                << ", which is no jfa.func of this module";
    if (llvm::is_contained(active, callee)) {
      auto diag = call.emitError()
                  << "helper @" << callee.getSymName()
                  << " calls itself; helpers are inlined and cannot recurse";
      for (FuncOp f : active)
        diag.attachNote(f.getLoc()) << "@" << f.getSymName() << " is here";
      return diag;
    }
    // A call copied out of a helper whose layout parameter was bound has
    // types the verifier never saw: check them against the callee here.
    if (failed(call.verifyAgainst(
            callee, "the call is in a helper whose layout, stage, element or "
                    "rows parameter this use bound to another")))
      return failure();
    Attribute layout =
        callee.boundLayout(call.getArgs().getTypes(), call.getResultTypes());
    Type element =
        callee.boundElement(call.getArgs().getTypes(), call.getResultTypes());
    int64_t rows =
        callee.boundRows(call.getArgs().getTypes(), call.getResultTypes());
    StageBinding binding = outer;
    if (std::optional<int64_t> param = callee.getStageParameter())
      binding = {*param, callee.boundStages(call.getArgs().getTypes(),
                                            call.getResultTypes())};
    IRMapping mapping;
    Block &body = callee.getBody().front();
    for (auto [arg, operand] : llvm::zip(body.getArguments(), call.getArgs()))
      mapping.map(arg, operand);
    OpBuilder builder(call);
    SmallVector<Operation *> copies;
    for (Operation &op : body.without_terminator())
      copies.push_back(builder.clone(op, mapping));
    Location callLoc = call.getLoc();
    for (Operation *copy : copies)
      copy->walk([&](Operation *op) {
        op->setLoc(CallSiteLoc::get(op->getLoc(), callLoc));
      });
    // A layout, stage, element or rows parameter becomes what the call
    // binds it to (an element type that does not fit a copied type is an
    // error there, "called from" the call).
    if (failed(checkRowsConstants(callee, copies, rows)))
      return failure();
    for (Operation *copy : copies) {
      callee.bindLayoutIn(copy, layout);
      FuncOp::bindStagesIn(copy, binding.param, binding.stages);
      callee.bindRowsIn(copy, rows);
      if (failed(callee.bindElementIn(copy, element)))
        return failure();
    }
    auto ret = cast<ReturnOp>(body.getTerminator());
    for (auto [result, value] : llvm::zip(call.getResults(), ret.getOperands()))
      result.replaceAllUsesWith(mapping.lookupOrDefault(value));
    call.erase();
    active.push_back(callee);
    for (Operation *copy : copies)
      if (failed(inlineCalls(copy, helpers, active, binding)))
        return failure();
    active.pop_back();
  }
  return success();
}

struct InlineHelpersPass : jfa::impl::JFAInlineHelpersBase<InlineHelpersPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable helpers(module);
    for (KernelOp kernel : module.getOps<KernelOp>()) {
      SmallVector<FuncOp> active;
      if (failed(inlineCalls(kernel, helpers, active)))
        return signalPassFailure();
    }
    // A cycle among helpers no kernel calls is still an error.
    for (FuncOp helper : module.getOps<FuncOp>()) {
      SmallVector<FuncOp> active{helper};
      FuncOp copy = helper.clone();
      LogicalResult result = inlineCalls(copy, helpers, active);
      copy.erase();
      if (failed(result))
        return signalPassFailure();
    }
    for (FuncOp helper : llvm::make_early_inc_range(module.getOps<FuncOp>()))
      helper.erase();
  }
};

} // namespace
