//===- AttentionTest.cpp - host-side tests of jagged attention forward ----===//
//
// Everything that needs no GPU: the argument checks (each error names the
// argument), the offsets check, the kernel choice per compute capability,
// the grid and the kernel arguments, loading a kernel_dir, the C API and the
// build-time embedding of cubins.
//
//===----------------------------------------------------------------------===//
#include "jfa/attention.h"
#include "jfa/attention.hpp"

#include "AttentionCommon.h"
#include "AttentionTestSupport.h"
#include "EmbeddedKernels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <tuple>

namespace jfa::rt::detail {
// Written by the test's own run of runtime/cmake/EmbedKernel.cmake with
// test/runtime/fake_jfac.sh.
extern const EmbeddedKernel embedded_fake_ok;
extern const EmbeddedKernel embedded_fake_broken;
} // namespace jfa::rt::detail

using namespace jfa::rt;

namespace {

using test::errorOf;

bool contains(const std::string &s, const std::string &part) {
  return s.find(part) != std::string::npos;
}

#define EXPECT_ERROR(statement, part)                                          \
  do {                                                                         \
    std::string message_ = errorOf([&] { statement; });                        \
    EXPECT_TRUE(contains(message_, part))                                      \
        << "message: '" << message_ << "'\nexpected to contain: '" << part     \
        << "'";                                                                \
  } while (0)

bool haveDriver() {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib)
    dlclose(lib);
  return lib != nullptr;
}

/// The metadata jfac writes for a kernel with the contract's parameters,
/// compiled for head_dim, causal and general (0..3, an i32 parameter).
std::string contractMetadata(const std::string &kernel, const std::string &arch,
                             int headDim = 128, bool causal = false,
                             int general = 0) {
  std::string m = R"({"format": "jfa-metadata", "version": 2, "kernels": [
  {"name": ")" + kernel +
                  R"(", "arch": ")" + arch +
                  R"(", "threads": 384, "cluster": [1, 1, 1],
   "shared_bytes": 200000, "debug_barriers": false, "arguments": [
)";
  for (int i = 0; i < 3; ++i)
    m += R"({"kind": "tma", "element_type": "bf16", "box": [128, 64],
     "swizzle": 128},
)";
  m += R"({"kind": "ptr", "element_type": "bf16"},
{"kind": "ptr", "element_type": "f32"},
{"kind": "ptr", "element_type": "i32"},
)";
  for (int i = 0; i < 5; ++i)
    m += R"({"kind": "i32"},
)";
  m += R"({"kind": "f32"},
{"kind": "ptr", "element_type": "i32"},
)";
  for (int i = 0; i < 3; ++i)
    m += R"({"kind": "i32"},
)";
  // The block-sparse mask: block_bits, block_words, block_head_stride; the
  // work queue's schedule; o as a TMA tensor.
  m += R"({"kind": "ptr", "element_type": "i32"},
{"kind": "i32"},
{"kind": "i32"},
{"kind": "ptr", "element_type": "i32"},
{"kind": "tma", "element_type": "bf16", "box": [128, 64], "swizzle": 128})";
  return m + R"(], "params": {"causal": )" + (causal ? "true" : "false") +
         R"(, "general": )" + std::to_string(general) + R"(, "head_dim": )" +
         std::to_string(headDim) + R"(}}]}
)";
}

/// Where the forward's tests put the work queue's schedule.
constexpr CUdeviceptr kSchedule = 0x800000;

/// T = 1000 tokens in B = 3 sequences, H = 4, D = 128, dense tensors.
AttentionForwardArgs goodArgs() {
  AttentionForwardArgs a;
  a.q = 0x100000;
  a.k = 0x200000;
  a.v = 0x300000;
  a.o = 0x400000;
  a.lse = 0x500000;
  a.offsets = 0x600000;
  a.totalTokens = 1000;
  a.numHeads = 4;
  a.headDim = 128;
  a.batch = 3;
  a.maxSeqlen = 500;
  a.qStrides = a.kStrides = a.vStrides = a.oStrides = {4 * 128, 128, 1};
  return a;
}

//===----------------------------------------------------------------------===//
// Offsets
//===----------------------------------------------------------------------===//

TEST(CheckOffsets, AcceptsGoodOffsets) {
  std::vector<int32_t> o = {0, 100, 100, 350, 1000};
  EXPECT_EQ(errorOf([&] { checkOffsets(o.data(), o.size(), 1000, 650); }), "");
  std::vector<int32_t> empty = {0};
  EXPECT_EQ(errorOf([&] { checkOffsets(empty.data(), 1, 0, 0); }), "");
  std::vector<int32_t> allEmpty = {0, 0, 0};
  EXPECT_EQ(errorOf([&] { checkOffsets(allEmpty.data(), 3, 0, 0); }), "");
}

TEST(CheckOffsets, FirstEntryNotZero) {
  std::vector<int32_t> o = {5, 100, 1000};
  EXPECT_EQ(errorOf([&] { checkOffsets(o.data(), o.size(), 1000, 1000); }),
            "offsets[0] must be 0, got 5");
}

TEST(CheckOffsets, Decreasing) {
  std::vector<int32_t> o = {0, 100, 400, 300, 1000};
  EXPECT_EQ(errorOf([&] { checkOffsets(o.data(), o.size(), 1000, 1000); }),
            "offsets must be non-decreasing: offsets[3] = 300 is less than "
            "offsets[2] = 400");
}

TEST(CheckOffsets, EntryAboveTotalTokens) {
  std::vector<int32_t> o = {0, 1200, 1000};
  EXPECT_EQ(errorOf([&] { checkOffsets(o.data(), o.size(), 1000, 5000); }),
            "offsets[1] = 1200 is more than total_tokens T = 1000");
}

TEST(CheckOffsets, SequenceLongerThanMaxSeqlen) {
  std::vector<int32_t> o = {0, 100, 400, 1000};
  EXPECT_EQ(errorOf([&] { checkOffsets(o.data(), o.size(), 1000, 500); }),
            "sequence 2 (offsets[3] - offsets[2]) has 600 tokens, more than "
            "max_seqlen = 500");
}

TEST(CheckOffsets, LastEntryNotTotalTokens) {
  std::vector<int32_t> o = {0, 100, 900};
  EXPECT_EQ(errorOf([&] { checkOffsets(o.data(), o.size(), 1000, 1000); }),
            "offsets[2] (offsets[batch]) must equal total_tokens T = 1000, "
            "got 900");
}

TEST(CheckOffsets, FirstBadEntryIsReported) {
  // Both offsets[2] (too long) and offsets[3] (decreasing) are bad.
  std::vector<int32_t> o = {0, 10, 900, 800, 1000};
  EXPECT_ERROR(checkOffsets(o.data(), o.size(), 1000, 500), "offsets[2]");
}

TEST(CheckOffsets, NoEntries) {
  EXPECT_ERROR(checkOffsets(nullptr, 0, 0, 0), "at least one element");
}

TEST(CheckOffsets, KeyOffsetsNameTheirArguments) {
  std::vector<int32_t> good = {0, 0, 300, 300, 1000};
  EXPECT_EQ(errorOf([&] { checkKeyOffsets(good.data(), 5, 1000, 700); }), "");
  std::vector<int32_t> o = {5, 100, 1000};
  EXPECT_EQ(errorOf([&] { checkKeyOffsets(o.data(), o.size(), 1000, 1000); }),
            "offsets_k[0] must be 0, got 5");
  o = {0, 100, 400, 300, 1000};
  EXPECT_EQ(errorOf([&] { checkKeyOffsets(o.data(), o.size(), 1000, 1000); }),
            "offsets_k must be non-decreasing: offsets_k[3] = 300 is less "
            "than offsets_k[2] = 400");
  o = {0, 1200, 1000};
  EXPECT_EQ(errorOf([&] { checkKeyOffsets(o.data(), o.size(), 1000, 5000); }),
            "offsets_k[1] = 1200 is more than total_tokens_k T_k = 1000");
  o = {0, 100, 400, 1000};
  EXPECT_EQ(errorOf([&] { checkKeyOffsets(o.data(), o.size(), 1000, 500); }),
            "sequence 2 (offsets_k[3] - offsets_k[2]) has 600 keys, more "
            "than max_seqlen_k = 500");
  o = {0, 100, 900};
  EXPECT_EQ(errorOf([&] { checkKeyOffsets(o.data(), o.size(), 1000, 1000); }),
            "offsets_k[2] (offsets_k[batch]) must equal total_tokens_k T_k = "
            "1000, got 900");
  EXPECT_EQ(errorOf([] { checkKeyOffsets(nullptr, 0, 0, 0); }),
            "offsets_k must have at least one element ([B + 1], "
            "offsets_k[0] = 0), got none");
  EXPECT_EQ(errorOf([] { checkKeyOffsets(nullptr, 2, 0, 0); }),
            "offsets_k is a null host address");
}

//===----------------------------------------------------------------------===//
// Argument checks
//===----------------------------------------------------------------------===//

TEST(ValidateAttentionArgs, AcceptsGoodArguments) {
  EXPECT_EQ(errorOf([] { validateAttentionArgs(goodArgs()); }), "");
  auto a = goodArgs();
  a.headDim = 64;
  a.qStrides = a.kStrides = a.vStrides = a.oStrides = {4 * 64, 64, 1};
  EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }), "");
  // Padded token strides; different strides per tensor.
  a = goodArgs();
  a.qStrides[0] = 1024;
  a.kStrides[0] = 3 * 512; // k and v interleaved in one [T, 3, H, D] buffer
  a.oStrides[0] = 520;
  a.causal = true;
  a.softmaxScale = 0.125f;
  EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }), "");
}

TEST(ValidateAttentionArgs, Dtypes) {
  auto a = goodArgs();
  a.dtype = "f16";
  EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }),
            "dtype 'f16' is not supported; q, k, v and o must be bf16");
  a = goodArgs();
  a.offsetsDtype = "i64";
  EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }),
            "offsets_dtype 'i64' is not supported; offsets must be i32");
}

TEST(ValidateAttentionArgs, HeadDim) {
  auto a = goodArgs();
  a.headDim = 96;
  a.qStrides = a.kStrides = a.vStrides = a.oStrides = {4 * 96, 96, 1};
  EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }),
            "head_dim 96 is not supported; the kernels take 64 or 128");
  a.headDim = 0;
  EXPECT_ERROR(validateAttentionArgs(a), "head_dim 0 is not supported");
}

TEST(ValidateAttentionArgs, NegativeSizes) {
  struct Case {
    int64_t AttentionForwardArgs::*field;
    const char *name;
  };
  for (Case c : {Case{&AttentionForwardArgs::totalTokens, "total_tokens"},
                 Case{&AttentionForwardArgs::numHeads, "num_heads"},
                 Case{&AttentionForwardArgs::headDim, "head_dim"},
                 Case{&AttentionForwardArgs::batch, "batch"},
                 Case{&AttentionForwardArgs::maxSeqlen, "max_seqlen"}}) {
    auto a = goodArgs();
    a.*c.field = -1;
    EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }),
              std::string(c.name) + " must be >= 0, got -1");
  }
}

TEST(ValidateAttentionArgs, Int32Overflow) {
  struct Case {
    int64_t AttentionForwardArgs::*field;
    const char *name;
  };
  for (Case c : {Case{&AttentionForwardArgs::totalTokens, "total_tokens"},
                 Case{&AttentionForwardArgs::numHeads, "num_heads"},
                 Case{&AttentionForwardArgs::headDim, "head_dim"},
                 Case{&AttentionForwardArgs::batch, "batch"},
                 Case{&AttentionForwardArgs::maxSeqlen, "max_seqlen"}}) {
    auto a = goodArgs();
    a.*c.field = int64_t(1) << 31;
    EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }),
              std::string(c.name) +
                  " 2147483648 does not fit the kernels' 32-bit parameters "
                  "(at most 2147483647)");
  }
  // Work units: B * H * ceil(max_seqlen / 128), max_seqlen bounded by T.
  auto a = goodArgs();
  a.batch = 1 << 20;
  a.numHeads = 64;
  a.maxSeqlen = 1 << 20;
  a.totalTokens = 1 << 30;
  a.qStrides = a.kStrides = a.vStrides = a.oStrides = {64 * 128, 128, 1};
  EXPECT_ERROR(validateAttentionArgs(a),
               "batch * num_heads * ceil(max_seqlen / 128) work units");
}

TEST(ValidateAttentionArgs, OutputsPast32BitOffsets) {
  // 2^18 tokens of 64 heads of 128: o has 2^31 elements.
  auto a = goodArgs();
  a.totalTokens = 1 << 18;
  a.batch = 1 << 10;
  a.maxSeqlen = 1 << 8;
  a.numHeads = 64;
  a.qStrides = a.kStrides = a.vStrides = a.oStrides = {64 * 128, 128, 1};
  EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }),
            "o spans 2147483648 elements (total_tokens * o_strides[0]); the "
            "kernels address at most 2147483647: split the batch into calls "
            "of fewer tokens");
  a.totalTokens = (1 << 18) - 8;
  EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }), "");
}

TEST(ValidateAttentionArgs, InconsistentSizes) {
  auto a = goodArgs();
  a.batch = 0;
  EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }),
            "batch is 0 but total_tokens is 1000: the tokens belong to no "
            "sequence");
  a = goodArgs();
  a.maxSeqlen = 0;
  EXPECT_ERROR(validateAttentionArgs(a), "max_seqlen is 0 but total_tokens");
  a = goodArgs();
  a.maxSeqlen = 300; // 3 sequences of at most 300 tokens cannot hold 1000
  EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }),
            "total_tokens 1000 is more than batch * max_seqlen = 900: "
            "max_seqlen must be at least the longest sequence");
}

TEST(ValidateAttentionArgs, SoftmaxScale) {
  for (float s : {-1.f, std::numeric_limits<float>::quiet_NaN(),
                  std::numeric_limits<float>::infinity(),
                  -std::numeric_limits<float>::infinity()}) {
    auto a = goodArgs();
    a.softmaxScale = s;
    EXPECT_ERROR(validateAttentionArgs(a),
                 "softmax_scale must be positive and finite (0 means "
                 "1/sqrt(head_dim)), got ");
  }
}

/// The strides and address of tensor `name` in `a`.
std::array<int64_t, 3> &stridesOf(AttentionForwardArgs &a, char name) {
  switch (name) {
  case 'q':
    return a.qStrides;
  case 'k':
    return a.kStrides;
  case 'v':
    return a.vStrides;
  default:
    return a.oStrides;
  }
}
CUdeviceptr &addressOf(AttentionForwardArgs &a, char name) {
  switch (name) {
  case 'q':
    return a.q;
  case 'k':
    return a.k;
  case 'v':
    return a.v;
  default:
    return a.o;
  }
}

TEST(ValidateAttentionArgs, Strides) {
  for (char t : {'q', 'k', 'v', 'o'}) {
    std::string s = std::string(1, t) + "_strides";
    auto a = goodArgs();
    stridesOf(a, t)[2] = 2;
    EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }),
              s + "[2] (the dim stride) must be 1, got 2");
    a = goodArgs();
    stridesOf(a, t) = {512, 1, 4}; // [T, D, H]: heads innermost
    EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }),
              s + "[2] (the dim stride) must be 1, got 4");
    a = goodArgs();
    stridesOf(a, t)[1] = 256;
    EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }),
              s + "[1] (the head stride) must equal head_dim 128, got 256");
    a = goodArgs();
    stridesOf(a, t)[0] = 256;
    EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }),
              s + "[0] (the token stride) must be at least num_heads * "
                  "head_dim = 512, got 256");
    a = goodArgs();
    stridesOf(a, t)[0] = -512;
    EXPECT_ERROR(validateAttentionArgs(a), s + "[0] (the token stride) must "
                                               "be at least");
    a = goodArgs();
    stridesOf(a, t)[0] = 516;
    EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }),
              s + "[0] (the token stride) must be a multiple of 8 elements "
                  "(16 bytes, a TMA rule), got 516");
  }
  auto a = goodArgs();
  a.oStrides[0] = int64_t(1) << 31;
  EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }),
            "o_strides[0] (the token stride) 2147483648 is too large (at most "
            "2147483647)");
  a = goodArgs();
  a.qStrides[0] = int64_t(1) << 39;
  EXPECT_ERROR(validateAttentionArgs(a),
               "q_strides[0] (the token stride) 549755813888 is too large");
}

TEST(ValidateAttentionArgs, NullAddresses) {
  for (char t : {'q', 'k', 'v', 'o'}) {
    auto a = goodArgs();
    addressOf(a, t) = 0;
    EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }),
              std::string(1, t) + " is a null address");
  }
  auto a = goodArgs();
  a.lse = 0;
  EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }),
            "lse is a null address");
  a = goodArgs();
  a.offsets = 0;
  EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }),
            "offsets is a null address");
}

TEST(ValidateAttentionArgs, Alignment) {
  for (char t : {'q', 'k', 'v'}) {
    auto a = goodArgs();
    addressOf(a, t) += 8;
    EXPECT_ERROR(validateAttentionArgs(a),
                 std::string(1, t) + " must be 16-byte aligned (a TMA rule), "
                                     "got address 0x");
  }
  auto a = goodArgs();
  a.o += 2;
  EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }),
            "o must be 16-byte aligned, got address 0x400002");
  a = goodArgs();
  a.lse += 2;
  EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }),
            "lse must be 4-byte aligned, got address 0x500002");
  a = goodArgs();
  a.offsets += 1;
  EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }),
            "offsets must be 4-byte aligned, got address 0x600001");
}

TEST(ValidateAttentionArgs, NothingToComputeAllowsNullAddresses) {
  AttentionForwardArgs a; // T = H = B = max_seqlen = 0
  a.headDim = 64;
  a.qStrides = a.kStrides = a.vStrides = a.oStrides = {0, 64, 1};
  EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }), "");
  EXPECT_FALSE(attentionHasWork(a));
  a = goodArgs();
  a.totalTokens = 0;
  a.q = a.k = a.v = a.o = a.lse = a.offsets = 0;
  EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }), "");
  EXPECT_FALSE(attentionHasWork(a));
  // Sizes and dtypes are still checked.
  a.headDim = 96;
  EXPECT_ERROR(validateAttentionArgs(a), "head_dim 96 is not supported");
  EXPECT_TRUE(attentionHasWork(goodArgs()));
}

//===----------------------------------------------------------------------===//
// Issue 20's options: cross-attention, grouped-query heads, sliding window
//===----------------------------------------------------------------------===//

/// goodArgs as cross-attention: 1500 keys in the 3 sequences (at most 900),
/// H_kv = 2 heads of k and v (k, v token stride 2 * 128).
AttentionForwardArgs crossArgs() {
  auto a = goodArgs();
  a.offsetsK = 0x700000;
  a.totalTokensK = 1500;
  a.maxSeqlenK = 900;
  a.numKvHeads = 2;
  a.kStrides = a.vStrides = {2 * 128, 128, 1};
  return a;
}

TEST(AttentionOptions, AcceptsGoodArguments) {
  EXPECT_EQ(errorOf([] { validateAttentionArgs(crossArgs()); }), "");
  // MQA: one k/v head.
  auto a = goodArgs();
  a.numKvHeads = 1;
  a.kStrides = a.vStrides = {128, 128, 1};
  EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }), "");
  // num_kv_heads == num_heads is the plain layout.
  a = goodArgs();
  a.numKvHeads = 4;
  EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }), "");
  // Cross-attention whose sequences have no keys at all: k and v are not
  // read (nothing is launched), so they may be null.
  a = crossArgs();
  a.totalTokensK = 0;
  a.maxSeqlenK = 0;
  a.k = a.v = 0;
  EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }), "");
  EXPECT_TRUE(attentionHasWork(a));
  EXPECT_FALSE(attentionLaunchesKernel(a));
  EXPECT_TRUE(attentionLaunchesKernel(crossArgs()));
  EXPECT_TRUE(attentionLaunchesKernel(goodArgs()));
  // Windows, with and without causal.
  for (auto [left, right, causal] :
       {std::tuple<int64_t, int64_t, bool>{0, 0, false},
        {-1, 0, false},
        {64, -1, false},
        {300, 5, false},
        {100, 0, true},
        {100, -1, true},
        {-1, -1, true},
        {int64_t(1) << 40, int64_t(1) << 40, false}}) {
    a = crossArgs();
    a.windowLeft = left;
    a.windowRight = right;
    a.causal = causal;
    EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }), "")
        << left << " " << right << " " << causal;
  }
}

TEST(AttentionOptions, KeySizesWithoutOffsetsK) {
  auto a = goodArgs();
  a.totalTokensK = 1000;
  EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }),
            "total_tokens_k is 1000 but offsets_k is 0: without offsets_k the "
            "keys are the queries' tokens (self-attention); pass offsets_k "
            "for keys of other lengths (cross-attention), or leave "
            "total_tokens_k 0");
  a = goodArgs();
  a.maxSeqlenK = 500;
  EXPECT_ERROR(validateAttentionArgs(a),
               "max_seqlen_k is 500 but offsets_k is 0");
}

TEST(AttentionOptions, KeySizes) {
  struct Case {
    int64_t AttentionForwardArgs::*field;
    const char *name;
  };
  for (Case c : {Case{&AttentionForwardArgs::totalTokensK, "total_tokens_k"},
                 Case{&AttentionForwardArgs::maxSeqlenK, "max_seqlen_k"},
                 Case{&AttentionForwardArgs::numKvHeads, "num_kv_heads"}}) {
    auto a = crossArgs();
    a.*c.field = -1;
    EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }),
              std::string(c.name) + " must be >= 0, got -1");
    a.*c.field = int64_t(1) << 31;
    EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }),
              std::string(c.name) +
                  " 2147483648 does not fit the kernels' 32-bit parameters "
                  "(at most 2147483647)");
  }
  auto a = crossArgs();
  a.maxSeqlenK = 0;
  EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }),
            "max_seqlen_k is 0 but total_tokens_k is 1500: max_seqlen_k must "
            "be at least the longest key sequence");
  a = crossArgs();
  a.maxSeqlenK = 400; // 3 sequences of at most 400 keys cannot hold 1500
  EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }),
            "total_tokens_k 1500 is more than batch * max_seqlen_k = 1200: "
            "max_seqlen_k must be at least the longest key sequence");
  // No queries and no sequences, but keys: they belong to no sequence.
  a = crossArgs();
  a.totalTokens = 0;
  a.batch = 0;
  EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }),
            "batch is 0 but total_tokens_k is 1500: the keys belong to no "
            "sequence");
  // No queries: nothing to compute, whatever the keys.
  a = crossArgs();
  a.totalTokens = 0;
  a.q = a.k = a.v = a.o = a.lse = a.offsets = 0;
  EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }), "");
  EXPECT_FALSE(attentionHasWork(a));
}

TEST(AttentionOptions, OffsetsKAddress) {
  auto a = crossArgs();
  a.offsetsK += 2;
  EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }),
            "offsets_k must be 4-byte aligned, got address 0x700002");
}

TEST(AttentionOptions, KvHeads) {
  auto a = goodArgs();
  a.numKvHeads = 3;
  a.kStrides = a.vStrides = {3 * 128, 128, 1};
  EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }),
            "num_heads 4 is not a multiple of num_kv_heads 3 (grouped-query "
            "attention: each k/v head serves num_heads / num_kv_heads q "
            "heads)");
  a.numKvHeads = 8; // more k/v heads than q heads
  a.kStrides = a.vStrides = {8 * 128, 128, 1};
  EXPECT_ERROR(validateAttentionArgs(a),
               "num_heads 4 is not a multiple of num_kv_heads 8");
  // k and v are checked against H_kv: a token stride of H_kv * D is enough,
  // less is an error that names num_kv_heads.
  for (char t : {'k', 'v'}) {
    a = crossArgs();
    stridesOf(a, t)[0] = 128;
    EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }),
              std::string(1, t) +
                  "_strides[0] (the token stride) must be at least "
                  "num_kv_heads * head_dim = 256, got 128");
    a = crossArgs();
    stridesOf(a, t)[1] = 64;
    EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }),
              std::string(1, t) + "_strides[1] (the head stride) must equal "
                                  "head_dim 128, got 64");
    a = crossArgs();
    addressOf(a, t) = 0;
    EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }),
              std::string(1, t) + " is a null address");
  }
  // q and o keep H's rule.
  a = crossArgs();
  a.qStrides[0] = 256;
  EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }),
            "q_strides[0] (the token stride) must be at least num_heads * "
            "head_dim = 512, got 256");
}

TEST(AttentionOptions, Window) {
  for (auto [field, name] :
       {std::pair<int64_t AttentionForwardArgs::*, const char *>{
            &AttentionForwardArgs::windowLeft, "window_left"},
        {&AttentionForwardArgs::windowRight, "window_right"}}) {
    auto a = goodArgs();
    a.*field = -2;
    EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }),
              std::string(name) + " must be -1 (unbounded) or >= 0, got -2");
  }
  auto a = goodArgs();
  a.causal = true;
  a.windowRight = 5;
  EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }),
            "causal and window_right = 5 conflict: causal already means "
            "window_right = 0 (no key after the diagonal); pass causal with "
            "window_right 0 or -1, or window_right = 5 without causal");
}

TEST(AttentionOptions, BlockMask) {
  // None: general as without it, the kernel's block arguments 0.
  auto a = goodArgs();
  AttentionOptions o = attentionOptions(a);
  EXPECT_FALSE(o.sparse);
  EXPECT_EQ(o.general, 0);
  std::vector<Arg> args = attentionKernelArgs(a, kSchedule);
  // o again, as the TMA tensor [T, H*D] at o's token stride (parameter 20).
  ASSERT_EQ(args.size(), 21u);
  EXPECT_EQ(args[20].kind, ParamKind::TensorMap);
  EXPECT_EQ(args[20].data, a.o);
  EXPECT_EQ(args[20].shape, (std::vector<uint64_t>{1000, 4 * 128}));
  EXPECT_EQ(args[20].strides, (std::vector<uint64_t>{4 * 128, 1}));
  EXPECT_EQ(args[16].data, 0u);
  EXPECT_EQ(args[17].scalar.i32, 0);
  EXPECT_EQ(args[18].scalar.i32, 0);
  // One mask per q head: T = 1000 -> 8 query blocks, T_k = 1000 -> 8 key
  // blocks, one word a row, 8 words a head; general 4 + the activation.
  a.blockMaskBits = 0x700000;
  a.blockMaskHeads = 4;
  EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }), "");
  o = attentionOptions(a);
  EXPECT_TRUE(o.sparse);
  EXPECT_EQ(o.general, 4);
  EXPECT_EQ(o.blockWords, 1);
  EXPECT_EQ(o.blockHeadStride, 8);
  args = attentionKernelArgs(a, kSchedule);
  EXPECT_EQ(args[16].kind, ParamKind::Pointer);
  EXPECT_EQ(args[16].data, 0x700000u);
  EXPECT_EQ(args[17].scalar.i32, 1);
  EXPECT_EQ(args[18].scalar.i32, 8);
  // Its tiles lie on the mask's 128-token grid, where a sequence may span
  // one tile more: q_tiles ceil((500 + 127) / 128) = 5 instead of 4, in
  // the schedule's size and the grid too (3 * 4 * 5 units).
  EXPECT_EQ(args[10].scalar.i32, 5);
  EXPECT_EQ(attentionScheduleBytes(a), size_t(4 * (2 + 3 * 5)));
  EXPECT_EQ(attentionGrid(a, 132), 60u);
  a.activation = "gelu_tanh";
  EXPECT_EQ(attentionOptions(a).general, 6);
  a.activation = "silu";
  EXPECT_EQ(attentionOptions(a).general, 5);
  // Shared by the heads: head stride 0; with cross-attention the words
  // follow T_k (1500 keys: 12 blocks; 40 * 128 keys: 40 blocks, 2 words).
  a = crossArgs();
  a.blockMaskBits = 0x700000;
  a.blockMaskHeads = 1;
  EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }), "");
  o = attentionOptions(a);
  EXPECT_EQ(o.blockWords, 1);
  EXPECT_EQ(o.blockHeadStride, 0);
  EXPECT_EQ(blockMaskWords(40 * 128), 2);
  EXPECT_EQ(blockMaskWords(32 * 128), 1);
  EXPECT_EQ(blockMaskWords(0), 1);
  EXPECT_EQ(blockMaskBitsBytes(4, 1000, 40 * 128), 4u * 8 * 2 * 4);
  EXPECT_EQ(jfa_attention_block_mask_bytes(4, 1000, 40 * 128), 4u * 8 * 2 * 4);
  // The errors, each naming the field.
  a = goodArgs();
  a.blockMaskBits = 0x700000;
  a.blockMaskHeads = 2;
  EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }),
            "block_mask_heads 2 is neither 0 (no block mask), 1 (one mask for "
            "every head) nor num_heads 4 (one mask per q head)");
  a.blockMaskHeads = -1;
  EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }),
            "block_mask_heads must be >= 0, got -1");
  a.blockMaskHeads = 0;
  EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }),
            "block_mask_bits is set but block_mask_heads is 0: pass the "
            "mask's heads (1, or num_heads), or leave block_mask_bits 0");
  a.blockMaskBits = 0;
  a.blockMaskHeads = 1;
  EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }),
            "block_mask_bits is a null address");
  a.blockMaskBits = 0x700002;
  EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }),
            "block_mask_bits must be 4-byte aligned, got address 0x700002");
}

TEST(AttentionOptions, BlockMaskFromLists) {
  // Two heads, T = 300 (3 q blocks), T_k = 40 * 128 (40 key blocks: 2 words
  // a row). Partial blocks (FlexAttention's kv lists): head 0 lists blocks 0
  // and 39 of row 0 and block 33 of row 2; head 1 lists blocks 3 to 0 of row
  // 2. Full blocks (its full_kv lists, kept apart): head 0 block 5 of row 1,
  // head 1 block 32 of row 0.
  const int64_t heads = 2, qBlocks = 3, maxKv = 4, T = 300, Tk = 40 * 128;
  std::vector<int32_t> num = {2, 0, 1, 0, 0, 4};
  std::vector<int32_t> idx = {0,  39, -7, -7, -7, -7, -7, -7, 33, -7, -7, -7,
                              -7, -7, -7, -7, -7, -7, -7, -7, 3,  2,  1,  0};
  std::vector<int32_t> fullNum = {0, 1, 0, 1, 0, 0};
  std::vector<int32_t> fullIdx(heads * qBlocks * maxKv, -7);
  fullIdx[1 * maxKv] = 5;
  fullIdx[3 * maxKv] = 32;
  size_t bytes = blockMaskBitsBytes(heads, T, Tk);
  ASSERT_EQ(bytes, 2u * 3 * 2 * 4);
  std::vector<uint32_t> bits(bytes / 4, 0xdeadbeef);
  // Row (h, qb) is words [(h * 3 + qb) * 2, +2).
  std::vector<uint32_t> partial = {1u, 1u << 7, 0, 0, 0,    1u << 1,
                                   0,  0,       0, 0, 0xfu, 0};
  blockMaskFromLists(num.data(), idx.data(), nullptr, nullptr, heads, qBlocks,
                     maxKv, T, Tk, bits.data(), bytes);
  EXPECT_EQ(bits, partial);
  std::vector<uint32_t> both = partial;
  both[1 * 2] |= 1u << 5;
  both[3 * 2 + 1] |= 1u;
  blockMaskFromLists(num.data(), idx.data(), fullNum.data(), fullIdx.data(),
                     heads, qBlocks, maxKv, T, Tk, bits.data(), bytes);
  EXPECT_EQ(bits, both);
  // The C entry point: the same bits; then each error names the entry.
  std::vector<uint32_t> viaC(bytes / 4, 0xdeadbeef);
  auto fromC = [&](const int32_t *n, const int32_t *fn, int64_t q,
                   size_t size) {
    return jfa_attention_block_mask_from_lists(
        n, idx.data(), fn, fn ? fullIdx.data() : nullptr, heads, q, maxKv, T,
        Tk, viaC.data(), size);
  };
  ASSERT_EQ(fromC(num.data(), fullNum.data(), qBlocks, bytes), 0)
      << jfa_last_error();
  EXPECT_EQ(viaC, both);
  idx[21] = 40;
  EXPECT_EQ(fromC(num.data(), nullptr, qBlocks, bytes), -1);
  EXPECT_STREQ(jfa_last_error(), "kv_indices[1][2][1] = 40 is outside [0, 40) "
                                 "(ceil(T_k / 128) key blocks)");
  idx[21] = 2;
  fullIdx[3 * maxKv] = -1;
  EXPECT_EQ(fromC(num.data(), fullNum.data(), qBlocks, bytes), -1);
  EXPECT_STREQ(jfa_last_error(), "full_kv_indices[1][0][0] = -1 is outside "
                                 "[0, 40) (ceil(T_k / 128) key blocks)");
  fullIdx[3 * maxKv] = 32;
  num[3] = 5;
  EXPECT_EQ(fromC(num.data(), nullptr, qBlocks, bytes), -1);
  EXPECT_STREQ(jfa_last_error(), "kv_num_blocks[1][0] = 5 is outside [0, 4] "
                                 "(the kv_indices row's length)");
  num[3] = 0;
  EXPECT_EQ(fromC(num.data(), nullptr, 2, bytes), -1);
  EXPECT_STREQ(jfa_last_error(),
               "the lists have 2 q blocks; T = 300 tokens make ceil(T / 128) = "
               "3");
  EXPECT_EQ(fromC(num.data(), nullptr, qBlocks, bytes - 4), -1);
  EXPECT_STREQ(jfa_last_error(), "bits has 44 bytes; the mask needs 48 "
                                 "(jfa_attention_block_mask_bytes)");
  EXPECT_EQ(fromC(nullptr, nullptr, qBlocks, bytes), -1);
  EXPECT_STREQ(jfa_last_error(),
               "kv_num_blocks and kv_indices must not be NULL");
  EXPECT_EQ(jfa_attention_block_mask_from_lists(
                num.data(), idx.data(), fullNum.data(), nullptr, heads, qBlocks,
                maxKv, T, Tk, viaC.data(), bytes),
            -1);
  EXPECT_STREQ(jfa_last_error(),
               "full_kv_num_blocks and full_kv_indices go together: pass both "
               "(a BlockMask's full blocks) or neither");
  EXPECT_EQ(errorOf([&] {
              blockMaskFromLists(num.data(), idx.data(), nullptr, nullptr, 0,
                                 qBlocks, maxKv, T, Tk, bits.data(), bytes);
            }),
            "heads must be at least 1, got 0");
  // Sizes that would wrap a 64-bit product are refused, not indexed.
  EXPECT_EQ(errorOf([&] {
              blockMaskFromLists(num.data(), idx.data(), nullptr, nullptr,
                                 int64_t(1) << 62, qBlocks, maxKv, T, Tk,
                                 bits.data(), bytes);
            }),
            "a mask of 4611686018427387904 heads x 3 q blocks x 40 key blocks "
            "is too large to index");
}

TEST(AttentionOptions, Activation) {
  EXPECT_EQ(attentionActivation("softmax"), AttentionActivation::Softmax);
  EXPECT_EQ(attentionActivation("silu"), AttentionActivation::Silu);
  EXPECT_EQ(attentionActivation("gelu_tanh"), AttentionActivation::GeluTanh);
  const std::string expected =
      "activation 'relu' is not supported; the kernels take \"softmax\" (the "
      "default; NULL in the C API), or GDPA's \"silu\" or \"gelu_tanh\"";
  EXPECT_EQ(errorOf([] { attentionActivation("relu"); }), expected);
  for (const char *bad : {"", "gelu", "SILU", "softmax "}) {
    auto a = goodArgs();
    a.activation = bad;
    EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }),
              "activation '" + std::string(bad) +
                  "' is not supported; the kernels take \"softmax\" (the "
                  "default; NULL in the C API), or GDPA's \"silu\" or "
                  "\"gelu_tanh\"");
  }
  // Checked with the sizes, so the backward's workspace size reports it
  // too; also when there is nothing to compute.
  auto a = goodArgs();
  a.activation = "relu";
  a.totalTokens = 0;
  EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }), expected);
}

TEST(AttentionOptions, GdpaVariantAndLse) {
  // GDPA runs the general variant with its activation whatever the other
  // options: general 2 for silu, 3 for gelu_tanh.
  for (auto [name, general] :
       {std::pair<const char *, int>{"silu", 2}, {"gelu_tanh", 3}}) {
    for (bool options : {false, true}) {
      auto a = options ? crossArgs() : goodArgs();
      a.activation = name;
      a.causal = options;
      if (options)
        a.windowLeft = 64;
      AttentionOptions o = attentionOptions(a);
      EXPECT_TRUE(o.gdpa) << name;
      EXPECT_EQ(o.general, general) << name;
      EXPECT_EQ(o.activation, attentionActivation(name));
      // The other options are what they are without GDPA.
      auto softmax = a;
      softmax.activation = "softmax";
      AttentionOptions s = attentionOptions(softmax);
      EXPECT_EQ(s.general, options ? 1 : 0);
      EXPECT_EQ(o.window, s.window);
      EXPECT_EQ(o.windowLeft, s.windowLeft);
      EXPECT_EQ(o.kvGroup, s.kvGroup);
      EXPECT_EQ(o.keyTokens, s.keyTokens);
      // No lse under GDPA: 0 or any address is fine (not written, not
      // checked); the kernel gets it as given.
      for (CUdeviceptr lse : {CUdeviceptr(0), CUdeviceptr(0x500002)}) {
        a.lse = lse;
        EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }), "") << name;
        std::vector<Arg> args = attentionKernelArgs(a, kSchedule);
        ASSERT_EQ(args.size(), 21u);
        EXPECT_EQ(args[4].kind, ParamKind::Pointer);
        EXPECT_EQ(args[4].data, lse);
        // The same arguments as softmax's otherwise.
        softmax.lse = lse;
        std::vector<Arg> plain = attentionKernelArgs(softmax, kSchedule);
        for (size_t i = 5; i < 20; ++i) {
          EXPECT_EQ(args[i].data, plain[i].data) << i;
          EXPECT_EQ(args[i].scalar.i32, plain[i].scalar.i32) << i;
        }
      }
    }
  }
  // softmax still needs lse.
  auto a = goodArgs();
  a.lse = 0;
  EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }),
            "lse is a null address");
  a.lse = 0x500002;
  EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }),
            "lse must be 4-byte aligned, got address 0x500002");
  // GDPA's other arguments are checked as ever.
  a = goodArgs();
  a.activation = "silu";
  a.lse = 0;
  a.o = 0;
  EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }), "o is a null address");
  // Without keys (T_k == 0) the forward writes o = 0 itself; under GDPA
  // nothing else (no lse): k, v and lse may all be 0.
  a = crossArgs();
  a.activation = "gelu_tanh";
  a.totalTokensK = a.maxSeqlenK = 0;
  a.k = a.v = a.lse = 0;
  EXPECT_EQ(errorOf([&] { validateAttentionArgs(a); }), "");
  EXPECT_FALSE(attentionLaunchesKernel(a));
  // The contract's metadata takes the GDPA call's arguments (lse 0).
  a = goodArgs();
  a.activation = "silu";
  a.lse = 0;
  KernelInfo k = parseMetadata(contractMetadata("attention_fwd_sm90", "sm_90a",
                                                128, false, 2))
                     .at(0);
  EXPECT_EQ(
      errorOf([&] { validateArgs(k, attentionKernelArgs(a, kSchedule)); }), "");
}

TEST(AttentionOptions, WhatACallComesTo) {
  AttentionOptions o = attentionOptions(goodArgs());
  EXPECT_FALSE(o.cross);
  EXPECT_EQ(o.keyTokens, 1000);
  EXPECT_EQ(o.maxSeqlenK, 500);
  EXPECT_EQ(o.kvHeads, 4);
  EXPECT_EQ(o.kvGroup, 1);
  EXPECT_FALSE(o.window);
  EXPECT_EQ(o.general, 0);
  EXPECT_FALSE(o.gdpa);
  EXPECT_EQ(o.activation, AttentionActivation::Softmax);
  EXPECT_EQ(o.windowLeft, -1);
  EXPECT_EQ(o.windowRight, -1);
  o = attentionOptions(crossArgs());
  EXPECT_TRUE(o.cross);
  EXPECT_EQ(o.keyTokens, 1500);
  EXPECT_EQ(o.maxSeqlenK, 900);
  EXPECT_EQ(o.kvHeads, 2);
  EXPECT_EQ(o.kvGroup, 2);
  EXPECT_EQ(o.general, 1);
  // GQA alone, cross-attention alone: the general variant.
  auto gqa = goodArgs();
  gqa.numKvHeads = 2;
  EXPECT_EQ(attentionOptions(gqa).general, 1);
  gqa.numKvHeads = 4; // H_kv = H: the plain kernel
  EXPECT_EQ(attentionOptions(gqa).general, 0);
  auto cross = crossArgs();
  cross.numKvHeads = 0;
  EXPECT_EQ(attentionOptions(cross).general, 1);
  // A window applies iff left >= 0, or right >= 0 without causal (and then
  // the general variant runs); without one the kernel gets -1, -1; bounds
  // past every sequence are clamped (left to max_seqlen_k = 900, right to
  // max_seqlen = 500). Self-attention without GQA: general iff a window.
  struct Case {
    int64_t left, right;
    bool causal, window;
    int64_t kernelLeft, kernelRight;
  };
  for (Case c :
       {Case{-1, -1, false, false, -1, -1}, Case{-1, -1, true, false, -1, -1},
        Case{-1, 0, true, false, -1, -1}, Case{-1, 0, false, true, -1, 0},
        Case{0, 0, false, true, 0, 0}, Case{64, -1, false, true, 64, -1},
        Case{300, 5, false, true, 300, 5}, Case{100, 0, true, true, 100, 0},
        Case{100, -1, true, true, 100, -1},
        Case{900, 500, false, true, 900, 500},
        Case{901, 501, false, true, 900, 500},
        Case{int64_t(1) << 40, int64_t(1) << 40, false, true, 900, 500}}) {
    auto a = crossArgs();
    a.windowLeft = c.left;
    a.windowRight = c.right;
    a.causal = c.causal;
    o = attentionOptions(a);
    std::string what = "window (" + std::to_string(c.left) + ", " +
                       std::to_string(c.right) + ") causal " +
                       std::to_string(c.causal);
    EXPECT_EQ(o.window, c.window) << what;
    EXPECT_EQ(o.general, 1) << what; // cross-attention
    EXPECT_EQ(o.windowLeft, c.kernelLeft) << what;
    EXPECT_EQ(o.windowRight, c.kernelRight) << what;
    auto self = goodArgs();
    self.windowLeft = c.left;
    self.windowRight = c.right;
    self.causal = c.causal;
    EXPECT_EQ(attentionOptions(self).general, c.window ? 1 : 0) << what;
    // GDPA: general 2 (silu) or 3 (gelu_tanh), window or not.
    self.activation = "gelu_tanh";
    EXPECT_EQ(attentionOptions(self).general, 3) << what;
  }
  // Self-attention clamps left to max_seqlen.
  auto a = goodArgs();
  a.windowLeft = 10000;
  EXPECT_EQ(attentionOptions(a).windowLeft, 500);
  // A loose max_seqlen(_k): the token counts bound the lengths too.
  a = crossArgs();
  a.maxSeqlen = 1 << 20;
  a.maxSeqlenK = 1 << 20;
  a.windowLeft = a.windowRight = int64_t(1) << 30;
  EXPECT_EQ(attentionOptions(a).windowLeft, 1500);
  EXPECT_EQ(attentionOptions(a).windowRight, 1000);
}

//===----------------------------------------------------------------------===//
// Kernel choice, grid, kernel arguments, metadata
//===----------------------------------------------------------------------===//

TEST(AttentionKernelFor, Devices) {
  EXPECT_EQ(attentionKernelFor(9, 0).kernel, "attention_fwd_sm90");
  EXPECT_EQ(attentionKernelFor(9, 0).arch, "sm_90a");
  EXPECT_EQ(attentionKernelFor(10, 0).kernel, "attention_fwd_sm100");
  EXPECT_EQ(attentionKernelFor(10, 0).arch, "sm_100a");
  // sm_100a code does not load on a B300 (10.3).
  EXPECT_ERROR(attentionKernelFor(10, 3), "compute capability 10.3");
  EXPECT_EQ(errorOf([] { attentionKernelFor(8, 0); }),
            "jagged attention does not support this device (compute "
            "capability 8.0); the kernels run on compute capability 9.0 "
            "(sm_90a) and 10.0 (sm_100a)");
  EXPECT_ERROR(attentionKernelFor(12, 0), "compute capability 12.0");
  EXPECT_ERROR(attentionKernelFor(9, 1), "compute capability 9.1");
}

TEST(AttentionGrid, PersistentGrid) {
  auto a = goodArgs(); // 3 * 4 * ceil(500 / 128) = 48 work units
  EXPECT_EQ(attentionGrid(a, 132), 48u);
  EXPECT_EQ(attentionGrid(a, 40), 40u);
  a.maxSeqlen = 512;
  EXPECT_EQ(attentionGrid(a, 132), 48u);
  a.maxSeqlen = 513;
  EXPECT_EQ(attentionGrid(a, 132), 60u);
  a.maxSeqlen = 1;
  a.batch = 1;
  a.numHeads = 1;
  EXPECT_EQ(attentionGrid(a, 132), 1u);
  a.batch = 1 << 20;
  a.numHeads = 1 << 10;
  EXPECT_EQ(attentionGrid(a, 148), 148u);
}

TEST(AttentionKernelArgs, TheContractsParameters) {
  auto a = goodArgs();
  a.qStrides[0] = 1024;
  a.oStrides[0] = 520;
  a.causal = true;
  std::vector<Arg> args = attentionKernelArgs(a, kSchedule);
  ASSERT_EQ(args.size(), 21u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(args[i].kind, ParamKind::TensorMap);
    EXPECT_EQ(args[i].elementType, "bf16");
    EXPECT_EQ(args[i].shape, (std::vector<uint64_t>{1000, 512}));
  }
  EXPECT_EQ(args[0].data, a.q);
  EXPECT_EQ(args[0].strides, (std::vector<uint64_t>{1024, 1}));
  EXPECT_EQ(args[1].data, a.k);
  EXPECT_EQ(args[1].strides, (std::vector<uint64_t>{512, 1}));
  EXPECT_EQ(args[2].data, a.v);
  EXPECT_EQ(args[3].kind, ParamKind::Pointer);
  EXPECT_EQ(args[3].data, a.o);
  EXPECT_EQ(args[4].data, a.lse);
  EXPECT_EQ(args[5].data, a.offsets);
  // Head dim and mask are compile-time parameters (the variant), not
  // arguments.
  int32_t expected[] = {3, 4, 1000, 520, 4};
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(args[6 + i].kind, ParamKind::I32);
    EXPECT_EQ(args[6 + i].scalar.i32, expected[i]) << "parameter " << 6 + i;
  }
  EXPECT_EQ(args[11].kind, ParamKind::F32);
  EXPECT_FLOAT_EQ(args[11].scalar.f32,
                  float(1.0 / std::sqrt(128.0) * 1.4426950408889634));
  // Self-attention: offsets_k is offsets, one q head per k/v head, no
  // window.
  EXPECT_EQ(args[12].kind, ParamKind::Pointer);
  EXPECT_EQ(args[12].data, a.offsets);
  int32_t expectedTail[] = {1, -1, -1};
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(args[13 + i].kind, ParamKind::I32);
    EXPECT_EQ(args[13 + i].scalar.i32, expectedTail[i])
        << "parameter " << 13 + i;
  }
  // No block mask; the schedule; o again as a TMA tensor, at o's stride.
  EXPECT_EQ(args[16].data, 0u);
  EXPECT_EQ(args[19].kind, ParamKind::Pointer);
  EXPECT_EQ(args[19].data, kSchedule);
  EXPECT_EQ(args[20].kind, ParamKind::TensorMap);
  EXPECT_EQ(args[20].data, a.o);
  EXPECT_EQ(args[20].shape, (std::vector<uint64_t>{1000, 512}));
  EXPECT_EQ(args[20].strides, (std::vector<uint64_t>{520, 1}));
  // 2 + B * ceil(500 / 128) int32.
  EXPECT_EQ(attentionScheduleBytes(a), size_t(4 * (2 + 3 * 4)));
  a.causal = false;
  a.softmaxScale = 0.5f;
  args = attentionKernelArgs(a, kSchedule);
  EXPECT_FLOAT_EQ(args[11].scalar.f32, 0.5f * 1.4426950408889634f);

  // They pass the runtime's own checks against the contract's metadata
  // (kinds, TMA alignment and strides).
  KernelInfo k =
      parseMetadata(contractMetadata("attention_fwd_sm90", "sm_90a")).at(0);
  EXPECT_EQ(
      errorOf([&] { validateArgs(k, attentionKernelArgs(a, kSchedule)); }), "");
  // Fewer tokens than a q tile is fine too.
  a = goodArgs();
  a.totalTokens = 5;
  a.maxSeqlen = 5;
  EXPECT_EQ(
      errorOf([&] { validateArgs(k, attentionKernelArgs(a, kSchedule)); }), "");
}

TEST(AttentionKernelArgs, CrossAttentionGroupsAndWindow) {
  auto a = crossArgs();    // T = 1000, H = 4; T_k = 1500, H_kv = 2
  a.kStrides[0] = 3 * 256; // k and v interleaved with something else
  a.windowLeft = 300;
  a.windowRight = 5;
  std::vector<Arg> args = attentionKernelArgs(a, kSchedule);
  ASSERT_EQ(args.size(), 21u);
  EXPECT_EQ(args[0].shape, (std::vector<uint64_t>{1000, 512}));
  EXPECT_EQ(args[1].shape, (std::vector<uint64_t>{1500, 256}));
  EXPECT_EQ(args[1].strides, (std::vector<uint64_t>{768, 1}));
  EXPECT_EQ(args[2].shape, (std::vector<uint64_t>{1500, 256}));
  EXPECT_EQ(args[2].strides, (std::vector<uint64_t>{256, 1}));
  // B, H and T are the queries'.
  EXPECT_EQ(args[6].scalar.i32, 3);
  EXPECT_EQ(args[7].scalar.i32, 4);
  EXPECT_EQ(args[8].scalar.i32, 1000);
  EXPECT_EQ(args[10].scalar.i32, 4); // ceil(500 / 128)
  EXPECT_EQ(args[12].kind, ParamKind::Pointer);
  EXPECT_EQ(args[12].data, a.offsetsK);
  EXPECT_EQ(args[13].scalar.i32, 2); // kv_group = H / H_kv
  EXPECT_EQ(args[14].scalar.i32, 300);
  EXPECT_EQ(args[15].scalar.i32, 5);
  // Without a window (causal's own bound) the kernel gets -1, -1.
  a.causal = true;
  a.windowLeft = -1;
  a.windowRight = 0;
  args = attentionKernelArgs(a, kSchedule);
  EXPECT_EQ(args[14].scalar.i32, -1);
  EXPECT_EQ(args[15].scalar.i32, -1);
  // MQA.
  a = goodArgs();
  a.numKvHeads = 1;
  a.kStrides = a.vStrides = {128, 128, 1};
  args = attentionKernelArgs(a, kSchedule);
  EXPECT_EQ(args[1].shape, (std::vector<uint64_t>{1000, 128}));
  EXPECT_EQ(args[13].scalar.i32, 4);

  // They pass the runtime's own checks against the contract's metadata.
  KernelInfo k =
      parseMetadata(contractMetadata("attention_fwd_sm90", "sm_90a")).at(0);
  EXPECT_EQ(errorOf([&] {
              validateArgs(k, attentionKernelArgs(crossArgs(), kSchedule));
            }),
            "");
  // Fewer keys than a tile.
  a = crossArgs();
  a.totalTokensK = 3;
  a.maxSeqlenK = 3;
  EXPECT_EQ(
      errorOf([&] { validateArgs(k, attentionKernelArgs(a, kSchedule)); }), "");
}

TEST(AttentionQTileRows, FromTheKernelsQBox) {
  // 128-row q tiles: the contract's metadata.
  KernelInfo k =
      parseMetadata(contractMetadata("attention_fwd_sm90", "sm_90a")).at(0);
  EXPECT_EQ(attentionQTileRows(k, "x.meta"), 128);
  // 192-row ones (the sm_90a forward at D = 64: three consumer
  // warpgroups): q_tiles, the schedule and the grid count them. T = 1000,
  // max_seqlen 500: ceil(500 / 192) = 3 tiles, not 4.
  k.params.front().box = {192, 64};
  k.params.back().box = {192, 64};
  EXPECT_EQ(attentionQTileRows(k, "x.meta"), 192);
  auto a = goodArgs();
  EXPECT_EQ(attentionKernelArgs(a, kSchedule)[10].scalar.i32, 4);
  EXPECT_EQ(attentionKernelArgs(a, kSchedule, 192)[10].scalar.i32, 3);
  EXPECT_EQ(attentionScheduleBytes(a, 192), size_t(4 * (2 + 3 * 3)));
  EXPECT_EQ(attentionGrid(a, 132, 192), 36u);
  EXPECT_EQ(attentionGrid(a, 20, 192), 20u);
  // q and o must share one tile of whole wgmma row groups that TMA can box.
  k.params.back().box = {128, 64};
  EXPECT_EQ(errorOf([&] { attentionQTileRows(k, "x.meta"); }),
            "x.meta: kernel 'attention_fwd_sm90' has a q TMA box of 192 rows "
            "and an o TMA box of 128; the jagged attention contract has one "
            "q tile for both, a multiple of 64 rows from 128 to 256");
  k.params.front().box = k.params.back().box = {96, 64};
  EXPECT_ERROR(attentionQTileRows(k, "x.meta"), "a q TMA box of 96 rows");
  k.params.front().box = k.params.back().box = {320, 64};
  EXPECT_ERROR(attentionQTileRows(k, "x.meta"), "a q TMA box of 320 rows");
  // Below 128 rows: more units than the runtime's bound on them allows for.
  k.params.front().box = k.params.back().box = {64, 64};
  EXPECT_ERROR(attentionQTileRows(k, "x.meta"), "a q TMA box of 64 rows");
}

TEST(CheckAttentionKernelInfo, Contract) {
  KernelInfo k =
      parseMetadata(contractMetadata("attention_fwd_sm90", "sm_90a")).at(0);
  EXPECT_EQ(errorOf([&] { checkAttentionKernelInfo(k, "sm_90a", "x.meta"); }),
            "");
  EXPECT_EQ(errorOf([&] { checkAttentionKernelInfo(k, "sm_100a", "x.meta"); }),
            "x.meta: kernel 'attention_fwd_sm90' is built for sm_90a, "
            "expected sm_100a");
  KernelInfo fewer = k;
  fewer.params.pop_back();
  EXPECT_ERROR(checkAttentionKernelInfo(fewer, "sm_90a", "x.meta"),
               "has 20 parameters; the jagged attention contract has 21 (a "
               "cubin built from another version of kernels/jagged_attention: "
               "rebuild it)");
  // A kernel of before issue 20 (12 parameters).
  fewer.params.resize(12);
  EXPECT_ERROR(checkAttentionKernelInfo(fewer, "sm_90a", "x.meta"),
               "has 12 parameters; the jagged attention contract has 21");
  KernelInfo wrong = k;
  wrong.params[4].elementType = "bf16";
  EXPECT_ERROR(checkAttentionKernelInfo(wrong, "sm_90a", "x.meta"),
               "parameter 4 is ptr bf16; the jagged attention contract has "
               "ptr f32");
  wrong = k;
  wrong.params[10].kind = ParamKind::I64;
  EXPECT_ERROR(checkAttentionKernelInfo(wrong, "sm_90a", "x.meta"),
               "parameter 10 is i64; the jagged attention contract has i32");
  wrong = k;
  wrong.compileParams.erase("causal");
  EXPECT_EQ(
      errorOf([&] { checkAttentionKernelInfo(wrong, "sm_90a", "x.meta"); }),
      "x.meta: kernel 'attention_fwd_sm90' was compiled without the "
      "compile-time parameter 'causal' (its metadata has no "
      "params.causal); rebuild it with jfac -P causal=...");
  wrong = k;
  wrong.compileParams.erase("general");
  EXPECT_EQ(
      errorOf([&] { checkAttentionKernelInfo(wrong, "sm_90a", "x.meta"); }),
      "x.meta: kernel 'attention_fwd_sm90' was compiled without the "
      "compile-time parameter 'general' (its metadata has no "
      "params.general); rebuild it with jfac -P general=...");
  wrong = k;
  wrong.params[12].elementType = "i64";
  EXPECT_ERROR(checkAttentionKernelInfo(wrong, "sm_90a", "x.meta"),
               "parameter 12 is ptr i64; the jagged attention contract has "
               "ptr i32");
  wrong = k;
  wrong.params[15].kind = ParamKind::F32;
  EXPECT_ERROR(checkAttentionKernelInfo(wrong, "sm_90a", "x.meta"),
               "parameter 15 is f32; the jagged attention contract has i32");
  wrong = k;
  wrong.params[20].kind = ParamKind::Pointer;
  EXPECT_ERROR(checkAttentionKernelInfo(wrong, "sm_90a", "x.meta"),
               "parameter 20 is ptr bf16; the jagged attention contract has "
               "tma bf16");
}

//===----------------------------------------------------------------------===//
// kernel_dir
//===----------------------------------------------------------------------===//

/// A fresh folder under the test's temporary directory.
std::string makeDir(const std::string &name) {
  return test::makeTempDir("jfa_attention_" + name);
}

/// Writes <kernel>_<arch><suffix>.cubin (+ .meta) as build-package.sh names
/// a variant.
void writeKernel(const std::string &dir, const std::string &kernel,
                 const std::string &arch, const std::string &metadata,
                 const std::string &suffix = ".head_dim=128.causal=0") {
  test::writeCubin(dir, kernel + "_" + arch + suffix + ".cubin", metadata);
}

TEST(AttentionLoad, MissingOrEmptyDir) {
  EXPECT_EQ(errorOf([] { Attention::load("/nonexistent/kernels"); }),
            "kernel_dir '/nonexistent/kernels' is not a folder");
  std::string dir = makeDir("empty");
  EXPECT_EQ(errorOf([&] { Attention::load(dir); }),
            "kernel_dir '" + dir +
                "' holds neither attention_fwd_sm90_sm_90a.*.cubin nor "
                "attention_fwd_sm100_sm_100a.*.cubin");
  EXPECT_EQ(errorOf([] { Attention::load(""); }), "kernel_dir is empty");
}

TEST(AttentionLoad, OneTarget) {
  std::string dir = makeDir("one");
  writeKernel(dir, "attention_fwd_sm90", "sm_90a",
              contractMetadata("attention_fwd_sm90", "sm_90a"));
  test::writeCubin(dir, "attention_bwd_schedule_sm_90a.cubin",
                   test::scheduleMetadata("sm_90a"));
  Attention attn = Attention::load(dir);
  EXPECT_TRUE(attn.hasKernel("sm_90a"));
  EXPECT_FALSE(attn.hasKernel("sm_100a"));
  EXPECT_EQ(attn.absentReason("sm_90a"), "");
  EXPECT_EQ(attn.absentReason("sm_100a"),
            "kernel_dir '" + dir +
                "' has no attention_fwd_sm100_sm_100a.*.cubin, the kernels "
                "for sm_100a devices (compute capability 10.0)");
}

TEST(AttentionLoad, TheForwardNeedsTheScheduleKernel) {
  // The forward's cubins alone: the forward cannot run (it launches the
  // schedule kernel first), and the handle says which file is missing.
  std::string dir = makeDir("forward_only");
  writeKernel(dir, "attention_fwd_sm90", "sm_90a",
              contractMetadata("attention_fwd_sm90", "sm_90a"));
  Attention attn = Attention::load(dir);
  EXPECT_FALSE(attn.hasKernel("sm_90a"));
  EXPECT_EQ(attn.absentReason("sm_90a"), test::missingScheduleReason(dir));
  // A schedule cubin whose metadata does not fit says so instead, and the
  // forward does not depend on the rest of the backward.
  test::writeCubin(dir, "attention_bwd_schedule_sm_90a.cubin",
                   "{\"format\": \"jfa-metadata\", \"version\": 2, "
                   "\"kernels\": []}");
  attn = Attention::load(dir);
  EXPECT_FALSE(attn.hasKernel("sm_90a"));
  EXPECT_NE(attn.absentReason("sm_90a").find("no kernel named"),
            std::string::npos)
      << attn.absentReason("sm_90a");
  test::writeCubin(dir, "attention_bwd_schedule_sm_90a.cubin",
                   test::scheduleMetadata("sm_90a"));
  attn = Attention::load(dir);
  EXPECT_TRUE(attn.hasKernel("sm_90a"));
  EXPECT_EQ(attn.absentReason("sm_90a"), "");
  EXPECT_FALSE(attn.hasBackward("sm_90a"));
}

TEST(AttentionLoad, VariantsArePickedByTheirMetadata) {
  std::string dir = makeDir("variants");
  test::writeCubin(dir, "attention_bwd_schedule_sm_90a.cubin",
                   test::scheduleMetadata("sm_90a"));
  // The names are free: the metadata says which variant a cubin is.
  writeKernel(dir, "attention_fwd_sm90", "sm_90a",
              contractMetadata("attention_fwd_sm90", "sm_90a", 64, true), ".a");
  writeKernel(dir, "attention_fwd_sm90", "sm_90a",
              contractMetadata("attention_fwd_sm90", "sm_90a", 128, false),
              ".b");
  // The same but for general: 1, and GDPA's 2 (silu) and 3 (gelu_tanh).
  for (int general : {1, 2, 3})
    writeKernel(
        dir, "attention_fwd_sm90", "sm_90a",
        contractMetadata("attention_fwd_sm90", "sm_90a", 64, true, general),
        ".g" + std::to_string(general));
  Attention attn = Attention::load(dir);
  EXPECT_TRUE(attn.hasKernel("sm_90a"));
  // A metadata "general": true (a bool) is general=1: the same variant.
  writeKernel(
      dir, "attention_fwd_sm90", "sm_90a",
      [] {
        std::string m =
            contractMetadata("attention_fwd_sm90", "sm_90a", 64, true, 1);
        m.replace(m.find(R"("general": 1)"), 12, R"("general": true)");
        return m;
      }(),
      ".gtrue");
  EXPECT_EQ(errorOf([&] { Attention::load(dir); }),
            dir + "/attention_fwd_sm90_sm_90a.g1.cubin.meta and " + dir +
                "/attention_fwd_sm90_sm_90a.gtrue.cubin.meta are the same "
                "variant (causal=1, general=1, head_dim=64)");
  std::remove((dir + "/attention_fwd_sm90_sm_90a.gtrue.cubin").c_str());
  writeKernel(dir, "attention_fwd_sm90", "sm_90a",
              contractMetadata("attention_fwd_sm90", "sm_90a", 64, true, 3),
              ".g3b");
  EXPECT_EQ(errorOf([&] { Attention::load(dir); }),
            dir + "/attention_fwd_sm90_sm_90a.g3.cubin.meta and " + dir +
                "/attention_fwd_sm90_sm_90a.g3b.cubin.meta are the same "
                "variant (causal=1, general=3, head_dim=64)");
  std::remove((dir + "/attention_fwd_sm90_sm_90a.g3b.cubin").c_str());
  // Two cubins of one variant are refused.
  writeKernel(dir, "attention_fwd_sm90", "sm_90a",
              contractMetadata("attention_fwd_sm90", "sm_90a", 64, true), ".c");
  EXPECT_EQ(errorOf([&] { Attention::load(dir); }),
            dir + "/attention_fwd_sm90_sm_90a.a.cubin.meta and " + dir +
                "/attention_fwd_sm90_sm_90a.c.cubin.meta are the same "
                "variant (causal=1, general=0, head_dim=64)");
}

TEST(AttentionForward, ASpecializationIsTakenOverTheForward) {
  using detail::ForwardVariant;
  using detail::pickForwardVariant;
  detail::Params d64 = {{"head_dim", "64"}, {"causal", "0"}, {"general", "0"}};
  detail::Params d128 = {
      {"head_dim", "128"}, {"causal", "0"}, {"general", "0"}};
  // The forward alone; then with a specialization of the same variant,
  // before or after it in the list: the specialization.
  EXPECT_EQ(pickForwardVariant({{&d64, true, false}}, d64), 0u);
  EXPECT_EQ(pickForwardVariant({{&d64, true, false}, {&d64, true, true}}, d64),
            1u);
  EXPECT_EQ(pickForwardVariant({{&d64, true, true}, {&d64, true, false}}, d64),
            0u);
  // An unusable specialization leaves the forward's; an unusable forward
  // the specialization's.
  EXPECT_EQ(pickForwardVariant({{&d64, true, false}, {&d64, false, true}}, d64),
            0u);
  EXPECT_EQ(pickForwardVariant({{&d64, false, false}, {&d64, true, true}}, d64),
            1u);
  // Other variants are not taken: none has the params, or only others do.
  EXPECT_EQ(pickForwardVariant({{&d128, true, true}}, d64), 1u);
  EXPECT_EQ(pickForwardVariant({}, d64), 0u);
  EXPECT_EQ(
      pickForwardVariant({{&d64, true, true}, {&d128, true, false}}, d128), 1u);
}

TEST(AttentionForward, TallerTilesUnderADiagonalOnlyForLongSequences) {
  using detail::ForwardCall;
  using detail::ForwardVariant;
  using detail::kTallTileDiagonalMinSeqlen;
  using detail::pickForwardVariant;
  detail::Params causal = {
      {"head_dim", "64"}, {"causal", "1"}, {"general", "0"}};
  detail::Params full = {{"head_dim", "64"}, {"causal", "0"}, {"general", "0"}};
  // Without a diagonal edge the specialization, at any length.
  std::vector<ForwardVariant> plain = {{&full, true, false, 128},
                                       {&full, true, true, 192}};
  EXPECT_EQ(pickForwardVariant(plain, full, ForwardCall{false, 1}), 1u);
  // With one, the forward's 128-row tiles below the bound, the
  // specialization's 192-row ones from it on.
  std::vector<ForwardVariant> both = {{&causal, true, false, 128},
                                      {&causal, true, true, 192}};
  EXPECT_EQ(
      pickForwardVariant(both, causal,
                         ForwardCall{true, kTallTileDiagonalMinSeqlen - 1}),
      0u);
  EXPECT_EQ(pickForwardVariant(both, causal,
                               ForwardCall{true, kTallTileDiagonalMinSeqlen}),
            1u);
  // A specialization whose tiles are no taller than the forward's is taken
  // at any length.
  std::vector<ForwardVariant> same = {{&causal, true, false, 128},
                                      {&causal, true, true, 128}};
  EXPECT_EQ(pickForwardVariant(same, causal, ForwardCall{true, 1}), 1u);
  // The rule only ranks: below the bound a usable specialization runs where
  // the forward's own variant is absent or missing (a kernel_dir without
  // it), and an absent one never wins over the forward's.
  EXPECT_EQ(pickForwardVariant(
                {{&causal, false, false, 128}, {&causal, true, true, 192}},
                causal, ForwardCall{true, 100}),
            1u);
  EXPECT_EQ(pickForwardVariant({{&causal, true, true, 192}}, causal,
                               ForwardCall{true, 100}),
            0u);
  EXPECT_EQ(pickForwardVariant(
                {{&causal, true, false, 128}, {&causal, false, true, 192}},
                causal, ForwardCall{true, 1 << 20}),
            0u);
}

TEST(AttentionLoad, ASpecializationLoadsBesideTheForward) {
  // attention_fwd_sm90_q192 (192-row q tiles) declares a variant the
  // forward also has: both load, and a call takes the specialization's.
  std::string dir = makeDir("specialized");
  test::writeCubin(dir, "attention_bwd_schedule_sm_90a.cubin",
                   test::scheduleMetadata("sm_90a"));
  writeKernel(dir, "attention_fwd_sm90", "sm_90a",
              contractMetadata("attention_fwd_sm90", "sm_90a", 64, false));
  std::string q192 =
      contractMetadata("attention_fwd_sm90_q192", "sm_90a", 64, false);
  // q's box (the first) and o's (the last).
  q192.replace(q192.find(R"("box": [128, 64])"), 16, R"("box": [192, 64])");
  q192.replace(q192.rfind(R"("box": [128, 64])"), 16, R"("box": [192, 64])");
  writeKernel(dir, "attention_fwd_sm90_q192", "sm_90a", q192);
  EXPECT_EQ(errorOf([&] { Attention::load(dir); }), "");
  EXPECT_TRUE(Attention::load(dir).hasKernel("sm_90a"));
  // Its metadata must name it.
  writeKernel(dir, "attention_fwd_sm90_wide", "sm_90a",
              contractMetadata("attention_fwd_sm90", "sm_90a", 64, true));
  EXPECT_EQ(errorOf([&] { Attention::load(dir); }),
            dir + "/attention_fwd_sm90_wide_sm_90a.head_dim=128.causal=0."
                  "cubin.meta: no kernel named 'attention_fwd_sm90_wide'");
  // Two specializations of one variant: no rule picks one.
  writeKernel(dir, "attention_fwd_sm90_wide", "sm_90a",
              contractMetadata("attention_fwd_sm90_wide", "sm_90a", 64, false));
  EXPECT_EQ(errorOf([&] { Attention::load(dir); }),
            dir +
                "/attention_fwd_sm90_q192_sm_90a.head_dim=128.causal=0."
                "cubin.meta and " +
                dir +
                "/attention_fwd_sm90_wide_sm_90a.head_dim=128.causal=0."
                "cubin.meta are the same variant (causal=0, general=0, "
                "head_dim=64)");
  std::remove(
      (dir + "/attention_fwd_sm90_wide_sm_90a.head_dim=128.causal=0.cubin")
          .c_str());
  // Not a specialization: the backward's kernels, other names.
  writeKernel(dir, "attention_fwd_sm90x", "sm_90a",
              contractMetadata("attention_fwd_sm90", "sm_90a", 64, false));
  writeKernel(dir, "attention_fwd_sm90_a-b", "sm_90a",
              contractMetadata("attention_fwd_sm90", "sm_90a", 64, false));
  EXPECT_EQ(errorOf([&] { Attention::load(dir); }), "");
  // A block-sparse variant on 192-row tiles (the mask's blocks are 128).
  std::string sparse192 =
      contractMetadata("attention_fwd_sm90_q192", "sm_90a", 64, false, 4);
  sparse192.replace(sparse192.find(R"("box": [128, 64])"), 16,
                    R"("box": [192, 64])");
  sparse192.replace(sparse192.rfind(R"("box": [128, 64])"), 16,
                    R"("box": [192, 64])");
  writeKernel(dir, "attention_fwd_sm90_q192", "sm_90a", sparse192, ".g4");
  EXPECT_ERROR(Attention::load(dir),
               "is a block-sparse variant (general=4) with q tiles of 192 "
               "rows; block-sparse kernels take the mask's 128-token blocks "
               "as their q tiles");
  std::remove((dir + "/attention_fwd_sm90_q192_sm_90a.g4.cubin").c_str());
  // A cubin name without a variant is no kernel's.
  writeKernel(dir, "attention_fwd_sm90", "sm_90a",
              contractMetadata("attention_fwd_sm90", "sm_90a", 64, true), ".");
  EXPECT_EQ(errorOf([&] { Attention::load(dir); }), "");
  // A q tile the contract does not have.
  std::string odd = q192;
  odd.replace(odd.find(R"("box": [192, 64])"), 16, R"("box": [96, 64])");
  writeKernel(dir, "attention_fwd_sm90_q192", "sm_90a", odd);
  EXPECT_ERROR(Attention::load(dir), "has a q TMA box of 96 rows and an o "
                                     "TMA box of 192");
}

TEST(AttentionLoad, AKernelOfBeforeTheGeneralVariantSaysRebuild) {
  // A kernel_dir built before issue 20: its metadata has no "general".
  std::string dir = makeDir("nogeneral");
  std::string m = contractMetadata("attention_fwd_sm90", "sm_90a");
  m.erase(m.find(R"(, "general": 0)"), std::string(R"(, "general": 0)").size());
  writeKernel(dir, "attention_fwd_sm90", "sm_90a", m);
  EXPECT_EQ(errorOf([&] { Attention::load(dir); }),
            dir +
                "/attention_fwd_sm90_sm_90a.head_dim=128.causal=0.cubin.meta: "
                "kernel 'attention_fwd_sm90' was compiled without the "
                "compile-time parameter 'general' (its metadata has no "
                "params.general); rebuild it with jfac -P general=...");
}

TEST(AttentionLoad, BadMetadata) {
  std::string dir = makeDir("nometa");
  writeKernel(dir, "attention_fwd_sm90", "sm_90a", "");
  EXPECT_EQ(errorOf([&] { Attention::load(dir); }),
            "cannot read metadata '" + dir +
                "/attention_fwd_sm90_sm_90a.head_dim=128.causal=0.cubin.meta'");
  // A cubin built for the other target under this target's name.
  dir = makeDir("wrongarch");
  writeKernel(dir, "attention_fwd_sm90", "sm_90a",
              contractMetadata("attention_fwd_sm90", "sm_100a"));
  EXPECT_EQ(
      errorOf([&] { Attention::load(dir); }),
      dir +
          "/attention_fwd_sm90_sm_90a.head_dim=128.causal=0.cubin.meta: kernel "
          "'attention_fwd_sm90' is built for sm_100a, expected "
          "sm_90a");
  dir = makeDir("wrongname");
  writeKernel(dir, "attention_fwd_sm100", "sm_100a",
              contractMetadata("gemm", "sm_100a"));
  EXPECT_EQ(errorOf([&] { Attention::load(dir); }),
            dir + "/attention_fwd_sm100_sm_100a.head_dim=128.causal=0.cubin."
                  "meta: no kernel named "
                  "'attention_fwd_sm100'");
  dir = makeDir("garbage");
  writeKernel(dir, "attention_fwd_sm90", "sm_90a", "hello\n");
  EXPECT_ERROR(Attention::load(dir),
               "attention_fwd_sm90_sm_90a.head_dim=128.causal=0.cubin.meta: "
               "not valid JSON");
  // Metadata of jfac before version 2 says how to rebuild.
  dir = makeDir("oldformat");
  writeKernel(dir, "attention_fwd_sm90", "sm_90a",
              "jfa-metadata 1\nkernel attention_fwd_sm90\nthreads 384\nend\n");
  EXPECT_ERROR(Attention::load(dir),
               dir + "/attention_fwd_sm90_sm_90a.head_dim=128.causal=0.cubin."
                     "meta: metadata in the "
                     "old line format ('jfa-metadata 1') of an earlier jfac; "
                     "this runtime reads JSON metadata version 2: rebuild");
  // A missing field names the file and the field.
  dir = makeDir("missingfield");
  std::string m = contractMetadata("attention_fwd_sm90", "sm_90a");
  m.erase(m.find(R"("shared_bytes": 200000, )"),
          std::string(R"("shared_bytes": 200000, )").size());
  writeKernel(dir, "attention_fwd_sm90", "sm_90a", m);
  EXPECT_EQ(errorOf([&] { Attention::load(dir); }),
            dir +
                "/attention_fwd_sm90_sm_90a.head_dim=128.causal=0.cubin.meta: "
                "kernels[0].shared_bytes is missing");
}

// Argument errors come before the driver is touched, so they are the same
// with or without a GPU.
TEST(AttentionForward, ChecksArgumentsFirst) {
  std::string dir = makeDir("forward");
  writeKernel(dir, "attention_fwd_sm90", "sm_90a",
              contractMetadata("attention_fwd_sm90", "sm_90a"));
  Attention attn = Attention::load(dir);
  auto a = goodArgs();
  a.headDim = 96;
  EXPECT_EQ(errorOf([&] { attn.forward(a); }),
            "head_dim 96 is not supported; the kernels take 64 or 128");
  a = goodArgs();
  a.lse = 0;
  EXPECT_EQ(errorOf([&] { attn.forward(a); }), "lse is a null address");
  // Nothing to compute: returns without a device.
  a = goodArgs();
  a.totalTokens = 0;
  a.checkOffsets = true;
  EXPECT_EQ(errorOf([&] { attn.forward(a); }), "");
  // Issue 20's options are checked first too.
  a = goodArgs();
  a.causal = true;
  a.windowRight = 1;
  EXPECT_ERROR(attn.forward(a), "causal and window_right = 1 conflict");
  a = crossArgs();
  a.numKvHeads = 3;
  EXPECT_ERROR(attn.forward(a), "not a multiple of num_kv_heads 3");
  a = crossArgs();
  a.totalTokens = 0;
  a.checkOffsets = true;
  EXPECT_EQ(errorOf([&] { attn.forward(a); }), "");
  // The activation too.
  a = goodArgs();
  a.activation = "tanh";
  EXPECT_ERROR(attn.forward(a), "activation 'tanh' is not supported");
}

TEST(AttentionForward, NoDriverIsAClearError) {
  if (haveDriver())
    GTEST_SKIP() << "a CUDA driver is installed here";
  Attention attn = Attention::embedded();
  EXPECT_ERROR(attn.forward(goodArgs()), "no CUDA driver");
  // GDPA without lse passes every check: the driver is the first thing
  // missing. So does a GDPA call without keys (o = 0 by a driver memset,
  // lse untouched).
  auto a = goodArgs();
  a.activation = "silu";
  a.lse = 0;
  EXPECT_ERROR(attn.forward(a), "no CUDA driver");
  a = crossArgs();
  a.activation = "gelu_tanh";
  a.totalTokensK = a.maxSeqlenK = 0;
  a.k = a.v = a.lse = 0;
  EXPECT_ERROR(attn.forward(a), "no CUDA driver");
}

//===----------------------------------------------------------------------===//
// Embedding
//===----------------------------------------------------------------------===//

/// The number of variants kernels/jagged_attention/<kernel>.mlir declares:
/// the product of the value counts of its `// jfa-variants:` lines (1 when
/// it has none), as runtime/cmake/EmbedAttentionKernels.cmake reads them.
size_t variantCount(const std::string &kernel) {
  std::string path = std::string(JFA_SOURCE_DIR) +
                     "/kernels/jagged_attention/" + kernel + ".mlir";
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  const std::string prefix = "// jfa-variants:";
  size_t product = 1;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(prefix, 0) != 0)
      continue;
    std::istringstream items(line.substr(prefix.size()));
    for (std::string item; items >> item;)
      product *= size_t(std::count(item.begin(), item.end(), ',') + 1);
  }
  return product;
}

TEST(Embedding, EmbeddedKernelsAreConsistent) {
  // Whether they are present depends on how the library was configured; an
  // absent one says why and what to do.
  Attention attn = Attention::embedded();
  for (const char *arch : {"sm_90a", "sm_100a"}) {
    if (attn.hasKernel(arch)) {
      EXPECT_EQ(attn.absentReason(arch), "");
      continue;
    }
    std::string why = attn.absentReason(arch);
    bool notBuilt =
        why.rfind(std::string("this library was built without the ") + arch +
                      " attention kernel",
                  0) == 0;
    bool unusable =
        why.rfind(std::string("this library's embedded ") + arch +
                      " attention kernel (",
                  0) == 0 &&
        why.find(") is unusable; pass a kernel_dir (") != std::string::npos;
    EXPECT_TRUE(notBuilt || unusable) << why;
  }
  // One entry per target and variant of each kernel's `// jfa-variants:`
  // line (head_dim=64,128 causal=0,1 general=0,1: 8 of the forward and of
  // the backward) and per target for the backward's delta, schedule and dq
  // conversion (no variants), each present or saying why not. The expected
  // numbers come from the sources the build read.
  std::map<std::pair<std::string, std::string>, std::set<std::string>> seen;
  for (const detail::EmbeddedKernel *const *e = detail::embeddedKernels; *e;
       ++e) {
    EXPECT_EQ((*e)->cubin == nullptr, (*e)->absentReason != nullptr)
        << (*e)->kernel << " " << (*e)->params;
    auto key =
        std::make_pair(std::string((*e)->kernel), std::string((*e)->arch));
    EXPECT_TRUE(seen[key].insert((*e)->params).second)
        << "twice: " << (*e)->kernel << " " << (*e)->arch << " "
        << (*e)->params;
  }
  // 2 targets, each with its forward and backward and the 3 shared kernels,
  // and sm_90a's D = 64 specialization of the forward.
  EXPECT_EQ(seen.size(), 11u);
  EXPECT_EQ(seen.count({"attention_fwd_sm90_q192", "sm_90a"}), 1u);
  for (const auto &[key, params] : seen) {
    size_t product = variantCount(key.first);
    EXPECT_EQ(params.size(), product) << key.first << " " << key.second;
  }
  // The forwards' and backwards' variants include general (the runtime
  // picks them by it).
  for (const char *arch : {"sm_90a", "sm_100a"})
    for (const char *pass : {"fwd", "bwd"}) {
      std::string kernel = std::string("attention_") + pass + "_" +
                           (arch == std::string("sm_90a") ? "sm90" : "sm100");
      for (const std::string &p :
           seen[std::make_pair(kernel, std::string(arch))])
        EXPECT_NE(p.find("general="), std::string::npos) << kernel << ": " << p;
    }
}

TEST(Embedding, BytesAndMetadataArePreserved) {
  const detail::EmbeddedKernel &k = detail::embedded_fake_ok;
  EXPECT_STREQ(k.kernel, "fake");
  EXPECT_STREQ(k.arch, "sm_90a");
  EXPECT_STREQ(k.params, "head_dim=64,causal=0");
  ASSERT_NE(k.cubin, nullptr);
  ASSERT_EQ(k.cubinSize, 4u + 256u);
  EXPECT_EQ(std::string(reinterpret_cast<const char *>(k.cubin), 4), "\x7f"
                                                                     "ELF");
  for (unsigned i = 0; i < 256; ++i)
    ASSERT_EQ(k.cubin[4 + i], i) << "byte " << 4 + i;
  EXPECT_EQ(reinterpret_cast<uintptr_t>(k.cubin) % 64, 0u);
  EXPECT_STREQ(k.metadata,
               "{\"format\": \"jfa-metadata\", \"version\": 2, \"kernels\": "
               "[{\"name\": \"fake\", \"arch\": \"sm_90a\", \"threads\": 128, "
               "\"cluster\": [1, 1, 1], \"shared_bytes\": 0, \"arguments\": "
               "[]}]}\n");
  KernelInfo info = parseMetadata(k.metadata, "the embedded fake.meta").at(0);
  EXPECT_EQ(info.name, "fake");
  EXPECT_EQ(info.threads, 128u);
  EXPECT_EQ(k.absentReason, nullptr);
}

TEST(Embedding, AKernelThatDoesNotCompileIsAbsent) {
  const detail::EmbeddedKernel &k = detail::embedded_fake_broken;
  EXPECT_EQ(k.cubin, nullptr);
  EXPECT_EQ(k.metadata, nullptr);
  EXPECT_STREQ(k.absentReason, "jfac could not compile broken.mlir for "
                               "sm_90a (head_dim=64,causal=0) when the "
                               "library was built");
}

//===----------------------------------------------------------------------===//
// C API
//===----------------------------------------------------------------------===//

jfa_attention_forward_args goodCArgs() {
  jfa_attention_forward_args c{};
  auto a = goodArgs();
  c.q = a.q;
  c.k = a.k;
  c.v = a.v;
  c.o = a.o;
  c.lse = a.lse;
  c.offsets = a.offsets;
  for (int i = 0; i < 3; ++i)
    c.q_strides[i] = c.k_strides[i] = c.v_strides[i] = c.o_strides[i] =
        a.qStrides[i];
  c.dtype = "bf16";
  c.offsets_dtype = "i32";
  c.total_tokens = a.totalTokens;
  c.num_heads = a.numHeads;
  c.head_dim = a.headDim;
  c.batch = a.batch;
  c.max_seqlen = a.maxSeqlen;
  return c;
}

TEST(AttentionCApi, Create) {
  EXPECT_EQ(jfa_attention_create(nullptr, nullptr), -1);
  EXPECT_STREQ(jfa_last_error(), "jfa_attention_create: out must not be NULL");
  jfa_attention_t attn = nullptr;
  EXPECT_EQ(jfa_attention_create("/nonexistent", &attn), -1);
  EXPECT_EQ(attn, nullptr);
  EXPECT_NE(std::string(jfa_last_error()).find("is not a folder"),
            std::string::npos);
  ASSERT_EQ(jfa_attention_create(nullptr, &attn), 0) << jfa_last_error();
  EXPECT_GE(jfa_attention_has_kernel(attn, "sm_90a"), 0);
  EXPECT_EQ(jfa_attention_has_kernel(attn, "sm_80"), 0);
  EXPECT_EQ(jfa_attention_has_kernel(attn, nullptr), -1);
  jfa_attention_destroy(attn);
  jfa_attention_destroy(nullptr);
}

TEST(AttentionCApi, Forward) {
  jfa_attention_t attn = nullptr;
  ASSERT_EQ(jfa_attention_create(nullptr, &attn), 0) << jfa_last_error();
  jfa_attention_forward_args c = goodCArgs();
  EXPECT_EQ(jfa_attention_forward(nullptr, &c, nullptr), -1);
  EXPECT_STREQ(jfa_last_error(),
               "jfa_attention_forward: attention and args must not be NULL");
  EXPECT_EQ(jfa_attention_forward(attn, nullptr, nullptr), -1);
  c.dtype = nullptr;
  EXPECT_EQ(jfa_attention_forward(attn, &c, nullptr), -1);
  EXPECT_STREQ(jfa_last_error(),
               "dtype is NULL; q, k, v and o must be \"bf16\"");
  c = goodCArgs();
  c.offsets_dtype = nullptr;
  EXPECT_EQ(jfa_attention_forward(attn, &c, nullptr), -1);
  EXPECT_STREQ(jfa_last_error(),
               "offsets_dtype is NULL; offsets must be \"i32\"");
  c = goodCArgs();
  c.dtype = "f32";
  EXPECT_EQ(jfa_attention_forward(attn, &c, nullptr), -1);
  EXPECT_STREQ(jfa_last_error(),
               "dtype 'f32' is not supported; q, k, v and o must be bf16");
  c = goodCArgs();
  c.head_dim = 96;
  EXPECT_EQ(jfa_attention_forward(attn, &c, nullptr), -1);
  EXPECT_STREQ(jfa_last_error(),
               "head_dim 96 is not supported; the kernels take 64 or 128");
  c = goodCArgs();
  c.v_strides[1] = 64;
  EXPECT_EQ(jfa_attention_forward(attn, &c, nullptr), -1);
  EXPECT_STREQ(jfa_last_error(), "v_strides[1] (the head stride) must equal "
                                 "head_dim 128, got 64");
  c = goodCArgs();
  c.softmax_scale = -0.5f;
  EXPECT_EQ(jfa_attention_forward(attn, &c, nullptr), -1);
  EXPECT_NE(std::string(jfa_last_error()).find("softmax_scale"),
            std::string::npos);
  // Nothing to compute.
  c = goodCArgs();
  c.total_tokens = 0;
  c.q = c.k = c.v = c.o = c.lse = c.offsets = 0;
  EXPECT_EQ(jfa_attention_forward(attn, &c, nullptr), 0) << jfa_last_error();
  if (!haveDriver()) {
    c = goodCArgs();
    EXPECT_EQ(jfa_attention_forward(attn, &c, nullptr), -1);
    EXPECT_NE(std::string(jfa_last_error()).find("no CUDA driver"),
              std::string::npos);
  }
  jfa_attention_destroy(attn);
}

TEST(AttentionCApi, ForwardArgsSize) {
  EXPECT_EQ(jfa_attention_forward_args_size(),
            sizeof(jfa_attention_forward_args));
}

TEST(AttentionCApi, ForwardOptionsReachTheRuntime) {
  // Each of issue 20's fields, set wrong, comes back named: the C struct's
  // fields are where the runtime reads them.
  jfa_attention_t attn = nullptr;
  ASSERT_EQ(jfa_attention_create(nullptr, &attn), 0) << jfa_last_error();
  auto cross = [] {
    jfa_attention_forward_args c = goodCArgs();
    c.offsets_k = 0x700000;
    c.total_tokens_k = 1500;
    c.max_seqlen_k = 900;
    c.num_kv_heads = 2;
    c.k_strides[0] = c.v_strides[0] = 2 * 128;
    return c;
  };
  struct Case {
    void (*change)(jfa_attention_forward_args &);
    const char *message;
  };
  for (Case t : {
           Case{[](jfa_attention_forward_args &c) { c.offsets_k += 2; },
                "offsets_k must be 4-byte aligned, got address 0x700002"},
           Case{[](jfa_attention_forward_args &c) { c.max_seqlen_k = 400; },
                "total_tokens_k 1500 is more than batch * max_seqlen_k = "
                "1200: max_seqlen_k must be at least the longest key "
                "sequence"},
           Case{[](jfa_attention_forward_args &c) { c.total_tokens_k = -1; },
                "total_tokens_k must be >= 0, got -1"},
           Case{[](jfa_attention_forward_args &c) { c.num_kv_heads = 3; },
                "num_heads 4 is not a multiple of num_kv_heads 3 "
                "(grouped-query attention: each k/v head serves num_heads / "
                "num_kv_heads q heads)"},
           Case{[](jfa_attention_forward_args &c) { c.k_strides[0] = 128; },
                "k_strides[0] (the token stride) must be at least "
                "num_kv_heads * head_dim = 256, got 128"},
           Case{[](jfa_attention_forward_args &c) {
                  c.use_window = 1;
                  c.window_left = -2;
                },
                "window_left must be -1 (unbounded) or >= 0, got -2"},
           Case{[](jfa_attention_forward_args &c) {
                  c.use_window = 1;
                  c.window_left = -1;
                  c.window_right = -3;
                },
                "window_right must be -1 (unbounded) or >= 0, got -3"},
           Case{[](jfa_attention_forward_args &c) {
                  c.use_window = 1;
                  c.causal = 1;
                  c.window_left = 10;
                  c.window_right = 2;
                },
                "causal and window_right = 2 conflict"},
           Case{[](jfa_attention_forward_args &c) {
                  c.offsets_k = 0;
                  c.num_kv_heads = 0;
                  for (int i = 0; i < 3; ++i)
                    c.k_strides[i] = c.v_strides[i] = c.q_strides[i];
                },
                "total_tokens_k is 1500 but offsets_k is 0"},
       }) {
    jfa_attention_forward_args c = cross();
    t.change(c);
    EXPECT_EQ(jfa_attention_forward(attn, &c, nullptr), -1);
    EXPECT_NE(std::string(jfa_last_error()).find(t.message), std::string::npos)
        << jfa_last_error() << "\nexpected: " << t.message;
  }
  // use_window 0 (a zero-initialized struct): the window fields are not
  // read, so even bad values pass the checks.
  jfa_attention_forward_args c = cross();
  c.window_left = -5;
  c.window_right = -5;
  c.total_tokens = 0; // nothing to compute: returns after the checks
  EXPECT_EQ(jfa_attention_forward(attn, &c, nullptr), 0) << jfa_last_error();
  c.use_window = 1;
  EXPECT_EQ(jfa_attention_forward(attn, &c, nullptr), -1);
  EXPECT_STREQ(jfa_last_error(),
               "window_left must be -1 (unbounded) or >= 0, got -5");
  jfa_attention_destroy(attn);
}

TEST(AttentionCApi, ForwardActivationReachesTheRuntime) {
  jfa_attention_t attn = nullptr;
  ASSERT_EQ(jfa_attention_create(nullptr, &attn), 0) << jfa_last_error();
  // NULL (zero-initialized) is softmax: lse is needed.
  jfa_attention_forward_args c = goodCArgs();
  EXPECT_EQ(c.activation, nullptr);
  c.lse = 0;
  EXPECT_EQ(jfa_attention_forward(attn, &c, nullptr), -1);
  EXPECT_STREQ(jfa_last_error(), "lse is a null address");
  c.activation = "softmax";
  EXPECT_EQ(jfa_attention_forward(attn, &c, nullptr), -1);
  EXPECT_STREQ(jfa_last_error(), "lse is a null address");
  c.activation = "relu";
  EXPECT_EQ(jfa_attention_forward(attn, &c, nullptr), -1);
  EXPECT_STREQ(jfa_last_error(),
               "activation 'relu' is not supported; the kernels take "
               "\"softmax\" (the default; NULL in the C API), or GDPA's "
               "\"silu\" or \"gelu_tanh\"");
  // GDPA needs no lse: every check passes (then the device: none here).
  for (const char *name : {"silu", "gelu_tanh"}) {
    c = goodCArgs();
    c.activation = name;
    c.lse = 0;
    c.total_tokens = 0; // nothing to compute: returns after the checks
    EXPECT_EQ(jfa_attention_forward(attn, &c, nullptr), 0) << jfa_last_error();
    if (!haveDriver()) {
      c.total_tokens = 1000;
      EXPECT_EQ(jfa_attention_forward(attn, &c, nullptr), -1);
      EXPECT_NE(std::string(jfa_last_error()).find("no CUDA driver"),
                std::string::npos)
          << jfa_last_error();
    }
  }
  jfa_attention_destroy(attn);
}

TEST(AttentionCApi, ForwardBlockMaskReachesTheRuntime) {
  jfa_attention_t attn = nullptr;
  ASSERT_EQ(jfa_attention_create(nullptr, &attn), 0) << jfa_last_error();
  jfa_attention_forward_args c = goodCArgs();
  EXPECT_EQ(c.block_mask_bits, 0u);
  EXPECT_EQ(c.block_mask_heads, 0);
  c.block_mask_heads = 2;
  c.block_mask_bits = 0x700000;
  EXPECT_EQ(jfa_attention_forward(attn, &c, nullptr), -1);
  EXPECT_STREQ(jfa_last_error(),
               "block_mask_heads 2 is neither 0 (no block mask), 1 (one mask "
               "for every head) nor num_heads 4 (one mask per q head)");
  c.block_mask_heads = 1;
  c.block_mask_bits = 0x700001;
  EXPECT_EQ(jfa_attention_forward(attn, &c, nullptr), -1);
  EXPECT_STREQ(jfa_last_error(),
               "block_mask_bits must be 4-byte aligned, got address 0x700001");
  jfa_attention_destroy(attn);
}

TEST(AttentionCApi, CheckOffsetsK) {
  int32_t good[] = {0, 0, 7, 7};
  EXPECT_EQ(jfa_check_offsets_k(good, 4, 7, 7), 0) << jfa_last_error();
  int32_t bad[] = {0, 5, 3};
  EXPECT_EQ(jfa_check_offsets_k(bad, 3, 7, 7), -1);
  EXPECT_STREQ(jfa_last_error(), "offsets_k must be non-decreasing: "
                                 "offsets_k[2] = 3 is less than offsets_k[1] "
                                 "= 5");
  EXPECT_EQ(jfa_check_offsets_k(good, 4, 7, 6), -1);
  EXPECT_STREQ(jfa_last_error(), "sequence 1 (offsets_k[2] - offsets_k[1]) "
                                 "has 7 keys, more than max_seqlen_k = 6");
}

} // namespace
