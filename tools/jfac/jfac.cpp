//===- jfac.cpp - the JFA compiler driver
//-----------------------------------===//
//
//   jfac compile kernel.mlir -o kernel.cubin --arch sm_90a [--emit=cubin]
//
// Writes the cubin and, beside it, kernel.cubin.meta for the runtime.
//
//===----------------------------------------------------------------------===//
#include "JFA/JFAOps.h"
#include "compiler/FileIO.h"
#include "compiler/Pipeline.h"
#include "compiler/SafeParse.h"
#include "compiler/Variants.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <fmt/format.h>

using namespace mlir;
namespace cl = llvm::cl;

namespace {
enum class Emit { MLIR, LLVM, PTX, Cubin };
enum class Schedule { Kernel, Source, Registers };

cl::OptionCategory category("jfac options");
cl::opt<std::string> inputFile(cl::Positional, cl::desc("<kernel.mlir>"),
                               cl::Required, cl::cat(category));
cl::opt<std::string> outputFile("o",
                                cl::desc("Output file (default: the input "
                                         "with .cubin/.ptx/.ll/.llvm.mlir)"),
                                cl::value_desc("file"), cl::cat(category));
// From the target description (Targets.def).
const std::string archHelp =
    "Target GPU: one of " + jfa::knownTargetNames() +
    " (default: the one target the kernel's first line names, `// "
    "jfa-targets: " +
    jfa::kTargets[0].name + "`, else " + jfa::kDefaultTargetName + ")";
cl::opt<std::string> arch("arch", cl::desc(archHelp), cl::cat(category));
cl::opt<Emit> emit(
    "emit", cl::desc("What to write"), cl::init(Emit::Cubin),
    cl::values(clEnumValN(Emit::MLIR, "mlir", "MLIR in the LLVM/NVVM dialects"),
               clEnumValN(Emit::LLVM, "llvm", "LLVM IR"),
               clEnumValN(Emit::PTX, "ptx", "PTX assembly"),
               clEnumValN(Emit::Cubin, "cubin", "a cubin (runs ptxas)")),
    cl::cat(category));
cl::opt<unsigned> optLevel("O", cl::desc("Optimization level 0-3 (default 3)"),
                           cl::Prefix, cl::init(3), cl::cat(category));
cl::opt<std::string>
    ptxas("ptxas",
          cl::desc("ptxas to run (default: $CUDA_HOME/bin/ptxas, "
                   "/usr/local/cuda/bin/ptxas, then $PATH)"),
          cl::value_desc("path"), cl::cat(category));
cl::opt<std::string>
    metadataFile("metadata",
                 cl::desc("Where to write the runtime metadata (default: "
                          "<output>.meta; only with --emit=cubin)"),
                 cl::value_desc("file"), cl::cat(category));
cl::opt<Schedule> schedule(
    "schedule", cl::desc("How LLVM's NVPTX backend orders instructions"),
    cl::init(Schedule::Kernel),
    cl::values(clEnumValN(Schedule::Kernel, "kernel",
                          "as the kernel's jfa.schedule_for_registers asks, "
                          "else source order (the default)"),
               clEnumValN(Schedule::Source, "source", "source order"),
               clEnumValN(Schedule::Registers, "registers",
                          "for register pressure (may spill less; reorders "
                          "everything)")),
    cl::cat(category));
cl::opt<bool> printIRAfterAll("print-ir-after-all",
                              cl::desc("Print the IR after every pass"),
                              cl::cat(category));
cl::opt<bool> debugBarriers(
    "debug-barriers",
    cl::desc("Bound every barrier wait (4 s): a wait that times out prints "
             "the kernel, its file:line:col, the barrier and phase, the CTA "
             "and warp, then traps instead of hanging the GPU"),
    cl::cat(category));
cl::opt<bool> registerReport(
    "register-report",
    cl::desc("Report each task's peak of live 32-bit values per thread, the "
             "op (file:line:col) where it is reached and the largest values "
             "live there: which tile to shrink when ptxas spills"),
    cl::cat(category));
cl::list<std::string>
    params("P",
           cl::desc("Set a compile-time parameter of the kernel "
                    "(`jfa.param`); repeat for each: -P head_dim=64 -P causal=1"),
           cl::value_desc("name=value"), cl::Prefix, cl::cat(category));
cl::list<std::string>
    includeDirs("I",
                cl::desc("Look for imported files (jfa.import) in this "
                         "folder too, after the importing file's own; "
                         "repeat for several"),
                cl::value_desc("dir"), cl::Prefix, cl::cat(category));
cl::opt<bool> longSharedPointers(
    "long-shared-pointers",
    cl::desc("Hold shared-memory addresses in 64-bit registers (NVPTX's "
             "default) instead of 32-bit ones: each address LLVM hoists out "
             "of a loop then costs two registers, not one"),
    cl::cat(category));
enum class ThreadIndex { Hoisted, AtUse };
cl::opt<ThreadIndex> threadIndex(
    "thread-index", cl::desc("Where register tiles read the thread index"),
    cl::init(ThreadIndex::Hoisted),
    cl::values(clEnumValN(ThreadIndex::Hoisted, "hoisted",
                          "once, through NVVM's intrinsic: LLVM may hoist "
                          "the per-thread address arithmetic out of loops "
                          "(the default)"),
               clEnumValN(ThreadIndex::AtUse, "at-use",
                          "where each use is: the arithmetic stays in the "
                          "loops, which keeps it out of the registers "
                          "through them (fewer spills, more integer work)")),
    cl::cat(category));
cl::opt<bool> quiet("quiet", cl::desc("Do not print ptxas's resource report"),
                    cl::cat(category));

int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "jfac") << message << "\n";
  return 1;
}

bool writeFile(llvm::StringRef path, llvm::StringRef contents) {
  std::string error;
  if (!jfa::writeOutputFile(path, contents, error)) {
    fail(error);
    return false;
  }
  return true;
}

std::string defaultOutput() {
  llvm::StringRef stem = inputFile;
  stem.consume_back(".mlir");
  switch (emit) {
  case Emit::MLIR:
    return (stem + ".llvm.mlir").str();
  case Emit::LLVM:
    return (stem + ".ll").str();
  case Emit::PTX:
    return (stem + ".ptx").str();
  case Emit::Cubin:
    return (stem + ".cubin").str();
  }
  return "";
}
/// The target a kernel file declares on its first line
/// (`// jfa-targets: sm_90a`), when it declares exactly one.
std::string declaredTarget(const llvm::MemoryBuffer &buffer) {
  llvm::StringRef first = buffer.getBuffer().split('\n').first.trim();
  if (!first.consume_front("// jfa-targets:"))
    return "";
  llvm::SmallVector<llvm::StringRef> targets;
  first.split(targets, ' ', -1, /*KeepEmpty=*/false);
  return targets.size() == 1 ? targets.front().str() : "";
}

/// Register budgets of the kernels' tasks, for the spill warning: "the task
/// at <loc> has registers(R)".
std::vector<std::string> taskBudgets(ModuleOp module) {
  std::vector<std::string> budgets;
  module.walk([&](jfa::TaskOp task) {
    if (!task.getRegisters())
      return;
    std::string text;
    llvm::raw_string_ostream os(text);
    auto loc = dyn_cast<FileLineColLoc>(task.getLoc());
    os << "the task at ";
    if (loc)
      os << loc.getFilename().getValue() << ":" << loc.getLine() << ":"
         << loc.getColumn();
    else
      os << task.getLoc();
    os << " has registers(" << *task.getRegisters() << ")";
    budgets.push_back(text);
  });
  return budgets;
}

/// Warns (on stderr, --quiet or not) for every kernel ptxas reports
/// spilling (a register budget too small for its task shows only there) and
/// for ptxas's performance-loss reports (serialized wgmma).
void warnAboutSpills(llvm::StringRef log,
                     const std::vector<std::string> &budgets) {
  llvm::StringRef kernel;
  llvm::SmallVector<llvm::StringRef> lines;
  log.split(lines, '\n');
  for (llvm::StringRef line : lines) {
    if (line.consume_front("ptxas info    : Function properties for ")) {
      kernel = line.trim();
      continue;
    }
    // ptxas serializes every wgmma of a kernel when an accumulator is read
    // (or copied, e.g. through a branch that yields it) before its wait.
    if (line.contains("Potential Performance Loss")) {
      llvm::errs() << "jfac: warning: " << line.trim();
      if (line.contains("wgmma"))
        llvm::errs() << "\n  an async_dot result in flight is read or passed "
                        "through a branch or loop before its async_dot_wait";
      llvm::errs() << "\n";
      continue;
    }
    size_t at = line.find("bytes spill stores");
    if (at == llvm::StringRef::npos)
      continue;
    llvm::StringRef before = line.substr(0, at).rtrim();
    unsigned stores = 0;
    if (before.substr(before.rfind(' ') + 1).getAsInteger(10, stores) ||
        stores == 0)
      continue;
    llvm::errs() << "jfac: warning: kernel '" << kernel
                 << "' spills registers (" << line.trim() << ")";
    if (budgets.empty()) {
      llvm::errs() << "\n";
      continue;
    }
    llvm::errs() << "; a task's register budget may be too small:";
    for (const std::string &budget : budgets)
      llvm::errs() << "\n  " << budget;
    llvm::errs() << "\n  (--register-report shows each task's peak of live "
                    "values, where it is reached and what is live there)\n";
  }
}

constexpr const char *kVersion = "0.3";
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  std::string archs;
  for (const jfa::Target &t : jfa::kTargets)
    archs += (archs.empty() ? "" : "|") + std::string(t.name);
  std::string usage = "usage: jfac compile <kernel.mlir> [-o <file>] "
                      "[--arch=" +
                      archs +
                      "] [--emit=mlir|llvm|ptx|cubin] "
                      "[-O<n>] [--ptxas=<path>]\n";
  if (argc < 2) {
    llvm::errs() << usage;
    return 1;
  }
  llvm::StringRef command = argv[1];
  if (command == "--version" || command == "version") {
    llvm::outs() << "jfac " << kVersion << " (LLVM/MLIR " << LLVM_VERSION_STRING
                 << "; targets: " << jfa::knownTargetNames() << ")\n";
    return 0;
  }
  if (command == "targets") {
    // The target description (Targets.def) as the compiler has it, one
    // target a line; test/targets/ checks the Python and CMake forms
    // against it.
    for (const jfa::Target &t : jfa::kTargets) {
      std::string features;
      for (jfa::TargetFeature f : jfa::kAllFeatures)
        if (t.has(f))
          features +=
              (features.empty() ? "" : ",") + std::string(jfa::featureName(f));
      llvm::outs() << fmt::format(
          "{} kernel_suffix={} capability={} ptx={} features={} "
          "max_shared_bytes={} registers_per_sm={} "
          "max_registers_per_thread={} tmem_columns={}\n",
          t.name, t.kernelSuffix, t.capability(), t.ptxVersion, features,
          t.maxSharedMemoryPerBlock, t.registersPerSM, t.maxRegistersPerThread,
          t.tensorMemoryColumns);
    }
    llvm::outs() << "default " << jfa::kDefaultTargetName << "\n";
    return 0;
  }
  if (command == "--help" || command == "-h" || command == "help") {
    llvm::outs() << "jfac: the JFA kernel compiler\n\n"
                 << usage
                 << "\nRun `jfac compile --help` for every option; `jfac "
                    "targets` lists the targets and their facts.\n";
    return 0;
  }
  if (command != "compile")
    return fail("unknown command '" + command + "'\n" + usage);

  // Parse the options after `compile`.
  std::vector<const char *> args = {"jfac compile"};
  for (int i = 2; i < argc; ++i)
    args.push_back(argv[i]);
  cl::HideUnrelatedOptions(category);
  if (!cl::ParseCommandLineOptions(int(args.size()), args.data(),
                                   "jfac compile: JFA kernel -> cubin\n",
                                   &llvm::errs()))
    return 1;

  // The input is read first: its first line may name the target.
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> buffer =
      jfa::readInputFile(inputFile, error);
  if (!buffer)
    return fail(error);

  if (arch.getNumOccurrences() && arch.empty())
    return fail("--arch is empty; known targets: " + jfa::knownTargetNames());
  if (arch.empty()) {
    std::string declared = declaredTarget(*buffer);
    arch = declared.empty() ? jfa::kDefaultTargetName : declared;
  }
  const jfa::Target *target = jfa::lookupTarget(arch);
  if (!target)
    return fail("unknown --arch '" + arch +
                "'; known targets: " + jfa::knownTargetNames());
  if (optLevel > 3)
    return fail(fmt::format("-O{} is not an optimization level; use -O0 to -O3",
                            optLevel.getValue()));

  jfa::CompileOptions options;
  options.target = target;
  options.optLevel = optLevel;
  options.ptxas = ptxas;
  options.printIRAfterAll = printIRAfterAll;
  options.debugBarriers = debugBarriers;
  options.registerReport = registerReport;
  options.shortSharedPointers = !longSharedPointers;
  options.threadIndexAtUse = threadIndex == ThreadIndex::AtUse;
  std::string output = outputFile.empty() ? defaultOutput() : outputFile;

  // The metadata goes beside a cubin unless the cubin goes to a device
  // (-o /dev/null) and no --metadata is given.
  std::string metaPath;
  if (emit == Emit::Cubin)
    metaPath = !metadataFile.empty()        ? std::string(metadataFile)
               : jfa::isSpecialFile(output) ? ""
                                            : output + ".meta";

  // Fail early, before any work: outputs that cannot be written, a missing
  // ptxas.
  if (!jfa::checkOutputFile(output, error))
    return fail(error);
  if (!jfa::checkIncludeDirs(includeDirs, error))
    return fail(error);
  // An output that is the input or the other output would destroy it.
  if (!jfa::checkDistinctFiles(
          {{"the input", inputFile}, {"-o", output}, {"--metadata", metaPath}},
          error))
    return fail(error);
  if (emit == Emit::Cubin) {
    if (output == "-")
      return fail("a cubin cannot be written to standard output; give -o "
                  "<file>");
    if (!metaPath.empty() && !jfa::checkOutputFile(metaPath, error))
      return fail(error);
    if (jfa::findPtxas(options, error).empty())
      return fail(error);
  }

  DialectRegistry registry;
  jfa::registerDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);

  OwningOpRef<ModuleOp> module = jfa::parseModuleSafely(sourceMgr, &context);
  if (!module)
    return 1; // the parser or the verifier reported where
  if (module->getOps<jfa::KernelOp>().empty())
    return fail(inputFile + " defines no jfa.kernel");

  // -P values outside the header's jfa-variants lists.
  if (failed(jfa::checkListedParams(
          *sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID()), &context,
          params)))
    return 1;

  // Imports resolved, helpers inlined, parameters fixed and replicated tasks
  // expanded before anything else (the metadata records the parameter
  // values and the imported files).
  if (failed(jfa::specialize(*module, params, includeDirs)))
    return 1;
  FailureOr<bool> kernelAsks = jfa::takeSchedulingRequest(*module);
  if (failed(kernelAsks))
    return 1;
  options.scheduleForRegisters = schedule == Schedule::Kernel
                                     ? *kernelAsks
                                     : schedule == Schedule::Registers;
  std::string metadata = jfa::buildMetadata(*module, *target, debugBarriers);
  std::vector<std::string> budgets = taskBudgets(*module);
  if (failed(jfa::lowerToLLVMDialect(*module, options)))
    return 1;
  if (emit == Emit::MLIR) {
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os);
    return writeFile(output, text) ? 0 : 1;
  }

  std::string llvmIR, ptx;
  if (failed(jfa::translateToLLVMIR(*module, options, llvmIR, ptx)))
    return 1;
  if (emit == Emit::LLVM)
    return writeFile(output, llvmIR) ? 0 : 1;
  if (emit == Emit::PTX)
    return writeFile(output, ptx) ? 0 : 1;

  // ptxas writes a temporary cubin; the cubin and its metadata are then
  // written together, or neither.
  std::string log;
  llvm::SmallString<128> cubinTemp;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("jfa", "cubin", cubinTemp))
    return fail("cannot create a temporary file for ptxas: " + ec.message());
  if (failed(jfa::runPtxas(ptx, std::string(cubinTemp), options, log, error))) {
    llvm::sys::fs::remove(cubinTemp);
    llvm::errs() << log;
    return fail(error);
  }
  auto cubin = llvm::MemoryBuffer::getFile(cubinTemp, /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
  llvm::sys::fs::remove(cubinTemp);
  if (!cubin)
    return fail("cannot read ptxas's output: " + cubin.getError().message());
  // A ptxas that exits 0 without writing a cubin (a wrapper, a full disk)
  // would leave an empty or foreign file that the runtime fails to load.
  if (!(*cubin)->getBuffer().starts_with("\x7f"
                                         "ELF"))
    return fail(fmt::format("ptxas ({}) exited 0 but wrote {}, not an ELF "
                            "cubin; check --ptxas",
                            jfa::findPtxas(options, error),
                            (*cubin)->getBufferSize() == 0
                                ? "nothing"
                                : std::to_string((*cubin)->getBufferSize()) +
                                      " bytes"));
  std::vector<std::pair<std::string, std::string>> files = {
      {output, (*cubin)->getBuffer().str()}};
  if (!metaPath.empty())
    files.emplace_back(metaPath, metadata);
  if (!jfa::writeOutputFiles(files, error))
    return fail(error);
  warnAboutSpills(log, budgets);
  if (!quiet) {
    llvm::outs() << "jfac: wrote " << output << " (" << target->name << ")";
    if (metaPath.empty())
      llvm::outs() << " and no metadata (the output is not a regular file; "
                      "give --metadata=FILE)\n";
    else
      llvm::outs() << " and " << metaPath << "\n";
    // ptxas -v: registers, shared memory, spills per kernel.
    llvm::outs() << log;
    if (!budgets.empty())
      llvm::outs() << "jfac: note: ptxas's 'Used N registers' is the "
                      "registers every thread starts with (the kernel-wide "
                      "cap at entry); each task then runs under its own "
                      "registers(...) budget (setmaxnreg)\n";
  }
  return 0;
}
