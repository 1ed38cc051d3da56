//===- OpHandlers.cpp - jfa-interp's table of op handlers -----------------===//
#include "lib/Interpreter/OpHandlers.h"

#include "llvm/Support/ErrorHandling.h"

using namespace mlir;

namespace jfa::interp {

void OpHandlerTable::insert(TypeID id, StringRef name, OpHandler handler) {
  if (!handlers.try_emplace(id, std::move(handler)).second)
    llvm::report_fatal_error("jfa-interp: two handlers for '" + name + "'");
}

const OpHandler *OpHandlerTable::lookup(Operation *op) const {
  // Only registered ops have a class (and a TypeID of their own).
  if (!op->isRegistered())
    return nullptr;
  auto it = handlers.find(op->getName().getTypeID());
  return it == handlers.end() ? nullptr : &it->second;
}

const OpHandlerTable &getOpHandlers() {
  static const OpHandlerTable table = [] {
    OpHandlerTable t;
    registerControlFlowHandlers(t);
    registerArithHandlers(t);
    registerScalarHandlers(t);
    registerMemoryHandlers(t);
    registerBarrierHandlers(t);
    registerTMAHandlers(t);
    registerTensorCoreHandlers(t);
    registerRowOpHandlers(t);
    registerLaunchControlHandlers(t);
    return t;
  }();
  return table;
}

} // namespace jfa::interp
