//===- Pipeline.cpp - the JFA compiler as a library
//-------------------------===//
#include "compiler/Pipeline.h"
#include "JFA/JFAOps.h"
#include "lib/Conversion/Passes.h"
#include "lib/Transforms/Passes.h"

#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"

#include <cstdlib>
#include <fmt/format.h>
#include <optional>

extern "C" {
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}

using namespace mlir;

namespace jfa {

namespace {
constexpr const char *kTriple = "nvptx64-nvidia-cuda";
} // namespace

void registerDialects(DialectRegistry &registry) {
  registry
      .insert<JFADialect, arith::ArithDialect, scf::SCFDialect,
              tensor::TensorDialect, vector::VectorDialect, math::MathDialect,
              cf::ControlFlowDialect, LLVM::LLVMDialect, NVVM::NVVMDialect>();
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}

void buildFrontEndPipeline(OpPassManager &pm, ArrayRef<std::string> params,
                           ArrayRef<std::string> includeDirs) {
  JFAResolveImportsOptions importOptions;
  importOptions.includeDirs = llvm::to_vector(includeDirs);
  pm.addPass(createJFAResolveImports(importOptions));
  pm.addPass(createJFAInlineHelpers());
  JFASpecializeOptions options;
  options.params = llvm::to_vector(params);
  pm.addPass(createJFASpecialize(options));
  pm.addPass(createJFAReplicateTasks());
}

LogicalResult specialize(ModuleOp module, ArrayRef<std::string> params,
                         ArrayRef<std::string> includeDirs) {
  // A kernel file's top level holds kernels, helpers and imports. Anything
  // else would reach the LLVM translation outside every function, where
  // an NVVM op crashed it (found by scripts/fuzz.sh).
  for (Operation &op : module.getBody()->getOperations())
    if (!isa<KernelOp, FuncOp, ImportOp>(op))
      return op.emitError()
             << "'" << op.getName()
             << "' cannot stand at the top level of a kernel file, which "
                "holds kernels (jfa.kernel), helpers (jfa.func) and imports "
                "(jfa.import): put it inside a kernel or a helper";
  PassManager pm(module.getContext());
  buildFrontEndPipeline(pm, params, includeDirs);
  return pm.run(module);
}

FailureOr<bool> takeSchedulingRequest(ModuleOp module) {
  std::optional<bool> choice;
  KernelOp chooser;
  for (KernelOp kernel : module.getOps<KernelOp>()) {
    bool asks = false;
    for (auto request : llvm::make_early_inc_range(
             kernel.getBodyBlock().getOps<ScheduleForRegistersOp>())) {
      asks = true;
      if (Value condition = request.getCondition()) {
        IntegerAttr value;
        if (!matchPattern(condition, m_Constant(&value)))
          return request.emitError()
                 << "the condition of jfa.schedule_for_registers must be "
                    "known at compile time: compute it from jfa.param "
                    "values and constants only";
        asks = !value.getValue().isZero();
      }
      request.erase();
    }
    if (choice && *choice != asks)
      return kernel.emitError()
             << "kernel '" << kernel.getSymName() << "' "
             << (asks ? "asks" : "does not ask")
             << " for register-pressure scheduling (jfa.schedule_for_"
                "registers) and kernel '"
             << chooser.getSymName() << "' in the same file "
             << (asks ? "does not" : "does")
             << "; code generation makes one choice per file: compile "
                "them from separate files";
    if (!choice) {
      choice = asks;
      chooser = kernel;
    }
  }
  return choice.value_or(false);
}

void buildLoweringPipeline(OpPassManager &pm, const Target *target,
                           bool debugBarriers, bool registerReport,
                           bool threadIndexAtUse) {
  if (target)
    pm.addPass(createJFACheckTarget(JFACheckTargetOptions{target->name}));
  pm.addPass(createJFACheckBarriers());
  pm.addPass(createJFAAllocateSharedMemory());
  pm.addPass(createJFADistributeTiles());
  if (registerReport)
    pm.addPass(createJFAReportRegisters());
  pm.addPass(createJFALowerAsyncTasks());
  pm.addPass(createCanonicalizerPass());
  // After the canonicalizer, so nothing folds the bounded spin.
  if (debugBarriers)
    pm.addPass(createJFADebugBarriers());
  pm.addPass(createJFAConvertToLLVM(JFAConvertToLLVMOptions{threadIndexAtUse}));
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  // Inline-PTX NVVM ops (mbarrier waits, fences, named barriers) become
  // llvm.inline_asm here.
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

namespace {
struct LowerToLLVMOptions : PassPipelineOptions<LowerToLLVMOptions> {
  Option<std::string> arch{*this, "arch",
                           llvm::cl::desc("Check the ops against this target "
                                          "(a name of Targets.def) first")};
  ListOption<std::string> params{
      *this, "params",
      llvm::cl::desc("NAME=VALUE for the kernel's compile-time parameters")};
  ListOption<std::string> includeDirs{
      *this, "include-dirs",
      llvm::cl::desc("Folders to look for imported files (jfa.import) in, "
                     "after the importing file's; jfa-opt's -I adds more")};
};
} // namespace

void registerPasses() {
  jfa::registerJFAPasses();
  jfa::registerJFAConversionPasses();
  registerCanonicalizerPass();
  registerCSEPass();
  registerConvertNVVMToLLVMPass();
  registerReconcileUnrealizedCastsPass();
  registerSCFToControlFlowPass();
  registerConvertVectorToLLVMPass();
  registerConvertMathToLLVMPass();
  registerArithToLLVMConversionPass();
  registerConvertControlFlowToLLVMPass();
  PassPipelineRegistration<LowerToLLVMOptions>(
      "jfa-lower-to-llvm",
      "the whole JFA -> LLVM/NVVM dialect pipeline jfac runs; "
      "`--jfa-lower-to-llvm=arch=sm_90a` checks the ops against a target "
      "first, as jfac does",
      [](OpPassManager &pm, const LowerToLLVMOptions &options) {
        buildFrontEndPipeline(pm, options.params, options.includeDirs);
        const Target *target = nullptr;
        if (!options.arch.empty())
          target = lookupTarget(options.arch);
        if (!options.arch.empty() && !target) {
          // jfa-check-target reports the unknown arch with the known ones.
          pm.addPass(createJFACheckTarget(JFACheckTargetOptions{options.arch}));
          return;
        }
        buildLoweringPipeline(pm, target);
      });
}

LogicalResult lowerToLLVMDialect(ModuleOp module,
                                 const CompileOptions &options) {
  PassManager pm(module.getContext());
  if (options.printIRAfterAll) {
    module.getContext()->disableMultithreading();
    pm.enableIRPrinting(/*shouldPrintBeforePass=*/nullptr,
                        /*shouldPrintAfterPass=*/
                        [](Pass *, Operation *) { return true; },
                        /*printModuleScope=*/true);
  }
  buildLoweringPipeline(pm, options.target, options.debugBarriers,
                        options.registerReport, options.threadIndexAtUse);
  return pm.run(module);
}

namespace {
/// An NVPTX boolean command-line option set for one compile and restored
/// when this goes out of scope.
class ScopedNVPTXOption {
public:
  ScopedNVPTXOption(llvm::cl::opt<bool> &option, bool value)
      : option(option), previous(option) {
    option.setValue(value);
  }
  ScopedNVPTXOption(const ScopedNVPTXOption &) = delete;
  ScopedNVPTXOption &operator=(const ScopedNVPTXOption &) = delete;
  ~ScopedNVPTXOption() { option.setValue(previous); }

private:
  llvm::cl::opt<bool> &option;
  bool previous;
};

/// Sets NVPTX's `-name` to `value` in `scoped`; an error on `module` when
/// the backend has no such option.
LogicalResult overrideNVPTXOption(ModuleOp module, llvm::StringRef name,
                                  bool value,
                                  std::optional<ScopedNVPTXOption> &scoped) {
  auto &registered = llvm::cl::getRegisteredOptions();
  auto found = registered.find(name);
  if (found == registered.end())
    return module.emitError()
           << "internal error: the NVPTX backend has no -" << name;
  scoped.emplace(*static_cast<llvm::cl::opt<bool> *>(found->second), value);
  return success();
}
} // namespace

namespace {
/// What the NVPTX backend's error handlers report and record: the
/// kernels (functions) of the module by name, with their locations.
struct BackendFailure {
  ModuleOp module;
  bool failed = false;
};

/// Reports `message` at the kernel `function` names (else at the module,
/// naming its kernels).
void reportBackendError(BackendFailure &failure, llvm::StringRef function,
                        llvm::StringRef message) {
  Location loc = failure.module.getLoc();
  std::string kernels;
  int count = 0;
  failure.module.walk([&](LLVM::LLVMFuncOp func) {
    if (func.isExternal())
      return;
    if (func.getName() == function || (function.empty() && count == 0))
      loc = func.getLoc();
    if (function.empty() && ++count == 2)
      loc = failure.module.getLoc();
    kernels += (kernels.empty() ? "'" : ", '") + func.getName().str() + "'";
  });
  if (!function.empty())
    kernels = "'" + function.str() + "'";
  emitError(loc) << "the NVPTX backend failed on kernel " << kernels << ": "
                 << message.trim()
                 << " (an op or type jfac's checks let through: please "
                    "report it with the kernel)";
  failure.failed = true;
}

void reportBackendDiagnostic(const llvm::DiagnosticInfo *info, void *context) {
  auto *failure = static_cast<BackendFailure *>(context);
  if (info->getSeverity() != llvm::DS_Error)
    return;
  std::string message;
  llvm::raw_string_ostream os(message);
  llvm::DiagnosticPrinterRawOStream printer(os);
  info->print(printer);
  llvm::StringRef function;
  if (auto *located = llvm::dyn_cast<llvm::DiagnosticInfoUnsupported>(info))
    function = located->getFunction().getName();
  reportBackendError(*failure, function, message);
}

/// LLVM's fatal errors (a failed instruction selection) abort with a stack
/// dump once their handler returns; this one reports and exits instead
/// (silently after an error already reported: one failure, one message).
void reportBackendFatalError(void *context, const char *reason,
                             bool /*genCrashDiag*/) {
  auto *failure = static_cast<BackendFailure *>(context);
  if (!failure->failed) {
    llvm::StringRef message(reason), function;
    size_t at = message.find("In function: ");
    if (at != llvm::StringRef::npos) {
      function = message.substr(at + 13).trim();
      message = message.substr(0, at);
    }
    // Selection DAG dumps follow the first line.
    reportBackendError(*failure, function, message.split('\n').first);
  }
  llvm::errs().flush();
  llvm::sys::RunInterruptHandlers();
  std::_Exit(1);
}
} // namespace

LogicalResult translateToLLVMIR(ModuleOp module, const CompileOptions &options,
                                std::string &llvmIRText, std::string &ptx) {
  static bool initialized = [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    return true;
  }();
  (void)initialized;

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "jfa");
  if (!llvmModule)
    return module.emitError() << "translation to LLVM IR failed";

  // NVPTX reads its scheduling preference and the width of shared-memory
  // pointers (the data layout's) from command-line options when the target
  // machine is made; set them for this compile only (a process-wide
  // setting: two translations must not run at once, as in Triton's
  // translation, which sets NVPTX options the same way).
  std::optional<ScopedNVPTXOption> sched4reg, shortPointers;
  if (failed(overrideNVPTXOption(module, "nvptx-sched4reg",
                                 options.scheduleForRegisters, sched4reg)) ||
      failed(overrideNVPTXOption(module, "nvptx-short-ptr",
                                 options.shortSharedPointers, shortPointers)))
    return failure();

  llvm::Triple triple(kTriple);
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return module.emitError() << "NVPTX backend unavailable: " << error;
  llvm::CodeGenOptLevel level =
      options.optLevel == 0   ? llvm::CodeGenOptLevel::None
      : options.optLevel == 1 ? llvm::CodeGenOptLevel::Less
      : options.optLevel == 2 ? llvm::CodeGenOptLevel::Default
                              : llvm::CodeGenOptLevel::Aggressive;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, options.target->name, options.target->ptxFeatures(),
      llvm::TargetOptions(), std::nullopt, std::nullopt, level));
  if (!machine)
    return module.emitError() << "cannot create an NVPTX target machine for "
                              << options.target->name;
  llvmModule->setTargetTriple(triple);
  llvmModule->setDataLayout(machine->createDataLayout());

  if (options.optLevel > 0) {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PassBuilder pb(machine.get());
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::OptimizationLevel o =
        options.optLevel == 1   ? llvm::OptimizationLevel::O1
        : options.optLevel == 2 ? llvm::OptimizationLevel::O2
                                : llvm::OptimizationLevel::O3;
    llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(o);
    mpm.run(*llvmModule, mam);
  }
  if (llvm::verifyModule(*llvmModule, &llvm::errs()))
    return module.emitError() << "internal error: invalid LLVM IR";

  llvmIRText.clear();
  llvm::raw_string_ostream irStream(llvmIRText);
  llvmModule->print(irStream, nullptr);

  ptx.clear();
  llvm::raw_string_ostream ptxStream(ptx);
  llvm::buffer_ostream bufferStream(ptxStream);
  llvm::legacy::PassManager codegen;
  if (machine->addPassesToEmitFile(codegen, bufferStream, nullptr,
                                   llvm::CodeGenFileType::AssemblyFile))
    return module.emitError() << "the NVPTX backend cannot emit PTX";

  // jfa-check-target rejects the ops the backend cannot compile; anything
  // it misses is reported here as an error naming the kernels instead of
  // LLVM's "error: ..." without a location (a missing library call) or
  // its "LLVM ERROR" and stack dump (a failed instruction selection).
  BackendFailure backend{module};
  llvmContext.setDiagnosticHandlerCallBack(reportBackendDiagnostic, &backend);
  llvm::ScopedFatalErrorHandler fatal(reportBackendFatalError, &backend);
  codegen.run(*llvmModule);
  if (backend.failed)
    return failure();
  return success();
}

std::string findPtxas(const CompileOptions &options, std::string &error) {
  auto executable = [](const std::string &path) {
    return !path.empty() && llvm::sys::fs::can_execute(path);
  };
  if (!options.ptxas.empty()) {
    if (executable(options.ptxas))
      return options.ptxas;
    // A bare name is looked up on $PATH, as a shell would.
    if (options.ptxas.find('/') == std::string::npos)
      if (auto path = llvm::sys::findProgramByName(options.ptxas))
        return *path;
    error = fmt::format("--ptxas={} is not an executable file", options.ptxas);
    return "";
  }
  for (const char *var : {"CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"}) {
    if (const char *root = std::getenv(var)) {
      std::string path = fmt::format("{}/bin/ptxas", root);
      if (executable(path))
        return path;
    }
  }
  if (executable("/usr/local/cuda/bin/ptxas"))
    return "/usr/local/cuda/bin/ptxas";
  if (auto path = llvm::sys::findProgramByName("ptxas"))
    return *path;
  error = "cannot find ptxas: pass --ptxas=/path/to/ptxas or set CUDA_HOME to "
          "the CUDA Toolkit root";
  return "";
}

LogicalResult runPtxas(llvm::StringRef ptx, llvm::StringRef cubinPath,
                       const CompileOptions &options, std::string &log,
                       std::string &error) {
  std::string ptxas = findPtxas(options, error);
  if (ptxas.empty())
    return failure();

  llvm::SmallString<128> ptxFile, logFile;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("jfa", "ptx", fd, ptxFile)) {
    error = "cannot create a temporary file";
    return failure();
  }
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << ptx;
  }
  llvm::sys::fs::createTemporaryFile("jfa-ptxas", "log", logFile);

  std::string arch = std::string("-arch=") + options.target->name;
  std::string opt = fmt::format("-O{}", std::min(options.optLevel, 3u));
  llvm::SmallVector<llvm::StringRef> args = {ptxas,   arch, opt,      "-v",
                                             ptxFile, "-o", cubinPath};
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, logFile.str(),
                                                logFile.str()};
  std::string execError;
  int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects,
                                     /*SecondsToWait=*/0, /*MemoryLimit=*/0,
                                     &execError);
  if (auto buffer = llvm::MemoryBuffer::getFile(logFile))
    log = (*buffer)->getBuffer().str();
  llvm::sys::fs::remove(ptxFile);
  llvm::sys::fs::remove(logFile);
  if (rc != 0) {
    error = rc < 0
                ? fmt::format("cannot run {}: {}", ptxas, execError)
                : fmt::format("ptxas ({}) failed with exit code {}", ptxas, rc);
    return failure();
  }
  return success();
}

} // namespace jfa
