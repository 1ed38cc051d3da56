//===- RuntimeTest.cpp - host-side tests of the JFA runtime
//-----------------===//
#include "jfa/runtime.h"
#include "jfa/runtime.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <dlfcn.h>
#include <fstream>

using namespace jfa::rt;

namespace {

const char *kMetadata = R"(jfa-metadata 1
kernel scale_ring
arch sm_90a
threads 256
cluster 1 1 1
shared_bytes 81968
param tma f32 64 64
param tma f32 64 64
param i32
param i32
param f32
end
)";

KernelInfo scaleRing() { return parseMetadata(kMetadata).at(0); }

std::vector<Arg> goodArgs() {
  return {Arg::tensor(0x10000, "f32", {100, 36}),
          Arg::tensor(0x20000, "f32", {100, 36}), Arg::i32(100), Arg::i32(36),
          Arg::f32(2.f)};
}

/// The message of the Error `f` throws ("" if none).
template <typename F> std::string errorOf(F &&f) {
  try {
    f();
  } catch (const Error &e) {
    return e.what();
  }
  return "";
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

TEST(Metadata, Swizzle) {
  auto k =
      parseMetadata("jfa-metadata 1\nkernel g\nthreads 384\nparam tma "
                    "bf16 128 64 swizzle 128\nparam tma bf16 128 256\nend\n")
          .at(0);
  EXPECT_EQ(k.params[0].box, (std::vector<uint32_t>{128, 64}));
  EXPECT_EQ(k.params[0].swizzle, 128u);
  EXPECT_EQ(k.params[1].swizzle, 0u);
  EXPECT_EQ(errorOf([] {
              parseMetadata("jfa-metadata 1\nkernel g\nthreads 32\nparam tma "
                            "bf16 8 64 swizzle 48\nend\n");
            }),
            "metadata line 4: swizzle must be 32, 64 or 128");
}

TEST(Metadata, ErrorsNameTheLine) {
  EXPECT_EQ(errorOf([] { parseMetadata(""); }), "metadata is empty");
  EXPECT_NE(errorOf([] { parseMetadata("hello\n"); }).find("line 1"),
            std::string::npos);
  EXPECT_EQ(errorOf([] {
              parseMetadata("jfa-metadata 1\nkernel k\nthreads 0\nend\n");
            }),
            "metadata line 3: threads must be in [1, 1024]");
  EXPECT_EQ(errorOf([] {
              parseMetadata("jfa-metadata 1\nkernel k\nthreads 32\nparam tma "
                            "q7 64\nend\n");
            }),
            "metadata line 4: unknown element type 'q7'");
  EXPECT_EQ(errorOf([] {
              parseMetadata("jfa-metadata 1\nkernel k\nthreads x\nend\n");
            }),
            "metadata line 3: bad thread count 'x'");
  EXPECT_EQ(errorOf([] { parseMetadata("jfa-metadata 1\nkernel k\n"); }),
            "metadata ends inside kernel 'k'");
  EXPECT_EQ(errorOf([] { parseMetadata("jfa-metadata 1\nthreads 3\n"); }),
            "metadata line 2: 'threads' outside a kernel record");
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
  std::string text = kMetadata;
  text.insert(text.rfind("end\n"), "debug_barriers\n");
  EXPECT_TRUE(parseMetadata(text).at(0).debugBarriers);
}

// What a kernel built with --debug-barriers that traps turns into; the
// formatting needs no GPU.
TEST(DebugBarriers, TrapMessage) {
  std::string message = barrierTrapMessage(
      "broken_phase_sm90", "kernel execution failed",
      "an illegal instruction was encountered (CUresult 715)");
  // What failed and why, as for any other error.
  EXPECT_EQ(message.rfind("kernel execution failed: an illegal instruction "
                          "was encountered (CUresult 715). ",
                          0),
            0u)
      << message;
  // That the kernel trapped in a barrier wait.
  EXPECT_NE(message.find("'broken_phase_sm90' was built with "
                         "--debug-barriers"),
            std::string::npos);
  EXPECT_NE(message.find("barrier wait that timed out and trapped"),
            std::string::npos);
  // Where to look: the line the device printed (its exact start).
  EXPECT_NE(message.find("on standard output, in a line starting with 'jfa: "
                         "kernel broken_phase_sm90: barrier wait at'"),
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
