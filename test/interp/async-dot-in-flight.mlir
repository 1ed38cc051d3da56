// The accumulator of a jfa.async_dot is read (scaled) before an
// jfa.async_dot_wait has completed the product.
// RUN: %python %S/Inputs/make_npy.py %t.a.npy u2 64x64
// RUN: not jfa-interp %s --arch sm_90a %t.a.npy 2>&1 | FileCheck %s

jfa.kernel @in_flight(%a: !jfa.tma<64x64xbf16, swizzle 128>) warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  jfa.barrier_expect %b, bytes(8192)
  jfa.tma_load %a[%c0, %c0], %s, %b : !jfa.tma<64x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128>
  jfa.barrier_wait %b, %c0
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  // CHECK: async-dot-in-flight.mlir:[[@LINE+4]]:10: error: reads the accumulator of a jfa.async_dot that is still in flight
  // CHECK: async-dot-in-flight.mlir:[[@LINE+1]]:8: note: the jfa.async_dot
  %d = jfa.async_dot %s, %s, %zero : !jfa.slot<64x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128>, tensor<64x64xf32, #jfa.wgmma_acc>
  %two = arith.constant dense<2.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  %bad = arith.mulf %d, %two : tensor<64x64xf32, #jfa.wgmma_acc>
  %done = jfa.async_dot_wait pending(0) (%d) : tensor<64x64xf32, #jfa.wgmma_acc>
}
