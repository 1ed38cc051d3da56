//===- AttentionBackwardTest.cpp - host-side tests of the backward --------===//
//
// What needs no GPU: the backward's argument checks (each error names the
// argument), its workspace size, the overlap check, reading its kernels
// from a kernel_dir (which kernels are missing, arguments bound by name) and
// the C API.
//
//===----------------------------------------------------------------------===//
#include "jfa/attention.h"
#include "jfa/attention.hpp"

#include "AttentionTestSupport.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <dlfcn.h>
#include <map>
#include <tuple>

using namespace jfa::rt;

namespace {

using test::errorOf;
using test::writeCubin;

/// T = 1000 tokens in B = 3 sequences, H = 4, D = 128; dense tensors 1 MiB
/// apart, a 16 MiB workspace.
AttentionBackwardArgs goodArgs() {
  AttentionBackwardArgs a;
  a.dout = 0x1000000;
  a.q = 0x1100000;
  a.k = 0x1200000;
  a.v = 0x1300000;
  a.o = 0x1400000;
  a.lse = 0x1500000;
  a.offsets = 0x1600000;
  a.dq = 0x1700000;
  a.dk = 0x1800000;
  a.dv = 0x1900000;
  a.workspace = 0x2000000;
  a.workspaceBytes = 16 << 20;
  a.totalTokens = 1000;
  a.numHeads = 4;
  a.headDim = 128;
  a.batch = 3;
  a.maxSeqlen = 500;
  a.doutStrides = a.qStrides = a.kStrides = a.vStrides = a.oStrides =
      a.dqStrides = a.dkStrides = a.dvStrides = {4 * 128, 128, 1};
  return a;
}

/// goodArgs() as the gradient of a cross-attention with grouped-query k/v
/// heads and a window: T_k = 1500 keys (max_seqlen_k 900), H_kv = 2, so k,
/// v, dk and dv have token stride 2 * 128; window (100, 20).
AttentionBackwardArgs crossArgs() {
  AttentionBackwardArgs a = goodArgs();
  a.offsetsK = 0x1a00000;
  a.totalTokensK = 1500;
  a.maxSeqlenK = 900;
  a.numKvHeads = 2;
  a.kStrides = a.vStrides = a.dkStrides = a.dvStrides = {2 * 128, 128, 1};
  a.windowLeft = 100;
  a.windowRight = 20;
  return a;
}

int64_t &fieldOf(AttentionBackwardArgs &a, const std::string &name) {
  if (name == "total_tokens_k")
    return a.totalTokensK;
  if (name == "max_seqlen_k")
    return a.maxSeqlenK;
  return a.numKvHeads;
}

TEST(AttentionBackwardArgs, AcceptsGoodArguments) {
  EXPECT_EQ(errorOf([] { validateAttentionBackwardArgs(goodArgs()); }), "");
}

TEST(AttentionBackwardArgs, WorkspaceBytes) {
  AttentionBackwardArgs a = goodArgs();
  // dq's accumulator T * 512 * 4 = 2048000 B (256-aligned: 2048000), delta
  // H * T * 4 = 16000 (-> 16128), the schedule (2 + 3 * 4) * 4 = 56 (-> 256).
  EXPECT_EQ(attentionBackwardWorkspaceBytes(a), 2048000u + 16128u + 256u);
  // The accumulator follows dk's token stride.
  a.dkStrides[0] = a.dvStrides[0] = 1024;
  EXPECT_EQ(attentionBackwardWorkspaceBytes(a), 4096000u + 16128u + 256u);
  a = goodArgs();
  a.totalTokens = 0;
  EXPECT_EQ(attentionBackwardWorkspaceBytes(a), 0u);
  a = goodArgs();
  a.batch = -1;
  EXPECT_EQ(errorOf([&] { attentionBackwardWorkspaceBytes(a); }),
            "batch must be >= 0, got -1");
}

TEST(AttentionBackwardArgs, Workspace) {
  AttentionBackwardArgs a = goodArgs();
  a.workspace = 0;
  EXPECT_EQ(errorOf([&] { validateAttentionBackwardArgs(a); }),
            "workspace is a null address; the call needs 2064384 bytes "
            "(jfa_attention_backward_workspace_size)");
  a = goodArgs();
  a.workspace += 16;
  EXPECT_EQ(errorOf([&] { validateAttentionBackwardArgs(a); }),
            "workspace must be 256-byte aligned, got address 0x2000010");
  a = goodArgs();
  a.workspaceBytes = 1000;
  EXPECT_EQ(errorOf([&] { validateAttentionBackwardArgs(a); }),
            "workspace_bytes 1000 is less than the 2064384 bytes the call "
            "needs (jfa_attention_backward_workspace_size)");
}

TEST(AttentionBackwardArgs, TensorsAreNamed) {
  AttentionBackwardArgs a = goodArgs();
  a.dout = 0;
  EXPECT_EQ(errorOf([&] { validateAttentionBackwardArgs(a); }),
            "dout is a null address");
  a = goodArgs();
  a.dq += 8;
  EXPECT_EQ(errorOf([&] { validateAttentionBackwardArgs(a); }),
            "dq must be 16-byte aligned, got address 0x1700008");
  a = goodArgs();
  a.dvStrides[1] = 64;
  EXPECT_EQ(errorOf([&] { validateAttentionBackwardArgs(a); }),
            "dv_strides[1] (the head stride) must equal head_dim 128, got 64");
  a = goodArgs();
  a.dvStrides[0] = 1024;
  EXPECT_EQ(errorOf([&] { validateAttentionBackwardArgs(a); }),
            "dk_strides[0] and dv_strides[0] (the token strides) must be "
            "equal (the kernel writes both with one), got 512 and 1024");
  // The forward's rules apply to q, k, v, o, lse and offsets.
  a = goodArgs();
  a.headDim = 96;
  a.doutStrides = a.qStrides = a.kStrides = a.vStrides = a.oStrides =
      a.dqStrides = a.dkStrides = a.dvStrides = {4 * 96, 96, 1};
  EXPECT_EQ(errorOf([&] { validateAttentionBackwardArgs(a); }),
            "head_dim 96 is not supported; the kernels take 64 or 128");
}

TEST(AttentionBackwardArgs, Sizes) {
  AttentionBackwardArgs a = goodArgs();
  a.numHeads = 70000;
  a.doutStrides = a.qStrides = a.kStrides = a.vStrides = a.oStrides =
      a.dqStrides = a.dkStrides = a.dvStrides = {70000 * 128, 128, 1};
  a.totalTokens = 2;
  a.batch = 1;
  a.maxSeqlen = 2;
  EXPECT_EQ(errorOf([&] { validateAttentionBackwardArgs(a); }),
            "num_heads 70000 is more than the backward takes (at most 65535: "
            "a grid dimension)");
  a = goodArgs();
  a.dqStrides[0] = 4 << 20;
  a.totalTokens = 1000;
  EXPECT_EQ(errorOf([&] { validateAttentionBackwardArgs(a); }),
            "dq spans 4194304000 elements (total_tokens * dq_strides[0]); the "
            "backward kernels address at most 2147483647: split the batch "
            "into calls of fewer tokens");
}

TEST(AttentionBackwardOptions, AcceptsGoodArguments) {
  EXPECT_EQ(errorOf([] { validateAttentionBackwardArgs(crossArgs()); }), "");
  EXPECT_TRUE(attentionBackwardLaunchesKernels(crossArgs()));
  EXPECT_TRUE(attentionBackwardLaunchesKernels(goodArgs()));
  // Each option alone, windows with and without causal; dk and dv with a
  // wider token stride than H_kv * D.
  for (auto [left, right, causal] :
       {std::tuple<int64_t, int64_t, bool>{0, 0, false},
        {-1, 0, false},
        {64, -1, false},
        {100, 0, true},
        {100, -1, true},
        {-1, -1, true},
        {int64_t(1) << 40, int64_t(1) << 40, false}}) {
    AttentionBackwardArgs a = goodArgs();
    a.windowLeft = left;
    a.windowRight = right;
    a.causal = causal;
    EXPECT_EQ(errorOf([&] { validateAttentionBackwardArgs(a); }), "")
        << left << " " << right << " " << causal;
  }
  AttentionBackwardArgs a = goodArgs();
  a.numKvHeads = 1; // MQA
  a.kStrides = a.vStrides = {128, 128, 1};
  a.dkStrides = a.dvStrides = {256, 128, 1};
  EXPECT_EQ(errorOf([&] { validateAttentionBackwardArgs(a); }), "");
  a = crossArgs(); // cross-attention alone
  a.totalTokensK = 900;
  a.numKvHeads = 0;
  a.windowLeft = a.windowRight = -1;
  a.kStrides = a.vStrides = a.dkStrides = a.dvStrides = {4 * 128, 128, 1};
  EXPECT_EQ(errorOf([&] { validateAttentionBackwardArgs(a); }), "");
}

TEST(AttentionBackwardOptions, EachErrorNamesItsArgument) {
  struct Case {
    void (*change)(AttentionBackwardArgs &);
    const char *message;
  };
  for (Case c : {
           Case{[](AttentionBackwardArgs &a) { a.offsetsK += 2; },
                "offsets_k must be 4-byte aligned, got address 0x1a00002"},
           Case{[](AttentionBackwardArgs &a) { a.offsetsK = 0; },
                "total_tokens_k is 1500 but offsets_k is 0: without offsets_k "
                "the keys are the queries' tokens (self-attention); pass "
                "offsets_k for keys of other lengths (cross-attention), or "
                "leave total_tokens_k 0"},
           Case{[](AttentionBackwardArgs &a) { a.maxSeqlenK = 400; },
                "total_tokens_k 1500 is more than batch * max_seqlen_k = "
                "1200: max_seqlen_k must be at least the longest key "
                "sequence"},
           Case{[](AttentionBackwardArgs &a) { a.maxSeqlenK = 0; },
                "max_seqlen_k is 0 but total_tokens_k is 1500: max_seqlen_k "
                "must be at least the longest key sequence"},
           Case{[](AttentionBackwardArgs &a) {
                  a.numKvHeads = 3;
                  a.kStrides = a.vStrides = a.dkStrides =
                      a.dvStrides = {3 * 128, 128, 1};
                },
                "num_heads 4 is not a multiple of num_kv_heads 3 "
                "(grouped-query attention: each k/v head serves num_heads / "
                "num_kv_heads q heads)"},
           Case{[](AttentionBackwardArgs &a) { a.kStrides[0] = 128; },
                "k_strides[0] (the token stride) must be at least "
                "num_kv_heads * head_dim = 256, got 128"},
           Case{[](AttentionBackwardArgs &a) { a.vStrides[1] = 64; },
                "v_strides[1] (the head stride) must equal head_dim 128, got "
                "64"},
           Case{[](AttentionBackwardArgs &a) {
                  a.dkStrides[0] = a.dvStrides[0] = 128;
                },
                "dk_strides[0] (the token stride) must be at least "
                "num_kv_heads * head_dim = 256, got 128"},
           Case{[](AttentionBackwardArgs &a) { a.dvStrides[0] = 264; },
                "dk_strides[0] and dv_strides[0] (the token strides) must be "
                "equal (the kernel writes both with one), got 256 and 264"},
           Case{[](AttentionBackwardArgs &a) { a.dk = 0; },
                "dk is a null address"},
           Case{[](AttentionBackwardArgs &a) { a.dv += 8; },
                "dv must be 16-byte aligned, got address 0x1900008"},
           Case{[](AttentionBackwardArgs &a) { a.k = 0; },
                "k is a null address"},
           Case{[](AttentionBackwardArgs &a) { a.windowLeft = -2; },
                "window_left must be -1 (unbounded) or >= 0, got -2"},
           Case{[](AttentionBackwardArgs &a) { a.windowRight = -3; },
                "window_right must be -1 (unbounded) or >= 0, got -3"},
           Case{[](AttentionBackwardArgs &a) { a.causal = true; },
                "causal and window_right = 20 conflict: causal already means "
                "window_right = 0 (no key after the diagonal); pass causal "
                "with window_right 0 or -1, or window_right = 20 without "
                "causal"},
           Case{[](AttentionBackwardArgs &a) {
                  a.totalTokens = 0;
                  a.batch = 0;
                },
                "batch is 0 but total_tokens_k is 1500: the keys belong to no "
                "sequence"},
           Case{[](AttentionBackwardArgs &a) {
                  a.dk = a.k + 256; // inside k's rows
                },
                "dk overlaps k: an output must not share memory with an "
                "input"},
           Case{[](AttentionBackwardArgs &a) { a.dq = a.offsetsK; },
                "dq overlaps offsets_k: an output must not share memory with "
                "an input"},
       }) {
    AttentionBackwardArgs a = crossArgs();
    c.change(a);
    EXPECT_EQ(errorOf([&] { validateAttentionBackwardArgs(a); }), c.message);
  }
  for (const char *name : {"total_tokens_k", "max_seqlen_k", "num_kv_heads"}) {
    AttentionBackwardArgs a = crossArgs();
    fieldOf(a, name) = -1;
    EXPECT_EQ(errorOf([&] { validateAttentionBackwardArgs(a); }),
              std::string(name) + " must be >= 0, got -1");
    EXPECT_EQ(errorOf([&] { attentionBackwardWorkspaceBytes(a); }),
              std::string(name) + " must be >= 0, got -1");
  }
}

TEST(AttentionBackwardOptions, Sizes) {
  // dk spans T_k rows.
  AttentionBackwardArgs a = crossArgs();
  a.dkStrides[0] = a.dvStrides[0] = 2 << 20;
  EXPECT_EQ(errorOf([&] { validateAttentionBackwardArgs(a); }),
            "dk spans 3145728000 elements (total_tokens_k * dk_strides[0]); "
            "the backward kernels address at most 2147483647: split the "
            "batch into calls of fewer tokens");
  // Work units: B * H_kv * ceil(max_seqlen_k / 128) (2^20 sequences of up
  // to 2048 keys, 128 k/v heads: 2^20 * 128 * 16 = 2^31).
  a = crossArgs();
  a.batch = 1 << 20;
  a.maxSeqlen = 1;
  a.totalTokens = 1000;
  a.totalTokensK = int64_t(1) << 30;
  a.maxSeqlenK = 2048;
  a.numHeads = 128;
  a.numKvHeads = 128;
  a.dkStrides = a.dvStrides = {128 * 128, 128, 1};
  EXPECT_EQ(errorOf([&] { attentionBackwardWorkspaceBytes(a); }),
            "batch * num_kv_heads * ceil(max_seqlen_k / 128) = 2147483648 "
            "work units do not fit the backward's 32-bit indices (at most "
            "2147475455); use a tighter max_seqlen_k");
  // The general variant's accumulator is [T, H * D], whatever dk's stride.
  a = crossArgs();
  a.numHeads = 8;
  a.totalTokens = 3 << 20;
  a.maxSeqlen = 1 << 20;
  a.dqStrides = {0, 0, 0}; // not looked at by the workspace size
  EXPECT_EQ(errorOf([&] { attentionBackwardWorkspaceBytes(a); }),
            "dq's f32 accumulator spans 3221225472 elements (total_tokens * "
            "num_heads * head_dim); the backward kernels address at most "
            "2147483647: split the batch into calls of fewer tokens");
}

TEST(AttentionBackwardOptions, WorkspaceBytes) {
  // The general variant (here cross-attention with H_kv = 2 and a window):
  // dq's accumulator [T, H * D] = 1000 * 512 * 4 = 2048000 B whatever dk's
  // token stride (256), delta 16000 (-> 16128), the schedule over the key
  // sequences' tiles: (2 + 3 * ceil(900 / 128) = 8) * 4 = 104 (-> 256).
  // With 2 k/v heads the q heads are split over 2 units per k/v head
  // (H_kv * split >= 4), which add dk and dv into f32 sums [T_k, H_kv * D]:
  // 1500 * 256 * 4 = 1536000 B each.
  AttentionBackwardArgs a = crossArgs();
  EXPECT_EQ(attentionBackwardWorkspaceBytes(a),
            2048000u + 16128u + 256u + 2 * 1536000u);
  a.dkStrides[0] = a.dvStrides[0] = 1024;
  EXPECT_EQ(attentionBackwardWorkspaceBytes(a),
            2048000u + 16128u + 256u + 2 * 1536000u);
  // Four k/v heads need no split, and no sums.
  a.numHeads = a.numKvHeads = 4;
  a.kStrides = a.vStrides = {4 * 128, 128, 1};
  EXPECT_EQ(attentionBackwardWorkspaceBytes(a), 2048000u + 16128u + 256u);
  // Longer key sequences, more schedule: k_tiles = ceil(50000 / 128) = 391,
  // (2 + 3 * 391) * 4 = 4700 (-> 4864); sums 100000 * 256 * 4 each.
  a = crossArgs();
  a.totalTokensK = 100000;
  a.maxSeqlenK = 50000;
  EXPECT_EQ(attentionBackwardWorkspaceBytes(a),
            2048000u + 16128u + 4864u + 2 * 102400000u);
  // ... bounded by T_k: 3 sequences of a 10000-key bound but 300 keys in
  // all: ceil(300 / 128) = 3 tiles; sums 300 * 256 * 4 each.
  a.totalTokensK = 300;
  a.maxSeqlenK = 10000;
  EXPECT_EQ(attentionBackwardWorkspaceBytes(a),
            2048000u + 16128u + 256u + 2 * 307200u);
  // A window alone also runs the general variant: the accumulator no longer
  // follows dk's stride (the plain variant's does: 4096000 B).
  a = goodArgs();
  a.dkStrides[0] = a.dvStrides[0] = 1024;
  EXPECT_EQ(attentionBackwardWorkspaceBytes(a), 4096000u + 16128u + 256u);
  a.windowLeft = 64;
  EXPECT_EQ(attentionBackwardWorkspaceBytes(a), 2048000u + 16128u + 256u);
  // No kernel runs without keys or without queries: no workspace.
  a = crossArgs();
  a.totalTokensK = 0;
  a.maxSeqlenK = 0;
  EXPECT_EQ(attentionBackwardWorkspaceBytes(a), 0u);
  EXPECT_FALSE(attentionBackwardLaunchesKernels(a));
  a = crossArgs();
  a.totalTokens = 0;
  EXPECT_EQ(attentionBackwardWorkspaceBytes(a), 0u);
  EXPECT_FALSE(attentionBackwardLaunchesKernels(a));
  // The options' checks come first.
  a = crossArgs();
  a.numKvHeads = 3;
  EXPECT_EQ(errorOf([&] { attentionBackwardWorkspaceBytes(a); }),
            "num_heads 4 is not a multiple of num_kv_heads 3 (grouped-query "
            "attention: each k/v head serves num_heads / num_kv_heads q "
            "heads)");
}

TEST(AttentionBackwardOptions, WithoutKeysOrQueries) {
  // No keys at all: dq = 0 is written without a kernel; k, v, dk, dv and the
  // workspace are not touched (may be null).
  AttentionBackwardArgs a = crossArgs();
  a.totalTokensK = 0;
  a.maxSeqlenK = 0;
  a.k = a.v = a.dk = a.dv = a.workspace = 0;
  a.workspaceBytes = 0;
  EXPECT_EQ(errorOf([&] { validateAttentionBackwardArgs(a); }), "");
  a.dq = 0;
  EXPECT_EQ(errorOf([&] { validateAttentionBackwardArgs(a); }),
            "dq is a null address");
  // No queries: dk = dv = 0 without a kernel; q, k, v, dout, o, dq, lse,
  // offsets and the workspace are not touched (offsets_k is not read, but
  // its being nonzero says that this is cross-attention).
  a = crossArgs();
  a.totalTokens = 0;
  a.q = a.k = a.v = a.dout = a.o = a.dq = a.lse = a.offsets = 0;
  a.workspace = 0;
  EXPECT_EQ(errorOf([&] { validateAttentionBackwardArgs(a); }), "");
  a.dv = 0;
  EXPECT_EQ(errorOf([&] { validateAttentionBackwardArgs(a); }),
            "dv is a null address");
  a.dv = a.dk + 128; // overlapping dk's rows
  EXPECT_EQ(errorOf([&] { validateAttentionBackwardArgs(a); }),
            "dv overlaps dk: the outputs and the workspace must not share "
            "memory");
}

TEST(AttentionBackwardOptions, KernelArguments) {
  auto byName = [](const AttentionBackwardArgs &a) {
    std::map<std::string, Arg> out;
    for (auto &[name, arg] : attentionBackwardKernelArgs(a))
      out[name] = arg;
    return out;
  };
  // The plain call: offsets_k is offsets, one q head per k/v head, no
  // window; dk, dv and dq's accumulator share %stride (dk's).
  AttentionBackwardArgs plain = goodArgs();
  plain.dkStrides[0] = plain.dvStrides[0] = 1024;
  auto v = byName(plain);
  EXPECT_EQ(v.size(), 39u);
  // dk and dv as [T_k, H_kv*D] tensors too (sm_90a's TMA stores), at their
  // own token strides.
  EXPECT_EQ(v["dk_out"].kind, ParamKind::TensorMap);
  EXPECT_EQ(v["dk_out"].data, plain.dk);
  EXPECT_EQ(v["dk_out"].shape, (std::vector<uint64_t>{1000, 512}));
  EXPECT_EQ(v["dk_out"].strides, (std::vector<uint64_t>{1024, 1}));
  EXPECT_EQ(v["dv_out"].data, plain.dv);
  EXPECT_EQ(v["dv_out"].strides, (std::vector<uint64_t>{1024, 1}));
  // The backward's schedule places its tiles from each sequence's start.
  EXPECT_EQ(v["block_aligned"].scalar.i32, 0);
  EXPECT_EQ(v["tile_rows"].scalar.i32, 128); // 128-key tiles
  // No block mask: its arguments 0 (the plain kernels do not read them).
  EXPECT_EQ(v["block_bits"].data, 0u);
  EXPECT_EQ(v["block_words"].scalar.i32, 0);
  EXPECT_EQ(v["block_head_stride"].scalar.i32, 0);
  EXPECT_EQ(v["kv_split"].scalar.i32, 1);
  EXPECT_EQ(v["offsets_k"].data, plain.offsets);
  EXPECT_EQ(v["kv_group"].scalar.i32, 1);
  EXPECT_EQ(v["window_left"].scalar.i32, -1);
  EXPECT_EQ(v["window_right"].scalar.i32, -1);
  EXPECT_EQ(v["kv_stride"].scalar.i32, 1024);
  EXPECT_EQ(v["stride"].scalar.i32, 1024);
  EXPECT_EQ(v["dq_accum_stride"].scalar.i32, 1024);
  EXPECT_EQ(v["k_tiles"].scalar.i32, 4);
  EXPECT_EQ(v["dq_accum"].shape, (std::vector<uint64_t>{1000, 512}));
  EXPECT_EQ(v["dq_accum"].strides, (std::vector<uint64_t>{1024, 1}));
  EXPECT_EQ(v["dq_accum"].data, plain.workspace);
  // Cross-attention, H_kv = 2, window (100, 20): k and v as [T_k, H_kv * D],
  // the key offsets, the group, the window, dk's stride apart from dq's
  // accumulator's (H * D), k_tiles over the key sequences.
  AttentionBackwardArgs a = crossArgs();
  v = byName(a);
  EXPECT_EQ(v["k"].kind, ParamKind::TensorMap);
  EXPECT_EQ(v["k"].shape, (std::vector<uint64_t>{1500, 256}));
  EXPECT_EQ(v["k"].strides, (std::vector<uint64_t>{256, 1}));
  EXPECT_EQ(v["v"].shape, (std::vector<uint64_t>{1500, 256}));
  EXPECT_EQ(v["q"].shape, (std::vector<uint64_t>{1000, 512}));
  EXPECT_EQ(v["do"].shape, (std::vector<uint64_t>{1000, 512}));
  EXPECT_EQ(v["o"].shape, (std::vector<uint64_t>{1000, 512}));
  EXPECT_EQ(v["offsets"].data, a.offsets);
  EXPECT_EQ(v["offsets_k"].data, a.offsetsK);
  EXPECT_EQ(v["kv_group"].scalar.i32, 2);
  // H_kv = 2: each k/v head's 2 q heads over 2 units, dk and dv summed in
  // the workspace after dq's accumulator, delta and the schedule.
  EXPECT_EQ(v["kv_split"].scalar.i32, 2);
  EXPECT_EQ(v["dk_accum"].data, a.workspace + 2048000u + 16128u + 256u);
  EXPECT_EQ(v["dv_accum"].data,
            a.workspace + 2048000u + 16128u + 256u + 1536000u);
  EXPECT_EQ(v["window_left"].scalar.i32, 100);
  EXPECT_EQ(v["window_right"].scalar.i32, 20);
  EXPECT_EQ(v["kv_stride"].scalar.i32, 256);
  EXPECT_EQ(v["dk_out"].shape, (std::vector<uint64_t>{1500, 256}));
  EXPECT_EQ(v["dv_out"].shape, (std::vector<uint64_t>{1500, 256}));
  EXPECT_EQ(v["dv_out"].strides, (std::vector<uint64_t>{256, 1}));
  EXPECT_EQ(v["stride"].scalar.i32, 512);
  EXPECT_EQ(v["dq_accum_stride"].scalar.i32, 512);
  EXPECT_EQ(v["dq_accum"].strides, (std::vector<uint64_t>{512, 1}));
  EXPECT_EQ(v["k_tiles"].scalar.i32, 8); // ceil(900 / 128)
  EXPECT_EQ(v["tokens"].scalar.i32, 1000);
  EXPECT_EQ(v["heads"].scalar.i32, 4);
  EXPECT_EQ(v["batch"].scalar.i32, 3);
  EXPECT_EQ(v["cols"].scalar.i32, 512);
  EXPECT_EQ(v["dq_stride"].scalar.i32, 512);
  EXPECT_EQ(v["dk"].data, a.dk);
  EXPECT_EQ(v["dv"].data, a.dv);
  // delta and the schedule after the accumulator (2048000 B) and delta.
  EXPECT_EQ(v["delta"].data, a.workspace + 2048000);
  EXPECT_EQ(v["schedule"].data, a.workspace + 2048000 + 16128);
  // The window as the forward gets it: clamped past every sequence (left
  // to min(max_seqlen_k, T_k) = 900, right to min(max_seqlen, T) = 500).
  a.windowLeft = a.windowRight = int64_t(1) << 40;
  v = byName(a);
  EXPECT_EQ(v["window_left"].scalar.i32, 900);
  EXPECT_EQ(v["window_right"].scalar.i32, 500);
  // Causal's own (-1, 0) is no window.
  a = crossArgs();
  a.causal = true;
  a.windowLeft = -1;
  a.windowRight = 0;
  v = byName(a);
  EXPECT_EQ(v["window_left"].scalar.i32, -1);
  EXPECT_EQ(v["window_right"].scalar.i32, -1);
  // The tensors pass the runtime's own TMA checks (a kernel's view: the
  // sm_90a backward's boxes).
  KernelInfo info;
  info.name = "attention_bwd_sm90";
  for (const char *name : {"q", "k", "v", "do"}) {
    ParamSpec p;
    p.name = name;
    p.kind = ParamKind::TensorMap;
    p.elementType = "bf16";
    p.box = {64, 64};
    p.swizzle = 128;
    info.params.push_back(p);
  }
  ParamSpec accum;
  accum.name = "dq_accum";
  accum.kind = ParamKind::TensorMap;
  accum.elementType = "f32";
  accum.box = {64, 32};
  accum.swizzle = 128;
  info.params.push_back(accum);
  v = byName(crossArgs());
  EXPECT_EQ(
      errorOf([&] {
        validateArgs(info, {v["q"], v["k"], v["v"], v["do"], v["dq_accum"]});
      }),
      "");
}

// How many units share a k/v head's q heads (kv_split): one q head a unit
// where each head's walk is long (bench/NOTES.md runs 87-88: GQA 4 on
// unif4k causal 31% faster than 4 heads a unit), several where a window or
// short sequences keep it short, and always at least 4 units per
// (sequence, key tile) pair. A head's walk is taken as the midpoint of the
// mean length (T / batch) and max_seqlen, in q tiles of 64.
TEST(AttentionBackwardOptions, KvSplit) {
  auto splitOf = [](const AttentionBackwardArgs &a) {
    for (auto &[name, arg] : attentionBackwardKernelArgs(a))
      if (name == "kv_split")
        return int64_t(arg.scalar.i32);
    return int64_t(-1);
  };
  // `a` with 16 q heads over kvHeads k/v heads, dense tensors.
  auto grouped = [](AttentionBackwardArgs a, int64_t kvHeads) {
    a.numHeads = 16;
    a.numKvHeads = kvHeads;
    a.doutStrides = a.qStrides = a.oStrides = a.dqStrides = {16 * 128, 128, 1};
    a.kStrides = a.vStrides = a.dkStrides =
        a.dvStrides = {kvHeads * 128, 128, 1};
    return a;
  };
  // H = 16 over H_kv = 4; 3 sequences, 8000 tokens, up to 4000: walks of
  // (2666 + 4000) / 2 rows, 53 q tiles: one head a unit.
  AttentionBackwardArgs a = grouped(goodArgs(), 4);
  a.totalTokens = 8000;
  a.maxSeqlen = 4000;
  a.causal = true;
  EXPECT_EQ(splitOf(a), 4);
  // A (256, 0) window: 128 + 256 queries see a key tile, 6 q tiles a head,
  // 24 for all 4: no split (4 units a pair already, no sums).
  a.windowLeft = 256;
  EXPECT_EQ(splitOf(a), 1);
  // A (1024, 0) window, 18 q tiles a head: 2 heads a unit.
  a.windowLeft = 1024;
  EXPECT_EQ(splitOf(a), 2);
  // At the threshold: (896, 0) gives 1024 rows, 16 tiles, 2 x 16 = 32 steps
  // a unit: 2 heads; (895, 0) 1023 rows, still 16 tiles (rounded up).
  a.windowLeft = 896;
  EXPECT_EQ(splitOf(a), 2);
  a.windowLeft = 895;
  EXPECT_EQ(splitOf(a), 2);
  // (832, 0): 960 rows, 15 tiles, 30 steps for 2 heads: all 4 in one unit.
  a.windowLeft = 832;
  EXPECT_EQ(splitOf(a), 1);
  // Not causal, both sides bounded: (512, 512) is 128 + 1024 rows, 18 tiles.
  a.causal = false;
  a.windowLeft = 512;
  a.windowRight = 512;
  EXPECT_EQ(splitOf(a), 2);
  // A window with no left bound bounds nothing here.
  a.windowLeft = -1;
  a.windowRight = 100;
  EXPECT_EQ(splitOf(a), 4);
  // unif1k-like: 75 sequences, 32768 tokens, up to 988: (436 + 988) / 2
  // rows, 12 q tiles a head, 48 for all 4: no split (run 88: 10% faster
  // than 2 heads a unit).
  a.windowRight = -1;
  a.totalTokens = 32768;
  a.batch = 75;
  a.maxSeqlen = 988;
  EXPECT_EQ(splitOf(a), 1);
  // MQA: 16 q heads on one k/v head, whose dK and dV are summed anyway
  // (one unit a pair without a split): 2 heads a unit there (12 x 2 >= 20;
  // run 88: 17% faster than 4).
  a = grouped(a, 1);
  EXPECT_EQ(splitOf(a), 8);
  // ... long walks: one head a unit.
  a.totalTokens = 8000;
  a.batch = 3;
  a.maxSeqlen = 4000;
  EXPECT_EQ(splitOf(a), 16);
  // ... 16 sequences of 500 (8 q tiles): 4 heads a unit (8 x 2 < 20).
  a.batch = 16;
  a.maxSeqlen = 500;
  EXPECT_EQ(splitOf(a), 4);
  // ... a (64, 0) window (3 q tiles a head): 8 heads a unit would do (8 x 3
  // >= 20), but a pair keeps 4 units.
  a.causal = true;
  a.windowLeft = 64;
  EXPECT_EQ(splitOf(a), 4);
  // A split never takes the work units past the kernels' 32-bit indices.
  // (Self-attention's forward already bounds batch * H * its tiles; cross-
  // attention's keys may be far longer.) GQA 4 over 100000 sequences, key
  // sequences under a loose max_seqlen_k of 300000 (2344 key tiles): one
  // head a unit would be 3.75e9 units, two heads 1.87e9.
  a = grouped(goodArgs(), 4);
  a.totalTokens = 1000000;
  a.batch = 100000;
  a.maxSeqlen = 4096;
  a.offsetsK = 0x1a00000;
  a.totalTokensK = 1000000;
  a.maxSeqlenK = 300000;
  a.workspaceBytes = attentionBackwardWorkspaceBytes(a);
  EXPECT_EQ(splitOf(a), 2);
}

TEST(AttentionBackwardOptions, BlockMask) {
  // The forward's fields, its rules and its variant (4 + the activation).
  AttentionBackwardArgs a = goodArgs();
  a.blockMaskBits = 0x2a00000;
  a.blockMaskHeads = 4;
  EXPECT_EQ(errorOf([&] { validateAttentionBackwardArgs(a); }), "");
  std::map<std::string, Arg> v;
  for (auto &[name, arg] : attentionBackwardKernelArgs(a))
    v[name] = arg;
  EXPECT_EQ(v["block_bits"].data, 0x2a00000u);
  EXPECT_EQ(v["block_words"].scalar.i32, 1);       // 8 key blocks
  EXPECT_EQ(v["block_head_stride"].scalar.i32, 8); // 8 query blocks
  // The tiles on the mask's grid: the schedule places them so, and a
  // sequence may span one key tile more (ceil((500 + 127) / 128) = 5; 4
  // without the mask).
  EXPECT_EQ(v["block_aligned"].scalar.i32, 1);
  EXPECT_EQ(v["k_tiles"].scalar.i32, 5);
  a.blockMaskHeads = 3;
  EXPECT_EQ(errorOf([&] { validateAttentionBackwardArgs(a); }),
            "block_mask_heads 3 is neither 0 (no block mask), 1 (one mask for "
            "every head) nor num_heads 4 (one mask per q head)");
  a.blockMaskHeads = 1;
  a.blockMaskBits = 0;
  EXPECT_EQ(errorOf([&] { validateAttentionBackwardArgs(a); }),
            "block_mask_bits is a null address");
}

TEST(AttentionBackwardOptions, Gdpa) {
  auto byName = [](const AttentionBackwardArgs &a) {
    std::map<std::string, Arg> out;
    for (auto &[name, arg] : attentionBackwardKernelArgs(a))
      out[name] = arg;
    return out;
  };
  for (const char *name : {"silu", "gelu_tanh"}) {
    for (bool options : {false, true}) {
      AttentionBackwardArgs a = options ? crossArgs() : goodArgs();
      a.activation = name;
      // No lse under GDPA: 0, misaligned or overlapping an output, it is
      // not read, so not checked.
      for (CUdeviceptr lse : {CUdeviceptr(0), CUdeviceptr(0x1500002), a.dq}) {
        a.lse = lse;
        EXPECT_EQ(errorOf([&] { validateAttentionBackwardArgs(a); }), "")
            << name << " lse " << lse;
      }
      // The general variant's workspace (dq's accumulator [T, H * D]), with
      // delta's space, whose address the kernels get for both lse and delta
      // (neither is used under GDPA; the delta kernel does not run); with
      // crossArgs' 2 k/v heads, dk's and dv's sums (1500 * 256 * 4 B each).
      EXPECT_EQ(attentionBackwardWorkspaceBytes(a),
                2048000u + 16128u + 256u + (options ? 2 * 1536000u : 0u));
      auto v = byName(a);
      EXPECT_EQ(v["delta"].data, a.workspace + 2048000);
      EXPECT_EQ(v["lse"].data, a.workspace + 2048000);
      EXPECT_EQ(v["stride"].scalar.i32, 512);
      EXPECT_EQ(v["kv_group"].scalar.i32, options ? 2 : 1);
      EXPECT_EQ(v["window_left"].scalar.i32, options ? 100 : -1);
      EXPECT_EQ(v["offsets_k"].data, options ? a.offsetsK : a.offsets);
      EXPECT_TRUE(attentionBackwardLaunchesKernels(a));
      // The other tensors are checked as ever (o too: the forward's rules).
      a.o = 0;
      EXPECT_EQ(errorOf([&] { validateAttentionBackwardArgs(a); }),
                "o is a null address");
    }
  }
  // softmax reads lse: needed, and no output may overlap it.
  AttentionBackwardArgs a = goodArgs();
  EXPECT_EQ(byName(a)["lse"].data, a.lse);
  a.lse = 0;
  EXPECT_EQ(errorOf([&] { validateAttentionBackwardArgs(a); }),
            "lse is a null address");
  a = goodArgs();
  a.lse = a.dq;
  EXPECT_EQ(errorOf([&] { validateAttentionBackwardArgs(a); }),
            "dq overlaps lse: an output must not share memory with an input");
  // A plain problem with GDPA still runs the general variant: the
  // accumulator is [T, H * D], not dk's stride (the plain variant's).
  a = goodArgs();
  a.dkStrides[0] = a.dvStrides[0] = 1024;
  EXPECT_EQ(attentionBackwardWorkspaceBytes(a), 4096000u + 16128u + 256u);
  a.activation = "silu";
  EXPECT_EQ(attentionBackwardWorkspaceBytes(a), 2048000u + 16128u + 256u);
  EXPECT_EQ(byName(a)["kv_stride"].scalar.i32, 1024);
  // An unknown activation is named, by the checks and the workspace size.
  a = goodArgs();
  a.activation = "relu";
  const std::string expected =
      "activation 'relu' is not supported; the kernels take \"softmax\" (the "
      "default; NULL in the C API), or GDPA's \"silu\" or \"gelu_tanh\"";
  EXPECT_EQ(errorOf([&] { validateAttentionBackwardArgs(a); }), expected);
  EXPECT_EQ(errorOf([&] { attentionBackwardWorkspaceBytes(a); }), expected);
  // Without keys or queries no kernel runs, GDPA or not (lse not needed).
  a = crossArgs();
  a.activation = "gelu_tanh";
  a.totalTokensK = a.maxSeqlenK = 0;
  a.k = a.v = a.dk = a.dv = a.workspace = a.lse = 0;
  a.workspaceBytes = 0;
  EXPECT_EQ(errorOf([&] { validateAttentionBackwardArgs(a); }), "");
  EXPECT_FALSE(attentionBackwardLaunchesKernels(a));
}

TEST(AttentionBackwardArgs, Overlaps) {
  AttentionBackwardArgs a = goodArgs();
  a.dq = a.k;
  EXPECT_EQ(errorOf([&] { validateAttentionBackwardArgs(a); }),
            "dq overlaps k: an output must not share memory with an input");
  a = goodArgs();
  a.dv = a.dk + 1024 * 128; // inside dk's 1000 rows
  EXPECT_EQ(errorOf([&] { validateAttentionBackwardArgs(a); }),
            "dv overlaps dk: the outputs and the workspace must not share "
            "memory");
  a = goodArgs();
  a.workspace = 0x1400000; // on o
  EXPECT_EQ(errorOf([&] { validateAttentionBackwardArgs(a); }),
            "workspace overlaps o: an output must not share memory with an "
            "input");
  // dq, dk and dv interleaved in one [T, 3, H, D] tensor do not touch.
  a = goodArgs();
  a.dqStrides = a.dkStrides = a.dvStrides = {3 * 4 * 128, 128, 1};
  a.dq = 0x4000000;
  a.dk = a.dq + 4 * 128 * 2;
  a.dv = a.dk + 4 * 128 * 2;
  a.workspaceBytes = 64 << 20;
  a.workspace = 0x8000000;
  EXPECT_EQ(errorOf([&] { validateAttentionBackwardArgs(a); }), "");
  // dv starting 16 bytes early runs into the end of each of dk's rows.
  a.dv -= 16;
  EXPECT_EQ(errorOf([&] { validateAttentionBackwardArgs(a); }),
            "dv overlaps dk: the outputs and the workspace must not share "
            "memory");
}

//===----------------------------------------------------------------------===//
// kernel_dir
//===----------------------------------------------------------------------===//

std::string makeDir(const std::string &name) {
  return test::makeTempDir("jfa_backward_" + name);
}

/// Metadata of `kernel` with the named arguments ("q:tma:bf16", "dk:ptr:bf16",
/// "batch:i32") and, when headDim > 0, the variant's params (and `more`
/// of them: `, "general": false`).
std::string metadata(const std::string &kernel, const std::string &arch,
                     const std::vector<std::string> &arguments, int headDim = 0,
                     bool causal = false, const std::string &more = "") {
  std::string m = R"({"format": "jfa-metadata", "version": 2, "kernels": [
  {"name": ")" + kernel +
                  R"(", "arch": ")" + arch +
                  R"(", "threads": 128, "cluster": [1, 1, 1],
   "shared_bytes": 1024, "debug_barriers": false, "arguments": [)";
  for (size_t i = 0; i < arguments.size(); ++i) {
    std::string a = arguments[i];
    size_t c1 = a.find(':'), c2 = a.find(':', c1 + 1);
    std::string name = a.substr(0, c1);
    std::string kind = a.substr(
        c1 + 1, c2 == std::string::npos ? std::string::npos : c2 - c1 - 1);
    m += i ? ", " : "";
    m += R"({"name": ")" + name + R"(", "kind": ")" + kind + "\"";
    if (c2 != std::string::npos)
      m += R"(, "element_type": ")" + a.substr(c2 + 1) + "\"";
    if (kind == "tma")
      m += R"(, "box": [128, 64], "swizzle": 128)";
    m += "}";
  }
  m += "]";
  if (headDim)
    m += R"(, "params": {"causal": )" + std::string(causal ? "true" : "false") +
         R"(, "head_dim": )" + std::to_string(headDim) + more + "}";
  return m + "}]}\n";
}

const std::vector<std::string> kMainArguments = {
    "q:tma:bf16", "k:tma:bf16", "v:tma:bf16", "do:tma:bf16", "dk:ptr:bf16",
    "dv:ptr:bf16", "dq_accum:tma:f32", "lse:ptr:f32", "delta:ptr:f32",
    "offsets:ptr:i32", "schedule:ptr:i32", "batch:i32", "heads:i32",
    "tokens:i32", "stride:i32", "k_tiles:i32", "scale_log2:f32", "scale:f32",
    // The general variant's (window, grouped-query, cross-attention): the
    // runtime binds the plain values.
    "offsets_k:ptr:i32", "kv_group:i32", "window_left:i32", "window_right:i32",
    "kv_stride:i32"};

/// The params the attention kernels' variants have besides head_dim and
/// causal.
const std::string kGeneral = R"(, "general": false)";

/// A kernel folder with the sm_90a forward and the backward's four kernels.
std::string backwardDir(const std::string &name) {
  std::string dir = makeDir(name);
  std::vector<std::string> fwd = {"q:tma:bf16",  "k:tma:bf16",
                                  "v:tma:bf16",  "o:ptr:bf16",
                                  "lse:ptr:f32", "offsets:ptr:i32"};
  for (int i = 0; i < 5; ++i)
    fwd.push_back("n" + std::to_string(i) + ":i32");
  fwd.push_back("scale:f32");
  for (const char *a :
       {"offsets_k:ptr:i32", "kv_group:i32", "window_left:i32",
        "window_right:i32", "block_bits:ptr:i32", "block_words:i32",
        "block_head_stride:i32", "schedule:ptr:i32", "o_out:tma:bf16"})
    fwd.push_back(a);
  writeCubin(
      dir, "attention_fwd_sm90_sm_90a.x.cubin",
      metadata("attention_fwd_sm90", "sm_90a", fwd, 128, false, kGeneral));
  writeCubin(dir, "attention_bwd_sm90_sm_90a.head_dim=128.causal=0.cubin",
             metadata("attention_bwd_sm90", "sm_90a", kMainArguments, 128,
                      false, kGeneral));
  writeCubin(dir, "attention_bwd_delta_sm_90a.cubin",
             metadata("attention_bwd_delta", "sm_90a",
                      {"o:tma:bf16", "do:tma:bf16", "delta:ptr:f32",
                       "tokens:i32", "head_dim:i32"}));
  writeCubin(dir, "attention_bwd_schedule_sm_90a.cubin",
             metadata("attention_bwd_schedule", "sm_90a",
                      {"offsets:ptr:i32", "schedule:ptr:i32", "batch:i32",
                       "k_tiles:i32", "block_aligned:i32", "tile_rows:i32"}));
  writeCubin(dir, "attention_bwd_dq_convert_sm_90a.cubin",
             metadata("attention_bwd_dq_convert", "sm_90a",
                      {"dq_accum:ptr:f32", "dq_accum_stride:i32", "dq:ptr:bf16",
                       "dq_stride:i32", "cols:i32"}));
  return dir;
}

TEST(AttentionBackwardLoad, AllKernels) {
  std::string dir = backwardDir("all");
  Attention attn = Attention::load(dir);
  EXPECT_TRUE(attn.hasBackward("sm_90a"));
  EXPECT_EQ(attn.backwardAbsentReason("sm_90a"), "");
  EXPECT_FALSE(attn.hasBackward("sm_100a"));
  EXPECT_EQ(attn.backwardAbsentReason("sm_100a"),
            "kernel_dir '" + dir +
                "' lacks attention_bwd_sm100_sm_100a.*.cubin, "
                "attention_bwd_delta_sm_100a.cubin, "
                "attention_bwd_schedule_sm_100a.cubin, "
                "attention_bwd_dq_convert_sm_100a.cubin, the backward's "
                "kernels for sm_100a devices (scripts/build-package.sh "
                "compiles them)");
  // Argument errors come first, device or not.
  AttentionBackwardArgs a = goodArgs();
  a.dk = 0;
  EXPECT_EQ(errorOf([&] { attn.backward(a); }), "dk is a null address");
  a = goodArgs();
  a.activation = "gelu";
  EXPECT_NE(errorOf([&] {
              attn.backward(a);
            }).find("activation 'gelu' is not supported"),
            std::string::npos);
  // GDPA without lse passes every check: the driver is the first thing
  // missing.
  void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (driver) {
    dlclose(driver);
    return;
  }
  a = goodArgs();
  a.activation = "silu";
  a.lse = 0;
  EXPECT_NE(errorOf([&] { attn.backward(a); }).find("no CUDA driver"),
            std::string::npos)
      << errorOf([&] { attn.backward(a); });
}

TEST(AttentionBackwardLoad, OneMissing) {
  std::string dir = backwardDir("missing");
  std::remove((dir + "/attention_bwd_delta_sm_90a.cubin").c_str());
  Attention attn = Attention::load(dir);
  EXPECT_FALSE(attn.hasBackward("sm_90a"));
  EXPECT_EQ(attn.backwardAbsentReason("sm_90a"),
            "kernel_dir '" + dir +
                "' lacks attention_bwd_delta_sm_90a.cubin, the backward's "
                "kernels for sm_90a devices (scripts/build-package.sh "
                "compiles them)");
  // The forward is unaffected.
  EXPECT_TRUE(attn.hasKernel("sm_90a"));
  // Without the schedule kernel neither runs: the forward takes its work
  // queue from it too.
  std::remove((dir + "/attention_bwd_schedule_sm_90a.cubin").c_str());
  attn = Attention::load(dir);
  EXPECT_FALSE(attn.hasBackward("sm_90a"));
  EXPECT_FALSE(attn.hasKernel("sm_90a"));
  EXPECT_EQ(attn.absentReason("sm_90a"), test::missingScheduleReason(dir));
}

TEST(AttentionBackwardLoad, AnOldScheduleKernel) {
  // A schedule cubin from before block_aligned would count a block-sparse
  // call's tiles from each sequence's start: refused, with the file named,
  // and neither the forward nor the backward runs without it.
  std::string dir = backwardDir("old_schedule");
  writeCubin(dir, "attention_bwd_schedule_sm_90a.cubin",
             metadata("attention_bwd_schedule", "sm_90a",
                      {"offsets:ptr:i32", "schedule:ptr:i32", "batch:i32",
                       "k_tiles:i32"}));
  Attention attn = Attention::load(dir);
  EXPECT_FALSE(attn.hasBackward("sm_90a"));
  EXPECT_FALSE(attn.hasKernel("sm_90a"));
  std::string why = attn.absentReason("sm_90a");
  EXPECT_NE(why.find("attention_bwd_schedule_sm_90a.cubin.meta: kernel "
                     "'attention_bwd_schedule' has no parameter "
                     "'block_aligned'"),
            std::string::npos)
      << why; // One from before tile_rows would count every forward's q tiles
              // as 128
  // rows.
  writeCubin(dir, "attention_bwd_schedule_sm_90a.cubin",
             metadata("attention_bwd_schedule", "sm_90a",
                      {"offsets:ptr:i32", "schedule:ptr:i32", "batch:i32",
                       "k_tiles:i32", "block_aligned:i32"}));
  attn = Attention::load(dir);
  EXPECT_FALSE(attn.hasKernel("sm_90a"));
  why = attn.absentReason("sm_90a");
  EXPECT_NE(why.find("attention_bwd_schedule_sm_90a.cubin.meta: kernel "
                     "'attention_bwd_schedule' has no parameter 'tile_rows'"),
            std::string::npos)
      << why;
}

TEST(AttentionBackwardLoad, ArgumentsAreBoundByName) {
  std::string dir = backwardDir("names");
  std::vector<std::string> renamed = kMainArguments;
  renamed[14] = "row_stride:i32";
  writeCubin(
      dir, "attention_bwd_sm90_sm_90a.head_dim=128.causal=0.cubin",
      metadata("attention_bwd_sm90", "sm_90a", renamed, 128, false, kGeneral));
  // A backward kernel that does not fit leaves the forward usable; the
  // backward on that target says why.
  Attention attn = Attention::load(dir);
  EXPECT_TRUE(attn.hasKernel("sm_90a"));
  EXPECT_FALSE(attn.hasBackward("sm_90a"));
  std::string error = attn.backwardAbsentReason("sm_90a");
  EXPECT_NE(error.find("attention_bwd_sm90_sm_90a.head_dim=128.causal=0.cubin."
                       "meta: kernel 'attention_bwd_sm90' parameter 14 "
                       "('row_stride') is not an argument the backward "
                       "provides (it provides q, k, v, do, o,"),
            std::string::npos)
      << error;
  std::vector<std::string> retyped = kMainArguments;
  retyped[7] = "lse:ptr:bf16";
  writeCubin(
      dir, "attention_bwd_sm90_sm_90a.head_dim=128.causal=0.cubin",
      metadata("attention_bwd_sm90", "sm_90a", retyped, 128, false, kGeneral));
  error = Attention::load(dir).backwardAbsentReason("sm_90a");
  EXPECT_NE(error.find("parameter 7 ('lse') is ptr bf16; the backward passes "
                       "a pointer to f32"),
            std::string::npos)
      << error;
  // dq_accum may be a TMA tensor (sm_90a) or a pointer (sm_100a); reordering
  // the parameters needs no change in the runtime.
  std::vector<std::string> reordered = kMainArguments;
  reordered[6] = "dq_accum:ptr:f32";
  std::swap(reordered[0], reordered[17]);
  writeCubin(dir, "attention_bwd_sm90_sm_90a.head_dim=128.causal=0.cubin",
             metadata("attention_bwd_sm90", "sm_90a", reordered, 128, false,
                      kGeneral));
  EXPECT_TRUE(Attention::load(dir).hasBackward("sm_90a"));
}

TEST(AttentionBackwardLoad, AKernelOfBeforeTheGeneralVariantSaysRebuild) {
  std::string dir = backwardDir("nogeneral");
  writeCubin(dir, "attention_bwd_sm90_sm_90a.head_dim=128.causal=0.cubin",
             metadata("attention_bwd_sm90", "sm_90a", kMainArguments, 128));
  Attention attn = Attention::load(dir);
  EXPECT_TRUE(attn.hasKernel("sm_90a"));
  EXPECT_FALSE(attn.hasBackward("sm_90a"));
  EXPECT_EQ(attn.backwardAbsentReason("sm_90a"),
            dir +
                "/attention_bwd_sm90_sm_90a.head_dim=128.causal=0.cubin.meta: "
                "kernel 'attention_bwd_sm90' was compiled without the "
                "compile-time parameter 'general' (its metadata has no "
                "params.general); rebuild it with jfac -P general=...");
}

TEST(AttentionBackwardLoad, Embedded) {
  // The library embeds the backward's kernels unless configured not to (or
  // jfac failed on one): present, or saying why not.
  Attention attn = Attention::embedded();
  for (const char *arch : {"sm_90a", "sm_100a"}) {
    std::string why = attn.backwardAbsentReason(arch);
    EXPECT_EQ(attn.hasBackward(arch), why.empty()) << why;
    if (!why.empty())
      EXPECT_NE(why.find("pass a kernel_dir"), std::string::npos) << why;
  }
}

//===----------------------------------------------------------------------===//
// C API
//===----------------------------------------------------------------------===//

jfa_attention_backward_args goodCArgs() {
  AttentionBackwardArgs a = goodArgs();
  jfa_attention_backward_args c{};
  c.dout = a.dout;
  c.q = a.q;
  c.k = a.k;
  c.v = a.v;
  c.o = a.o;
  c.dq = a.dq;
  c.dk = a.dk;
  c.dv = a.dv;
  for (int i = 0; i < 3; ++i)
    c.dout_strides[i] = c.q_strides[i] = c.k_strides[i] = c.v_strides[i] =
        c.o_strides[i] = c.dq_strides[i] = c.dk_strides[i] = c.dv_strides[i] =
            a.qStrides[i];
  c.lse = a.lse;
  c.offsets = a.offsets;
  c.workspace = a.workspace;
  c.workspace_bytes = a.workspaceBytes;
  c.dtype = "bf16";
  c.offsets_dtype = "i32";
  c.total_tokens = a.totalTokens;
  c.num_heads = a.numHeads;
  c.head_dim = a.headDim;
  c.batch = a.batch;
  c.max_seqlen = a.maxSeqlen;
  return c;
}

TEST(AttentionBackwardCApi, WorkspaceAndErrors) {
  jfa_attention_backward_args c = goodCArgs();
  size_t bytes = 0;
  ASSERT_EQ(jfa_attention_backward_workspace_size(&c, &bytes), 0)
      << jfa_last_error();
  EXPECT_EQ(bytes, 2064384u);
  EXPECT_EQ(jfa_attention_backward_workspace_size(nullptr, &bytes), -1);
  EXPECT_STREQ(jfa_last_error(), "jfa_attention_backward_workspace_size: "
                                 "args and bytes must not be NULL");
  std::string dir = backwardDir("capi");
  jfa_attention_t attn = nullptr;
  ASSERT_EQ(jfa_attention_create(dir.c_str(), &attn), 0) << jfa_last_error();
  EXPECT_EQ(jfa_attention_has_backward(attn, "sm_90a"), 1);
  EXPECT_EQ(jfa_attention_has_backward(attn, "sm_100a"), 0);
  EXPECT_NE(std::string(jfa_last_error()).find("lacks attention_bwd_sm100"),
            std::string::npos);
  EXPECT_EQ(jfa_attention_has_backward(attn, nullptr), -1);
  EXPECT_EQ(jfa_attention_backward(nullptr, &c, nullptr), -1);
  EXPECT_STREQ(jfa_last_error(),
               "jfa_attention_backward: attention and args must not be NULL");
  c.dtype = nullptr;
  EXPECT_EQ(jfa_attention_backward(attn, &c, nullptr), -1);
  EXPECT_STREQ(jfa_last_error(), "dtype is NULL; dout, q, k, v, o, dq, dk and "
                                 "dv must be \"bf16\"");
  c = goodCArgs();
  c.dk_strides[2] = 2;
  EXPECT_EQ(jfa_attention_backward(attn, &c, nullptr), -1);
  EXPECT_STREQ(jfa_last_error(),
               "dk_strides[2] (the dim stride) must be 1, got 2");
  // Nothing to compute: no device needed.
  c = goodCArgs();
  c.total_tokens = 0;
  EXPECT_EQ(jfa_attention_backward(attn, &c, nullptr), 0) << jfa_last_error();
  jfa_attention_destroy(attn);
}

TEST(AttentionBackwardCApi, ArgsSize) {
  EXPECT_EQ(jfa_attention_backward_args_size(),
            sizeof(jfa_attention_backward_args));
}

TEST(AttentionBackwardCApi, OptionsReachTheRuntime) {
  // Each of issue 20's fields, set wrong, comes back named: the C struct's
  // fields are where the runtime reads them.
  auto cross = [] {
    AttentionBackwardArgs a = crossArgs();
    jfa_attention_backward_args c = goodCArgs();
    c.offsets_k = a.offsetsK;
    c.total_tokens_k = a.totalTokensK;
    c.max_seqlen_k = a.maxSeqlenK;
    c.num_kv_heads = a.numKvHeads;
    c.use_window = 1;
    c.window_left = a.windowLeft;
    c.window_right = a.windowRight;
    c.k_strides[0] = c.v_strides[0] = c.dk_strides[0] = c.dv_strides[0] =
        2 * 128;
    return c;
  };
  jfa_attention_backward_args c = cross();
  size_t bytes = 0;
  ASSERT_EQ(jfa_attention_backward_workspace_size(&c, &bytes), 0)
      << jfa_last_error();
  // The q heads split over 2 units per k/v head: dk's and dv's f32 sums.
  EXPECT_EQ(bytes, 2048000u + 16128u + 256u + 2 * 1536000u);
  c.total_tokens_k = 100000;
  c.max_seqlen_k = 50000;
  ASSERT_EQ(jfa_attention_backward_workspace_size(&c, &bytes), 0)
      << jfa_last_error();
  EXPECT_EQ(bytes, 2048000u + 16128u + 4864u + 2 * 102400000u);
  std::string dir = backwardDir("capi_options");
  jfa_attention_t attn = nullptr;
  ASSERT_EQ(jfa_attention_create(dir.c_str(), &attn), 0) << jfa_last_error();
  struct Case {
    void (*change)(jfa_attention_backward_args &);
    const char *message;
  };
  for (Case t : {
           Case{[](jfa_attention_backward_args &c) { c.offsets_k += 2; },
                "offsets_k must be 4-byte aligned, got address 0x1a00002"},
           Case{[](jfa_attention_backward_args &c) { c.max_seqlen_k = 400; },
                "total_tokens_k 1500 is more than batch * max_seqlen_k = "
                "1200"},
           Case{[](jfa_attention_backward_args &c) { c.total_tokens_k = -1; },
                "total_tokens_k must be >= 0, got -1"},
           Case{[](jfa_attention_backward_args &c) { c.num_kv_heads = 3; },
                "num_heads 4 is not a multiple of num_kv_heads 3"},
           Case{[](jfa_attention_backward_args &c) { c.dk_strides[0] = 128; },
                "dk_strides[0] (the token stride) must be at least "
                "num_kv_heads * head_dim = 256, got 128"},
           Case{[](jfa_attention_backward_args &c) { c.window_left = -2; },
                "window_left must be -1 (unbounded) or >= 0, got -2"},
           Case{[](jfa_attention_backward_args &c) { c.window_right = -3; },
                "window_right must be -1 (unbounded) or >= 0, got -3"},
           Case{[](jfa_attention_backward_args &c) { c.causal = 1; },
                "causal and window_right = 20 conflict"},
           Case{[](jfa_attention_backward_args &c) { c.offsets_k = 0; },
                "total_tokens_k is 1500 but offsets_k is 0"},
       }) {
    jfa_attention_backward_args c = cross();
    t.change(c);
    EXPECT_EQ(jfa_attention_backward(attn, &c, nullptr), -1);
    EXPECT_NE(std::string(jfa_last_error()).find(t.message), std::string::npos)
        << jfa_last_error() << "\nexpected: " << t.message;
  }
  // use_window 0 (a zero-initialized struct): the window fields are not
  // read, so even bad values pass the checks.
  c = cross();
  c.use_window = 0;
  c.window_left = -5;
  c.window_right = -5;
  c.total_tokens = 0;
  c.total_tokens_k = 0; // nothing at all to write: no device needed
  EXPECT_EQ(jfa_attention_backward(attn, &c, nullptr), 0) << jfa_last_error();
  c.use_window = 1;
  EXPECT_EQ(jfa_attention_backward(attn, &c, nullptr), -1);
  EXPECT_STREQ(jfa_last_error(),
               "window_left must be -1 (unbounded) or >= 0, got -5");
  jfa_attention_destroy(attn);
}

TEST(AttentionBackwardCApi, ActivationReachesTheRuntime) {
  std::string dir = backwardDir("capi_activation");
  jfa_attention_t attn = nullptr;
  ASSERT_EQ(jfa_attention_create(dir.c_str(), &attn), 0) << jfa_last_error();
  // NULL (zero-initialized) and "softmax": lse is read, so needed.
  jfa_attention_backward_args c = goodCArgs();
  EXPECT_EQ(c.activation, nullptr);
  for (const char *softmax : {(const char *)nullptr, "softmax"}) {
    c = goodCArgs();
    c.activation = softmax;
    c.lse = 0;
    EXPECT_EQ(jfa_attention_backward(attn, &c, nullptr), -1);
    EXPECT_STREQ(jfa_last_error(), "lse is a null address");
  }
  c = goodCArgs();
  c.activation = "relu";
  size_t bytes = 0;
  EXPECT_EQ(jfa_attention_backward_workspace_size(&c, &bytes), -1);
  EXPECT_STREQ(jfa_last_error(),
               "activation 'relu' is not supported; the kernels take "
               "\"softmax\" (the default; NULL in the C API), or GDPA's "
               "\"silu\" or \"gelu_tanh\"");
  EXPECT_EQ(jfa_attention_backward(attn, &c, nullptr), -1);
  EXPECT_NE(std::string(jfa_last_error()).find("activation 'relu'"),
            std::string::npos);
  // GDPA: the general variant's workspace (dq's accumulator [T, H * D]
  // whatever dk's stride), no lse needed.
  c = goodCArgs();
  c.dk_strides[0] = c.dv_strides[0] = 1024;
  ASSERT_EQ(jfa_attention_backward_workspace_size(&c, &bytes), 0)
      << jfa_last_error();
  EXPECT_EQ(bytes, 4096000u + 16128u + 256u);
  for (const char *name : {"silu", "gelu_tanh"}) {
    c.activation = name;
    ASSERT_EQ(jfa_attention_backward_workspace_size(&c, &bytes), 0)
        << jfa_last_error();
    EXPECT_EQ(bytes, 2048000u + 16128u + 256u);
    c.lse = 0;
    c.total_tokens = 0; // nothing at all to write: no device needed
    EXPECT_EQ(jfa_attention_backward(attn, &c, nullptr), 0) << jfa_last_error();
    c.total_tokens = 1000;
  }
  jfa_attention_destroy(attn);
}

TEST(AttentionBackwardCApi, ZeroGradientsNeedTheDriver) {
  // Keys but no queries (dk = dv = 0) or queries but no keys (dq = 0): the
  // call writes zeros with the driver, without the backward's kernels.
  void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (driver) {
    dlclose(driver);
    GTEST_SKIP() << "a CUDA driver is installed here";
  }
  jfa_attention_t attn = nullptr;
  ASSERT_EQ(jfa_attention_create(nullptr, &attn), 0) << jfa_last_error();
  for (bool queries : {false, true}) {
    AttentionBackwardArgs a = crossArgs();
    jfa_attention_backward_args c = goodCArgs();
    c.offsets_k = a.offsetsK;
    c.num_kv_heads = 2;
    c.k_strides[0] = c.v_strides[0] = c.dk_strides[0] = c.dv_strides[0] = 256;
    c.workspace = 0;
    c.workspace_bytes = 0;
    if (queries) {
      c.total_tokens_k = c.max_seqlen_k = 0;
    } else {
      c.total_tokens_k = 1500;
      c.max_seqlen_k = 900;
      c.total_tokens = 0;
    }
    EXPECT_EQ(jfa_attention_backward(attn, &c, nullptr), -1);
    EXPECT_NE(std::string(jfa_last_error()).find("no CUDA driver"),
              std::string::npos)
        << jfa_last_error();
  }
  jfa_attention_destroy(attn);
}

} // namespace
