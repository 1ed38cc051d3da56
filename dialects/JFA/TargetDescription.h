//===- TargetDescription.h - JFA's targets as plain data --------*- C++ -*-===//
//
// The table of Targets.def as constexpr C++ with no MLIR or LLVM dependency,
// so that the runtime (CUDA driver API only) includes the same description
// as the compiler. JFA/Targets.h adds the compiler's side (op traits, the
// module's target).
//
//===----------------------------------------------------------------------===//
#ifndef JFA_DIALECT_TARGETDESCRIPTION_H
#define JFA_DIALECT_TARGETDESCRIPTION_H

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace jfa {

/// A hardware feature some ops need (see JFA_RequiresFeature in JFAOps.td);
/// the bits of Target::features.
enum class TargetFeature : unsigned {
  Wgmma = 1u << 0,        // "wgmma": warpgroup MMA, register accumulators
  TensorMemory = 1u << 1, // "tcgen05": tcgen05 MMA and tensor memory
  Tma = 1u << 2,          // "tma": cp.async.bulk.tensor
  Setmaxnreg = 1u << 3,   // "setmaxnreg": per-warpgroup register budgets
  ClusterLaunchControl = 1u << 4, // "clc": clusterlaunchcontrol (cancel a
                                  // cluster not yet launched, take its work)
};

/// Every feature, in the order `jfac targets` lists them.
inline constexpr TargetFeature kAllFeatures[] = {
    TargetFeature::Wgmma, TargetFeature::TensorMemory, TargetFeature::Tma,
    TargetFeature::Setmaxnreg, TargetFeature::ClusterLaunchControl};

/// The name of `feature` in Targets.def ("wgmma", "tcgen05", ...).
constexpr const char *featureName(TargetFeature feature) {
  switch (feature) {
  case TargetFeature::Wgmma:
    return "wgmma";
  case TargetFeature::TensorMemory:
    return "tcgen05";
  case TargetFeature::Tma:
    return "tma";
  case TargetFeature::Setmaxnreg:
    return "setmaxnreg";
  case TargetFeature::ClusterLaunchControl:
    return "clc";
  }
  return "";
}

namespace detail {
constexpr unsigned featureBit(std::string_view name) {
  for (TargetFeature f : kAllFeatures)
    if (name == featureName(f))
      return unsigned(f);
  // Evaluated in a constant expression, this is a compile error: an unknown
  // feature name in Targets.def.
  throw std::invalid_argument("unknown feature in Targets.def");
}

/// "wgmma tma" -> the feature bits.
constexpr unsigned parseFeatures(std::string_view list) {
  unsigned bits = 0;
  while (!list.empty()) {
    size_t space = list.find(' ');
    std::string_view word = list.substr(0, space);
    if (!word.empty())
      bits |= featureBit(word);
    if (space == std::string_view::npos)
      break;
    list.remove_prefix(space + 1);
  }
  return bits;
}
} // namespace detail

/// A GPU the compiler generates code for (one JFA_TARGET of Targets.def).
struct Target {
  const char *name;         // "sm_90a": --arch, NVPTX chip, ptxas -arch
  const char *kernelSuffix; // "sm90": kernels for this target only
  int ccMajor, ccMinor;     // the compute capability that runs its cubins
  int ptxVersion;           // 86: PTX ISA 8.6
  unsigned features;        // TargetFeature bits
  int64_t maxSharedMemoryPerBlock; // bytes of shared memory per CTA
  int64_t registersPerSM;
  int64_t maxRegistersPerThread;
  int64_t tensorMemoryColumns; // per SM; 0 without tensor memory

  constexpr bool has(TargetFeature feature) const {
    return (features & unsigned(feature)) != 0;
  }
  /// The NVPTX backend's feature string: "+ptx86".
  std::string ptxFeatures() const {
    return "+ptx" + std::to_string(ptxVersion);
  }
  /// "9.0"
  std::string capability() const {
    return std::to_string(ccMajor) + "." + std::to_string(ccMinor);
  }
};

/// Every target, in the order of Targets.def.
inline constexpr Target kTargets[] = {
#define JFA_TARGET(NAME, KERNEL_SUFFIX, CC_MAJOR, CC_MINOR, PTX_VERSION,       \
                   FEATURES, MAX_SHARED_BYTES, REGISTERS_PER_SM,               \
                   MAX_REGISTERS_PER_THREAD, TMEM_COLUMNS)                     \
  {NAME,                                                                       \
   KERNEL_SUFFIX,                                                              \
   CC_MAJOR,                                                                   \
   CC_MINOR,                                                                   \
   PTX_VERSION,                                                                \
   detail::parseFeatures(FEATURES),                                            \
   MAX_SHARED_BYTES,                                                           \
   REGISTERS_PER_SM,                                                           \
   MAX_REGISTERS_PER_THREAD,                                                   \
   TMEM_COLUMNS},
#include "JFA/Targets.def"
};
inline constexpr size_t kNumTargets = sizeof(kTargets) / sizeof(kTargets[0]);

/// What jfac compiles for when nothing chooses (JFA_DEFAULT_TARGET).
inline constexpr const char *kDefaultTargetName =
#define JFA_DEFAULT_TARGET(NAME) NAME
#include "JFA/Targets.def"
    ;

/// The target named `name`, or null.
inline const Target *findTarget(std::string_view name) {
  for (const Target &t : kTargets)
    if (name == t.name)
      return &t;
  return nullptr;
}

/// The target whose cubins run on compute capability major.minor, or null.
inline const Target *findTargetForCapability(int major, int minor) {
  for (const Target &t : kTargets)
    if (t.ccMajor == major && t.ccMinor == minor)
      return &t;
  return nullptr;
}

/// "sm_90a, sm_100a", for messages.
inline std::string knownTargetNames() {
  std::string names;
  for (const Target &t : kTargets)
    names += (names.empty() ? "" : ", ") + std::string(t.name);
  return names;
}

/// The targets that have `feature`, as "sm_90a" or "sm_90a, sm_100a".
inline std::string targetsWith(TargetFeature feature) {
  std::string names;
  for (const Target &t : kTargets)
    if (t.has(feature))
      names += (names.empty() ? "" : ", ") + std::string(t.name);
  return names;
}

/// The largest value of a limit over every target: what the verifier, which
/// does not know the target, accepts (a target-aware pass checks the chosen
/// target's own value).
constexpr int64_t maxOverTargets(int64_t Target::*limit) {
  int64_t most = 0;
  for (const Target &t : kTargets)
    most = t.*limit > most ? t.*limit : most;
  return most;
}

} // namespace jfa

#endif // JFA_DIALECT_TARGETDESCRIPTION_H
