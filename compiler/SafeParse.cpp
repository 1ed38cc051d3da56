//===- SafeParse.cpp - parsing past MLIR 22's own crashes -----------------===//

#include "compiler/SafeParse.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

using namespace mlir;

namespace jfa {

namespace {

bool isIdentifierChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.';
}

/// The offset of each `array<index` in `text`, skipping `//` comments and
/// string literals (whitespace may stand between the three tokens).
SmallVector<size_t> findIndexArrays(StringRef text) {
  SmallVector<size_t> found;
  size_t i = 0, n = text.size();
  auto skipSpace = [&](size_t j) {
    while (j < n && llvm::isSpace(text[j]))
      ++j;
    return j;
  };
  while (i < n) {
    char c = text[i];
    if (c == '/' && i + 1 < n && text[i + 1] == '/') {
      i = text.find('\n', i);
      if (i == StringRef::npos)
        break;
      continue;
    }
    if (c == '"') {
      for (++i; i < n && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\')
          ++i;
      ++i;
      continue;
    }
    if (text.substr(i).starts_with("array") &&
        (i == 0 || !isIdentifierChar(text[i - 1]))) {
      size_t j = skipSpace(i + 5);
      if (j < n && text[j] == '<') {
        j = skipSpace(j + 1);
        if (text.substr(j).starts_with("index") &&
            (j + 5 == n || !isIdentifierChar(text[j + 5])))
          found.push_back(i);
      }
      i += 5;
      continue;
    }
    ++i;
  }
  return found;
}

} // namespace

LogicalResult rejectParserCrashes(llvm::SourceMgr &sourceMgr, unsigned bufferId,
                                  MLIRContext *context) {
  const llvm::MemoryBuffer *buffer = sourceMgr.getMemoryBuffer(bufferId);
  SmallVector<size_t> found = findIndexArrays(buffer->getBuffer());
  for (size_t offset : found) {
    auto [line, column] = sourceMgr.getLineAndColumn(
        llvm::SMLoc::getFromPointer(buffer->getBufferStart() + offset),
        bufferId);
    emitError(FileLineColLoc::get(context, buffer->getBufferIdentifier(), line,
                                  column))
        << "a dense array holds integer or float elements, not 'index': "
           "write array<i64: ...>";
  }
  return failure(!found.empty());
}

LogicalResult rejectVerifierCrashes(Operation *root) {
  bool bad = false;
  root->walk([&](tensor::ConcatOp concat) {
    IntegerAttr dim = concat.getProperties().dim;
    if (dim && dim.getValue().isNegative()) {
      concat.emitOpError("concatenation dim must be non-negative, got ")
          << dim.getInt();
      bad = true;
    }
  });
  return failure(bad);
}

OwningOpRef<ModuleOp> parseModuleSafely(llvm::SourceMgr &sourceMgr,
                                        MLIRContext *context) {
  if (failed(
          rejectParserCrashes(sourceMgr, sourceMgr.getMainFileID(), context)))
    return {};
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(
      sourceMgr, ParserConfig(context, /*verifyAfterParse=*/false));
  if (!module || failed(rejectVerifierCrashes(*module)) ||
      failed(verify(*module)))
    return {};
  return module;
}

LogicalResult parseBlockSafely(llvm::SourceMgr &sourceMgr, Block *block,
                               MLIRContext *context, AsmParserState *state) {
  if (failed(
          rejectParserCrashes(sourceMgr, sourceMgr.getMainFileID(), context)))
    return failure();
  if (failed(parseAsmSourceFile(
          sourceMgr, block, ParserConfig(context, /*verifyAfterParse=*/false),
          state)))
    return failure();
  // Verified by the caller, once the ops are in their module.
  for (Operation &op : *block)
    if (failed(rejectVerifierCrashes(&op)))
      return failure();
  return success();
}

LogicalResult checkInputSafety(const llvm::MemoryBuffer &input,
                               StringRef splitMarker,
                               const DialectRegistry &registry) {
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.printOpOnDiagnostic(false);
  // Errors are reported against the input itself.
  llvm::SourceMgr reportMgr;
  reportMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(input.getMemBufferRef(),
                                       /*RequiresNullTerminator=*/false),
      llvm::SMLoc());
  SourceMgrDiagnosticHandler report(reportMgr, &context);
  if (failed(
          rejectParserCrashes(reportMgr, reportMgr.getMainFileID(), &context)))
    return failure();

  // Each chunk is parsed at its own place: the rest of the input blanked
  // out, lines kept, so that locations are the input's.
  StringRef text = input.getBuffer();
  SmallVector<std::pair<size_t, size_t>> chunks;
  if (splitMarker.empty()) {
    chunks.push_back({0, text.size()});
  } else {
    size_t begin = 0;
    for (size_t at = text.find(splitMarker); at != StringRef::npos;
         at = text.find(splitMarker, at + splitMarker.size())) {
      chunks.push_back({begin, at});
      begin = at + splitMarker.size();
    }
    chunks.push_back({begin, text.size()});
  }
  bool bad = false;
  for (auto [begin, end] : chunks) {
    std::string blanked = text.str();
    for (size_t i = 0; i < blanked.size(); ++i)
      if ((i < begin || i >= end) && blanked[i] != '\n')
        blanked[i] = ' ';
    llvm::SourceMgr chunkMgr;
    chunkMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(
                                    blanked, input.getBufferIdentifier()),
                                llvm::SMLoc());
    OwningOpRef<ModuleOp> module;
    {
      // The parser's own errors are MlirOptMain's to report (or to match
      // against expected-error).
      ScopedDiagnosticHandler quiet(&context,
                                    [](Diagnostic &) { return success(); });
      module = parseSourceFile<ModuleOp>(
          chunkMgr, ParserConfig(&context, /*verifyAfterParse=*/false));
    }
    if (module && failed(rejectVerifierCrashes(*module)))
      bad = true;
  }
  return failure(bad);
}

} // namespace jfa
