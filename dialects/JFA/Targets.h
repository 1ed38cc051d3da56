//===- Targets.h - the GPUs JFA generates code for --------------*- C++ -*-===//
//
// The one table of targets: jfac's --arch, the NVPTX features, and which
// hardware features each has (which ops jfa-check-target accepts there).
//
//===----------------------------------------------------------------------===//
#ifndef JFA_DIALECT_TARGETS_H
#define JFA_DIALECT_TARGETS_H

#include "mlir/IR/OpDefinition.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace jfa {

/// A hardware feature some ops need (see JFA_RequiresFeature in JFAOps.td).
enum class TargetFeature {
  Wgmma,        // warpgroup MMA with register accumulators (sm_90a)
  TensorMemory, // tcgen05 and tensor memory (sm_100a)
};

/// A GPU the compiler generates code for.
struct Target {
  std::string chip;        // "sm_90a"
  int smVersion;           // 90
  std::string ptxFeatures; // "+ptx86"
  bool hasWgmma;
  bool hasTensorMemory;

  bool has(TargetFeature feature) const {
    return feature == TargetFeature::Wgmma ? hasWgmma : hasTensorMemory;
  }
};

/// The targets jfac knows, by name; std::nullopt for any other.
std::optional<Target> lookupTarget(llvm::StringRef name);
/// "sm_90a, sm_100a", for messages.
std::string knownTargetNames();
/// The targets that have `feature`, as "sm_90a" or "sm_90a, sm_100a".
std::string targetsWith(TargetFeature feature);

/// Marks an op that exists only on targets with `Feature`.
template <TargetFeature Feature> struct RequiresTargetFeature {
  template <typename ConcreteType>
  class Impl : public mlir::OpTrait::TraitBase<ConcreteType, Impl> {
  public:
    static constexpr TargetFeature getRequiredTargetFeature() {
      return Feature;
    }
  };
};

/// The feature `op` needs, if any.
std::optional<TargetFeature> getRequiredTargetFeature(mlir::Operation *op);

} // namespace jfa

#endif // JFA_DIALECT_TARGETS_H
