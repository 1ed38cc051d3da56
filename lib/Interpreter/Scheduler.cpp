//===- Scheduler.cpp - jfa-interp's executors and control flow --------------===//
//
// Scheduling the executors of a cluster's CTAs (one runs at a time,
// handing a baton to the scheduler when it blocks; deadlock when none can
// move), setting up the CTAs' state, and scf control flow.
//===----------------------------------------------------------------------===//
#include "lib/Interpreter/CTARun.h"
#include "lib/Interpreter/OpHandlers.h"

#include "JFA/TaskInfo.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <limits>

using namespace mlir;

namespace jfa::interp {

CTARun::CTARun(Interpreter &interp, std::array<int64_t, 3> origin)
    : interp(interp), kernel(interp.kernel), origin(origin),
      tmemColumnsPerLane(interp.target.tensorMemoryColumns) {
  const auto &dims = interp.clusterDims;
  clusterSize = int(dims[0] * dims[1] * dims[2]);
  cancelFailureSeenAt.assign(clusterSize, nullptr);
}

std::array<int64_t, 3> CTARun::ctaIdOf(int rank) const {
  // Ranks run x fastest.
  const auto &dims = interp.clusterDims;
  return {origin[0] + rank % dims[0], origin[1] + rank / dims[0] % dims[1],
          origin[2] + rank / (dims[0] * dims[1])};
}

std::string CTARun::ctaName(int rank) const {
  auto id = ctaIdOf(rank);
  return llvm::formatv("CTA ({0}, {1}, {2})", id[0], id[1], id[2]).str();
}

int CTARun::peerRank(Executor &e, Operation *op, Value cta, const char *verb) {
  int64_t rank = intScalar(e, op, cta);
  if (rank < 0 || rank >= clusterSize)
    fail(op, Twine(verb) + " CTA rank " + Twine(rank) +
                 ", outside the cluster of " + Twine(clusterSize) +
                 (clusterSize == 1 ? " CTA" : " CTAs") + " (ranks 0 to " +
                 Twine(clusterSize - 1) + ")");
  return int(rank);
}

uint64_t CTARun::multicastMask(Executor &e, Operation *op, Value maskValue) {
  if (!maskValue)
    return uint64_t(1) << e.ctaRank;
  uint64_t mask = asUnsigned(scalar(e, op, maskValue), 16);
  std::string name = op->getName().getStringRef().str();
  if (mask == 0)
    fail(op, name + "'s multicast mask is 0: it names no CTA, so it would "
                    "land nowhere");
  if (mask >> clusterSize)
    fail(op, name + "'s multicast mask " + Twine(mask) + " names CTA rank " +
                 Twine(llvm::Log2_64(mask)) + ", outside the cluster of " +
                 Twine(clusterSize) + (clusterSize == 1 ? " CTA" : " CTAs") +
                 " (ranks 0 to " + Twine(clusterSize - 1) + ")");
  return mask;
}

//===----------------------------------------------------------------------===//
// Scheduling
//===----------------------------------------------------------------------===//

void CTARun::yieldToScheduler(Executor &e) {
  std::unique_lock<std::mutex> lock(mutex);
  running = -1;
  cv.notify_all();
  cv.wait(lock, [&] { return running == e.id; });
  if (cancelled)
    throw Abort{};
}

void CTARun::block(Executor &e, Operation *op,
                   const std::function<bool()> &ready,
                   std::function<std::string()> why) {
  if (ready())
    return;
  e.blocked = true;
  e.blockedOp = op;
  e.blockedWhy = std::move(why);
  while (!ready())
    yieldToScheduler(e);
  e.blocked = false;
  e.progressed = true;
}

void CTARun::executorMain(Executor &e) {
  {
    std::unique_lock<std::mutex> lock(mutex);
    cv.wait(lock, [&] { return running == e.id; });
  }
  try {
    if (!cancelled)
      runKernelBody(e);
  } catch (Abort &) {
  } catch (std::exception &ex) {
    kernel.emitError("jfa-interp: internal error in ")
        << e.label << ": " << ex.what();
    hasFailed = true;
  }
  std::unique_lock<std::mutex> lock(mutex);
  e.done = true;
  e.progressed = true;
  running = -1;
  cv.notify_all();
}

void CTARun::schedule() {
  for (auto &e : execs)
    e->thread = std::thread([this, ex = e.get()] { executorMain(*ex); });
  auto resume = [&](Executor &e) {
    std::unique_lock<std::mutex> lock(mutex);
    running = e.id;
    cv.notify_all();
    cv.wait(lock, [&] { return running == -1; });
  };
  while (!hasFailed) {
    bool anyLeft = false, anyProgress = false;
    for (auto &e : execs) {
      if (e->done)
        continue;
      anyLeft = true;
      e->progressed = false;
      resume(*e);
      anyProgress |= e->progressed;
      if (hasFailed)
        break;
    }
    if (!anyLeft || hasFailed)
      break;
    if (!anyProgress) {
      reportDeadlock();
      hasFailed = true;
    }
  }
  cancelled = true;
  for (auto &e : execs)
    if (!e->done)
      resume(*e);
  for (auto &e : execs)
    e->thread.join();
}

void CTARun::reportDeadlock() {
  Executor *first = nullptr;
  for (auto &e : execs)
    if (!e->done && e->blocked) {
      first = e.get();
      break;
    }
  std::string where = ctaName(0);
  if (clusterSize > 1)
    where = "the cluster of " + where + " to " + ctaName(clusterSize - 1);
  InFlightDiagnostic diag = (first ? first->blockedOp : kernel.getOperation())
                                ->emitError("deadlock in ")
                            << where
                            << ": every task that has not finished is blocked";
  for (auto &e : execs) {
    if (e->done) {
      diag.attachNote(kernel.getLoc()) << e->label << " has finished";
      continue;
    }
    diag.attachNote(e->blockedOp->getLoc())
        << e->label << " is blocked here: " << e->blockedWhy();
  }
}

//===----------------------------------------------------------------------===//
// Set-up
//===----------------------------------------------------------------------===//

LogicalResult CTARun::setUp() {
  Block &body = kernel.getBodyBlock();
  AsyncTasksOp tasks;
  for (Operation &op : body)
    if (auto t = dyn_cast<AsyncTasksOp>(op))
      tasks = t;

  // The per-thread (distributed) forms hold vectors; the interpreter runs
  // kernels as written.
  WalkResult distributed = kernel.walk([&](Operation *op) {
    auto isVector = [](Type t) { return isa<VectorType>(t); };
    if (llvm::any_of(op->getOperandTypes(), isVector) ||
        llvm::any_of(op->getResultTypes(), isVector)) {
      op->emitError("jfa-interp runs kernels as written: this op works on a "
                    "per-thread vector (the form jfa-distribute-tiles makes)");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (distributed.wasInterrupted())
    return failure();
  // In a kernel with tasks, what is outside them runs on every warp: the
  // interpreter takes only values and allocations from there.
  if (tasks) {
    for (Operation &op : body) {
      if (isa<AsyncTasksOp, LocalAllocOp, AllocBarriersOp, TmemAllocOp,
              LoadOp>(op) ||
          isMemoryEffectFree(&op))
        continue;
      return op.emitError("jfa-interp models side effects outside "
                          "jfa.async_tasks only in kernels without tasks; "
                          "move this op into a task");
    }
  }

  auto addExecutors = [&](int rank, int taskIndex, int64_t firstWarp,
                          int64_t numWarps) {
    int numWg = numWarps % 4 == 0 ? int(numWarps / 4) : 1;
    for (int g = 0; g < numWg; ++g) {
      auto e = std::make_unique<Executor>();
      e->id = int(execs.size());
      e->ctaRank = rank;
      e->ctaId = ctaIdOf(rank);
      e->taskIndex = taskIndex;
      e->wg = g;
      e->numWg = numWg;
      e->taskFirstThread = firstWarp * 32;
      e->taskThreads = numWarps * 32;
      e->numThreads = e->taskThreads / numWg;
      e->firstThread = e->taskFirstThread + g * e->numThreads;
      std::string s;
      llvm::raw_string_ostream os(s);
      if (taskIndex < 0)
        os << "the kernel";
      else
        os << "task " << taskIndex << " (warps " << firstWarp << "-"
           << firstWarp + numWarps - 1 << ")";
      if (numWg > 1)
        os << " warpgroup " << g;
      e->statLabel = s;
      if (clusterSize > 1)
        os << " of " << ctaName(rank);
      e->label = s;
      execs.push_back(std::move(e));
    }
  };
  SmallVector<TaskInfo> layout;
  if (tasks) {
    auto computed = computeTaskLayout(tasks);
    if (failed(computed))
      return tasks.emitError("the tasks' warps do not add up to the kernel's");
    layout = std::move(*computed);
  }
  // Each CTA's executors together, in rank order.
  for (int rank = 0; rank < clusterSize; ++rank) {
    if (tasks) {
      for (auto [i, task] : llvm::enumerate(layout))
        addExecutors(rank, int(i), task.firstWarp, task.numWarps);
    } else {
      addExecutors(rank, -1, 0, kernel.getNumWarps());
    }
  }

  // Shared memory, barriers and tensor memory, in program order.
  int64_t tmemNext = 0;
  for (Operation &op : body) {
    if (auto alloc = dyn_cast<LocalAllocOp>(op)) {
      auto type = cast<SharedBufferType>(alloc.getType());
      BufferState b;
      b.alloc = &op;
      b.numSlots = type.getNumSlots();
      ArrayRef<int64_t> shape = type.getShape();
      // A rank-1 slot is N rows of one element, as a rank-1 tile is.
      b.rows = shape[0];
      b.cols = shape.size() == 2 ? shape[1] : 1;
      if (shape.size() > 2)
        return alloc.emitError("jfa-interp models slots of rank 1 and 2");
      b.elem = type.getElementType();
      // Poison: a read of what nothing wrote shows up as NaN (and as an
      // error from the race checker).
      b.data.assign(b.numSlots * b.rows * b.cols,
                    std::numeric_limits<double>::quiet_NaN());
      // Column blocks as the slots store them (SlotType::getColumnBlocks).
      b.blockCols = b.cols;
      if (shape.size() == 2) {
        auto slotType = SlotType::get(op.getContext(), shape, b.elem,
                                      type.getSwizzle(), /*transposed=*/false);
        b.colBlocks = slotType.getColumnBlocks();
        b.blockCols = b.cols / b.colBlocks;
      }
      b.shadow.resize(b.numSlots * b.rows * b.colBlocks);
      bufferOf[&op] = int(buffers.size());
      buffers.push_back(std::move(b));
    } else if (auto alloc = dyn_cast<AllocBarriersOp>(op)) {
      auto type = cast<BarrierArrayType>(alloc.getType());
      barrierBaseOf[&op] = int(barriers.size());
      for (int64_t i = 0; i < type.getSize(); ++i) {
        BarrierState s;
        s.alloc = &op;
        s.indexInArray = i;
        s.count = alloc.getArriveCount();
        barriers.push_back(std::move(s));
      }
    } else if (auto alloc = dyn_cast<TmemAllocOp>(op)) {
      auto type = cast<TensorMemoryType>(alloc.getType());
      tmemColumnOf[&op] = tmemNext;
      tmemNext += type.getColumns();
      if (tmemNext > tmemColumnsPerLane)
        return alloc.emitError("the kernel allocates ")
               << tmemNext << " tensor-memory columns; a CTA has "
               << tmemColumnsPerLane << " on " << interp.target.name;
    }
  }
  // The other CTAs' shared memory: rank 0's, replicated.
  buffersPerCta = int(buffers.size());
  barriersPerCta = int(barriers.size());
  for (int rank = 1; rank < clusterSize; ++rank) {
    for (int i = 0; i < buffersPerCta; ++i)
      buffers.push_back(buffers[i]);
    for (int i = 0; i < barriersPerCta; ++i)
      barriers.push_back(barriers[i]);
  }
  tmemLaneStride = clusterSize * tmemColumnsPerLane;
  tmem.assign(kTmemLanes * tmemLaneStride, 0x7fc00000u);
  tmemShadow.assign(tmemLaneStride, Shadow());
  named.resize(16 * clusterSize);

  numComps = 5 * execs.size() + barriers.size();
  for (auto &e : execs) {
    e->vc.assign(numComps, 0);
    e->vc[execComp(*e)] = 1;
    e->lvc.assign(numComps, 0);
    e->lvc[leaderComp(*e)] = 1;
    e->wgmmaVC.assign(numComps, 0);
    e->tcVC.assign(numComps, 0);
  }
  for (auto &b : barriers) {
    b.phase.assign(numComps, 0);
  }
  for (auto &n : named)
    n.joined.assign(numComps, 0);
  clusterBarrier.joined.assign(numComps, 0);
  return success();
}

LogicalResult CTARun::run() {
  if (failed(setUp()))
    return failure();
  schedule();
  // One table per CTA; the totals add up the same executor of every CTA.
  for (int rank = 0; interp.options.stats && rank < clusterSize; ++rank) {
    std::vector<std::string> labels;
    std::vector<ExecStats> stats;
    for (auto &e : execs) {
      if (e->ctaRank != rank)
        continue;
      labels.push_back(e->statLabel);
      stats.push_back(e->stats);
    }
    if (interp.options.statsPerCta)
      printStats(llvm::outs(),
                 ctaName(rank) + (hasFailed ? ", stopped by an error" : ""),
                 labels, stats);
    interp.addStats(labels, stats);
  }
  return failure(hasFailed);
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

void CTARun::runKernelBody(Executor &e) {
  Block &body = kernel.getBodyBlock();
  for (auto [i, arg] : llvm::enumerate(body.getArguments())) {
    ArgState &state = interp.args[i];
    RtValue r;
    r.type = arg.getType();
    r.id = int(i);
    if (state.kind == ArgState::Scalar) {
      r = makeData(state.scalar);
    } else {
      r.kind = state.kind == ArgState::Desc ? RtValue::Desc : RtValue::Ptr;
    }
    set(e, arg, r);
  }
  for (Operation &op : body) {
    if (auto tasks = dyn_cast<AsyncTasksOp>(op)) {
      int i = 0;
      for (auto task : tasks.getBody().front().getOps<TaskOp>()) {
        if (i++ == e.taskIndex)
          runRegion(e, task.getBody(), {});
      }
      continue;
    }
    exec(e, &op);
  }
}

SmallVector<RtValue> CTARun::runRegion(Executor &e, Region &region,
                                       ArrayRef<RtValue> blockArgs) {
  Block &block = region.front();
  for (auto [arg, value] : llvm::zip(block.getArguments(), blockArgs))
    set(e, arg, value);
  for (Operation &op : block) {
    if (auto yield = dyn_cast<scf::YieldOp>(op)) {
      SmallVector<RtValue> results;
      for (Value v : yield.getOperands())
        results.push_back(get(e, v));
      return results;
    }
    exec(e, &op);
  }
  return {};
}

void CTARun::exec(Executor &e, Operation *op) {
  e.progressed = true;
  // One thread of the task issues these: the warpgroup that holds it.
  if (op->hasTrait<SingleThreadIssue>() && e.wg != 0)
    return;
  if (interp.options.stats) {
    ++e.stats.numOps;
    ++e.stats.ops[op->getName()];
  }
  const OpHandler *handler = getOpHandlers().lookup(op);
  if (!handler)
    fail(op,
         "jfa-interp does not model '" + op->getName().getStringRef() + "'");
  (*handler)(*this, e, op);
  if (interp.options.nanCheck)
    checkNaN(e, op);
}

//===----------------------------------------------------------------------===//
// Control-flow handlers
//===----------------------------------------------------------------------===//

static void runFor(CTARun &run, Executor &e, scf::ForOp forOp) {
  Operation *op = forOp;
  int64_t lb = run.intScalar(e, op, forOp.getLowerBound());
  int64_t ub = run.intScalar(e, op, forOp.getUpperBound());
  int64_t step = run.intScalar(e, op, forOp.getStep());
  if (step <= 0)
    run.fail(op, "scf.for with step " + Twine(step) +
                     ": the step must be positive");
  Type ivType = forOp.getInductionVar().getType();
  SmallVector<RtValue> carried;
  for (Value v : forOp.getInitArgs())
    carried.push_back(run.get(e, v));
  for (int64_t iv = lb; iv < ub; iv += step) {
    SmallVector<RtValue> blockArgs;
    blockArgs.push_back(run.makeData(run.newScalar(ivType, double(iv))));
    blockArgs.append(carried.begin(), carried.end());
    carried = run.runRegion(e, forOp.getRegion(), blockArgs);
  }
  for (auto [result, value] : llvm::zip(forOp.getResults(), carried))
    run.set(e, result, value);
}

static void runWhile(CTARun &run, Executor &e, scf::WhileOp whileOp) {
  SmallVector<RtValue> carried;
  for (Value v : whileOp.getInits())
    carried.push_back(run.get(e, v));
  while (true) {
    Block &before = whileOp.getBefore().front();
    for (auto [arg, value] : llvm::zip(before.getArguments(), carried))
      run.set(e, arg, value);
    for (Operation &inner : before.without_terminator())
      run.exec(e, &inner);
    scf::ConditionOp condition = whileOp.getConditionOp();
    SmallVector<RtValue> forwarded;
    for (Value v : condition.getArgs())
      forwarded.push_back(run.get(e, v));
    if (run.scalar(e, whileOp, condition.getCondition()) == 0) {
      carried = std::move(forwarded);
      break;
    }
    carried = run.runRegion(e, whileOp.getAfter(), forwarded);
  }
  for (auto [result, value] : llvm::zip(whileOp.getResults(), carried))
    run.set(e, result, value);
}

static void runIf(CTARun &run, Executor &e, scf::IfOp ifOp) {
  bool cond = run.scalar(e, ifOp, ifOp.getCondition()) != 0;
  SmallVector<RtValue> results;
  if (cond)
    results = run.runRegion(e, ifOp.getThenRegion(), {});
  else if (!ifOp.getElseRegion().empty())
    results = run.runRegion(e, ifOp.getElseRegion(), {});
  for (auto [result, value] : llvm::zip(ifOp.getResults(), results))
    run.set(e, result, value);
}

void registerControlFlowHandlers(OpHandlerTable &table) {
  table.add<scf::ForOp>(runFor);
  table.add<scf::WhileOp>(runWhile);
  table.add<scf::IfOp>(runIf);
}

} // namespace jfa::interp
