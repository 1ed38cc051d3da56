//===- jfa-opt.cpp - mlir-opt with the JFA dialect and passes -------------===//
//
// mlir-opt's driver, with the input read and the output written through
// compiler/FileIO: a directory, an endless file or a full disk is one line
// naming the file, and a failed write leaves no partial output.
//
//===----------------------------------------------------------------------===//
#include "compiler/FileIO.h"
#include "compiler/Pipeline.h"
#include "compiler/SafeParse.h"
#include "lib/Transforms/Passes.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

// Where --jfa-resolve-imports and --jfa-lower-to-llvm look for imported
// files after the importing file's folder.
static llvm::cl::list<std::string>
    includeDirs("I",
                llvm::cl::desc("Look for imported files (jfa.import) in this "
                               "folder too, as jfac -I does"),
                llvm::cl::value_desc("dir"), llvm::cl::Prefix);

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::DialectRegistry registry;
  jfa::registerDialects(registry);
  jfa::registerPasses();
  auto [inputFile, outputFile] = mlir::registerAndParseCLIOptions(
      argc, argv, "JFA optimizer driver\n", registry);
  jfa::importSearchPaths().assign(includeDirs.begin(), includeDirs.end());
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, inputFile, outputFile, registry));

  auto fail = [](const std::string &message) {
    llvm::WithColor::error(llvm::errs(), "jfa-opt") << message << "\n";
    return 1;
  };
  std::string error;
  if (!jfa::checkIncludeDirs(includeDirs, error))
    return fail(error);
  if (!jfa::checkOutputFile(outputFile, error))
    return fail(error);
  std::unique_ptr<llvm::MemoryBuffer> input =
      jfa::readInputFile(inputFile, error);
  if (!input)
    return fail(error);
  // Inputs MLIR 22's own parser or verifiers would crash on: reported,
  // and blanked out so that MlirOptMain runs on the rest (the other parts
  // of a --split-input-file input); the exit status is 1 all the same.
  std::string sanitized;
  bool unsafe = mlir::failed(jfa::checkInputSafety(
      *input, config.inputSplitMarker(), registry,
      config.shouldAllowUnregisteredDialects(), sanitized));
  if (unsafe) {
    if (config.inputSplitMarker().empty())
      return 1;
    input = llvm::MemoryBuffer::getMemBufferCopy(sanitized,
                                                 input->getBufferIdentifier());
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  if (mlir::failed(mlir::MlirOptMain(os, std::move(input), registry, config))) {
    // What the inputs that did succeed (-split-input-file) printed still
    // goes to standard output, as mlir-opt's does.
    if (outputFile == "-")
      jfa::writeOutputFile("-", text, error);
    return 1;
  }
  if (!jfa::writeOutputFile(outputFile, text, error))
    return fail(error);
  return unsafe ? 1 : 0;
}
