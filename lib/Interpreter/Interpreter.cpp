//===- Interpreter.cpp - runs JFA kernels on the CPU ----------------------===//
//
// Each executor (a warpgroup of a task, or the whole task when it has fewer
// than four warps) runs on its own host thread, but only one runs at a time:
// they hand a baton to a scheduler whenever they block, so a run is
// deterministic and the interpreter itself needs no locks. An executor runs
// until it blocks; when a full round finds none that can move, the CTA is
// deadlocked.
//
// Values are logical tiles (every executor of a task computes the whole
// tile; the expensive tensor-core products only for the rows its warpgroup
// holds) and memory effects are restricted to the rows the executor's
// threads hold in the tile's layout, which is what the hardware does.
//
// Races are found by happens-before. Vector clocks have one component per
// executor, per executor's asynchronous pipe (wgmma, tcgen05, TMA stores)
// and per mbarrier: a TMA load's bytes belong to the phase of the barrier
// they complete, so reading them needs to have waited on that very phase.
//
//===----------------------------------------------------------------------===//
#include "lib/Interpreter/Interpreter.h"
#include "lib/Interpreter/Arguments.h"
#include "lib/Interpreter/Npy.h"
#include "lib/Interpreter/Stats.h"
#include "lib/Interpreter/Values.h"

#include "compiler/FileIO.h"

#include "JFA/TaskInfo.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <memory>
#include <mutex>
#include <thread>

using namespace mlir;

namespace jfa::interp {
namespace {

/// Unwinds an executor after an error or when its CTA is cancelled.
struct Abort {};

//===----------------------------------------------------------------------===//
// Happens-before
//===----------------------------------------------------------------------===//

using VC = std::vector<uint32_t>;

void join(VC &into, const VC &from) {
  for (size_t i = 0; i < into.size(); ++i)
    into[i] = std::max(into[i], from[i]);
}

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

struct Access {
  uint32_t comp = kNone;
  uint32_t clock = 0;
  Operation *op = nullptr;
  int exec = -1;
  /// A read by threads (generic proxy), not by TMA or the tensor cores.
  bool generic = false;
};

/// The access history of one row of a slot or one tensor-memory column.
struct Shadow {
  Access write;
  /// The last write was by threads (generic proxy), not TMA/tensor cores.
  bool generic = false;
  SmallVector<Access, 4> reads;
};

//===----------------------------------------------------------------------===//
// CTA state
//===----------------------------------------------------------------------===//

struct BufferState {
  Operation *alloc = nullptr;
  int64_t numSlots = 0, rows = 0, cols = 0;
  Type elem;
  std::vector<double> data;
  std::vector<Shadow> shadow; // one per (slot, stored row)
};

struct BarrierState {
  Operation *alloc = nullptr;
  int64_t indexInArray = 0;
  int64_t count = 1;
  int64_t arrivals = 0;
  int64_t tx = 0;
  uint32_t completed = 0;
  VC phase;
  VC done[2];
  bool doneValid[2] = {false, false};
};

struct NamedBarrierState {
  int64_t threads = 0;
  int64_t arrived = 0;
  Operation *firstOp = nullptr;
  int64_t generation = 0;
  VC joined;
  std::map<int64_t, VC> completedVC;
};

struct Executor {
  int id = 0;
  int taskIndex = -1; // -1: the whole CTA (no async_tasks)
  int wg = 0, numWg = 1;
  int64_t firstThread = 0, numThreads = 0;      // in the CTA
  int64_t taskFirstThread = 0, taskThreads = 0; // the task's
  std::string label;

  /// What the executor's threads know: the view of the ops all of them run
  /// (their component is execComp). `lvc` is what the one thread that
  /// issues the single-thread ops (TMA, expect, tc_dot, tc_commit) knows
  /// (its component is leaderComp): the two differ until a barrier orders
  /// the threads with each other, so the threads' writes reach a TMA store
  /// or a tc_dot only through a jfa.task_barrier or an mbarrier wait.
  VC vc, lvc;
  DenseMap<Value, RtValue> env;

  // Asynchronous pipes.
  int64_t dotsIssued = 0, dotsDone = 0;
  VC wgmmaVC;
  int64_t tcIssued = 0;
  VC tcVC;
  int64_t storesIssued = 0;
  /// The threads' and the issuing thread's clocks at each
  /// jfa.fence_async_shared.
  std::vector<uint32_t> fences, leaderFences;

  // Scheduling.
  std::thread thread;
  bool done = false, progressed = false, blocked = false;
  Operation *blockedOp = nullptr;
  std::function<std::string()> blockedWhy;

  ExecStats stats;
};

class CTARun;

//===----------------------------------------------------------------------===//
// The interpreter
//===----------------------------------------------------------------------===//

class Interpreter {
public:
  Interpreter(KernelOp kernel, const RunOptions &options)
      : kernel(kernel), options(options) {}

  LogicalResult run();

  KernelOp kernel;
  const RunOptions &options;
  std::vector<ArgState> args;
  DenseMap<Value, std::string> names;
  std::array<int64_t, 3> ctaId = {0, 0, 0};
  /// --stats over the CTAs run so far, per executor.
  std::vector<std::string> statLabels;
  std::vector<ExecStats> statTotals;
  int64_t ctasRun = 0;

  void addStats(ArrayRef<std::string> labels, ArrayRef<ExecStats> stats);
  void printStatTotals();

  LogicalResult loadArguments();
  LogicalResult writeArguments();
  std::string nameOf(Value value);
};

std::string Interpreter::nameOf(Value value) {
  auto it = names.find(value);
  if (it != names.end())
    return it->second;
  if (auto arg = dyn_cast<BlockArgument>(value))
    return llvm::formatv("%arg{0}", arg.getArgNumber()).str();
  return "%<" + value.getDefiningOp()->getName().getStringRef().str() + ">";
}

//===----------------------------------------------------------------------===//
// One CTA
//===----------------------------------------------------------------------===//

class CTARun {
public:
  CTARun(Interpreter &interp) : interp(interp), kernel(interp.kernel) {}
  LogicalResult run();

private:
  Interpreter &interp;
  KernelOp kernel;

  std::vector<std::unique_ptr<Executor>> execs;
  std::vector<BufferState> buffers;
  DenseMap<Operation *, int> bufferOf;
  std::vector<BarrierState> barriers;
  DenseMap<Operation *, int> barrierBaseOf;
  DenseMap<Operation *, int64_t> tmemColumnOf;
  static constexpr int64_t kTmemLanes = 128, kTmemColumns = 512;
  std::vector<uint32_t> tmem;
  std::vector<Shadow> tmemShadow;
  NamedBarrierState named[16];
  size_t numComps = 0;

  // Baton.
  std::mutex mutex;
  std::condition_variable cv;
  int running = -1; // -1: the scheduler
  bool cancelled = false;
  bool hasFailed = false;

  // Vector-clock components.
  uint32_t execComp(const Executor &e) const { return e.id; }
  uint32_t wgmmaComp(const Executor &e) const { return execs.size() + e.id; }
  uint32_t tcComp(const Executor &e) const { return 2 * execs.size() + e.id; }
  uint32_t storeComp(const Executor &e) const {
    return 3 * execs.size() + e.id;
  }
  uint32_t leaderComp(const Executor &e) const {
    return 4 * execs.size() + e.id;
  }
  uint32_t barrierComp(int b) const { return 5 * execs.size() + b; }

  LogicalResult setUp();
  void schedule();
  void executorMain(Executor &e);
  void yieldToScheduler(Executor &e);
  void block(Executor &e, Operation *op, const std::function<bool()> &ready,
             std::function<std::string()> why);
  void reportDeadlock();

  [[noreturn]] void fail(Operation *op, const Twine &message,
                         Operation *noteOp = nullptr,
                         const Twine &note = Twine()) {
    InFlightDiagnostic diag = op->emitError(message);
    if (noteOp)
      diag.attachNote(noteOp->getLoc()) << note;
    hasFailed = true;
    throw Abort{};
  }

  // Interpretation.
  void runKernelBody(Executor &e);
  SmallVector<RtValue> runRegion(Executor &e, Region &region,
                                 ArrayRef<RtValue> blockArgs);
  void exec(Executor &e, Operation *op);
  void execJFA(Executor &e, Operation *op);

  // --nan-check.
  /// After `op` ran: fails if a result element it owns is a NaN or an
  /// infinity while its operands are finite.
  void checkNaN(Executor &e, Operation *op);
  /// A tensor-core product: `out` (m x n, rows [0, m) owned) against its
  /// operands `a`, `b` and the accumulator it started from (empty: zero).
  void checkProductNaN(Operation *op, ArrayRef<double> out, int64_t m,
                       int64_t n, int64_t rowOffset, ArrayRef<double> a,
                       ArrayRef<double> b, ArrayRef<double> acc);
  [[noreturn]] void failNaN(Operation *op, double value,
                            const std::string &element,
                            const std::string &operands);
  /// The rows of a tile in `layout` that `e` holds, [lo, hi); all rows in
  /// layouts it does not divide between warpgroups.
  std::pair<int64_t, int64_t> heldRows(Executor &e, Attribute layout,
                                       int64_t rows);
  bool execArith(Executor &e, Operation *op);

  RtValue &get(Executor &e, Value v) {
    auto it = e.env.find(v);
    if (it == e.env.end())
      fail(v.getParentBlock()->getParentOp(),
           "jfa-interp: internal error: a value is used before it is set");
    return it->second;
  }
  void set(Executor &e, Value v, RtValue r) { e.env[v] = std::move(r); }
  /// A data operand of `op`, which must not be an accumulator in flight.
  const Tile &data(Executor &e, Operation *op, Value v);
  /// A uniform scalar operand.
  double scalar(Executor &e, Operation *op, Value v);
  int64_t intScalar(Executor &e, Operation *op, Value v) {
    return int64_t(scalar(e, op, v));
  }
  RtValue makeData(TileP tile) {
    RtValue r;
    r.kind = RtValue::Data;
    r.data = std::move(tile);
    return r;
  }
  TileP newTile(Type type);
  TileP newScalar(Type type, double x) {
    auto t = std::make_shared<Tile>();
    t->elem = type;
    t->v = {roundTo(type, x)};
    return t;
  }
  RtValue elementwise(Executor &e, Operation *op,
                      const std::function<double(const double *)> &f,
                      Type resultType);

  // Ownership: rows [lo, hi) of a tile in `layout` held by `e`.
  std::pair<int64_t, int64_t> ownedRows(Executor &e, Operation *op,
                                        Attribute layout, int64_t rows);

  // Memory checks.
  void checkRead(Executor &e, Operation *op, Shadow &s, const VC &view,
                 Access self, const std::string &what, bool asyncProxy);
  /// Whether the threads that made `access` (by threads) issued a
  /// jfa.fence_async_shared after it that `view` has seen.
  bool fencedSince(const Access &access, const VC &view);
  /// Whether `access` was made by the threads of `e` and `op` is a
  /// single-thread op of `e`: the issuing thread sees the others' accesses
  /// only through a barrier.
  bool byOtherThreads(Executor &e, Operation *op, const Access &access);
  void checkWrite(Executor &e, Operation *op, Shadow &s, const VC &view,
                  Access self, const std::string &what, bool generic);
  std::string slotWhat(const RtValue &slot, int64_t row);
  Shadow &slotShadow(const RtValue &slot, int64_t storedRow) {
    BufferState &b = buffers[slot.id];
    return b.shadow[slot.index * b.rows + storedRow];
  }
  double &slotElem(const RtValue &slot, int64_t r, int64_t c) {
    BufferState &b = buffers[slot.id];
    bool transposed = cast<SlotType>(slot.type).getTransposed();
    if (transposed)
      std::swap(r, c);
    return b.data[(slot.index * b.rows + r) * b.cols + c];
  }
  /// Records reads of stored rows [lo, hi) of a slot by `e` (generic) or an
  /// async pipe of `e` (view/self given).
  void readSlotRows(Executor &e, Operation *op, const RtValue &slot,
                    int64_t lo, int64_t hi, const VC &view, Access self,
                    bool asyncProxy);
  void writeSlotRows(Executor &e, Operation *op, const RtValue &slot,
                     int64_t lo, int64_t hi, const VC &view, Access self,
                     bool generic);
  /// An access by the executor's threads (all of them).
  Access genericAccess(Executor &e, Operation *op) {
    return Access{execComp(e), e.vc[execComp(e)], op, e.id};
  }
  /// An access by the thread that issues the single-thread ops.
  Access leaderAccess(Executor &e, Operation *op) {
    return Access{leaderComp(e), e.lvc[leaderComp(e)], op, e.id};
  }
  /// What the executor releases when all its threads arrive: what the
  /// threads and the issuing thread know.
  VC releaseView(Executor &e) {
    VC view = e.vc;
    join(view, e.lvc);
    return view;
  }
  /// After a release by all threads: later accesses are not covered by it.
  void tickAll(Executor &e) {
    ++e.vc[execComp(e)];
    ++e.lvc[leaderComp(e)];
  }
  /// Every thread of the executor (the issuing one too) acquires `from`.
  void acquire(Executor &e, const VC &from) {
    join(e.vc, from);
    join(e.lvc, from);
  }

  // Barriers.
  std::string barrierName(int b);
  void arrive(Executor &e, Operation *op, int b, int64_t count,
              const VC &view);
  void completeTx(Operation *op, int b, int64_t bytes);
  void maybeCompletePhase(int b);
  bool phaseDone(int b, int64_t parity) {
    return int64_t(barriers[b].completed % 2) != parity;
  }
  void acquirePhase(Executor &e, int b, int64_t parity) {
    if (barriers[b].doneValid[parity])
      acquire(e, barriers[b].done[parity]);
  }
  void namedBarrier(Executor &e, Operation *op, int64_t id, int64_t threads,
                    bool wait);
  /// Why a wait for `parity` on barrier `b` cannot return yet.
  std::string describeWait(int b, int64_t parity);

  // Tensor memory.
  uint32_t &tmemWord(int64_t lane, int64_t column) {
    return tmem[lane * kTmemColumns + column];
  }
  double tmemLoad(const RtValue &t, int64_t r, int64_t c);
  void tmemStore(const RtValue &t, int64_t r, int64_t c, double x);
  std::pair<int64_t, int64_t> tmemColumns(Operation *op, const RtValue &t,
                                          int64_t firstElem, int64_t elems);
  void accessTmem(Executor &e, Operation *op, int64_t lo, int64_t hi,
                  bool write, const VC &view, Access self, bool generic);

  // Global memory.
  ArgState &argOf(const RtValue &v) { return interp.args[v.id]; }
  /// Calls fn(slot element, global element or -1 when outside the tensor)
  /// for each element of the box at `coords` (outermost first) that a TMA
  /// copy between `slot` and `desc` moves.
  void forEachBoxElement(const RtValue &desc, const RtValue &slot,
                         ArrayRef<int64_t> coords,
                         function_ref<void(double &, int64_t)> fn);
  void checkGlobal(Operation *op, const RtValue &ptr, int64_t index,
                   const char *verb);
};

void CTARun::checkGlobal(Operation *op, const RtValue &ptr, int64_t index,
                         const char *verb) {
  ArgState &arg = argOf(ptr);
  if (index < 0 || index >= arg.numElements())
    fail(op, Twine(op->getName().getStringRef()) + " " + verb + " element " +
                 Twine(index) + " of argument " + Twine(ptr.id) + " (" +
                 arg.name + ", " + arg.path + "), which has " +
                 Twine(arg.numElements()) + " elements");
}

void CTARun::forEachBoxElement(const RtValue &desc, const RtValue &slot,
                               ArrayRef<int64_t> coords,
                               function_ref<void(double &, int64_t)> fn) {
  ArgState &arg = argOf(desc);
  auto type = cast<TensorDescType>(desc.type);
  BufferState &buf = buffers[slot.id];
  int64_t rows = coords.size() == 2 ? type.getBoxShape()[0] : 1;
  // The slot's width: a blocked slot takes one box per column block, the
  // boxes side by side in the tensor.
  int64_t cols = buf.cols;
  int64_t row0 = coords.size() == 2 ? coords[0] : 0;
  int64_t col0 = coords.back();
  int64_t gcols = arg.dims.back();
  int64_t grows = arg.dims.size() == 2 ? arg.dims[0] : 1;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      int64_t gr = row0 + r, gc = col0 + c;
      bool inside = gr >= 0 && gr < grows && gc >= 0 && gc < gcols;
      fn(buf.data[(slot.index * buf.rows + r) * buf.cols + c],
         inside ? gr * gcols + gc : -1);
    }
}

std::string CTARun::barrierName(int b) {
  BarrierState &s = barriers[b];
  Value array = s.alloc->getResult(0);
  return llvm::formatv("{0}[{1}]", interp.nameOf(array), s.indexInArray).str();
}

std::string CTARun::slotWhat(const RtValue &slot, int64_t row) {
  BufferState &b = buffers[slot.id];
  return llvm::formatv("row {0} of slot {1} of {2}", row, slot.index,
                       interp.nameOf(b.alloc->getResult(0)))
      .str();
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
  const auto &cta = interp.ctaId;
  InFlightDiagnostic diag =
      (first ? first->blockedOp : kernel.getOperation())
          ->emitError("deadlock in CTA (")
      << cta[0] << ", " << cta[1] << ", " << cta[2]
      << "): every task that has not finished is blocked";
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
  if (auto cluster = kernel.getClusterDims())
    for (int32_t d : *cluster)
      if (d > 1)
        return kernel.emitError("jfa-interp does not model clusters of more "
                                "than one CTA (cluster(...))");
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

  auto addExecutors = [&](int taskIndex, int64_t firstWarp,
                          int64_t numWarps) {
    int numWg = numWarps % 4 == 0 ? int(numWarps / 4) : 1;
    for (int g = 0; g < numWg; ++g) {
      auto e = std::make_unique<Executor>();
      e->id = int(execs.size());
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
      e->label = s;
      execs.push_back(std::move(e));
    }
  };
  if (tasks) {
    auto layout = computeTaskLayout(tasks);
    if (failed(layout))
      return tasks.emitError("the tasks' warps do not add up to the kernel's");
    int i = 0;
    for (auto task : tasks.getBody().front().getOps<TaskOp>()) {
      addExecutors(i, (*layout)[i].firstWarp, (*layout)[i].numWarps);
      ++i;
    }
  } else {
    addExecutors(-1, 0, kernel.getNumWarps());
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
      b.shadow.resize(b.numSlots * b.rows);
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
      if (tmemNext > kTmemColumns)
        return alloc.emitError("the kernel allocates ")
               << tmemNext << " tensor-memory columns; a CTA has "
               << kTmemColumns;
    }
  }
  tmem.assign(kTmemLanes * kTmemColumns, 0x7fc00000u);
  tmemShadow.assign(kTmemColumns, Shadow());

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
  return success();
}

LogicalResult CTARun::run() {
  if (failed(setUp()))
    return failure();
  schedule();
  if (interp.options.stats) {
    std::vector<std::string> labels;
    std::vector<ExecStats> stats;
    for (auto &e : execs) {
      labels.push_back(e->label);
      stats.push_back(e->stats);
    }
    if (interp.options.statsPerCta) {
      const auto &cta = interp.ctaId;
      printStats(llvm::outs(),
                 llvm::formatv("CTA ({0}, {1}, {2}){3}", cta[0], cta[1], cta[2],
                               hasFailed ? ", stopped by an error" : "")
                     .str(),
                 labels, stats);
    }
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
  if (auto forOp = dyn_cast<scf::ForOp>(op)) {
    int64_t lb = intScalar(e, op, forOp.getLowerBound());
    int64_t ub = intScalar(e, op, forOp.getUpperBound());
    int64_t step = intScalar(e, op, forOp.getStep());
    if (step <= 0)
      fail(op, "scf.for with step " + Twine(step) +
                   ": the step must be positive");
    Type ivType = forOp.getInductionVar().getType();
    SmallVector<RtValue> carried;
    for (Value v : forOp.getInitArgs())
      carried.push_back(get(e, v));
    for (int64_t iv = lb; iv < ub; iv += step) {
      SmallVector<RtValue> blockArgs;
      blockArgs.push_back(makeData(newScalar(ivType, double(iv))));
      blockArgs.append(carried.begin(), carried.end());
      carried = runRegion(e, forOp.getRegion(), blockArgs);
    }
    for (auto [result, value] : llvm::zip(forOp.getResults(), carried))
      set(e, result, value);
    return;
  }
  if (auto whileOp = dyn_cast<scf::WhileOp>(op)) {
    SmallVector<RtValue> carried;
    for (Value v : whileOp.getInits())
      carried.push_back(get(e, v));
    while (true) {
      Block &before = whileOp.getBefore().front();
      for (auto [arg, value] : llvm::zip(before.getArguments(), carried))
        set(e, arg, value);
      for (Operation &inner : before.without_terminator())
        exec(e, &inner);
      scf::ConditionOp condition = whileOp.getConditionOp();
      SmallVector<RtValue> forwarded;
      for (Value v : condition.getArgs())
        forwarded.push_back(get(e, v));
      if (scalar(e, op, condition.getCondition()) == 0) {
        carried = std::move(forwarded);
        break;
      }
      carried = runRegion(e, whileOp.getAfter(), forwarded);
    }
    for (auto [result, value] : llvm::zip(whileOp.getResults(), carried))
      set(e, result, value);
    return;
  }
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    bool cond = scalar(e, op, ifOp.getCondition()) != 0;
    SmallVector<RtValue> results;
    if (cond)
      results = runRegion(e, ifOp.getThenRegion(), {});
    else if (!ifOp.getElseRegion().empty())
      results = runRegion(e, ifOp.getElseRegion(), {});
    for (auto [result, value] : llvm::zip(ifOp.getResults(), results))
      set(e, result, value);
    return;
  }
  if (op->getDialect() && op->getDialect()->getNamespace() == "jfa") {
    execJFA(e, op);
  } else if (!execArith(e, op)) {
    fail(op,
         "jfa-interp does not model '" + op->getName().getStringRef() + "'");
  }
  if (interp.options.nanCheck)
    checkNaN(e, op);
}

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
          LoadRowsOp, LoadScalarOp, AsyncDotOp, AsyncDotWaitOp>(op))
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

//===----------------------------------------------------------------------===//
// Data
//===----------------------------------------------------------------------===//

const Tile &CTARun::data(Executor &e, Operation *op, Value v) {
  RtValue &r = get(e, v);
  if (r.kind != RtValue::Data)
    fail(op, "jfa-interp: internal error: operand is not data");
  const Tile &t = *r.data;
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

//===----------------------------------------------------------------------===//
// Ownership and memory checks
//===----------------------------------------------------------------------===//

std::pair<int64_t, int64_t> CTARun::ownedRows(Executor &e, Operation *op,
                                              Attribute layout,
                                              int64_t rows) {
  if (auto rowsOf = dyn_cast_or_null<RowsOfLayoutAttr>(layout))
    return ownedRows(e, op, rowsOf.getParent(), rows);
  if (e.numWg == 1)
    return {0, rows};
  if (isa_and_nonnull<WgmmaAccLayoutAttr>(layout)) {
    int64_t block = rows / e.numWg;
    return {e.wg * block, (e.wg + 1) * block};
  }
  fail(op, "jfa-interp models tiles in this layout only in tasks of one "
           "warpgroup (this task has " +
               Twine(e.numWg) + ")");
}

void CTARun::checkRead(Executor &e, Operation *op, Shadow &s, const VC &view,
                       Access self, const std::string &what,
                       bool asyncProxy) {
  if (s.write.comp == kNone)
    fail(op, "reads " + what + ", which nothing has written");
  if (view[s.write.comp] < s.write.clock && byOtherThreads(e, op, s.write))
    fail(op,
         "race: the one thread that issues '" + op->getName().getStringRef() +
             "' reads " + what + ", which the other threads of " + e.label +
             " wrote; nothing orders their writes before it (a "
             "jfa.task_barrier, or a wait on an mbarrier they all arrived "
             "on, between the write and this op would)",
         s.write.op, "the threads' write");
  if (view[s.write.comp] < s.write.clock)
    fail(op,
         "race: reads " + what +
             " without waiting for its last write (no barrier wait, "
             "jfa.async_dot_wait or commit orders the write before this read)",
         s.write.op, "the write");
  if (asyncProxy && s.generic && !fencedSince(s.write, view))
    fail(op,
         "the async proxy (TMA, tensor cores) reads " + what +
             ", which threads wrote without a jfa.fence_async_shared "
             "between that write and this read",
         s.write.op, "the write");
  Access read = self;
  read.generic = !asyncProxy;
  for (Access &r : s.reads)
    if (r.comp == read.comp) {
      r = read;
      return;
    }
  s.reads.push_back(read);
}

bool CTARun::fencedSince(const Access &access, const VC &view) {
  Executor &e = *execs[access.exec];
  bool leader = access.comp == leaderComp(e);
  const std::vector<uint32_t> &fences = leader ? e.leaderFences : e.fences;
  auto it = std::lower_bound(fences.begin(), fences.end(), access.clock);
  return it != fences.end() &&
         view[leader ? leaderComp(e) : execComp(e)] >= *it;
}

bool CTARun::byOtherThreads(Executor &e, Operation *op, const Access &access) {
  return op->hasTrait<SingleThreadIssue>() && access.exec == e.id &&
         access.comp == execComp(e);
}

void CTARun::checkWrite(Executor &e, Operation *op, Shadow &s, const VC &view,
                        Access self, const std::string &what, bool generic) {
  StringRef name = op->getName().getStringRef();
  if (s.write.comp != kNone && view[s.write.comp] < s.write.clock &&
      byOtherThreads(e, op, s.write))
    fail(op,
         "race: the one thread that issues '" + name + "' overwrites " + what +
             ", which the other threads of " + e.label +
             " wrote; nothing orders their writes before it (a "
             "jfa.task_barrier between them would)",
         s.write.op, "the threads' write");
  if (s.write.comp != kNone && view[s.write.comp] < s.write.clock)
    fail(op,
         "race: writes " + what +
             " while an earlier write to it is not ordered before this one",
         s.write.op, "the earlier write");
  for (Access &r : s.reads) {
    if (view[r.comp] >= r.clock)
      continue;
    if (byOtherThreads(e, op, r))
      fail(op,
           "race: the one thread that issues '" + name + "' overwrites " +
               what + ", which the other threads of " + e.label +
               " read; nothing orders their reads before it (a "
               "jfa.task_barrier, or a wait on an mbarrier they all arrived "
               "on, between the read and this op would)",
           r.op, "the threads' read");
    if (r.exec == e.id && r.comp == storeComp(e) && e.lvc[r.comp] >= r.clock)
      fail(op,
           "race: the threads of " + e.label + " overwrite " + what +
               " while, as far as they know, a jfa.tma_store still reads it: "
               "the jfa.tma_store_wait that completed the store tells only "
               "the thread that issued it; a jfa.task_barrier after the wait "
               "tells the others",
           r.op, "the jfa.tma_store");
    fail(op,
         "race: overwrites " + what +
             " before a read of it is known to be done (the reader has "
             "not released it through a barrier or wait this write "
             "follows)",
         r.op, "the read");
  }
  s.write = self;
  s.generic = generic;
  s.reads.clear();
}

void CTARun::readSlotRows(Executor &e, Operation *op, const RtValue &slot,
                          int64_t lo, int64_t hi, const VC &view, Access self,
                          bool asyncProxy) {
  for (int64_t r = lo; r < hi; ++r)
    checkRead(e, op, slotShadow(slot, r), view, self, slotWhat(slot, r),
              asyncProxy);
}

void CTARun::writeSlotRows(Executor &e, Operation *op, const RtValue &slot,
                           int64_t lo, int64_t hi, const VC &view,
                           Access self, bool generic) {
  for (int64_t r = lo; r < hi; ++r) {
    Shadow &s = slotShadow(slot, r);
    // A read by threads, then a write by the async proxy (a TMA load into a
    // slot the threads handed back through a barrier): the read must be
    // ordered before the write across the proxies, or the copy may land
    // before the read has taken its data (issue 24: the timing of
    // --debug-barriers showed it on the H200). A read not ordered at all is
    // checkWrite's race.
    if (!generic)
      for (Access &read : s.reads)
        if (read.generic && view[read.comp] >= read.clock &&
            !fencedSince(read, view))
          fail(op,
               "the async proxy (TMA) overwrites " + slotWhat(slot, r) +
                   ", which threads read without a jfa.fence_async_shared "
                   "between that read and the barrier that hands the slot "
                   "back",
               read.op, "the read");
    checkWrite(e, op, s, view, self, slotWhat(slot, r), generic);
  }
}

//===----------------------------------------------------------------------===//
// Barriers
//===----------------------------------------------------------------------===//

void CTARun::maybeCompletePhase(int b) {
  BarrierState &s = barriers[b];
  if (s.arrivals != s.count || s.tx != 0)
    return;
  s.phase[barrierComp(b)] = s.completed + 1;
  int parity = int(s.completed % 2);
  s.done[parity] = s.phase;
  s.doneValid[parity] = true;
  ++s.completed;
  s.arrivals = 0;
  // s.phase stays joined: the arrivals on one mbarrier form a release
  // sequence, so a later phase's waiter acquires the earlier phases too.
}

void CTARun::arrive(Executor &e, Operation *op, int b, int64_t count,
                    const VC &view) {
  BarrierState &s = barriers[b];
  if (s.arrivals + count > s.count)
    fail(op, "arrives " + Twine(count) + " time(s) on " + barrierName(b) +
                 ", which has only " + Twine(s.count - s.arrivals) +
                 " arrival(s) left in its phase " + Twine(s.completed) +
                 " (arrive_count(" + Twine(s.count) + "))",
         s.alloc, "the barrier array");
  s.arrivals += count;
  join(s.phase, view);
  maybeCompletePhase(b);
}

void CTARun::completeTx(Operation *op, int b, int64_t bytes) {
  barriers[b].tx -= bytes;
  maybeCompletePhase(b);
}

std::string CTARun::describeWait(int b, int64_t parity) {
  BarrierState &s = barriers[b];
  // A wait for a parity returns once a phase of that parity has completed,
  // that is, while the phase in progress has the other parity: this one is
  // blocked on the phase in progress.
  std::string text =
      llvm::formatv("waits on {0} for a phase of parity {1} "
                    "to complete, but the barrier's phase {2} "
                    "(parity {3}) is still in progress: ",
                    barrierName(b), parity, s.completed, s.completed % 2)
          .str();
  int64_t missing = s.count - s.arrivals;
  if (s.arrivals == 0)
    text += s.count == 1 ? std::string("its one arrival has not been made")
                         : llvm::formatv("none of its {0} arrivals has been "
                                         "made",
                                         s.count)
                               .str();
  else if (missing > 0)
    text += llvm::formatv("{0} of its {1} arrivals ha{2} been made, {3} "
                          "{4} missing",
                          s.arrivals, s.count, s.arrivals == 1 ? "s" : "ve",
                          missing, missing == 1 ? "is" : "are")
                .str();
  else
    text +=
        llvm::formatv("all {0} of its arrivals have been made", s.count).str();
  if (s.tx > 0)
    text += llvm::formatv(" and {0} transaction bytes are still to come "
                          "(expected by jfa.barrier_expect, not yet brought "
                          "by TMA)",
                          s.tx)
                .str();
  else if (s.tx < 0)
    text += llvm::formatv(" and TMA has brought {0} bytes more than "
                          "jfa.barrier_expect announced",
                          -s.tx)
                .str();
  else
    text += " and no transaction bytes are pending";
  if (s.completed == 0)
    text += llvm::formatv("; no phase of {0} has completed yet (on a fresh "
                          "barrier a wait for parity {1} returns at once)",
                          barrierName(b), 1 - parity)
                .str();
  return text;
}

void CTARun::namedBarrier(Executor &e, Operation *op, int64_t id,
                          int64_t threads, bool wait) {
  NamedBarrierState &n = named[id];
  if (n.arrived > 0 && n.threads != threads)
    fail(op,
         "named barrier " + Twine(id) + " is used with threads(" +
             Twine(threads) + ") while threads(" + Twine(n.threads) +
             ") are expected in its current phase",
         n.firstOp, "the phase began here");
  if (n.arrived == 0) {
    n.threads = threads;
    n.firstOp = op;
  }
  n.arrived += e.numThreads;
  if (n.arrived > threads)
    fail(op, Twine(n.arrived) + " threads arrive at named barrier " +
                 Twine(id) + ", more than its threads(" + Twine(threads) +
                 ")");
  join(n.joined, releaseView(e));
  int64_t generation = n.generation;
  if (n.arrived == threads) {
    n.completedVC[generation] = n.joined;
    ++n.generation;
    n.arrived = 0;
    n.joined.assign(numComps, 0);
  }
  tickAll(e);
  if (!wait)
    return;
  ++e.stats.namedSyncs;
  block(
      e, op, [&n, generation] { return n.generation > generation; },
      [&n, id, op] {
        std::string what =
            isa<TaskBarrierOp>(op)     ? " (the task's jfa.task_barrier)"
            : isa<ConvertLayoutOp>(op) ? " (jfa.convert_layout's sync)"
                                       : "";
        return llvm::formatv("waits at named barrier {0}{1} for threads({2}), "
                             "but its phase is still in progress: {3} "
                             "thread{4} arrived, {5} still missing",
                             id, what, n.threads, n.arrived,
                             n.arrived == 1 ? " has" : "s have",
                             n.threads - n.arrived)
            .str();
      });
  acquire(e, n.completedVC[generation]);
}

//===----------------------------------------------------------------------===//
// Tensor memory
//===----------------------------------------------------------------------===//

std::pair<int64_t, int64_t> CTARun::tmemColumns(Operation *op,
                                                const RtValue &t,
                                                int64_t firstElem,
                                                int64_t elems) {
  auto type = cast<TensorMemoryType>(t.type);
  int64_t bits = type.getElementType().getIntOrFloatBitWidth();
  if (firstElem < 0 || firstElem + elems > type.getShape()[1])
    fail(op, "accesses columns [" + Twine(firstElem) + ", " +
                 Twine(firstElem + elems) + ") of a tensor-memory tile of " +
                 Twine(type.getShape()[1]) + " columns");
  if (bits == 16 && firstElem % 2 != 0)
    fail(op, "accesses a 16-bit tensor-memory tile from column " +
                 Twine(firstElem) +
                 "; it packs two elements per 32-bit column, so the first "
                 "column must be even");
  int64_t lo = t.column + firstElem * bits / 32;
  int64_t hi = t.column + ((firstElem + elems) * bits + 31) / 32;
  return {lo, hi};
}

double CTARun::tmemLoad(const RtValue &t, int64_t r, int64_t c) {
  auto type = cast<TensorMemoryType>(t.type);
  Type elem = type.getElementType();
  if (elem.getIntOrFloatBitWidth() == 32) {
    uint32_t w = tmemWord(r, t.column + c);
    float f;
    std::memcpy(&f, &w, 4);
    return f;
  }
  uint32_t w = tmemWord(r, t.column + c / 2);
  uint16_t bits = uint16_t(w >> (16 * (c % 2)));
  return elem.isBF16() ? fromBF16Bits(bits) : fromF16Bits(bits);
}

void CTARun::tmemStore(const RtValue &t, int64_t r, int64_t c, double x) {
  auto type = cast<TensorMemoryType>(t.type);
  Type elem = type.getElementType();
  if (elem.getIntOrFloatBitWidth() == 32) {
    float f = float(x);
    std::memcpy(&tmemWord(r, t.column + c), &f, 4);
    return;
  }
  uint32_t &w = tmemWord(r, t.column + c / 2);
  uint32_t bits = elem.isBF16() ? bf16Bits(x) : f16Bits(x);
  int shift = 16 * (c % 2);
  w = (w & ~(0xffffu << shift)) | (bits << shift);
}

void CTARun::accessTmem(Executor &e, Operation *op, int64_t lo, int64_t hi,
                        bool write, const VC &view, Access self,
                        bool generic) {
  for (int64_t c = lo; c < hi; ++c) {
    std::string what = llvm::formatv("tensor-memory column {0}", c).str();
    if (write)
      checkWrite(e, op, tmemShadow[c], view, self, what, generic);
    else
      checkRead(e, op, tmemShadow[c], view, self, what, false);
  }
}

//===----------------------------------------------------------------------===//
// JFA ops
//===----------------------------------------------------------------------===//

void CTARun::execJFA(Executor &e, Operation *op) {
  auto &cta = interp.ctaId;
  const RunOptions &options = interp.options;
  Access self = genericAccess(e, op);

  auto slotIndexCheck = [&](Operation *at, int64_t index, int64_t size,
                            const char *what) {
    if (index < 0 || index >= size)
      fail(at, Twine(what) + " index " + Twine(index) +
                   " is out of bounds for " + Twine(size) + " " + what +
                   (size == 1 ? "" : "s"));
  };

  // A K-major operand of a tensor-core product, as [rows][k] values.
  auto operandRows = [&](const RtValue &v, int64_t lo, int64_t hi,
                         int64_t k) {
    std::vector<double> out((hi - lo) * k);
    if (v.kind == RtValue::Slot) {
      for (int64_t r = lo; r < hi; ++r)
        for (int64_t c = 0; c < k; ++c)
          out[(r - lo) * k + c] = slotElem(v, r, c);
    } else if (v.kind == RtValue::Tmem) {
      for (int64_t r = lo; r < hi; ++r)
        for (int64_t c = 0; c < k; ++c)
          out[(r - lo) * k + c] = tmemLoad(v, r, c);
    } else {
      const Tile &t = *v.data;
      for (int64_t r = lo; r < hi; ++r)
        for (int64_t c = 0; c < k; ++c)
          out[(r - lo) * k + c] = t.v[r * t.cols() + c];
    }
    return out;
  };
  // acc[m][n] (+)= sum_k a[m][k] b[n][k], one fp32 rounding per 16 of K
  // (one MMA instruction).
  auto product = [](double *acc, const std::vector<double> &a,
                    const std::vector<double> &b, int64_t m, int64_t n,
                    int64_t k, int64_t accStride) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = acc[i * accStride + j];
        const double *ai = &a[i * k], *bj = &b[j * k];
        for (int64_t k0 = 0; k0 < k; k0 += 16) {
          double part = 0;
          for (int64_t x = k0; x < std::min(k, k0 + 16); ++x)
            part += ai[x] * bj[x];
          sum = double(float(sum + part));
        }
        acc[i * accStride + j] = sum;
      }
  };
  auto slotRowsTouched = [&](const RtValue &slot, int64_t lo, int64_t hi)
      -> std::pair<int64_t, int64_t> {
    if (cast<SlotType>(slot.type).getTransposed())
      return {0, buffers[slot.id].rows};
    return {lo, hi};
  };
  auto ptrIndexCheck = [&](const RtValue &ptr, int64_t index,
                           const char *verb) {
    checkGlobal(op, ptr, index, verb);
  };

  llvm::TypeSwitch<Operation *, void>(op)
      .Case<ProgramIdOp>([&](ProgramIdOp id) {
        set(e, id.getResult(),
            makeData(newScalar(id.getType(),
                               double(cta[int(id.getDim())]))));
      })
      .Case<NumProgramsOp>([&](NumProgramsOp n) {
        set(e, n.getResult(),
            makeData(newScalar(n.getType(),
                               double(options.grid[int(n.getDim())]))));
      })
      .Case<ThreadIdOp, TaskThreadIdOp>([&](Operation *) {
        auto t = std::make_shared<Tile>();
        t->elem = op->getResult(0).getType();
        t->varying = true;
        int64_t base = isa<ThreadIdOp>(op) ? e.firstThread
                                           : e.firstThread - e.taskFirstThread;
        for (int64_t i = 0; i < e.numThreads; ++i)
          t->v.push_back(double(base + i));
        set(e, op->getResult(0), makeData(t));
      })
      .Case<LocalAllocOp>([&](LocalAllocOp alloc) {
        RtValue r;
        r.kind = RtValue::Buffer;
        r.id = bufferOf.lookup(op);
        r.type = alloc.getType();
        set(e, alloc.getResult(), r);
      })
      .Case<AllocBarriersOp>([&](AllocBarriersOp alloc) {
        RtValue r;
        r.kind = RtValue::Barriers;
        r.id = barrierBaseOf.lookup(op);
        r.index = cast<BarrierArrayType>(alloc.getType()).getSize();
        r.type = alloc.getType();
        set(e, alloc.getResult(), r);
      })
      .Case<TmemAllocOp>([&](TmemAllocOp alloc) {
        RtValue r;
        r.kind = RtValue::Tmem;
        r.column = tmemColumnOf.lookup(op);
        r.type = alloc.getType();
        set(e, alloc.getResult(), r);
      })
      .Case<TmemSliceOp>([&](TmemSliceOp slice) {
        RtValue r = get(e, slice.getTmem());
        auto [lo, hi] = tmemColumns(op, r, int64_t(slice.getColumns()),
                                    cast<TensorMemoryType>(slice.getType())
                                        .getShape()[1]);
        (void)hi;
        r.column = lo;
        r.type = slice.getType();
        set(e, slice.getResult(), r);
      })
      .Case<TmemDeallocOp>([&](auto) {})
      .Case<SlotOp>([&](SlotOp s) {
        RtValue buffer = get(e, s.getBuffer());
        int64_t index = intScalar(e, op, s.getIndex());
        slotIndexCheck(op, index, buffers[buffer.id].numSlots, "slot");
        RtValue r = buffer;
        r.kind = RtValue::Slot;
        r.index = index;
        r.type = s.getType();
        set(e, s.getResult(), r);
      })
      .Case<TransposeOp>([&](TransposeOp t) {
        RtValue r = get(e, t.getSlot());
        r.type = t.getType();
        set(e, t.getResult(), r);
      })
      .Case<BarrierOp>([&](BarrierOp b) {
        RtValue array = get(e, b.getBarriers());
        int64_t index = intScalar(e, op, b.getIndex());
        slotIndexCheck(op, index, array.index, "barrier");
        RtValue r;
        r.kind = RtValue::Barrier;
        r.id = int(array.id + index);
        r.type = b.getType();
        set(e, b.getResult(), r);
      })
      .Case<LocalLoadOp>([&](LocalLoadOp load) {
        RtValue slot = get(e, load.getSlot());
        TileP t = newTile(load.getType());
        auto [lo, hi] = ownedRows(e, op, t->layout, t->rows());
        auto [slo, shi] = slotRowsTouched(slot, lo, hi);
        readSlotRows(e, op, slot, slo, shi, e.vc, self, false);
        for (int64_t r = 0; r < t->rows(); ++r)
          for (int64_t c = 0; c < t->cols(); ++c)
            t->v[r * t->cols() + c] = slotElem(slot, r, c);
        set(e, load.getResult(), makeData(t));
      })
      .Case<LocalStoreOp>([&](LocalStoreOp store) {
        const Tile &t = data(e, op, store.getValue());
        RtValue slot = get(e, store.getSlot());
        auto [lo, hi] = ownedRows(e, op, t.layout, t.rows());
        auto [slo, shi] = slotRowsTouched(slot, lo, hi);
        writeSlotRows(e, op, slot, slo, shi, e.vc, self, true);
        for (int64_t r = lo; r < hi; ++r)
          for (int64_t c = 0; c < t.cols(); ++c)
            slotElem(slot, r, c) = roundTo(buffers[slot.id].elem,
                                           t.v[r * t.cols() + c]);
      })
      .Case<ConvertLayoutOp>([&](ConvertLayoutOp convert) {
        const Tile &in = data(e, op, convert.getValue());
        RtValue slot = get(e, convert.getScratch());
        TileP out = newTile(convert.getType());
        auto [lo, hi] = ownedRows(e, op, in.layout, in.rows());
        writeSlotRows(e, op, slot, lo, hi, e.vc, self, true);
        for (int64_t r = lo; r < hi; ++r)
          for (int64_t c = 0; c < in.cols(); ++c)
            slotElem(slot, r, c) = in.v[r * in.cols() + c];
        int64_t id = e.taskIndex + 1;
        if (e.numWg > 1)
          namedBarrier(e, op, id, e.taskThreads, true);
        auto [olo, ohi] = ownedRows(e, op, out->layout, out->rows());
        readSlotRows(e, op, slot, olo, ohi, e.vc, genericAccess(e, op),
                     false);
        for (int64_t r = 0; r < out->rows(); ++r)
          for (int64_t c = 0; c < out->cols(); ++c)
            out->v[r * out->cols() + c] = slotElem(slot, r, c);
        if (e.numWg > 1)
          namedBarrier(e, op, id, e.taskThreads, true);
        set(e, convert.getResult(), makeData(out));
      })
      .Case<LoadFragmentOp, StoreFragmentOp, WarpgroupDotOp>([&](auto) {
        fail(op, "'" + op->getName().getStringRef() +
                     "' is the per-thread form jfa-distribute-tiles makes; "
                     "run jfa-interp on the kernel as written");
      })
      .Case<TaskBarrierOp>([&](auto) {
        namedBarrier(e, op, e.taskIndex + 1, e.taskThreads, true);
      })
      .Case<NamedBarrierSyncOp>([&](NamedBarrierSyncOp sync) {
        namedBarrier(e, op, sync.getId(), sync.getThreads(), true);
      })
      .Case<NamedBarrierArriveOp>([&](NamedBarrierArriveOp arriveOp) {
        namedBarrier(e, op, arriveOp.getId(), arriveOp.getThreads(), false);
      })
      .Case<BarrierExpectOp>([&](BarrierExpectOp expect) {
        int b = get(e, expect.getBarrier()).id;
        barriers[b].tx += int64_t(expect.getBytes());
        arrive(e, op, b, 1, e.lvc);
        ++e.lvc[leaderComp(e)];
      })
      .Case<BarrierArriveOp>([&](BarrierArriveOp arriveOp) {
        int b = get(e, arriveOp.getBarrier()).id;
        arrive(e, op, b, e.numThreads, releaseView(e));
        tickAll(e);
      })
      .Case<BarrierWaitOp>([&](BarrierWaitOp wait) {
        int b = get(e, wait.getBarrier()).id;
        int64_t parity = intScalar(e, op, wait.getPhase());
        if (parity != 0 && parity != 1)
          fail(op, "waits for phase parity " + Twine(parity) +
                       "; a parity is 0 or 1");
        ++e.stats.mbarrierWaits;
        if (!phaseDone(b, parity))
          ++e.stats.mbarrierWaitsBlocked;
        block(
            e, op, [&] { return phaseDone(b, parity); },
            [this, b, parity] { return describeWait(b, parity); });
        acquirePhase(e, b, parity);
      })
      .Case<BarrierTryWaitOp>([&](BarrierTryWaitOp wait) {
        int b = get(e, wait.getBarrier()).id;
        int64_t parity = intScalar(e, op, wait.getPhase());
        bool ready = (parity == 0 || parity == 1) && phaseDone(b, parity);
        ++e.stats.mbarrierWaits;
        if (!ready)
          ++e.stats.mbarrierWaitsBlocked;
        if (ready)
          acquirePhase(e, b, parity);
        else
          yieldToScheduler(e); // a spin: let the others move
        set(e, wait.getReady(),
            makeData(newScalar(wait.getType(), ready ? 1 : 0)));
      })
      .Case<TMALoadOp>([&](TMALoadOp load) {
        RtValue desc = get(e, load.getDesc());
        RtValue slot = get(e, load.getSlot());
        int b = get(e, load.getBarrier()).id;
        ArgState &arg = argOf(desc);
        SmallVector<int64_t, 2> coords;
        for (Value c : load.getCoords())
          coords.push_back(intScalar(e, op, c));
        BufferState &buf = buffers[slot.id];
        Access write{barrierComp(b), barriers[b].completed + 1, op, e.id};
        writeSlotRows(e, op, slot, 0, buf.rows, e.lvc, write, false);
        forEachBoxElement(desc, slot, coords, [&](double &x, int64_t g) {
          x = g < 0 ? 0.0 : roundTo(buf.elem, arg.load(g));
        });
        int64_t bytes = cast<SlotType>(slot.type).getBytes();
        ++e.stats.tmaLoads;
        e.stats.tmaLoadBytes += bytes;
        completeTx(op, b, bytes);
      })
      .Case<TMAStoreOp>([&](TMAStoreOp store) {
        RtValue slot = get(e, store.getSlot());
        RtValue desc = get(e, store.getDesc());
        ArgState &arg = argOf(desc);
        SmallVector<int64_t, 2> coords;
        for (Value c : store.getCoords())
          coords.push_back(intScalar(e, op, c));
        ++e.stats.tmaStores;
        e.stats.tmaStoreBytes += cast<SlotType>(slot.type).getBytes();
        // The bulk copy reads the slot asynchronously.
        ++e.storesIssued;
        VC view = e.lvc;
        view[storeComp(e)] = uint32_t(e.storesIssued);
        Access read{storeComp(e), uint32_t(e.storesIssued), op, e.id};
        BufferState &buf = buffers[slot.id];
        readSlotRows(e, op, slot, 0, buf.rows, view, read, true);
        // Out-of-bounds parts of the box are not written.
        forEachBoxElement(desc, slot, coords, [&](double &x, int64_t g) {
          if (g >= 0)
            arg.store(g, store.getAdd() ? double(float(arg.load(g) + x)) : x);
        });
        ++e.lvc[leaderComp(e)];
      })
      .Case<TMAStoreWaitOp>([&](TMAStoreWaitOp wait) {
        int64_t done = e.storesIssued - int64_t(wait.getPending());
        // The bulk groups are the issuing thread's: the others learn of
        // their completion through a barrier.
        if (done > 0)
          e.lvc[storeComp(e)] = std::max(e.lvc[storeComp(e)], uint32_t(done));
      })
      .Case<FenceAsyncSharedOp>([&](auto) {
        e.fences.push_back(e.vc[execComp(e)]);
        e.leaderFences.push_back(e.lvc[leaderComp(e)]);
        tickAll(e);
      })
      .Case<AsyncDotOp>([&](AsyncDotOp dot) {
        RtValue a = get(e, dot.getA());
        RtValue b = get(e, dot.getB());
        RtValue accValue = get(e, dot.getAcc());
        const Tile &acc = *accValue.data;
        if (a.kind == RtValue::Data && a.data->wgmmaSeq > e.dotsDone)
          fail(op, "uses as A the result of a jfa.async_dot still in flight",
               a.data->dot, "the jfa.async_dot");
        int64_t m = acc.rows(), n = acc.cols();
        int64_t k = cast<SlotType>(b.type).getShape()[1];
        auto [lo, hi] = ownedRows(e, op, acc.layout, m);
        ++e.dotsIssued;
        ++e.stats.mmas;
        join(e.wgmmaVC, e.vc);
        e.wgmmaVC[wgmmaComp(e)] = uint32_t(e.dotsIssued);
        Access read{wgmmaComp(e), uint32_t(e.dotsIssued), op, e.id};
        if (a.kind == RtValue::Slot) {
          auto [slo, shi] = slotRowsTouched(a, lo, hi);
          readSlotRows(e, op, a, slo, shi, e.wgmmaVC, read, true);
        }
        readSlotRows(e, op, b, 0, buffers[b.id].rows, e.wgmmaVC, read, true);
        auto out = std::make_shared<Tile>(acc);
        std::vector<double> av = operandRows(a, lo, hi, k);
        std::vector<double> bv = operandRows(b, 0, n, k);
        product(&out->v[lo * n], av, bv, hi - lo, n, k, n);
        if (interp.options.nanCheck)
          checkProductNaN(op,
                          ArrayRef<double>(out->v).slice(lo * n, (hi - lo) * n),
                          hi - lo, n, lo, av, bv,
                          ArrayRef<double>(acc.v).slice(lo * n, (hi - lo) * n));
        out->wgmmaSeq = e.dotsIssued;
        out->dot = op;
        set(e, dot.getResult(), makeData(out));
      })
      .Case<AsyncDotWaitOp>([&](AsyncDotWaitOp wait) {
        e.dotsDone = std::max(e.dotsDone,
                              e.dotsIssued - int64_t(wait.getPending()));
        e.vc[wgmmaComp(e)] =
            std::max(e.vc[wgmmaComp(e)], uint32_t(e.dotsDone));
        e.lvc[wgmmaComp(e)] =
            std::max(e.lvc[wgmmaComp(e)], uint32_t(e.dotsDone));
        for (auto [result, value] :
             llvm::zip(wait.getResults(), wait.getValues()))
          set(e, result, get(e, value));
      })
      .Case<TcDotOp>([&](TcDotOp dot) {
        RtValue a = get(e, dot.getA());
        RtValue b = get(e, dot.getB());
        RtValue d = get(e, dot.getAcc());
        bool accumulate = scalar(e, op, dot.getAccumulate()) != 0;
        auto dType = cast<TensorMemoryType>(d.type);
        // N is B's rows; the accumulator may be wider (the rest is untouched).
        int64_t m = dType.getShape()[0];
        int64_t n = cast<SlotType>(b.type).getShape()[0];
        int64_t k = cast<SlotType>(b.type).getShape()[1];
        ++e.tcIssued;
        ++e.stats.mmas;
        join(e.tcVC, e.lvc);
        e.tcVC[tcComp(e)] = uint32_t(e.tcIssued);
        Access access{tcComp(e), uint32_t(e.tcIssued), op, e.id};
        if (a.kind == RtValue::Slot) {
          readSlotRows(e, op, a, 0, buffers[a.id].rows, e.tcVC, access, true);
        } else {
          auto [lo, hi] = tmemColumns(op, a, 0, k);
          accessTmem(e, op, lo, hi, false, e.tcVC, access, false);
        }
        readSlotRows(e, op, b, 0, buffers[b.id].rows, e.tcVC, access, true);
        auto [dlo, dhi] = tmemColumns(op, d, 0, n);
        if (accumulate)
          accessTmem(e, op, dlo, dhi, false, e.tcVC, access, false);
        accessTmem(e, op, dlo, dhi, true, e.tcVC, access, false);
        std::vector<double> av = operandRows(a, 0, m, k);
        std::vector<double> bv = operandRows(b, 0, n, k);
        std::vector<double> acc(m * n, 0.0);
        if (accumulate)
          for (int64_t r = 0; r < m; ++r)
            for (int64_t c = 0; c < n; ++c)
              acc[r * n + c] = tmemLoad(d, r, c);
        std::vector<double> before;
        if (interp.options.nanCheck && accumulate)
          before = acc;
        product(acc.data(), av, bv, m, n, k, n);
        if (interp.options.nanCheck)
          checkProductNaN(op, acc, m, n, 0, av, bv, before);
        for (int64_t r = 0; r < m; ++r)
          for (int64_t c = 0; c < n; ++c)
            tmemStore(d, r, c, acc[r * n + c]);
      })
      .Case<TcCommitOp>([&](TcCommitOp commit) {
        int b = get(e, commit.getBarrier()).id;
        VC view = e.tcVC;
        join(view, e.lvc);
        arrive(e, op, b, 1, view);
        ++e.lvc[leaderComp(e)];
      })
      .Case<TmemLoadOp>([&](TmemLoadOp load) {
        RtValue t = get(e, load.getTmem());
        int64_t column = intScalar(e, op, load.getColumn());
        TileP out = newTile(load.getType());
        auto [lo, hi] = tmemColumns(op, t, column, out->cols());
        accessTmem(e, op, lo, hi, false, e.vc, self, true);
        for (int64_t r = 0; r < out->rows(); ++r)
          for (int64_t c = 0; c < out->cols(); ++c)
            out->v[r * out->cols() + c] =
                roundTo(out->elem, tmemLoad(t, r, column + c));
        set(e, load.getResult(), makeData(out));
      })
      .Case<TmemStoreOp>([&](TmemStoreOp store) {
        const Tile &in = data(e, op, store.getValue());
        RtValue t = get(e, store.getTmem());
        int64_t column = intScalar(e, op, store.getColumn());
        auto [lo, hi] = tmemColumns(op, t, column, in.cols());
        accessTmem(e, op, lo, hi, true, e.vc, self, true);
        for (int64_t r = 0; r < in.rows(); ++r)
          for (int64_t c = 0; c < in.cols(); ++c)
            tmemStore(t, r, column + c, in.v[r * in.cols() + c]);
      })
      .Case<ReduceRowsOp>([&](ReduceRowsOp reduce) {
        const Tile &in = data(e, op, reduce.getInput());
        TileP out = newTile(reduce.getType());
        bool isMax = reduce.getKind() == ReduceKind::max;
        for (int64_t r = 0; r < in.rows(); ++r) {
          double acc = isMax ? -INFINITY : 0.0;
          for (int64_t c = 0; c < in.cols(); ++c) {
            double x = in.v[r * in.cols() + c];
            acc = isMax ? std::fmax(acc, x) : double(float(acc + x));
          }
          out->v[r] = roundTo(out->elem, acc);
        }
        set(e, reduce.getResult(), makeData(out));
      })
      .Case<BroadcastRowsOp>([&](BroadcastRowsOp broadcast) {
        const Tile &in = data(e, op, broadcast.getInput());
        TileP out = newTile(broadcast.getType());
        for (int64_t r = 0; r < out->rows(); ++r)
          for (int64_t c = 0; c < out->cols(); ++c)
            out->v[r * out->cols() + c] = in.v[r];
        set(e, broadcast.getResult(), makeData(out));
      })
      .Case<IotaOp>([&](IotaOp iota) {
        TileP out = newTile(iota.getType());
        bool rows = iota.getDim() == IotaDim::rows;
        for (int64_t r = 0; r < out->rows(); ++r)
          for (int64_t c = 0; c < out->cols(); ++c)
            out->v[r * out->cols() + c] = double(rows ? r : c);
        set(e, iota.getResult(), makeData(out));
      })
      .Case<RingPositionOp>([&](RingPositionOp ring) {
        uint64_t n = asUnsigned(scalar(e, op, ring.getIndex()), 32);
        uint64_t stages = ring.getStages();
        set(e, ring.getSlot(),
            makeData(newScalar(ring.getSlot().getType(),
                               double(n % stages))));
        set(e, ring.getPhase(),
            makeData(newScalar(ring.getPhase().getType(),
                               double((n / stages) % 2))));
      })
      .Case<LoadOp>([&](LoadOp load) {
        RtValue ptr = get(e, load.getPtr());
        int64_t index = intScalar(e, op, load.getIndex());
        ptrIndexCheck(ptr, index, "reads");
        set(e, load.getResult(),
            makeData(newScalar(load.getType(), argOf(ptr).load(index))));
      })
      .Case<LoadScalarOp>([&](LoadScalarOp load) {
        RtValue slot = get(e, load.getSlot());
        BufferState &buf = buffers[slot.id];
        int64_t index = intScalar(e, op, load.getIndex());
        if (index < 0 || index >= buf.rows * buf.cols)
          fail(op, "reads element " + Twine(index) + " of a slot of " +
                       Twine(buf.rows * buf.cols) + " elements");
        int64_t r = index / buf.cols, c = index % buf.cols;
        readSlotRows(e, op, slot, r, r + 1, e.vc, self, false);
        set(e, load.getResult(),
            makeData(newScalar(load.getType(), slotElem(slot, r, c))));
      })
      .Case<AtomicFetchAddOp>([&](AtomicFetchAddOp add) {
        RtValue counter = get(e, add.getCounter());
        int64_t index = intScalar(e, op, add.getIndex());
        ptrIndexCheck(counter, index, "updates");
        // CTAs run one after another here, so the first takes every unit a
        // dynamic schedule hands out: one of the orders a GPU may produce.
        int64_t old = int64_t(argOf(counter).load(index));
        int64_t sum = old + intScalar(e, op, add.getValue());
        argOf(counter).store(index, double(int32_t(uint32_t(sum))));
        RtValue slot = get(e, add.getSlot());
        writeSlotRows(e, op, slot, 0, 1, e.lvc, leaderAccess(e, op), true);
        slotElem(slot, 0, 0) = double(old);
        arrive(e, op, get(e, add.getBarrier()).id, 1, e.lvc);
        ++e.lvc[leaderComp(e)];
      })
      .Case<LoadRowsOp>([&](LoadRowsOp load) {
        RtValue ptr = get(e, load.getPtr());
        int64_t offset = intScalar(e, op, load.getOffset());
        int64_t count = intScalar(e, op, load.getCount());
        TileP out = newTile(load.getType());
        for (int64_t r = 0; r < out->rows(); ++r) {
          if (r >= count)
            continue;
          ptrIndexCheck(ptr, offset + r, "reads");
          out->v[r] = roundTo(out->elem, argOf(ptr).load(offset + r));
        }
        set(e, load.getResult(), makeData(out));
      })
      .Case<StoreRowsOp>([&](StoreRowsOp store) {
        const Tile &in = data(e, op, store.getValue());
        RtValue ptr = get(e, store.getPtr());
        int64_t offset = intScalar(e, op, store.getOffset());
        int64_t count = intScalar(e, op, store.getCount());
        auto [lo, hi] = ownedRows(e, op, in.layout, in.rows());
        for (int64_t r = lo; r < std::min(hi, count); ++r) {
          ptrIndexCheck(ptr, offset + r, "writes");
          argOf(ptr).store(offset + r, in.v[r]);
        }
      })
      .Case<StoreTileOp>([&](StoreTileOp store) {
        const Tile &in = data(e, op, store.getValue());
        RtValue ptr = get(e, store.getPtr());
        int64_t offset = intScalar(e, op, store.getOffset());
        int64_t stride = intScalar(e, op, store.getRowStride());
        int64_t count = intScalar(e, op, store.getCount());
        auto [lo, hi] = ownedRows(e, op, in.layout, in.rows());
        // The vector stores the lowering emits (see the op's description).
        int64_t bytes = in.elem.getIntOrFloatBitWidth() / 8;
        int64_t width = store.getAdd() ? 1
                        : isa_and_nonnull<TmemRowLayoutAttr>(in.layout)
                            ? std::max<int64_t>(1, 16 / bytes)
                        : isa_and_nonnull<WgmmaAccLayoutAttr>(in.layout) ? 2
                                                                         : 1;
        width = std::min(width, in.cols());
        if (offset % width != 0 || stride % width != 0)
          fail(op, "jfa.store_tile stores runs of " + Twine(width) +
                       " elements, so its offset (" + Twine(offset) +
                       ") and row stride (" + Twine(stride) +
                       ") must be multiples of " + Twine(width));
        for (int64_t r = lo; r < std::min(hi, count); ++r)
          for (int64_t c = 0; c < in.cols(); ++c) {
            int64_t index = offset + r * stride + c;
            ptrIndexCheck(ptr, index, "writes");
            double x = in.v[r * in.cols() + c];
            if (store.getAdd())
              x = double(float(argOf(ptr).load(index) + x));
            argOf(ptr).store(index, x);
          }
      })
      .Case<DebugTrapOp>([&](DebugTrapOp trap) {
        fail(op, "jfa.debug_trap: " + trap.getFormat());
      })
      .Default([&](Operation *) {
        fail(op, "jfa-interp does not model '" + op->getName().getStringRef() +
                     "'");
      });
}

//===----------------------------------------------------------------------===//
// --stats
//===----------------------------------------------------------------------===//

void Interpreter::addStats(ArrayRef<std::string> labels,
                           ArrayRef<ExecStats> stats) {
  ++ctasRun;
  // Every CTA has the same executors.
  if (statLabels.empty()) {
    statLabels.assign(labels.begin(), labels.end());
    statTotals.resize(stats.size());
  }
  for (auto [total, s] : llvm::zip(statTotals, stats))
    total.add(s);
}

//===----------------------------------------------------------------------===//
// Arguments and the grid
//===----------------------------------------------------------------------===//

LogicalResult Interpreter::loadArguments() {
  Block &body = kernel.getBodyBlock();
  if (options.args.size() != body.getNumArguments())
    return kernel.emitError("jfa-interp: @")
           << kernel.getSymName() << " takes " << body.getNumArguments()
           << " arguments; " << options.args.size() << " were given";
  for (auto [i, arg] : llvm::enumerate(body.getArguments())) {
    ArgState state;
    state.name = nameOf(arg);
    const std::string &spec = options.args[i];
    Type type = arg.getType();
    auto where = [&, i = i]() {
      std::string s;
      llvm::raw_string_ostream os(s);
      os << "argument " << i << " (" << state.name << ": " << type << ")";
      return s;
    };
    if (isa<TensorDescType, GlobalPtrType>(type)) {
      state.kind = isa<TensorDescType>(type) ? ArgState::Desc : ArgState::Ptr;
      state.elem = isa<TensorDescType>(type)
                       ? cast<TensorDescType>(type).getElementType()
                       : cast<GlobalPtrType>(type).getElementType();
      state.path = spec;
      std::string error;
      for (ArgState &other : args)
        if (other.kind != ArgState::Scalar && other.path == spec)
          state.array = other.array;
      if (!state.array) {
        state.array = std::make_shared<NpyArray>();
        if (!readNpy(spec, *state.array, error))
          return kernel.emitError() << where() << ": " << error;
        // It is written back after the run: find out now if it cannot be.
        if (!checkOutputFile(spec, error))
          return kernel.emitError() << where() << ": " << error;
      }
      if (!dtypeFits(state.elem, state.array->descr))
        return kernel.emitError()
               << where() << ": '" << spec << "' holds dtype '"
               << state.array->descr << "'; this parameter needs "
               << dtypeFor(state.elem);
      if (auto desc = dyn_cast<TensorDescType>(type)) {
        size_t rank = desc.getBoxShape().size();
        if (rank > 2)
          return kernel.emitError()
                 << where() << ": jfa-interp models TMA boxes of rank 1 and 2";
        if (state.array->shape.size() < rank)
          return kernel.emitError()
                 << where() << ": '" << spec << "' has rank "
                 << state.array->shape.size() << "; the box has rank " << rank;
        // Keep the leading dims, merge the trailing ones into the last.
        auto &shape = state.array->shape;
        state.dims.assign(shape.begin(), shape.begin() + (rank - 1));
        int64_t last = 1;
        for (size_t d = rank - 1; d < shape.size(); ++d)
          last *= shape[d];
        state.dims.push_back(last);
        // The hardware's rule (the runtime rejects such tensors too).
        int64_t rowBytes = last * state.array->itemBytes();
        if (rank == 2 && rowBytes % 16 != 0)
          return kernel.emitError()
                 << where() << ": TMA needs row strides that are multiples "
                 << "of 16 bytes; the rows of '" << spec << "' are "
                 << rowBytes << " bytes";
      }
    } else if (type.isIntOrFloat()) {
      state.kind = ArgState::Scalar;
      std::string want;
      llvm::raw_string_ostream os(want);
      os << type;
      size_t colon = spec.find(':');
      if (colon == std::string::npos || spec.substr(0, colon) != want)
        return kernel.emitError()
               << where() << ": expected '" << want << ":VALUE', got '"
               << spec << "'";
      std::string text = spec.substr(colon + 1);
      std::string problem;
      std::optional<double> x = parseScalar(type, text, problem);
      if (!x)
        return kernel.emitError()
               << where() << ": '" << text << "' " << problem;
      auto t = std::make_shared<Tile>();
      t->elem = type;
      t->v = {roundTo(type, *x)};
      state.scalar = t;
    } else {
      return kernel.emitError() << where() << ": jfa-interp cannot pass it";
    }
    args.push_back(std::move(state));
  }
  return success();
}

LogicalResult Interpreter::writeArguments() {
  std::set<const NpyArray *> written;
  for (auto [i, arg] : llvm::enumerate(args)) {
    if (arg.kind == ArgState::Scalar || !written.insert(arg.array.get()).second)
      continue;
    std::string error;
    if (!writeNpy(arg.path, *arg.array, error))
      return kernel.emitError() << "argument " << i << ": " << error;
  }
  return success();
}

LogicalResult Interpreter::run() {
  if (failed(loadArguments()))
    return failure();
  for (int64_t d : options.grid)
    if (d < 1)
      return kernel.emitError("jfa-interp: every grid dimension must be at "
                              "least 1");
  for (int64_t z = 0; z < options.grid[2]; ++z)
    for (int64_t y = 0; y < options.grid[1]; ++y)
      for (int64_t x = 0; x < options.grid[0]; ++x) {
        ctaId = {x, y, z};
        CTARun cta(*this);
        if (failed(cta.run())) {
          printStatTotals();
          return failure();
        }
        if (options.verbose)
          llvm::errs() << "jfa-interp: CTA (" << x << ", " << y << ", " << z
                       << ") done\n";
      }
  printStatTotals();
  return writeArguments();
}

void Interpreter::printStatTotals() {
  // One CTA's table is its own total.
  if (!options.stats || (options.statsPerCta && ctasRun <= 1))
    return;
  printStats(llvm::outs(),
             llvm::formatv("all {0} CTA{1} run, per executor", ctasRun,
                           ctasRun == 1 ? "" : "s")
                 .str(),
             statLabels, statTotals);
}

} // namespace

LogicalResult runKernel(KernelOp kernel, const RunOptions &options) {
  Interpreter interp(kernel, options);
  interp.names = options.valueNames;
  return interp.run();
}

} // namespace jfa::interp
