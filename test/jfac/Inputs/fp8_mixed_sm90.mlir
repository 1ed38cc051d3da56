// jfa-targets: sm_90a
// C[64, 64] = A B^T with an e4m3 A and an e5m2 B (wgmma's A and B types are
// separate), both K-major in 64-byte swizzled slots, f32 out.
jfa.kernel @fp8_mixed_sm90(%a: !jfa.tma<64x64xf8E4M3FN, swizzle 64>,
                           %b: !jfa.tma<64x64xf8E5M2, swizzle 64>,
                           %c: !jfa.ptr<f32>) warps(4) {
  %a_buf = jfa.local_alloc : !jfa.smem<1 x 64x64xf8E4M3FN, swizzle 64>
  %b_buf = jfa.local_alloc : !jfa.smem<1 x 64x64xf8E5M2, swizzle 64>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %bar = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  %sa = jfa.slot %a_buf[%c0] : !jfa.smem<1 x 64x64xf8E4M3FN, swizzle 64>, i32
  %sb = jfa.slot %b_buf[%c0] : !jfa.smem<1 x 64x64xf8E5M2, swizzle 64>, i32
  jfa.barrier_expect %bar, bytes(8192)
  jfa.tma_load %a[%c0, %c0], %sa, %bar : !jfa.tma<64x64xf8E4M3FN, swizzle 64>, !jfa.slot<64x64xf8E4M3FN, swizzle 64>
  jfa.tma_load %b[%c0, %c0], %sb, %bar : !jfa.tma<64x64xf8E5M2, swizzle 64>, !jfa.slot<64x64xf8E5M2, swizzle 64>
  jfa.barrier_wait %bar, %c0
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  %d = jfa.async_dot %sa, %sb, %zero : !jfa.slot<64x64xf8E4M3FN, swizzle 64>, !jfa.slot<64x64xf8E5M2, swizzle 64>, tensor<64x64xf32, #jfa.wgmma_acc>
  %r = jfa.async_dot_wait pending(0) (%d) : tensor<64x64xf32, #jfa.wgmma_acc>
  jfa.store_tile %r, %c[%c0] stride(%c64) rows(%c64) : tensor<64x64xf32, #jfa.wgmma_acc>, !jfa.ptr<f32>
}
