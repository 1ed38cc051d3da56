//===- AttentionBackward.cpp - jagged attention backward entry point ------===//
//
// Argument checks (no GPU needed), the backward's kernels per target read
// from a kernel folder, the workspace, and the launch sequence
//   zero dq's accumulator -> attention_bwd_schedule -> attention_bwd_delta
//   (not under a GDPA activation) -> attention_bwd_<suffix> (dk, dv, dq
//   accumulated) -> attention_bwd_dq_convert,
// or, for a call without queries or without keys, driver memsets of the
// gradients that are then zero.
// Arguments reach each kernel by the parameter names its metadata records,
// so a kernel that reorders or drops parameters needs no change here.
//
//===----------------------------------------------------------------------===//
#include "AttentionBackward.h"

#include "AttentionCommon.h"
#include "EmbeddedKernels.h"
#include "JFA/TargetDescription.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace jfa::rt {

using namespace detail;

namespace {

constexpr const char *kDeltaKernel = "attention_bwd_delta";
constexpr const char *kScheduleKernel = "attention_bwd_schedule";
constexpr const char *kConvertKernel = "attention_bwd_dq_convert";
/// Rows per CTA of attention_bwd_delta, sequences per CTA of
/// attention_bwd_schedule, columns per CTA of attention_bwd_dq_convert.
constexpr int64_t kDeltaRows = 128, kScheduleBatch = 128, kConvertCols = 512;
/// A grid's y extent (the delta kernel's heads, the conversion's chunks).
constexpr int64_t kGridYMax = 65535;
constexpr size_t kWorkspaceAlignment = 256;

std::string mainKernelOf(const jfa::Target &t) {
  return fmt::format("attention_bwd_{}", t.kernelSuffix);
}

//===----------------------------------------------------------------------===//
// Binding arguments by name
//===----------------------------------------------------------------------===//

/// What the backward can hand a kernel parameter, by the parameter's name.
enum Slot : uint8_t {
  kQ,
  kK,
  kV,
  kDout,
  kO,
  kDk,
  kDv,
  kDqAccum,
  kDq,
  kLse,
  kDelta,
  kOffsets,
  kSchedule,
  kBatch,
  kHeads,
  kTokens,
  kStride,
  kKTiles,
  kScaleLog2,
  kScale,
  kHeadDim,
  kDqAccumStride,
  kDqStride,
  kCols,
  // The general variant's (a window, grouped-query k/v heads,
  // cross-attention); the general=0 kernels do not read them.
  kOffsetsK,
  kKvGroup,
  kWindowLeft,
  kWindowRight,
  kKvStride,
  kKvSplit,
  kDkAccum,
  kDvAccum,
  // The block-sparse variants' (general 4-6) mask.
  kBlockBits,
  kBlockWords,
  kBlockHeadStride,
  // The schedule's: tiles on the packed axis's 128-token grid (1) or from
  // each sequence's start (0), and the tiles' rows.
  kBlockAligned,
  kTileRows,
  // dk and dv again as [T_k, H_kv*D] tensors: the sm_90a kernel writes
  // whole key tiles with TMA stores, the rest through dk and dv.
  kDkOut,
  kDvOut,
  kNumSlots
};
/// Tensor: a [T, H*D] view, as a TMA tensor or its address, as the
/// parameter asks.
enum class SlotKind { Tensor, Pointer, I32, F32 };
struct SlotSpec {
  const char *name;
  SlotKind kind;
  const char *elementType;
};
constexpr SlotSpec kSlots[kNumSlots] = {
    {"q", SlotKind::Tensor, "bf16"},
    {"k", SlotKind::Tensor, "bf16"},
    {"v", SlotKind::Tensor, "bf16"},
    {"do", SlotKind::Tensor, "bf16"},
    {"o", SlotKind::Tensor, "bf16"},
    {"dk", SlotKind::Pointer, "bf16"},
    {"dv", SlotKind::Pointer, "bf16"},
    {"dq_accum", SlotKind::Tensor, "f32"},
    {"dq", SlotKind::Pointer, "bf16"},
    {"lse", SlotKind::Pointer, "f32"},
    {"delta", SlotKind::Pointer, "f32"},
    {"offsets", SlotKind::Pointer, "i32"},
    {"schedule", SlotKind::Pointer, "i32"},
    {"batch", SlotKind::I32, ""},
    {"heads", SlotKind::I32, ""},
    {"tokens", SlotKind::I32, ""},
    {"stride", SlotKind::I32, ""},
    {"k_tiles", SlotKind::I32, ""},
    {"scale_log2", SlotKind::F32, ""},
    {"scale", SlotKind::F32, ""},
    {"head_dim", SlotKind::I32, ""},
    {"dq_accum_stride", SlotKind::I32, ""},
    {"dq_stride", SlotKind::I32, ""},
    {"cols", SlotKind::I32, ""},
    {"offsets_k", SlotKind::Pointer, "i32"},
    {"kv_group", SlotKind::I32, ""},
    {"window_left", SlotKind::I32, ""},
    {"window_right", SlotKind::I32, ""},
    {"kv_stride", SlotKind::I32, ""},
    {"kv_split", SlotKind::I32, ""},
    {"dk_accum", SlotKind::Pointer, "f32"},
    {"dv_accum", SlotKind::Pointer, "f32"},
    {"block_bits", SlotKind::Pointer, "i32"},
    {"block_words", SlotKind::I32, ""},
    {"block_head_stride", SlotKind::I32, ""},
    {"block_aligned", SlotKind::I32, ""},
    {"tile_rows", SlotKind::I32, ""},
    {"dk_out", SlotKind::Tensor, "bf16"},
    {"dv_out", SlotKind::Tensor, "bf16"},
};

bool kindFits(SlotKind slot, const ParamSpec &p) {
  switch (slot) {
  case SlotKind::Tensor:
    return (p.kind == ParamKind::TensorMap && p.box.size() == 2) ||
           p.kind == ParamKind::Pointer;
  case SlotKind::Pointer:
    return p.kind == ParamKind::Pointer;
  case SlotKind::I32:
    return p.kind == ParamKind::I32;
  case SlotKind::F32:
    return p.kind == ParamKind::F32;
  }
  return false;
}

/// The slot of each of `kernel`'s parameters; an Error names the first one
/// the backward cannot bind.
std::vector<Slot> planArguments(const KernelInfo &kernel,
                                const std::string &source) {
  std::vector<Slot> plan;
  for (size_t i = 0; i < kernel.params.size(); ++i) {
    const ParamSpec &p = kernel.params[i];
    auto *spec =
        std::find_if(std::begin(kSlots), std::end(kSlots),
                     [&](const SlotSpec &s) { return p.name == s.name; });
    std::string where = fmt::format("{}: kernel '{}' parameter {} ('{}')",
                                    source, kernel.name, i, p.name);
    if (spec == std::end(kSlots)) {
      std::string names;
      for (const SlotSpec &s : kSlots)
        names += fmt::format("{}{}", names.empty() ? "" : ", ", s.name);
      throw Error(fmt::format("{} is not an argument the backward provides "
                              "(it provides {})",
                              where, names));
    }
    bool typed =
        spec->kind == SlotKind::Tensor || spec->kind == SlotKind::Pointer;
    if (!kindFits(spec->kind, p) ||
        (typed && p.elementType != spec->elementType))
      throw Error(fmt::format(
          "{} is {}{}{}; the backward passes {} {}", where,
          paramKindName(p.kind), p.elementType.empty() ? "" : " ",
          p.elementType,
          spec->kind == SlotKind::Tensor    ? "a 2-d tensor (or its address) of"
          : spec->kind == SlotKind::Pointer ? "a pointer to"
                                            : "an",
          typed ? spec->elementType
                : (spec->kind == SlotKind::I32 ? "i32" : "f32")));
    plan.push_back(Slot(spec - std::begin(kSlots)));
  }
  return plan;
}

std::vector<Arg> bindArguments(const std::vector<Slot> &plan,
                               const KernelInfo &kernel,
                               const std::array<Arg, kNumSlots> &values) {
  std::vector<Arg> args;
  args.reserve(plan.size());
  for (size_t i = 0; i < plan.size(); ++i) {
    const Arg &value = values[plan[i]];
    if (kSlots[plan[i]].kind == SlotKind::Tensor &&
        kernel.params[i].kind == ParamKind::Pointer)
      args.push_back(Arg::pointer(value.data));
    else
      args.push_back(value);
  }
  return args;
}

//===----------------------------------------------------------------------===//
// Checks and the workspace
//===----------------------------------------------------------------------===//

AttentionForwardArgs forwardView(const AttentionBackwardArgs &a) {
  AttentionForwardArgs f;
  f.q = a.q;
  f.k = a.k;
  f.v = a.v;
  f.o = a.o;
  f.qStrides = a.qStrides;
  f.kStrides = a.kStrides;
  f.vStrides = a.vStrides;
  f.oStrides = a.oStrides;
  f.lse = a.lse;
  f.offsets = a.offsets;
  f.dtype = a.dtype;
  f.offsetsDtype = a.offsetsDtype;
  f.totalTokens = a.totalTokens;
  f.numHeads = a.numHeads;
  f.headDim = a.headDim;
  f.batch = a.batch;
  f.maxSeqlen = a.maxSeqlen;
  f.causal = a.causal;
  f.softmaxScale = a.softmaxScale;
  f.offsetsK = a.offsetsK;
  f.totalTokensK = a.totalTokensK;
  f.maxSeqlenK = a.maxSeqlenK;
  f.numKvHeads = a.numKvHeads;
  f.windowLeft = a.windowLeft;
  f.windowRight = a.windowRight;
  f.activation = a.activation;
  f.blockMaskBits = a.blockMaskBits;
  f.blockMaskHeads = a.blockMaskHeads;
  return f;
}

/// What a backward call (with valid sizes) comes to.
struct Plan {
  /// The forward's options (attentionOptions): T_k, H_kv, the variant and
  /// the window arguments, as the forward got them.
  AttentionOptions opt;
  bool queries = false;  // dq has rows (T, H, B, max_seqlen nonzero)
  bool keys = false;     // dk and dv have rows (T_k > 0, H_kv > 0)
  bool launches = false; // queries and keys: the kernels run
  /// 128-key tiles of the longest key sequence (no sequence is longer than
  /// T_k), at least 1; with a block mask, on the mask's 128-token grid,
  /// where a sequence may span one more.
  int64_t kTiles = 1;
  /// dq's f32 accumulator's row stride (the kernels' %stride): dk's token
  /// stride for the plain variant, which writes dk and dv with %stride too;
  /// H * D (packed) for the general one, whose dk and dv have %kv_stride.
  int64_t accumStride = 0;
  /// Units per k/v head and key tile (the kernels' %kv_split, a divisor of
  /// H / H_kv): each walks H / (H_kv * kvSplit) of the head's q heads.
  /// Above 1 the units add dk and dv into f32 sums (the workspace's), which
  /// are converted afterwards.
  int64_t kvSplit = 1;
};

/// The fewest units per (sequence, key tile) pair that the split aims for.
/// A unit walks each of its q heads' q tiles in turn, so with few k/v heads
/// the longest units (a long sequence's first key tiles) take far longer
/// than a CTA's share of the work: under MQA (H_kv = 1) one unit walks all
/// H heads, and the backward ran at 0.81x the best peer (bench/NOTES.md run
/// 51). Four units per pair are the balance grouped-query attention with
/// H_kv = 4 has without a split.
constexpr int64_t kMinUnitsPerPair = 4;

/// The q-tile steps a unit should walk before its q heads are split
/// further. A unit that walks several heads, each over many q tiles, reads
/// its sequence's Q and dO with far less L2 reuse than one head per unit
/// does: GQA 4 on unif4k causal read 3.0 GB from DRAM at a 49% L2 hit rate
/// with 4 heads a unit, 1.0 GB at 83% with one, and ran 31% faster
/// (bench/NOTES.md run 87). But a split adds dK and dV into f32 sums that
/// are zeroed and converted afterwards, and where each head's walk is short
/// that costs more than the reuse gains (a (256, 0) window 25% slower at
/// one head a unit; unif1k's GQA 4 10% slower at two). Where the sums are
/// paid anyway (fewer than kMinUnitsPerPair k/v heads), a shorter walk is
/// worth a further split. Both values fit the 12 batches of run 88.
constexpr int64_t kUnitSteps = 32, kSummedUnitSteps = 20;

/// A typical unit's q tiles (kAttentionBackwardQTile rows) per q head. The
/// real walks vary (under causal, key tile j of a sequence of L walks about
/// L - 128 j rows) and are not known on the host, so this is a proxy: the
/// midpoint of the mean length (T / batch) and max_seqlen, which fits the
/// causal batches measured (bench/NOTES.md run 88; non-causal ones, whose
/// walks are longer, were not); under a window with a left bound, at most
/// the 128 + left + right queries that can see a key tile (right 0 under
/// causal).
int64_t qTilesPerHead(const AttentionBackwardArgs &a,
                      const AttentionOptions &o) {
  int64_t longest = longestQueries(a);
  int64_t rows = (longest + a.totalTokens / std::max<int64_t>(a.batch, 1)) / 2;
  if (o.windowLeft >= 0) {
    int64_t right = o.windowRight >= 0 ? o.windowRight : a.causal ? 0 : longest;
    rows = std::min(rows, kAttentionKeyTile + o.windowLeft + right);
  }
  return std::max<int64_t>(1, (rows + kAttentionBackwardQTile - 1) /
                                  kAttentionBackwardQTile);
}

/// The units per k/v head and pair (a divisor of the q heads per k/v head,
/// kvGroup >= 1): the most that still leave each unit kUnitSteps steps
/// (kSummedUnitSteps where H_kv alone gives a pair too few units, so that
/// the sums are paid anyway), raised to the smallest that gives each pair
/// kMinUnitsPerPair units (kvGroup where none does); and, since a split is
/// for speed, lowered to the largest divisor up to maxSplit (>= 1), past
/// which the work units would not fit the kernels' 32-bit indices.
int64_t kvSplitOf(int64_t kvHeads, int64_t kvGroup, int64_t stepsPerHead,
                  int64_t maxSplit) {
  int64_t steps = kvHeads >= kMinUnitsPerPair ? kUnitSteps : kSummedUnitSteps;
  int64_t wanted = 1;
  for (int64_t s = 1; s <= kvGroup; ++s)
    if (kvGroup % s == 0 && (kvGroup / s) * stepsPerHead >= steps)
      wanted = s;
  int64_t balanced = kvGroup;
  for (int64_t s = 1; s < kvGroup; ++s)
    if (kvGroup % s == 0 && kvHeads * s >= kMinUnitsPerPair) {
      balanced = s;
      break;
    }
  int64_t split = 1;
  for (int64_t s = 1, e = std::min(std::max(wanted, balanced), maxSplit);
       s <= e; ++s)
    if (kvGroup % s == 0)
      split = s;
  return split;
}

/// The backward's work units: (sequence, key tile) pairs times H_kv times
/// the split; unit u is pair u / (H_kv * split) for head group
/// u % (H_kv * split).
__int128 unitCount(const AttentionBackwardArgs &a, const Plan &p) {
  return __int128(a.batch) * p.opt.kvHeads * p.kvSplit * p.kTiles;
}

Plan planOf(const AttentionBackwardArgs &a) {
  Plan p;
  AttentionForwardArgs f = forwardView(a);
  p.opt = attentionOptions(f);
  p.queries = attentionHasWork(f);
  p.keys = p.opt.keyTokens > 0 && p.opt.kvHeads > 0;
  p.launches = p.queries && p.opt.keyTokens > 0;
  int64_t longest = longestKeys(p.opt);
  p.kTiles = std::max<int64_t>(
      1, sequenceTiles(longest, kAttentionKeyTile, p.opt.sparse));
  p.accumStride =
      p.opt.general ? a.numHeads * a.headDim : int64_t(a.dkStrides[0]);
  // (More q heads than a grid dimension takes are refused by
  // checkBackwardSizes; the split's loops run over them, so none is chosen.)
  if (p.opt.general && p.opt.kvHeads > 0 && a.numHeads <= kGridYMax) {
    __int128 unitsPerSplit = unitCount(a, p); // p.kvSplit is 1 here
    int64_t maxSplit =
        unitsPerSplit > 0
            ? int64_t(std::clamp<__int128>(kMaxQueueUnits / unitsPerSplit, 1,
                                           p.opt.kvGroup))
            : p.opt.kvGroup;
    p.kvSplit = kvSplitOf(p.opt.kvHeads, p.opt.kvGroup, qTilesPerHead(a, p.opt),
                          maxSplit);
  }
  return p;
}

/// How the messages name H_kv: num_kv_heads when it was given.
const char *kvHeadsName(const AttentionBackwardArgs &a) {
  return a.numKvHeads != 0 ? "num_kv_heads" : "num_heads";
}

size_t alignUp(size_t n) {
  return (n + kWorkspaceAlignment - 1) / kWorkspaceAlignment *
         kWorkspaceAlignment;
}

struct WorkspaceLayout {
  size_t accum = 0, delta = 0, schedule = 0, dkSum = 0, dvSum = 0, bytes = 0;
  size_t accumElements = 0;
  size_t sumElements = 0; // of dk's and dv's each; 0 without a split
};

/// dq's f32 accumulator [T, accumStride], delta f32 [H, T], the schedule
/// i32 [2 + B * k_tiles], and with a split (Plan::kvSplit) dk's and dv's f32
/// sums [T_k, H_kv * D]; each 256-byte aligned. `a`'s sizes are checked.
WorkspaceLayout workspaceLayout(const AttentionBackwardArgs &a, const Plan &p) {
  WorkspaceLayout w;
  w.accumElements = size_t(a.totalTokens) * size_t(p.accumStride);
  w.delta = alignUp(w.accumElements * sizeof(float));
  w.schedule =
      w.delta + alignUp(size_t(a.numHeads) * size_t(a.totalTokens) * 4);
  w.dkSum = w.schedule +
            alignUp((2 + size_t(a.batch) * size_t(p.kTiles)) * sizeof(int32_t));
  if (p.kvSplit > 1)
    w.sumElements =
        size_t(p.opt.keyTokens) * size_t(p.opt.kvHeads) * size_t(a.headDim);
  w.dvSum = w.dkSum + alignUp(w.sumElements * sizeof(float));
  w.bytes = w.dvSum + alignUp(w.sumElements * sizeof(float));
  return w;
}

/// The sizes the backward adds to the forward's rules.
void checkBackwardSizes(const AttentionBackwardArgs &a, const Plan &p) {
  if (a.numHeads > kGridYMax)
    throw Error(fmt::format("num_heads {} is more than the backward takes (at "
                            "most {}: a grid dimension)",
                            a.numHeads, kGridYMax));
  const char *longest = p.opt.cross ? "max_seqlen_k" : "max_seqlen";
  __int128 units = unitCount(a, p);
  if (units > kMaxQueueUnits)
    throw Error(fmt::format(
        "batch * {} * ceil({} / {}) = {} work units do not fit the "
        "backward's 32-bit indices (at most {}); use a tighter {}",
        kvHeadsName(a),
        // A block mask's grid: a sequence may span one tile more.
        p.opt.sparse ? fmt::format("({} + {})", longest, kAttentionKeyTile - 1)
                     : std::string(longest),
        kAttentionKeyTile, int64_t(units), kMaxQueueUnits, longest));
  struct Span {
    const char *name, *rows;
    int64_t tokens, stride;
  };
  const Span spans[] = {{"dk", p.opt.cross ? "total_tokens_k" : "total_tokens",
                         p.opt.keyTokens, a.dkStrides[0]},
                        {"dq", "total_tokens", a.totalTokens, a.dqStrides[0]}};
  for (const Span &s : spans) {
    __int128 elements = __int128(s.tokens) * s.stride;
    if (elements > kInt32Max)
      throw Error(fmt::format(
          "{} spans {} elements ({} * {}_strides[0]); the backward kernels "
          "address at most {}: split the batch into calls of fewer tokens",
          s.name, int64_t(elements), s.rows, s.name, kInt32Max));
  }
  // The general variant's accumulator is [T, H * D] (the plain one's is
  // dk's span, checked above).
  __int128 accum = __int128(a.totalTokens) * p.accumStride;
  if (accum > kInt32Max)
    throw Error(fmt::format(
        "dq's f32 accumulator spans {} elements (total_tokens * num_heads * "
        "head_dim); the backward kernels address at most {}: split the batch "
        "into calls of fewer tokens",
        int64_t(accum), kInt32Max));
}

/// A tensor's bytes as rows: `rows` rows of `rowBytes` bytes, `stride` bytes
/// apart, from `start` (one row when the layout is not row-packed). No rows
/// or no bytes: it holds nothing (a tensor the call does not touch).
struct Extent {
  const char *name;
  CUdeviceptr start;
  uint64_t rows, rowBytes, stride;
  bool empty() const { return rows == 0 || rowBytes == 0; }
  uint64_t end() const { return start + (rows - 1) * stride + rowBytes; }
};

/// A bf16 [rows, heads, D] tensor with `s`'s token stride.
Extent tokenExtent(const char *name, CUdeviceptr p,
                   const std::array<int64_t, 3> &s, int64_t rows, int64_t heads,
                   int64_t headDim) {
  uint64_t row = uint64_t(heads * headDim) * 2;
  return {name, p, uint64_t(rows), row, uint64_t(s[0]) * 2};
}

Extent flatExtent(const char *name, CUdeviceptr p, uint64_t bytes) {
  return {name, p, 1, bytes, bytes};
}

/// Whether two extents share a byte. Rows of equal stride interleave without
/// touching when their column ranges do not meet (q, k and v packed in one
/// [T, 3, H, D] tensor, say).
bool overlaps(const Extent &x, const Extent &y) {
  if (x.empty() || y.empty())
    return false;
  if (x.end() <= y.start || y.end() <= x.start)
    return false;
  if (x.rows > 1 && y.rows > 1 && x.stride == y.stride) {
    uint64_t period = x.stride;
    uint64_t shift = (y.start + period - x.start % period) % period;
    // x's row covers [0, x.rowBytes) of each period, y's [shift, shift +
    // y.rowBytes) (mod period).
    return shift < x.rowBytes || shift + y.rowBytes > period;
  }
  return true;
}

/// Whether an output the call writes shares a byte with an input it reads
/// or with another output. Tensors the call does not touch (q, dq, ... without
/// queries; k and v when no kernel runs) count as empty.
void checkNoOverlap(const AttentionBackwardArgs &a, const Plan &p,
                    const WorkspaceLayout &w) {
  int64_t queryRows = p.queries ? a.totalTokens : 0;
  int64_t keyRows = p.keys ? p.opt.keyTokens : 0;
  int64_t readKeyRows = p.launches ? p.opt.keyTokens : 0;
  int64_t h = a.numHeads, hkv = p.opt.kvHeads, d = a.headDim;
  uint64_t offsetsBytes = p.queries ? uint64_t(a.batch + 1) * 4 : 0;
  Extent outputs[] = {
      tokenExtent("dq", a.dq, a.dqStrides, queryRows, h, d),
      tokenExtent("dk", a.dk, a.dkStrides, keyRows, hkv, d),
      tokenExtent("dv", a.dv, a.dvStrides, keyRows, hkv, d),
      flatExtent("workspace", a.workspace, p.launches ? w.bytes : 0)};
  Extent inputs[] = {
      tokenExtent("dout", a.dout, a.doutStrides, queryRows, h, d),
      tokenExtent("q", a.q, a.qStrides, queryRows, h, d),
      tokenExtent("k", a.k, a.kStrides, readKeyRows, hkv, d),
      tokenExtent("v", a.v, a.vStrides, readKeyRows, hkv, d),
      tokenExtent("o", a.o, a.oStrides, queryRows, h, d),
      // Not read under GDPA.
      flatExtent("lse", a.lse, p.opt.gdpa ? 0 : uint64_t(queryRows * h) * 4),
      flatExtent("offsets", a.offsets, offsetsBytes),
      flatExtent("offsets_k", a.offsetsK, p.opt.cross ? offsetsBytes : 0)};
  for (size_t i = 0; i < std::size(outputs); ++i) {
    for (const Extent &in : inputs)
      if (overlaps(outputs[i], in))
        throw Error(fmt::format("{} overlaps {}: an output must not share "
                                "memory with an input",
                                outputs[i].name, in.name));
    for (size_t j = 0; j < i; ++j)
      if (overlaps(outputs[j], outputs[i]))
        throw Error(fmt::format("{} overlaps {}: the outputs and the "
                                "workspace must not share memory",
                                outputs[i].name, outputs[j].name));
  }
}

/// The value of every slot for a launching call (the main kernel's view;
/// the schedule kernel's `offsets` is slot kOffsetsK's value).
std::array<Arg, kNumSlots> slotValues(const AttentionBackwardArgs &a,
                                      const Plan &p, const WorkspaceLayout &w) {
  auto tensor = [&](CUdeviceptr ptr, const char *type, int64_t tokens,
                    int64_t heads, int64_t stride) {
    return Arg::tensor(ptr, type,
                       {uint64_t(tokens), uint64_t(heads * a.headDim)},
                       {uint64_t(stride), 1});
  };
  int64_t t = a.totalTokens, tk = p.opt.keyTokens;
  int64_t h = a.numHeads, hkv = p.opt.kvHeads;
  float scale = effectiveScale(a.softmaxScale, a.headDim);
  std::array<Arg, kNumSlots> v;
  v[kQ] = tensor(a.q, "bf16", t, h, a.qStrides[0]);
  v[kK] = tensor(a.k, "bf16", tk, hkv, a.kStrides[0]);
  v[kV] = tensor(a.v, "bf16", tk, hkv, a.vStrides[0]);
  v[kDout] = tensor(a.dout, "bf16", t, h, a.doutStrides[0]);
  v[kO] = tensor(a.o, "bf16", t, h, a.oStrides[0]);
  v[kDk] = Arg::pointer(a.dk);
  v[kDv] = Arg::pointer(a.dv);
  v[kDqAccum] = tensor(a.workspace + w.accum, "f32", t, h, p.accumStride);
  v[kDq] = Arg::pointer(a.dq);
  // GDPA uses neither lse nor delta (no delta kernel runs), but the kernels
  // load rows of both: they get the workspace's delta space, f32 [H, T].
  v[kLse] = Arg::pointer(p.opt.gdpa ? a.workspace + w.delta : a.lse);
  v[kDelta] = Arg::pointer(a.workspace + w.delta);
  v[kOffsets] = Arg::pointer(a.offsets);
  v[kSchedule] = Arg::pointer(a.workspace + w.schedule);
  v[kBatch] = Arg::i32(int32_t(a.batch));
  v[kHeads] = Arg::i32(int32_t(h));
  v[kTokens] = Arg::i32(int32_t(t));
  v[kStride] = Arg::i32(int32_t(p.accumStride));
  v[kKTiles] = Arg::i32(int32_t(p.kTiles));
  v[kScaleLog2] = Arg::f32(scaleLog2(scale));
  v[kScale] = Arg::f32(scale);
  v[kHeadDim] = Arg::i32(int32_t(a.headDim));
  v[kDqAccumStride] = Arg::i32(int32_t(p.accumStride));
  v[kDqStride] = Arg::i32(int32_t(a.dqStrides[0]));
  v[kCols] = Arg::i32(int32_t(h * a.headDim));
  // The general variant's (the plain one reads none of them): the key
  // sequences, the q heads per k/v head, the window (-1, -1 without one;
  // clamped as the forward's) and dk's and dv's token stride.
  v[kOffsetsK] = Arg::pointer(p.opt.cross ? a.offsetsK : a.offsets);
  v[kKvGroup] = Arg::i32(int32_t(p.opt.kvGroup));
  v[kWindowLeft] = Arg::i32(int32_t(p.opt.windowLeft));
  v[kWindowRight] = Arg::i32(int32_t(p.opt.windowRight));
  v[kKvStride] = Arg::i32(int32_t(a.dkStrides[0]));
  // Without a split the kernels write dk and dv and never touch the sums;
  // they still get addresses (the workspace's start) to bind.
  v[kKvSplit] = Arg::i32(int32_t(p.kvSplit));
  v[kDkAccum] = Arg::pointer(a.workspace + (w.sumElements ? w.dkSum : 0));
  v[kDvAccum] = Arg::pointer(a.workspace + (w.sumElements ? w.dvSum : 0));
  // With a block mask the tiles lie on the mask's grid (the schedule counts
  // them so).
  v[kBlockAligned] = Arg::i32(p.opt.sparse ? 1 : 0);
  // The backward's units are 128-key tiles.
  v[kTileRows] = Arg::i32(int32_t(kAttentionQTile));
  // Read by the block-sparse variants only.
  v[kBlockBits] = Arg::pointer(p.opt.sparse ? a.blockMaskBits : 0);
  v[kBlockWords] = Arg::i32(int32_t(p.opt.blockWords));
  v[kBlockHeadStride] = Arg::i32(int32_t(p.opt.blockHeadStride));
  v[kDkOut] = tensor(a.dk, "bf16", tk, hkv, a.dkStrides[0]);
  v[kDvOut] = tensor(a.dv, "bf16", tk, hkv, a.dvStrides[0]);
  return v;
}

} // namespace

size_t attentionBackwardWorkspaceBytes(const AttentionBackwardArgs &a) {
  validateAttentionSizes(forwardView(a));
  Plan p = planOf(a);
  if (!p.launches)
    return 0;
  checkTensor("dk", 0, a.dkStrides, p.opt.kvHeads, a.headDim, false, true,
              kvHeadsName(a));
  checkBackwardSizes(a, p);
  return workspaceLayout(a, p).bytes;
}

bool attentionBackwardLaunchesKernels(const AttentionBackwardArgs &a) {
  return planOf(a).launches;
}

void validateAttentionBackwardArgs(const AttentionBackwardArgs &a) {
  validateAttentionArgs(forwardView(a));
  Plan p = planOf(a);
  checkTensor("dout", a.dout, a.doutStrides, a.numHeads, a.headDim, p.queries,
              false);
  checkTensor("dq", a.dq, a.dqStrides, a.numHeads, a.headDim, p.queries, true);
  checkTensor("dk", a.dk, a.dkStrides, p.opt.kvHeads, a.headDim, p.keys, true,
              kvHeadsName(a));
  checkTensor("dv", a.dv, a.dvStrides, p.opt.kvHeads, a.headDim, p.keys, true,
              kvHeadsName(a));
  if (a.dkStrides[0] != a.dvStrides[0])
    throw Error(fmt::format("dk_strides[0] and dv_strides[0] (the token "
                            "strides) must be equal (the kernel writes both "
                            "with one), got {} and {}",
                            a.dkStrides[0], a.dvStrides[0]));
  checkBackwardSizes(a, p);
  WorkspaceLayout w;
  if (p.launches) {
    w = workspaceLayout(a, p);
    if (a.workspace == 0)
      throw Error(fmt::format("workspace is a null address; the call needs {} "
                              "bytes (jfa_attention_backward_workspace_size)",
                              w.bytes));
    if (a.workspace % kWorkspaceAlignment != 0)
      throw Error(fmt::format("workspace must be {}-byte aligned, got address "
                              "{:#x}",
                              kWorkspaceAlignment, a.workspace));
    if (a.workspaceBytes < w.bytes)
      throw Error(
          fmt::format("workspace_bytes {} is less than the {} bytes the "
                      "call needs (jfa_attention_backward_workspace_size)",
                      a.workspaceBytes, w.bytes));
  }
  checkNoOverlap(a, p, w);
}

std::vector<std::pair<std::string, Arg>>
attentionBackwardKernelArgs(const AttentionBackwardArgs &a) {
  Plan p = planOf(a);
  std::array<Arg, kNumSlots> v = slotValues(a, p, workspaceLayout(a, p));
  std::vector<std::pair<std::string, Arg>> out;
  for (size_t i = 0; i < kNumSlots; ++i)
    out.emplace_back(kSlots[i].name, v[i]);
  return out;
}

//===----------------------------------------------------------------------===//
// The kernels
//===----------------------------------------------------------------------===//

namespace detail {

struct BackwardKernels::Image {
  std::string kernel, source; // source: the metadata's path, for errors
  std::string cubin, metadata;
  Params params;
  KernelInfo info;
  std::vector<Slot> plan;
};

struct BackwardKernels::TargetKernels {
  const jfa::Target *target = nullptr;
  std::vector<Image> main;                     // one per variant
  std::vector<Image> delta, schedule, convert; // one each when present
  std::string missing; // why the target cannot run; "" when it can
  // Why the schedule kernel (which the forward runs too) is not there;
  // "" when it is.
  std::string scheduleMissing;
};

BackwardKernels::BackwardKernels() = default;
BackwardKernels::~BackwardKernels() = default;

namespace {
/// Whether `file` is `<kernel>_<arch>.cubin` or `<kernel>_<arch>.*.cubin`.
bool isCubinOf(const std::string &file, const std::string &kernel,
               const std::string &arch) {
  std::string stem = kernel + "_" + arch;
  if (file.rfind(stem + ".", 0) != 0 || file.size() < stem.size() + 6)
    return false;
  return file.compare(file.size() - 6, 6, ".cubin") == 0;
}
} // namespace

BackwardKernels::Image BackwardKernels::makeImage(const std::string &kernel,
                                                  const jfa::Target &t,
                                                  std::string cubin,
                                                  std::string metadata,
                                                  std::string source) {
  Image img;
  img.kernel = kernel;
  img.cubin = std::move(cubin);
  img.metadata = std::move(metadata);
  img.source = std::move(source);
  bool found = false;
  for (const KernelInfo &k : parseMetadata(img.metadata, img.source)) {
    if (k.name != kernel)
      continue;
    if (k.arch != t.name)
      throw Error(fmt::format("{}: kernel '{}' is built for {}, expected {}",
                              img.source, kernel, k.arch, t.name));
    img.info = k;
    found = true;
  }
  if (!found)
    throw Error(fmt::format("{}: no kernel named '{}'", img.source, kernel));
  img.params = normalize(img.info.compileParams);
  // The backward kernel's variants: a call picks one by these.
  if (kernel == mainKernelOf(t))
    for (const char *name : {"head_dim", "causal", kGeneralParam})
      if (!img.params.count(name))
        throw Error(fmt::format(
            "{}: kernel '{}' was compiled without the compile-time parameter "
            "'{}' (its metadata has no params.{}); rebuild it with jfac -P "
            "{}=...",
            img.source, kernel, name, name, name));
  // The schedule kernel must take block_aligned: one built before it counts
  // a block-sparse call's tiles from each sequence's start, fewer than the
  // kernels walk on the mask's grid, and would leave rows uncomputed. And
  // tile_rows: one built before it counts 128-row tiles for every forward.
  if (kernel == kScheduleKernel)
    for (const char *name : {"block_aligned", "tile_rows"}) {
      bool takes = false;
      for (const ParamSpec &p : img.info.params)
        takes |= p.name == name;
      if (!takes)
        throw Error(fmt::format(
            "{}: kernel '{}' has no parameter '{}' (a cubin built from an "
            "older kernels/jagged_attention: rebuild it)",
            img.source, kernel, name));
    }
  img.plan = planArguments(img.info, img.source);
  return img;
}

/// The four kinds of kernel of a target's backward, and where its images go.
static std::vector<
    std::pair<std::string, std::vector<BackwardKernels::Image> *>>
kindsOf(BackwardKernels::TargetKernels &target, const std::string &mainKernel) {
  return {{mainKernel, &target.main},
          {kDeltaKernel, &target.delta},
          {kScheduleKernel, &target.schedule},
          {kConvertKernel, &target.convert}};
}

std::unique_ptr<BackwardKernels>
BackwardKernels::fromFolder(const std::string &dir,
                            const std::vector<std::string> &files) {
  std::unique_ptr<BackwardKernels> out(new BackwardKernels());
  std::string folder = dir.back() == '/' ? dir : dir + "/";
  for (const jfa::Target &t : jfa::kTargets) {
    TargetKernels target;
    target.target = &t;
    std::string mainKernel = mainKernelOf(t);
    std::string lacking;
    // A backward cubin that does not fit leaves this target without a
    // backward; the other kinds still load (the forward needs the
    // schedule), and the other target stays usable.
    for (auto &[kernel, images] : kindsOf(target, mainKernel)) {
      try {
        for (const std::string &file : files) {
          if (!isCubinOf(file, kernel, t.name))
            continue;
          Image img = makeImage(kernel, t, readFile(folder + file, "cubin"),
                                readFile(folder + file + ".meta", "metadata"),
                                folder + file + ".meta");
          for (const Image &other : *images)
            if (other.params == img.params)
              throw Error(fmt::format("{} and {} are the same variant ({})",
                                      other.source, img.source,
                                      paramsText(img.params)));
          images->push_back(std::move(img));
        }
        if (images->empty())
          lacking +=
              fmt::format("{}{}_{}{}.cubin", lacking.empty() ? "" : ", ",
                          kernel, t.name, kernel == mainKernel ? ".*" : "");
        else if (kernel != mainKernel && images->size() > 1)
          throw Error(fmt::format("kernel_dir '{}' holds {} variants of {} for "
                                  "{}; the backward takes one",
                                  dir, images->size(), kernel, t.name));
      } catch (const Error &error) {
        images->clear();
        if (target.missing.empty())
          target.missing = error.what();
        if (kernel == std::string(kScheduleKernel))
          target.scheduleMissing = error.what();
      }
    }
    if (target.schedule.empty() && target.scheduleMissing.empty())
      target.scheduleMissing = fmt::format(
          "kernel_dir '{}' lacks {}_{}.cubin (scripts/build-package.sh "
          "compiles it)",
          dir, kScheduleKernel, t.name);
    if (target.missing.empty() && !lacking.empty())
      target.missing = fmt::format(
          "kernel_dir '{}' lacks {}, the backward's kernels for {} devices "
          "(scripts/build-package.sh compiles them)",
          dir, lacking, t.name);
    out->targets.push_back(std::move(target));
  }
  return out;
}

std::unique_ptr<BackwardKernels> BackwardKernels::fromEmbedded() {
  std::unique_ptr<BackwardKernels> out(new BackwardKernels());
  for (const jfa::Target &t : jfa::kTargets) {
    TargetKernels target;
    target.target = &t;
    std::string mainKernel = mainKernelOf(t);
    // A kernel that is absent or does not fit leaves the target without a
    // backward (the forward and the other target stay usable).
    for (auto &[kernel, images] : kindsOf(target, mainKernel)) {
      for (const EmbeddedKernel *const *e = embeddedKernels; *e; ++e) {
        const EmbeddedKernel &k = **e;
        if (kernel != k.kernel || std::string(t.name) != k.arch)
          continue;
        std::string variant = paramsText(parseParams(k.params));
        if (!k.cubin || !k.metadata) {
          // A missing variant of the backward kernel fails only the calls
          // that need it (run() names those there are); a missing helper
          // kernel, every call.
          if (kernel != mainKernel && target.missing.empty())
            target.missing = fmt::format(
                "this library was built without the embedded {} for {} ({}: "
                "{}); pass a kernel_dir",
                kernel, t.name, variant,
                k.absentReason ? k.absentReason : "no reason recorded");
          continue;
        }
        try {
          images->push_back(makeImage(
              kernel, t,
              std::string(reinterpret_cast<const char *>(k.cubin), k.cubinSize),
              k.metadata,
              fmt::format("the embedded {}_{} ({}) metadata", kernel, t.name,
                          variant)));
        } catch (const Error &error) {
          if (target.missing.empty())
            target.missing = fmt::format("this library's embedded {} for {} "
                                         "is unusable; pass a kernel_dir ({})",
                                         kernel, t.name, error.what());
        }
      }
      if (images->empty() && target.missing.empty())
        target.missing = fmt::format("this library was built without the "
                                     "embedded {} for {}; pass a kernel_dir",
                                     kernel, t.name);
    }
    if (target.schedule.empty())
      target.scheduleMissing = fmt::format(
          "this library has no usable embedded {} for {}; pass a kernel_dir",
          kScheduleKernel, t.name);
    out->targets.push_back(std::move(target));
  }
  return out;
}

const BackwardKernels::TargetKernels *
BackwardKernels::targetFor(const std::string &arch) const {
  for (const TargetKernels &t : targets)
    if (arch == t.target->name)
      return &t;
  return nullptr;
}

bool BackwardKernels::has(const std::string &arch) const {
  const TargetKernels *t = targetFor(arch);
  return t && t->missing.empty();
}

std::string BackwardKernels::whyNot(const std::string &arch) const {
  if (const TargetKernels *t = targetFor(arch))
    return t->missing;
  return fmt::format("no jagged attention kernel for arch '{}'", arch);
}

std::string BackwardKernels::scheduleWhyNot(const std::string &arch) const {
  const TargetKernels *t = targetFor(arch);
  if (!t)
    return fmt::format("no jagged attention kernel for arch '{}'", arch);
  if (t->scheduleMissing.empty())
    return "";
  return fmt::format("the forward's work queue needs {}_{} ({})",
                     kScheduleKernel, arch, t->scheduleMissing);
}

void BackwardKernels::writeSchedule(const std::string &arch,
                                    CUdeviceptr offsets, CUdeviceptr schedule,
                                    int64_t batch, int64_t tiles,
                                    bool blockAligned, int64_t tileRows,
                                    CUstream stream) {
  const TargetKernels *target = targetFor(arch);
  if (!target || target->schedule.empty())
    throw Error(scheduleWhyNot(arch));
  const Image &img = target->schedule.front();
  std::array<Arg, kNumSlots> values;
  values[kOffsets] = Arg::pointer(offsets);
  values[kSchedule] = Arg::pointer(schedule);
  values[kBatch] = Arg::i32(int32_t(batch));
  values[kKTiles] = Arg::i32(int32_t(tiles));
  values[kBlockAligned] = Arg::i32(blockAligned ? 1 : 0);
  values[kTileRows] = Arg::i32(int32_t(tileRows));
  unsigned grid = unsigned((batch + kScheduleBatch - 1) / kScheduleBatch);
  moduleFor(currentContext(), img)
      .launch(img.kernel, {grid, 1, 1},
              bindArguments(img.plan, img.info, values), stream);
}

const Module &BackwardKernels::moduleFor(CUcontext context,
                                         const Image &image) {
  std::lock_guard<std::mutex> lock(mutex);
  auto key = std::make_pair(context, &image);
  auto it = modules.find(key);
  if (it == modules.end())
    it = modules
             .emplace(key,
                      Module::loadData(image.cubin.data(), image.cubin.size(),
                                       image.metadata, image.source))
             .first;
  return it->second;
}

namespace {

/// A call that launches no kernel: what the gradients are, with driver
/// memsets on `stream`. Queries but no keys (T_k == 0: no query sees a key,
/// and a TMA descriptor of k cannot have 0 rows): dq = 0. Keys but no
/// queries (no key is seen): dk = dv = 0. Each row at its token stride.
void zeroGradients(const AttentionBackwardArgs &a, const Plan &p,
                   CUstream stream) {
  if (!p.queries && !p.keys)
    return;
  currentContext(); // device 0's primary context when none is current
  // check_offsets: the offsets of each side that has rows (with no queries
  // the query offsets may be 0, as for any call with nothing to compute;
  // cross-attention's key offsets are checked whenever there are keys).
  if (a.checkOffsets && p.queries)
    checkOffsetsOnDevice(a.offsets, a.batch, a.totalTokens, a.maxSeqlen,
                         stream);
  if (a.checkOffsets && p.opt.cross && (p.queries || p.keys))
    checkOffsetsOnDevice(a.offsetsK, a.batch, a.totalTokensK, a.maxSeqlenK,
                         stream, /*keys=*/true);
  if (p.queries) {
    deviceMemsetD2D16OnStream(a.dq, size_t(a.dqStrides[0]) * 2, 0,
                              size_t(a.numHeads * a.headDim),
                              size_t(a.totalTokens), stream);
  }
  if (p.keys)
    for (auto [d, strides] :
         {std::pair{a.dk, &a.dkStrides}, std::pair{a.dv, &a.dvStrides}})
      deviceMemsetD2D16OnStream(d, size_t((*strides)[0]) * 2, 0,
                                size_t(p.opt.kvHeads * a.headDim),
                                size_t(p.opt.keyTokens), stream);
}

} // namespace

void BackwardKernels::run(const AttentionBackwardArgs &a, CUstream stream) {
  validateAttentionBackwardArgs(a);
  Plan p = planOf(a);
  if (!p.launches) {
    zeroGradients(a, p, stream);
    return;
  }
  DeviceProperties device = currentDevice();
  // Names the supported devices when this one is not.
  AttentionKernelChoice choice = attentionKernelFor(device.major, device.minor);
  const TargetKernels *target = targetFor(choice.arch);
  auto onDevice = [&] {
    return fmt::format("device {} has compute capability {}.{}", device.ordinal,
                       device.major, device.minor);
  };
  if (!target || !target->missing.empty())
    throw Error(fmt::format("{}; {}",
                            !target ? "no backward kernels" : target->missing,
                            onDevice()));
  // The variant the forward of these options ran (attentionOptions).
  Params wanted = wantedParams(a.headDim, a.causal, p.opt.general);
  auto main = std::find_if(target->main.begin(), target->main.end(),
                           [&](const Image &i) { return i.params == wanted; });
  if (main == target->main.end()) {
    std::string held;
    for (const Image &img : target->main)
      held += fmt::format("{}[{}]", held.empty() ? "" : ", ",
                          paramsText(img.params));
    throw Error(fmt::format("no {} kernel for {} was built ({}); it has {}; {}",
                            mainKernelOf(*target->target), paramsText(wanted),
                            choice.arch, held, onDevice()));
  }

  if (a.checkOffsets) {
    checkOffsetsOnDevice(a.offsets, a.batch, a.totalTokens, a.maxSeqlen,
                         stream);
    if (p.opt.cross)
      checkOffsetsOnDevice(a.offsetsK, a.batch, a.totalTokensK, a.maxSeqlenK,
                           stream, /*keys=*/true);
  }

  CUcontext context = currentContext();
  const Image *images[] = {&target->schedule.front(), &target->delta.front(),
                           &*main, &target->convert.front()};
  const Module *modules[4];
  for (int i = 0; i < 4; ++i)
    modules[i] = &moduleFor(context, *images[i]);

  WorkspaceLayout w = workspaceLayout(a, p);
  std::array<Arg, kNumSlots> v = slotValues(a, p, w);
  // The schedule lists (sequence, key tile) pairs: over the key sequences.
  std::array<Arg, kNumSlots> scheduleValues = v;
  scheduleValues[kOffsets] = v[kOffsetsK];
  const std::array<Arg, kNumSlots> *values[] = {&scheduleValues, &v, &v, &v};

  auto ceilDiv = [](int64_t n, int64_t d) { return unsigned((n + d - 1) / d); };
  unsigned persistent = unsigned(std::max<__int128>(
      1, std::min<__int128>(device.multiprocessors, unitCount(a, p))));
  // Whole clusters of the main kernel, at least one (a launch of a
  // clustered kernel takes a grid that is a multiple of its cluster).
  unsigned cluster = main->info.cluster[0];
  persistent = std::max(cluster, persistent / cluster * cluster);
  int64_t cols = a.numHeads * a.headDim;
  Dim3 grids[] = {{ceilDiv(a.batch, kScheduleBatch), 1, 1},
                  {ceilDiv(a.totalTokens, kDeltaRows), unsigned(a.numHeads), 1},
                  {persistent, 1, 1},
                  {unsigned(a.totalTokens), ceilDiv(cols, kConvertCols), 1}};
  deviceMemsetD32OnStream(a.workspace + w.accum, 0, w.accumElements, stream);
  if (w.sumElements) {
    deviceMemsetD32OnStream(a.workspace + w.dkSum, 0, w.sumElements, stream);
    deviceMemsetD32OnStream(a.workspace + w.dvSum, 0, w.sumElements, stream);
  }
  for (int i = 0; i < 4; ++i) {
    if (i == 1 && p.opt.gdpa)
      continue; // GDPA's gradients do not use delta
    modules[i]->launch(
        images[i]->kernel, grids[i],
        bindArguments(images[i]->plan, images[i]->info, *values[i]), stream);
  }
  if (!w.sumElements)
    return;
  // Split units added dk and dv into f32 sums [T_k, H_kv * D]: the same
  // conversion as dq's, row by row to dk's and dv's own strides.
  int64_t kvCols = p.opt.kvHeads * a.headDim;
  Dim3 sumGrid = {unsigned(p.opt.keyTokens), ceilDiv(kvCols, kConvertCols), 1};
  for (auto [sum, out, stride] : {std::tuple{w.dkSum, a.dk, a.dkStrides[0]},
                                  std::tuple{w.dvSum, a.dv, a.dvStrides[0]}}) {
    std::array<Arg, kNumSlots> sumValues = v;
    sumValues[kDqAccum] = Arg::pointer(a.workspace + sum);
    sumValues[kDqAccumStride] = Arg::i32(int32_t(kvCols));
    sumValues[kDq] = Arg::pointer(out);
    sumValues[kDqStride] = Arg::i32(int32_t(stride));
    sumValues[kCols] = Arg::i32(int32_t(kvCols));
    modules[3]->launch(
        images[3]->kernel, sumGrid,
        bindArguments(images[3]->plan, images[3]->info, sumValues), stream);
  }
}

} // namespace detail

} // namespace jfa::rt
