//===- jfa-opt.cpp - mlir-opt with the JFA dialect and passes
//---------------===//
#include "compiler/Pipeline.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  jfa::registerDialects(registry);
  jfa::registerPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "JFA optimizer driver\n", registry));
}
