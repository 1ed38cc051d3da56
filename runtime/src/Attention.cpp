//===- Attention.cpp - jagged attention forward entry point ---------------===//
//
// Argument checks (no GPU needed), the choice of kernel per device, lazy
// loading of the cubins per context, and the launch. The contract is
// kernels/jagged_attention/README.md.
//
//===----------------------------------------------------------------------===//
#include "jfa/attention.hpp"

#include "AttentionBackward.h"
#include "AttentionCommon.h"
#include "EmbeddedKernels.h"
#include "JFA/TargetDescription.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <tuple>
#include <utility>

namespace jfa::rt {

using namespace detail;

namespace {

/// Whether a call passes a block-sparse mask (the general 4-6 variants).
bool hasBlockMask(const AttentionForwardArgs &a) {
  return a.blockMaskHeads > 0;
}

/// The forward's q tiles (of the kernel's qTileRows rows) per sequence: of
/// max_seqlen, but no sequence is longer than T, however loose the bound
/// (the schedule holds B * q_tiles entries). A block-sparse forward places
/// its tiles on the mask's 128-token grid of the packed axis, so that no
/// tile straddles two blocks: a sequence may then span one tile more (from
/// the block holding its first token).
int64_t forwardQTiles(const AttentionForwardArgs &a,
                      int64_t qTileRows = kAttentionQTile) {
  return sequenceTiles(longestQueries(a), qTileRows, hasBlockMask(a));
}

/// B * H * q_tiles without overflow (each factor is below 2^31). 128-row
/// tiles bound every kernel's count (none has smaller ones:
/// attentionQTileRows).
__int128 workUnits(const AttentionForwardArgs &a,
                   int64_t qTileRows = kAttentionQTile) {
  return __int128(a.batch) * a.numHeads * forwardQTiles(a, qTileRows);
}

/// The kernels per target of the description (Targets.def): the forward
/// kernel of a target is attention_fwd_<its kernel suffix>
/// (attention_fwd_sm90 for sm_90a). Each is compiled once per compile-time
/// variant its source declares (`// jfa-variants: head_dim=64,128 causal=0,1
/// general=0,1,2,3,4,5,6`): in a kernel_dir as
/// <kernel>_<arch>.head_dim=64.causal=0.general=0.cubin (what
/// scripts/build-package.sh writes), in the library as one embedded kernel
/// each. A call picks the variant whose metadata "params" match its head
/// dim, mask and options (general: a window, GQA or cross-attention; a
/// GDPA activation; a block-sparse mask); the names are never parsed.
struct AttentionTarget {
  std::string kernel;
  const char *arch;
  std::string capability;
};
constexpr size_t kNumTargets = jfa::kNumTargets;
const AttentionTarget *targets() {
  static const std::vector<AttentionTarget> all = [] {
    std::vector<AttentionTarget> out;
    for (const jfa::Target &t : jfa::kTargets)
      out.push_back({fmt::format("attention_fwd_{}", t.kernelSuffix), t.name,
                     t.capability()});
    return out;
  }();
  return all.data();
}

std::string cubinPattern(const AttentionTarget &t) {
  return fmt::format("{}_{}.*.cubin", t.kernel, t.arch);
}

/// Whether `kernel` is target t's forward (attention_fwd_sm90) or one of its
/// specializations (attention_fwd_sm90_<tag>, tag letters and digits: a
/// kernel of its own for some of the variants, e.g. attention_fwd_sm90_q192
/// for D = 64). A call prefers a specialization's variant over the
/// forward's own, which declares every variant (the fallback), where it
/// suits the call (pickForwardVariant, AttentionCommon.h).
bool isForwardOf(const AttentionTarget &t, const std::string &kernel) {
  if (kernel == t.kernel)
    return true;
  if (kernel.size() <= t.kernel.size() + 1 ||
      kernel.compare(0, t.kernel.size() + 1, t.kernel + "_") != 0)
    return false;
  return std::all_of(kernel.begin() + t.kernel.size() + 1, kernel.end(),
                     [](char c) { return std::isalnum((unsigned char)c); });
}

/// The kernel a kernel_dir cubin of target t holds, from its name
/// (<kernel>_<arch>.<variant>.cubin): t's forward or a specialization; ""
/// for any other file.
std::string forwardKernelOfFile(const AttentionTarget &t,
                                const std::string &name) {
  std::string archPart = fmt::format("_{}.", t.arch);
  size_t at = name.find(archPart);
  if (at == std::string::npos || name.size() < 6 ||
      name.compare(name.size() - 6, 6, ".cubin") != 0 ||
      at + archPart.size() + 6 >= name.size())
    return "";
  std::string kernel = name.substr(0, at);
  return isForwardOf(t, kernel) ? kernel : "";
}

} // namespace

//===----------------------------------------------------------------------===//
// Checks without the GPU
//===----------------------------------------------------------------------===//

namespace {

/// How the offsets check names what it checks: the queries' offsets or a
/// cross-attention's key offsets.
struct OffsetsNames {
  const char *array; // "offsets"
  const char *total; // "total_tokens T"
  const char *max;   // "max_seqlen"
  const char *unit;  // "tokens"
};
constexpr OffsetsNames kQueryOffsets{"offsets", "total_tokens T", "max_seqlen",
                                     "tokens"};
constexpr OffsetsNames kKeyOffsets{"offsets_k", "total_tokens_k T_k",
                                   "max_seqlen_k", "keys"};

void checkOffsetsNamed(const int32_t *offsets, size_t count,
                       int64_t totalTokens, int64_t maxSeqlen,
                       const OffsetsNames &n) {
  if (count == 0)
    throw Error(fmt::format("{0} must have at least one element ([B + 1], "
                            "{0}[0] = 0), got none",
                            n.array));
  if (!offsets)
    throw Error(fmt::format("{} is a null host address", n.array));
  if (offsets[0] != 0)
    throw Error(fmt::format("{}[0] must be 0, got {}", n.array, offsets[0]));
  for (size_t i = 1; i < count; ++i) {
    int64_t cur = offsets[i], prev = offsets[i - 1];
    if (cur < prev)
      throw Error(fmt::format("{0} must be non-decreasing: {0}[{1}] = "
                              "{2} is less than {0}[{3}] = {4}",
                              n.array, i, cur, i - 1, prev));
    if (cur > totalTokens)
      throw Error(fmt::format("{}[{}] = {} is more than {} = {}", n.array, i,
                              cur, n.total, totalTokens));
    if (cur - prev > maxSeqlen)
      throw Error(fmt::format("sequence {0} ({1}[{2}] - {1}[{0}]) has "
                              "{3} {4}, more than {5} = {6}",
                              i - 1, n.array, i, cur - prev, n.unit, n.max,
                              maxSeqlen));
  }
  if (offsets[count - 1] != totalTokens)
    throw Error(fmt::format("{0}[{1}] ({0}[batch]) must equal "
                            "{2} = {3}, got {4}",
                            n.array, count - 1, n.total, totalTokens,
                            offsets[count - 1]));
}

} // namespace

void checkOffsets(const int32_t *offsets, size_t count, int64_t totalTokens,
                  int64_t maxSeqlen) {
  checkOffsetsNamed(offsets, count, totalTokens, maxSeqlen, kQueryOffsets);
}

void checkKeyOffsets(const int32_t *offsetsK, size_t count,
                     int64_t totalTokensK, int64_t maxSeqlenK) {
  checkOffsetsNamed(offsetsK, count, totalTokensK, maxSeqlenK, kKeyOffsets);
}

AttentionActivation attentionActivation(const std::string &name) {
  if (name == "softmax")
    return AttentionActivation::Softmax;
  if (name == "silu")
    return AttentionActivation::Silu;
  if (name == "gelu_tanh")
    return AttentionActivation::GeluTanh;
  throw Error(fmt::format(
      "activation '{}' is not supported; the kernels take \"softmax\" (the "
      "default; NULL in the C API), or GDPA's \"silu\" or \"gelu_tanh\"",
      name));
}

/// Blocks of a block-sparse mask along an axis of `tokens` tokens.
static int64_t maskBlocks(int64_t tokens) {
  return (std::max<int64_t>(tokens, 0) + kAttentionMaskBlock - 1) /
         kAttentionMaskBlock;
}

int64_t blockMaskWords(int64_t totalTokensK) {
  return std::max<int64_t>(1, (maskBlocks(totalTokensK) + 31) / 32);
}

size_t blockMaskBitsBytes(int64_t heads, int64_t totalTokens,
                          int64_t totalTokensK) {
  return size_t(std::max<int64_t>(heads, 0)) * size_t(maskBlocks(totalTokens)) *
         size_t(blockMaskWords(totalTokensK)) * 4;
}

void blockMaskFromLists(const int32_t *kvNumBlocks, const int32_t *kvIndices,
                        const int32_t *fullKvNumBlocks,
                        const int32_t *fullKvIndices, int64_t heads,
                        int64_t qBlocks, int64_t maxKvBlocks,
                        int64_t totalTokens, int64_t totalTokensK,
                        uint32_t *bits, size_t bitsBytes) {
  if (heads < 1)
    throw Error(fmt::format("heads must be at least 1, got {}", heads));
  if (totalTokens < 0 || totalTokensK < 0)
    throw Error(fmt::format("total_tokens ({}) and total_tokens_k ({}) must "
                            "not be negative",
                            totalTokens, totalTokensK));
  if (qBlocks != maskBlocks(totalTokens))
    throw Error(fmt::format("the lists have {} q blocks; T = {} tokens make "
                            "ceil(T / {}) = {}",
                            qBlocks, totalTokens, kAttentionMaskBlock,
                            maskBlocks(totalTokens)));
  if (maxKvBlocks < 0)
    throw Error(
        fmt::format("max_kv_blocks must not be negative, got {}", maxKvBlocks));
  int64_t words = blockMaskWords(totalTokensK);
  // The sizes in 128 bits: no product below wraps.
  __int128 needWide = __int128(heads) * qBlocks * words * 4;
  __int128 listWide = __int128(heads) * qBlocks * maxKvBlocks;
  if (needWide > __int128(SIZE_MAX / 2) || listWide > __int128(INT64_MAX))
    throw Error(fmt::format("a mask of {} heads x {} q blocks x {} key blocks "
                            "is too large to index",
                            heads, qBlocks, maskBlocks(totalTokensK)));
  size_t need = size_t(needWide);
  if (bitsBytes < need)
    throw Error(fmt::format("bits has {} bytes; the mask needs {} "
                            "(jfa_attention_block_mask_bytes)",
                            bitsBytes, need));
  if (heads * qBlocks > 0 && (!kvNumBlocks || (maxKvBlocks > 0 && !kvIndices)))
    throw Error("kv_num_blocks and kv_indices must not be NULL");
  if (!fullKvNumBlocks != !fullKvIndices)
    throw Error("full_kv_num_blocks and full_kv_indices go together: pass "
                "both (a BlockMask's full blocks) or neither");
  if (need > 0 && !bits)
    throw Error("bits must not be NULL");
  int64_t keyBlocks = maskBlocks(totalTokensK);
  std::fill(bits, bits + need / 4, 0u);
  // FlexAttention lists a block once: in the partial lists (masked element
  // by element) or the full ones (attended whole); both are listed here.
  auto list = [&](const int32_t *num, const int32_t *idx, const char *what) {
    for (int64_t row = 0; row < heads * qBlocks; ++row) {
      int64_t h = row / qBlocks, qb = row % qBlocks;
      int32_t n = num[row];
      if (n < 0 || n > maxKvBlocks)
        throw Error(fmt::format("{}kv_num_blocks[{}][{}] = {} is outside "
                                "[0, {}] (the kv_indices row's length)",
                                what, h, qb, n, maxKvBlocks));
      for (int32_t i = 0; i < n; ++i) {
        int32_t kb = idx[row * maxKvBlocks + i];
        if (kb < 0 || kb >= keyBlocks)
          throw Error(fmt::format("{}kv_indices[{}][{}][{}] = {} is outside "
                                  "[0, {}) (ceil(T_k / {}) key blocks)",
                                  what, h, qb, i, kb, keyBlocks,
                                  kAttentionMaskBlock));
        bits[row * words + kb / 32] |= 1u << (kb % 32);
      }
    }
  };
  list(kvNumBlocks, kvIndices, "");
  if (fullKvNumBlocks)
    list(fullKvNumBlocks, fullKvIndices, "full_");
}

bool attentionHasWork(const AttentionForwardArgs &a) {
  return a.totalTokens > 0 && a.numHeads > 0 && a.batch > 0 && a.maxSeqlen > 0;
}

AttentionOptions attentionOptions(const AttentionForwardArgs &a) {
  AttentionOptions o;
  o.cross = a.offsetsK != 0;
  o.keyTokens = o.cross ? a.totalTokensK : a.totalTokens;
  o.maxSeqlenK = o.cross ? a.maxSeqlenK : a.maxSeqlen;
  o.kvHeads = a.numKvHeads != 0 ? a.numKvHeads : a.numHeads;
  o.kvGroup = o.kvHeads > 0 && a.numHeads > 0 ? a.numHeads / o.kvHeads : 1;
  o.window = a.windowLeft >= 0 || (a.windowRight >= 0 && !a.causal);
  o.activation = attentionActivation(a.activation);
  o.gdpa = o.activation != AttentionActivation::Softmax;
  // GDPA runs in the general variant only: 2 silu, 3 gelu_tanh; a
  // block-sparse mask in 4 + the activation.
  o.sparse = hasBlockMask(a);
  o.general = o.sparse                                ? 4 + int(o.activation)
              : o.gdpa                                ? 1 + int(o.activation)
              : o.window || o.cross || o.kvGroup != 1 ? 1
                                                      : 0;
  if (o.sparse) {
    o.blockWords = blockMaskWords(o.keyTokens);
    o.blockHeadStride =
        a.blockMaskHeads > 1 ? maskBlocks(a.totalTokens) * o.blockWords : 0;
  }
  if (o.window) {
    // Query i of a sequence sees keys up to i + shift + right, shift =
    // len_k - len_q: right >= len_q - 1 bounds nothing, nor does left >=
    // len_k - 1 (i + shift <= len_k - 1). So the bounds clamp exactly to
    // any bound of the lengths: max_seqlen(_k), or the token counts.
    int64_t maxLenQ = longestQueries(a);
    int64_t maxLenK = longestKeys(o);
    o.windowLeft = a.windowLeft >= 0 ? std::min(a.windowLeft, maxLenK) : -1;
    o.windowRight = a.windowRight >= 0 ? std::min(a.windowRight, maxLenQ) : -1;
  }
  return o;
}

bool attentionLaunchesKernel(const AttentionForwardArgs &a) {
  return attentionHasWork(a) && attentionOptions(a).keyTokens > 0;
}

namespace detail {

/// total_tokens<suffix> against batch and max_seqlen<suffix>, for the
/// queries (suffix "") or the keys of cross-attention ("_k"): tokens with
/// no sequence, or more than batch sequences of max_seqlen can hold.
static void checkTokensFit(int64_t batch, int64_t tokens, int64_t maxSeqlen,
                           const char *suffix, const char *units,
                           const char *sequence) {
  if (tokens > 0 && batch == 0)
    throw Error(fmt::format("batch is 0 but total_tokens{} is {}: the {} "
                            "belong to no sequence",
                            suffix, tokens, units));
  if (tokens > 0 && maxSeqlen == 0)
    throw Error(fmt::format("max_seqlen{0} is 0 but total_tokens{0} is {1}: "
                            "max_seqlen{0} must be at least the longest {2}",
                            suffix, tokens, sequence));
  if (__int128(batch) * maxSeqlen < tokens)
    throw Error(fmt::format("total_tokens{0} {1} is more than batch * "
                            "max_seqlen{0} = {2}: max_seqlen{0} must be at "
                            "least the longest {3}",
                            suffix, tokens,
                            int64_t(__int128(batch) * maxSeqlen), sequence));
}

void validateAttentionSizes(const AttentionForwardArgs &a) {
  if (a.dtype != "bf16")
    throw Error(fmt::format(
        "dtype '{}' is not supported; q, k, v and o must be bf16", a.dtype));
  if (a.offsetsDtype != "i32")
    throw Error(
        fmt::format("offsets_dtype '{}' is not supported; offsets must be i32",
                    a.offsetsDtype));
  attentionActivation(a.activation);
  checkSize("total_tokens", a.totalTokens);
  checkSize("num_heads", a.numHeads);
  checkSize("head_dim", a.headDim);
  checkSize("batch", a.batch);
  checkSize("max_seqlen", a.maxSeqlen);
  checkSize("num_kv_heads", a.numKvHeads);
  checkSize("total_tokens_k", a.totalTokensK);
  checkSize("max_seqlen_k", a.maxSeqlenK);
  if (a.headDim != 64 && a.headDim != 128)
    throw Error(fmt::format(
        "head_dim {} is not supported; the kernels take 64 or 128", a.headDim));
  checkTokensFit(a.batch, a.totalTokens, a.maxSeqlen, "", "tokens", "sequence");
  // The keys: the queries' tokens, or (cross-attention) offsets_k's.
  if (a.offsetsK == 0) {
    const std::pair<const char *, int64_t> keySizes[] = {
        {"total_tokens_k", a.totalTokensK}, {"max_seqlen_k", a.maxSeqlenK}};
    for (const auto &[name, value] : keySizes)
      if (value != 0)
        throw Error(fmt::format(
            "{} is {} but offsets_k is 0: without offsets_k the keys are the "
            "queries' tokens (self-attention); pass offsets_k for keys of "
            "other lengths (cross-attention), or leave {} 0",
            name, value, name));
  } else {
    checkTokensFit(a.batch, a.totalTokensK, a.maxSeqlenK, "_k", "keys",
                   "key sequence");
  }
  if (a.numKvHeads != 0 && a.numHeads % a.numKvHeads != 0)
    throw Error(fmt::format(
        "num_heads {} is not a multiple of num_kv_heads {} (grouped-query "
        "attention: each k/v head serves num_heads / num_kv_heads q heads)",
        a.numHeads, a.numKvHeads));
  const std::pair<const char *, int64_t> windows[] = {
      {"window_left", a.windowLeft}, {"window_right", a.windowRight}};
  for (const auto &[name, value] : windows)
    if (value < -1)
      throw Error(fmt::format("{} must be -1 (unbounded) or >= 0, got {}", name,
                              value));
  if (a.causal && a.windowRight > 0)
    throw Error(fmt::format(
        "causal and window_right = {0} conflict: causal already means "
        "window_right = 0 (no key after the diagonal); pass causal with "
        "window_right 0 or -1, or window_right = {0} without causal",
        a.windowRight));
  checkSize("block_mask_heads", a.blockMaskHeads);
  if (a.blockMaskHeads != 0 && a.blockMaskHeads != 1 &&
      a.blockMaskHeads != a.numHeads)
    throw Error(fmt::format(
        "block_mask_heads {} is neither 0 (no block mask), 1 (one mask for "
        "every head) nor num_heads {} (one mask per q head)",
        a.blockMaskHeads, a.numHeads));
  if (a.blockMaskHeads == 0 && a.blockMaskBits != 0)
    throw Error("block_mask_bits is set but block_mask_heads is 0: pass the "
                "mask's heads (1, or num_heads), or leave block_mask_bits 0");
  if (a.blockMaskHeads > 0) {
    int64_t keyTokens = a.offsetsK != 0 ? a.totalTokensK : a.totalTokens;
    __int128 words = __int128(a.blockMaskHeads) * maskBlocks(a.totalTokens) *
                     blockMaskWords(keyTokens);
    if (words > kInt32Max)
      throw Error(fmt::format(
          "the block mask's {} words (block_mask_heads * ceil(total_tokens / "
          "128) * ceil(ceil(T_k / 128) / 32)) do not fit the kernels' 32-bit "
          "indices (at most {})",
          int64_t(words), kInt32Max));
  }
  if (workUnits(a) > kMaxQueueUnits)
    throw Error(fmt::format(
        "batch * num_heads * ceil({} / 128) work units do not fit the "
        "kernels' 32-bit indices (at most {})",
        // A block mask's grid: a sequence may span one tile more.
        hasBlockMask(a) ? "(max_seqlen + 127)" : "max_seqlen", kMaxQueueUnits));
  if (!std::isfinite(a.softmaxScale) || a.softmaxScale < 0.f)
    throw Error(fmt::format("softmax_scale must be positive and finite (0 "
                            "means 1/sqrt(head_dim)), got {}",
                            a.softmaxScale));
}

} // namespace detail

void validateAttentionArgs(const AttentionForwardArgs &a) {
  validateAttentionSizes(a);
  bool work = attentionHasWork(a);
  AttentionOptions opt = attentionOptions(a);
  // k and v are not read when there are no keys (no launch).
  bool keys = work && opt.keyTokens > 0;
  const char *kvHeadsName = a.numKvHeads != 0 ? "num_kv_heads" : "num_heads";
  checkTensor("q", a.q, a.qStrides, a.numHeads, a.headDim, work, false);
  checkTensor("k", a.k, a.kStrides, opt.kvHeads, a.headDim, keys, false,
              kvHeadsName);
  checkTensor("v", a.v, a.vStrides, opt.kvHeads, a.headDim, keys, false,
              kvHeadsName);
  checkTensor("o", a.o, a.oStrides, a.numHeads, a.headDim, work, true);
  // GDPA has no lse: not written, so not looked at (it may be 0).
  checkPointer("lse", a.lse, 4, work && !opt.gdpa);
  checkPointer("offsets", a.offsets, 4, work);
  if (opt.cross)
    checkPointer("offsets_k", a.offsetsK, 4, work);
  if (opt.sparse)
    checkPointer("block_mask_bits", a.blockMaskBits, 4, keys);
  // The kernels address o and lse with 32-bit element offsets: past 2^31
  // elements they would write the wrong places.
  __int128 oElements = __int128(a.totalTokens) * a.oStrides[0];
  if (oElements > kInt32Max)
    throw Error(fmt::format("o spans {} elements (total_tokens * "
                            "o_strides[0]); the kernels address at most {}: "
                            "split the batch into calls of fewer tokens",
                            int64_t(oElements), kInt32Max));
  // lse has num_heads * total_tokens < total_tokens * o_strides[0]
  // elements: it fits when o does.
}

AttentionKernelChoice attentionKernelFor(int major, int minor) {
  // An "a" target's code loads on its own compute capability only (sm_100a:
  // 10.0, B200/GB200).
  for (size_t i = 0; i < kNumTargets; ++i)
    if (jfa::kTargets[i].ccMajor == major && jfa::kTargets[i].ccMinor == minor)
      return {targets()[i].kernel, targets()[i].arch};
  std::string supported;
  for (size_t i = 0; i < kNumTargets; ++i)
    supported += fmt::format("{}{} ({})",
                             i == 0                ? ""
                             : i + 1 < kNumTargets ? ", "
                                                   : " and ",
                             targets()[i].capability, targets()[i].arch);
  throw Error(fmt::format("jagged attention does not support this device "
                          "(compute capability {}.{}); the kernels run on "
                          "compute capability {}",
                          major, minor, supported));
}

unsigned attentionGrid(const AttentionForwardArgs &a, int multiprocessors,
                       int64_t qTileRows) {
  __int128 units = workUnits(a, qTileRows);
  __int128 grid =
      multiprocessors > 0 && units > multiprocessors ? multiprocessors : units;
  return grid < 1 ? 1u : unsigned(grid);
}

size_t attentionScheduleBytes(const AttentionForwardArgs &a,
                              int64_t qTileRows) {
  return (2 + size_t(a.batch) * size_t(forwardQTiles(a, qTileRows))) *
         sizeof(int32_t);
}

std::vector<Arg> attentionKernelArgs(const AttentionForwardArgs &a,
                                     CUdeviceptr schedule, int64_t qTileRows) {
  AttentionOptions opt = attentionOptions(a);
  auto tensor = [&](CUdeviceptr p, const std::array<int64_t, 3> &s,
                    int64_t tokens, int64_t heads) {
    return Arg::tensor(p, "bf16",
                       {uint64_t(tokens), uint64_t(heads * a.headDim)},
                       {uint64_t(s[0]), 1});
  };
  // The last three, the block-sparse mask (block_bits, block_words,
  // block_head_stride), are read only by the block-sparse variants.
  return {tensor(a.q, a.qStrides, a.totalTokens, a.numHeads),
          tensor(a.k, a.kStrides, opt.keyTokens, opt.kvHeads),
          tensor(a.v, a.vStrides, opt.keyTokens, opt.kvHeads),
          Arg::pointer(a.o),
          Arg::pointer(a.lse),
          Arg::pointer(a.offsets),
          Arg::i32(int32_t(a.batch)),
          Arg::i32(int32_t(a.numHeads)),
          Arg::i32(int32_t(a.totalTokens)),
          Arg::i32(int32_t(a.oStrides[0])),
          Arg::i32(int32_t(forwardQTiles(a, qTileRows))),
          Arg::f32(scaleLog2(effectiveScale(a.softmaxScale, a.headDim))),
          Arg::pointer(opt.cross ? a.offsetsK : a.offsets),
          Arg::i32(int32_t(opt.kvGroup)),
          Arg::i32(int32_t(opt.windowLeft)),
          Arg::i32(int32_t(opt.windowRight)),
          Arg::pointer(opt.sparse ? a.blockMaskBits : 0),
          Arg::i32(int32_t(opt.blockWords)),
          Arg::i32(int32_t(opt.blockHeadStride)),
          Arg::pointer(schedule),
          tensor(a.o, a.oStrides, a.totalTokens, a.numHeads)};
}

void checkAttentionKernelInfo(const KernelInfo &k,
                              const std::string &expectedArch,
                              const std::string &source) {
  std::string where = fmt::format("{}: kernel '{}'", source, k.name);
  if (k.arch != expectedArch)
    throw Error(fmt::format("{} is built for {}, expected {}", where,
                            k.arch.empty() ? "an unnamed arch" : k.arch,
                            expectedArch));
  struct Expected {
    ParamKind kind;
    const char *elementType;
  };
  static const Expected expected[] = {
      {ParamKind::TensorMap, "bf16"},
      {ParamKind::TensorMap, "bf16"},
      {ParamKind::TensorMap, "bf16"},
      {ParamKind::Pointer, "bf16"},
      {ParamKind::Pointer, "f32"},
      {ParamKind::Pointer, "i32"},
      {ParamKind::I32, ""},
      {ParamKind::I32, ""},
      {ParamKind::I32, ""},
      {ParamKind::I32, ""},
      {ParamKind::I32, ""},
      {ParamKind::F32, ""},
      {ParamKind::Pointer, "i32"},
      {ParamKind::I32, ""},
      {ParamKind::I32, ""},
      {ParamKind::I32, ""},
      // The block-sparse mask: block_bits, block_words, block_head_stride.
      {ParamKind::Pointer, "i32"},
      {ParamKind::I32, ""},
      {ParamKind::I32, ""},
      // The work queue's schedule.
      {ParamKind::Pointer, "i32"},
      // o again, as a TMA tensor (both forwards' whole-tile stores of O).
      {ParamKind::TensorMap, "bf16"},
  };
  constexpr size_t n = sizeof(expected) / sizeof(expected[0]);
  if (k.params.size() != n)
    throw Error(fmt::format(
        "{} has {} parameters; the jagged attention contract has {} (a cubin "
        "built from another version of kernels/jagged_attention: rebuild it)",
        where, k.params.size(), n));
  for (size_t i = 0; i < n; ++i) {
    const ParamSpec &p = k.params[i];
    const Expected &e = expected[i];
    bool typed = e.kind == ParamKind::TensorMap || e.kind == ParamKind::Pointer;
    if (p.kind != e.kind || (typed && p.elementType != e.elementType))
      throw Error(fmt::format(
          "{}: parameter {} is {}{}{}; the jagged attention contract has "
          "{}{}{}",
          where, i, paramKindName(p.kind), p.elementType.empty() ? "" : " ",
          p.elementType, paramKindName(e.kind), typed ? " " : "",
          e.elementType));
    if (p.kind == ParamKind::TensorMap && p.box.size() != 2)
      throw Error(fmt::format("{}: parameter {} has a rank-{} TMA box; the "
                              "contract has 2-d [tokens, heads * dim] tensors",
                              where, i, p.box.size()));
  }
  for (const char *name : {"head_dim", "causal", kGeneralParam})
    if (!k.compileParams.count(name))
      throw Error(fmt::format(
          "{} was compiled without the compile-time parameter '{}' (its "
          "metadata has no params.{}); rebuild it with jfac -P {}=...",
          where, name, name, name));
}

int64_t attentionQTileRows(const KernelInfo &k, const std::string &source) {
  const ParamSpec &q = k.params.front(), &o = k.params.back();
  int64_t rows = q.box.front();
  // At least 128: the runtime's bound on the work units (workUnits at 128
  // rows) holds for larger tiles only.
  if (rows % 64 != 0 || rows < 128 || rows > 256 || o.box.front() != rows)
    throw Error(fmt::format(
        "{}: kernel '{}' has a q TMA box of {} rows and an o TMA box of {}; "
        "the jagged attention contract has one q tile for both, a multiple "
        "of 64 rows from 128 to 256",
        source, k.name, rows, o.box.front()));
  return rows;
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

struct Attention::Impl {
  struct Image {
    bool present = false;
    std::string absent; // the error when absent
    std::string owned;  // cubin bytes read from a file
    const void *cubin = nullptr;
    size_t size = 0;
    std::string metadata;
    std::string metadataSource; // names the metadata in errors
    Params params;              // normalized
    int64_t qTileRows = kAttentionQTile; // the kernel's (attentionQTileRows)
    std::string kernel; // the target's forward or a specialization of it
  };
  /// Per target: its variants, and why there are none when there are none.
  std::vector<Image> images[kNumTargets];
  std::string none[kNumTargets];
  std::mutex mutex;
  /// Loaded modules, per context, target and variant.
  std::map<std::tuple<CUcontext, size_t, size_t>, Module> modules;
  /// The backward's kernels (from the kernel folder or the library).
  std::unique_ptr<BackwardKernels> backward;

  size_t indexOf(const std::string &arch) const {
    for (size_t i = 0; i < kNumTargets; ++i)
      if (arch == targets()[i].arch)
        return i;
    throw Error(fmt::format("no jagged attention kernel for arch '{}'", arch));
  }

  /// Parses and checks an image's metadata for its kernel `img.kernel`;
  /// returns its params and sets `img.qTileRows` to its q tile.
  static Params check(const AttentionTarget &t, const std::string &metadata,
                      const std::string &source, Image &img) {
    std::vector<KernelInfo> kernels = parseMetadata(metadata, source);
    for (const KernelInfo &k : kernels)
      if (k.name == img.kernel) {
        checkAttentionKernelInfo(k, t.arch, source);
        img.qTileRows = attentionQTileRows(k, source);
        Params params = normalize(k.compileParams);
        // A block mask's grid is 128 tokens: its tiles are 128 rows.
        auto general = params.find(kGeneralParam);
        if (general != params.end() &&
            std::strtol(general->second.c_str(), nullptr, 10) >= 4 &&
            img.qTileRows != kAttentionQTile)
          throw Error(fmt::format(
              "{}: kernel '{}' is a block-sparse variant (general={}) with "
              "q tiles of {} rows; block-sparse kernels take the mask's "
              "128-token blocks as their q tiles",
              source, k.name, general->second, img.qTileRows));
        return params;
      }
    throw Error(fmt::format("{}: no kernel named '{}'", source, img.kernel));
  }

  bool anyPresent(size_t target) const {
    for (const Image &img : images[target])
      if (img.present)
        return true;
    return false;
  }

  /// Why target has no usable variant.
  std::string whyNone(size_t target) const {
    if (!none[target].empty())
      return none[target];
    for (const Image &img : images[target])
      if (!img.present)
        return img.absent;
    return "";
  }
};

Attention::Attention(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}
Attention::Attention(Attention &&) noexcept = default;
Attention &Attention::operator=(Attention &&) noexcept = default;
Attention::~Attention() = default;

Attention Attention::load(const std::string &kernelDir) {
  if (kernelDir.empty())
    throw Error("kernel_dir is empty");
  auto impl = std::make_unique<Impl>();
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(kernelDir, ec))
    throw Error(fmt::format("kernel_dir '{}' is not a folder", kernelDir));
  // The cubins, sorted so that errors and the choice among duplicates do
  // not depend on the directory's order.
  std::vector<std::string> files;
  for (fs::directory_iterator it(kernelDir, ec), end; !ec && it != end;
       it.increment(ec))
    files.push_back(it->path().filename().string());
  if (ec)
    throw Error(fmt::format("cannot list kernel_dir '{}': {}", kernelDir,
                            ec.message()));
  std::sort(files.begin(), files.end());
  std::string dir = kernelDir;
  if (dir.back() != '/')
    dir += '/';
  bool any = false;
  for (size_t i = 0; i < kNumTargets; ++i) {
    const AttentionTarget &t = targets()[i];
    for (const std::string &name : files) {
      std::string kernel = forwardKernelOfFile(t, name);
      if (kernel.empty())
        continue;
      Impl::Image img;
      img.kernel = kernel;
      std::string cubin = dir + name;
      img.owned = readFile(cubin, "cubin");
      img.metadataSource = cubin + ".meta";
      img.metadata = readFile(img.metadataSource, "metadata");
      img.params = Impl::check(t, img.metadata, img.metadataSource, img);
      // Two of one kernel, or of two specializations, for one variant: no
      // rule picks one.
      for (const Impl::Image &other : impl->images[i])
        if (other.params == img.params &&
            (other.kernel == img.kernel ||
             (other.kernel != t.kernel && img.kernel != t.kernel)))
          throw Error(fmt::format("{} and {} are the same variant ({})",
                                  other.metadataSource, img.metadataSource,
                                  paramsText(img.params)));
      img.size = img.owned.size();
      img.present = any = true;
      impl->images[i].push_back(std::move(img));
    }
    if (impl->images[i].empty())
      impl->none[i] = fmt::format(
          "kernel_dir '{}' has no {}, the kernels for {} devices (compute "
          "capability {})",
          kernelDir, cubinPattern(t), t.arch, t.capability);
  }
  if (!any) {
    std::string patterns;
    for (size_t i = 0; i < kNumTargets; ++i)
      patterns += fmt::format("{}{}", i == 0 ? "" : " nor ",
                              cubinPattern(targets()[i]));
    throw Error(
        fmt::format("kernel_dir '{}' holds neither {}", kernelDir, patterns));
  }
  impl->backward = BackwardKernels::fromFolder(kernelDir, files);
  // The cubin pointers, once the vectors no longer move their images.
  for (auto &variants : impl->images)
    for (Impl::Image &img : variants)
      img.cubin = img.owned.data();
  return Attention(std::move(impl));
}

Attention Attention::embedded() {
  auto impl = std::make_unique<Impl>();
  impl->backward = BackwardKernels::fromEmbedded();
  for (size_t i = 0; i < kNumTargets; ++i) {
    const AttentionTarget &t = targets()[i];
    for (const detail::EmbeddedKernel *const *e = detail::embeddedKernels; *e;
         ++e) {
      const detail::EmbeddedKernel &k = **e;
      if (!isForwardOf(t, k.kernel) || std::string(k.arch) != t.arch)
        continue;
      Impl::Image img;
      img.kernel = k.kernel;
      img.params = parseParams(k.params);
      std::string variant = paramsText(img.params);
      if (!k.cubin || !k.metadata) {
        img.absent = fmt::format(
            "this library was built without the {} attention kernel ({}); "
            "pass a kernel_dir ({})",
            t.arch, variant,
            k.absentReason ? k.absentReason : "no reason recorded");
        impl->images[i].push_back(std::move(img));
        continue;
      }
      // An embedded kernel that does not match the contract (built from an
      // older kernel source, say) leaves the others usable.
      img.metadataSource = fmt::format("the embedded {}_{} ({}) metadata",
                                       img.kernel, t.arch, variant);
      try {
        Params recorded = Impl::check(t, k.metadata, img.metadataSource, img);
        if (recorded != img.params)
          throw Error(fmt::format("{} records {}", img.metadataSource,
                                  paramsText(recorded)));
      } catch (const Error &error) {
        img.absent = fmt::format("this library's embedded {} attention "
                                 "kernel ({}) is unusable; pass a kernel_dir "
                                 "({})",
                                 t.arch, variant, error.what());
        impl->images[i].push_back(std::move(img));
        continue;
      }
      img.metadata = k.metadata;
      img.cubin = k.cubin;
      img.size = k.cubinSize;
      img.present = true;
      impl->images[i].push_back(std::move(img));
    }
    if (impl->images[i].empty())
      impl->none[i] = fmt::format("this library was built without the {} "
                                  "attention kernel; pass a kernel_dir",
                                  t.arch);
  }
  return Attention(std::move(impl));
}

bool Attention::hasKernel(const std::string &arch) const {
  for (size_t i = 0; i < kNumTargets; ++i)
    if (arch == targets()[i].arch)
      return impl->anyPresent(i) &&
             impl->backward->scheduleWhyNot(arch).empty();
  return false;
}

std::string Attention::absentReason(const std::string &arch) const {
  size_t i = impl->indexOf(arch);
  if (!impl->anyPresent(i))
    return impl->whyNone(i);
  return impl->backward->scheduleWhyNot(arch);
}

void Attention::backward(const AttentionBackwardArgs &args, CUstream stream) {
  impl->backward->run(args, stream);
}

bool Attention::hasBackward(const std::string &arch) const {
  return impl->backward->has(arch);
}

std::string Attention::backwardAbsentReason(const std::string &arch) const {
  return impl->backward->whyNot(arch);
}

void Attention::forward(const AttentionForwardArgs &args, CUstream stream) {
  validateAttentionArgs(args);
  if (!attentionHasWork(args))
    return;
  AttentionOptions opt = attentionOptions(args);
  if (opt.keyTokens == 0) {
    // No keys at all: every query sees none (o = 0, lse = -inf), and a TMA
    // descriptor of k with 0 rows cannot be made. No kernel runs, so none is
    // looked up (as the backward's calls with nothing to launch). o's rows
    // have its token stride; lse is [H, T] contiguous. GDPA has no lse.
    currentContext(); // device 0's primary context when none is current
    if (args.checkOffsets) {
      checkOffsetsOnDevice(args.offsets, args.batch, args.totalTokens,
                           args.maxSeqlen, stream);
      checkOffsetsOnDevice(args.offsetsK, args.batch, args.totalTokensK,
                           args.maxSeqlenK, stream, /*keys=*/true);
    }
    deviceMemsetD2D16OnStream(args.o, size_t(args.oStrides[0]) * 2, 0,
                              size_t(args.numHeads * args.headDim),
                              size_t(args.totalTokens), stream);
    if (!opt.gdpa)
      deviceMemsetD32OnStream(args.lse, 0xff800000u /* -inf */,
                              size_t(args.numHeads * args.totalTokens), stream);
    return;
  }
  DeviceProperties device = currentDevice();
  AttentionKernelChoice choice = attentionKernelFor(device.major, device.minor);
  size_t index = impl->indexOf(choice.arch);
  Params wanted = wantedParams(args.headDim, args.causal, opt.general);
  // A specialization's variant over the forward's own (present ones first:
  // an unusable specialization leaves the fallback), where it suits the
  // call: taller q tiles under a diagonal mask for long sequences only.
  std::vector<ForwardVariant> candidates;
  for (const Impl::Image &img : impl->images[index])
    candidates.push_back({&img.params, img.present,
                          img.kernel != targets()[index].kernel,
                          img.qTileRows});
  ForwardCall call{args.causal || opt.window, longestQueries(args)};
  size_t variant = pickForwardVariant(candidates, wanted, call);
  if (variant == impl->images[index].size()) {
    // No variant of this target at all, or (a kernel_dir with some of them)
    // not this one: list those there are.
    std::string why = impl->none[index];
    if (why.empty()) {
      std::string held;
      for (const Impl::Image &img : impl->images[index])
        held += fmt::format("{}[{}]", held.empty() ? "" : ", ",
                            paramsText(img.params));
      why = fmt::format("no {} kernel for {} was built ({}); it has {}",
                        choice.kernel, paramsText(wanted), choice.arch, held);
    }
    throw Error(fmt::format("{}; device {} has compute capability {}.{}", why,
                            device.ordinal, device.major, device.minor));
  }
  const Impl::Image &img = impl->images[index][variant];
  if (!img.present)
    throw Error(fmt::format("{}; device {} has compute capability {}.{}",
                            img.absent, device.ordinal, device.major,
                            device.minor));

  if (args.checkOffsets) {
    checkOffsetsOnDevice(args.offsets, args.batch, args.totalTokens,
                         args.maxSeqlen, stream);
    if (opt.cross)
      checkOffsetsOnDevice(args.offsetsK, args.batch, args.totalTokensK,
                           args.maxSeqlenK, stream, /*keys=*/true);
  }

  CUcontext ctx = currentContext();
  const Module *module;
  {
    std::lock_guard<std::mutex> lock(impl->mutex);
    auto key = std::make_tuple(ctx, index, variant);
    auto it = impl->modules.find(key);
    if (it == impl->modules.end())
      it = impl->modules
               .emplace(key, Module::loadData(img.cubin, img.size, img.metadata,
                                              img.metadataSource))
               .first;
    module = &it->second;
  }
  // The work queue's schedule over the query sequences, in memory ordered on
  // the stream that lives for this call: the schedule kernel writes it, the
  // forward reads it (the same kernel and layout as the backward's).
  if (std::string why = impl->backward->scheduleWhyNot(choice.arch);
      !why.empty())
    throw Error(fmt::format("{}; device {} has compute capability {}.{}", why,
                            device.ordinal, device.major, device.minor));
  CUdeviceptr schedule =
      deviceAllocOnStream(attentionScheduleBytes(args, img.qTileRows), stream);
  try {
    impl->backward->writeSchedule(choice.arch, args.offsets, schedule,
                                  args.batch,
                                  forwardQTiles(args, img.qTileRows),
                                  hasBlockMask(args), img.qTileRows, stream);
    module->launch(
        img.kernel,
        {attentionGrid(args, device.multiprocessors, img.qTileRows), 1, 1},
        attentionKernelArgs(args, schedule, img.qTileRows), stream);
  } catch (...) {
    deviceFreeOnStream(schedule, stream);
    throw;
  }
  deviceFreeOnStream(schedule, stream);
}

} // namespace jfa::rt
