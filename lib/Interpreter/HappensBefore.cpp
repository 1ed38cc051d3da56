//===- HappensBefore.cpp - jfa-interp's race checker ------------------------===//
//
// The memory checks by happens-before (vector clocks) and the mbarriers,
// named barriers and the cluster barrier that carry them.
//===----------------------------------------------------------------------===//
#include "lib/Interpreter/CTARun.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;

namespace jfa::interp {

std::string CTARun::barrierName(int b) {
  BarrierState &s = barriers[b];
  Value array = s.alloc->getResult(0);
  std::string name =
      llvm::formatv("{0}[{1}]", interp.nameOf(array), s.indexInArray).str();
  if (clusterSize > 1)
    name += " of " + ctaName(b / barriersPerCta);
  return name;
}

std::string CTARun::slotWhat(const RtValue &slot, int64_t row) {
  BufferState &b = buffers[slot.id];
  // The slot's row (a row block's rows are further in).
  std::string what =
      llvm::formatv("row {0} of slot {1} of {2}", slot.row + row, slot.index,
                    interp.nameOf(b.alloc->getResult(0)))
          .str();
  if (clusterSize > 1)
    what += " of " + ctaName(slot.id / buffersPerCta);
  return what;
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
    if (isa<CopyToCtaOp>(r.op))
      fail(op,
           "race: overwrites " + what +
               " while, as far as the writer knows, a jfa.copy_to_cta still "
               "reads it: the copy's completion shows only on the receiving "
               "CTA's barrier, so the receiver must tell this CTA (an arrival "
               "on a barrier here after its wait, waited on before this "
               "write)",
           r.op, "the jfa.copy_to_cta");
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

/// The row of buffer `slot.id` that row `r` of the slot is stored in.
static std::pair<int, int64_t> storedRow(CTARun &run, const RtValue &slot,
                                         int64_t r) {
  return {slot.id, slot.index * run.buffers[slot.id].rows + slot.row + r};
}

void CTARun::readSlotRows(Executor &e, Operation *op, const RtValue &slot,
                          int64_t lo, int64_t hi, const VC &view, Access self,
                          bool asyncProxy) {
  auto [first, end] = slotBlocks(slot);
  for (int64_t r = lo; r < hi; ++r) {
    // The hardware's response format is not part of the ISA.
    if (!opaqueRows.empty() && !isa<QueryCancelOp>(op) &&
        opaqueRows.count(storedRow(*this, slot, r)))
      fail(op, "reads " + slotWhat(slot, r) +
                   ", which holds the response of a jfa.try_cancel: its 16 "
                   "bytes are opaque; read it with jfa.query_cancel");
    for (int64_t block = first; block < end; ++block)
      checkRead(e, op, slotShadow(slot, r, block), view, self,
                slotWhat(slot, r), asyncProxy);
  }
}

void CTARun::writeSlotRows(Executor &e, Operation *op, const RtValue &slot,
                           int64_t lo, int64_t hi, const VC &view,
                           Access self, bool generic) {
  auto [first, end] = slotBlocks(slot);
  for (int64_t r = lo; r < hi; ++r)
    for (int64_t block = first; block < end; ++block)
      writeSlotRowBlock(e, op, slot, r, block, view, self, generic);
}

void CTARun::writeSlotRowBlock(Executor &e, Operation *op, const RtValue &slot,
                               int64_t r, int64_t block, const VC &view,
                               Access self, bool generic) {
  Shadow &s = slotShadow(slot, r, block);
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
  if (isa<TryCancelOp>(op))
    opaqueRows.insert(storedRow(*this, slot, r));
  else if (!opaqueRows.empty())
    opaqueRows.erase(storedRow(*this, slot, r));
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
  // Each CTA has its own 16.
  NamedBarrierState &n = named[e.ctaRank * 16 + id];
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

void CTARun::clusterBarrierStep(Executor &e, Operation *op, bool wait) {
  ClusterBarrierState &c = clusterBarrier;
  if (!wait) {
    // barrier.cluster counts each thread once per phase: a second arrival
    // before the wait would complete a later phase early.
    if (e.clusterArrived >= 0)
      fail(op, "the threads of " + e.label +
                   " arrive on the cluster barrier again without a "
                   "jfa.cluster_wait since their last jfa.cluster_arrive");
    e.clusterArrived = c.generation;
    c.arrived += e.numThreads;
    join(c.joined, releaseView(e));
    int64_t threads = int64_t(kernel.getNumWarps()) * 32 * clusterSize;
    if (c.arrived == threads) {
      c.completedVC[c.generation] = c.joined;
      ++c.generation;
      c.arrived = 0;
      c.joined.assign(numComps, 0);
    }
    tickAll(e);
    return;
  }
  if (e.clusterArrived < 0)
    fail(op, "the threads of " + e.label +
                 " wait on the cluster barrier without having arrived on it "
                 "(jfa.cluster_arrive) since their last jfa.cluster_wait: "
                 "the wait would never return");
  int64_t generation = e.clusterArrived;
  e.clusterArrived = -1;
  ++e.stats.namedSyncs;
  block(
      e, op, [&c, generation] { return c.generation > generation; },
      [this, &c] {
        int64_t threads = int64_t(kernel.getNumWarps()) * 32 * clusterSize;
        return llvm::formatv("waits on the cluster barrier of {0} CTA{1} "
                             "({2} threads), but its phase is still in "
                             "progress: {3} thread{4} arrived, {5} still "
                             "missing",
                             clusterSize, clusterSize == 1 ? "" : "s", threads,
                             c.arrived, c.arrived == 1 ? " has" : "s have",
                             threads - c.arrived)
            .str();
      });
  acquire(e, c.completedVC[generation]);
}

} // namespace jfa::interp
