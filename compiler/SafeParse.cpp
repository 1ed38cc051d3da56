//===- SafeParse.cpp - parsing past MLIR 22's own crashes -----------------===//

#include "compiler/SafeParse.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/CrashRecoveryContext.h"

using namespace mlir;

namespace jfa {

static bool isIdentifierChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.';
}

/// The first offset at or after `i` that is neither whitespace nor in a
/// `//` comment: what MLIR's lexer skips between two tokens.
static size_t skipTrivia(StringRef text, size_t i) {
  while (i < text.size()) {
    if (llvm::isSpace(text[i])) {
      ++i;
    } else if (text.substr(i).starts_with("//")) {
      i = text.find('\n', i);
      if (i == StringRef::npos)
        return text.size();
    } else {
      break;
    }
  }
  return i;
}

/// If a `//` comment or a string literal starts at `i` in `text`, the
/// offset just past it (a comment ends at its newline); else `i`.
static size_t skipCommentOrString(StringRef text, size_t i) {
  size_t n = text.size();
  if (text.substr(i).starts_with("//"))
    return std::min(text.find('\n', i), n);
  if (i < n && text[i] == '"') {
    for (++i; i < n && text[i] != '"' && text[i] != '\n'; ++i)
      if (text[i] == '\\')
        ++i;
    return std::min(i + 1, n);
  }
  return i;
}

/// The offset of each `array<index` in `text` (comments between the
/// tokens), skipping `//` comments and string literals.
static SmallVector<size_t> findIndexArrays(StringRef text) {
  SmallVector<size_t> found;
  size_t i = 0, n = text.size();
  while (i < n) {
    if (size_t past = skipCommentOrString(text, i); past != i) {
      i = past;
      continue;
    }
    if (text.substr(i).starts_with("array") &&
        (i == 0 || !isIdentifierChar(text[i - 1])) &&
        (i + 5 == n || !isIdentifierChar(text[i + 5]))) {
      size_t j = skipTrivia(text, i + 5);
      if (j < n && text[j] == '<') {
        j = skipTrivia(text, j + 1);
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

/// How deep brackets may nest: MLIR's parser recurses once a level, and
/// past a few thousand levels (an attribute of nested `[`, nested regions,
/// types) it overflows the stack, which no handler survives. Kernels nest a
/// few dozen levels.
static constexpr unsigned kMaxNesting = 512;

/// The offset of the first bracket (`(`, `[`, `{`, `<`) that opens level
/// kMaxNesting + 1 in `text`, outside comments and strings (`->` closes
/// nothing), if any.
static std::optional<size_t> findDeepNesting(StringRef text) {
  unsigned depth = 0;
  size_t i = 0, n = text.size();
  while (i < n) {
    if (size_t past = skipCommentOrString(text, i); past != i) {
      i = past;
      continue;
    }
    char c = text[i];
    if (c == '(' || c == '[' || c == '{' || c == '<') {
      if (++depth > kMaxNesting)
        return i;
    } else if ((c == ')' || c == ']' || c == '}' ||
                (c == '>' && (i == 0 || text[i - 1] != '-'))) &&
               depth > 0) {
      --depth;
    }
    ++i;
  }
  return std::nullopt;
}

/// Reports, each at `at(offset)`, brackets nested too deep in `text`, else
/// each dense array of `index` written out in it. True if it reported one.
static bool reportTextCrashes(StringRef text,
                              llvm::function_ref<Location(size_t)> at) {
  if (std::optional<size_t> deep = findDeepNesting(text)) {
    emitError(at(*deep)) << "brackets nest more than " << kMaxNesting
                         << " levels deep here: MLIR's parser would "
                            "overflow its stack";
    return true;
  }
  SmallVector<size_t> found = findIndexArrays(text);
  for (size_t offset : found)
    emitError(at(offset)) << "a dense array holds integer or float elements, "
                             "not 'index': write array<i64: ...>";
  return !found.empty();
}

/// The tensor.concat ops under `root` whose dim is negative (one that is
/// not a signless i64 the op's own verifier refuses first, with a message).
static SmallVector<tensor::ConcatOp> negativeConcats(Operation *root) {
  SmallVector<tensor::ConcatOp> found;
  root->walk([&](tensor::ConcatOp concat) {
    IntegerAttr dim = concat.getDimAttr();
    if (dim && dim.getType().isSignlessInteger(64) &&
        dim.getValue().isNegative())
      found.push_back(concat);
  });
  return found;
}

static std::string negativeConcatMessage(int64_t dim) {
  return "concatenation dim must be non-negative, got " + std::to_string(dim);
}

/// Runs `fn`, catching a crash (a signal) in it: true when it ran to its
/// end. What the crash interrupted is left as it was: leak it, do not
/// destroy it.
static bool runGuarded(llvm::function_ref<void()> fn) {
  llvm::CrashRecoveryContext::Enable();
  llvm::CrashRecoveryContext recovery;
  return recovery.RunSafely(fn);
}

static void reportCrash(Location loc) {
  emitError(loc) << "MLIR 22's own parser or verifier crashed on this input: "
                    "it is malformed somewhere here in a way MLIR does not "
                    "report (a dense array of 'index' through a type alias "
                    "is one)";
}

static Location bufferStart(llvm::SourceMgr &sourceMgr, unsigned bufferId,
                            MLIRContext *context) {
  return FileLineColLoc::get(
      context, sourceMgr.getMemoryBuffer(bufferId)->getBufferIdentifier(), 1,
      1);
}

LogicalResult rejectParserCrashes(llvm::SourceMgr &sourceMgr, unsigned bufferId,
                                  MLIRContext *context) {
  const llvm::MemoryBuffer *buffer = sourceMgr.getMemoryBuffer(bufferId);
  auto at = [&](size_t offset) -> Location {
    auto [line, column] = sourceMgr.getLineAndColumn(
        llvm::SMLoc::getFromPointer(buffer->getBufferStart() + offset),
        bufferId);
    return FileLineColLoc::get(context, buffer->getBufferIdentifier(), line,
                               column);
  };
  return failure(reportTextCrashes(buffer->getBuffer(), at));
}

LogicalResult rejectVerifierCrashes(Operation *root) {
  SmallVector<tensor::ConcatOp> found = negativeConcats(root);
  for (tensor::ConcatOp concat : found)
    concat.emitOpError(negativeConcatMessage(concat.getDimAttr().getInt()));
  return failure(!found.empty());
}

OwningOpRef<ModuleOp> parseModuleSafely(llvm::SourceMgr &sourceMgr,
                                        MLIRContext *context) {
  unsigned id = sourceMgr.getMainFileID();
  if (failed(rejectParserCrashes(sourceMgr, id, context)))
    return {};
  OwningOpRef<ModuleOp> module;
  bool valid = false;
  bool finished = runGuarded([&] {
    module = parseSourceFile<ModuleOp>(
        sourceMgr, ParserConfig(context, /*verifyAfterParse=*/false));
    valid = module && succeeded(rejectVerifierCrashes(*module)) &&
            succeeded(verify(*module));
  });
  if (!finished) {
    (void)module.release();
    reportCrash(bufferStart(sourceMgr, id, context));
    return {};
  }
  if (!valid)
    return {};
  return module;
}

LogicalResult parseBlockSafely(llvm::SourceMgr &sourceMgr, Block *block,
                               MLIRContext *context, AsmParserState *state) {
  unsigned id = sourceMgr.getMainFileID();
  if (failed(rejectParserCrashes(sourceMgr, id, context)))
    return failure();
  bool valid = false;
  bool finished = runGuarded([&] {
    if (failed(parseAsmSourceFile(
            sourceMgr, block, ParserConfig(context, /*verifyAfterParse=*/false),
            state)))
      return;
    valid = true;
    for (Operation &op : *block)
      if (failed(rejectVerifierCrashes(&op)))
        valid = false;
  });
  if (!finished) {
    while (!block->empty())
      block->front().remove(); // leaked, not destroyed
    reportCrash(bufferStart(sourceMgr, id, context));
    return failure();
  }
  return success(valid);
}

/// The parts of `text` that MLIR 22's splitAndProcessBuffer hands on one
/// at a time (ToolUtilities.cpp): split at `marker` less its last two
/// characters, a part kept apart only when they follow and do not start a
/// `0`, an empty first part merged with the next.
static SmallVector<StringRef> splitLikeMlir(StringRef text, StringRef marker) {
  if (marker.empty())
    return {text};
  constexpr size_t checkLen = 2;
  SmallVector<StringRef> raw, parts;
  text.split(raw, marker.drop_back(checkLen));
  StringRef prev;
  for (StringRef part : raw) {
    if (prev.empty()) {
      prev = part;
      continue;
    }
    if (part.starts_with(marker.take_back(checkLen)) &&
        part.size() > checkLen && part[checkLen] != '0') {
      parts.push_back(prev);
      prev = part.drop_front(checkLen);
    } else {
      prev = StringRef(prev.data(),
                       prev.size() + marker.size() - checkLen + part.size());
    }
  }
  if (!prev.empty())
    parts.push_back(prev);
  return parts;
}

LogicalResult checkInputSafety(const llvm::MemoryBuffer &input,
                               StringRef splitMarker,
                               const DialectRegistry &registry,
                               bool allowUnregisteredDialects,
                               std::string &sanitized) {
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.allowUnregisteredDialects(allowUnregisteredDialects);
  context.printOpOnDiagnostic(false);
  StringRef name = input.getBufferIdentifier();
  // Reports go against the input itself: the parts point into it.
  llvm::SourceMgr reportMgr;
  reportMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(input.getMemBufferRef(),
                                       /*RequiresNullTerminator=*/false),
      llvm::SMLoc());
  SourceMgrDiagnosticHandler report(reportMgr, &context);
  auto lineAndColumn = [&](const char *at) {
    return reportMgr.getLineAndColumn(llvm::SMLoc::getFromPointer(at));
  };

  StringRef text = input.getBuffer();
  sanitized = text.str();
  bool bad = false;
  for (StringRef part : splitLikeMlir(text, splitMarker)) {
    bool partBad = reportTextCrashes(part, [&](size_t offset) -> Location {
      auto [line, column] = lineAndColumn(part.data() + offset);
      return FileLineColLoc::get(&context, name, line, column);
    });
    // The part parsed alone (its own copy, null-terminated), its locations
    // moved to where it stands in the input.
    auto [firstLine, firstColumn] = lineAndColumn(part.data());
    auto inInput = [&, firstLine = firstLine,
                    firstColumn = firstColumn](Location loc) -> Location {
      auto at = dyn_cast<FileLineColLoc>(loc);
      if (!at)
        return FileLineColLoc::get(&context, name, firstLine, firstColumn);
      unsigned line = at.getLine(), column = at.getColumn();
      return FileLineColLoc::get(&context, name, firstLine + line - 1,
                                 line == 1 ? firstColumn + column - 1 : column);
    };
    if (!partBad) {
      llvm::SourceMgr partMgr;
      partMgr.AddNewSourceBuffer(
          llvm::MemoryBuffer::getMemBufferCopy(part, name), llvm::SMLoc());
      OwningOpRef<ModuleOp> module;
      SmallVector<std::pair<Location, int64_t>> concats;
      bool finished;
      {
        // The parser's and the verifier's own errors are MlirOptMain's to
        // report (or to match against expected-error).
        ScopedDiagnosticHandler quiet(&context,
                                      [](Diagnostic &) { return success(); });
        finished = runGuarded([&] {
          module = parseSourceFile<ModuleOp>(
              partMgr, ParserConfig(&context, /*verifyAfterParse=*/false));
          if (!module)
            return;
          for (tensor::ConcatOp concat : negativeConcats(*module))
            concats.push_back({concat.getLoc(), concat.getDimAttr().getInt()});
          if (concats.empty())
            (void)verify(*module);
        });
      }
      if (!finished) {
        (void)module.release();
        reportCrash(inInput(Location(UnknownLoc::get(&context))));
        partBad = true;
      } else if (!concats.empty()) {
        for (auto [loc, dim] : concats)
          emitError(inInput(loc))
              << "'tensor.concat' op " << negativeConcatMessage(dim);
        partBad = true;
      }
    }
    if (partBad) {
      bad = true;
      size_t begin = part.data() - text.data();
      for (size_t i = begin; i < begin + part.size(); ++i)
        if (sanitized[i] != '\n')
          sanitized[i] = ' ';
    }
  }
  return failure(bad);
}

} // namespace jfa
