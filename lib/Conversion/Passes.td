//===- Passes.td - JFA conversion passes ----------------------*- tablegen -*-===//
#ifndef JFA_CONVERSION_PASSES_TD
#define JFA_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def JFAConvertToLLVM : Pass<"jfa-convert-to-llvm", "::mlir::ModuleOp"> {
  let summary = "lowers JFA kernels to the LLVM and NVVM dialects";
  let description = [{
    Kernels become `llvm.func`s with `nvvm.kernel`; TMA descriptors are
    128-byte `__grid_constant__` parameters; buffers and barriers are offsets
    into the dynamic shared-memory window `@jfa_smem`; barrier, TMA and fence
    ops become their NVVM counterparts. Arith, scf and vector ops are left
    for the upstream conversions that follow in `jfa-lower-to-llvm`. Run
    after `jfa-lower-async-tasks` (it takes the distributed form: fragments,
    `jfa.warpgroup_dot`, `jfa.load_fragment`). The patterns live one file
    per hardware concept in lib/Conversion/JFAToLLVM. The target is the
    module's `jfa.target` (set by `jfa-check-target`): the wgmma, tcgen05
    and TMA patterns are added only where it has the feature (all of them
    when no target was chosen).
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect",
                           "::mlir::scf::SCFDialect"];
  let options = [
    Option<"threadIndexAtUse", "thread-index-at-use", "bool", /*default=*/"false",
           "Read %tid.x where each use is (a PTX mov with side effects) "
           "instead of through NVVM's pure intrinsic: LLVM then cannot hoist "
           "the per-thread address arithmetic of register tiles out of "
           "loops, where it holds registers through them (fewer spills, more "
           "integer instructions inside the loops)">
  ];
}

#endif // JFA_CONVERSION_PASSES_TD
