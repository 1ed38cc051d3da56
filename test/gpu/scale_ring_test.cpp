//===- scale_ring_test.cpp - run kernels/examples/scale_ring on a GPU
//-------===//
//
//   scale_ring_test <scale_ring.cubin> [<sm_100a cubin to check is refused>]
//
// For several shapes (tile multiples and not) and grid sizes, fills x with
// fresh random values, poisons y with NaNs, runs y = alpha * x and compares
// every element with the CPU result. Exits non-zero on any mismatch or error.
// Uses the JFA runtime only (no CUDA runtime, no MLIR).
//
//===----------------------------------------------------------------------===//
#include "jfa/runtime.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

using namespace jfa::rt;

namespace {
int failures = 0;

void expectError(const char *what, const std::function<void()> &f,
                 const char *needle) {
  try {
    f();
    std::printf("FAIL %s: no error\n", what);
    ++failures;
  } catch (const Error &e) {
    bool ok = std::strstr(e.what(), needle) != nullptr;
    std::printf("%s %s: %s\n", ok ? "ok  " : "FAIL", what, e.what());
    failures += !ok;
  }
}

bool runCase(const Module &m, uint32_t rows, uint32_t cols, unsigned grid,
             std::mt19937 &rng) {
  size_t n = size_t(rows) * cols;
  std::vector<float> x(n), y(n);
  std::uniform_real_distribution<float> dist(-4.f, 4.f);
  for (float &v : x)
    v = dist(rng);
  float alpha = std::uniform_real_distribution<float>(0.5f, 3.f)(rng);

  CUdeviceptr dx = deviceAlloc(n * 4), dy = deviceAlloc(n * 4);
  copyToDevice(dx, x.data(), n * 4);
  deviceMemset(dy, 0xff, n * 4); // NaN everywhere: unwritten outputs show
  std::vector<Arg> args = {Arg::tensor(dx, "f32", {rows, cols}),
                           Arg::tensor(dy, "f32", {rows, cols}),
                           Arg::i32(int32_t(rows)), Arg::i32(int32_t(cols)),
                           Arg::f32(alpha)};
  m.launch("scale_ring", {grid, 1, 1}, args);
  synchronize();
  copyToHost(y.data(), dy, n * 4);

  size_t bad = 0, firstBad = 0;
  for (size_t i = 0; i < n; ++i) {
    float want = alpha * x[i];
    if (!(y[i] == want)) {
      if (bad++ == 0)
        firstBad = i;
    }
  }
  double seconds = 0;
  if (bad == 0 && n >= (1u << 22)) {
    for (int i = 0; i < 3; ++i)
      m.launch("scale_ring", {grid, 1, 1}, args);
    synchronize();
    const int reps = 20;
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; ++i)
      m.launch("scale_ring", {grid, 1, 1}, args);
    synchronize();
    seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
            .count() /
        reps;
  }
  std::printf("%s rows=%u cols=%u grid=%u: %zu/%zu wrong",
              bad ? "FAIL" : "ok  ", rows, cols, grid, bad, n);
  if (bad)
    std::printf(" (first at %zu: got %g want %g)", firstBad, y[firstBad],
                alpha * x[firstBad]);
  if (seconds > 0)
    std::printf("  %.1f us, %.0f GB/s (read+write)", seconds * 1e6,
                2.0 * n * 4 / seconds / 1e9);
  std::printf("\n");
  deviceFree(dx);
  deviceFree(dy);
  return bad == 0;
}
} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <scale_ring.cubin> [<sm_100a cubin>]\n",
                 argv[0]);
    return 2;
  }
  try {
    Module m = Module::loadFile(argv[1]);
    std::random_device seed;
    std::mt19937 rng(seed());
    struct Case {
      uint32_t rows, cols;
      unsigned grid;
    };
    const Case cases[] = {
        {64, 64, 1},       {1, 4, 1},         {63, 60, 2},
        {65, 68, 3},       {100, 36, 1},      {1000, 1028, 7},
        {129, 4, 132},     {4096, 4096, 132}, {4097, 4100, 132},
        {8192, 8192, 132}, {3000, 2000, 1},   {8192, 8192, 264},
    };
    for (const Case &c : cases)
      failures += !runCase(m, c.rows, c.cols, c.grid, rng);

    // Bad launches are refused with a message, before reaching the GPU.
    CUdeviceptr d = deviceAlloc(1 << 20);
    expectError(
        "wrong argument count",
        [&] {
          m.launch("scale_ring", {1, 1, 1}, {Arg::i32(1)});
        },
        "takes 5 arguments");
    expectError(
        "misaligned TMA tensor",
        [&] {
          m.launch("scale_ring", {1, 1, 1},
                   {Arg::tensor(d + 4, "f32", {64, 64}),
                    Arg::tensor(d, "f32", {64, 64}), Arg::i32(64), Arg::i32(64),
                    Arg::f32(1)});
        },
        "16-byte aligned");
    expectError(
        "wrong element type",
        [&] {
          m.launch("scale_ring", {1, 1, 1},
                   {Arg::tensor(d, "bf16", {64, 64}),
                    Arg::tensor(d, "f32", {64, 64}), Arg::i32(64), Arg::i32(64),
                    Arg::f32(1)});
        },
        "bf16");
    expectError(
        "unknown kernel",
        [&] {
          m.launch("nope", {1, 1, 1}, {});
        },
        "no kernel named");
    deviceFree(d);
    if (argc > 2)
      expectError(
          "sm_100a cubin on this GPU", [&] { Module::loadFile(argv[2]); },
          "cannot load the cubin");
  } catch (const Error &e) {
    std::printf("FAIL: %s\n", e.what());
    return 1;
  }
  std::printf("%s: %d failures\n", failures ? "FAILED" : "PASSED", failures);
  return failures ? 1 : 0;
}
