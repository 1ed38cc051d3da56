//===- attention.hpp - jagged attention forward (C++) -----------*- C++ -*-===//
//
// The runtime entry point of the jagged (packed variable-length) attention
// forward kernels in kernels/jagged_attention/ (their README is the contract
// this implements). jfa/attention.h is the same as a C API; the meaning of
// every field is described there and in docs/RUNTIME-ATTENTION.md.
//
//   auto attn = jfa::rt::Attention::embedded(); // or ::load("dir/")
//   jfa::rt::AttentionForwardArgs a;
//   a.q = q; a.k = k; a.v = v; a.o = o; a.lse = lse; a.offsets = offsets;
//   a.qStrides = a.kStrides = a.vStrides = a.oStrides = {H * D, D, 1};
//   a.totalTokens = T; a.numHeads = H; a.headDim = D; a.batch = B;
//   a.maxSeqlen = maxLen; a.causal = true;
//   attn.forward(a, stream);
//
// Every argument is checked before the driver is touched (so a machine
// without a GPU reports argument errors); every failure throws jfa::rt::Error
// naming the argument.
//
//===----------------------------------------------------------------------===//
#ifndef JFA_ATTENTION_HPP
#define JFA_ATTENTION_HPP

#include "jfa/runtime.hpp"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace jfa::rt {

/// The arguments of one jagged attention forward pass. Tensors are device
/// addresses; strides are in elements, ordered [token, head, dim]. The
/// defaults of the last fields (self-attention, every q head with its own k
/// and v head, no window, softmax) are the plain forward.
struct AttentionForwardArgs {
  CUdeviceptr q = 0;               // bf16 [T, H, D]
  CUdeviceptr k = 0, v = 0;        // bf16 [T_k, H_kv, D]
  CUdeviceptr o = 0;               // bf16 [T, H, D], written
  std::array<int64_t, 3> qStrides{}, kStrides{}, vStrides{}, oStrides{};
  CUdeviceptr lse = 0;              // f32 [H, T] contiguous, written
                                    // (not under GDPA: then may be 0)
  CUdeviceptr offsets = 0;          // i32 [B + 1]
  std::string dtype = "bf16";       // of q, k, v, o: must be "bf16"
  std::string offsetsDtype = "i32"; // must be "i32" (offsets_k's too)
  int64_t totalTokens = 0;          // T
  int64_t numHeads = 0;             // H
  int64_t headDim = 0;              // D: 64 or 128
  int64_t batch = 0;                // B
  int64_t maxSeqlen = 0;            // >= the longest sequence
  /// Query i of a sequence sees keys j <= i + len_k - len_q (bottom-right
  /// aligned; j <= i for self-attention).
  bool causal = false;
  /// 0: 1/sqrt(headDim). Negative, NaN or infinite: an error.
  float softmaxScale = 0.f;
  /// Copy the offsets (and offsetsK) to the host (synchronizing the stream)
  /// and check them with checkOffsets before launching.
  bool checkOffsets = false;
  /// Cross-attention: i32 [B + 1], the key/value sequences (sequence b's
  /// keys are k's tokens [offsetsK[b], offsetsK[b+1])), with totalTokensK
  /// (T_k, k's and v's tokens) and maxSeqlenK (>= the longest of them).
  /// 0: self-attention (the keys are the queries' tokens: offsets, T,
  /// maxSeqlen), and then totalTokensK and maxSeqlenK must be 0.
  CUdeviceptr offsetsK = 0;
  int64_t totalTokensK = 0;
  int64_t maxSeqlenK = 0;
  /// H_kv, the heads of k and v (grouped-query attention: q head h reads
  /// k/v head h / (H / H_kv)); H must be a multiple of it. 0: H.
  int64_t numKvHeads = 0;
  /// Sliding window, as FlashAttention's window_size: query i sees key j
  /// only if i + shift - windowLeft <= j <= i + shift + windowRight, where
  /// shift = len_k - len_q (0 for self-attention). -1: unbounded on that
  /// side; below -1 is an error, and so is windowRight > 0 with causal
  /// (causal already means windowRight = 0). A query that sees no key gets
  /// o = 0 and lse = -inf.
  int64_t windowLeft = -1, windowRight = -1;
  /// The activation: "softmax", or a GDPA one (generalized dot-product
  /// attention), "silu" or "gelu_tanh", in place of softmax: o = sum_j
  /// act(scale * q.k_j) v_j over the keys the query sees (the same mask),
  /// not normalized; lse is neither written nor checked (it may be 0). Any
  /// other name: an Error naming activation.
  std::string activation = "softmax";
  /// Block-sparse attention: a mask over the packed token axes in blocks
  /// of 128 tokens (kAttentionMaskBlock). Query t and key s may attend only
  /// if block (t / 128, s / 128) is listed (and the other masks let them);
  /// a tile with no listed block is skipped, not masked. blockMaskHeads: 0
  /// none; 1 one mask for every q head; numHeads one per q head (anything
  /// else is an Error). blockMaskBits: int32 words [blockMaskHeads,
  /// ceil(T / 128), blockMaskWords(T_k)], 4-byte aligned, bit kb % 32 of
  /// word kb / 32 of row (h, qb) set iff block (qb, kb) is listed
  /// (blockMaskBitsBytes sizes it; the Python package builds it from a
  /// FlexAttention BlockMask). Works with every other option.
  CUdeviceptr blockMaskBits = 0;
  int64_t blockMaskHeads = 0;
};

/// Tokens per block of a block-sparse mask (AttentionForwardArgs::
/// blockMaskBits): the kernels' tile.
constexpr int64_t kAttentionMaskBlock = 128;
/// 32-bit words per row of a block-sparse mask over totalTokensK keys:
/// ceil(ceil(T_k / 128) / 32), at least 1.
int64_t blockMaskWords(int64_t totalTokensK);
/// Bytes of a block-sparse mask of `heads` rows of blocks over totalTokens
/// queries and totalTokensK keys: heads * ceil(T / 128) * blockMaskWords(T_k)
/// * 4.
size_t blockMaskBitsBytes(int64_t heads, int64_t totalTokens,
                          int64_t totalTokensK);

/// Fills `bits` (a host copy of blockMaskBitsBytes(heads, T, T_k) bytes,
/// as uint32 words) from a FlexAttention BlockMask's lists: for each head h
/// and q block qb, kvNumBlocks[h * qBlocks + qb] = n listed key blocks,
/// kvIndices[(h * qBlocks + qb) * maxKvBlocks + i] for i < n, each in
/// [0, ceil(T_k / 128)); qBlocks must be ceil(T / 128). fullKvNumBlocks /
/// fullKvIndices (the same layout; both or neither may be null) are the
/// BlockMask's full blocks, which FlexAttention keeps apart: they are listed
/// too. Every bit not listed is cleared. An entry out of range is an Error
/// naming it ("full_kv_indices[h][qb][i] = ..."); `bits` is then undefined.
/// Copy it to the device for blockMaskBits (with blockMaskHeads = heads).
void blockMaskFromLists(const int32_t *kvNumBlocks, const int32_t *kvIndices,
                        const int32_t *fullKvNumBlocks,
                        const int32_t *fullKvIndices, int64_t heads,
                        int64_t qBlocks, int64_t maxKvBlocks,
                        int64_t totalTokens, int64_t totalTokensK,
                        uint32_t *bits, size_t bitsBytes);

/// The activation of a call (AttentionForwardArgs::activation).
enum class AttentionActivation { Softmax, Silu, GeluTanh };

/// The activation `name` names: "softmax", "silu" or "gelu_tanh"; an Error
/// naming activation and the accepted names otherwise.
AttentionActivation attentionActivation(const std::string &name);

/// Rows of q a CTA works on (one work unit) unless the kernel says otherwise:
/// a forward kernel's q tile is the row count of its q TMA box
/// (attentionQTileRows); 128 in every kernel but the sm_90a forward at
/// D = 64 (192: three consumer warpgroups).
constexpr int64_t kAttentionQTile = 128;

/// Checks an offsets array of `count` (= B + 1) entries: offsets[0] == 0,
/// non-decreasing, no entry above totalTokens, offsets[B] == totalTokens, and
/// no sequence longer than maxSeqlen. The Error names the first bad entry.
void checkOffsets(const int32_t *offsets, size_t count, int64_t totalTokens,
                  int64_t maxSeqlen);
/// The same check of a cross-attention's key offsets (offsets_k against
/// total_tokens_k and max_seqlen_k): the Error names those.
void checkKeyOffsets(const int32_t *offsetsK, size_t count,
                     int64_t totalTokensK, int64_t maxSeqlenK);

/// Checks every argument that can be checked without the GPU (sizes, int32
/// ranges, dtypes, strides, alignment, null addresses, the scale). Throws an
/// Error naming the argument.
void validateAttentionArgs(const AttentionForwardArgs &args);

/// False when there is nothing to compute (T, H, B or maxSeqlen is 0):
/// forward then returns without touching the device.
bool attentionHasWork(const AttentionForwardArgs &args);

/// What a valid call's options come to: the key sizes (the queries' for
/// self-attention), H_kv, and the compile-time variant and window arguments.
struct AttentionOptions {
  bool cross = false;     // offsetsK != 0
  int64_t keyTokens = 0;  // T_k
  int64_t maxSeqlenK = 0; // bound of len_k
  int64_t kvHeads = 0;    // H_kv
  int64_t kvGroup = 1;    // H / H_kv
  /// A window bound applies: windowLeft >= 0, or windowRight >= 0 and not
  /// causal (causal's own bound is the mask's already).
  bool window = false;
  /// The activation, and whether it is a GDPA one (not softmax): then the
  /// forward writes no lse and the backward reads neither lse nor delta.
  AttentionActivation activation = AttentionActivation::Softmax;
  bool gdpa = false;
  /// The variant (the kernels' compile-time parameter general): 2 for silu,
  /// 3 for gelu_tanh (the general variant with that activation, whatever
  /// the other options); with softmax 1 iff a window applies,
  /// cross-attention or H_kv < H, else 0 (the plain kernels, which read
  /// none of offsets_k, kv_group and the window); with a block-sparse mask
  /// 4 + the activation (4 softmax, 5 silu, 6 gelu_tanh).
  int general = 0;
  /// A block-sparse mask applies (blockMaskHeads > 0), and the kernels'
  /// %block_words (words per row of blocks) and %block_head_stride (words
  /// per head: 0 for a mask shared by the heads).
  bool sparse = false;
  int64_t blockWords = 0, blockHeadStride = 0;
  /// The kernel's %window_left, %window_right: -1 without a window;
  /// else the call's values, those beyond every sequence (windowLeft >=
  /// min(maxSeqlenK, T_k), windowRight >= min(maxSeqlen, T)) clamped to that
  /// bound, which masks the same keys and keeps the kernels' 32-bit index
  /// arithmetic from overflowing.
  int64_t windowLeft = -1, windowRight = -1;
};
AttentionOptions attentionOptions(const AttentionForwardArgs &args);

/// Whether a call with work launches the kernel: false when there are no
/// keys (T_k == 0; a TMA descriptor cannot have 0 rows), and forward then
/// writes o = 0 and lse = -inf (not under GDPA: o only) itself with driver
/// memsets on the stream.
bool attentionLaunchesKernel(const AttentionForwardArgs &args);

/// The kernel for a compute capability: name and arch ("attention_fwd_sm90",
/// "sm_90a" for 9.0; "attention_fwd_sm100", "sm_100a" for 10.0). Other
/// capabilities throw an Error naming the capability and the supported ones.
struct AttentionKernelChoice {
  std::string kernel, arch;
};
AttentionKernelChoice attentionKernelFor(int major, int minor);

/// The 1-d grid: min(multiprocessors, B * H * ceil(maxSeqlen / qTileRows)),
/// at least 1. `args` must be valid.
unsigned attentionGrid(const AttentionForwardArgs &args, int multiprocessors,
                       int64_t qTileRows = kAttentionQTile);

/// The bytes of the forward's work-queue schedule: int32 [2 + B *
/// ceil(maxSeqlen / qTileRows)] (attention_bwd_schedule.mlir writes it over
/// the query sequences). `args` must be valid.
size_t attentionScheduleBytes(const AttentionForwardArgs &args,
                              int64_t qTileRows = kAttentionQTile);

/// The 20 kernel arguments in the kernel's parameter order (see the README
/// of kernels/jagged_attention): q as [T, H*D] and k, v as [T_k, H_kv*D]
/// TMA tensors, o, lse (as given; the GDPA variants do not write it),
/// offsets, B, H, T, o's token stride, q_tiles, scale_log2, offsets_k
/// (offsets for self-attention), kv_group, window_left, window_right
/// (attentionOptions), the block-sparse mask's block_bits, block_words and
/// block_head_stride, and `schedule` (attentionScheduleBytes, written by
/// the schedule kernel first). q_tiles counts tiles of qTileRows rows (the
/// kernel's, attentionQTileRows). `args` must be valid.
std::vector<Arg> attentionKernelArgs(const AttentionForwardArgs &args,
                                     CUdeviceptr schedule,
                                     int64_t qTileRows = kAttentionQTile);

/// Checks that a kernel's metadata declares the contract's parameters
/// (3 bf16 tensor maps, pointers to bf16, f32 and i32, 5 i32, 1 f32, a
/// pointer to i32, 3 i32, the block mask's pointer to i32 and 2 i32, the
/// schedule's pointer to i32), the compile-time parameters head_dim, causal
/// and general, and the expected arch. `source` names where it came from,
/// for the message.
void checkAttentionKernelInfo(const KernelInfo &kernel,
                              const std::string &expectedArch,
                              const std::string &source);

/// A forward kernel's q tile: the rows of its q TMA box (parameter 0), which
/// its o TMA box (the last parameter) must share; a multiple of 64 from 128
/// to 256 (wgmma's 64-row groups; the runtime's bound on the work units,
/// which counts 128-row tiles; TMA's box limit). Throws an Error naming
/// `source` and the boxes otherwise. `kernel` must pass
/// checkAttentionKernelInfo.
int64_t attentionQTileRows(const KernelInfo &kernel, const std::string &source);

/// The arguments of one jagged attention backward pass: the gradients of
/// forward's o for the upstream gradient dout. Tensors are device addresses;
/// strides in elements, ordered [token, head, dim]. q, k, v, offsets, the
/// sizes, causal, softmaxScale and the options of issue 20 (offsetsK,
/// totalTokensK, maxSeqlenK, numKvHeads, the window, the activation) are
/// forward's, with the same values and rules; o and lse are what forward
/// wrote (under a GDPA activation there is no lse: it is not read and may
/// be 0). The defaults of the options are the plain backward
/// (self-attention, H_kv = H, no window, softmax), and the call picks the
/// backward kernel's variant as forward picks its (general:
/// attentionOptions).
struct AttentionBackwardArgs {
  CUdeviceptr dout = 0, q = 0, o = 0; // bf16 [T, H, D]
  CUdeviceptr k = 0, v = 0;           // bf16 [T_k, H_kv, D]
  std::array<int64_t, 3> doutStrides{}, qStrides{}, kStrides{}, vStrides{},
      oStrides{};
  CUdeviceptr lse = 0;     // f32 [H, T] contiguous (-inf: a query saw no key);
                           // not read under GDPA (may be 0)
  CUdeviceptr offsets = 0; // i32 [B + 1]
  /// Written: dq bf16 [T, H, D] like q; dk and dv bf16 [T_k, H_kv, D] like
  /// k and v (grouped-query attention: the sums over each k/v head's q
  /// heads). dk and dv share one token stride (the kernel writes both with
  /// it). A query that sees no key gets dq = 0, a key no query sees dk = dv
  /// = 0.
  CUdeviceptr dq = 0, dk = 0, dv = 0;
  std::array<int64_t, 3> dqStrides{}, dkStrides{}, dvStrides{};
  /// Scratch device memory of at least attentionBackwardWorkspaceBytes(args)
  /// bytes, 256-byte aligned, not overlapping any tensor; its contents on
  /// entry do not matter and it must stay untouched until the call's work
  /// on the stream is done.
  CUdeviceptr workspace = 0;
  size_t workspaceBytes = 0;
  std::string dtype = "bf16";
  std::string offsetsDtype = "i32";
  int64_t totalTokens = 0, numHeads = 0, headDim = 0, batch = 0, maxSeqlen = 0;
  bool causal = false;
  float softmaxScale = 0.f;
  /// As in AttentionForwardArgs (offsets and offsetsK).
  bool checkOffsets = false;
  /// Issue 20's options, as in AttentionForwardArgs: cross-attention (the
  /// key sequences offsetsK, T_k = totalTokensK keys, maxSeqlenK; 0:
  /// self-attention), grouped-query k/v heads (numKvHeads, 0: H) and the
  /// sliding window (-1: unbounded).
  CUdeviceptr offsetsK = 0;
  int64_t totalTokensK = 0;
  int64_t maxSeqlenK = 0;
  int64_t numKvHeads = 0;
  int64_t windowLeft = -1, windowRight = -1;
  /// The forward's activation ("softmax", "silu", "gelu_tanh"). Under GDPA
  /// P = act(x) and dS = scale * dP * act'(x), x = scale * q.k: lse and
  /// delta are not used (no delta kernel runs; the kernels' lse and delta
  /// parameters get the workspace's delta space).
  std::string activation = "softmax";
  /// The forward's block-sparse mask (AttentionForwardArgs).
  CUdeviceptr blockMaskBits = 0;
  int64_t blockMaskHeads = 0;
};

/// Rows of k per backward work unit (both backward kernels).
constexpr int64_t kAttentionKeyTile = 128;
/// Rows of q per step of a backward work unit (both backward kernels).
constexpr int64_t kAttentionBackwardQTile = 64;

/// Bytes of scratch memory a backward call with these sizes needs: dq's f32
/// accumulator ([T, dk token stride] for the plain variant, [T, H * D] for
/// the general one), the row terms delta (f32 [H, T]; under GDPA not
/// computed, but the space stays: the kernels' lse and delta point at it)
/// and the work schedule (i32 [2 + B * k_tiles], k_tiles = ceil(max_seqlen_k
/// / 128) over the key sequences), each 256-byte aligned. Checks the sizes
/// and options first (an Error names the one at fault); 0 when no kernel
/// runs (no queries, or no keys: see attentionBackwardLaunchesKernels).
size_t attentionBackwardWorkspaceBytes(const AttentionBackwardArgs &args);

/// Checks every backward argument that can be checked without the GPU,
/// including that no output overlaps an input, another output or the
/// workspace. Throws an Error naming the argument.
void validateAttentionBackwardArgs(const AttentionBackwardArgs &args);

/// Whether a valid backward call launches the kernels: there are queries
/// (T, H, B and maxSeqlen nonzero) and keys (T_k > 0). Otherwise backward
/// writes what the gradients are with driver memsets on the stream: dq = 0
/// when there are queries but no keys (none sees a key), dk = dv = 0 when
/// there are keys but no queries; nothing when neither has rows.
bool attentionBackwardLaunchesKernels(const AttentionBackwardArgs &args);

/// What a launching backward call hands its kernels, by parameter name (the
/// names of kernels/jagged_attention/README.md's backward tables: q, k, v,
/// do, o, dk, dv, dq_accum, dq, lse, delta, offsets, schedule, batch, heads,
/// tokens, stride, k_tiles, scale_log2, scale, head_dim, dq_accum_stride,
/// dq_stride, cols, offsets_k, kv_group, window_left, window_right,
/// kv_stride, kv_split, dk_accum, dv_accum, block_bits, block_words,
/// block_head_stride, block_aligned, dk_out, dv_out); the workspace's parts at
/// their offsets. Tensors are the 2-d [tokens, heads * D] views (a kernel that
/// takes a pointer gets their address). The schedule kernel's `offsets` is the
/// key sequences' (offsets_k's value). `args` must be valid and launch the
/// kernels.
std::vector<std::pair<std::string, Arg>>
attentionBackwardKernelArgs(const AttentionBackwardArgs &args);

/// The attention kernels of both targets (forward, and the backward's four
/// where the kernel folder or the library has them), loaded lazily onto each
/// context the first time a pass runs there.
class Attention {
public:
  /// The cubins `kernelDir` holds: attention_fwd_sm90_sm_90a.*.cubin and
  /// attention_fwd_sm100_sm_100a.*.cubin, each with its `.meta`: one per
  /// compile-time variant (head_dim, causal, general), picked by the metadata's
  /// params. One target may be missing (forward then fails only on its
  /// devices), or a variant (forward fails only for those calls); no cubin
  /// at all is an error. The forward also runs
  /// attention_bwd_schedule_<arch>.cubin (its work queue's schedule): a
  /// target without it has no forward (hasKernel says why). Reads and
  /// checks the metadata; no GPU needed.
  static Attention load(const std::string &kernelDir);
  /// The kernels embedded in the library at build time (possibly none: see
  /// hasKernel; forward then says how the library was built).
  static Attention embedded();

  Attention(Attention &&) noexcept;
  Attention &operator=(Attention &&) noexcept;
  ~Attention();

  /// Whether the forward for `arch` ("sm_90a" or "sm_100a") is available:
  /// its kernel and the schedule kernel it runs first.
  bool hasKernel(const std::string &arch) const;
  /// Why the kernel for `arch` is not available (the error forward gives on
  /// such a device); "" when it is.
  std::string absentReason(const std::string &arch) const;

  /// Validates `args`, picks the kernel variant for the current context's
  /// device (device 0's primary context is made current when none is) and
  /// the call's head dim, mask and options (general: a window, GQA or
  /// cross-attention; a GDPA activation), and launches it on `stream`,
  /// after attention_bwd_schedule, which writes its work queue into memory
  /// from the runtime's pool (deviceAllocOnStream) freed on `stream`.
  /// Returns at once when there is nothing to compute; when there are
  /// queries but no keys (T_k == 0) it writes o = 0 and lse = -inf (under
  /// GDPA o only) with driver memsets on `stream` instead of a launch.
  /// Thread-safe.
  void forward(const AttentionForwardArgs &args, CUstream stream = nullptr);

  /// Validates `args` and launches the backward on `stream`: dq's
  /// accumulator is zeroed, then attention_bwd_schedule (the work list over
  /// the key sequences), attention_bwd_delta (rowsum(o * dout); not under a
  /// GDPA activation), the backward kernel of the device's target for the
  /// call's head dim, mask and options (general, as forward picks it; dk,
  /// dv; dq added into the f32 accumulator), attention_bwd_dq_convert (dq
  /// in bf16). Arguments are bound to each kernel's parameters by the names
  /// its metadata records (attentionBackwardKernelArgs). Without queries or
  /// without keys no kernel runs: dq or dk and dv are zeroed with driver
  /// memsets on `stream` instead (attentionBackwardLaunchesKernels). Nothing
  /// synchronizes with the host unless args.checkOffsets, so the call can
  /// be captured in a CUDA graph. Thread-safe.
  void backward(const AttentionBackwardArgs &args, CUstream stream = nullptr);
  /// Whether the backward's kernels for `arch` are available, and why not.
  bool hasBackward(const std::string &arch) const;
  std::string backwardAbsentReason(const std::string &arch) const;

private:
  struct Impl;
  explicit Attention(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

} // namespace jfa::rt

#endif // JFA_ATTENTION_HPP
