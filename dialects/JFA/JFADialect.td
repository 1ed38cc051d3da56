//===- JFADialect.td - the JFA kernel DSL dialect -------------*- tablegen -*-===//
#ifndef JFA_DIALECT_TD
#define JFA_DIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def JFA_Dialect : Dialect {
  let name = "jfa";
  let cppNamespace = "::jfa";
  let summary = "A TLX-style kernel DSL with explicit control of Hopper and "
                "Blackwell hardware";
  let description = [{
    Kernels are `jfa.kernel` ops. Their bodies allocate shared-memory buffers
    and mbarrier arrays, split into warp-specialized async tasks, move tiles
    with TMA and compute on register tiles (ranked tensors, distributed over
    the threads of the enclosing task).
  }];
  // Facts passes record on a jfa.kernel for later passes and the metadata.
  let discardableAttrs = (ins
    // Bytes of dynamic shared memory (jfa-allocate-shared-memory).
    "::mlir::IntegerAttr":$shared_bytes,
    // The register count every thread starts with, when tasks set budgets
    // (jfa-lower-async-tasks; setmaxnreg needs it fixed at entry).
    "::mlir::IntegerAttr":$entry_registers,
    // The compile-time parameter values jfa-specialize chose (the metadata
    // records them as "params").
    "::mlir::DictionaryAttr":$params
  );
  let hasOperationAttrVerify = 1;
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    void registerTypes();
    void registerAttributes();
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::vector::VectorDialect"];
}

// Every op but jfa.kernel and jfa.func lives inside a kernel (or a helper,
// jfa.func, inlined into one).
def JFA_InKernel : NativeOpTrait<"InKernel"> {
  let cppNamespace = "::jfa";
}

class JFA_Op<string mnemonic, list<Trait> traits = []>
    : Op<JFA_Dialect, mnemonic,
         !listconcat(traits, !if(!or(!eq(mnemonic, "kernel"),
                                     !eq(mnemonic, "func")), [],
                                 [JFA_InKernel]))>;

#endif // JFA_DIALECT_TD
