//===- JFADialect.cpp - the JFA dialect
//-------------------------------------===//
#include "JFA/JFAOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace jfa;

#include "JFA/JFAOpsDialect.cpp.inc"

void JFADialect::initialize() {
  registerTypes();
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "JFA/JFAOps.cpp.inc"
      >();
}
