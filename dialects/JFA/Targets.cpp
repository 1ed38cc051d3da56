//===- Targets.cpp - the GPUs JFA generates code for ----------------------===//
#include "JFA/Targets.h"

using namespace mlir;

namespace jfa {
namespace {
// PTX 8.6 is the first ISA with sm_100a; CUDA 12.8+ ptxas accepts it.
const Target kTargets[] = {
    {"sm_90a", 90, "+ptx86", /*hasWgmma=*/true, /*hasTensorMemory=*/false},
    {"sm_100a", 100, "+ptx86", /*hasWgmma=*/false, /*hasTensorMemory=*/true},
};
} // namespace

std::optional<Target> lookupTarget(llvm::StringRef name) {
  for (const Target &t : kTargets)
    if (t.chip == name)
      return t;
  return std::nullopt;
}

std::string knownTargetNames() {
  std::string names;
  for (const Target &t : kTargets)
    names += (names.empty() ? "" : ", ") + t.chip;
  return names;
}

std::string targetsWith(TargetFeature feature) {
  std::string names;
  for (const Target &t : kTargets)
    if (t.has(feature))
      names += (names.empty() ? "" : ", ") + t.chip;
  return names;
}

std::optional<TargetFeature> getRequiredTargetFeature(Operation *op) {
  if (op->hasTrait<RequiresTargetFeature<TargetFeature::Wgmma>::Impl>())
    return TargetFeature::Wgmma;
  if (op->hasTrait<RequiresTargetFeature<TargetFeature::TensorMemory>::Impl>())
    return TargetFeature::TensorMemory;
  return std::nullopt;
}
} // namespace jfa
