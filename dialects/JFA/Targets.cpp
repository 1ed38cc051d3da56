//===- Targets.cpp - the GPUs JFA generates code for ----------------------===//
#include "JFA/Targets.h"
#include "JFA/JFAOps.h"

using namespace mlir;

namespace jfa {

const Target *getModuleTarget(ModuleOp module) {
  auto name = module->getAttrOfType<StringAttr>(kTargetAttrName);
  return name ? lookupTarget(name.getValue()) : nullptr;
}

void setModuleTarget(ModuleOp module, const Target &target) {
  module->setAttr(kTargetAttrName,
                  StringAttr::get(module.getContext(), target.name));
}

std::optional<TargetFeature> getRequiredTargetFeature(Operation *op) {
  if (op->hasTrait<RequiresTargetFeature<TargetFeature::Wgmma>::Impl>())
    return TargetFeature::Wgmma;
  if (op->hasTrait<RequiresTargetFeature<TargetFeature::TensorMemory>::Impl>())
    return TargetFeature::TensorMemory;
  if (op->hasTrait<RequiresTargetFeature<TargetFeature::Tma>::Impl>())
    return TargetFeature::Tma;
  if (op->hasTrait<
          RequiresTargetFeature<TargetFeature::ClusterLaunchControl>::Impl>())
    return TargetFeature::ClusterLaunchControl;
  // A register budget is a setmaxnreg (jfa-lower-async-tasks).
  if (auto task = dyn_cast<TaskOp>(op); task && task.getRegisters())
    return TargetFeature::Setmaxnreg;
  return std::nullopt;
}
} // namespace jfa
