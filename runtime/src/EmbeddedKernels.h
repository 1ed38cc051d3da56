//===- EmbeddedKernels.h - cubins compiled into the library -----*- C++ -*-===//
//
// The kernels runtime/cmake/EmbedAttentionKernels.cmake compiles with jfac at
// build time; each is defined in a generated source file (see
// runtime/cmake/EmbedKernelWrite.cmake). A kernel that could not be built is
// present with a null cubin and the reason.
//
//===----------------------------------------------------------------------===//
#ifndef JFA_RUNTIME_EMBEDDEDKERNELS_H
#define JFA_RUNTIME_EMBEDDEDKERNELS_H

#include <cstddef>

namespace jfa::rt::detail {

struct EmbeddedKernel {
  const unsigned char *cubin; // null when absent
  size_t cubinSize;
  const char *metadata;     // NUL-terminated; null when absent
  const char *absentReason; // why it is absent; null when present
};

extern const EmbeddedKernel embedded_attention_fwd_sm90;
extern const EmbeddedKernel embedded_attention_fwd_sm100;

} // namespace jfa::rt::detail

#endif // JFA_RUNTIME_EMBEDDEDKERNELS_H
