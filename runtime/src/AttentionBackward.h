//===- AttentionBackward.h - the backward's kernels ------------*- C++ -*-===//
//
// The four kernels of one jagged attention backward per target, read from a
// kernel folder or the library's embedded cubins, and the launch sequence.
// Attention (Attention.cpp) holds one BackwardKernels and forwards
// Attention::backward to it.
//
//===----------------------------------------------------------------------===//
#ifndef JFA_RUNTIME_ATTENTIONBACKWARD_H
#define JFA_RUNTIME_ATTENTIONBACKWARD_H

#include "jfa/attention.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace jfa {
struct Target;
} // namespace jfa

namespace jfa::rt::detail {

class BackwardKernels {
public:
  /// The backward kernels among `files` (names in the folder `dir`):
  /// attention_bwd_<suffix>_<arch>.<variant>.cubin for each target and
  /// attention_bwd_{delta,schedule,dq_convert}_<arch>.cubin, each with its
  /// .meta. A target lacking some, or with one whose metadata does not fit,
  /// is recorded: backward fails on its devices, saying why.
  static std::unique_ptr<BackwardKernels>
  fromFolder(const std::string &dir, const std::vector<std::string> &files);
  /// The backward's kernels embedded in the library at build time
  /// (EmbeddedKernels.h). A target lacking one, or with one that does not
  /// fit, is recorded with the reason.
  static std::unique_ptr<BackwardKernels> fromEmbedded();

  ~BackwardKernels();

  /// Whether target `arch` has every kernel; why not.
  bool has(const std::string &arch) const;
  std::string whyNot(const std::string &arch) const;

  void run(const AttentionBackwardArgs &args, CUstream stream);
  /// Why target `arch` cannot write a schedule (its schedule kernel is
  /// absent or does not fit); "" when it can.
  std::string scheduleWhyNot(const std::string &arch) const;
  /// Writes a work queue's schedule with target `arch`'s
  /// attention_bwd_schedule: the (sequence, 128-row tile) pairs, `tiles` per
  /// sequence, that hold rows of `offsets`' sequences, longest sequence
  /// first, and the queue's counter zeroed; `schedule` holds 2 + batch *
  /// tiles int32. The forward's queue, over its query sequences. With
  /// `blockAligned` the tiles lie on the packed axis's 128-token grid (a
  /// block-sparse forward; `tiles` must allow for the extra one a sequence
  /// may span). `tileRows`: the tiles' rows (the forward's q tile: 128, or
  /// 192 for the sm_90a D = 64 forward). Throws, saying why, when the target
  /// has no usable schedule kernel.
  void writeSchedule(const std::string &arch, CUdeviceptr offsets,
                     CUdeviceptr schedule, int64_t batch, int64_t tiles,
                     bool blockAligned, int64_t tileRows, CUstream stream);

  struct Image;
  struct TargetKernels;

private:
  /// An image of `kernel` for target `t`; throws an Error naming `source`
  /// when its metadata does not describe it or its parameters cannot be
  /// bound.
  static Image makeImage(const std::string &kernel, const jfa::Target &t,
                         std::string cubin, std::string metadata,
                         std::string source);

  BackwardKernels();
  /// Target `arch`'s kernels; null for an arch no target has.
  const TargetKernels *targetFor(const std::string &arch) const;
  std::vector<TargetKernels> targets;
  std::mutex mutex;
  std::map<std::pair<CUcontext, const Image *>, Module> modules;

  const Module &moduleFor(CUcontext context, const Image &image);
};

} // namespace jfa::rt::detail

#endif // JFA_RUNTIME_ATTENTIONBACKWARD_H
