//===- Targets.h - the GPUs JFA generates code for --------------*- C++ -*-===//
//
// The compiler's side of the target description (JFA/Targets.def, as data in
// JFA/TargetDescription.h): which ops need which hardware feature, and the
// target a module is compiled for (`jfa.target` on the module, set by
// jfa-check-target and read by the passes and the conversion after it).
//
//===----------------------------------------------------------------------===//
#ifndef JFA_DIALECT_TARGETS_H
#define JFA_DIALECT_TARGETS_H

#include "JFA/TargetDescription.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpDefinition.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace jfa {

/// The target named `name`, or null (findTarget for llvm::StringRef).
inline const Target *lookupTarget(llvm::StringRef name) {
  return findTarget(std::string_view(name.data(), name.size()));
}

/// The module attribute naming the target a module is compiled for.
constexpr llvm::StringLiteral kTargetAttrName = "jfa.target";

/// The target `module` is compiled for (its `jfa.target`), or null when none
/// was chosen (jfa-opt without jfa-check-target: the passes then accept what
/// any target accepts and the conversion lowers every feature's ops).
const Target *getModuleTarget(mlir::ModuleOp module);
/// Records `target` on `module` as `jfa.target`.
void setModuleTarget(mlir::ModuleOp module, const Target &target);

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
