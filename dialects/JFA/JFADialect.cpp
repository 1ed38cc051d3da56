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

/// The dialect's discardable attributes are set by passes on kernels; one
/// written anywhere else, or of another type, is a mistake worth naming.
LogicalResult JFADialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attribute) {
  StringAttr name = attribute.getName();
  if (name == getParamsAttrHelper().getName()) {
    if (!isa<KernelOp>(op))
      return op->emitError() << "'jfa.params' belongs on a jfa.kernel";
    auto params = dyn_cast<DictionaryAttr>(attribute.getValue());
    if (!params || !llvm::all_of(params, [](NamedAttribute param) {
          return isa<IntegerAttr, FloatAttr>(param.getValue());
        }))
      return op->emitError() << "'jfa.params' must be a dictionary of "
                                "integers and floats, got "
                             << attribute.getValue();
    return success();
  }
  // The files jfa-resolve-imports copied helpers from (the metadata's
  // "imports"): on the module.
  if (name.getValue() == "jfa.imports") {
    auto files = dyn_cast<ArrayAttr>(attribute.getValue());
    if (!isa<ModuleOp>(op) || !files ||
        !llvm::all_of(files, [](Attribute a) { return isa<StringAttr>(a); }))
      return op->emitError() << "'jfa.imports' is an array of file names on "
                                "a module";
    return success();
  }
  // The kernel's parameter names as written (`%x` -> "x"), recorded by the
  // parser for the metadata's arguments[].name: on a kernel, one string per
  // parameter.
  if (name.getValue() == kArgNamesAttrName) {
    auto kernel = dyn_cast<KernelOp>(op);
    auto names = dyn_cast<ArrayAttr>(attribute.getValue());
    if (!kernel || !names ||
        !llvm::all_of(names, [](Attribute a) { return isa<StringAttr>(a); }) ||
        names.size() != kernel.getFunctionType().getNumInputs())
      return op->emitError() << "'" << kArgNamesAttrName
                             << "' is an array of one name per parameter on "
                                "a jfa.kernel";
    return success();
  }
  // The target the module is compiled for (jfa-check-target records it; the
  // passes after it read it): a known target's name on a module.
  if (name.getValue() == kTargetAttrName) {
    auto target = dyn_cast<StringAttr>(attribute.getValue());
    if (!isa<ModuleOp>(op) || !target)
      return op->emitError()
             << "'" << kTargetAttrName << "' is a target name on a module";
    if (!lookupTarget(target.getValue()))
      return op->emitError()
             << "'" << kTargetAttrName << "' names unknown target '"
             << target.getValue() << "'; known targets: " << knownTargetNames();
    return success();
  }
  if (name != getSharedBytesAttrHelper().getName() &&
      name != getEntryRegistersAttrHelper().getName())
    return op->emitError() << "unknown JFA attribute '" << name.getValue()
                           << "'";
  if (!isa<KernelOp>(op))
    return op->emitError() << "'" << name.getValue()
                           << "' belongs on a jfa.kernel";
  if (!isa<IntegerAttr>(attribute.getValue()))
    return op->emitError() << "'" << name.getValue()
                           << "' must be an integer, got "
                           << attribute.getValue();
  return success();
}
