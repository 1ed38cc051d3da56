//===- row_softmax_test.cpp - run kernels/examples/row_softmax on a GPU
//-----===//
//
//   row_softmax_test <row_softmax.cubin>
//
// Checks row max/sum reductions, row broadcasts and iota masks in the wgmma
// register layout: fresh random x each case, y poisoned with NaN, compared
// with a float64 softmax on the CPU (masked entries must be exactly 0); the
// log-sum-exp row vector (jfa.store_rows) likewise, and the rows past the
// end must stay unwritten (poison kept).
//
//===----------------------------------------------------------------------===//
#include "jfa/runtime.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

using namespace jfa::rt;

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <row_softmax.cubin>\n", argv[0]);
    return 2;
  }
  int failures = 0;
  try {
    Module m = Module::loadFile(argv[1]);
    std::mt19937 rng(std::random_device{}());
    struct Case {
      uint32_t rows;
      int cols, diag;
    };
    const Case cases[] = {{64, 64, 1000}, {100, 37, 1000}, {256, 64, 0},
                          {1, 1, 0},      {130, 64, 5},    {4096, 50, 0}};
    for (const Case &c : cases) {
      const uint32_t width = 64;
      size_t n = size_t(c.rows) * width;
      std::vector<float> x(n), y(n);
      std::normal_distribution<float> dist(0.f, 3.f);
      for (float &v : x)
        v = dist(rng);
      // lse has room for every row of the last tile and one more tile: what
      // lies past `rows` must keep its poison.
      size_t lseSize = (c.rows + 63) / 64 * 64 + 64;
      std::vector<float> lse(lseSize);
      CUdeviceptr dx = deviceAlloc(n * 4), dy = deviceAlloc(n * 4),
                  dlse = deviceAlloc(lseSize * 4);
      copyToDevice(dx, x.data(), n * 4);
      deviceMemset(dy, 0xff, n * 4);
      deviceMemset(dlse, 0xff, lseSize * 4);
      m.launch("row_softmax", {(c.rows + 63) / 64, 1, 1},
               {Arg::tensor(dx, "f32", {c.rows, width}),
                Arg::tensor(dy, "f32", {c.rows, width}), Arg::pointer(dlse),
                Arg::i32(int32_t(c.rows)), Arg::i32(c.cols), Arg::i32(c.diag)});
      synchronize();
      copyToHost(y.data(), dy, n * 4);
      copyToHost(lse.data(), dlse, lseSize * 4);
      double worst = 0, worstLse = 0;
      size_t bad = 0, badLse = 0;
      for (uint32_t r = 0; r < c.rows; ++r) {
        int last = std::min<int>(c.cols, int(r) + c.diag + 1); // columns kept
        double mx = -INFINITY, sum = 0;
        for (int k = 0; k < last; ++k)
          mx = std::max(mx, double(x[r * width + k]));
        for (int k = 0; k < last; ++k)
          sum += std::exp(double(x[r * width + k]) - mx);
        double lseErr = std::fabs(double(lse[r]) - (mx + std::log(sum)));
        if (!(lseErr <= 1e-5 * std::max(1.0, std::fabs(mx))))
          ++badLse;
        worstLse = std::max(worstLse, std::isnan(lse[r]) ? INFINITY : lseErr);
        for (uint32_t k = 0; k < width; ++k) {
          double want = int(k) < last
                            ? std::exp(double(x[r * width + k]) - mx) / sum
                            : 0.0;
          double got = y[r * width + k];
          double err = std::fabs(got - want);
          if (!(err <= 1e-5) || (int(k) >= last && got != 0.0))
            ++bad;
          worst = std::max(worst, std::isnan(got) ? INFINITY : err);
        }
      }
      size_t clobbered = 0; // lse written past the last row
      for (size_t r = c.rows; r < lseSize; ++r) {
        uint32_t bits;
        std::memcpy(&bits, &lse[r], 4);
        clobbered += bits != 0xffffffffu;
      }
      bool ok = bad == 0 && badLse == 0 && clobbered == 0;
      std::printf("%s rows=%u cols=%d diag=%d: %zu/%zu wrong, max abs err "
                  "%.2e; lse %zu/%u wrong, max abs err %.2e, %zu written "
                  "past the end\n",
                  ok ? "ok  " : "FAIL", c.rows, c.cols, c.diag, bad, n, worst,
                  badLse, c.rows, worstLse, clobbered);
      failures += !ok;
      deviceFree(dx);
      deviceFree(dy);
      deviceFree(dlse);
    }
  } catch (const Error &e) {
    std::printf("FAIL: %s\n", e.what());
    return 1;
  }
  std::printf("%s: %d failures\n", failures ? "FAILED" : "PASSED", failures);
  return failures ? 1 : 0;
}
