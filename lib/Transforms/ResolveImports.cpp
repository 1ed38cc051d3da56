//===- ResolveImports.cpp - copy in the helpers of imported files ---------===//
//
// `jfa.import "../lib/work_queue.mlir"` names a file of device helpers
// (kernels/lib/): this pass parses it in the module's context and copies its
// jfa.func ops into the module, so that jfa-inline-helpers, which runs next,
// finds them as if written in the kernel's file. The copies keep the
// imported file's locations: a diagnostic in a helper points into the
// library, "called from" the kernel's call.
//
// Every failure is an error at the import (file:line:col of the jfa.import
// op), with notes for what it is about: where the file was looked for, the
// parser's message at its line in the imported file, the chain of a cycle,
// both definitions of a helper named twice.
//
//===----------------------------------------------------------------------===//
#include "compiler/FileIO.h"
#include "compiler/SafeParse.h"
#include "lib/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

namespace jfa {
#define GEN_PASS_DEF_JFARESOLVEIMPORTS
#include "lib/Transforms/Passes.h.inc"

std::vector<std::string> &importSearchPaths() {
  static std::vector<std::string> paths;
  return paths;
}
} // namespace jfa

using namespace mlir;
using namespace jfa;
namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

namespace {

/// The file `loc` points into (its first file:line:col), or "".
std::string fileOf(Location loc) {
  std::string file;
  loc->walk([&](Location inner) {
    if (auto fileLoc = dyn_cast<FileLineColLoc>(inner)) {
      file = fileLoc.getFilename().str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return file;
}

/// `p` with "." and ".." removed, as it is shown in diagnostics and
/// locations ("kernels/jagged_attention/../lib/x.mlir" is
/// "kernels/lib/x.mlir").
std::string clean(const llvm::Twine &p) {
  llvm::SmallString<256> text;
  p.toVector(text);
  path::remove_dots(text, /*remove_dot_dot=*/true);
  return std::string(text);
}

/// What identifies a file however it is named: its real path where it has
/// one.
std::string identity(llvm::StringRef file) {
  llvm::SmallString<256> real;
  if (fs::real_path(file, real))
    return clean(file);
  return std::string(real);
}

class Resolver {
public:
  Resolver(ModuleOp module, ArrayRef<std::string> dirs)
      : module(module), dirs(dirs.begin(), dirs.end()) {}

  LogicalResult run() {
    SmallVector<ImportOp> imports(module.getOps<ImportOp>());
    if (imports.empty())
      return success();
    // The importing file: where its imports were parsed from.
    std::string main = fileOf(imports.front().getLoc());
    stack.push_back({identity(main), main, ImportOp()});
    for (Operation &op : module.getBody()->getOperations())
      if (auto name =
              op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()))
        defined.try_emplace(name.getValue(), op.getLoc());
    for (ImportOp import : imports) {
      OpBuilder builder(import);
      if (failed(resolve(import, builder)))
        return failure();
    }
    for (ImportOp import : imports)
      import.erase();
    // The files the module's helpers came from (the metadata's "imports").
    SmallVector<Attribute> files;
    for (const std::string &file : order)
      files.push_back(StringAttr::get(module.getContext(), file));
    module->setAttr("jfa.imports", ArrayAttr::get(module.getContext(), files));
    return success();
  }

private:
  struct Frame {
    std::string id;    // identity()
    std::string shown; // the path as found
    ImportOp import;   // the import that brought it (null for the main file)
  };

  InFlightDiagnostic error(ImportOp import) {
    return emitError(import.getLoc());
  }
  /// For an import inside an imported file: a note at each import that led
  /// to it, innermost first.
  void noteChain(InFlightDiagnostic &diag) {
    for (Frame &frame : llvm::reverse(stack))
      if (frame.import)
        diag.attachNote(frame.import.getLoc())
            << "\"" << frame.shown << "\" is imported here";
  }

  /// Where `import` names a file: its path, or "" with `tried` the places
  /// looked in.
  std::string find(ImportOp import, SmallVectorImpl<std::string> &tried) {
    llvm::StringRef name = import.getPath();
    auto exists = [](const std::string &p) { return fs::exists(p); };
    if (path::is_absolute(name)) {
      tried.push_back(clean(name));
      return exists(tried.back()) ? tried.back() : "";
    }
    std::string from = fileOf(import.getLoc());
    llvm::SmallString<256> here(path::parent_path(from));
    path::append(here, name);
    tried.push_back(clean(here));
    if (exists(tried.back()))
      return tried.back();
    for (const std::string &dir : dirs) {
      llvm::SmallString<256> candidate(dir);
      path::append(candidate, name);
      tried.push_back(clean(candidate));
      if (exists(tried.back()))
        return tried.back();
    }
    return "";
  }

  LogicalResult resolve(ImportOp import, OpBuilder &builder) {
    MLIRContext *context = module.getContext();
    SmallVector<std::string> tried;
    std::string file = find(import, tried);
    if (file.empty()) {
      InFlightDiagnostic diag = error(import);
      diag << "cannot find the imported file \"" << import.getPath()
           << "\"; looked for it as ";
      llvm::interleave(
          tried, [&](const std::string &p) { diag << "'" << p << "'"; },
          [&] { diag << ", "; });
      if (!path::is_absolute(import.getPath()))
        diag << " (a relative path is looked for beside the importing file, "
                "then in each -I folder)";
      noteChain(diag);
      return diag;
    }
    std::string id = identity(file);
    for (auto [i, frame] : llvm::enumerate(stack)) {
      if (frame.id != id)
        continue;
      InFlightDiagnostic diag = error(import);
      diag << "import cycle: ";
      for (const Frame &link : llvm::drop_begin(stack, i))
        diag << "\"" << link.shown << "\" imports ";
      diag << "\"" << file << "\" again";
      noteChain(diag);
      return diag;
    }
    if (done.contains(id))
      return success(); // each file once

    fs::file_status status;
    std::string problem;
    if (std::error_code ec = fs::status(file, status))
      problem = "cannot read it: " + ec.message();
    else if (fs::is_directory(status))
      problem = "it is a directory, not a file";
    else if (!fs::is_regular_file(status))
      problem = "it is not a regular file";
    std::unique_ptr<llvm::MemoryBuffer> buffer;
    if (problem.empty()) {
      // Through the tools' reader: a generated file (procfs) that reports
      // 0 bytes is read to its end, not taken for an empty one.
      std::string error;
      buffer = readInputFile(file, error);
      if (!buffer) {
        // "<file>: <problem>": the import's message names the file itself.
        StringRef reason(error);
        reason.consume_front(file + ": ");
        problem = reason.str();
      }
    }
    if (!buffer) {
      InFlightDiagnostic diag = error(import);
      diag << "cannot import '" << file << "': " << problem;
      noteChain(diag);
      return diag;
    }

    // Parse (and verify) it in this context, its diagnostics kept to be
    // reported as notes of the import's error.
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
    struct Message {
      Location loc;
      std::string text;
    };
    SmallVector<Message> messages;
    OwningOpRef<ModuleOp> library;
    {
      ScopedDiagnosticHandler collect(context, [&](Diagnostic &d) {
        messages.push_back({d.getLocation(), d.str()});
        for (Diagnostic &note : d.getNotes())
          messages.push_back({note.getLocation(), note.str()});
        return success();
      });
      library = parseModuleSafely(sourceMgr, context);
    }
    if (!library) {
      InFlightDiagnostic diag = error(import);
      diag << "cannot import '" << file << "': it does not parse";
      for (const Message &m : messages)
        diag.attachNote(m.loc) << m.text;
      noteChain(diag);
      return diag;
    }
    for (Operation &op : library->getBody()->getOperations()) {
      if (isa<FuncOp, ImportOp>(op))
        continue;
      InFlightDiagnostic diag = error(import);
      diag << "cannot import '" << file
           << "': an imported file holds only helpers (jfa.func) and "
              "imports (jfa.import), and it has a '"
           << op.getName() << "'";
      if (isa<KernelOp>(op))
        diag << " (a kernel is compiled from its own file)";
      diag.attachNote(op.getLoc()) << "the '" << op.getName() << "' is here";
      noteChain(diag);
      return diag;
    }

    // Its own imports first (relative to it), then its helpers.
    stack.push_back({id, file, import});
    for (ImportOp inner : library->getOps<ImportOp>())
      if (failed(resolve(inner, builder)))
        return failure();
    stack.pop_back();
    done.insert(id);
    order.push_back(file);
    for (FuncOp helper : library->getOps<FuncOp>()) {
      auto [it, fresh] =
          defined.try_emplace(helper.getSymName(), helper.getLoc());
      if (!fresh) {
        InFlightDiagnostic diag = error(import);
        diag << "@" << helper.getSymName() << " is defined twice: '" << file
             << "' defines a helper of that name and so does the module or "
                "another imported file";
        diag.attachNote(it->second)
            << "@" << helper.getSymName() << " is defined here";
        diag.attachNote(helper.getLoc())
            << "and again here, in '" << file << "'";
        noteChain(diag);
        return diag;
      }
      builder.clone(*helper);
    }
    return success();
  }

  ModuleOp module;
  SmallVector<std::string> dirs;
  /// The importing file, then the files being imported, outermost first.
  SmallVector<Frame> stack;
  /// The files already copied in (by identity), and in what order.
  llvm::StringSet<> done;
  SmallVector<std::string> order;
  /// Every symbol of the module: name -> where it is defined.
  llvm::StringMap<Location> defined;
};

struct ResolveImportsPass
    : jfa::impl::JFAResolveImportsBase<ResolveImportsPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<std::string> dirs(includeDirs.begin(), includeDirs.end());
    llvm::append_range(dirs, importSearchPaths());
    if (failed(Resolver(getOperation(), dirs).run()))
      signalPassFailure();
  }
};

} // namespace
