// Blocked slots read whole by wgmma (K over both column blocks; an N-major
// B of N = 128 over them), a jfa.column_block view, and the halves of a
// wide accumulator cut with tensor.extract_slice: the halves are in flight
// like the product until its jfa.async_dot_wait, so reading one before the
// wait is reported at the read, with a note at the product.
// RUN: %python %S/Inputs/make_npy.py %t.a.npy u2 64x128
// RUN: not jfa-interp %s --arch sm_90a %t.a.npy 2>&1 | FileCheck %s

jfa.kernel @column_views(%a: !jfa.tma<64x64xbf16, swizzle 128>) warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x128xbf16, swizzle 128>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x128xbf16, swizzle 128>, i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  // One TMA box per column block.
  jfa.barrier_expect %b, bytes(16384)
  jfa.tma_load %a[%c0, %c0], %s, %b : !jfa.tma<64x64xbf16, swizzle 128>, !jfa.slot<64x128xbf16, swizzle 128>
  jfa.barrier_wait %b, %c0
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  // S = A A^T over K = 128 (both blocks).
  %sq = jfa.async_dot %s, %s, %zero : !jfa.slot<64x128xbf16, swizzle 128>, !jfa.slot<64x128xbf16, swizzle 128>, tensor<64x64xf32, #jfa.wgmma_acc>
  %sq_done = jfa.async_dot_wait pending(0) (%sq) : tensor<64x64xf32, #jfa.wgmma_acc>
  // W = (block 0)^T A: M-major A of one block, N-major B of N = 128.
  %blk = jfa.column_block %s[%c0] : !jfa.slot<64x128xbf16, swizzle 128> -> !jfa.slot<64x64xbf16, swizzle 128>
  %blk_t = jfa.transpose %blk : !jfa.slot<64x64xbf16, swizzle 128>
  %s_t = jfa.transpose %s : !jfa.slot<64x128xbf16, swizzle 128>
  %wide0 = tensor.concat dim(1) %sq_done, %sq_done : (tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>) -> tensor<64x128xf32, #jfa.wgmma_acc>
  // CHECK: column-views.mlir:[[@LINE+4]]:10: error: reads the accumulator of a jfa.async_dot that is still in flight
  // CHECK: column-views.mlir:[[@LINE+1]]:11: note: the jfa.async_dot
  %wide = jfa.async_dot %blk_t, %s_t, %wide0 : !jfa.slot<64x64xbf16, swizzle 128, transposed>, !jfa.slot<128x64xbf16, swizzle 128, transposed>, tensor<64x128xf32, #jfa.wgmma_acc>
  %hi = tensor.extract_slice %wide[0, 64] [64, 64] [1, 1] : tensor<64x128xf32, #jfa.wgmma_acc> to tensor<64x64xf32, #jfa.wgmma_acc>
  %bad = arith.addf %hi, %zero : tensor<64x64xf32, #jfa.wgmma_acc>
  %done = jfa.async_dot_wait pending(0) (%hi) : tensor<64x64xf32, #jfa.wgmma_acc>
}
