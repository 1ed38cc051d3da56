//===- RuntimeTest.cpp - host-side tests of the JFA runtime
//-----------------===//
#include "jfa/runtime.h"
#include "AttentionTestSupport.h"
#include "jfa/runtime.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <dlfcn.h>
#include <fstream>

using namespace jfa::rt;
using jfa::rt::test::errorOf;

namespace {

// What jfac writes for kernels/examples/scale_ring.mlir (test/jfac/ptxas.test
// checks the same text).
const char *kMetadata = R"({
  "format": "jfa-metadata",
  "version": 2,
  "kernels": [
    {
      "name": "scale_ring",
      "arch": "sm_90a",
      "threads": 256,
      "cluster": [1, 1, 1],
      "shared_bytes": 81968,
      "debug_barriers": false,
      "arguments": [
        {"kind":"tma","element_type":"f32","box":[64,64],"swizzle":0},
        {"kind":"tma","element_type":"f32","box":[64,64],"swizzle":0},
        {"kind":"i32"},
        {"kind":"i32"},
        {"kind":"f32"}
      ]
    }
  ]
}
)";

KernelInfo scaleRing() { return parseMetadata(kMetadata).at(0); }

/// kMetadata with `from` replaced by `to` (which must occur once).
std::string edited(const std::string &from, const std::string &to) {
  std::string text = kMetadata;
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  EXPECT_EQ(text.find(from, at + 1), std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

/// The error parsing `text` as "k.meta" gives ("" if none).
std::string metadataError(const std::string &text);

std::vector<Arg> goodArgs() {
  return {Arg::tensor(0x10000, "f32", {100, 36}),
          Arg::tensor(0x20000, "f32", {100, 36}), Arg::i32(100), Arg::i32(36),
          Arg::f32(2.f)};
}

bool haveDriver() {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib)
    dlclose(lib);
  return lib != nullptr;
}

TEST(Metadata, ParsesWhatJfacWrites) {
  KernelInfo k = scaleRing();
  EXPECT_EQ(k.name, "scale_ring");
  EXPECT_EQ(k.arch, "sm_90a");
  EXPECT_EQ(k.threads, 256u);
  EXPECT_EQ(k.sharedBytes, 81968u);
  ASSERT_EQ(k.params.size(), 5u);
  EXPECT_EQ(k.params[0].kind, ParamKind::TensorMap);
  EXPECT_EQ(k.params[0].elementType, "f32");
  EXPECT_EQ(k.params[0].box, (std::vector<uint32_t>{64, 64}));
  EXPECT_EQ(k.params[2].kind, ParamKind::I32);
  EXPECT_EQ(k.params[4].kind, ParamKind::F32);
}

std::string metadataError(const std::string &text) {
  return errorOf([&] { parseMetadata(text, "k.meta"); });
}

TEST(Metadata, Swizzle) {
  auto k = parseMetadata(edited(R"("box":[64,64],"swizzle":0},
        {"kind":"i32"})",
                                R"("box":[128,64],"swizzle":128},
        {"kind":"i32"})"))
               .at(0);
  EXPECT_EQ(k.params[0].swizzle, 0u);
  EXPECT_EQ(k.params[1].box, (std::vector<uint32_t>{128, 64}));
  EXPECT_EQ(k.params[1].swizzle, 128u);
  EXPECT_EQ(metadataError(edited(R"("swizzle":0},
        {"kind":"i32"})",
                                 R"("swizzle":48},
        {"kind":"i32"})")),
            "k.meta: kernels[0].arguments[1].swizzle: swizzle must be 0 "
            "(none), 32, 64 or 128, got 48");
}

TEST(Metadata, CompileTimeParamsAndVariant) {
  EXPECT_TRUE(scaleRing().compileParams.empty());
  EXPECT_EQ(scaleRing().variant, "");
  KernelInfo k = parseMetadata(edited(R"("debug_barriers": false,)",
                                      R"("debug_barriers": false,
      "params": {"head_dim": 64, "causal": true, "scale": 0.5, "dtype": "bf16"},
      "variant": "d64_causal",)"))
                     .at(0);
  EXPECT_EQ(k.compileParams,
            (std::map<std::string, std::string>{{"causal", "true"},
                                                {"dtype", "bf16"},
                                                {"head_dim", "64"},
                                                {"scale", "0.5"}}));
  EXPECT_EQ(k.variant, "d64_causal");
  EXPECT_EQ(metadataError(edited(R"("debug_barriers": false,)",
                                 R"("params": {"d": [64]},)")),
            "k.meta: kernels[0].params.d: expected a number, a boolean or a "
            "string, got array");
  EXPECT_EQ(
      metadataError(edited(R"("debug_barriers": false,)", R"("variant": 3,)")),
      "k.meta: kernels[0].variant: expected a string, got number 3");
}

// Every error names the file and the field.
TEST(Metadata, Errors) {
  EXPECT_EQ(metadataError(""), "k.meta: the metadata is empty");
  EXPECT_EQ(errorOf([] { parseMetadata(" \n"); }),
            "metadata: the metadata is empty");
  // Truncated.
  std::string text = kMetadata;
  EXPECT_EQ(metadataError(text.substr(0, text.size() / 2))
                .rfind("k.meta: not valid JSON (parse error at line ", 0),
            0u)
      << metadataError(text.substr(0, text.size() / 2));
  EXPECT_EQ(metadataError("hello\n").rfind("k.meta: not valid JSON", 0), 0u);
  EXPECT_EQ(metadataError("[1, 2]"),
            "k.meta: the metadata: expected an object, got array");
  // Another version or format.
  EXPECT_EQ(metadataError(edited(R"("version": 2)", R"("version": 3)")),
            "k.meta: version: metadata version 3 is not supported (this "
            "runtime reads version 2); rebuild the cubin with the jfac that "
            "matches this runtime");
  EXPECT_EQ(metadataError(edited(R"("version": 2)", R"("version": "2")"))
                .rfind("k.meta: version: metadata version \"2\" is not", 0),
            0u);
  EXPECT_EQ(metadataError(edited(R"("version": 2,)", "")),
            "k.meta: version is missing");
  EXPECT_EQ(metadataError(edited(R"("jfa-metadata")", R"("tvm")")),
            "k.meta: format: expected \"jfa-metadata\", got \"tvm\"");
  // Missing and ill-typed fields.
  EXPECT_EQ(metadataError(edited(R"("threads": 256,)", "")),
            "k.meta: kernels[0].threads is missing");
  EXPECT_EQ(metadataError(edited(R"("threads": 256)", R"("threads": "256")")),
            "k.meta: kernels[0].threads: expected a non-negative integer, got "
            "string \"256\"");
  EXPECT_EQ(metadataError(edited(R"("threads": 256)", R"("threads": -1)")),
            "k.meta: kernels[0].threads: expected a non-negative integer, got "
            "number -1");
  EXPECT_EQ(metadataError(edited(R"("threads": 256)", R"("threads": 0)")),
            "k.meta: kernels[0].threads: threads must be in [1, 1024], got 0");
  EXPECT_EQ(metadataError(edited(R"("threads": 256)", R"("threads": 2.5)")),
            "k.meta: kernels[0].threads: expected a non-negative integer, got "
            "number 2.5");
  EXPECT_EQ(metadataError(edited("[1, 1, 1]", "[1, 1]")),
            "k.meta: kernels[0].cluster: expected 3 dimensions, got 2");
  EXPECT_EQ(metadataError(edited(R"("name": "scale_ring")", R"("name": null)")),
            "k.meta: kernels[0].name: expected a string, got null");
  EXPECT_EQ(metadataError(
                edited(R"("debug_barriers": false)", R"("debug_barriers": 1)")),
            "k.meta: kernels[0].debug_barriers: expected true or false, got "
            "number 1");
  EXPECT_EQ(metadataError(edited(R"({"kind":"f32"})", R"({"kind":"q7"})")),
            "k.meta: kernels[0].arguments[4].kind: unknown parameter kind "
            "\"q7\" (known: tma, ptr, i32, i64, f32, f64)");
  EXPECT_EQ(metadataError(edited(R"({"kind":"f32"})", R"({"type":"f32"})")),
            "k.meta: kernels[0].arguments[4].kind is missing");
  EXPECT_EQ(metadataError(edited(R"({"kind":"f32"})", R"({"kind":"ptr"})")),
            "k.meta: kernels[0].arguments[4].element_type is missing");
  EXPECT_EQ(metadataError(edited(R"({"kind":"f32"})",
                                 R"({"kind":"ptr","element_type":"q7"})")),
            "k.meta: kernels[0].arguments[4].element_type: unknown element "
            "type \"q7\"");
  EXPECT_EQ(metadataError(edited(R"("box":[64,64],"swizzle":0},
        {"kind":"i32"})",
                                 R"("box":[64,0],"swizzle":0},
        {"kind":"i32"})")),
            "k.meta: kernels[0].arguments[1].box[1]: a TMA box dimension is in "
            "[1, 256], got 0");
  EXPECT_EQ(metadataError(edited(R"("box":[64,64],"swizzle":0},
        {"kind":"i32"})",
                                 R"("box":[],"swizzle":0},
        {"kind":"i32"})")),
            "k.meta: kernels[0].arguments[1].box: a TMA box has 1 to 5 "
            "dimensions, got 0");
  EXPECT_EQ(metadataError(edited(R"("box":[64,64],"swizzle":0},
        {"kind":"i32"})",
                                 R"("swizzle":0},
        {"kind":"i32"})")),
            "k.meta: kernels[0].arguments[1].box is missing");
  EXPECT_EQ(
      metadataError(edited(R"({"kind":"i32"},
        {"kind":"f32"})",
                           R"({"kind":"i32"},
        7)")),
      "k.meta: kernels[0].arguments[4]: expected an object, got number 7");
}

// The line format of jfac before version 2 is refused with what to do.
TEST(Metadata, OldLineFormatSaysHowToRebuild) {
  std::string old = "jfa-metadata 1\nkernel scale_ring\narch sm_90a\n"
                    "threads 256\nparam i32\nend\n";
  EXPECT_EQ(metadataError(old),
            "k.meta: metadata in the old line format ('jfa-metadata 1') of an "
            "earlier jfac; this runtime reads JSON metadata version 2: rebuild "
            "the cubin with this jfac (`jfac compile <kernel.mlir> -o <cubin>` "
            "writes <cubin>.meta beside it)");
  std::string dir = testing::TempDir();
  std::string cubin = dir + "/jfa_old.cubin";
  std::ofstream(cubin) << "\x7f"
                          "ELF fake";
  std::ofstream(cubin + ".meta") << old;
  EXPECT_EQ(errorOf([&] {
              Module::loadFile(cubin);
            }).rfind(cubin + ".meta: metadata in the old line format", 0),
            0u);
  std::remove(cubin.c_str());
  std::remove((cubin + ".meta").c_str());
}

TEST(Version, CAndCxxAgree) {
  std::string v = jfa_runtime_version();
  EXPECT_EQ(v, version());
  // MAJOR.MINOR.PATCH
  EXPECT_EQ(std::count(v.begin(), v.end(), '.'), 2) << v;
  EXPECT_TRUE(!v.empty() && std::isdigit(static_cast<unsigned char>(v[0])))
      << v;
}

TEST(ValidateArgs, AcceptsGoodArguments) {
  EXPECT_EQ(errorOf([] { validateArgs(scaleRing(), goodArgs()); }), "");
}

TEST(ValidateArgs, WrongCount) {
  auto args = goodArgs();
  args.pop_back();
  EXPECT_EQ(errorOf([&] { validateArgs(scaleRing(), args); }),
            "kernel 'scale_ring' takes 5 arguments, got 4");
}

TEST(ValidateArgs, WrongKind) {
  auto args = goodArgs();
  args[2] = Arg::f32(1.f);
  EXPECT_EQ(errorOf([&] { validateArgs(scaleRing(), args); }),
            "argument 2 of 'scale_ring' must be i32, got f32");
}

TEST(ValidateArgs, NamesTheArgumentWhenTheMetadataDoes) {
  // jfac records each parameter's name ("name": "rows" for %rows).
  KernelInfo k = parseMetadata(edited(R"({"kind":"f32"})",
                                      R"({"kind":"f32","name":"alpha"})"))
                     .at(0);
  EXPECT_EQ(k.params[4].name, "alpha");
  EXPECT_EQ(k.params[0].name, "");
  auto args = goodArgs();
  args[4] = Arg::i32(2);
  EXPECT_EQ(errorOf([&] { validateArgs(k, args); }),
            "argument 4 (%alpha) of 'scale_ring' must be f32, got i32");
  EXPECT_EQ(
      metadataError(edited(R"({"kind":"f32"})", R"({"kind":"f32","name":7})")),
      "k.meta: kernels[0].arguments[4].name: expected a string, got "
      "number 7");
}

TEST(ValidateArgs, TensorChecks) {
  auto args = goodArgs();
  args[0].data = 0x10004;
  EXPECT_EQ(errorOf([&] { validateArgs(scaleRing(), args); }),
            "argument 0 of 'scale_ring': TMA needs a 16-byte aligned address, "
            "got 0x10004");
  args = goodArgs();
  args[1].elementType = "bf16";
  EXPECT_NE(
      errorOf([&] {
        validateArgs(scaleRing(), args);
      }).find("tensor of bf16, but the kernel's TMA descriptor is for f32"),
      std::string::npos);
  args = goodArgs();
  args[0].shape = {100, 36, 2};
  EXPECT_NE(errorOf([&] {
              validateArgs(scaleRing(), args);
            }).find("rank 3, but the TMA box has rank 2"),
            std::string::npos);
  args = goodArgs();
  args[0].shape = {100, 35}; // 140-byte rows
  EXPECT_NE(errorOf([&] {
              validateArgs(scaleRing(), args);
            }).find("multiples of 16 bytes; dimension 0 has a stride of 140"),
            std::string::npos);
  args = goodArgs();
  args[0].strides = {64, 2};
  EXPECT_NE(errorOf([&] {
              validateArgs(scaleRing(), args);
            }).find("innermost dimension must be contiguous"),
            std::string::npos);
  args = goodArgs();
  args[0].shape = {0, 36};
  EXPECT_NE(errorOf([&] {
              validateArgs(scaleRing(), args);
            }).find("dimensions must be in [1, 2^32], got 0"),
            std::string::npos);
  args = goodArgs();
  args[0].data = 0;
  EXPECT_NE(errorOf([&] {
              validateArgs(scaleRing(), args);
            }).find("null tensor address"),
            std::string::npos);
}

TEST(Module, MissingFiles) {
  EXPECT_EQ(errorOf([] { Module::loadFile("/nonexistent/k.cubin"); }),
            "cannot read cubin '/nonexistent/k.cubin'");
  std::string cubin = testing::TempDir() + "/jfa_fake.cubin";
  std::ofstream(cubin) << "\x7f"
                          "ELF fake";
  EXPECT_EQ(errorOf([&] { Module::loadFile(cubin); }),
            "cannot read metadata '" + cubin + ".meta'");
  std::remove(cubin.c_str());
}

TEST(Module, RejectsNonCubins) {
  std::string junk = "not an elf file";
  EXPECT_EQ(
      errorOf([&] { Module::loadData(junk.data(), junk.size(), kMetadata); }),
      "not a cubin (no ELF header)");
}

TEST(Module, NoDriverIsAClearError) {
  if (haveDriver())
    GTEST_SKIP() << "a CUDA driver is installed here";
  std::string cubin = "\x7f"
                      "ELF";
  EXPECT_NE(errorOf([&] {
              Module::loadData(cubin.data(), cubin.size(), kMetadata);
            }).find("no CUDA driver"),
            std::string::npos);
  EXPECT_NE(errorOf([] { deviceAlloc(16); }).find("no CUDA driver"),
            std::string::npos);
}

TEST(Metadata, DebugBarriers) {
  EXPECT_FALSE(scaleRing().debugBarriers);
  EXPECT_TRUE(parseMetadata(edited(R"("debug_barriers": false)",
                                   R"("debug_barriers": true)"))
                  .at(0)
                  .debugBarriers);
  // Absent: false.
  EXPECT_FALSE(parseMetadata(edited(R"("debug_barriers": false,)", ""))
                   .at(0)
                   .debugBarriers);
}

// What a kernel built with --debug-barriers that traps turns into; the
// formatting needs no GPU.
TEST(DebugBarriers, TrapMessage) {
  std::string message = barrierTrapMessage(
      "broken_phase", "kernel execution failed",
      "an illegal instruction was encountered (CUresult 715)");
  // What failed and why, as for any other error.
  EXPECT_EQ(message.rfind("kernel execution failed: an illegal instruction "
                          "was encountered (CUresult 715). ",
                          0),
            0u)
      << message;
  // That the kernel trapped in a barrier wait.
  EXPECT_NE(message.find("'broken_phase' was built with "
                         "--debug-barriers"),
            std::string::npos);
  EXPECT_NE(message.find("barrier wait that timed out and trapped"),
            std::string::npos);
  // Where to look: the line the device printed (its exact start).
  EXPECT_NE(message.find("on standard output, in a line starting with 'jfa: "
                         "kernel broken_phase: barrier wait at'"),
            std::string::npos)
      << message;
  // That nothing more can be done with the context.
  EXPECT_NE(message.find("The CUDA context is now unusable"),
            std::string::npos);
}

TEST(CApi, ReportsErrors) {
  jfa_module_t module = nullptr;
  EXPECT_EQ(jfa_module_load_file("/nonexistent.cubin", nullptr, &module), -1);
  EXPECT_STREQ(jfa_last_error(), "cannot read cubin '/nonexistent.cubin'");
  EXPECT_EQ(jfa_module_load_file(nullptr, nullptr, &module), -1);
  EXPECT_NE(std::string(jfa_last_error()).find("must not be NULL"),
            std::string::npos);
  EXPECT_EQ(jfa_launch(nullptr, "k", 1, 1, 1, nullptr, 0, nullptr), -1);
  EXPECT_NE(std::string(jfa_last_error()).find("must not be NULL"),
            std::string::npos);
}

} // namespace
