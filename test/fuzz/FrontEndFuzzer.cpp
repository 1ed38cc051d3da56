//===- FrontEndFuzzer.cpp - libFuzzer target: jfac's compile, no ptxas ----===//
//
// One input is a kernel source. It is parsed, verified, and, when it holds a
// jfa.kernel, specialized (parameters at their defaults) and lowered by
// JFA's whole MLIR pipeline and translated to LLVM IR
// and PTX in process, for both targets, as `jfac compile --emit=ptx` does.
// Diagnostics are the expected outcome for most inputs and are dropped; a
// crash, an assertion, or an address or undefined-behaviour sanitizer report
// is a bug. Built by scripts/fuzz.sh (clang, -DJFA_FUZZ=ON); see
// docs/FUZZING.md.
//
//===----------------------------------------------------------------------===//
#include "JFA/JFAOps.h"
#include "compiler/Pipeline.h"
#include "compiler/SafeParse.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cstddef>
#include <cstdint>

using namespace mlir;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // One context for the whole run: loading the dialects dominates otherwise.
  static MLIRContext *context = [] {
    DialectRegistry registry;
    jfa::registerDialects(registry);
    auto *ctx = new MLIRContext(registry, MLIRContext::Threading::DISABLED);
    ctx->loadAllAvailableDialects();
    ctx->printOpOnDiagnostic(false);
    return ctx;
  }();
  ScopedDiagnosticHandler dropDiagnostics(
      context, [](Diagnostic &) { return success(); });

  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, "fuzz.mlir"), llvm::SMLoc());
  // As the tools parse: past the inputs MLIR 22's parser and verifiers
  // crash on (compiler/SafeParse.h).
  OwningOpRef<ModuleOp> module = jfa::parseModuleSafely(sourceMgr, context);
  if (!module || module->getOps<jfa::KernelOp>().empty())
    return 0;
  // As jfac does: helpers inlined, parameters at their defaults, replicated
  // tasks expanded, before the metadata and the lowering look at it.
  if (failed(jfa::specialize(*module, {})))
    return 0;
  FailureOr<bool> scheduleForRegisters = jfa::takeSchedulingRequest(*module);
  if (failed(scheduleForRegisters))
    return 0;
  for (const jfa::Target &t : jfa::kTargets) {
    const jfa::Target *target = &t; // every target of Targets.def
    OwningOpRef<ModuleOp> copy = module->clone();
    jfa::CompileOptions options;
    options.target = target;
    options.optLevel = 1;
    options.scheduleForRegisters = *scheduleForRegisters;
    (void)jfa::buildMetadata(*copy, *target);
    if (failed(jfa::lowerToLLVMDialect(*copy, options)))
      continue;
    std::string llvmIR, ptx;
    (void)jfa::translateToLLVMIR(*copy, options, llvmIR, ptx);
  }
  return 0;
}
