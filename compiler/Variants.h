//===- Variants.h - -P values against a kernel's jfa-variants header ------===//
//
// A kernel source lists the values the build compiles for each
// compile-time parameter in its header comment
// (`// jfa-variants: head_dim=64,128 causal=0,1`, the grammar of
// scripts/kernel_variants.py). The runtime picks a cubin by the values its
// metadata records, so a kernel compiled with another value would be taken
// for a variant its code may not handle.
//
//===----------------------------------------------------------------------===//
#ifndef JFA_COMPILER_VARIANTS_H
#define JFA_COMPILER_VARIANTS_H

#include "mlir/Support/LLVM.h"
#include "llvm/Support/MemoryBuffer.h"

#include <string>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace jfa {

/// Checks the -P values `given` (NAME=VALUE each) against the
/// `// jfa-variants:` lines of the kernel file in `buffer`: a value of a
/// parameter the header lists must be one of its values; a parameter the
/// header does not list is free, and a malformed NAME=VALUE is left to
/// jfa-specialize. Reports a malformed header line, or a value the header
/// does not allow, at the header line (file:line) through the context's
/// diagnostics.
mlir::LogicalResult checkListedParams(const llvm::MemoryBuffer &buffer,
                                      mlir::MLIRContext *context,
                                      llvm::ArrayRef<std::string> given);

} // namespace jfa

#endif // JFA_COMPILER_VARIANTS_H
