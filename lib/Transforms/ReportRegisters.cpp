//===- ReportRegisters.cpp - each task's peak of live registers -----------===//
//
// After tile distribution a tile is a per-thread vector, so what a thread
// keeps live at each point of its task can be counted in 32-bit registers.
// The peak, where it is reached and the largest values live there tell a
// kernel author which tile to shrink or shorten the life of when ptxas
// spills (jfac --register-report). The count is of SSA values live in the
// IR jfac hands to LLVM: NVPTX and ptxas then schedule, rematerialize and
// add address registers, so it is a guide to where pressure comes from,
// not ptxas's figure.
//
//===----------------------------------------------------------------------===//
#include "lib/Transforms/Passes.h"

#include "mlir/Analysis/Liveness.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <fmt/format.h>

namespace jfa {
#define GEN_PASS_DEF_JFAREPORTREGISTERS
#include "lib/Transforms/Passes.h.inc"
} // namespace jfa

using namespace mlir;
using namespace jfa;

namespace {

/// 32-bit registers a value of `type` takes in one thread: predicates (i1)
/// none, 64-bit scalars and pointers two, a vector its elements' bits.
int64_t registersOf(Type type) {
  if (auto vector = dyn_cast<VectorType>(type)) {
    int64_t bits = vector.getElementTypeBitWidth() * vector.getNumElements();
    return vector.getElementType().isInteger(1) ? 0 : (bits + 31) / 32;
  }
  if (type.isInteger(1))
    return 0;
  if (type.isIntOrFloat())
    return (type.getIntOrFloatBitWidth() + 31) / 32;
  if (type.isIndex() || isa<GlobalPtrType, TensorDescType>(type))
    return 2;
  // Shared-memory slots, barriers, tensor-memory addresses: 32 bits.
  return 1;
}

/// Whether a value can be made again where it is used at no register cost:
/// a kernel argument (read from the constant bank), a constant, or a pure
/// op of such values (a slot's or barrier's address, a splat of an
/// argument). ptxas rematerializes these rather than keep them live.
bool isRematerializable(Value value, DenseMap<Value, bool> &known,
                        unsigned depth = 0) {
  if (auto it = known.find(value); it != known.end())
    return it->second;
  bool result = false;
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    Operation *owner = arg.getOwner()->getParentOp();
    result = isa<KernelOp>(owner);
    // A loop-carried value the body passes through unchanged (a head-dim
    // branch's unused accumulator) is its initial value throughout.
    if (auto loop = dyn_cast<LoopLikeOpInterface>(owner)) {
      OpOperand *init = loop.getTiedLoopInit(arg);
      OpOperand *yielded = loop.getTiedLoopYieldedValue(arg);
      if (init && yielded && yielded->get() == arg && depth < 8) {
        known[value] = false; // a cycle through the loop is not one
        result = isRematerializable(init->get(), known, depth + 1);
      }
    }
  } else if (Operation *def = value.getDefiningOp()) {
    result = def->hasTrait<OpTrait::ConstantLike>() ||
             (depth < 8 && def->getNumRegions() == 0 && isPure(def) &&
              llvm::all_of(def->getOperands(), [&](Value operand) {
                return isRematerializable(operand, known, depth + 1);
              }));
  }
  known[value] = result;
  return result;
}

/// What a live value costs in registers, with what is known of which values
/// can be made again (one per run of the pass).
class Costs {
public:
  /// Registers a live `value` costs: none if it can be made again where
  /// it is used, a broadcast or splat what its source holds (a scalar, a
  /// thread's row values), anything else its type's size.
  int64_t of(Value value) {
    if (isRematerializable(value, rematerializable))
      return 0;
    Operation *def = value.getDefiningOp();
    if (def && isa<vector::BroadcastOp, BroadcastRowsOp>(def))
      return registersOf(def->getOperand(0).getType());
    return registersOf(value.getType());
  }

private:
  DenseMap<Value, bool> rematerializable;
};

/// The file:line:col a diagnostic would show (inlined helpers report the
/// helper's line; the call site follows it).
std::string where(Location loc) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto call = dyn_cast<CallSiteLoc>(loc)) {
    os << where(call.getCallee()) << " (called from " << where(call.getCaller())
       << ")";
    return text;
  }
  if (auto file = dyn_cast<FileLineColLoc>(loc)) {
    os << file.getFilename().getValue() << ":" << file.getLine() << ":"
       << file.getColumn();
    return text;
  }
  if (auto fused = dyn_cast<FusedLoc>(loc))
    if (!fused.getLocations().empty())
      return where(fused.getLocations().front());
  if (auto named = dyn_cast<NameLoc>(loc))
    return where(named.getChildLoc());
  os << loc;
  return text;
}

struct Peak {
  int64_t registers = -1;
  Operation *at = nullptr;
  SmallVector<Value> live;
};

/// Values live across `op`: those its block keeps live at it that are
/// neither its results nor operands it is the last user of, and those live
/// across each op enclosing it up to `root`: values used after that op,
/// and under a loop its bounds and every outside value its body uses (the
/// next iteration needs them). A value made by or inside an enclosing op
/// is counted where it is made, not again for the op (a loop's results are
/// its carried block arguments).
void liveAcross(Operation *op, Operation *root, Liveness &liveness,
                llvm::SetVector<Value> &live) {
  if (const LivenessBlockInfo *info = liveness.getLiveness(op->getBlock()))
    for (Value value : info->currentlyLiveValues(op))
      if (value.getDefiningOp() != op && !liveness.isDeadAfter(value, op))
        live.insert(value);
  for (Operation *at = op->getParentOp(); at && at != root;
       at = at->getParentOp()) {
    const LivenessBlockInfo *info = liveness.getLiveness(at->getBlock());
    if (!info)
      continue;
    auto loop = dyn_cast<LoopLikeOpInterface>(at);
    for (Value value : info->currentlyLiveValues(at)) {
      if (value.getDefiningOp() == at ||
          at->isAncestor(value.getParentBlock()->getParentOp()))
        continue;
      bool usedInside = llvm::any_of(value.getUsers(), [&](Operation *user) {
        return at->isProperAncestor(user);
      });
      bool loopOperand = loop && llvm::is_contained(at->getOperands(), value) &&
                         !llvm::is_contained(loop.getInits(), value);
      if (!liveness.isDeadAfter(value, at) ||
          (loop && (usedInside || loopOperand)))
        live.insert(value);
    }
  }
}

/// Registers one thread needs at `op`: what stays live across it, plus the
/// larger of the operands it consumes for the last time and its results
/// (a result may reuse a dying operand's registers).
int64_t registersAt(Operation *op, Operation *root, Liveness &liveness,
                    Costs &costs, SmallVectorImpl<Value> &live) {
  llvm::SetVector<Value> across;
  liveAcross(op, root, liveness, across);
  int64_t total = 0;
  for (Value value : across)
    total += costs.of(value);
  int64_t dying = 0, made = 0;
  llvm::SetVector<Value> consumed;
  for (Value operand : op->getOperands())
    if (!across.contains(operand) && consumed.insert(operand))
      dying += costs.of(operand);
  for (Value result : op->getResults())
    made += costs.of(result);
  live.assign(across.begin(), across.end());
  if (made >= dying)
    llvm::append_range(live, op->getResults());
  else
    llvm::append_range(live, consumed);
  return total + std::max(dying, made);
}

Peak peakOf(Operation *root, Liveness &liveness, Costs &costs) {
  Peak peak;
  root->walk([&](Operation *op) {
    if (op == root || op->getNumRegions() != 0)
      return;
    SmallVector<Value> live;
    int64_t registers = registersAt(op, root, liveness, costs, live);
    if (registers > peak.registers) {
      peak.registers = registers;
      peak.at = op;
      peak.live = std::move(live);
    }
  });
  return peak;
}

std::string describe(Value value, Costs &costs) {
  std::string type;
  llvm::raw_string_ostream os(type);
  os << value.getType();
  Location loc = value.getLoc();
  return fmt::format("{} ({} registers) from {}", type, costs.of(value),
                     where(loc));
}

struct ReportRegisters : jfa::impl::JFAReportRegistersBase<ReportRegisters> {
  using JFAReportRegistersBase::JFAReportRegistersBase;

  void runOnOperation() override {
    Costs costs;
    getOperation().walk([&](KernelOp kernel) {
      Liveness liveness(kernel);
      bool hasTasks = false;
      kernel.walk([&](TaskOp task) {
        hasTasks = true;
        std::optional<uint32_t> budget;
        if (task.getRegisters())
          budget = *task.getRegisters();
        report(task, budget, liveness, costs);
      });
      // Without jfa.async_tasks the whole CTA is one task.
      if (!hasTasks)
        report(kernel, std::nullopt, liveness, costs);
    });
  }

  void report(Operation *task, std::optional<uint32_t> budget,
              Liveness &liveness, Costs &costs) {
    Peak peak = peakOf(task, liveness, costs);
    if (!peak.at)
      return;
    // Largest first; among equals, the one made first.
    llvm::stable_sort(
        peak.live, [&](Value a, Value b) { return costs.of(a) > costs.of(b); });
    std::string what = budget ? fmt::format("registers({})", *budget)
                              : std::string("no registers(...) budget");
    InFlightDiagnostic diag =
        task->emitRemark() << fmt::format(
            "{} ({}): at most {} live 32-bit values per thread, "
            "at {}",
            isa<KernelOp>(task) ? "kernel" : "task", what, peak.registers,
            where(peak.at->getLoc()));
    if (budget && peak.registers > *budget)
      diag << "; more than the budget: ptxas must reorder or "
              "rematerialize, or spill";
    size_t shown = 0;
    for (Value value : peak.live) {
      if (shown == topValues || costs.of(value) == 0)
        break;
      diag.attachNote(value.getLoc())
          << "live there: " << describe(value, costs);
      ++shown;
    }
  }
};

} // namespace
