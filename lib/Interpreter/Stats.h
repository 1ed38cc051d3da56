//===- Stats.h - what jfa-interp's executors did (--stats) ----*- C++ -*-===//
//
// The counters each executor keeps for --stats and the tables they print as.
//
//===----------------------------------------------------------------------===//
#ifndef JFA_INTERPRETER_STATS_H
#define JFA_INTERPRETER_STATS_H

#include "mlir/IR/OperationSupport.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>

namespace jfa::interp {

using llvm::ArrayRef;
using llvm::Twine;
using mlir::OperationName;

/// What one executor did, for --stats.
struct ExecStats {
  /// Executions per op (scf.for counts once per loop, not per trip).
  llvm::DenseMap<OperationName, uint64_t> ops;
  uint64_t numOps = 0;
  uint64_t tmaLoads = 0, tmaLoadBytes = 0;
  uint64_t tmaStores = 0, tmaStoreBytes = 0;
  /// async_dot (wgmma) and tc_dot (tcgen05) products issued.
  uint64_t mmas = 0;
  /// barrier_wait and barrier_try_wait; of those, the ones that had to wait.
  uint64_t mbarrierWaits = 0, mbarrierWaitsBlocked = 0;
  /// named_barrier_sync, task_barrier (and convert_layout's syncs).
  uint64_t namedSyncs = 0;

  void add(const ExecStats &other) {
    for (const auto &[name, n] : other.ops)
      ops[name] += n;
    numOps += other.numOps;
    tmaLoads += other.tmaLoads;
    tmaLoadBytes += other.tmaLoadBytes;
    tmaStores += other.tmaStores;
    tmaStoreBytes += other.tmaStoreBytes;
    mmas += other.mmas;
    mbarrierWaits += other.mbarrierWaits;
    mbarrierWaitsBlocked += other.mbarrierWaitsBlocked;
    namedSyncs += other.namedSyncs;
  }
};

/// Prints `stats` (one per executor, labelled) as two tables: the counters
/// per executor, then the op counts per executor.
void printStats(llvm::raw_ostream &os, const Twine &title,
                ArrayRef<std::string> labels, ArrayRef<ExecStats> stats);

} // namespace jfa::interp

#endif // JFA_INTERPRETER_STATS_H
