// The runtime's host time per attention call (bench/host_time/run.sh):
// jfa_attention_backward and jfa_attention_forward through the C API, timed
// over many calls against the do-nothing driver of fake_libcuda.c. The
// device addresses are made up (the fake driver never touches them).
#include <jfa/attention.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

template <typename Call> static double microsPerCall(int calls, Call call) {
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i)
    call();
  auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::micro>(t1 - t0).count() / calls;
}

int main(int argc, char **argv) {
  int calls = argc > 1 ? std::atoi(argv[1]) : 20000;
  jfa_attention_t att;
  if (jfa_attention_create(nullptr, &att)) {
    std::printf("create: %s\n", jfa_last_error());
    return 1;
  }
  // The bench's eq1k shape: 32 sequences of 1024 tokens, H = 16, D = 128.
  const int64_t T = 32768, H = 16, D = 128, B = 32, S = 1024;
  const int64_t strides[3] = {H * D, D, 1};
  auto address = [](int i) { return CUdeviceptr(0x100000000ull * (i + 1)); };

  jfa_attention_backward_args b;
  std::memset(&b, 0, sizeof b);
  b.dout = address(0), b.q = address(1), b.k = address(2), b.v = address(3);
  b.o = address(4), b.lse = address(5), b.offsets = address(6);
  b.dq = address(7), b.dk = address(8), b.dv = address(9);
  for (int64_t *s : {b.dout_strides, b.q_strides, b.k_strides, b.v_strides,
                     b.o_strides, b.dq_strides, b.dk_strides, b.dv_strides})
    std::memcpy(s, strides, sizeof strides);
  b.dtype = "bf16", b.offsets_dtype = "i32";
  b.total_tokens = T, b.num_heads = H, b.head_dim = D, b.batch = B;
  b.max_seqlen = S, b.causal = 1, b.softmax_scale = 0.088f;
  size_t workspace = 0;
  if (jfa_attention_backward_workspace_size(&b, &workspace)) {
    std::printf("workspace: %s\n", jfa_last_error());
    return 1;
  }
  b.workspace = address(10), b.workspace_bytes = workspace;

  jfa_attention_forward_args f;
  std::memset(&f, 0, sizeof f);
  f.q = address(1), f.k = address(2), f.v = address(3), f.o = address(4);
  f.lse = address(5), f.offsets = address(6);
  for (int64_t *s : {f.q_strides, f.k_strides, f.v_strides, f.o_strides})
    std::memcpy(s, strides, sizeof strides);
  f.dtype = "bf16", f.offsets_dtype = "i32";
  f.total_tokens = T, f.num_heads = H, f.head_dim = D, f.batch = B;
  f.max_seqlen = S, f.causal = 1, f.softmax_scale = 0.088f;

  // Warm-up (loads the modules once), then timed.
  for (int i = 0; i < 100; ++i)
    if (jfa_attention_backward(att, &b, nullptr) ||
        jfa_attention_forward(att, &f, nullptr)) {
      std::printf("call: %s\n", jfa_last_error());
      return 1;
    }
  double bwd = microsPerCall(calls, [&] { jfa_attention_backward(att, &b, nullptr); });
  double fwd = microsPerCall(calls, [&] { jfa_attention_forward(att, &f, nullptr); });
  std::printf("backward: %.2f us/call, forward: %.2f us/call (the runtime's host "
              "work, %d calls each, driver excluded)\n", bwd, fwd, calls);
  jfa_attention_destroy(att);
  return 0;
}
