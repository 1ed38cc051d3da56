//===- AttentionCommon.h - attention entry points' shared parts -*- C++ -*-===//
//
// What the attention entry points (forward, backward) share: argument
// checks, and the kernels' compile-time parameters as the metadata records
// them, read from a kernel folder.
//
//===----------------------------------------------------------------------===//
#ifndef JFA_RUNTIME_ATTENTIONCOMMON_H
#define JFA_RUNTIME_ATTENTIONCOMMON_H

#include "jfa/attention.hpp"
#include "jfa/runtime.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

namespace jfa::rt::detail {

constexpr int64_t kInt32Max = INT32_MAX;
/// The most units a work queue (kernels/lib/work_queue.mlir) may hand out:
/// its 32-bit counter goes past the last unit by two fetches per CTA (the
/// take that ends a CTA's loop and the fetch ahead of it), and a grid has
/// at most one CTA per multiprocessor.
constexpr int64_t kMaxQueueUnits = kInt32Max - 2 * 4096;

/// Sizes are >= 0 and fit the kernels' i32 parameters.
inline void checkSize(const char *name, int64_t v) {
  if (v < 0)
    throw Error(fmt::format("{} must be >= 0, got {}", name, v));
  if (v > kInt32Max)
    throw Error(fmt::format("{} {} does not fit the kernels' 32-bit "
                            "parameters (at most {})",
                            name, v, kInt32Max));
}

/// q, k, v and o: bf16 [T, H, D] with strides [>= H*D, D, 1], the token
/// stride a multiple of 8 elements (16 bytes) and a 16-byte aligned base.
/// `headsName` names where numHeads comes from in the messages (k and v of
/// grouped-query attention: "num_kv_heads").
inline void checkTensor(const char *name, CUdeviceptr data,
                        const std::array<int64_t, 3> &strides, int64_t numHeads,
                        int64_t headDim, bool hasWork, bool isOutput,
                        const char *headsName = "num_heads") {
  if (strides[2] != 1)
    throw Error(fmt::format("{}_strides[2] (the dim stride) must be 1, got {}",
                            name, strides[2]));
  if (strides[1] != headDim)
    throw Error(fmt::format("{}_strides[1] (the head stride) must equal "
                            "head_dim {}, got {}",
                            name, headDim, strides[1]));
  int64_t row = numHeads * headDim;
  if (strides[0] < row)
    throw Error(fmt::format("{}_strides[0] (the token stride) must be at least "
                            "{} * head_dim = {}, got {}",
                            name, headsName, row, strides[0]));
  if (strides[0] % 8 != 0)
    throw Error(fmt::format("{}_strides[0] (the token stride) must be a "
                            "multiple of 8 elements (16 bytes, a TMA rule), "
                            "got {}",
                            name, strides[0]));
  // TMA strides are below 2^40 bytes; o's is a 32-bit kernel parameter.
  int64_t limit = isOutput ? kInt32Max : (int64_t(1) << 39) - 1;
  if (strides[0] > limit)
    throw Error(fmt::format("{}_strides[0] (the token stride) {} is too large "
                            "(at most {})",
                            name, strides[0], limit));
  if (!hasWork)
    return;
  if (data == 0)
    throw Error(fmt::format("{} is a null address", name));
  if (data % 16 != 0)
    throw Error(fmt::format("{} must be 16-byte aligned{}, got address {:#x}",
                            name, isOutput ? "" : " (a TMA rule)", data));
}

inline void checkPointer(const char *name, CUdeviceptr data, unsigned alignment,
                         bool hasWork) {
  if (!hasWork)
    return;
  if (data == 0)
    throw Error(fmt::format("{} is a null address", name));
  if (data % alignment != 0)
    throw Error(fmt::format("{} must be {}-byte aligned, got address {:#x}",
                            name, alignment, data));
}

/// Compile-time parameters, name -> value, the values as the metadata writes
/// them with booleans as 0/1 (jfac -P causal=1 and "causal": true agree).
using Params = std::map<std::string, std::string>;

inline std::string normalizeValue(const std::string &v) {
  if (v == "true")
    return "1";
  if (v == "false")
    return "0";
  return v;
}

inline Params normalize(const Params &params) {
  Params out;
  for (const auto &[name, value] : params)
    out[name] = normalizeValue(value);
  return out;
}

/// "head_dim=64,causal=0" (the embedding's text) as Params.
inline Params parseParams(const std::string &text) {
  Params out;
  size_t at = 0;
  while (at < text.size()) {
    size_t comma = text.find(',', at);
    std::string item = text.substr(at, comma - at);
    size_t eq = item.find('=');
    if (eq != std::string::npos)
      out[item.substr(0, eq)] = normalizeValue(item.substr(eq + 1));
    if (comma == std::string::npos)
      break;
    at = comma + 1;
  }
  return out;
}

inline std::string paramsText(const Params &params) {
  std::string out;
  for (const auto &[name, value] : params)
    out += fmt::format("{}{}={}", out.empty() ? "" : ", ", name, value);
  return out.empty() ? "no parameters" : out;
}

inline bool fileExists(const std::string &path) {
  return std::ifstream(path, std::ios::binary).good();
}

inline std::string readFile(const std::string &path, const char *what) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error(fmt::format("cannot read {} '{}'", what, path));
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// The 128-token tiles a kernel walks over a sequence of at most `longest`
/// tokens. On a block mask's grid (`onBlockGrid`: the block-sparse
/// variants) a sequence's tiles start at the block holding its first token,
/// so it may span one tile more (kernels/lib/work_queue.mlir's
/// @unit_sequences).
inline int64_t sequenceTiles(int64_t longest, int64_t tile, bool onBlockGrid) {
  int64_t spanned = onBlockGrid ? longest + tile - 1 : longest;
  return (spanned + tile - 1) / tile;
}

/// The longest query sequence a call can hold: the caller's max_seqlen, but
/// no sequence is longer than the T tokens there are, however loose the
/// bound (forward and backward arguments alike).
template <typename CallArgs> int64_t longestQueries(const CallArgs &a) {
  return std::min(a.maxSeqlen, a.totalTokens);
}

/// The keys' counterpart: max_seqlen_k, bounded by the T_k key tokens.
inline int64_t longestKeys(const AttentionOptions &o) {
  return std::min(o.maxSeqlenK, o.keyTokens);
}

/// The softmax scale a call uses: 1/sqrt(head_dim) for 0.
inline float effectiveScale(float softmaxScale, int64_t headDim) {
  return softmaxScale == 0.f ? float(1.0 / std::sqrt(double(headDim)))
                             : softmaxScale;
}

/// The kernels' scale in base 2: scale * log2(e).
inline float scaleLog2(float scale) {
  return float(double(scale) * 1.4426950408889634);
}

/// The compile-time parameter of the attention kernels' general variants:
/// a sliding window, grouped-query k/v heads and cross-attention (offsets_k)
/// are read only by the cubins compiled with general >= 1 (2 and 3: with
/// GDPA's silu or gelu_tanh in place of softmax); general=0 folds them away
/// (the plain forward and backward).
constexpr const char *kGeneralParam = "general";

/// The compile-time variant a call needs (normalized as the metadata's:
/// general "0".."3", AttentionOptions::general).
inline Params wantedParams(int64_t headDim, bool causal, int general) {
  return {{"causal", causal ? "1" : "0"},
          {kGeneralParam, std::to_string(general)},
          {"head_dim", std::to_string(headDim)}};
}

/// The part of validateAttentionArgs that looks at no tensor: dtypes, the
/// sizes and their consistency, the options (key sizes, num_kv_heads, the
/// window) and the scale. The backward's workspace size uses it too.
void validateAttentionSizes(const AttentionForwardArgs &args);

/// Copies the B + 1 offsets to the host in `stream`'s order (synchronizing
/// it) and checks them (checkOffsets, or checkKeyOffsets for `keys`): what
/// check_offsets asks of a pass.
inline void checkOffsetsOnDevice(CUdeviceptr offsets, int64_t batch,
                                 int64_t totalTokens, int64_t maxSeqlen,
                                 CUstream stream, bool keys = false) {
  std::vector<int32_t> host(size_t(batch) + 1);
  copyToHostOnStream(host.data(), offsets, host.size() * sizeof(int32_t),
                     stream);
  if (keys)
    checkKeyOffsets(host.data(), host.size(), totalTokens, maxSeqlen);
  else
    checkOffsets(host.data(), host.size(), totalTokens, maxSeqlen);
}

/// A forward variant a call may take (Attention::forward): its params,
/// whether its cubin is usable, whether it comes from a specialization of
/// the target's forward (attention_fwd_<target>_<tag>), and its q tile's
/// rows (attentionQTileRows).
struct ForwardVariant {
  const Params *params;
  bool present;
  bool specialization;
  int64_t qTileRows = kAttentionQTile;
};

/// What of a call, beyond its params, bears on the variant it takes: whether
/// its mask has a diagonal edge (causal or a window) and the bound of its
/// sequence lengths (max_seqlen, at most T: forwardQTiles' bound too).
struct ForwardCall {
  bool diagonal = false;
  int64_t maxSeqlen = 0;
};

/// The length bound from which a call with a diagonal edge prefers a
/// specialization with taller q tiles than the forward's (128 rows). A tile
/// on the diagonal does work for its masked half, and a short sequence's
/// last tile is emptier: at D = 64 causal the 192-row specialization (three
/// consumer warpgroups) gains on batches whose longest sequence is long and
/// loses on short ones. bench/NOTES.md run 97 measured it at -7.1% on
/// unif1k (longest sequence 1024), +3.2% on unif4k (4096) and +8.3% on
/// tail8k (8192); the bound sits between those points, not on a measured
/// crossover (bench/fwd_tile_sweep.py maps one).
constexpr int64_t kTallTileDiagonalMinSeqlen = 2048;

/// Whether `v` is the faster choice for `call` among variants of the same
/// params: a specialization with taller q tiles than the forward's is not
/// where the diagonal's cost outweighs its gain (kTallTileDiagonalMinSeqlen).
inline bool forwardVariantSuits(const ForwardVariant &v,
                                const ForwardCall &call) {
  return !v.specialization || v.qTileRows <= kAttentionQTile ||
         !call.diagonal || call.maxSeqlen >= kTallTileDiagonalMinSeqlen;
}

/// The variant a call that wants `wanted` takes: among those with these
/// params, a present one over an absent one (whose reason the call then
/// reports), then one that suits the call (forwardVariantSuits) over one
/// that does not (a speed rule never refuses a call a usable kernel), then
/// a specialization over the forward's own (which declares every variant:
/// the fallback); the first of equals. variants.size() when none has them.
inline size_t pickForwardVariant(const std::vector<ForwardVariant> &variants,
                                 const Params &wanted,
                                 const ForwardCall &call = {}) {
  auto rank = [&](const ForwardVariant &v) {
    return int(v.present) * 4 + int(forwardVariantSuits(v, call)) * 2 +
           int(v.specialization);
  };
  size_t best = variants.size();
  for (size_t i = 0; i < variants.size(); ++i)
    if (*variants[i].params == wanted &&
        (best == variants.size() || rank(variants[i]) > rank(variants[best])))
      best = i;
  return best;
}

} // namespace jfa::rt::detail

#endif // JFA_RUNTIME_ATTENTIONCOMMON_H
