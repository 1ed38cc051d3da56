//===- Pipeline.h - the JFA compiler as a library ---------------*- C++ -*-===//
//
// Source -> verified JFA -> LLVM/NVVM dialect -> LLVM IR -> PTX (in-process
// NVPTX backend) -> cubin (ptxas subprocess), plus the metadata the runtime
// reads.
//
//===----------------------------------------------------------------------===//
#ifndef JFA_COMPILER_PIPELINE_H
#define JFA_COMPILER_PIPELINE_H

#include "JFA/Targets.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"

#include <optional>
#include <string>

namespace jfa {

struct CompileOptions {
  /// What to compile for: an entry of kTargets (Targets.def); required.
  const Target *target = nullptr;
  unsigned optLevel = 3;
  /// ptxas to run; empty: $CUDA_HOME/bin, /usr/local/cuda/bin, then $PATH.
  std::string ptxas;
  /// Print the IR after every pass (to stderr).
  bool printIRAfterAll = false;
  /// Bound every barrier wait: a wait that runs out of time prints where it
  /// is and traps (jfa-debug-barriers) instead of hanging the GPU.
  bool debugBarriers = false;
  /// Report each task's peak of live 32-bit values per thread, where it is
  /// reached and the largest values live there (jfa-report-registers).
  bool registerReport = false;
  /// Let LLVM's NVPTX backend schedule instructions for register pressure
  /// instead of in source order (its -nvptx-sched4reg); jfac sets it from
  /// the kernel's jfa.schedule_for_registers (takeSchedulingRequest) or
  /// from --schedule.
  bool scheduleForRegisters = false;
  /// Shared-memory addresses as 32-bit values (NVPTX's -nvptx-short-ptr):
  /// shared memory is at most 228 KB, and an address that LLVM hoists out of
  /// a loop (a slot's per-thread offset) then holds one register, not two.
  /// jfac's --long-shared-pointers turns it off.
  bool shortSharedPointers = true;
  /// Read the thread index where each use is, so that LLVM cannot hoist the
  /// per-thread address arithmetic of register tiles out of loops (fewer
  /// registers live through them, more integer work inside): jfac's
  /// --thread-index=at-use. Off by default: on an H100 it cost the sm_90a
  /// backward 1-4% at D = 64 and gained nothing at D = 128, spills removed
  /// or not (bench/NOTES.md runs 73 and 74).
  bool threadIndexAtUse = false;
};

void registerDialects(mlir::DialectRegistry &registry);
/// Registers the JFA passes, the upstream passes the pipeline uses and the
/// `jfa-lower-to-llvm` pipeline.
void registerPasses();

/// What runs on a kernel as written before anything looks at it: its
/// imports (jfa.import) resolved, looked for beside the importing file then
/// in `includeDirs` (the tools' -I) and then in jfa::importSearchPaths();
/// its helpers (jfa.func) inlined, its compile-time parameters fixed
/// (`params`, NAME=VALUE each; the rest take their defaults) and the
/// branches on them folded, replicated tasks expanded. jfac, jfa-interp and
/// jfa-lower-to-llvm all start with it.
void buildFrontEndPipeline(mlir::OpPassManager &pm,
                           llvm::ArrayRef<std::string> params,
                           llvm::ArrayRef<std::string> includeDirs = {});

/// Runs the front-end pipeline on `module`. Diagnostics go to the context.
mlir::LogicalResult specialize(mlir::ModuleOp module,
                               llvm::ArrayRef<std::string> params,
                               llvm::ArrayRef<std::string> includeDirs = {});

/// Reads and removes the kernels' jfa.schedule_for_registers ops, whose
/// conditions must be constants by now (after specialize): true when a
/// kernel asks for register-pressure scheduling. Fails, with a located
/// error, on a condition that depends on a run-time value, or on kernels of
/// one module that disagree (code generation makes one choice per module).
mlir::FailureOr<bool> takeSchedulingRequest(mlir::ModuleOp module);

/// The JFA -> LLVM/NVVM dialect pipeline; with a target, it first rejects
/// ops the target lacks. With `debugBarriers`, barrier waits are bounded;
/// with `registerReport`, each task's peak of live values is reported
/// (remarks, jfa-report-registers); with `threadIndexAtUse`, thread-index
/// reads stay where they are used (jfa-convert-to-llvm's option).
void buildLoweringPipeline(mlir::OpPassManager &pm, const Target *target,
                           bool debugBarriers = false,
                           bool registerReport = false,
                           bool threadIndexAtUse = false);

/// Runs the lowering pipeline on `module`. Diagnostics go to the context.
mlir::LogicalResult lowerToLLVMDialect(mlir::ModuleOp module,
                                       const CompileOptions &options);

/// Translates a module in the LLVM dialect to LLVM IR text (optimized at
/// options.optLevel) and PTX. Not reentrant: options.scheduleForRegisters
/// and options.shortSharedPointers set NVPTX command-line options for the
/// duration of the call.
mlir::LogicalResult translateToLLVMIR(mlir::ModuleOp module,
                                      const CompileOptions &options,
                                      std::string &llvmIR, std::string &ptx);

/// Where ptxas is, or an empty string with `error` set.
std::string findPtxas(const CompileOptions &options, std::string &error);

/// Assembles PTX into `cubinPath`. `log` receives ptxas's report (resource
/// use with -v, or its errors).
mlir::LogicalResult runPtxas(llvm::StringRef ptx, llvm::StringRef cubinPath,
                             const CompileOptions &options, std::string &log,
                             std::string &error);

/// The metadata the runtime reads: per kernel its name, parameters, threads,
/// cluster, dynamic shared memory and TMA descriptor specs. jfac calls it on
/// the verified module before lowering; the shared-memory size comes from
/// computeSharedMemoryLayout, the function jfa-allocate-shared-memory
/// applies, so the two cannot disagree.
/// `debugBarriers` records that the kernels were built with bounded waits
/// (the runtime then explains a trap).
std::string buildMetadata(mlir::ModuleOp module, const Target &target,
                          bool debugBarriers = false);

} // namespace jfa

#endif // JFA_COMPILER_PIPELINE_H
