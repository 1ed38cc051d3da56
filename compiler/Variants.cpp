//===- Variants.cpp - -P values against a kernel's jfa-variants header ----===//
//
// jfac and jfa-interp refuse a compile-time parameter value that the
// kernel's `// jfa-variants:` header does not list for that parameter.
//
//===----------------------------------------------------------------------===//
#include "compiler/Variants.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;

namespace {
/// The values a kernel file's `// jfa-variants:` lines list for one
/// parameter, and the line (from 1) that lists them.
struct ListedParam {
  llvm::SmallVector<std::string> values;
  unsigned line = 0;
};
} // namespace

/// Reads the `// jfa-variants: NAME=V1,V2 ...` lines of the kernel file's
/// header comment (the lines before the first that is not a `//` comment)
/// with scripts/kernel_variants.py's grammar: items apart by white space,
/// each NAME=V1,V2,... with no empty value, each name on one item only.
/// Reports a malformed line at its file:line.
static LogicalResult readVariantsHeader(const llvm::MemoryBuffer &buffer,
                                        MLIRContext *context,
                                        llvm::StringMap<ListedParam> &listed) {
  llvm::StringRef prefix = "// jfa-variants:";
  llvm::SmallVector<llvm::StringRef> lines;
  buffer.getBuffer().split(lines, '\n');
  for (auto [index, rawLine] : llvm::enumerate(lines)) {
    llvm::StringRef line = rawLine.trim();
    if (!line.starts_with("//"))
      break; // only the header comment
    if (!line.consume_front(prefix))
      continue;
    auto at = FileLineColLoc::get(context, buffer.getBufferIdentifier(),
                                  unsigned(index) + 1, 1);
    llvm::SmallVector<llvm::StringRef> items;
    llvm::SplitString(line, items);
    for (llvm::StringRef item : items) {
      auto [name, values] = item.split('=');
      llvm::SmallVector<llvm::StringRef> split;
      values.split(split, ',');
      if (!item.contains('=') || name.empty() || values.empty() ||
          llvm::is_contained(split, "")) {
        emitError(at) << "'" << item
                      << "' in the jfa-variants line is not NAME=V1,V2,...";
        return failure();
      }
      ListedParam &param = listed[name];
      if (param.line) {
        emitError(at) << "parameter '" << name
                      << "' is listed twice in the jfa-variants lines";
        return failure();
      }
      param.line = unsigned(index) + 1;
      for (llvm::StringRef value : split)
        param.values.push_back(value.str());
    }
  }
  return success();
}

LogicalResult jfa::checkListedParams(const llvm::MemoryBuffer &buffer,
                                     MLIRContext *context,
                                     llvm::ArrayRef<std::string> given) {
  llvm::StringMap<ListedParam> listed;
  if (failed(readVariantsHeader(buffer, context, listed)))
    return failure();
  for (llvm::StringRef param : given) {
    auto [name, value] = param.split('=');
    auto it = listed.find(name);
    if (!param.contains('=') || it == listed.end() ||
        llvm::is_contained(it->second.values, value))
      continue; // malformed: jfa-specialize reports it
    emitError(FileLineColLoc::get(context, buffer.getBufferIdentifier(),
                                  it->second.line, 1))
        << "-P " << param
        << " is not one of the values the kernel's jfa-variants line allows ("
        << llvm::join(it->second.values, ", ") << ")";
    return failure();
  }
  return success();
}
