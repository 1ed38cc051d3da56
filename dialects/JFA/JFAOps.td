//===- JFAOps.td - JFA operations ------------------------------*- tablegen -*-===//
#ifndef JFA_OPS_TD
#define JFA_OPS_TD

include "JFA/JFADialect.td"
include "JFA/JFATypes.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

// Ops carrying this trait are issued by a single thread of the enclosing task
// (its first thread); `jfa-lower-async-tasks` predicates them.
def JFA_SingleThreadIssue : NativeOpTrait<"SingleThreadIssue"> {
  let cppNamespace = "::jfa";
}

def JFA_Dim : I32EnumAttr<"Dim", "grid dimension", [
    I32EnumAttrCase<"x", 0>, I32EnumAttrCase<"y", 1>, I32EnumAttrCase<"z", 2>]> {
  let cppNamespace = "::jfa";
}

def JFA_ReduceKind : I32EnumAttr<"ReduceKind", "row reduction", [
    I32EnumAttrCase<"max", 0>, I32EnumAttrCase<"sum", 1>]> {
  let cppNamespace = "::jfa";
}

def JFA_IotaDim : I32EnumAttr<"IotaDim", "index kind", [
    I32EnumAttrCase<"rows", 0>, I32EnumAttrCase<"cols", 1>]> {
  let cppNamespace = "::jfa";
}

def JFA_IntOrIndex : AnyTypeOf<[AnySignlessInteger, Index]>;

// A typed register-tile layout (any attribute implementing the interface).
def JFA_TileLayoutAttr : Attr<JFA_TileLayoutAttrInterface.predicate,
    "a register-tile layout (#jfa.blocked, #jfa.wgmma_acc, #jfa.tmem_row or "
    "#jfa.rows_of<...>)"> {
  let storageType = "::jfa::TileLayoutAttrInterface";
  let returnType = "::jfa::TileLayoutAttrInterface";
  let convertFromStorage = "$_self";
}

//===----------------------------------------------------------------------===//
// Resources: what the memory effects of the ops are on
//===----------------------------------------------------------------------===//

def JFA_SharedMemory : Resource<"::jfa::SharedMemoryResource">;
def JFA_TensorMemory : Resource<"::jfa::TensorMemoryResource">;
def JFA_BarrierMemory : Resource<"::jfa::BarrierResource">;
// The tensor cores' queue of asynchronous MMA groups: async_dot/tc_dot
// append to it and tc_commit/async_dot_wait observe it, so no two of them
// may be merged or reordered.
def JFA_AsyncGroups : Resource<"::jfa::AsyncGroupsResource">;

// Ops that exist only on targets with a hardware feature; jfa-check-target
// rejects them elsewhere, through the one target description (Targets.def).
class JFA_RequiresFeature<string feature>
    : ParamNativeOpTrait<"RequiresTargetFeature",
                         "::jfa::TargetFeature::" # feature> {
  let cppNamespace = "::jfa";
}
def JFA_RequiresWgmma : JFA_RequiresFeature<"Wgmma">;
def JFA_RequiresTensorMemory : JFA_RequiresFeature<"TensorMemory">;
def JFA_RequiresTma : JFA_RequiresFeature<"Tma">;
def JFA_RequiresClc : JFA_RequiresFeature<"ClusterLaunchControl">;

//===----------------------------------------------------------------------===//
// Kernel and tasks
//===----------------------------------------------------------------------===//

def JFA_KernelOp : JFA_Op<"kernel", [IsolatedFromAbove, FunctionOpInterface,
                                     SingleBlock, NoTerminator]> {
  let summary = "a GPU kernel entry point with its launch facts";
  let description = [{
    ```mlir
    jfa.kernel @scale(%in: !jfa.tma<64x64xf32>, %n: i32) warps(8) {
      ...
    }
    ```
    `warps(N)` is the number of warps per CTA (all tasks together);
    `cluster(x, y, z)` optionally sets the cluster shape. Parameters are TMA
    descriptors, global pointers and integer/float scalars.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       I32Attr:$num_warps,
                       OptionalAttr<DenseI32ArrayAttr>:$cluster_dims,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
    // FunctionOpInterface / CallableOpInterface.
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }
    int64_t getNumThreads() { return int64_t(getNumWarps()) * 32; }
    /// The CTAs of one cluster: the product of `cluster(x, y, z)`, 1 without.
    int64_t getClusterSize() {
      int64_t size = 1;
      if (auto dims = getClusterDims())
        for (int32_t d : *dims)
          size *= d;
      return size;
    }
    /// Shared-memory bytes used by every buffer and barrier array, laid out
    /// in program order with their alignment.
    int64_t computeSharedMemoryBytes();
  }];
}

def JFA_FuncOp : JFA_Op<"func", [IsolatedFromAbove, FunctionOpInterface,
                                 SingleBlockImplicitTerminator<"ReturnOp">,
                                 Symbol]> {
  let summary = "a device helper, inlined into the kernels that call it";
  let description = [{
    ```mlir
    jfa.func @unit(%u: i32, %k_tiles: i32) -> (i32, i32) {
      %seq_head = arith.divui %u, %k_tiles : i32
      %k_tile = arith.remui %u, %k_tiles : i32
      jfa.return %seq_head, %k_tile : i32, i32
    }
    ...
    %sh, %kt = jfa.call @unit(%u, %k_tiles) : (i32, i32) -> (i32, i32)
    ```
    Code written once and used by several tasks or kernels (a unit
    schedule, a mask, an online-softmax step): it takes and returns
    scalars, tiles, slots and barriers. `jfa-inline-helpers`, the first
    pass jfac runs, inlines every call and removes the helpers, so the
    kernel that reaches the other passes is as if written out; a helper
    that calls itself (directly or not) is an error. What must be in the
    kernel body (buffers, barrier arrays, parameters) cannot be in a
    helper: pass it in.

    A helper written for tiles of one layout can serve kernels whose tiles
    have another (the same mask or online-softmax step for #jfa.wgmma_acc
    on sm_90a and #jfa.tmem_row on sm_100a) when it names that layout its
    layout parameter:
    ```mlir
    jfa.func @row_max(%s: tensor<128x128xf32, #jfa.wgmma_acc>)
        -> tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
        attributes {layout_parameter = #jfa.wgmma_acc} { ... }
    ...
    %m = jfa.call @row_max(%t) : (tensor<128x128xf32, #jfa.tmem_row>)
        -> tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>
    ```
    A call binds the parameter to the layout its first tile argument or
    result holds where the signature holds the parameter; its types must
    then be the signature's with that layout in place of the parameter
    (shapes and element types as written). Inlining writes the bound layout
    for the parameter everywhere in the copy, so every op of the copy is
    checked for the call's layout, each error located in the helper and
    "called from" the call.

    In the same way a helper written for a ring of some number of stages
    can serve rings of another when it names that number its stage
    parameter:
    ```mlir
    jfa.func @mainloop(%ring: !jfa.smem<3 x 128x64xbf16, swizzle 128>,
                       %full: !jfa.mbarriers<3>, ...)
        attributes {stage_parameter = 3} { ... jfa.ring_position %n stages(3) ... }
    ...
    jfa.call @mainloop(%ring4, %full4, ...)
        : (!jfa.smem<4 x 128x64xbf16, swizzle 128>, !jfa.mbarriers<4>, ...) -> ...
    ```
    A call binds it to the slot count of its first `!jfa.smem` or
    `!jfa.mbarriers` argument (or result) where the signature has the
    parameter's count; inlining writes the bound count for every
    `!jfa.smem<N x ...>` and `!jfa.mbarriers<N>` with N the parameter and
    every `jfa.ring_position ... stages(N)` in the copy.

    And a helper written for shared-memory operands of one element type can
    serve another when it names that type its element parameter:
    ```mlir
    jfa.func @load(%a: !jfa.tma<128x64xbf16, swizzle 128>,
                   %ring: !jfa.smem<3 x 128x64xbf16, swizzle 128>, ...)
        attributes {element_parameter = bf16} { ... }
    ...
    jfa.call @load(%a8, %ring8, ...)
        : (!jfa.tma<128x128xf8E4M3FN, swizzle 128>,
           !jfa.smem<3 x 128x128xf8E4M3FN, swizzle 128>, ...) -> ...
    ```
    A call binds it to the element type of its first `!jfa.smem`,
    `!jfa.slot` or `!jfa.tma` argument (or result) where the signature has
    one of the parameter's; inlining writes every such type of the
    parameter's element in the copy with the bound element and its
    contiguous dimension (columns) scaled so that a row keeps its bytes (64
    bf16 become 128 f8E4M3FN): swizzles, byte counts and row blocks stay
    valid. Register tiles are not rewritten.

    And a helper written for tiles of one row count can serve another when
    it names that count its rows parameter:
    ```mlir
    jfa.func @step(%s: tensor<128x128xf32, #jfa.wgmma_acc>,
                   %m: tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, ...)
        attributes {rows_parameter = 128} { ... }
    ...
    jfa.call @step(%s192, %m192, ...)
        : (tensor<192x128xf32, #jfa.wgmma_acc>,
           tensor<192xf32, #jfa.rows_of<#jfa.wgmma_acc>>, ...) -> ...
    ```
    A call binds it to the rows of its first argument (or result) where the
    signature has a register tile or row vector, a `!jfa.slot`, a
    `!jfa.smem` slot or a `!jfa.tma` box of the parameter's rows (the same
    kind of type); inlining writes the bound rows for every such type of
    the parameter's rows in the copy (dimension 0; a transposed slot view's
    dimension 1). Other row counts are left alone, so tiles whose rows
    must not follow (a key tile as long as the query tile) need another
    count.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs,
                       OptionalAttr<JFA_TileLayoutAttr>:$layout_parameter,
                       OptionalAttr<I64Attr>:$stage_parameter,
                       OptionalAttr<TypeAttr>:$element_parameter,
                       OptionalAttr<I64Attr>:$rows_parameter);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }
    /// The layout a call with these argument and result types binds the
    /// layout parameter to: the layout its first tile holds where the
    /// signature holds the parameter; the parameter itself when there is
    /// none (or no parameter).
    ::mlir::Attribute boundLayout(::mlir::TypeRange args,
                                  ::mlir::TypeRange results);
    /// The stage count a call with these argument and result types binds
    /// the stage parameter to: the slot count of its first !jfa.smem or
    /// !jfa.mbarriers where the signature has the parameter's; the
    /// parameter itself when there is none; 0 without a parameter.
    int64_t boundStages(::mlir::TypeRange args, ::mlir::TypeRange results);
    /// The stage parameter's errors: outside [1, 64], or no argument or
    /// result ring of that many slots (success without one).
    ::mlir::LogicalResult verifyStageParameter();
    /// The element type a call with these argument and result types binds
    /// the element parameter to: the element of its first !jfa.smem,
    /// !jfa.slot or !jfa.tma where the signature has one of the parameter's
    /// element (the same kind of type); the parameter itself when there is
    /// none; null without a parameter.
    ::mlir::Type boundElement(::mlir::TypeRange args,
                              ::mlir::TypeRange results);
    /// The element parameter's errors: not an integer or float type of
    /// whole bytes, or no argument or result holding it (success without
    /// one).
    ::mlir::LogicalResult verifyElementParameter();
    /// `type` with every !jfa.smem, !jfa.slot and !jfa.tma of element
    /// `param` in it given element `element`, its contiguous dimension
    /// scaled so that a row keeps its bytes; null if a dimension does not
    /// scale to a whole number (`unscaled`, if given, is then that type).
    static ::mlir::Type bindElement(::mlir::Type type, ::mlir::Type param,
                                    ::mlir::Type element,
                                    ::mlir::Type *unscaled = nullptr);
    /// The row count a call with these argument and result types binds the
    /// rows parameter to: the rows of its first register tile or row
    /// vector, !jfa.slot, !jfa.smem or !jfa.tma where the signature has one
    /// of the parameter's rows (the same kind of type); the parameter
    /// itself when there is none; 0 without a parameter.
    int64_t boundRows(::mlir::TypeRange args, ::mlir::TypeRange results);
    /// The rows parameter's errors: not positive, or no argument or result
    /// of that many rows (success without one).
    ::mlir::LogicalResult verifyRowsParameter();
    /// Writes `rows` for the rows parameter in `op` and everything nested in
    /// it: every register tile, row vector, slot, ring slot and TMA box of
    /// the parameter's rows.
    void bindRowsIn(::mlir::Operation *op, int64_t rows);
    /// The helper's signature with `layout` in place of its layout
    /// parameter, `stages` in place of its stage parameter (0: kept),
    /// `element` in place of its element parameter (null: kept) and `rows`
    /// in place of its rows parameter (0: kept); null if an element-bound
    /// type does not scale (bindElement).
    ::mlir::FunctionType typeFor(::mlir::Attribute layout,
                                 int64_t stages = 0,
                                 ::mlir::Type element = {}, int64_t rows = 0);
    /// Writes `layout` for the layout parameter in `op` and every op,
    /// block argument and attribute nested in it (a copy of the body).
    void bindLayoutIn(::mlir::Operation *op, ::mlir::Attribute layout);
    /// Writes `stages` for the stage count `param` in `op` and everything
    /// nested in it: ring types of `param` slots and jfa.ring_position's
    /// stages(param). For a helper's own stage parameter, and for the copy
    /// of a helper without one called from a bound copy.
    static void bindStagesIn(::mlir::Operation *op, int64_t param,
                             int64_t stages);
    /// Writes `element` for the element parameter in `op` and everything
    /// nested in it (bindElement on every type); an error at the first op
    /// whose types do not scale, naming the parameter and the binding, and
    /// failure then.
    ::mlir::LogicalResult bindElementIn(::mlir::Operation *op,
                                        ::mlir::Type element);
  }];
}

def JFA_ReturnOp : JFA_Op<"return", [Pure, HasParent<"FuncOp">, Terminator]> {
  let summary = "returns from a jfa.func";
  let description = [{ `jfa.return %a, %b : i32, i32` }];
  let arguments = (ins Variadic<AnyType>:$operands);
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, ::mlir::ValueRange()); }]>];
  let assemblyFormat = "attr-dict ($operands^ `:` type($operands))?";
  let hasVerifier = 1;
}

def JFA_CallOp : JFA_Op<"call",
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "calls a device helper (jfa.func); inlined at compile time";
  let description = [{
    `%a, %b = jfa.call @helper(%x, %y) : (i32, i32) -> (i32, i32)`
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<AnyType>:$args);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    $callee `(` $args `)` attr-dict `:` functional-type($args, $results)
  }];
  let extraClassDeclaration = [{
    /// Checks this call's types against `callee`'s signature, its layout
    /// parameter bound as the call binds it; the error, at the call, ends
    /// with `context` in parentheses when it is given.
    ::mlir::LogicalResult verifyAgainst(FuncOp callee,
                                        ::llvm::StringRef context = {});
  }];
}

def JFA_ImportOp : JFA_Op<"import", [HasParent<"::mlir::ModuleOp">]> {
  let summary = "copies the device helpers of another file into this module";
  let description = [{
    ```mlir
    // kernels/jagged_attention/attention_bwd_sm100.mlir
    jfa.import "../lib/work_queue.mlir"   // @fetch_unit, @take_unit
    ```
    At module level, beside the kernels and helpers. `jfa-resolve-imports`,
    the first pass jfac, jfa-interp and `jfa-lower-to-llvm` run, parses the
    named file and copies its `jfa.func` helpers into this module, then
    removes the import. A relative path is looked for in the importing
    file's folder first, then in each `-I <dir>` given to the tool, in
    order; an absolute path is used as it is. An imported file holds only
    helpers and imports of its own (resolved relative to it); each file is
    imported once however often it is named. Errors, at the import: a file
    not found (with where it was looked for), one that cannot be read, one
    that does not parse (with the parser's message at its line), an import
    cycle (with the chain), a helper name defined twice (with both places),
    an imported file holding a kernel or any op but `jfa.func` and
    `jfa.import`.
  }];
  let arguments = (ins StrAttr:$path);
  let assemblyFormat = "$path attr-dict";
  let hasVerifier = 1;
}

def JFA_AsyncTasksOp : JFA_Op<"async_tasks", [HasParent<"KernelOp">,
                                              SingleBlock, NoTerminator]> {
  let summary = "splits the kernel into warp-specialized tasks";
  let description = [{
    ```mlir
    jfa.async_tasks { jfa.task warps(4) registers(40) { ... } jfa.task default registers(232) { ... } }
    ```
    Contains only `jfa.task` ops. Tasks take consecutive warps in the order
    they are written; the `default` task takes the warps the others leave.
  }];
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "attr-dict-with-keyword $body";
  let hasRegionVerifier = 1;
}

def JFA_TaskOp : JFA_Op<"task", [HasParent<"AsyncTasksOp">, SingleBlock,
                                 NoTerminator]> {
  let summary = "a group of warps running one region, with a register budget";
  let description = [{
    ```mlir
    jfa.task warps(4) registers(40) { ... }      // a producer warpgroup
    jfa.task default registers(232) { ... }      // the remaining warps
    ```
    `registers(R)` lowers to `setmaxnreg` and needs the task to be made of
    whole, aligned warpgroups; R is a multiple of 8 in [24, 256].
  }];
  let arguments = (ins UnitAttr:$is_default,
                       OptionalAttr<I32Attr>:$num_warps,
                       OptionalAttr<I32Attr>:$replicas,
                       OptionalAttr<I32Attr>:$registers);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    (`default` $is_default^)? (`warps` `(` $num_warps^ `)`)?
    (`replicas` `(` $replicas^ `)`)?
    (`registers` `(` $registers^ `)`)? attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// How many copies of this task run side by side (1 unless replicated).
    int64_t getNumReplicas() { return getReplicas().value_or(1); }
  }];
}

def JFA_ReplicaIdOp : JFA_Op<"replica_id", [Pure]> {
  let summary = "which copy of a replicated task this is, a compile-time constant";
  let description = [{
    ```mlir
    jfa.task warps(4) replicas(2) registers(240) {
      %g = jfa.replica_id : i32     // 0 in warps 0-3, 1 in warps 4-7
      ...
    }
    ```
    `jfa-replicate-tasks` clones a `replicas(N)` task N times (each copy
    on its own warps, with its own named barrier and register budget) and
    replaces `jfa.replica_id` by the copy's index. In a task that is not
    replicated it is 0.
  }];
  let results = (outs AnySignlessIntegerOrIndex:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def JFA_ParamOp : JFA_Op<"param", [HasParent<"KernelOp">, Pure]> {
  let summary = "a compile-time parameter of the kernel";
  let description = [{
    ```mlir
    %head_dim = jfa.param "head_dim" = 128 : i32   // with a default
    %causal = jfa.param "causal" : i1              // must be given
    ```
    A value fixed when the kernel is compiled: `jfac compile k.mlir
    -P head_dim=64 -P causal=1` (or `jfa-specialize{params=...}`) replaces
    each `jfa.param` by a constant before any other pass runs, so branches
    on it fold away. A parameter without a default must be given. Integer
    (i1 takes 0/1/true/false), index and float types.
  }];
  let arguments = (ins StrAttr:$param_name,
                       OptionalAttr<TypedAttrInterface>:$default_value);
  let results = (outs AnyTypeOf<[AnySignlessIntegerOrIndex, AnyFloat]>:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

// No memory-effect trait on purpose: an op with no results and no effects
// is trivially dead, and a pass that erases dead ops could drop it before
// jfac reads it.
def JFA_ScheduleForRegistersOp
    : JFA_Op<"schedule_for_registers", [HasParent<"KernelOp">]> {
  let summary = "asks code generation to schedule for register pressure";
  let description = [{
    ```mlir
    jfa.schedule_for_registers                 // always
    jfa.schedule_for_registers if %gelu_tanh   // in the variants where it holds
    ```
    By default LLVM's NVPTX backend keeps instructions in source order,
    which suits kernels whose live values fit their task's `registers(...)`
    budget. A kernel where they do not (ptxas spills) can ask for LLVM's
    register-pressure instruction scheduler instead. That can spill less,
    but it reorders all of the kernel's code, so time both ways. The
    attention backward asks for it only in its gelu_tanh variants, where it
    was measured faster (bench/NOTES.md run 66); in its softmax variants it
    made ptxas spill.

    The condition, if given, must fold to a constant once the kernel's
    compile-time parameters (`jfa.param`) are fixed; jfac rejects one that
    depends on a run-time value. The op stands in the kernel's body, at most
    once per kernel. `jfac --schedule=source|registers` overrides it for a
    whole compile. The op has no other effect: jfa-interp checks and drops
    it as jfac does, and `jfa-lower-to-llvm` drops it.
  }];
  let arguments = (ins Optional<I1>:$condition);
  let assemblyFormat = "(`if` $condition^)? attr-dict";
  let hasVerifier = 1;
}

def JFA_TaskBarrierOp : JFA_Op<"task_barrier"> {
  let summary = "synchronizes the threads of the enclosing task";
  let description = [{
    ```mlir
    jfa.task_barrier
    ```
    A named hardware barrier (`bar.sync id, threads`) over exactly the threads
    of the enclosing task (the whole CTA outside tasks).
  }];
  let assemblyFormat = "attr-dict";
}

def JFA_NamedBarrierSyncOp : JFA_Op<"named_barrier_sync"> {
  let summary = "waits at hardware barrier `id` until `threads` threads arrive";
  let description = [{
    ```mlir
    jfa.named_barrier_sync id(3) threads(256)
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<15>]>:$id,
                       I32Attr:$threads);
  let assemblyFormat = "`id` `(` $id `)` `threads` `(` $threads `)` attr-dict";
  let hasVerifier = 1;
}

def JFA_NamedBarrierArriveOp : JFA_Op<"named_barrier_arrive"> {
  let summary = "arrives at hardware barrier `id` without waiting";
  let description = [{
    ```mlir
    jfa.named_barrier_arrive id(3) threads(256)
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<15>]>:$id,
                       I32Attr:$threads);
  let assemblyFormat = "`id` `(` $id `)` `threads` `(` $threads `)` attr-dict";
  let hasVerifier = 1;
}

def JFA_ClusterArriveOp : JFA_Op<"cluster_arrive"> {
  let summary = "this thread arrives on the cluster's barrier";
  let description = [{
    ```mlir
    jfa.cluster_arrive
    jfa.cluster_wait
    ```
    `barrier.cluster.arrive.release`: every thread of every CTA of the
    cluster arrives once before any `jfa.cluster_wait` returns; the
    arrival releases the thread's earlier memory accesses to the cluster.
    Split from the wait so that work can go between them. The compiler
    already synchronizes the cluster after the barriers are initialized and
    before the kernel exits (so no CTA leaves while a peer's threads still
    arrive on its barriers; copies in flight are not threads: every
    multicast into a CTA must be waited on there); these ops are for the
    kernel's own phases.
  }];
  let assemblyFormat = "attr-dict";
}

def JFA_ClusterWaitOp : JFA_Op<"cluster_wait", [MemoryEffects<[
    MemWrite<JFA_SharedMemory>, MemWrite<JFA_BarrierMemory>, MemWrite]>]> {
  let summary = "waits until every thread of the cluster has arrived";
  let description = [{
    ```mlir
    jfa.cluster_wait
    ```
    `barrier.cluster.wait.acquire`: returns once every thread of every CTA
    of the cluster has executed `jfa.cluster_arrive`, and acquires what
    they released.
  }];
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Ids
//===----------------------------------------------------------------------===//

def JFA_ProgramIdOp : JFA_Op<"program_id", [Pure]> {
  let summary = "the CTA index along a grid dimension";
  let description = [{
    ```mlir
    %pid = jfa.program_id x
    ```
  }];
  let arguments = (ins JFA_Dim:$dim);
  let results = (outs I32:$result);
  let assemblyFormat = "$dim attr-dict";
}

def JFA_NumProgramsOp : JFA_Op<"num_programs", [Pure]> {
  let summary = "the number of CTAs along a grid dimension";
  let description = [{
    ```mlir
    %n = jfa.num_programs x
    ```
  }];
  let arguments = (ins JFA_Dim:$dim);
  let results = (outs I32:$result);
  let assemblyFormat = "$dim attr-dict";
}

def JFA_ClusterRankOp : JFA_Op<"cluster_rank", [Pure]> {
  let summary = "this CTA's rank in its cluster (0 to the cluster's size - 1)";
  let description = [{
    ```mlir
    %rank = jfa.cluster_rank
    ```
    `%cluster_ctarank`: 0 in a kernel without `cluster(...)`. Ranks run x
    fastest, as the CTAs' program ids within the cluster.
  }];
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict";
}

def JFA_ClusterIdOp : JFA_Op<"cluster_id", [Pure]> {
  let summary = "the cluster's index along a grid dimension";
  let description = [{
    ```mlir
    %cid = jfa.cluster_id x
    ```
    `%clusterid`: the program id divided by the cluster's extent along the
    dimension.
  }];
  let arguments = (ins JFA_Dim:$dim);
  let results = (outs I32:$result);
  let assemblyFormat = "$dim attr-dict";
}

def JFA_ThreadIdOp : JFA_Op<"thread_id", [Pure]> {
  let summary = "the thread index within the CTA";
  let description = [{
    ```mlir
    %tid = jfa.thread_id
    ```
  }];
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict";
}

def JFA_TaskThreadIdOp : JFA_Op<"task_thread_id", [Pure]> {
  let summary = "the thread index within the enclosing task";
  let description = [{
    ```mlir
    %t = jfa.task_thread_id
    ```
  }];
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

def JFA_LocalAllocOp : JFA_Op<"local_alloc", [HasParent<"KernelOp">]> {
  let summary = "allocates an N-slot buffer in shared memory";
  let description = [{
    `%buf = jfa.local_alloc : !jfa.smem<3 x 64x64xbf16>`. Buffers live for the
    whole kernel; `jfa-allocate-shared-memory` assigns their `offset`s.
  }];
  let arguments = (ins OptionalAttr<I64Attr>:$offset);
  let results = (outs Res<JFA_SharedBufferType, "",
                          [MemAlloc<JFA_SharedMemory>]>:$result);
  let assemblyFormat = "attr-dict `:` qualified(type($result))";
}

def JFA_SlotOp : JFA_Op<"slot", [Pure,
    TypesMatchWith<"result is a slot of the buffer's tile", "buffer", "result",
                   "SlotType::get($_self.getContext(), ::llvm::cast<SharedBufferType>($_self).getShape(), ::llvm::cast<SharedBufferType>($_self).getElementType(), ::llvm::cast<SharedBufferType>($_self).getSwizzle(), false)">]> {
  let summary = "a view of slot `index` of a shared-memory buffer";
  let description = [{
    ```mlir
    %s = jfa.slot %ring[%i] : !jfa.smem<3 x 64x64xbf16, swizzle 128>, i32
    ```
  }];
  let arguments = (ins JFA_SharedBufferType:$buffer, JFA_IntOrIndex:$index);
  let results = (outs JFA_SlotType:$result);
  let assemblyFormat = [{
    $buffer `[` $index `]` attr-dict `:` qualified(type($buffer)) `,` type($index)
  }];
  let hasVerifier = 1;
}

def JFA_ColumnBlockOp : JFA_Op<"column_block", [Pure]> {
  let summary = "one column block of a blocked slot, as a slot (no copy)";
  let description = [{
    ```mlir
    %lo = jfa.column_block %q[%c0] : !jfa.slot<64x128xbf16, swizzle 128> -> !jfa.slot<64x64xbf16, swizzle 128>
    ```
    A blocked slot (rows wider than its swizzle) is stored as column blocks
    of `swizzle` bytes, each a whole rows x swizzle tile; block i is columns
    [i * W, i * W + W) of the slot (W = swizzle / element bytes). The view
    lets one kernel use a wide slot whole where its head dim fills it (one
    wgmma with N or K over both blocks) and block by block where it does
    not, or where a product needs one block (a 64-column chunk of K in the
    attention backward's dQ).
  }];
  let arguments = (ins JFA_SlotType:$slot, I32:$index);
  let results = (outs JFA_SlotType:$result);
  let assemblyFormat = [{
    $slot `[` $index `]` attr-dict `:` qualified(type($slot)) `->`
    qualified(type($result))
  }];
  let hasVerifier = 1;
}

def JFA_RowBlockOp : JFA_Op<"row_block", [Pure]> {
  let summary = "rows [i * R, i * R + R) of a slot, as a slot (no copy)";
  let description = [{
    ```mlir
    %half = jfa.row_block %b[%rank] : !jfa.slot<256x64xbf16, swizzle 128> -> !jfa.slot<128x64xbf16, swizzle 128>
    ```
    R is the result's row count; it divides the slot's rows. Row blocks of
    a slot whose rows fit its swizzle are contiguous, so the view is the
    slot's address plus i * R rows: a TMA copy can fill one block of a tile
    that the tensor cores then read whole, as a cluster's CTAs each load
    one block of a shared operand and multicast it. A swizzled block starts
    on a whole swizzle pattern (R a multiple of 8).
  }];
  let arguments = (ins JFA_SlotType:$slot, I32:$index);
  let results = (outs JFA_SlotType:$result);
  let assemblyFormat = [{
    $slot `[` $index `]` attr-dict `:` qualified(type($slot)) `->`
    qualified(type($result))
  }];
  let hasVerifier = 1;
}

def JFA_TransposeOp : JFA_Op<"transpose", [Pure,
    TypesMatchWith<"result is the transposed view of the slot", "slot", "result",
                   "TransposeOp::transposedType(::llvm::cast<SlotType>($_self))">]> {
  let summary = "the transpose of a 2-d slot, as a view (no copy)";
  let description = [{
    ```mlir
    %vt = jfa.transpose %v : !jfa.slot<64x64xbf16, swizzle 128>
    ```
    gives `!jfa.slot<64x64xbf16, swizzle 128, transposed>`: the same bytes
    read as the transposed tile. Used as the B operand of `jfa.async_dot` /
    `jfa.tc_dot`, it makes them compute A * B for a B stored N-major (for
    example V in P * V), through the MMA's transpose bit; as the A operand
    of `jfa.async_dot` (64 rows, 128-byte swizzle) it is an M-major A (dS in
    the attention backward's dK = dS^T Q), through wgmma's transpose-A bit;
    as the A of `jfa.tc_dot`, the transpose of a blocked K x 128 slot
    (128-byte swizzle) is an M-major A of 128 rows.
  }];
  let arguments = (ins JFA_SlotType:$slot);
  let results = (outs JFA_SlotType:$result);
  let assemblyFormat = "$slot attr-dict `:` qualified(type($slot))";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    static SlotType transposedType(SlotType slot);
  }];
}

def JFA_LocalLoadOp : JFA_Op<"local_load"> {
  let summary = "loads a slot into a register tile";
  let description = [{
    ```mlir
    %t = jfa.local_load %s : !jfa.slot<64x64xf32> -> tensor<64x64xf32, #jfa.wgmma_acc>
    %t = jfa.local_load %s on cta %peer : !jfa.slot<64x32xf32, swizzle 128> -> tensor<64x32xf32, #jfa.wgmma_acc>
    ```
    With `on cta %rank` (an i32 rank in the cluster), every thread reads its
    fragment from the same slot in the shared memory of CTA `%rank`
    (distributed shared memory: `mapa`, then `ld.shared::cluster`).
  }];
  let arguments = (ins Arg<JFA_SlotType, "", [MemRead<JFA_SharedMemory>]>:$slot,
                       Optional<I32>:$cta);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $slot (`on` `cta` $cta^)? attr-dict `:` qualified(type($slot)) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

def JFA_LocalStoreOp : JFA_Op<"local_store"> {
  let summary = "stores a register tile into a slot";
  let description = [{
    ```mlir
    jfa.local_store %t, %s : tensor<64x64xf32> -> !jfa.slot<64x64xf32>
    jfa.local_store %t, %s on cta %peer : tensor<64x32xf32, #jfa.wgmma_acc> -> !jfa.slot<64x32xf32, swizzle 128>
    ```
    With `on cta %rank` (an i32 rank in the cluster), every thread writes its
    fragment into the same slot in the shared memory of CTA `%rank`
    (distributed shared memory: `mapa`, then `st.shared::cluster`): a tile
    handed to a peer without a trip through global memory. The peer reads
    it after a wait on a barrier the writers arrive on after the store
    (`jfa.barrier_arrive ... on cta`, a release at cluster scope), waited
    on with `acquire(cluster)`.
  }];
  let arguments = (ins AnyRankedTensor:$value,
                       Arg<JFA_SlotType, "", [MemWrite<JFA_SharedMemory>]>:$slot,
                       Optional<I32>:$cta);
  let assemblyFormat = [{
    $value `,` $slot (`on` `cta` $cta^)? attr-dict `:` type($value) `->`
    qualified(type($slot))
  }];
  let hasVerifier = 1;
}

// The per-thread forms of local_load/local_store that `jfa-distribute-tiles`
// produces: thread `thread` of `threads` moves its fragment of the tile.
def JFA_ConvertLayoutOp : JFA_Op<"convert_layout"> {
  let summary = "moves a register tile to another layout through a slot";
  let description = [{
    ```mlir
    %b = jfa.convert_layout %a, %scratch
        : tensor<64x64xf32, #jfa.wgmma_acc> -> tensor<64x64xf32>, !jfa.slot<64x64xf32>
    ```
    Stores the tile in its layout to the scratch slot, synchronizes the task,
    loads it back in the result's layout and synchronizes again (so the
    slot may be reused at once). The scratch slot is explicit, like every
    other buffer. (Accumulator -> wgmma A operand needs no conversion: the
    `#jfa.wgmma_acc` tile is already that operand.)
  }];
  let arguments = (ins AnyRankedTensor:$value,
                       Arg<JFA_SlotType, "", [MemRead<JFA_SharedMemory>,
                                              MemWrite<JFA_SharedMemory>]>:$scratch);
  let results = (outs AnyRankedTensor:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def JFA_LoadFragmentOp : JFA_Op<"load_fragment"> {
  let summary = "loads this thread's fragment of a slot (distributed form)";
  let description = [{
    ```mlir
    %v = jfa.load_fragment %s, %t threads(128) layout(#jfa.wgmma_acc) : !jfa.slot<64x64xf32> -> vector<32xf32>
    %v = jfa.load_fragment %s, %t threads(128) layout(#jfa.wgmma_acc) on cta %peer : !jfa.slot<64x64xf32> -> vector<32xf32>
    ```
    `on cta %rank`: from the slot in CTA `%rank` (`jfa.local_load`'s).
  }];
  let arguments = (ins Arg<JFA_SlotType, "", [MemRead<JFA_SharedMemory>]>:$slot,
                       I32:$thread, I32Attr:$threads,
                       OptionalAttr<JFA_TileLayoutAttr>:$layout,
                       Optional<I32>:$cta);
  let results = (outs AnyVectorOfNonZeroRank:$result);
  let assemblyFormat = [{
    $slot `,` $thread `threads` `(` $threads `)` (`layout` `(` $layout^ `)`)?
    (`on` `cta` $cta^)? attr-dict `:` qualified(type($slot)) `->` type($result)
  }];
  let hasVerifier = 1;
}

def JFA_StoreFragmentOp : JFA_Op<"store_fragment"> {
  let summary = "stores this thread's fragment of a slot (distributed form)";
  let description = [{
    ```mlir
    jfa.store_fragment %v, %s, %t threads(128) : vector<32xf32> -> !jfa.slot<64x64xf32>
    jfa.store_fragment %v, %s, %t threads(128) on cta %peer : vector<32xf32> -> !jfa.slot<64x64xf32>
    ```
    `on cta %rank`: into the slot in CTA `%rank` (`jfa.local_store`'s).
  }];
  let arguments = (ins AnyVectorOfNonZeroRank:$value,
                       Arg<JFA_SlotType, "", [MemWrite<JFA_SharedMemory>]>:$slot,
                       I32:$thread, I32Attr:$threads,
                       OptionalAttr<JFA_TileLayoutAttr>:$layout,
                       Optional<I32>:$cta);
  let assemblyFormat = [{
    $value `,` $slot `,` $thread `threads` `(` $threads `)` (`layout` `(` $layout^ `)`)?
    (`on` `cta` $cta^)? attr-dict `:` type($value) `->` qualified(type($slot))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// mbarriers
//===----------------------------------------------------------------------===//

def JFA_AllocBarriersOp : JFA_Op<"alloc_barriers", [HasParent<"KernelOp">]> {
  let summary = "allocates and initializes an array of mbarriers";
  let description = [{
    `%full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<3>`. Each
    barrier completes a phase after `arrive_count` arrivals (and, when armed
    with `jfa.barrier_expect`, the expected TMA bytes). Initialized by one
    thread at kernel start and made visible to every task.
  }];
  let arguments = (ins I32Attr:$arrive_count, OptionalAttr<I64Attr>:$offset);
  let results = (outs Res<JFA_BarrierArrayType, "",
                          [MemAlloc<JFA_BarrierMemory>,
                           MemWrite<JFA_BarrierMemory>]>:$result);
  let assemblyFormat = [{
    `arrive_count` `(` $arrive_count `)` attr-dict `:` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def JFA_BarrierOp : JFA_Op<"barrier", [Pure]> {
  let summary = "element `index` of an mbarrier array";
  let description = [{
    ```mlir
    %b = jfa.barrier %full[%i] : !jfa.mbarriers<3>, i32
    ```
  }];
  let arguments = (ins JFA_BarrierArrayType:$barriers, JFA_IntOrIndex:$index);
  let results = (outs JFA_BarrierType:$result);
  let assemblyFormat = [{
    $barriers `[` $index `]` attr-dict `:` qualified(type($barriers)) `,` type($index)
  }];
  let hasVerifier = 1;
  let builders = [OpBuilder<(ins "::mlir::Value":$barriers, "::mlir::Value":$index), [{
    build($_builder, $_state, BarrierType::get($_builder.getContext()), barriers, index);
  }]>];
}

def JFA_BarrierExpectOp : JFA_Op<"barrier_expect", [JFA_SingleThreadIssue]> {
  let summary = "arrives once and arms the barrier for `bytes` TMA bytes";
  let description = [{
    ```mlir
    jfa.barrier_expect %b, bytes(16384)
    ```
    Issued by one thread of the task (`mbarrier.arrive.expect_tx`). The TMA
    loads completing on the same barrier (in the same block or the regions
    nested in it) must bring `bytes` in all; `jfa-check-barriers` checks it.
  }];
  let arguments = (ins Arg<JFA_BarrierType, "", [MemRead<JFA_BarrierMemory>,
                                                  MemWrite<JFA_BarrierMemory>]>:$barrier,
                       I64Attr:$bytes);
  let assemblyFormat = "$barrier `,` `bytes` `(` $bytes `)` attr-dict";
  let hasVerifier = 1;
}

def JFA_BarrierArriveOp : JFA_Op<"barrier_arrive"> {
  let summary = "every thread of the task arrives once on the barrier";
  let description = [{
    ```mlir
    jfa.barrier_arrive %b
    jfa.barrier_arrive %b on cta %peer    // %peer: i32 rank in the cluster
    jfa.barrier_arrive %b on cta %peer release(cta)
    ```
    With `on cta %rank`, the arrival goes to the barrier at the same place
    in the shared memory of CTA `%rank` of the cluster (`mapa`, then
    `mbarrier.arrive.release.cluster.shared::cluster`): a consumer hands a
    slot back to every producer whose multicast copies write into it. The
    arrival releases the thread's earlier writes to the whole cluster. It
    goes as one message per warp: after `bar.warp.sync`, the warp's lowest
    active lane arrives with the count of its active lanes (the same
    arrivals as one per thread; a remote arrival crosses the cluster's
    network).

    `release(cta)` releases at CTA scope only
    (`mbarrier.arrive.release.cta.shared::cluster`, as CUTLASS's consumers
    release a multicast stage): no cluster-scope fence before the message,
    which on an H100 made the multicast GEMM's consumers stall on memory
    barriers (bench/NOTES.md, run 78). It suits handing back a slot the
    threads only read, through the tensor cores whose reads a wgmma wait
    has completed; writes another CTA must see (global memory read by the
    peer after its wait) need the default.
    `jfa-check-barriers` counts a remote arrival as one on the barrier of
    the CTA that issues it, which holds when every CTA of the cluster
    arrives on a different peer (`%peer` a permutation of the ranks, such as
    `rank xor 1`, or a loop over all ranks).
  }];
  let arguments = (ins Arg<JFA_BarrierType, "", [MemRead<JFA_BarrierMemory>,
                                                  MemWrite<JFA_BarrierMemory>]>:$barrier,
                       Optional<I32>:$cta, UnitAttr:$release_cta);
  let assemblyFormat = [{
    $barrier (`on` `cta` $cta^)? (`release` `(` `cta` `)` $release_cta^)?
    attr-dict
  }];
  let hasVerifier = 1;
}

// A wait acquires what other threads and the async proxy (TMA, the tensor
// cores) wrote before the phase completed: memory may change across it.
def JFA_BarrierWaitOp : JFA_Op<"barrier_wait", [MemoryEffects<[
    MemWrite<JFA_SharedMemory>, MemWrite<JFA_TensorMemory>, MemWrite]>]> {
  let summary = "waits until the barrier completes the phase of parity `phase`";
  let description = [{
    ```mlir
    jfa.barrier_wait %b, %phase    // %phase: i32 parity (0 or 1), not index
    ```
    Blocks the thread until the barrier has completed the phase of parity
    `%phase` (an i32: 0 or 1; an `index` phase is a type error, so keep ring
    counters in i32). A freshly initialized barrier counts as having
    completed the phase of parity 1 before its first: a producer waiting
    for an empty slot starts at parity 1, a consumer at 0.

    ```mlir
    jfa.barrier_wait %b, %phase acquire(cluster)
    ```
    `acquire(cluster)` acquires at cluster scope
    (`mbarrier.try_wait.parity.acquire.cluster`): what a peer CTA released
    at cluster scope before its arrival completed the phase (its `on cta`
    stores into this CTA's shared memory, then `jfa.barrier_arrive ... on
    cta`) is visible after the wait. A plain wait acquires at CTA scope.
  }];
  let arguments = (ins Arg<JFA_BarrierType, "", [MemRead<JFA_BarrierMemory>]>:$barrier,
                       I32:$phase, UnitAttr:$acquire_cluster);
  let assemblyFormat = [{
    $barrier `,` $phase (`acquire` `(` `cluster` `)` $acquire_cluster^)?
    attr-dict
  }];
}

//===----------------------------------------------------------------------===//
// TMA and fences
//===----------------------------------------------------------------------===//

def JFA_TMALoadOp : JFA_Op<"tma_load", [JFA_SingleThreadIssue, JFA_RequiresTma,
                                         AttrSizedOperandSegments]> {
  let summary = "copies a box of a global tensor into a slot (async)";
  let description = [{
    ```mlir
    jfa.tma_load %desc[%row, %col], %slot, %bar : !jfa.tma<64x64xf32>, !jfa.slot<64x64xf32>
    jfa.tma_load %desc[%row, %col], %half, %bar multicast(%mask) : ...   // %mask: i16
    ```
    Coordinates are element offsets, outermost first (row, then column).
    Completion is signalled on `%bar` as transaction bytes; out-of-bounds
    elements are filled with zeros. A blocked slot (rows wider than the
    swizzle, see `!jfa.smem`) is filled by one copy per column block: the
    box is one block, at columns `%col`, `%col + block width`, ...

    With `multicast(%mask)`, one read of global memory lands in every CTA
    of the cluster whose rank bit is set in `%mask`: at the slot's place in
    each one's shared memory, and each one's barrier at `%bar`'s place
    receives the box's bytes. Every CTA of the mask must have handed the
    slot back first (the consumers arrive on the producers' barriers with
    `jfa.barrier_arrive ... on cta`). The usual split: each CTA of the
    cluster loads its `jfa.row_block` of a tile that all of them use and
    multicasts it to all, so each expects the whole tile's bytes;
    `jfa-check-barriers` counts a constant mask's load that many times.

    With `on cta %rank` (sm_100a, a kernel of `jfa.tc_dot ... pair`
    products), the box lands in this CTA's slot but its bytes complete on
    the barrier at `%bar`'s place in CTA `%rank`, which must be this CTA or
    its pair peer (rank xor 1): both CTAs of a pair load their halves of a
    pair product's operands and signal the issuing CTA's barrier, whose
    expect counts both halves (`cp.async.bulk.tensor ... .cta_group::2`).
  }];
  let arguments = (ins Arg<JFA_TensorDescType, "", [MemRead]>:$desc,
                       Variadic<I32>:$coords,
                       Arg<JFA_SlotType, "", [MemWrite<JFA_SharedMemory>]>:$slot,
                       Arg<JFA_BarrierType, "", [MemWrite<JFA_BarrierMemory>]>:$barrier,
                       Optional<I16>:$multicast,
                       Optional<I32>:$cta);
  let assemblyFormat = [{
    $desc `[` $coords `]` `,` $slot `,` $barrier
    (`multicast` `(` $multicast^ `)`)? (`on` `cta` $cta^)? attr-dict `:`
    qualified(type($desc)) `,` qualified(type($slot))
  }];
  let hasVerifier = 1;
}

def JFA_TMAStoreOp : JFA_Op<"tma_store", [JFA_SingleThreadIssue, JFA_RequiresTma]> {
  let summary = "copies a slot into a box of a global tensor (async)";
  let description = [{
    ```mlir
    jfa.tma_store %s, %desc[%row, %col] : !jfa.slot<64x64xf32>, !jfa.tma<64x64xf32>
    ```
    Out-of-bounds parts of the box are not written. The issuing thread commits
    a bulk group; `jfa.tma_store_wait` waits on it. Shared-memory writes by
    other threads must be fenced (`jfa.fence_async_shared`) and synchronized
    (`jfa.task_barrier`) before the store.

    With `add`, the box is added to global memory element by element
    (`cp.reduce.async.bulk.tensor ... .add`, atomic per element) instead of
    stored: tiles of several CTAs accumulate into one f32 workspace, as the
    attention backward's dQ. f32 only.

    A blocked slot goes out as one copy per column block (the box is one
    block), all in the one bulk group.
  }];
  let arguments = (ins Arg<JFA_SlotType, "", [MemRead<JFA_SharedMemory>]>:$slot,
                       Arg<JFA_TensorDescType, "", [MemRead, MemWrite]>:$desc,
                       Variadic<I32>:$coords, UnitAttr:$add);
  let assemblyFormat = [{
    $slot `,` $desc `[` $coords `]` (`add` $add^)? attr-dict `:`
    qualified(type($slot)) `,` qualified(type($desc))
  }];
  let hasVerifier = 1;
}

def JFA_TMAPrefetchOp : JFA_Op<"tma_prefetch", [JFA_SingleThreadIssue, JFA_RequiresTma]> {
  let summary = "starts bringing a box of a global tensor into L2 (a hint)";
  let description = [{
    ```mlir
    jfa.tma_prefetch %desc[%row, %col] : !jfa.tma<128x64xbf16, swizzle 128>
    ```
    Asks the TMA unit to bring the box at the coordinates (element offsets,
    outermost first, as `jfa.tma_load`'s) into L2, and returns at once: no
    slot, no barrier, nothing to wait on, nothing written that a thread can
    see. A later `jfa.tma_load` of the box then reads L2 instead of DRAM. The
    use: a load that must wait for a slot (a single-buffered operand, the
    next unit's tiles) prefetched as soon as its coordinates are known, so
    the wait for the slot no longer adds a DRAM round trip. Out-of-bounds
    parts of the box are ignored. (`cp.async.bulk.prefetch.tensor.Nd.L2`.)
  }];
  // MemWrite: the op changes the L2's state, and nothing else would keep an
  // op without results from being erased as dead.
  let arguments = (ins Arg<JFA_TensorDescType, "", [MemRead, MemWrite]>:$desc,
                       Variadic<I32>:$coords);
  let assemblyFormat = [{
    $desc `[` $coords `]` attr-dict `:` qualified(type($desc))
  }];
  let hasVerifier = 1;
}

def JFA_TMAStoreWaitOp : JFA_Op<"tma_store_wait", [JFA_SingleThreadIssue, JFA_RequiresTma]> {
  let summary = "waits until at most `pending` TMA stores still read shared memory (or, with `writes`, are unfinished)";
  let description = [{
    ```mlir
    jfa.tma_store_wait pending(0)
    jfa.tma_store_wait pending(0) writes
    ```
    Each `jfa.tma_store` of the issuing thread is one bulk group;
    `pending(n)` returns once at most the n most recent ones still read
    their slot, so `pending(0)` before reusing the only store slot, or
    `pending(1)` to keep one store in flight while filling the other slot
    of a double buffer (`cp.async.bulk.wait_group.read n`).

    With `writes`, it returns once the older stores have also written global
    memory (`cp.async.bulk.wait_group n`): before another CTA may read what
    they stored or added, which then takes `jfa.fence_async_global` and
    `jfa.fence_gpu` on this side (the writes are the async proxy's) and a
    handover it can observe, such as a counter (`jfa.atomic_fetch_add`).
    It waits for the issuing thread's own stores only: where another thread
    releases them (another task's), a CTA barrier must order that thread
    after this wait.
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>]>:$pending,
                       UnitAttr:$writes);
  let assemblyFormat = "`pending` `(` $pending `)` (`writes` $writes^)? attr-dict";
}

def JFA_CopyToCtaOp : JFA_Op<"copy_to_cta", [JFA_SingleThreadIssue, JFA_RequiresTma]> {
  let summary = "copies a slot into the same place in a peer CTA's shared memory (async)";
  let description = [{
    ```mlir
    jfa.copy_to_cta %src, %dst, %bar on cta %peer : !jfa.slot<64x32xf32, swizzle 128>, !jfa.slot<64x32xf32, swizzle 128>
    ```
    Issued by one thread of the task: the bytes of slot `%src` of this CTA
    go to slot `%dst` at the same place in the shared memory of CTA `%peer`
    (an i32 rank in the cluster), and complete as transaction bytes on the
    barrier at `%bar`'s place in that CTA
    (`cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes`,
    the destination and the barrier mapped with `mapa`). The whole slot
    moves as bytes, so its layout (swizzle, column blocks) is kept: `%src`
    and `%dst` have one type, not a transposed view, of a positive multiple
    of 16 bytes. Views (`jfa.column_block`, `jfa.row_block`) are whole
    contiguous byte ranges and may be copied.

    The receiver arms its barrier as for a TMA load (`jfa.barrier_expect
    %bar, bytes(N)`: its own arrival and the bytes of the copies that land
    on it) and waits on it before it reads `%dst`. The copy reads `%src`
    through the async proxy: the threads that wrote it fence
    (`jfa.fence_async_shared`) and synchronize (`jfa.task_barrier`) before
    it, as before a `jfa.tma_store`. It belongs to no bulk group
    (`jfa.tma_store_wait` does not wait for it): the sender learns that
    `%src` has been read, and may be overwritten, only from the receiver,
    through a barrier the receiver arrives on (`jfa.barrier_arrive ... on
    cta`) after its wait; the receiver's `%dst` must likewise be free (read
    and fenced, then handed back) before the copy. The verifier asks for a
    kernel with a cluster of more than one CTA (any in a helper), and a
    constant `%peer` must be one of its CTAs.
  }];
  let arguments = (ins Arg<JFA_SlotType, "", [MemRead<JFA_SharedMemory>]>:$src,
                       Arg<JFA_SlotType, "", [MemWrite<JFA_SharedMemory>]>:$dst,
                       Arg<JFA_BarrierType, "", [MemWrite<JFA_BarrierMemory>]>:$barrier,
                       I32:$cta);
  let assemblyFormat = [{
    $src `,` $dst `,` $barrier `on` `cta` $cta attr-dict `:`
    qualified(type($src)) `,` qualified(type($dst))
  }];
  let hasVerifier = 1;
}

def JFA_FenceAsyncSharedOp : JFA_Op<"fence_async_shared"> {
  let summary = "orders this thread's shared-memory accesses before the async proxy's";
  let description = [{
    ```mlir
    jfa.fence_async_shared
    ```
    `fence.proxy.async.shared::cta`. Threads (the generic proxy) and TMA or
    the tensor cores (the async proxy) see shared memory through different
    proxies: a barrier orders the threads, not the copies. Both directions
    need the fence, between the threads' access and the barrier or wait
    that hands the slot over:
    - a slot written by threads (`jfa.local_store`) and then read by a TMA
      store or a tensor-core product;
    - a slot read by threads (`jfa.local_load`) and then handed back to a
      producer whose TMA load overwrites it. Without the fence the copy can
      land before the read has taken its data: `--debug-barriers`' timing
      made it visible on the H200 (issue 24).
    jfa-interp reports a missing fence in either direction, naming the
    access and the copy.
  }];
  let assemblyFormat = "attr-dict";
}

def JFA_FenceAsyncGlobalOp : JFA_Op<"fence_async_global"> {
  let summary = "orders the async proxy's global-memory accesses with this thread's";
  let description = [{
    ```mlir
    jfa.fence_async_global
    ```
    `fence.proxy.async.global`. The global-memory counterpart of
    `jfa.fence_async_shared`: TMA stores and reduce-adds write global memory
    through the async proxy, a thread's loads, stores and atomics go through
    the generic one. After `jfa.tma_store_wait ... writes`, the fence orders
    the stores' writes before this thread's later accesses, so that a
    release that follows (`jfa.fence_gpu`, then a counter another CTA reads)
    covers them; on the reading side, after the acquire, it orders a TMA
    load of the data after it. Executed by every thread that runs it (only
    the issuing thread's matters; the others' cost little).
  }];
  let assemblyFormat = "attr-dict";
}

def JFA_FenceGpuOp : JFA_Op<"fence_gpu"> {
  let summary = "orders this thread's memory accesses at GPU scope (acquire and release)";
  let description = [{
    ```mlir
    jfa.fence_gpu
    ```
    `fence.acq_rel.gpu`. Before a relaxed write another CTA observes (an
    atomic on a counter), it releases this thread's earlier writes to that
    CTA; after a relaxed read of such a write, it acquires them, so that
    later loads see what the writer wrote before its fence. The handover of
    a result between CTAs: the last of several CTAs to add into a buffer
    (by the counter's old value) reads the sums. Only the thread that read
    the counter acquires with its fence: the CTA's other threads learn the
    value through `jfa.atomic_fetch_add`'s barrier, which comes before that
    fence, so before they read the data with their own loads a CTA barrier
    (`jfa.task_barrier`) must follow the issuing thread's `jfa.fence_gpu`.
    (A TMA load issued by that thread after the fence and
    `jfa.fence_async_global` needs no barrier: kernels/examples/
    sum_partials.mlir.)
  }];
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Tensor cores
//===----------------------------------------------------------------------===//

def JFA_AsyncDotOp : JFA_Op<"async_dot", [AllTypesMatch<["acc", "result"]>,
    JFA_RequiresWgmma, MemoryEffects<[MemWrite<JFA_AsyncGroups>]>]> {
  let summary = "acc + A * B^T on the tensor cores, asynchronously (wgmma)";
  let description = [{
    ```mlir
    %d = jfa.async_dot %a, %b, %acc
        : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<256x64xbf16, swizzle 128>,
          tensor<128x256xf32, #jfa.wgmma_acc>
    ```
    A is M x K and B is N x K, both K-major (rows of K elements) in swizzled
    shared memory (B may be a `jfa.transpose` view, and so may A when it is
    64 rows in a 128-byte swizzled slot: an M-major A through wgmma's
    transpose-A bit, as the attention backward reads dS), or A is a bf16/f16
    register tile in the `#jfa.wgmma_acc` layout (for instance P, the
    converted scores of attention): that layout's columns are exactly the
    register A operand's, so no data moves. The accumulator is an M x N f32
    register tile in the wgmma layout, M = 64 per warpgroup of the task. On sm_90a this issues
    `wgmma.mma_async` (one m64nNk16 per 16 of K and warpgroup) and commits a
    group; the result may only be used after `jfa.async_dot_wait`.
  }];
  let arguments = (ins Arg<AnyTypeOf<[JFA_SlotType, AnyRankedTensor]>, "",
                           [MemRead<JFA_SharedMemory>]>:$a,
                       Arg<JFA_SlotType, "", [MemRead<JFA_SharedMemory>]>:$b,
                       AnyRankedTensor:$acc);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $acc attr-dict `:` type($a) `,` qualified(type($b))
    `,` type($acc)
  }];
  let hasVerifier = 1;
}

def JFA_AsyncDotWaitOp : JFA_Op<"async_dot_wait", [AllTypesMatch<["values", "results"]>,
    JFA_RequiresWgmma]> {
  let summary = "waits until at most `pending` async_dot groups are in flight";
  let description = [{
    ```mlir
    %d2 = jfa.async_dot_wait pending(0) (%d) : tensor<128x256xf32, #jfa.wgmma_acc>
    ```
    Returns its operands, which are then safe to read: the accumulators of
    the async_dots that have completed. Each `jfa.async_dot` is one group
    (per warpgroup); `pending(n)` returns once at most the n most recently
    issued groups of this thread are still running, so `pending(1)` after
    two async_dots makes the first one's accumulator safe, and `pending(0)`
    all of them.
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>]>:$pending,
                       Variadic<AnyType>:$values);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    `pending` `(` $pending `)` (`(` $values^ `)` `:` type($values))? attr-dict
  }];
  let hasVerifier = 1;
}

// The per-warpgroup form of async_dot that `jfa-distribute-tiles` produces:
// `warpgroup` selects the 64-row block of A.
def JFA_WarpgroupDotOp : JFA_Op<"warpgroup_dot", [AllTypesMatch<["acc", "result"]>,
    JFA_RequiresWgmma, MemoryEffects<[MemWrite<JFA_AsyncGroups>]>]> {
  let summary = "one warpgroup's wgmma chain (distributed form of async_dot)";
  let description = [{
    ```mlir
    %r = jfa.warpgroup_dot %a, %b, %acc, %wg : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128>, vector<32xf32>
    ```
  }];
  let arguments = (ins Arg<AnyTypeOf<[JFA_SlotType, AnyVectorOfNonZeroRank]>, "",
                           [MemRead<JFA_SharedMemory>]>:$a,
                       Arg<JFA_SlotType, "", [MemRead<JFA_SharedMemory>]>:$b,
                       AnyVectorOfNonZeroRank:$acc, I32:$warpgroup);
  let results = (outs AnyVectorOfNonZeroRank:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $acc `,` $warpgroup attr-dict `:` type($a) `,`
    qualified(type($b)) `,` type($acc)
  }];
}

//===----------------------------------------------------------------------===//
// Row reductions, broadcasts and index tiles
//===----------------------------------------------------------------------===//

def JFA_ReduceRowsOp : JFA_Op<"reduce_rows", [Pure]> {
  let summary = "max or sum along each row of an f32 tile";
  let description = [{
    ```mlir
    %m = jfa.reduce_rows max %s : tensor<128x128xf32, #jfa.wgmma_acc>
                                  -> tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
    ```
    In the wgmma layout: a reduction over each thread's elements, then two
    butterfly shuffles within each quad of lanes. In the tmem_row layout a
    thread holds its whole row.
  }];
  // The distributed form carries its task's thread count, the tile's
  // layout and its shape.
  let arguments = (ins JFA_ReduceKind:$kind,
                       AnyTypeOf<[AnyRankedTensor, AnyVectorOfNonZeroRank]>:$input,
                       OptionalAttr<I32Attr>:$threads,
                       OptionalAttr<JFA_TileLayoutAttr>:$layout,
                       OptionalAttr<DenseI64ArrayAttr>:$shape);
  let results = (outs AnyTypeOf<[AnyRankedTensor, AnyVectorOfNonZeroRank]>:$result);
  let assemblyFormat = [{
    $kind $input (`threads` `(` $threads^ `)`)? (`layout` `(` $layout^ `)`)?
    (`shape` $shape^)? attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def JFA_BroadcastRowsOp : JFA_Op<"broadcast_rows", [Pure]> {
  let summary = "a tile whose every row is the row vector's value";
  let description = [{
    ```mlir
    %mt = jfa.broadcast_rows %m : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>> -> tensor<128x64xf32, #jfa.wgmma_acc>
    ```
  }];
  // The distributed form: as reduce_rows's, for the result tile.
  let arguments = (ins AnyTypeOf<[AnyRankedTensor, AnyVectorOfNonZeroRank]>:$input,
                       OptionalAttr<I32Attr>:$threads,
                       OptionalAttr<JFA_TileLayoutAttr>:$layout,
                       OptionalAttr<DenseI64ArrayAttr>:$shape);
  let results = (outs AnyTypeOf<[AnyRankedTensor, AnyVectorOfNonZeroRank]>:$result);
  let assemblyFormat = [{
    $input (`threads` `(` $threads^ `)`)? (`layout` `(` $layout^ `)`)?
    (`shape` $shape^)? attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def JFA_IotaOp : JFA_Op<"iota", [Pure]> {
  let summary = "an i32 tile of each element's row or column index";
  let description = [{
    `%r = jfa.iota rows : tensor<64x64xi32, #jfa.wgmma_acc>`. With
    `arith.addi` of offsets and `arith.cmpi` it builds masks (sequence
    tails, the causal diagonal). Works in every layout.
  }];
  // The distributed form carries the thread, its task's thread count, the
  // layout and the tile shape.
  let arguments = (ins JFA_IotaDim:$dim, Optional<I32>:$thread,
                       OptionalAttr<I32Attr>:$threads,
                       OptionalAttr<JFA_TileLayoutAttr>:$layout,
                       OptionalAttr<DenseI64ArrayAttr>:$shape);
  let results = (outs AnyTypeOf<[AnyRankedTensor, AnyVectorOfNonZeroRank]>:$result);
  let assemblyFormat = [{
    $dim ($thread^)? (`threads` `(` $threads^ `)`)? (`layout` `(` $layout^ `)`)?
    (`shape` $shape^)? attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

def JFA_MaskColsOp : JFA_Op<"mask_cols",
    [Pure, AttrSizedOperandSegments, AllTypesMatch<["input", "result"]>,
     OptionalTypesMatchWith<"lower has the limit's type", "limit", "lower",
                            "$_self">]> {
  let summary = "keeps each row's columns within that row's bounds";
  let description = [{
    ```mlir
    %p = jfa.mask_cols %x, %limit, %zero
        : tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64xi32, #jfa.rows_of<#jfa.wgmma_acc>>, f32
    %w = jfa.mask_cols %x, %limit, %zero from %lower
        : tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64xi32, #jfa.rows_of<#jfa.wgmma_acc>>, f32
    ```
    Element (r, c) is `%x[r, c]` where `c < %limit[r]` (and, with `from`,
    `c >= %lower[r]`) and `%fill` elsewhere: attention's masks (a
    sequence's end, the causal diagonal, a sliding window) as one or two
    bounds per row. `%lower` has the limit's type. It is what `jfa.iota
    cols`, a `jfa.broadcast_rows` of the bounds, `arith.cmpi` and
    `arith.select` compute, but in fewer registers: each thread compares its
    registers' constant column offsets with the bounds less its own first
    column, so no index tile is made (the iota form kept 32 column indices
    live in the attention backward, and ptxas spilled them; bench/NOTES.md
    run 39).
  }];
  // The distributed form carries the thread, its task's thread count, the
  // layout and the tile shape, as jfa.iota's.
  let arguments = (ins AnyTypeOf<[AnyRankedTensor, AnyVectorOfNonZeroRank]>:$input,
                       AnyTypeOf<[AnyRankedTensor, AnyVectorOfNonZeroRank]>:$limit,
                       AnyFloat:$fill,
                       Optional<AnyTypeOf<[AnyRankedTensor, AnyVectorOfNonZeroRank]>>:$lower,
                       Optional<I32>:$thread,
                       OptionalAttr<I32Attr>:$threads,
                       OptionalAttr<JFA_TileLayoutAttr>:$layout,
                       OptionalAttr<DenseI64ArrayAttr>:$shape);
  let results = (outs AnyTypeOf<[AnyRankedTensor, AnyVectorOfNonZeroRank]>:$result);
  let assemblyFormat = [{
    $input `,` $limit `,` $fill (`from` $lower^)? (`thread` $thread^)?
    (`threads` `(` $threads^ `)`)? (`layout` `(` $layout^ `)`)?
    (`shape` $shape^)? attr-dict
    `:` type($input) `,` type($limit) `,` type($fill)
  }];
  let hasVerifier = 1;
}

def JFA_Exp2Op : JFA_Op<"exp2", [Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = "2^x per element, a share of the columns on the FMA pipes";
  let description = [{
    ```mlir
    %p = jfa.exp2 %x software(%share of 16) : tensor<128x128xf32, #jfa.wgmma_acc>
    ```
    `2^x` for each element of an f32 tile in the `#jfa.wgmma_acc` or
    `#jfa.tmem_row` layout, as `math.exp2 fastmath<afn>` computes it
    (`ex2.approx.ftz`, the special-function unit: 16 results a cycle on an
    SM, against 128 fused multiply-adds), except in the columns `c` with
    `(c floordiv 8) mod period < share`: there a polynomial on the FMA
    pipes computes it (FlashAttention-4's trick; its cost is 7 FMA-pipe
    instructions and 3 or 4 on the ALU pipe against 1 MUFU.EX2). An
    attention softmax whose exponentials are the critical path moves a share
    of them off the special-function unit so.

    The software columns clamp x to [-127, 127] (NaN stays NaN), split it
    into n = floor(x) and f = x - n, evaluate 2^f on [0, 1) by a degree-3
    polynomial (relative error below 9e-5) and multiply it by 2^n: 2^x
    within 1e-4 relative for x in [-126, 127], 0 below -126 (-inf gives 0,
    as the unit's ftz result does), 2^127 at x >= 127 (not inf).
    `%share` (i32) is a compile-time constant after `jfa-specialize` (a
    `jfa.param` or an arithmetic of them) in [0, period]; 0 is
    `math.exp2 fastmath<afn>` exactly. A column group's choice is the same
    in every thread, so no thread computes both.
  }];
  // The distributed form carries its task's thread count, the layout and
  // the tile shape (which register holds which column).
  let arguments = (ins AnyTypeOf<[AnyRankedTensor, AnyVectorOfNonZeroRank]>:$input,
                       I32:$share, I32Attr:$period,
                       OptionalAttr<I32Attr>:$threads,
                       OptionalAttr<JFA_TileLayoutAttr>:$layout,
                       OptionalAttr<DenseI64ArrayAttr>:$shape);
  let results = (outs AnyTypeOf<[AnyRankedTensor, AnyVectorOfNonZeroRank]>:$result);
  let assemblyFormat = [{
    $input `software` `(` $share `of` $period `)`
    (`threads` `(` $threads^ `)`)? (`layout` `(` $layout^ `)`)?
    (`shape` $shape^)? attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Row vectors to and from global memory
//===----------------------------------------------------------------------===//

def JFA_StoreRowsOp : JFA_Op<"store_rows", [AttrSizedOperandSegments]> {
  let summary = "stores a row vector to global memory, rows [0, count) (or [first, count)) only";
  let description = [{
    ```mlir
    jfa.store_rows %lse, %out[%offset] rows(%count)
        : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, !jfa.ptr<f32>
    ```
    Row r of the vector goes to `%out[%offset + r]` (elements) when
    `r < %count`: rows past the end of a sequence are not written. With
    `from(%first)`, rows below `%first` are not written either: a tile that
    starts before its sequence (one placed on a block grid of the packed
    axis) writes none of the previous sequence's rows. One thread per row
    stores (the lanes that hold copies of a row leave it to the first). The
    way to write a per-row statistic, such as attention's log-sum-exp.
  }];
  let arguments = (ins AnyTypeOf<[AnyRankedTensor, AnyVectorOfNonZeroRank]>:$value,
                       Arg<JFA_GlobalPtrType, "", [MemWrite]>:$ptr,
                       I32:$offset, I32:$count, Optional<I32>:$first,
                       // The distributed form: the thread, its task's
                       // thread count, the vector's layout and shape.
                       Optional<I32>:$thread, OptionalAttr<I32Attr>:$threads,
                       OptionalAttr<JFA_TileLayoutAttr>:$layout,
                       OptionalAttr<DenseI64ArrayAttr>:$shape);
  let assemblyFormat = [{
    $value `,` $ptr `[` $offset `]` `rows` `(` $count `)`
    (`from` `(` $first^ `)`)? (`thread` $thread^)? (`threads` `(` $threads^ `)`)?
    (`layout` `(` $layout^ `)`)? (`shape` $shape^)? attr-dict `:`
    type($value) `,` qualified(type($ptr))
  }];
  let hasVerifier = 1;
}

def JFA_LoadRowsOp : JFA_Op<"load_rows"> {
  let summary = "loads a row vector from global memory, rows [0, count) only";
  let description = [{
    ```mlir
    %lse = jfa.load_rows %in[%offset] rows(%count)
        : !jfa.ptr<f32> -> tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
    ```
    Row r of the result is `%in[%offset + r]` when `r < %count`, else 0:
    rows past the end of a sequence are never read.
  }];
  let arguments = (ins Arg<JFA_GlobalPtrType, "", [MemRead]>:$ptr,
                       I32:$offset, I32:$count,
                       Optional<I32>:$thread, OptionalAttr<I32Attr>:$threads,
                       OptionalAttr<JFA_TileLayoutAttr>:$layout,
                       OptionalAttr<DenseI64ArrayAttr>:$shape);
  let results = (outs AnyTypeOf<[AnyRankedTensor, AnyVectorOfNonZeroRank]>:$result);
  let assemblyFormat = [{
    $ptr `[` $offset `]` `rows` `(` $count `)`
    (`thread` $thread^)? (`threads` `(` $threads^ `)`)?
    (`layout` `(` $layout^ `)`)? (`shape` $shape^)? attr-dict `:`
    qualified(type($ptr)) `->` type($result)
  }];
  let hasVerifier = 1;
}

def JFA_LoadColsOp : JFA_Op<"load_cols", [AttrSizedOperandSegments]> {
  let summary = "loads one value per column (from global or shared memory), the same in every row";
  let description = [{
    ```mlir
    %lse_t = jfa.load_cols %lse[%offset] cols(%count)
        : !jfa.ptr<f32> -> tensor<64x64xf32, #jfa.wgmma_acc>
    %lse_t = jfa.load_cols %lse_slot[%c0]
        : !jfa.slot<64xf32> -> tensor<64x64xf32, #jfa.wgmma_acc>
    ```
    Element (r, c) of the result is `%source[%offset + c]`, the same in
    every row. From global memory `cols(%count)` is required: columns at
    or past it are 0 and never read (a sequence's end). From a slot (an
    unswizzled one, read as its flat elements) the bound is optional.

    It is the column counterpart of `jfa.load_rows` followed by
    `jfa.broadcast_rows`, for a tile whose columns are a sequence's rows:
    an attention backward that computes S^T = K Q^T (keys as rows, so that
    P^T and dS^T are in the layout of a register A operand; FA3's
    SdP_swapAB) needs each query's lse and delta as a column's value.
    (bench/NOTES.md run 72 measured such a kernel; it is kept as
    bench/logs/run72-swapab-attention_bwd_sm90.patch.)

    Each thread loads each column it holds once (in the wgmma layout, 16
    of 64 columns), one element per load (`%offset` need not be aligned),
    and gives every register of that column the value. A kernel short of
    registers stages the values in a slot (`jfa.local_store` of a row
    vector) and reads them from there where they are used: ptxas keeps
    global loads' results live from where it hoists them, across the
    products (that S^T backward spilled 216 B with lse and delta from
    global memory, none from a slot). The verifier rejects a constant
    negative offset, and a slot read without `cols(%count)` that would run
    past the slot's end.
  }];
  let arguments = (ins Arg<AnyTypeOf<[JFA_GlobalPtrType, JFA_SlotType]>, "", [MemRead]>:$source,
                       I32:$offset, Optional<I32>:$count,
                       // The distributed form, as for jfa.load_rows.
                       Optional<I32>:$thread, OptionalAttr<I32Attr>:$threads,
                       OptionalAttr<JFA_TileLayoutAttr>:$layout,
                       OptionalAttr<DenseI64ArrayAttr>:$shape);
  let results = (outs AnyTypeOf<[AnyRankedTensor, AnyVectorOfNonZeroRank]>:$result);
  let assemblyFormat = [{
    $source `[` $offset `]` (`cols` `(` $count^ `)`)?
    (`thread` $thread^)? (`threads` `(` $threads^ `)`)?
    (`layout` `(` $layout^ `)`)? (`shape` $shape^)? attr-dict `:`
    qualified(type($source)) `->` type($result)
  }];
  let hasVerifier = 1;
}

def JFA_StoreTileOp : JFA_Op<"store_tile", [AttrSizedOperandSegments]> {
  let summary = "stores a register tile to global memory, rows [0, count) (or [first, count)) only";
  let description = [{
    ```mlir
    jfa.store_tile %o, %out[%offset] stride(%row_stride) rows(%count)
        : tensor<128x64xbf16, #jfa.wgmma_acc>, !jfa.ptr<bf16>
    ```
    Element (r, c) of the tile goes to `%out[%offset + r * %row_stride + c]`
    (elements) when `r < %count`: a tile that runs past the end of a
    sequence writes none of the next sequence's rows (a TMA store of the
    whole box would). With `from(%first)`, rows below `%first` are not
    written either (rows [first, count)): a tile placed on a block grid of
    the packed axis, which starts before its sequence, writes none of the
    previous sequence's rows.
    ```mlir
    jfa.store_tile %o, %out[%offset] stride(%row_stride) rows(%count) from(%first)
        : tensor<128x64xbf16, #jfa.wgmma_acc>, !jfa.ptr<bf16>
    ```
    Each thread stores its own registers, as wide as the layout keeps
    columns together (up to 16 bytes): `%ptr + %offset` and
    `%row_stride` must keep those runs aligned to their width (for bf16 in
    the wgmma layout 4 bytes, in the tmem_row layout 16 bytes), as a
    16-byte-aligned base with a row stride and offset that are multiples
    of 8 elements do.

    With `add`, each element is added to memory atomically instead of
    stored, in the same runs (`red.global.add.v2.f32` / `.v4.f32`, sm_90
    and later; `red.global.add.f32` for a run of one), with the same
    alignment rule: tiles of several CTAs or tasks may add into the same
    rows, as the attention backward accumulates dQ in an f32 workspace.
    f32 tiles only.
    ```mlir
    jfa.store_tile %dq, %dq_accum[%offset] stride(%row_stride) rows(%count) add
        : tensor<64x64xf32, #jfa.wgmma_acc>, !jfa.ptr<f32>
    ```
  }];
  let arguments = (ins AnyTypeOf<[AnyRankedTensor, AnyVectorOfNonZeroRank]>:$value,
                       Arg<JFA_GlobalPtrType, "", [MemRead, MemWrite]>:$ptr,
                       I32:$offset, I32:$row_stride, I32:$count,
                       Optional<I32>:$first, UnitAttr:$add,
                       // The distributed form, as for jfa.store_rows.
                       Optional<I32>:$thread, OptionalAttr<I32Attr>:$threads,
                       OptionalAttr<JFA_TileLayoutAttr>:$layout,
                       OptionalAttr<DenseI64ArrayAttr>:$shape);
  let assemblyFormat = [{
    $value `,` $ptr `[` $offset `]` `stride` `(` $row_stride `)`
    `rows` `(` $count `)` (`from` `(` $first^ `)`)? (`add` $add^)?
    (`thread` $thread^)? (`threads` `(` $threads^ `)`)?
    (`layout` `(` $layout^ `)`)? (`shape` $shape^)? attr-dict `:`
    type($value) `,` qualified(type($ptr))
  }];
  let hasVerifier = 1;
}

def JFA_LoadOp : JFA_Op<"load"> {
  let summary = "loads one element from global memory";
  let description = [{
    ```mlir
    %start = jfa.load %offsets[%b] : !jfa.ptr<i32> -> i32
    ```
    Every thread that runs it reads `%ptr[%index]` (a scalar, such as a
    sequence's start in a jagged batch).
  }];
  let arguments = (ins Arg<JFA_GlobalPtrType, "", [MemRead]>:$ptr,
                       I32:$index);
  let results = (outs AnyTypeOf<[AnySignlessInteger, AnyFloat]>:$result);
  let assemblyFormat = [{
    $ptr `[` $index `]` attr-dict `:` qualified(type($ptr)) `->` type($result)
  }];
  let hasVerifier = 1;
}

def JFA_StoreOp : JFA_Op<"store"> {
  let summary = "stores one element to global memory";
  let description = [{
    ```mlir
    jfa.store %pair, %schedule[%at] : i32, !jfa.ptr<i32>
    ```
    Every thread that runs it writes `%value` to `%ptr[%index]`; the value
    and the index may differ from thread to thread (`jfa.thread_id`), so a
    CTA can scatter a list it computed, one element per thread. Threads that
    write the same element must write the same value (clamping a thread past
    the end to the last element is the way to avoid a branch): which one
    lands is not specified, and jfa-interp reports two different values.
  }];
  let arguments = (ins AnyTypeOf<[AnySignlessInteger, AnyFloat]>:$value,
                       Arg<JFA_GlobalPtrType, "", [MemWrite]>:$ptr,
                       I32:$index);
  let assemblyFormat = [{
    $value `,` $ptr `[` $index `]` attr-dict `:` type($value) `,` qualified(type($ptr))
  }];
  let hasVerifier = 1;
}

def JFA_AtomicFetchAddOp : JFA_Op<"atomic_fetch_add", [JFA_SingleThreadIssue]> {
  let summary = "adds to a global counter; the old value goes to a slot, then an arrival";
  let description = [{
    ```mlir
    jfa.atomic_fetch_add %counter[%c0], %c1 into %next arrive %next_full
        : !jfa.ptr<i32>, !jfa.slot<1xi32>
    ```
    One thread of the task atomically adds `%value` to `%counter[%index]`
    (global memory, device scope), writes the value it replaced to element
    0 of the slot and arrives once on the barrier (a release: every thread
    that sees the phase complete reads the new value with `jfa.load_scalar`).
    The way to hand out work dynamically: a persistent kernel's producer
    takes the next unit from a counter the caller zeroed, and every task of
    the CTA reads it from the slot (FA3's dynamic tile scheduler; TLX writes
    it with `tl.atomic_add` and a shared-memory broadcast). Count the
    arrival in the barrier's `arrive_count`.

    ```mlir
    jfa.atomic_fetch_add %counter[%c0], %c1 into %next arrive %next_full and cta %peer
        : !jfa.ptr<i32>, !jfa.slot<1xi32>
    ```
    With `and cta %rank`, the same thread then also writes the old value
    into element 0 of the slot at the same place in CTA `%rank` of the
    cluster and arrives once on the barrier at `%barrier`'s place there
    (`mapa`, `st.shared::cluster`, then
    `mbarrier.arrive.release.cluster.shared::cluster`, which orders the
    store before the arrival): one fetch hands the next unit to both CTAs
    of a pair, whose barriers each count the one arrival.
  }];
  let arguments = (ins Arg<JFA_GlobalPtrType, "", [MemRead, MemWrite]>:$counter,
                       I32:$index, I32:$value,
                       Arg<JFA_SlotType, "", [MemWrite<JFA_SharedMemory>]>:$slot,
                       Arg<JFA_BarrierType, "", [MemRead<JFA_BarrierMemory>,
                                                 MemWrite<JFA_BarrierMemory>]>:$barrier,
                       Optional<I32>:$cta);
  let assemblyFormat = [{
    $counter `[` $index `]` `,` $value `into` $slot `arrive` $barrier
    (`and` `cta` $cta^)? attr-dict `:` qualified(type($counter)) `,`
    qualified(type($slot))
  }];
  let hasVerifier = 1;
}

def JFA_LoadScalarOp : JFA_Op<"load_scalar"> {
  let summary = "reads one element of a shared-memory slot";
  let description = [{
    ```mlir
    %unit = jfa.load_scalar %next[%c0] : !jfa.slot<1xi32> -> i32
    ```
    Every thread that runs it reads element `%index` (row-major) of an
    unswizzled slot: a value one thread wrote for the whole CTA, such as
    the work unit `jfa.atomic_fetch_add` fetched (wait on its barrier
    first).
  }];
  let arguments = (ins Arg<JFA_SlotType, "", [MemRead<JFA_SharedMemory>]>:$slot,
                       I32:$index);
  let results = (outs AnyTypeOf<[AnySignlessInteger, AnyFloat]>:$result);
  let assemblyFormat = [{
    $slot `[` $index `]` attr-dict `:` qualified(type($slot)) `->` type($result)
  }];
  let hasVerifier = 1;
}

def JFA_RingPositionOp : JFA_Op<"ring_position", [Pure]> {
  let summary = "the slot and phase parity of a ring's n-th use";
  let description = [{
    ```mlir
    %slot, %phase = jfa.ring_position %n stages(3) : i32
    ```
    A ring of `stages` slots, each with its own barrier, is used in order:
    use `%n` (counting from 0) takes slot `%n mod stages`, and its barrier
    is in phase parity `(%n / stages) mod 2` (flip it for the barrier that
    says the slot is free). This is the bookkeeping every pipelined loop
    needs, named once.
  }];
  let arguments = (ins I32:$index, I32Attr:$stages);
  let results = (outs I32:$slot, I32:$phase);
  let assemblyFormat = "$index `stages` `(` $stages `)` attr-dict `:` type($index)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Cluster launch control (sm_100a)
//===----------------------------------------------------------------------===//

def JFA_TryCancelOp : JFA_Op<"try_cancel", [JFA_SingleThreadIssue, JFA_RequiresClc]> {
  let summary = "asks to cancel a cluster not yet launched, to do its work here (async)";
  let description = [{
    ```mlir
    jfa.barrier_expect %b, bytes(16)
    jfa.try_cancel %response, %b : !jfa.slot<4xi32>
    ...
    jfa.barrier_wait %b, %phase
    %taken, %x, %y, %z = jfa.query_cancel %response : !jfa.slot<4xi32>
    ```
    `clusterlaunchcontrol.try_cancel`: the hardware cancels the launch of
    some cluster of this grid that has not started yet, if any, and writes
    a 16-byte response into `%response` (an unswizzled `!jfa.slot<4xi32>`),
    completing 16 transaction bytes on `%b`. A persistent kernel launched
    with one CTA per tile takes tiles this way while it runs: the work of a
    cancelled cluster is done by the CTA that cancelled it, and clusters
    that start find nothing cancelled and do their own. In a kernel with
    clusters the response and the bytes reach every CTA of the issuer's
    cluster (`.multicast::cluster::all`): one CTA issues, every CTA expects
    16 bytes. One thread of the task issues it.
  }];
  let arguments = (ins Arg<JFA_SlotType, "", [MemWrite<JFA_SharedMemory>]>:$response,
                       Arg<JFA_BarrierType, "", [MemWrite<JFA_BarrierMemory>]>:$barrier);
  let assemblyFormat = "$response `,` $barrier attr-dict `:` qualified(type($response))";
  let hasVerifier = 1;
}

def JFA_QueryCancelOp : JFA_Op<"query_cancel", [JFA_RequiresClc]> {
  let summary = "reads a jfa.try_cancel response: cancelled, and the first CTA's id";
  let description = [{
    ```mlir
    %taken, %x, %y, %z = jfa.query_cancel %response : !jfa.slot<4xi32>
    ```
    `clusterlaunchcontrol.query_cancel`: `%taken` is true when the request
    cancelled a cluster; then `%x, %y, %z` are the program ids of that
    cluster's first CTA (its work is this CTA's to do). When `%taken` is
    false no cluster is left to cancel and the ids mean nothing. Every
    thread reads the response, after a wait on the barrier that
    `jfa.try_cancel` completed.
  }];
  let arguments = (ins Arg<JFA_SlotType, "", [MemRead<JFA_SharedMemory>]>:$response);
  let results = (outs I1:$taken, I32:$x, I32:$y, I32:$z);
  let assemblyFormat = "$response attr-dict `:` qualified(type($response))";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Tensor memory and tcgen05 (sm_100a)
//===----------------------------------------------------------------------===//

def JFA_TmemAllocOp : JFA_Op<"tmem_alloc", [HasParent<"KernelOp">,
                                             JFA_RequiresTensorMemory]> {
  let summary = "allocates tensor-memory columns for the whole kernel";
  let description = [{
    Warp 0 allocates (`tcgen05.alloc`) and gives up the allocation permit;
    every thread then reads the address. The columns are freed when the
    kernel ends. A kernel allocates at most 512 columns.
  }];
  let arguments = (ins OptionalAttr<I64Attr>:$offset);
  let results = (outs Res<JFA_TensorMemoryType, "",
                          [MemAlloc<JFA_TensorMemory>]>:$result);
  let assemblyFormat = "attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def JFA_TmemSliceOp : JFA_Op<"tmem_slice", [Pure, JFA_RequiresTensorMemory]> {
  let summary = "a column sub-range of tensor memory, as a view";
  let description = [{
    ```mlir
    %s1 = jfa.tmem_slice %acc columns(128) : !jfa.tmem<128x256xf32> -> !jfa.tmem<128x128xf32>
    ```
    Element columns [columns, columns + N) of `%tmem`: for example the two
    halves of a double-buffered accumulator, or S and P sharing storage.
    Not allocated or freed on its own.
  }];
  let arguments = (ins JFA_TensorMemoryType:$tmem, I64Attr:$columns);
  let results = (outs JFA_TensorMemoryType:$result);
  let assemblyFormat = [{
    $tmem `columns` `(` $columns `)` attr-dict `:` qualified(type($tmem)) `->`
    qualified(type($result))
  }];
  let hasVerifier = 1;
}

// Appended at kernel end by jfa-lower-async-tasks.
def JFA_TmemDeallocOp : JFA_Op<"tmem_dealloc", [JFA_RequiresTensorMemory]> {
  let summary = "frees tensor memory (warp 0, after a CTA barrier)";
  let description = [{
    ```mlir
    jfa.tmem_dealloc %acc : !jfa.tmem<128x256xf32>
    ```
  }];
  let arguments = (ins Arg<JFA_TensorMemoryType, "", [MemFree<JFA_TensorMemory>]>:$tmem);
  let assemblyFormat = "$tmem attr-dict `:` qualified(type($tmem))";
}

def JFA_TcDotOp : JFA_Op<"tc_dot", [JFA_SingleThreadIssue, JFA_RequiresTensorMemory,
                                     MemoryEffects<[MemWrite<JFA_AsyncGroups>]>]> {
  let summary = "acc (+)= A * B^T into tensor memory, asynchronously (tcgen05.mma)";
  let description = [{
    ```mlir
    jfa.tc_dot %a, %b, %acc, %accumulate
        : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<256x64xbf16, swizzle 128>,
          !jfa.tmem<128x256xf32>
    ```
    A is 128 x K, B is N x K, both K-major in swizzled shared memory, or A
    is a bf16/f16 `!jfa.tmem` tile (filled with `jfa.tmem_store`, as FA4
    keeps P). B may be a transposed view (N-major). A may be a blocked slot
    (K wider than the swizzle, stored as column blocks), or the transposed
    view of a blocked K x 128 slot with a 128-byte swizzle: an M-major A,
    as the attention backward reads dS for dQ = dS K from the dS^T that its
    threads wrote row by row. One thread issues one
    `tcgen05.mma.cta_group::1.kind::f16` per 16 of K. When
    `%accumulate` is false the first product overwrites the accumulator.
    Completion is observed through `jfa.tc_commit`.

    With `pair`, the product spans the CTA pair of a cluster (ranks 2i and
    2i + 1; `tcgen05.mma.cta_group::2`): M = 256 and N = twice B's rows.
    Each CTA holds its half of the operands at the same slots: A's rows
    [0, 128) in the even CTA and [128, 256) in the odd one, B's first N/2
    rows in the even CTA and the rest in the odd one; each CTA's
    accumulator receives its 128 rows of the 256 x N product, all N
    columns. One thread of the pair issues it (conventionally the even
    CTA's); the operands' loads complete on that CTA's barrier (`jfa.tma_load
    ... on cta`), and its `jfa.tc_commit ... multicast` tells both CTAs.
    A kernel's tensor-core products are all `pair` or none (the hardware
    does not mix the two in one kernel); its cluster has an even size.
  }];
  let arguments = (ins Arg<AnyTypeOf<[JFA_SlotType, JFA_TensorMemoryType]>, "",
                           [MemRead<JFA_SharedMemory>, MemRead<JFA_TensorMemory>]>:$a,
                       Arg<JFA_SlotType, "", [MemRead<JFA_SharedMemory>]>:$b,
                       Arg<JFA_TensorMemoryType, "", [MemRead<JFA_TensorMemory>,
                                                      MemWrite<JFA_TensorMemory>]>:$acc,
                       I1:$accumulate,
                       UnitAttr:$pair);
  let assemblyFormat = [{
    $a `,` $b `,` $acc `,` $accumulate (`pair` $pair^)? attr-dict `:`
    qualified(type($a)) `,` qualified(type($b)) `,` qualified(type($acc))
  }];
  let hasVerifier = 1;
}

def JFA_TcCommitOp : JFA_Op<"tc_commit", [JFA_SingleThreadIssue, JFA_RequiresTensorMemory,
    MemoryEffects<[MemRead<JFA_AsyncGroups>, MemWrite<JFA_AsyncGroups>]>]> {
  let summary = "arrives on the barrier when the issuing thread's tcgen05 ops finish";
  let description = [{
    ```mlir
    jfa.tc_commit %b
    jfa.tc_commit %b multicast(%mask)    // %mask: i16
    ```
    With `multicast(%mask)`, the arrival goes to the barrier at `%b`'s
    place in every CTA of the cluster whose rank bit is set in the mask
    (`tcgen05.commit ... .multicast::cluster`): the MMA warp hands a stage
    back to every producer whose multicast copies fill it.
    `jfa-check-barriers` counts it as one arrival per CTA of a constant
    mask, as each of them commits to the others alike.
  }];
  let arguments = (ins Arg<JFA_BarrierType, "", [MemWrite<JFA_BarrierMemory>]>:$barrier,
                       Optional<I16>:$multicast);
  let assemblyFormat = "$barrier (`multicast` `(` $multicast^ `)`)? attr-dict";
  let hasVerifier = 1;
}

def JFA_TmemLoadOp : JFA_Op<"tmem_load", [JFA_RequiresTensorMemory]> {
  let summary = "loads accumulator columns [col, col + n) into registers";
  let description = [{
    ```mlir
    %t = jfa.tmem_load %acc[%c0] : !jfa.tmem<128x256xf32> -> tensor<128x64xf32, #jfa.tmem_row>
    ```
    `tcgen05.ld.32x32b` then `tcgen05.wait::ld`: the result is a
    `tensor<128xNxf32, #jfa.tmem_row>` in a task of one warpgroup.
  }];
  let arguments = (ins Arg<JFA_TensorMemoryType, "", [MemRead<JFA_TensorMemory>]>:$tmem,
                       I32:$column);
  let results = (outs AnyTypeOf<[AnyRankedTensor, AnyVectorOfNonZeroRank]>:$result);
  let assemblyFormat = [{
    $tmem `[` $column `]` attr-dict `:` qualified(type($tmem)) `->` type($result)
  }];
  let hasVerifier = 1;
}

def JFA_TmemStoreOp : JFA_Op<"tmem_store", [JFA_RequiresTensorMemory]> {
  let summary = "stores a register tile into accumulator columns [col, col + n)";
  let description = [{
    ```mlir
    jfa.tmem_store %t, %acc[%c0] : tensor<128x64xf32, #jfa.tmem_row> -> !jfa.tmem<128x256xf32>
    ```
    `tcgen05.st.32x32b` then `tcgen05.wait::st`: the inverse of
    `jfa.tmem_load`, one row per thread of a one-warpgroup task (for
    example, to rescale an accumulator in place).
  }];
  let arguments = (ins AnyTypeOf<[AnyRankedTensor, AnyVectorOfNonZeroRank]>:$value,
                       Arg<JFA_TensorMemoryType, "", [MemWrite<JFA_TensorMemory>]>:$tmem,
                       I32:$column);
  let assemblyFormat = [{
    $value `,` $tmem `[` $column `]` attr-dict `:` type($value) `->`
    qualified(type($tmem))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Debug mode (jfac --debug-barriers)
//===----------------------------------------------------------------------===//

def JFA_BarrierTryWaitOp : JFA_Op<"barrier_try_wait"> {
  let summary = "probes once whether the barrier completed the phase of parity `phase`";
  let description = [{
    ```mlir
    %ready = jfa.barrier_try_wait %b, %phase
    ```
    One `mbarrier.try_wait.parity` probe: it may suspend the thread for a
    short, bounded time, then returns whether the phase completed. The
    non-blocking form of `jfa.barrier_wait` that `jfa-debug-barriers`
    builds its bounded spin from; `acquire(cluster)` as on the wait.
  }];
  let arguments = (ins JFA_BarrierType:$barrier, I32:$phase,
                       UnitAttr:$acquire_cluster);
  let results = (outs I1:$ready);
  let assemblyFormat = [{
    $barrier `,` $phase (`acquire` `(` `cluster` `)` $acquire_cluster^)?
    attr-dict
  }];
}

def JFA_DebugTrapOp : JFA_Op<"debug_trap"> {
  let summary = "prints one formatted line per warp and traps";
  let description = [{
    ```mlir
    jfa.debug_trap "wait at k.mlir:3:5 timed out: index %d\n" (%i) : i32
    ```
    The lowest active lane of each warp prints `format` with the i32
    arguments through `vprintf` (printf conversions, one per argument),
    then every thread executes `trap`: the kernel ends with an error and
    the CUDA context cannot be used again. `jfa-debug-barriers` uses it to
    report a barrier wait that ran out of time.
  }];
  let arguments = (ins StrAttr:$format, Variadic<I32>:$args);
  let assemblyFormat = [{
    $format (`(` $args^ `:` type($args) `)`)? attr-dict
  }];
  let hasVerifier = 1;
}

#endif // JFA_OPS_TD
