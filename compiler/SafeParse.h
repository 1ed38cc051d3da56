//===- SafeParse.h - parsing past MLIR 22's own crashes ---------*- C++ -*-===//
//
// MLIR 22.1's parser and verifiers crash (a segmentation fault, no message)
// on some malformed inputs; a fuzzer of our kernels found two:
//  - a dense array of `index` elements (`array<index: 0>`, `array<index>`):
//    Parser::parseDenseArrayAttr uses the element width `index` lacks;
//  - `tensor.concat` with a negative dimension (`dim(-1)`, or
//    `<{dim = -1 : i64}>` in the generic form): tensor::ConcatOp::verify
//    indexes the operand shapes with it.
// And brackets nested a few thousand deep overflow the parser's stack. The
// tools parse and verify through these functions instead. These three are
// reported where they stand (file:line:col): the text is scanned for the
// first and the third (more than 512 levels) before the parse, the parsed
// IR is walked for the second before the verifier. Any other crash of the parse or the verifier (an
// alias `!t = index` in such an array, a defect not found yet) is caught
// (llvm::CrashRecoveryContext) and reported as an error naming the file,
// without the exact place. Either way the tool exits with status 1, not a
// signal. Where a later MLIR fixes one, its check here can go.
//
//===----------------------------------------------------------------------===//
#ifndef JFA_COMPILER_SAFEPARSE_H
#define JFA_COMPILER_SAFEPARSE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SourceMgr.h"

#include <string>

namespace mlir {
class Block;
class AsmParserState;
class DialectRegistry;
} // namespace mlir

namespace jfa {

/// Reports brackets nested too deep, else each dense array of `index`
/// written out, in `sourceMgr`'s buffer `bufferId` (outside comments and
/// string literals) as an error at its location, through `context`'s
/// diagnostic handler. Fails if there is one.
mlir::LogicalResult rejectParserCrashes(llvm::SourceMgr &sourceMgr,
                                        unsigned bufferId,
                                        mlir::MLIRContext *context);

/// Reports each op under `root` (root included) that an upstream verifier
/// would crash on, before `mlir::verify` runs. Fails if there is one.
mlir::LogicalResult rejectVerifierCrashes(mlir::Operation *root);

/// parseSourceFile<ModuleOp> of the main buffer, and mlir::verify, guarded
/// as above: null after an error reported through `context`'s handler.
mlir::OwningOpRef<mlir::ModuleOp> parseModuleSafely(llvm::SourceMgr &sourceMgr,
                                                    mlir::MLIRContext *context);

/// The same for a parse into `block` that keeps the parser's state (as
/// jfa-interp does, to name values as the source does). The ops are not
/// verified: the caller verifies them once they sit in their module (a
/// crash there is not caught). Fails after an error reported through
/// `context`'s handler.
mlir::LogicalResult parseBlockSafely(llvm::SourceMgr &sourceMgr,
                                     mlir::Block *block,
                                     mlir::MLIRContext *context,
                                     mlir::AsmParserState *state);

/// For a driver that hands its whole input to MlirOptMain: parses and
/// verifies each part of `input` that MlirOptMain will (split at
/// `splitMarker` as mlir::splitAndProcessBuffer splits; the whole input
/// when it is empty), guarded as above, in a context of its own built from
/// `registry`. Prints what it finds to stderr, located in `input`, and
/// returns in `sanitized` the input with each such part blanked (lines
/// kept), for MlirOptMain to run on the rest. Fails if anything was found.
mlir::LogicalResult checkInputSafety(const llvm::MemoryBuffer &input,
                                     llvm::StringRef splitMarker,
                                     const mlir::DialectRegistry &registry,
                                     bool allowUnregisteredDialects,
                                     std::string &sanitized);

} // namespace jfa

#endif // JFA_COMPILER_SAFEPARSE_H
