//===- InterpArgsFuzzer.cpp - libFuzzer target: jfa-interp's arguments ----===//
//
// One input is a .npy file and the text of the scalar arguments:
//
//   <npy bytes> "\0JFA\0" <i32 text> "\0" <f32 text> "\0" <i64 text>
//
// (without the separator, all of it is the .npy file and the scalars are
// fixed). The .npy goes to a temporary file and jfa-interp's argument
// loading reads it for a TMA parameter and a pointer parameter, parses the
// scalars, runs an empty kernel and writes the tensors back; a file it read
// is read back and must hold the same array. Errors are the expected outcome
// for most inputs; a crash, an exception, a sanitizer report or a round trip
// that changes the array is a bug. Built by scripts/fuzz.sh; see
// docs/FUZZING.md.
//
//===----------------------------------------------------------------------===//
#include "JFA/JFAOps.h"
#include "compiler/Pipeline.h"
#include "lib/Interpreter/Interpreter.h"
#include "lib/Interpreter/Npy.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <string>

using namespace mlir;

namespace {
const char *kKernel = R"mlir(
jfa.kernel @k(%x: !jfa.tma<8x8xf32>, %p: !jfa.ptr<f32>, %n: i32, %a: f32,
              %l: i64) warps(1) {
}
)mlir";
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static MLIRContext *context = [] {
    DialectRegistry registry;
    jfa::registerDialects(registry);
    auto *ctx = new MLIRContext(registry, MLIRContext::Threading::DISABLED);
    ctx->loadAllAvailableDialects();
    return ctx;
  }();
  static OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(kKernel, context);
  static std::string dir = [] {
    llvm::SmallString<128> path;
    if (llvm::sys::fs::createUniqueDirectory("jfa-interp-fuzz", path))
      std::abort();
    return std::string(path);
  }();
  if (!module)
    std::abort();
  ScopedDiagnosticHandler dropDiagnostics(
      context, [](Diagnostic &) { return success(); });

  std::string input(reinterpret_cast<const char *>(data), size);
  std::string npy = input;
  std::string scalars[3] = {"7", "0.5", "-3"};
  static const std::string kSeparator("\0JFA\0", 5);
  size_t at = input.find(kSeparator);
  if (at != std::string::npos) {
    npy = input.substr(0, at);
    std::string rest = input.substr(at + kSeparator.size());
    for (std::string &scalar : scalars) {
      size_t end = rest.find('\0');
      scalar = rest.substr(0, end);
      rest = end == std::string::npos ? "" : rest.substr(end + 1);
    }
  }
  std::string path = dir + "/arg.npy";
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    if (ec)
      std::abort();
    os << npy;
  }
  // readNpy alone, and the round trip through writeNpy.
  jfa::interp::NpyArray array;
  std::string error;
  if (jfa::interp::readNpy(path, array, error)) {
    std::string copy = dir + "/copy.npy";
    if (!jfa::interp::writeNpy(copy, array, error))
      std::abort();
    jfa::interp::NpyArray again;
    if (!jfa::interp::readNpy(copy, again, error) ||
        again.descr != array.descr || again.shape != array.shape ||
        again.data != array.data)
      std::abort();
  }
  // The whole argument loading, on the kernel above.
  jfa::interp::RunOptions options;
  options.args = {path, path, "i32:" + scalars[0], "f32:" + scalars[1],
                  "i64:" + scalars[2]};
  auto kernel = *module->getOps<jfa::KernelOp>().begin();
  (void)jfa::interp::runKernel(kernel, options);
  return 0;
}
