//===- CheckBarriers.cpp - static checks of the mbarrier protocol ---------===//
//
// A kernel whose barriers never complete a phase hangs the GPU and tells its
// author nothing, so the protocol is checked before lowering, per barrier
// array (jfa.alloc_barriers):
//
//  - every barrier waited on is signalled somewhere (arrive, expect-tx, TMA
//    load, tensor-core commit); an array signalled but never waited on is a
//    warning;
//  - the arrivals per phase add up to arrive_count: jfa.barrier_arrive counts
//    the threads of its task that reach it (an scf.if on jfa.task_thread_id
//    against a constant keeps its branch's threads: a warpgroup's half),
//    single-thread ops (expect-tx, tc_commit) one;
//  - the TMA loads completing on an armed barrier bring the expected bytes.
//
// In a cluster the kernel is checked as one CTA of a symmetric whole: an
// arrival on a peer's barrier (`on cta`) counts as one on the issuer's own
// (each CTA arrives on a different peer), and a multicast load with a
// constant mask brings its box once per CTA of the mask (each of them
// multicasts its own part). Issued by every CTA alike, such ops must reach
// the whole cluster (a constant peer, a partial mask or a cluster-launch-
// control request from every CTA is an error; so is a work-queue fetch
// handed to a peer, `jfa.atomic_fetch_add ... and cta`, from every CTA:
// two units land in each slot). A slot copied into a peer
// (`jfa.copy_to_cta`) brings its bytes to the issuer's own barrier, as if
// each CTA copied into the next (a constant peer from every CTA is an
// error); under a condition on jfa.cluster_rank (a
// leader's part, such as that fetch), with a mask that is not a constant,
// or for a CTA pair's load (`on cta`: both CTAs' bytes land on one
// barrier), the counts are not checked (a remark). The pair's own protocol
// is checked: the expect alone under a condition on jfa.cluster_rank, the
// pair loads after it in the surrounding block, each counted twice.
//
// The count follows the structure of the kernel: tasks arrive concurrently
// (their counts add up), a loop body is one phase, and an scf.if counts only
// when every path arrives the same number of times. Anything else is
// reported as a remark rather than guessed.
//
//===----------------------------------------------------------------------===//
#include "JFA/TaskInfo.h"
#include "lib/Transforms/Passes.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/MapVector.h"

#include <set>

namespace jfa {
#define GEN_PASS_DEF_JFACHECKBARRIERS
#include "lib/Transforms/Passes.h.inc"
} // namespace jfa

using namespace mlir;
using namespace jfa;

namespace {

/// The barrier(s) of an array an op uses: one constant index, or any of them
/// for a dynamic index (a ring slot).
struct BarrierRef {
  AllocBarriersOp array;
  std::optional<int64_t> index;
};

std::optional<BarrierRef> resolveBarrier(Value barrier) {
  auto op = barrier.getDefiningOp<BarrierOp>();
  if (!op)
    return std::nullopt;
  auto array = op.getBarriers().getDefiningOp<AllocBarriersOp>();
  if (!array)
    return std::nullopt;
  BarrierRef ref{array, std::nullopt};
  APInt index;
  if (matchPattern(op.getIndex(), m_ConstantInt(&index)))
    ref.index = index.getSExtValue();
  return ref;
}

/// The barrier an op signals (completes a phase of), or null.
Value getSignalledBarrier(Operation *op) {
  if (auto arrive = dyn_cast<BarrierArriveOp>(op))
    return arrive.getBarrier();
  if (auto expect = dyn_cast<BarrierExpectOp>(op))
    return expect.getBarrier();
  if (auto load = dyn_cast<TMALoadOp>(op))
    return load.getBarrier();
  if (auto cancel = dyn_cast<TryCancelOp>(op))
    return cancel.getBarrier();
  if (auto commit = dyn_cast<TcCommitOp>(op))
    return commit.getBarrier();
  if (auto fetch = dyn_cast<AtomicFetchAddOp>(op))
    return fetch.getBarrier();
  if (auto copy = dyn_cast<CopyToCtaOp>(op))
    return copy.getBarrier();
  return {};
}

/// Whether `value` is computed from jfa.cluster_rank (within a few steps
/// of arithmetic): it then differs between the CTAs of a cluster.
bool dependsOnRank(Value value, int depth = 0) {
  Operation *def = value.getDefiningOp();
  if (!def || depth > 16)
    return false;
  if (isa<ClusterRankOp>(def))
    return true;
  return llvm::any_of(def->getOperands(), [&](Value operand) {
    return dependsOnRank(operand, depth + 1);
  });
}

/// The scf.if around `op` whose condition differs between the CTAs of a
/// cluster (a leader CTA's part), or null: ops outside such branches are
/// issued alike by every CTA.
Operation *rankCondition(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp())
    if (auto ifOp = dyn_cast<scf::IfOp>(parent);
        ifOp && dependsOnRank(ifOp.getCondition()))
      return ifOp;
  return nullptr;
}

int64_t clusterSizeOf(Operation *op) {
  auto kernel = dyn_cast<KernelOp>(op);
  if (!kernel)
    kernel = op->getParentOfType<KernelOp>();
  return kernel ? kernel.getClusterSize() : 1;
}

/// Ops that reach other CTAs of a cluster and are issued under a condition
/// on jfa.cluster_rank: what each CTA's barrier receives from them depends
/// on which CTAs issue, which the counts below (one CTA of a symmetric
/// whole) cannot see.
bool isAsymmetricClusterOp(Operation *op) {
  // A CTA pair's load brings its bytes to the pair's issuing CTA, whose
  // barrier receives both CTAs' (the other's none).
  if (auto load = dyn_cast<TMALoadOp>(op); load && load.getCta())
    return true;
  if (clusterSizeOf(op) == 1 || !rankCondition(op))
    return false;
  if (auto arrive = dyn_cast<BarrierArriveOp>(op))
    return bool(arrive.getCta());
  if (auto load = dyn_cast<TMALoadOp>(op))
    return bool(load.getMulticast());
  if (auto commit = dyn_cast<TcCommitOp>(op))
    return bool(commit.getMulticast());
  if (auto fetch = dyn_cast<AtomicFetchAddOp>(op))
    return bool(fetch.getCta());
  return isa<TryCancelOp, CopyToCtaOp>(op);
}

/// Why the counts cannot follow an isAsymmetricClusterOp.
std::string whyAsymmetric(Operation *op) {
  if (auto load = dyn_cast<TMALoadOp>(op); load && load.getCta())
    return "this CTA pair's load completes on the barrier of the CTA `on "
           "cta` names, so that CTA's barrier receives both CTAs' bytes and "
           "the other's none";
  return "this op reaches other CTAs of the cluster from under a condition "
         "on jfa.cluster_rank, so what each CTA's barrier receives depends "
         "on which CTAs issue it";
}

/// Whether task-relative thread `t` satisfies `pred` against `c`.
bool threadSatisfies(arith::CmpIPredicate pred, int64_t t, int64_t c) {
  switch (pred) {
  case arith::CmpIPredicate::eq:
    return t == c;
  case arith::CmpIPredicate::ne:
    return t != c;
  case arith::CmpIPredicate::ult:
  case arith::CmpIPredicate::slt:
    return t < c;
  case arith::CmpIPredicate::ule:
  case arith::CmpIPredicate::sle:
    return t <= c;
  case arith::CmpIPredicate::ugt:
  case arith::CmpIPredicate::sgt:
    return t > c;
  case arith::CmpIPredicate::uge:
  case arith::CmpIPredicate::sge:
    return t >= c;
  }
  return true;
}

/// The threads of its task (task-relative indices, as jfa.task_thread_id
/// gives them) that reach `op`: all of them, but for the scf.if branches
/// around it whose condition compares jfa.task_thread_id with a constant
/// (`%wg0 = arith.cmpi ult, %t, %c128` for warpgroup 0), each keeping the
/// threads of its branch. A warpgroup's half of a phase then counts 128.
llvm::BitVector threadsReaching(Operation *op, int64_t numThreads) {
  llvm::BitVector threads(numThreads, true);
  for (Operation *child = op, *parent = op->getParentOp();
       parent && !isa<TaskOp, KernelOp>(parent);
       child = parent, parent = parent->getParentOp()) {
    auto ifOp = dyn_cast<scf::IfOp>(parent);
    if (!ifOp)
      continue;
    auto cmp = ifOp.getCondition().getDefiningOp<arith::CmpIOp>();
    APInt bound;
    if (!cmp || !cmp.getLhs().getDefiningOp<TaskThreadIdOp>() ||
        !matchPattern(cmp.getRhs(), m_ConstantInt(&bound)))
      continue;
    bool inThen = child->getParentRegion() == &ifOp.getThenRegion();
    for (int64_t t = 0; t < numThreads; ++t)
      if (threadSatisfies(cmp.getPredicate(), t, bound.getSExtValue()) !=
          inThen)
        threads.reset(t);
  }
  return threads;
}

/// How many arrivals `op` makes on its barrier: a TMA load (or a peer's
/// jfa.copy_to_cta) only brings transaction bytes, a single-thread op
/// arrives once, anything else once per thread of its task that reaches it
/// (threadsReaching).
int64_t getArrivals(Operation *op) {
  if (isa<TMALoadOp, TryCancelOp, CopyToCtaOp>(op))
    return 0;
  // A multicast commit arrives on every CTA of its mask; each of them
  // commits alike, so a barrier receives one arrival per CTA of the mask.
  if (auto commit = dyn_cast<TcCommitOp>(op)) {
    APInt mask;
    if (commit.getMulticast() &&
        matchPattern(commit.getMulticast(), m_ConstantInt(&mask)))
      return mask.popcount();
  }
  if (op->hasTrait<SingleThreadIssue>())
    return 1;
  return threadsReaching(op, getEnclosingTask(op).numThreads()).count();
}

/// A short name for a barrier array in messages: the kernel source has no
/// SSA names after parsing, so the array is named by its line.
std::string describeArray(AllocBarriersOp array) {
  std::string name;
  llvm::raw_string_ostream os(name);
  if (auto loc = dyn_cast<FileLineColLoc>(array.getLoc()))
    os << "barrier array at line " << loc.getLine();
  else
    os << "barrier array " << array.getType();
  return name;
}

std::string describeBarrier(AllocBarriersOp array,
                            std::optional<int64_t> index) {
  if (!index)
    return describeArray(array);
  return "barrier " + std::to_string(*index) + " of the " +
         describeArray(array);
}

/// A per-phase quantity (arrivals, or transaction bytes) summed over the
/// structure of the IR, or the place that hides it.
struct Tally {
  int64_t total = 0;
  /// Set when the total came out of a loop body: it is then per iteration.
  bool inLoop = false;
  /// The contributing ops and how many times each counts.
  SmallVector<std::pair<Operation *, int64_t>> ops;
  /// Where control flow hides the total, and why.
  Operation *hiddenBy = nullptr;
  std::string why;

  /// Arrivals of other phases than `total`'s: in one task, a loop body's
  /// arrivals and those outside it (a peeled first or last iteration)
  /// complete phases of their own, and each must reach arrive_count.
  std::vector<Tally> separatePhases;

  bool known() const { return hiddenBy == nullptr; }
  bool arrivesNothing() const {
    return total == 0 && ops.empty() && separatePhases.empty();
  }
  /// The per-phase totals, this one's first.
  SmallVector<int64_t> totals() const {
    SmallVector<int64_t> all{total};
    for (const Tally &other : separatePhases)
      all.push_back(other.total);
    return all;
  }
  static Tally hidden(Operation *where, const Twine &why) {
    Tally t;
    t.hiddenBy = where;
    t.why = why.str();
    return t;
  }
  void append(const Tally &other, int64_t times = 1) {
    total += other.total * times;
    for (auto [op, n] : other.ops)
      ops.push_back({op, n * times});
    llvm::append_range(separatePhases, other.separatePhases);
  }
};

/// What one op directly contributes: (amount, repeat) or nothing.
using Contribution = llvm::function_ref<int64_t(Operation *)>;

/// Whether `op` or anything nested in it contributes.
bool containsContribution(Operation &op, Contribution contribution) {
  return op
      .walk([&](Operation *nested) {
        return contribution(nested) ? WalkResult::interrupt()
                                    : WalkResult::advance();
      })
      .wasInterrupted();
}

/// How the tally of a loop body composes with its surroundings.
enum class LoopRule {
  /// A loop body is one phase (arrivals: each iteration is a new phase).
  PerPhase,
  /// A loop body repeats within the phase (TMA bytes armed before the
  /// loop); needs a constant trip count.
  Repeat,
};

std::optional<int64_t> getConstantTripCount(scf::ForOp loop) {
  auto lb = getConstantIntValue(loop.getLowerBound());
  auto ub = getConstantIntValue(loop.getUpperBound());
  auto step = getConstantIntValue(loop.getStep());
  if (!lb || !ub || !step || *step <= 0)
    return std::nullopt;
  return *ub <= *lb ? 0 : (*ub - *lb + *step - 1) / *step;
}

Tally tallyBlock(Block &block, Contribution contribution, LoopRule rule);

Tally tallyRegion(Region &region, Contribution contribution, LoopRule rule) {
  if (region.empty())
    return {};
  if (!region.hasOneBlock())
    return Tally::hidden(region.getParentOp(),
                         "it sits in a region of several blocks");
  return tallyBlock(region.front(), contribution, rule);
}

/// The tally of a conditional: known only when every path agrees. (The
/// empty else region of an scf.if is the path that contributes nothing.)
Tally tallyPaths(Operation *op, MutableArrayRef<Region> regions,
                 Contribution contribution, LoopRule rule) {
  SmallVector<Tally> paths;
  for (Region &region : regions) {
    paths.push_back(tallyRegion(region, contribution, rule));
    if (!paths.back().known())
      return paths.back();
  }
  // Arrivals: a path that arrives nothing completes no phase (a unit of
  // work that is skipped), so only the paths that arrive must agree.
  const Tally *first = &paths.front();
  if (rule == LoopRule::PerPhase)
    for (const Tally &path : paths)
      if (!path.arrivesNothing()) {
        first = &path;
        break;
      }
  SmallVector<int64_t> expected = first->totals();
  Tally merged;
  merged.total = first->total;
  merged.separatePhases.resize(first->separatePhases.size());
  for (auto [group, other] :
       llvm::zip(merged.separatePhases, first->separatePhases))
    group.total = other.total;
  for (const Tally &path : paths) {
    if (rule == LoopRule::PerPhase && path.arrivesNothing())
      continue;
    if (path.totals() != expected) {
      std::string counts;
      llvm::raw_string_ostream os(counts);
      llvm::interleave(
          paths, os,
          [&](const Tally &t) {
            SmallVector<int64_t> totals = t.totals();
            if (totals.size() > 1)
              os << "phases of ";
            llvm::interleave(totals, os, " and ");
          },
          ", ");
      return Tally::hidden(op, "the paths of this " +
                                   op->getName().getStringRef() +
                                   " give different counts (" + counts + ")");
    }
    llvm::append_range(merged.ops, path.ops);
    for (auto [group, other] :
         llvm::zip(merged.separatePhases, path.separatePhases))
      llvm::append_range(group.ops, other.ops);
    merged.inLoop |= path.inLoop;
  }
  return merged;
}

/// Every total that some path through `block` can bring (TMA bytes: loops
/// repeat within the phase), or nothing when a loop without a constant trip
/// count, a loop whose body has several totals, or an op the pass cannot
/// see through hides them, or when there are too many to list.
std::optional<std::set<int64_t>> possibleTotals(Block &block,
                                                Contribution contribution) {
  constexpr size_t kMaxTotals = 64;
  std::set<int64_t> totals{0};
  auto add = [&](const std::set<int64_t> &part) -> bool {
    std::set<int64_t> sums;
    for (int64_t a : totals)
      for (int64_t b : part)
        sums.insert(a + b);
    totals = std::move(sums);
    return totals.size() <= kMaxTotals;
  };
  for (Operation &op : block) {
    std::set<int64_t> part;
    if (int64_t n = contribution(&op)) {
      part = {n};
    } else if (op.getNumRegions() == 0) {
      continue;
    } else if (isa<scf::IfOp, scf::IndexSwitchOp>(op)) {
      for (Region &region : op.getRegions()) {
        if (region.empty()) {
          part.insert(0);
          continue;
        }
        if (!region.hasOneBlock())
          return std::nullopt;
        auto path = possibleTotals(region.front(), contribution);
        if (!path)
          return std::nullopt;
        part.insert(path->begin(), path->end());
      }
    } else if (auto loop = dyn_cast<scf::ForOp>(op)) {
      auto body = possibleTotals(loop.getRegion().front(), contribution);
      if (!body)
        return std::nullopt;
      if (*body == std::set<int64_t>{0})
        continue;
      auto trips = getConstantTripCount(loop);
      if (!trips || body->size() != 1)
        return std::nullopt;
      part = {*body->begin() * *trips};
    } else {
      if (!containsContribution(op, contribution))
        continue;
      return std::nullopt;
    }
    if (!add(part))
      return std::nullopt;
  }
  return totals;
}

Tally tallyBlock(Block &block, Contribution contribution, LoopRule rule) {
  Tally tally;
  for (Operation &op : block) {
    Tally part;
    if (int64_t n = contribution(&op)) {
      part.total = n;
      part.ops.push_back({&op, 1});
    } else if (op.getNumRegions() == 0) {
      continue;
    } else if (auto loop = dyn_cast<scf::ForOp>(op)) {
      Tally body = tallyRegion(loop.getRegion(), contribution, rule);
      if (!body.known())
        return body;
      if (body.total == 0)
        continue;
      if (rule == LoopRule::PerPhase) {
        part = body;
        part.inLoop = true;
      } else if (auto trips = getConstantTripCount(loop)) {
        part.append(body, *trips);
      } else {
        return Tally::hidden(&op, "this scf.for has no constant trip count");
      }
    } else if (auto loop = dyn_cast<scf::WhileOp>(op)) {
      // One iteration runs the condition region, then (unless it leaves)
      // the body: their arrivals per phase add up, as in an scf.for's body.
      Tally body = tallyRegion(loop.getBefore(), contribution, rule);
      if (!body.known())
        return body;
      Tally after = tallyRegion(loop.getAfter(), contribution, rule);
      if (!after.known())
        return after;
      body.append(after);
      if (body.total == 0)
        continue;
      if (rule != LoopRule::PerPhase)
        return Tally::hidden(&op, "an scf.while has no constant trip count");
      part = body;
      part.inLoop = true;
    } else if (isa<scf::IfOp, scf::IndexSwitchOp>(op)) {
      part = tallyPaths(&op, op.getRegions(), contribution, rule);
    } else if (isa<AsyncTasksOp>(op)) {
      // Tasks run concurrently: their arrivals on one phase add up.
      int64_t arrivingTasks = 0;
      bool severalPhases = false;
      for (Region &region : op.getRegions()) {
        for (TaskOp task : region.front().getOps<TaskOp>()) {
          Tally t = tallyRegion(task.getBody(), contribution, rule);
          if (!t.known())
            return t;
          arrivingTasks += !t.arrivesNothing();
          severalPhases |= !t.separatePhases.empty();
          part.append(t);
          part.inLoop |= t.inLoop;
        }
      }
      if (severalPhases && arrivingTasks > 1)
        return Tally::hidden(&op, "several tasks arrive on it, one of them "
                                  "in loops and outside them: which of their "
                                  "phases coincide is a guess");
    } else if (isa<scf::ExecuteRegionOp>(op)) {
      part = tallyRegion(op.getRegion(0), contribution, rule);
    } else {
      // scf.while and anything else: how often the body runs relative to
      // the phases is unknown.
      if (!containsContribution(op, contribution))
        continue;
      return Tally::hidden(&op, "it sits in " + op.getName().getStringRef() +
                                    ", which the pass cannot see through");
    }
    if (!part.known())
      return part;
    if (part.total == 0)
      continue;
    // In one task, counts from a loop and from outside it (or from two
    // loops) belong to different phases: each is checked on its own.
    if (rule == LoopRule::PerPhase && tally.total != 0 &&
        (part.inLoop || tally.inLoop)) {
      Tally previous = tally;
      previous.separatePhases.clear();
      tally.separatePhases.push_back(std::move(previous));
      tally.total = 0;
      tally.ops.clear();
      tally.inLoop = false;
    }
    tally.append(part);
    tally.inLoop |= part.inLoop;
  }
  return tally;
}

struct ArrayUses {
  SmallVector<BarrierWaitOp> waits;
  /// Arrivals, expect-tx, TMA loads and commits, with the index they use.
  SmallVector<std::pair<Operation *, std::optional<int64_t>>> signals;
};

struct CheckBarriers : jfa::impl::JFACheckBarriersBase<CheckBarriers> {
  void runOnOperation() override {
    if (failed(verifyTasksExpanded(getOperation(), "jfa-check-barriers")))
      return signalPassFailure();
    for (auto kernel : getOperation().getOps<KernelOp>())
      checkClusterSymmetry(kernel);
    for (auto kernel : getOperation().getOps<KernelOp>())
      checkKernel(kernel);
    for (auto kernel : getOperation().getOps<KernelOp>())
      kernel.walk([&](BarrierExpectOp expect) { checkExpectBytes(expect); });
    for (auto kernel : getOperation().getOps<KernelOp>())
      checkReleasedReads(kernel);
    // An analysis: the IR (and so the code of a normal build) is unchanged.
    markAllAnalysesPreserved();
    if (sawError)
      signalPassFailure();
  }

  /// In a cluster every CTA runs the same code, so an op that reaches other
  /// CTAs and is not under a condition on jfa.cluster_rank is issued by all
  /// of them alike. The counts assume each barrier then receives what its
  /// own CTA's op would bring: true for an arrival on a peer whose rank
  /// comes from jfa.cluster_rank (each CTA a different peer) and for a
  /// multicast to the whole cluster, wrong otherwise, and reported here.
  void checkClusterSymmetry(KernelOp kernel) {
    int64_t size = clusterSizeOf(kernel.getOperation());
    if (size == 1)
      return;
    auto wholeCluster =
        [&](Operation *op, Value maskValue, StringRef what) {
          APInt mask;
          if (rankCondition(op) ||
              !matchPattern(maskValue, m_ConstantInt(&mask)) ||
              int64_t(mask.popcount()) == size)
            return;
          op->emitOpError()
              << "is issued by every CTA of the cluster (no condition on "
                 "jfa.cluster_rank) with the constant mask "
              << mask.getZExtValue() << ": the " << mask.popcount()
              << " CTAs of the mask each receive " << mask.popcount() << " "
              << what << " per phase and the other " << size - mask.popcount()
              << " none; multicast to the whole cluster (mask "
              << ((uint64_t(1) << size) - 1)
              << "), or issue it from one CTA under a condition on "
                 "jfa.cluster_rank";
          sawError = true;
        };
    // An op that reaches the constant CTA `cta` from every CTA: that CTA
    // receives the whole cluster's and the others none.
    auto constantPeer =
        [&](Operation *op, Value cta, StringRef toward, StringRef receives,
            StringRef what, StringRef instead) {
          APInt rank;
          if (!cta || rankCondition(op) ||
              !matchPattern(cta, m_ConstantInt(&rank)))
            return;
          op->emitOpError()
              << "is issued by every CTA of the cluster (no condition on "
                 "jfa.cluster_rank) "
              << toward << " CTA " << rank.getSExtValue() << ": that CTA's "
              << receives << " the " << size << " CTAs' " << what
              << " and the others none; " << instead
              << " a peer computed from jfa.cluster_rank (such as rank xor 1), "
                 "or from one CTA under a condition on it";
          sawError = true;
        };
    kernel.walk([&](Operation *op) {
      if (auto load = dyn_cast<TMALoadOp>(op); load && load.getMulticast())
        wholeCluster(op, load.getMulticast(), "boxes");
      if (auto commit = dyn_cast<TcCommitOp>(op);
          commit && commit.getMulticast())
        wholeCluster(op, commit.getMulticast(), "arrivals");
      if (auto arrive = dyn_cast<BarrierArriveOp>(op))
        constantPeer(op, arrive.getCta(), "on", "barrier receives", "arrivals",
                     "arrive on");
      if (auto copy = dyn_cast<CopyToCtaOp>(op))
        constantPeer(op, copy.getCta(), "into", "slot and barrier receive",
                     "copies", "copy into");
      if (auto fetch = dyn_cast<AtomicFetchAddOp>(op);
          fetch && fetch.getCta() && !rankCondition(op)) {
        op->emitOpError()
            << "is issued by every CTA of the cluster (no condition on "
               "jfa.cluster_rank) with `and cta`: each CTA writes the unit "
               "it fetched into its own slot and a peer's, so a slot "
               "receives two units per phase and keeps either; fetch from "
               "one CTA for both under a condition on jfa.cluster_rank";
        sawError = true;
      }
      if (isa<TryCancelOp>(op) && !rankCondition(op)) {
        op->emitOpError()
            << "is issued by every CTA of the cluster (no condition on "
               "jfa.cluster_rank), and each response reaches every CTA: "
               "each barrier receives "
            << size << " responses and " << size
            << " clusters are cancelled for one; issue it from one CTA under "
               "a condition on jfa.cluster_rank";
        sawError = true;
      }
    });
  }

  /// A slot that TMA loads (or a peer's jfa.copy_to_cta) fill, read by
  /// threads (jfa.local_load) and then handed back by a jfa.barrier_arrive
  /// with no jfa.fence_async_shared in between: the next copy may land
  /// before the read has its data (a generic-proxy read, then an async-proxy
  /// write; issue 24's reproducer). Checked within one block, from the
  /// arrive back to the block's start.
  void checkReleasedReads(KernelOp kernel) {
    // Each filled buffer, and whether jfa.copy_to_cta (not TMA) fills it.
    llvm::SmallDenseMap<Value, bool, 8> tmaFilled;
    kernel.walk([&](TMALoadOp load) {
      if (auto slot = load.getSlot().getDefiningOp<SlotOp>())
        tmaFilled[slot.getBuffer()] = false;
    });
    kernel.walk([&](CopyToCtaOp copy) {
      if (auto slot = copy.getDst().getDefiningOp<SlotOp>())
        tmaFilled.try_emplace(slot.getBuffer(), true);
    });
    if (tmaFilled.empty())
      return;
    kernel.walk([&](BarrierArriveOp arrive) {
      for (Operation *op = arrive->getPrevNode(); op; op = op->getPrevNode()) {
        if (isa<FenceAsyncSharedOp>(op))
          return;
        auto load = dyn_cast<LocalLoadOp>(op);
        if (!load)
          continue;
        auto slot = load.getSlot().getDefiningOp<SlotOp>();
        if (!slot || !tmaFilled.contains(slot.getBuffer()))
          continue;
        bool byCopy = tmaFilled.lookup(slot.getBuffer());
        auto diag =
            arrive.emitWarning()
            << "hands back a slot that threads read and "
            << (byCopy ? "a peer's jfa.copy_to_cta fills" : "TMA loads fill")
            << ", with no jfa.fence_async_shared after the read: the next "
            << (byCopy ? "copy" : "TMA load")
            << " may land before the read has its data; put the "
               "fence before this arrive";
        diag.attachNote(load.getLoc()) << "the read";
        return;
      }
    });
  }

  void checkKernel(KernelOp kernel) {
    llvm::MapVector<Operation *, ArrayUses> arrays;
    for (auto array : kernel.getBodyBlock().getOps<AllocBarriersOp>())
      arrays[array];
    // Ops whose barrier the pass cannot trace to an array: it then cannot
    // claim that an array is never signalled or never waited on.
    bool untracedSignal = false, untracedWait = false;
    kernel.walk([&](Operation *op) {
      Value barrier = getSignalledBarrier(op);
      auto wait = dyn_cast<BarrierWaitOp>(op);
      if (wait)
        barrier = wait.getBarrier();
      if (!barrier)
        return;
      std::optional<BarrierRef> ref = resolveBarrier(barrier);
      if (!ref) {
        op->emitRemark() << "cannot tell which barrier array this op uses "
                            "(its barrier is not a jfa.barrier of a "
                            "jfa.alloc_barriers); the barrier checks skip it";
        (wait ? untracedWait : untracedSignal) = true;
        return;
      }
      ArrayUses &uses = arrays[ref->array];
      if (wait)
        uses.waits.push_back(wait);
      else
        uses.signals.push_back({op, ref->index});
    });

    for (auto &[op, uses] : arrays) {
      auto array = cast<AllocBarriersOp>(op);
      if (!untracedSignal)
        checkSignalled(array, uses);
      if (!untracedWait && uses.waits.empty() && !uses.signals.empty())
        array.emitWarning()
            << describeArray(array) << " is signalled but never waited on";
      checkArrivalCounts(array, uses);
    }
  }

  /// Every wait has a signal on the same barrier (or a dynamic index that
  /// may be it).
  void checkSignalled(AllocBarriersOp array, const ArrayUses &uses) {
    for (BarrierWaitOp wait : uses.waits) {
      std::optional<int64_t> index = resolveBarrier(wait.getBarrier())->index;
      bool signalled = llvm::any_of(uses.signals, [&](auto &signal) {
        return !index || !signal.second || *index == *signal.second;
      });
      if (signalled)
        continue;
      auto diag = wait.emitError()
                  << "waits on " << describeBarrier(array, index)
                  << ", which nothing signals: no jfa.barrier_arrive, "
                     "jfa.barrier_expect, jfa.tma_load or jfa.tc_commit "
                     "completes a phase of it, so this wait never returns";
      diag.attachNote(array.getLoc()) << "barrier array allocated here";
      sawError = true;
    }
  }

  void checkArrivalCounts(AllocBarriersOp array, const ArrayUses &uses) {
    // The barriers the signals reach: one group per constant index, or one
    // group for the whole array when indices are dynamic.
    SmallVector<std::optional<int64_t>> groups;
    for (auto &signal : uses.signals)
      if (!llvm::is_contained(groups, signal.second))
        groups.push_back(signal.second);
    bool dynamic = llvm::is_contained(groups, std::nullopt);
    if (dynamic && groups.size() > 1) {
      array.emitRemark()
          << "the signals on " << describeArray(array)
          << " use both constant and dynamic barrier indices; the pass "
             "cannot tell which barrier each dynamic one reaches, so it does "
             "not check arrive_count("
          << array.getArriveCount() << ")";
      return;
    }
    for (std::optional<int64_t> group : groups) {
      auto kernel = array->getParentOfType<KernelOp>();
      auto asymmetric = llvm::find_if(uses.signals, [&](auto &signal) {
        return signal.second == group && isAsymmetricClusterOp(signal.first);
      });
      if (asymmetric != uses.signals.end()) {
        asymmetric->first->emitRemark()
            << "cannot count the arrivals per phase on "
            << describeBarrier(array, group) << ": "
            << whyAsymmetric(asymmetric->first) << "; arrive_count("
            << array.getArriveCount()
            << ") is not checked (jfa-interp checks it when it runs)";
        continue;
      }
      Tally tally = tallyBlock(
          kernel.getBodyBlock(),
          [&](Operation *op) -> int64_t {
            Value barrier = getSignalledBarrier(op);
            if (!barrier)
              return 0;
            std::optional<BarrierRef> ref = resolveBarrier(barrier);
            if (!ref || ref->array != array || ref->index != group)
              return 0;
            return getArrivals(op);
          },
          LoopRule::PerPhase);
      if (!tally.known()) {
        tally.hiddenBy->emitRemark()
            << "cannot count the arrivals per phase on "
            << describeBarrier(array, group) << ": " << tally.why
            << "; arrive_count(" << array.getArriveCount()
            << ") is not checked";
        continue;
      }
      // One check per group of phases (a loop's, and those outside it).
      SmallVector<Tally> phases{tally};
      llvm::append_range(phases, tally.separatePhases);
      bool copies = llvm::any_of(uses.signals, [&](auto &signal) {
        return signal.second == group && isa<CopyToCtaOp>(signal.first);
      });
      for (const Tally &phase : phases)
        checkArrivals(array, group, phase, copies);
    }
  }

  /// `copies`: peers' jfa.copy_to_cta complete on the barriers of `group`.
  void checkArrivals(AllocBarriersOp array, std::optional<int64_t> group,
                     const Tally &tally, bool copies) {
    if (tally.total == array.getArriveCount())
      return;
    auto diag = array.emitError()
                << describeBarrier(array, group) << " expects "
                << array.getArriveCount()
                << " arrivals per phase (arrive_count) but its tasks "
                   "arrive "
                << tally.total << " times";
    for (auto [op, times] : tally.ops) {
      int64_t n = getArrivals(op);
      if (op->hasTrait<SingleThreadIssue>() && n != 1) {
        diag.attachNote(op->getLoc())
            << "arrives " << n << " times: " << op->getName()
            << " is issued by one thread and multicast to " << n
            << " CTAs, each of which commits alike";
      } else if (op->hasTrait<SingleThreadIssue>()) {
        diag.attachNote(op->getLoc())
            << "arrives once: " << op->getName() << " is issued by one thread";
      } else {
        TaskInfo task = getEnclosingTask(op);
        std::string who =
            n == task.numThreads() ? "every thread of " : "threads of ";
        diag.attachNote(op->getLoc())
            << "arrives " << n << " times: " << who
            << (task.index < 0 ? std::string("the CTA")
                               : "task " + std::to_string(task.index))
            << " (warps " << task.firstWarp << "-"
            << task.firstWarp + task.numWarps - 1 << ")"
            << (n == task.numThreads()
                    ? ""
                    : " that the jfa.task_thread_id conditions around it "
                      "let through");
      }
    }
    if (tally.ops.empty())
      diag.attachNote(array.getLoc())
          << (copies ? "only peers' jfa.copy_to_cta (or TMA loads) complete "
                       "on it"
                     : "only TMA loads (or jfa.try_cancel) complete on it")
          << ", and they bring bytes, not arrivals: arm it with "
             "jfa.barrier_expect";
    sawError = true;
  }

  /// The bytes `load` brings to the issuing CTA's barrier. A multicast
  /// load with a constant mask counts once per CTA of the mask: each of them
  /// issues the same copy of its own part (its jfa.row_block of the shared
  /// tile), and every part lands on every barrier of the mask. A mask that
  /// is not a constant sets `unknown`.
  static int64_t loadBytes(TMALoadOp load, TMALoadOp &unknown) {
    int64_t bytes = load.getSlot().getType().getBytes();
    if (!load.getMulticast())
      return bytes;
    APInt mask;
    if (!matchPattern(load.getMulticast(), m_ConstantInt(&mask))) {
      unknown = load;
      return bytes;
    }
    return bytes * int64_t(mask.popcount());
  }

  /// The TMA loads that complete on the armed barrier value, in the
  /// expect's block and in the regions nested there, must bring exactly the
  /// armed bytes, or the phase never (or too early) completes.
  void checkExpectBytes(BarrierExpectOp expect) {
    Value barrier = expect.getBarrier();
    TMALoadOp unknownMask;
    Operation *asymmetric = nullptr;
    // A CTA pair's protocol: one CTA arms the barrier (the expect alone
    // under a condition on jfa.cluster_rank) and both CTAs' loads after it
    // complete there (`on cta`), so each pair load brings its bytes twice.
    // The loads stand in the block around the condition.
    Block *block = expect->getBlock();
    auto armedAlone = dyn_cast<scf::IfOp>(expect->getParentOp());
    bool pairArmed = armedAlone && armedAlone.thenBlock() == block &&
                     dependsOnRank(armedAlone.getCondition()) &&
                     std::next(block->begin()) == std::prev(block->end());
    if (pairArmed)
      block = armedAlone->getBlock();
    // A load of both CTAs (no rank condition) under that protocol.
    auto isPairLoad = [&](TMALoadOp load) {
      return pairArmed && load && load.getCta() && !rankCondition(load);
    };
    auto bytesOf = [&](Operation *op) -> int64_t {
      auto load = dyn_cast<TMALoadOp>(op);
      bool pairLoad = isPairLoad(load);
      if (getSignalledBarrier(op) == barrier && isAsymmetricClusterOp(op) &&
          !pairLoad)
        asymmetric = op;
      // A cluster-launch-control response is 16 bytes.
      if (auto cancel = dyn_cast<TryCancelOp>(op))
        return cancel.getBarrier() == barrier ? 16 : 0;
      // A peer's copy into this CTA: issued alike by every CTA (into a
      // peer computed from its rank), so this barrier receives one.
      if (auto copy = dyn_cast<CopyToCtaOp>(op))
        return copy.getBarrier() == barrier ? copy.getSrc().getType().getBytes()
                                            : 0;
      if (!load || load.getBarrier() != barrier)
        return 0;
      return loadBytes(load, unknownMask) * (pairLoad ? 2 : 1);
    };
    Tally tally = tallyBlock(*block, bytesOf, LoopRule::Repeat);
    if (asymmetric) {
      asymmetric->emitRemark() << "cannot check the " << expect.getBytes()
                               << " bytes armed by a jfa.barrier_expect: "
                               << whyAsymmetric(asymmetric)
                               << " (jfa-interp checks the bytes when it runs)";
      return;
    }
    if (unknownMask) {
      unknownMask->emitRemark()
          << "cannot check the " << expect.getBytes()
          << " bytes armed by a jfa.barrier_expect: this multicast load's "
             "CTA mask is not a constant, so which CTAs' copies land here is "
             "not known (jfa-interp checks the bytes when it runs)";
      return;
    }
    if (!tally.known() && isa<scf::IfOp, scf::IndexSwitchOp>(tally.hiddenBy)) {
      // The paths disagree; when none of them brings the armed bytes,
      // every path is wrong.
      std::optional<std::set<int64_t>> totals =
          possibleTotals(*expect->getBlock(), bytesOf);
      if (totals && !totals->count(int64_t(expect.getBytes()))) {
        std::string list;
        llvm::raw_string_ostream os(list);
        llvm::interleave(llvm::reverse(*totals), os, ", ");
        auto diag = expect.emitOpError()
                    << "expects " << expect.getBytes()
                    << " bytes but no path brings that many: the TMA loads "
                       "completing on this barrier bring ("
                    << list << ") bytes, depending on the path";
        diag.attachNote(tally.hiddenBy->getLoc()) << tally.why;
        sawError = true;
        return;
      }
    }
    if (!tally.known()) {
      tally.hiddenBy->emitRemark()
          << "cannot check the " << expect.getBytes()
          << " bytes armed by a jfa.barrier_expect against the TMA loads "
             "completing on its barrier: "
          << tally.why;
      return;
    }
    if (tally.ops.empty() || tally.total == int64_t(expect.getBytes()))
      return;
    auto diag = expect.emitOpError()
                << "expects " << expect.getBytes() << " bytes but the TMA "
                << "loads completing on this barrier bring " << tally.total;
    for (auto [op, times] : tally.ops) {
      auto load = dyn_cast<TMALoadOp>(op);
      auto copy = dyn_cast<CopyToCtaOp>(op);
      TMALoadOp unused;
      bool pairLoad = isPairLoad(load);
      auto &note = diag.attachNote(op->getLoc())
                   << (load   ? "this load brings "
                       : copy ? "this copy brings "
                              : "this response brings ")
                   << (load   ? loadBytes(load, unused) * (pairLoad ? 2 : 1)
                       : copy ? copy.getSrc().getType().getBytes()
                              : 16)
                   << " bytes";
      if (copy)
        note << " (each CTA's copy into its peer: one lands here)";
      if (load && load.getMulticast())
        note << " (multicast: one box from each CTA of its mask)";
      if (pairLoad)
        note << " (a CTA pair's load: one box from each CTA of the pair)";
      if (times != 1)
        note << ", " << times << " times (in a loop)";
    }
    sawError = true;
  }

  bool sawError = false;
};

} // namespace
