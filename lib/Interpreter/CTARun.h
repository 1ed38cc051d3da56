//===- CTARun.h - the state and the executor of one CTA ------*- C++ -*-===//
//
// Private to lib/Interpreter: the happens-before types, the state of a CTA
// (buffers, barriers, tensor memory, executors), the grid-level
// Interpreter and CTARun, which runs one cluster of CTAs (one CTA without
// `cluster(...)`). CTARun's members are defined
// by concern: Scheduler.cpp (scheduling, set-up, control flow),
// HappensBefore.cpp (memory checks, barriers), Arith.cpp (operand access,
// tiles), NanCheck.cpp (--nan-check), TensorCoreOps.cpp (tensor memory),
// MemoryOps.cpp and TMAOps.cpp (global memory); Interpreter.cpp runs the
// grid. The ops themselves run through the handler table of OpHandlers.h,
// whose handlers use CTARun's public interface.
//
//===----------------------------------------------------------------------===//
#ifndef JFA_INTERPRETER_CTARUN_H
#define JFA_INTERPRETER_CTARUN_H

#include "lib/Interpreter/Arguments.h"
#include "lib/Interpreter/Interpreter.h"
#include "lib/Interpreter/Stats.h"
#include "lib/Interpreter/Values.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/DenseSet.h"

#include <array>
#include <condition_variable>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

namespace jfa::interp {

/// Unwinds an executor after an error or when its CTA is cancelled.
struct Abort {};

//===----------------------------------------------------------------------===//
// Happens-before
//===----------------------------------------------------------------------===//

using VC = std::vector<uint32_t>;

inline void join(VC &into, const VC &from) {
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
  // A swizzled slot wider than its swizzle is stored block after block of
  // `blockCols` columns (SlotType::getColumnBlocks): distinct bytes, so
  // each row of each block has its own access history.
  int64_t blockCols = 0, colBlocks = 1;
  Type elem;
  std::vector<double> data;
  std::vector<Shadow> shadow; // one per (slot, stored row, column block)
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

/// barrier.cluster (jfa.cluster_arrive / jfa.cluster_wait): a phase
/// completes when every thread of every CTA of the cluster has arrived.
struct ClusterBarrierState {
  int64_t arrived = 0;
  int64_t generation = 0;
  VC joined;
  std::map<int64_t, VC> completedVC;
};

struct Executor {
  int id = 0;         // in the cluster: its CTA's executors are contiguous
  int taskIndex = -1; // -1: the whole CTA (no async_tasks)
  int wg = 0, numWg = 1;
  int64_t firstThread = 0, numThreads = 0;      // in the CTA
  int64_t taskFirstThread = 0, taskThreads = 0; // the task's
  /// The CTA: its rank in the cluster and its program ids.
  int ctaRank = 0;
  std::array<int64_t, 3> ctaId = {0, 0, 0};
  /// For messages: in a cluster it names the CTA too. `statLabel` is the
  /// same executor of every CTA (the --stats totals add them up).
  std::string label, statLabel;
  /// The generation of the cluster barrier this executor's threads arrived
  /// on and have not waited for yet; -1: none.
  int64_t clusterArrived = -1;

  /// What the executor's threads know: the view of the ops all of them run
  /// (their component is execComp). `lvc` is what the one thread that
  /// issues the single-thread ops (TMA, expect, tc_dot, tc_commit) knows
  /// (its component is leaderComp): the two differ until a barrier orders
  /// the threads with each other, so the threads' writes reach a TMA store
  /// or a tc_dot only through a jfa.task_barrier or an mbarrier wait.
  VC vc, lvc;
  llvm::DenseMap<mlir::Value, RtValue> env;

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
  Interpreter(KernelOp kernel, const RunOptions &options, const Target &target)
      : kernel(kernel), options(options), target(target) {}

  mlir::LogicalResult run();

  KernelOp kernel;
  const RunOptions &options;
  /// The target the kernel runs on (its module's `jfa.target`): the
  /// per-target limits, as the compiler's passes take them.
  const Target &target;
  std::vector<ArgState> args;
  llvm::DenseMap<mlir::Value, std::string> names;
  /// The kernel's cluster(x, y, z); (1, 1, 1) without one.
  std::array<int64_t, 3> clusterDims = {1, 1, 1};
  /// Cluster launch control. Clusters run one after another in launch order
  /// (x fastest); `runningCluster` is the index of the one running, and
  /// `cancelled` those a jfa.try_cancel took, which never run.
  int64_t runningCluster = 0;
  llvm::DenseSet<int64_t> cancelled;
  int64_t numClusters() const;
  /// The program ids of the first CTA of cluster `index`.
  std::array<int64_t, 3> clusterOrigin(int64_t index) const;
  /// Cancels the next cluster that has not started and returns its first
  /// CTA's program ids; none when every later cluster is cancelled.
  std::optional<std::array<int64_t, 3>> cancelNextCluster();
  /// --stats over the CTAs run so far, per executor.
  std::vector<std::string> statLabels;
  std::vector<ExecStats> statTotals;
  int64_t ctasRun = 0;

  void addStats(llvm::ArrayRef<std::string> labels,
                llvm::ArrayRef<ExecStats> stats);
  void printStatTotals();

  mlir::LogicalResult loadArguments();
  mlir::LogicalResult writeArguments();
  std::string nameOf(mlir::Value value);
};

//===----------------------------------------------------------------------===//
// One cluster
//===----------------------------------------------------------------------===//

/// Runs one cluster of CTAs (one CTA without `cluster(...)`). The public
/// members are what the op handlers (OpHandlers.h) use: the CTAs' state,
/// operand access, the memory checks and the barriers.
///
/// Each CTA of the cluster has its own executors, buffers, mbarriers,
/// tensor memory and named barriers, replicated by rank: the ids a CTA's
/// alloc ops hand out are rank-0's plus rank * the count per CTA, so the
/// handlers of local accesses need not know about clusters; the cluster ops
/// map an id to the same place in a peer (peerBuffer, peerBarrier).
class CTARun {
public:
  /// The cluster whose first CTA (rank 0) is at `origin` in the grid.
  CTARun(Interpreter &interp, std::array<int64_t, 3> origin);
  mlir::LogicalResult run();

  Interpreter &interp;
  KernelOp kernel;
  std::array<int64_t, 3> origin;
  int clusterSize = 1;

  std::vector<std::unique_ptr<Executor>> execs;
  std::vector<BufferState> buffers;
  /// Rank 0's id of each alloc op's buffer or first barrier.
  llvm::DenseMap<Operation *, int> bufferOf;
  std::vector<BarrierState> barriers;
  llvm::DenseMap<Operation *, int> barrierBaseOf;
  int buffersPerCta = 0, barriersPerCta = 0;
  llvm::DenseMap<Operation *, int64_t> tmemColumnOf;
  /// Tensor memory: 128 lanes (one per row of an MMA tile) of the target's
  /// columns (Targets.def), 32 bits each. A lane holds the columns of every
  /// CTA of the cluster side by side: a CTA's tensor-memory values start
  /// rank * tmemColumnsPerLane columns in.
  static constexpr int64_t kTmemLanes = 128;
  int64_t tmemColumnsPerLane = 0, tmemLaneStride = 0;
  std::vector<uint32_t> tmem;
  std::vector<Shadow> tmemShadow;
  /// 16 per CTA, rank-major.
  std::vector<NamedBarrierState> named;
  ClusterBarrierState clusterBarrier;
  /// Per CTA, the jfa.query_cancel that saw a request cancel nothing: the
  /// CTA may not ask again after that (the hardware's behaviour is
  /// undefined). Requests already in flight may still come back.
  std::vector<Operation *> cancelFailureSeenAt;
  /// The stored rows (buffer id, row) that hold a cluster-launch-control
  /// response: opaque bytes that only jfa.query_cancel may read.
  std::set<std::pair<int, int64_t>> opaqueRows;
  size_t numComps = 0;

  /// The buffer or barrier at the place of `id` in the CTA of rank `rank`.
  int peerBuffer(int id, int rank) const {
    return id % buffersPerCta + rank * buffersPerCta;
  }
  int peerBarrier(int b, int rank) const {
    return b % barriersPerCta + rank * barriersPerCta;
  }
  /// The program ids of the CTA of rank `rank`.
  std::array<int64_t, 3> ctaIdOf(int rank) const;
  /// "CTA (x, y, z)" of the CTA of rank `rank`.
  std::string ctaName(int rank) const;
  /// The rank an `on cta` / `and cta` operand `cta` names; fails unless it
  /// names a CTA of the cluster (`verb`: what `op` does to it, "arrives
  /// on").
  int peerRank(Executor &e, Operation *op, mlir::Value cta, const char *verb);
  /// The CTAs a multicast op reaches: the bits of `mask` (null: this CTA
  /// alone); fails when it names none or a rank the cluster does not have.
  uint64_t multicastMask(Executor &e, Operation *op, mlir::Value mask);

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

  /// Hands the baton to the scheduler until it is `e`'s turn again.
  void yieldToScheduler(Executor &e);
  /// Blocks `e` at `op` until `ready`; `why` says what it waits for in a
  /// deadlock report.
  void block(Executor &e, Operation *op, const std::function<bool()> &ready,
             std::function<std::string()> why);

  /// Reports `message` at `op` (with `note` at `noteOp`) and unwinds.
  [[noreturn]] void fail(Operation *op, const llvm::Twine &message,
                         Operation *noteOp = nullptr,
                         const llvm::Twine &note = llvm::Twine()) {
    mlir::InFlightDiagnostic diag = op->emitError(message);
    if (noteOp)
      diag.attachNote(noteOp->getLoc()) << note;
    hasFailed = true;
    throw Abort{};
  }

  // Interpretation.
  SmallVector<RtValue> runRegion(Executor &e, mlir::Region &region,
                                 llvm::ArrayRef<RtValue> blockArgs);
  /// Runs `op` through its handler; an op with none is an error naming it.
  void exec(Executor &e, Operation *op);

  // --nan-check.
  /// After `op` ran: fails if a result element it owns is a NaN or an
  /// infinity while its operands are finite.
  void checkNaN(Executor &e, Operation *op);
  /// A tensor-core product: `out` (m x n, rows [0, m) owned) against its
  /// operands `a`, `b` and the accumulator it started from (empty: zero).
  void checkProductNaN(Operation *op, llvm::ArrayRef<double> out, int64_t m,
                       int64_t n, int64_t rowOffset, llvm::ArrayRef<double> a,
                       llvm::ArrayRef<double> b, llvm::ArrayRef<double> acc);
  [[noreturn]] void failNaN(Operation *op, double value,
                            const std::string &element,
                            const std::string &operands);
  /// The rows of a tile in `layout` that `e` holds, [lo, hi); all rows in
  /// layouts it does not divide between warpgroups.
  std::pair<int64_t, int64_t> heldRows(Executor &e, Attribute layout,
                                       int64_t rows);

  RtValue &get(Executor &e, mlir::Value v) {
    auto it = e.env.find(v);
    if (it == e.env.end())
      fail(v.getParentBlock()->getParentOp(),
           "jfa-interp: internal error: a value is used before it is set");
    return it->second;
  }
  void set(Executor &e, mlir::Value v, RtValue r) { e.env[v] = std::move(r); }
  /// A data operand of `op`, which must not be an accumulator in flight.
  const Tile &data(Executor &e, Operation *op, mlir::Value v);
  /// A data operand that may still be in flight (for register moves, which
  /// need no wait: the result is in flight as long as the operand).
  const Tile &dataInFlight(Executor &e, Operation *op, mlir::Value v);
  /// A uniform scalar operand.
  double scalar(Executor &e, Operation *op, mlir::Value v);
  int64_t intScalar(Executor &e, Operation *op, mlir::Value v) {
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
  Shadow &slotShadow(const RtValue &slot, int64_t storedRow, int64_t block) {
    BufferState &b = buffers[slot.id];
    return b.shadow[(slot.index * b.rows + slot.row + storedRow) * b.colBlocks +
                    block];
  }
  /// The column blocks [first, end) a slot or view covers: a
  /// jfa.column_block view one, a whole slot all of them.
  std::pair<int64_t, int64_t> slotBlocks(const RtValue &slot) {
    BufferState &b = buffers[slot.id];
    if (b.colBlocks == 1)
      return {0, 1};
    int64_t cols = llvm::cast<SlotType>(slot.type).getStoredShape().back();
    int64_t first = slot.column / b.blockCols;
    int64_t end = (slot.column + cols + b.blockCols - 1) / b.blockCols;
    return {first, std::min(end, b.colBlocks)};
  }
  double &slotElem(const RtValue &slot, int64_t r, int64_t c) {
    BufferState &b = buffers[slot.id];
    bool transposed = llvm::cast<SlotType>(slot.type).getTransposed();
    if (transposed)
      std::swap(r, c);
    // A column block's view starts `column` stored columns in, a row
    // block's `row` stored rows.
    return b
        .data[(slot.index * b.rows + slot.row + r) * b.cols + c + slot.column];
  }
  /// The stored rows an access to rows [lo, hi) of `slot` touches: all of
  /// them in a transposed view, whose rows are stored columns.
  std::pair<int64_t, int64_t> slotRowsTouched(const RtValue &slot, int64_t lo,
                                              int64_t hi) {
    if (llvm::cast<SlotType>(slot.type).getTransposed())
      return {0, slotRows(slot)};
    return {lo, hi};
  }
  /// The stored rows of a slot or view (a jfa.row_block's rows).
  int64_t slotRows(const RtValue &slot) {
    auto type = llvm::cast<SlotType>(slot.type);
    return type.getShape()[type.getTransposed() ? 1 : 0];
  }
  /// Fails unless 0 <= index < size (`what`: "slot", "barrier", ...).
  void checkIndex(Operation *op, int64_t index, int64_t size,
                  const char *what) {
    if (index < 0 || index >= size)
      fail(op, llvm::Twine(what) + " index " + llvm::Twine(index) +
                   " is out of bounds for " + llvm::Twine(size) + " " + what +
                   (size == 1 ? "" : "s"));
  }
  /// Records reads of stored rows [lo, hi) of a slot by `e` (generic) or an
  /// async pipe of `e` (view/self given).
  void readSlotRows(Executor &e, Operation *op, const RtValue &slot,
                    int64_t lo, int64_t hi, const VC &view, Access self,
                    bool asyncProxy);
  void writeSlotRows(Executor &e, Operation *op, const RtValue &slot,
                     int64_t lo, int64_t hi, const VC &view, Access self,
                     bool generic);
  /// One stored row of one column block (writeSlotRows' step).
  void writeSlotRowBlock(Executor &e, Operation *op, const RtValue &slot,
                         int64_t r, int64_t block, const VC &view, Access self,
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
  /// jfa.cluster_arrive (`wait` false) or jfa.cluster_wait.
  void clusterBarrierStep(Executor &e, Operation *op, bool wait);
  /// Why a wait for `parity` on barrier `b` cannot return yet.
  std::string describeWait(int b, int64_t parity);

  // Tensor memory.
  uint32_t &tmemWord(int64_t lane, int64_t column) {
    return tmem[lane * tmemLaneStride + column];
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
                         llvm::ArrayRef<int64_t> coords,
                         llvm::function_ref<void(double &, int64_t)> fn);
  void checkGlobal(Operation *op, const RtValue &ptr, int64_t index,
                   const char *verb);

private:
  // Baton.
  std::mutex mutex;
  std::condition_variable cv;
  int running = -1; // -1: the scheduler
  bool cancelled = false;
  bool hasFailed = false;

  mlir::LogicalResult setUp();
  void schedule();
  void executorMain(Executor &e);
  void reportDeadlock();
  void runKernelBody(Executor &e);
};

} // namespace jfa::interp

#endif // JFA_INTERPRETER_CTARUN_H
