//===- Interpreter.h - runs JFA kernels on the CPU --------------*- C++ -*-===//
//
// Executes a `jfa.kernel` at the level the DSL states it (before
// jfa-distribute-tiles): each warpgroup of a task (or the whole task when it
// is smaller) is a logical executor of the task's tile ops, executors run
// concurrently and block on mbarriers and named barriers, TMA and the tensor
// cores complete asynchronously as the hardware allows. While it runs it
// checks for deadlocks, data races by happens-before (vector clocks through
// barriers, async-dot waits and tensor-core commits), missing proxy fences
// and out-of-bounds indices. See docs/INTERPRETER.md.
//
//===----------------------------------------------------------------------===//
#ifndef JFA_INTERPRETER_INTERPRETER_H
#define JFA_INTERPRETER_INTERPRETER_H

#include "JFA/JFAOps.h"

#include <array>
#include <string>
#include <vector>

namespace jfa::interp {

struct RunOptions {
  std::array<int64_t, 3> grid = {1, 1, 1};
  /// One per kernel parameter, in order: a .npy path for a TMA descriptor or
  /// pointer, `i32:N`, `i64:N`, `f32:X` or `i1:0|1` for a scalar.
  std::vector<std::string> args;
  /// Print one line per CTA to stderr.
  bool verbose = false;
  /// --stats: what each executor did (op counts, TMA traffic, MMAs, barrier
  /// waits), printed to stdout per CTA (`statsPerCta`) and for the grid.
  bool stats = false;
  bool statsPerCta = true;
  /// --nan-check: stop at the first op that makes a NaN or an infinity from
  /// finite operands.
  bool nanCheck = false;
  /// Source names of values (from the parser), for messages.
  llvm::DenseMap<mlir::Value, std::string> valueNames;
};

/// Runs `kernel` for the grid. Tensor files are read before the run and
/// written back after a clean run. Problems are emitted as diagnostics on
/// the kernel's context (located at the ops involved); returns failure then.
mlir::LogicalResult runKernel(KernelOp kernel, const RunOptions &options);

} // namespace jfa::interp

#endif // JFA_INTERPRETER_INTERPRETER_H
