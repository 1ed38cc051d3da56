//===- SafeParse.h - parsing past MLIR 22's own crashes ---------*- C++ -*-===//
//
// MLIR 22.1's parser and verifiers crash (a segmentation fault, no message)
// on a few malformed inputs that a fuzzer of our kernels found. The tools
// parse through these functions, which reject those inputs first with an
// error at the offending text's file:line:col:
//  - a dense array of `index` elements (`array<index: 0>`, `array<index>`):
//    Parser::parseDenseArrayAttr dereferences the null element width that
//    `index` has;
//  - `tensor.concat` with a negative dimension (`dim(-1)`, or
//    `<{dim = -1 : i64}>` in the generic form): tensor::ConcatOp::verify
//    indexes the operand shapes with it.
// Where a later MLIR fixes one, its check here can go.
//
//===----------------------------------------------------------------------===//
#ifndef JFA_COMPILER_SAFEPARSE_H
#define JFA_COMPILER_SAFEPARSE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SourceMgr.h"

namespace mlir {
class Block;
class AsmParserState;
class DialectRegistry;
} // namespace mlir

namespace jfa {

/// Reports each dense array of `index` in `sourceMgr`'s buffer `bufferId`
/// (outside comments and string literals) as an error at its location,
/// through `context`'s diagnostic handler. Fails if there is one.
mlir::LogicalResult rejectParserCrashes(llvm::SourceMgr &sourceMgr,
                                        unsigned bufferId,
                                        mlir::MLIRContext *context);

/// Reports each op under `root` (root included) that an upstream verifier
/// would crash on, before `mlir::verify` runs. Fails if there is one.
mlir::LogicalResult rejectVerifierCrashes(mlir::Operation *root);

/// parseSourceFile<ModuleOp> of the main buffer with both checks above:
/// null after an error reported through `context`'s handler.
mlir::OwningOpRef<mlir::ModuleOp> parseModuleSafely(llvm::SourceMgr &sourceMgr,
                                                    mlir::MLIRContext *context);

/// The same for a parse into `block` that keeps the parser's state (as
/// jfa-interp does, to name values as the source does). The ops are not
/// verified: the caller verifies them once they sit in their module. Fails
/// after an error reported through `context`'s handler.
mlir::LogicalResult parseBlockSafely(llvm::SourceMgr &sourceMgr,
                                     mlir::Block *block,
                                     mlir::MLIRContext *context,
                                     mlir::AsmParserState *state);

/// For a driver that hands the whole input to MlirOptMain: runs both checks
/// on each chunk of `input` between lines `splitMarker` (the whole input
/// when empty), in a context of its own built from `registry`, and prints
/// what it finds to stderr, located in `input`. Fails if anything was found.
mlir::LogicalResult checkInputSafety(const llvm::MemoryBuffer &input,
                                     llvm::StringRef splitMarker,
                                     const mlir::DialectRegistry &registry);

} // namespace jfa

#endif // JFA_COMPILER_SAFEPARSE_H
