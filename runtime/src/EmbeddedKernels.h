//===- EmbeddedKernels.h - cubins compiled into the library -----*- C++ -*-===//
//
// The kernels runtime/cmake/EmbedAttentionKernels.cmake compiles with jfac at
// build time, one per compile-time variant its source declares
// (`// jfa-variants:`); each is defined in a generated source file (see
// runtime/cmake/EmbedKernelWrite.cmake) and listed in the generated table
// embeddedKernels. A kernel that could not be built is present with a null
// cubin and the reason.
//
//===----------------------------------------------------------------------===//
#ifndef JFA_RUNTIME_EMBEDDEDKERNELS_H
#define JFA_RUNTIME_EMBEDDEDKERNELS_H

#include <cstddef>

namespace jfa::rt::detail {

struct EmbeddedKernel {
  const char *kernel; // the kernel's name, e.g. attention_fwd_sm90
  const char *arch;   // sm_90a, sm_100a
  const char *params; // its compile-time parameters: "head_dim=64,causal=0"
  const unsigned char *cubin; // null when absent
  size_t cubinSize;
  const char *metadata;     // NUL-terminated; null when absent
  const char *absentReason; // why it is absent; null when present
};

/// Every embedded kernel variant, present or absent; null-terminated.
extern const EmbeddedKernel *const embeddedKernels[];

} // namespace jfa::rt::detail

#endif // JFA_RUNTIME_EMBEDDEDKERNELS_H
