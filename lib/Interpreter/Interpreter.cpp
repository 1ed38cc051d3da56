//===- Interpreter.cpp - runs JFA kernels on the CPU ----------------------===//
//
// This file runs the grid (arguments in, clusters of CTAs one after
// another, arguments out; a CTA is its own cluster without `cluster(...)`);
// CTARun.h declares the CTA state, and its members are defined by
// concern in Scheduler.cpp, HappensBefore.cpp, Arith.cpp and NanCheck.cpp.
// The ops run through the handler table of OpHandlers.h, one file per
// family of ops.
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
// executor's threads, per executor's issuing thread (the one that issues
// the single-thread ops), per executor's asynchronous pipe (wgmma, tcgen05,
// TMA stores) and per mbarrier: a TMA load's bytes belong to the phase of
// the barrier they complete, so reading them needs to have waited on that
// very phase.
//
//===----------------------------------------------------------------------===//
#include "lib/Interpreter/CTARun.h"
#include "lib/Interpreter/Npy.h"

#include "compiler/FileIO.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

using namespace mlir;

namespace jfa::interp {

std::string Interpreter::nameOf(Value value) {
  auto it = names.find(value);
  if (it != names.end())
    return it->second;
  if (auto arg = dyn_cast<BlockArgument>(value))
    return llvm::formatv("%arg{0}", arg.getArgNumber()).str();
  return "%<" + value.getDefiningOp()->getName().getStringRef().str() + ">";
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
  if (auto dims = kernel.getClusterDims())
    for (auto [i, d] : llvm::enumerate(*dims))
      clusterDims[i] = d;
  // The launch fails on the GPU too (cudaErrorClusterOutOfResources or
  // invalid configuration): a cluster never straddles the grid's edge.
  const auto &grid = options.grid;
  if (grid[0] % clusterDims[0] || grid[1] % clusterDims[1] ||
      grid[2] % clusterDims[2])
    return kernel.emitError("jfa-interp: the grid (")
           << grid[0] << ", " << grid[1] << ", " << grid[2]
           << ") is not a whole number of the kernel's clusters ("
           << clusterDims[0] << ", " << clusterDims[1] << ", " << clusterDims[2]
           << "): each grid dimension must be a multiple of the cluster's";
  // Clusters one after another, x fastest; a cluster's CTAs run together.
  // One that a jfa.try_cancel cancelled never runs.
  for (int64_t i = 0, n = numClusters(); i < n; ++i) {
    if (cancelled.contains(i))
      continue;
    runningCluster = i;
    CTARun cluster(*this, clusterOrigin(i));
    if (failed(cluster.run())) {
      printStatTotals();
      return failure();
    }
    if (options.verbose)
      for (int rank = 0; rank < cluster.clusterSize; ++rank)
        llvm::errs() << "jfa-interp: " << cluster.ctaName(rank) << " done\n";
  }
  printStatTotals();
  return writeArguments();
}

int64_t Interpreter::numClusters() const {
  const auto &grid = options.grid;
  return grid[0] / clusterDims[0] * (grid[1] / clusterDims[1]) *
         (grid[2] / clusterDims[2]);
}

std::array<int64_t, 3> Interpreter::clusterOrigin(int64_t index) const {
  int64_t nx = options.grid[0] / clusterDims[0];
  int64_t ny = options.grid[1] / clusterDims[1];
  return {index % nx * clusterDims[0], index / nx % ny * clusterDims[1],
          index / (nx * ny) * clusterDims[2]};
}

std::optional<std::array<int64_t, 3>> Interpreter::cancelNextCluster() {
  // Every cluster after the running one has not started: the next one that
  // is not cancelled yet is what a hardware that launches in order would
  // give up first.
  for (int64_t i = runningCluster + 1, n = numClusters(); i < n; ++i)
    if (cancelled.insert(i).second)
      return clusterOrigin(i);
  return std::nullopt;
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

LogicalResult runKernel(KernelOp kernel, const RunOptions &options) {
  // The target the kernel was checked for: jfa-check-target records it on
  // the module, where the compiler's passes read it too.
  auto module = kernel->getParentOfType<ModuleOp>();
  const Target *target = module ? getModuleTarget(module) : nullptr;
  if (!target)
    return kernel.emitError("jfa-interp: the kernel's module names no target "
                            "(jfa.target); run jfa-check-target first, as "
                            "jfa-interp --arch does");
  Interpreter interp(kernel, options, *target);
  interp.names = options.valueNames;
  return interp.run();
}

} // namespace jfa::interp
