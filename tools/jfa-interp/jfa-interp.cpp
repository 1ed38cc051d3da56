//===- jfa-interp.cpp - run a JFA kernel on the CPU -----------------------===//
//
//   jfa-interp KERNEL.mlir --arch sm_100a|sm_90a --grid X[,Y[,Z]]
//              [--stats[=totals]] [--nan-check] ARG...
//
// One ARG per kernel parameter, in order: a .npy file for a TMA descriptor
// or pointer (read before the run, written back after it), or TYPE:VALUE for
// a scalar (i32:7, f32:0.125). Exit status 0 on a clean run; 1 with located
// diagnostics on a deadlock, a race, an out-of-bounds index or anything the
// interpreter does not model. See docs/INTERPRETER.md.
//
//===----------------------------------------------------------------------===//
#include "compiler/FileIO.h"
#include "compiler/Pipeline.h"
#include "compiler/SafeParse.h"
#include "compiler/Variants.h"
#include "lib/Interpreter/Interpreter.h"
#include "lib/Transforms/Passes.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"

#include <fmt/format.h>

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory category("jfa-interp options");
static cl::list<std::string> positional(cl::Positional, cl::OneOrMore,
                                        cl::desc("<kernel.mlir> <arg>..."),
                                        cl::cat(category));
// The targets of Targets.def, for --help.
static const std::string archHelp = "target: " + jfa::knownTargetNames();
static cl::opt<std::string> arch("arch", cl::desc(archHelp), cl::cat(category));
static cl::opt<std::string> grid("grid", cl::desc("X[,Y[,Z]] CTAs"),
                                 cl::init("1"), cl::cat(category));
static cl::opt<std::string>
    kernelName("kernel", cl::desc("the jfa.kernel to run (default: the only one)"),
               cl::cat(category));
static cl::list<std::string>
    params("P",
           cl::desc("Set a compile-time parameter of the kernel, as jfac "
                    "-P does: -P head_dim=64"),
           cl::value_desc("name=value"), cl::Prefix, cl::cat(category));
static cl::list<std::string>
    includeDirs("I",
                cl::desc("Look for imported files (jfa.import) in this "
                         "folder too, as jfac -I does"),
                cl::value_desc("dir"), cl::Prefix, cl::cat(category));
static cl::opt<bool> verbose("v", cl::desc("one line per CTA"),
                             cl::cat(category));
// --stats is taken out of argv before LLVM's options are parsed: LLVM
// registers its own -stats (pass statistics) in every tool.
enum class StatsMode { None, PerCta, Totals };
static const char statsHelp[] =
    "  --stats[=cta|totals]  print what each task did (ops run, TMA loads and "
    "stores\n"
    "                        with their bytes, MMAs, barrier waits) to stdout: "
    "per CTA\n"
    "                        and for the grid (cta, the default), or for the "
    "grid only\n";
static cl::opt<bool> nanCheck(
    "nan-check",
    cl::desc("stop at the first op that makes a NaN or an infinity from "
             "finite operands, naming the op and the element"),
    cl::cat(category));
static cl::opt<uint64_t> maxCtas(
    "max-ctas",
    cl::desc("refuse grids of more CTAs than this (default 100000: the "
             "interpreter runs about 10000 empty CTAs a second, real kernels "
             "far fewer)"),
    cl::init(100000), cl::cat(category));

static int fail(const Twine &message) {
  llvm::errs() << "jfa-interp: error: " << message << "\n";
  return 1;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  StatsMode stats = StatsMode::None;
  SmallVector<char *> kept;
  for (int i = 0; i < argc; ++i) {
    StringRef arg(argv[i]);
    if (i > 0 &&
        (arg.consume_front("--stats") || arg.consume_front("-stats")) &&
        (arg.empty() || arg.front() == '=')) {
      if (arg.empty() || arg == "=cta")
        stats = StatsMode::PerCta;
      else if (arg == "=totals")
        stats = StatsMode::Totals;
      else
        return fail("unknown --stats" + arg +
                    "; use --stats, --stats=cta "
                    "or --stats=totals");
      continue;
    }
    kept.push_back(argv[i]);
  }
  int keptArgc = int(kept.size());
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      keptArgc, kept.data(),
      std::string("jfa-interp: runs a JFA kernel on the CPU and checks its "
                  "synchronization\n\n  jfa-interp KERNEL.mlir --arch "
                  "TARGET --grid X[,Y[,Z]] ARG...\n\n") +
          statsHelp);

  std::string inputFile = positional.front();
  if (std::string error; !jfa::checkIncludeDirs(includeDirs, error))
    return fail(error);
  jfa::interp::RunOptions options;
  if (arch.empty())
    return fail(
        arch.getNumOccurrences()
            ? "--arch is empty; known targets: " + jfa::knownTargetNames()
            : "give the target with --arch (" + jfa::knownTargetNames() + ")");
  if (!jfa::lookupTarget(arch))
    return fail("unknown --arch '" + arch +
                "'; known targets: " + jfa::knownTargetNames());
  {
    // The hardware's limits: 2^31 - 1 CTAs in x, 65535 in y and z.
    SmallVector<StringRef, 3> parts;
    StringRef(grid).split(parts, ',');
    if (parts.size() > 3)
      return fail("--grid '" + grid + "' has more than three dimensions");
    const char *names[] = {"x", "y", "z"};
    const uint64_t limits[] = {(uint64_t(1) << 31) - 1, 65535, 65535};
    uint64_t total = 1;
    for (auto [i, part] : llvm::enumerate(parts)) {
      StringRef digits = part.trim();
      uint64_t n;
      if (digits.empty() || !llvm::all_of(digits, llvm::isDigit) ||
          digits.getAsInteger(10, n) || n < 1)
        return fail("--grid '" + grid +
                    "': each dimension must be a positive integer");
      if (n > limits[i])
        return fail("--grid '" + grid + "': " + names[i] + " is " + digits +
                    "; the hardware's limit is " + Twine(limits[i]));
      options.grid[i] = int64_t(n);
      total *= n;
    }
    if (total > maxCtas)
      return fail("--grid '" + grid + "' is " + Twine(total) +
                  " CTAs, over the limit of " + Twine(uint64_t(maxCtas)) +
                  ": jfa-interp runs about 10000 empty CTAs a second and "
                  "real kernels far fewer, so this would take at least " +
                  Twine(total / 10000 / 60) +
                  " minutes; raise the limit with --max-ctas=N");
  }
  options.args.assign(positional.begin() + 1, positional.end());
  options.verbose = verbose;
  options.stats = stats != StatsMode::None;
  options.statsPerCta = stats == StatsMode::PerCta;
  options.nanCheck = nanCheck;

  std::string error;
  auto buffer = jfa::readInputFile(inputFile, error);
  if (!buffer)
    return fail(error);

  DialectRegistry registry;
  jfa::registerDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);

  // Parse with the parser's state kept, to name values as the source does.
  Block block;
  AsmParserState asmState;
  if (failed(jfa::parseBlockSafely(sourceMgr, &block, &context, &asmState)))
    return 1;
  OwningOpRef<ModuleOp> module;
  if (block.getOperations().size() == 1 && isa<ModuleOp>(block.front())) {
    module = cast<ModuleOp>(block.front());
    module->getOperation()->remove();
  } else {
    module = ModuleOp::create(UnknownLoc::get(&context));
    module->getBody()->getOperations().splice(
        module->getBody()->begin(), block.getOperations());
  }
  if (failed(verify(*module)))
    return 1;
  auto text = [](llvm::SMRange range) {
    return std::string(range.Start.getPointer(),
                       range.End.getPointer() - range.Start.getPointer());
  };
  for (const auto &def : asmState.getOpDefs()) {
    for (const auto &group : def.resultGroups) {
      std::string name = text(group.definition.loc);
      unsigned end = def.op->getNumResults();
      for (const auto &other : def.resultGroups)
        if (other.startIndex > group.startIndex)
          end = std::min(end, other.startIndex);
      size_t colon = name.find(':');
      std::string base = name.substr(0, colon);
      for (unsigned r = group.startIndex; r < end; ++r)
        options.valueNames[def.op->getResult(r)] =
            end - group.startIndex > 1
                ? fmt::format("{}#{}", base, r - group.startIndex)
                : base;
    }
  }
  for (const auto &def : asmState.getBlockDefs())
    for (auto [i, arg] : llvm::enumerate(def.arguments))
      if (i < def.block->getNumArguments() && arg.loc.isValid())
        options.valueNames[def.block->getArgument(i)] = text(arg.loc);

  // -P values outside the header's jfa-variants lists, as jfac refuses
  // them.
  if (failed(jfa::checkListedParams(
          *sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID()), &context,
          params)))
    return 1;
  // Imports resolved, parameters fixed, replicated tasks expanded, as jfac
  // does first.
  if (failed(jfa::specialize(*module, params, includeDirs)))
    return 1;
  // A scheduling request is for code generation: checked and removed as
  // jfac does, so that the two accept the same kernels.
  if (failed(jfa::takeSchedulingRequest(*module)))
    return 1;
  // The target must have every op the kernel uses.
  PassManager pm(&context);
  jfa::JFACheckTargetOptions checkOptions;
  checkOptions.arch = arch;
  // The ops jfac's lowering rejects (math.sin) are the interpreter's to
  // model or to report as not modelled.
  checkOptions.lowering = false;
  pm.addPass(jfa::createJFACheckTarget(checkOptions));
  if (failed(pm.run(*module)))
    return 1;

  jfa::KernelOp kernel;
  SmallVector<jfa::KernelOp> kernels(module->getOps<jfa::KernelOp>());
  if (kernels.empty())
    return fail(inputFile + " defines no jfa.kernel");
  if (!kernelName.empty()) {
    for (auto k : kernels)
      if (k.getSymName() == kernelName)
        kernel = k;
    if (!kernel)
      return fail(inputFile + " has no jfa.kernel @" + kernelName);
  } else if (kernels.size() > 1) {
    return fail(inputFile + " defines several kernels; choose one with "
                            "--kernel NAME");
  } else {
    kernel = kernels.front();
  }
  if (failed(jfa::interp::runKernel(kernel, options)))
    return 1;
  return 0;
}
