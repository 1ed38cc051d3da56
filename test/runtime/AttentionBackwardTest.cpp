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
      m += R"(, "box": [64, 64], "swizzle": 128)";
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
  for (const char *a : {"offsets_k:ptr:i32", "kv_group:i32", "window_left:i32",
                        "window_right:i32"})
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
                       "k_tiles:i32"}));
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
}

TEST(AttentionBackwardLoad, OneMissing) {
  std::string dir = backwardDir("missing");
  std::remove((dir + "/attention_bwd_schedule_sm_90a.cubin").c_str());
  Attention attn = Attention::load(dir);
  EXPECT_FALSE(attn.hasBackward("sm_90a"));
  EXPECT_EQ(attn.backwardAbsentReason("sm_90a"),
            "kernel_dir '" + dir +
                "' lacks attention_bwd_schedule_sm_90a.cubin, the backward's "
                "kernels for sm_90a devices (scripts/build-package.sh "
                "compiles them)");
  // The forward is unaffected.
  EXPECT_TRUE(attn.hasKernel("sm_90a"));
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

} // namespace
