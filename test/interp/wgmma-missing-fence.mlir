// Threads store an operand tile to shared memory and wgmma reads it with no
// jfa.fence_async_shared in between (the tensor cores read through the
// async proxy).
// RUN: not jfa-interp %s --arch sm_90a 2>&1 | FileCheck %s

jfa.kernel @wgmma_fence() warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  %ones = arith.constant dense<1.0> : tensor<64x64xbf16>
  jfa.local_store %ones, %s : tensor<64x64xbf16> -> !jfa.slot<64x64xbf16, swizzle 128>
  jfa.task_barrier
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  // CHECK: wgmma-missing-fence.mlir:[[@LINE+1]]:8: error: the async proxy (TMA, tensor cores) reads row 0 of slot 0 of %buf, which threads wrote without a jfa.fence_async_shared
  %d = jfa.async_dot %s, %s, %zero : !jfa.slot<64x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128>, tensor<64x64xf32, #jfa.wgmma_acc>
  %done = jfa.async_dot_wait pending(0) (%d) : tensor<64x64xf32, #jfa.wgmma_acc>
}
