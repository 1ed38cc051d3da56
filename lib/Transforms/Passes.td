//===- Passes.td - JFA passes ----------------------------------*- tablegen -*-===//
#ifndef JFA_TRANSFORMS_PASSES_TD
#define JFA_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def JFAResolveImports : Pass<"jfa-resolve-imports", "::mlir::ModuleOp"> {
  let summary = "copies the helpers of imported files (jfa.import) into the module";
  let description = [{
    Each `jfa.import "PATH"` at module level is replaced by the `jfa.func`
    helpers of the file it names, parsed in the same context (their ops
    keep the imported file's locations). A relative PATH is looked for in
    the importing file's folder (from the import's location), then in each
    folder of `include-dirs` (`jfa-resolve-imports{include-dirs=a,b}`) and
    of the tool's `-I <dir>` options, in order; an absolute PATH is used as
    it is. Imported files may import others (transitively, each file once:
    a file named twice is copied once). Errors at the import, with notes
    where they apply: a file not found (naming every place looked in), not
    readable or a directory, a parse error in it, an import cycle (the
    chain), a helper name defined twice (both places), an imported file
    holding anything but `jfa.func` and `jfa.import`. Runs before
    `jfa-inline-helpers`.
  }];
  let options = [
    ListOption<"includeDirs", "include-dirs", "std::string",
               "folders to look for imported files in, after the importing "
               "file's own folder">
  ];
  // An imported file is parsed while the pass runs: every dialect a helper
  // may use must be loaded before.
  let dependentDialects = [
    "::jfa::JFADialect", "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect", "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect", "::mlir::vector::VectorDialect",
    "::mlir::cf::ControlFlowDialect"
  ];
}

def JFAInlineHelpers : Pass<"jfa-inline-helpers", "::mlir::ModuleOp"> {
  let summary = "inlines the device helpers (jfa.func) into the kernels";
  let description = [{
    Every `jfa.call` in a kernel is replaced by a copy of its helper's body
    (helpers calling helpers included), each copied op located at the
    helper's line "called from" the call; then the helpers are removed. A
    helper that calls itself, directly or through others, is an error at
    the call that closes the cycle.
  }];
}

def JFASpecialize : Pass<"jfa-specialize", "::mlir::ModuleOp"> {
  let summary = "fixes a kernel's compile-time parameters (jfa.param)";
  let description = [{
    Replaces every `jfa.param` by an `arith.constant` of the value given in
    `params` (`jfa-specialize{params=head_dim=64,causal=1}`, what
    `jfac compile -P head_dim=64 -P causal=1` passes) or of its default,
    and records the values on the kernel as `jfa.params` (the metadata
    writes them). Errors: a given name no kernel declares (with the names
    that exist), a value that is not of the parameter's type or does not
    fit it, a parameter without a default that is not given. Run the
    canonicalizer after it to fold the branches on the constants (jfac
    does).
  }];
  let options = [
    ListOption<"params", "params", "std::string",
               "NAME=VALUE for each parameter to set">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def JFAReplicateTasks : Pass<"jfa-replicate-tasks", "::mlir::ModuleOp"> {
  let summary = "expands `jfa.task replicas(N)` into N tasks";
  let description = [{
    Each replicated task becomes N consecutive copies with the same warps
    and register budget; `jfa.replica_id` in copy r becomes the constant r.
    Every later pass sees plain tasks (jfa-check-barriers, jfa-distribute-
    tiles and jfa-lower-async-tasks refuse replicated ones).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def JFACheckTarget : Pass<"jfa-check-target", "::mlir::ModuleOp"> {
  let summary = "rejects ops the chosen GPU does not have";
  let description = [{
    Ops declare the hardware feature they need (register-accumulator
    `jfa.async_dot` is wgmma; `jfa.tmem_alloc`, `jfa.tc_dot`, `jfa.tc_commit`,
    `jfa.tmem_load` are tcgen05; the TMA copies are tma; a task's
    `registers(N)` is setmaxnreg) and the target description
    (`dialects/JFA/Targets.def`) says which target has which. Each op the
    target lacks gets an error at its location naming the target and the
    targets that have it. Each kernel is held to the target's own limits
    (shared memory per CTA, tensor-memory columns, the register file), which
    the verifier checks only against the largest of any target. Records the
    target on the module (`jfa.target`), where the passes after it
    (jfa-allocate-shared-memory, jfa-lower-async-tasks, jfa-convert-to-llvm)
    take it from. An unknown arch is an error listing the known targets.
    With `lowering` (the default), upstream `math` ops and `arith`/`math`
    element types the NVPTX lowering cannot compile are rejected at the op
    too, naming what it supports (docs/DIALECT.md, "Tile math");
    jfa-interp, which models the kernel on the CPU, turns it off.
  }];
  let options = [
    Option<"arch", "arch", "std::string", /*default=*/"\"\"",
           "target GPU, a name of Targets.def (jfac --version lists them)">,
    Option<"lowering", "lowering", "bool", /*default=*/"true",
           "also reject upstream ops and element types the LLVM lowering "
           "cannot compile">
  ];
}

def JFAAllocateSharedMemory : Pass<"jfa-allocate-shared-memory", "::mlir::ModuleOp"> {
  let summary = "assigns shared-memory offsets to buffers and barrier arrays";
  let description = [{
    Sets `offset` on every `jfa.local_alloc` and `jfa.alloc_barriers` and
    `jfa.shared_bytes` on each kernel (the dynamic shared memory to launch
    with). Buffers are 1024-byte aligned, barrier arrays 8-byte aligned. A
    kernel over the shared memory of the module's target (`jfa.target`;
    without one, of every target) is an error.
  }];
}

def JFADistributeTiles : Pass<"jfa-distribute-tiles", "::mlir::ModuleOp"> {
  let summary = "spreads register tiles over the threads of their task";
  let description = [{
    Rewrites tensor-typed tile values into per-thread vectors. A tile of N
    elements in a task of T threads becomes `vector<N/T>`: thread t owns the
    4-element chunks t, t+T, t+2T, ... of the row-major tile (counted in
    elements, so casts keep every element on its thread), so shared-memory
    accesses are vectorized (16 bytes for f32), coalesced and free of bank
    conflicts.
    `jfa.local_load`/`jfa.local_store` become `jfa.load_fragment`/
    `jfa.store_fragment`; elementwise arith/math ops, splat constants,
    `tensor.splat` and scf loop-carried tiles are rewritten in place.
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect"];
}

def JFAReportRegisters : Pass<"jfa-report-registers", "::mlir::ModuleOp"> {
  let summary = "reports each task's peak of live 32-bit values per thread";
  let description = [{
    Runs after `jfa-distribute-tiles`, when a tile is a per-thread vector:
    for each `jfa.task`, a remark with the most 32-bit registers its SSA
    values hold live at once in one thread (predicates not counted, 64-bit
    values and pointers as two), the op where that happens (file:line:col,
    "called from" for inlined helpers), whether it exceeds the task's
    `registers(...)`, and a note for each of the largest values live there
    with where it is made. Values live across a loop count throughout it.
    The count is of the IR handed to LLVM, before NVPTX and ptxas schedule
    and rematerialize: a guide to which tile to shrink or end sooner when
    ptxas spills, not ptxas's figure. `jfac --register-report` runs it.
  }];
  let options = [
    Option<"topValues", "top-values", "unsigned", /*default=*/"4",
           "How many of the largest live values to name at the peak">,
  ];
}

def JFALowerAsyncTasks : Pass<"jfa-lower-async-tasks", "::mlir::ModuleOp"> {
  let summary = "lowers async tasks to warp dispatch with setmaxnreg";
  let description = [{
    Predicates single-thread ops (TMA, expect-tx, store waits) on the first
    thread of their task, turns `jfa.task_barrier` into a named barrier over
    the task's threads and `jfa.task_thread_id` into arithmetic, and replaces
    `jfa.async_tasks` by an if/else chain on the warp index in which each task
    first adjusts its register budget (`setmaxnreg.inc/dec`).
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::NVVM::NVVMDialect"];
}

def JFACheckBarriers : Pass<"jfa-check-barriers", "::mlir::ModuleOp"> {
  let summary = "checks the mbarrier protocol of each kernel";
  let description = [{
    Per barrier array (`jfa.alloc_barriers`): every barrier waited on must be
    signalled (`jfa.barrier_arrive`, `jfa.barrier_expect`, `jfa.tma_load`,
    `jfa.tc_commit`), else an error; an array signalled but never waited on
    is a warning. The arrivals per phase must add up to `arrive_count`:
    `jfa.barrier_arrive` counts the threads of its task, single-thread ops
    (`jfa.barrier_expect`, `jfa.tc_commit`) one, `jfa.tma_load` none (it
    brings transaction bytes); a mismatch is an error with a note at each
    arriving op. The TMA loads completing on a barrier armed by
    `jfa.barrier_expect` (in its block and the regions nested there) must
    bring exactly the armed bytes. An scf.while counts as a loop (both
    regions one iteration). Where control flow hides a count (paths that
    differ, loops without a constant trip count outside the per-phase
    rule) the pass says so in a remark instead of guessing. See
    docs/BARRIERS.md.
  }];
}

def JFADebugBarriers : Pass<"jfa-debug-barriers", "::mlir::ModuleOp"> {
  let summary = "turns barrier waits into bounded spins that report and trap";
  let description = [{
    `jfac compile --debug-barriers`. Every `jfa.barrier_wait` becomes an
    scf.while of `jfa.barrier_try_wait` probes bounded by %globaltimer; when
    `timeout-ms` pass, the lowest active lane of each waiting warp prints one
    line (kernel, the wait's file:line:col, the barrier array's allocation
    and index, the phase parity, the CTA and the warp) and the threads trap
    (`jfa.debug_trap`). Run after `jfa-lower-async-tasks`, before
    `jfa-convert-to-llvm`. See docs/BARRIERS.md.
  }];
  let options = [
    Option<"timeoutMs", "timeout-ms", "unsigned", /*default=*/"4000",
           "how long a wait may spin before it reports and traps (ms)">
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

#endif // JFA_TRANSFORMS_PASSES_TD
