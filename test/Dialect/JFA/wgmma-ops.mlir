// RUN: jfa-opt %s | FileCheck %s
// RUN: jfa-opt %s | jfa-opt | FileCheck %s
// Swizzled buffers, the wgmma accumulator layout and the tensor-core ops.

// CHECK-LABEL: jfa.kernel @dot(
// CHECK-SAME: !jfa.tma<128x64xbf16, swizzle 128>
jfa.kernel @dot(%d: !jfa.tma<128x64xbf16, swizzle 128>) warps(8) {
  // CHECK: jfa.local_alloc : !jfa.smem<2 x 128x64xbf16, swizzle 128>
  %a = jfa.local_alloc : !jfa.smem<2 x 128x64xbf16, swizzle 128>
  // CHECK: jfa.local_alloc : !jfa.smem<1 x 64x32xf16, swizzle 64>
  %b = jfa.local_alloc : !jfa.smem<1 x 64x32xf16, swizzle 64>
  // CHECK: jfa.local_alloc : !jfa.smem<1 x 16x16xbf16, swizzle 32>
  %c = jfa.local_alloc : !jfa.smem<1 x 16x16xbf16, swizzle 32>
  %c0 = arith.constant 0 : i32
  // CHECK: jfa.slot %{{.*}}[%{{.*}}] : !jfa.smem<2 x 128x64xbf16, swizzle 128>, i32
  %sa = jfa.slot %a[%c0] : !jfa.smem<2 x 128x64xbf16, swizzle 128>, i32
  // CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #jfa.wgmma_acc>
  %z = arith.constant dense<0.0> : tensor<128x128xf32, #jfa.wgmma_acc>
  // CHECK: %[[D:.*]] = jfa.async_dot %{{.*}}, %{{.*}}, %[[Z]] : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, tensor<128x128xf32, #jfa.wgmma_acc>
  %dd = jfa.async_dot %sa, %sa, %z : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, tensor<128x128xf32, #jfa.wgmma_acc>
  // CHECK: %{{.*}}:2 = jfa.async_dot_wait pending(1) (%[[D]], %[[Z]]) : tensor<128x128xf32, #jfa.wgmma_acc>, tensor<128x128xf32, #jfa.wgmma_acc>
  %w:2 = jfa.async_dot_wait pending(1) (%dd, %z) : tensor<128x128xf32, #jfa.wgmma_acc>, tensor<128x128xf32, #jfa.wgmma_acc>
  // CHECK: jfa.async_dot_wait pending(0)
  jfa.async_dot_wait pending(0)
  %t = jfa.thread_id
  %v = arith.constant dense<0.0> : vector<64xf32>
  // CHECK: jfa.warpgroup_dot %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, vector<64xf32>
  %r = jfa.warpgroup_dot %sa, %sa, %v, %t : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, vector<64xf32>
  // CHECK: jfa.load_fragment %{{.*}}, %{{.*}} threads(256) layout(#jfa.wgmma_acc) : !jfa.slot<128x64xbf16, swizzle 128> -> vector<32xbf16>
  %f = jfa.load_fragment %sa, %t threads(256) layout(#jfa.wgmma_acc) : !jfa.slot<128x64xbf16, swizzle 128> -> vector<32xbf16>
}
