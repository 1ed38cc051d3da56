// jfa-targets: sm_100a
// C[128, 64] = A B^T with an M-major e5m2 A (stored K x M: tcgen05
// transposes 8-bit operands) and a K-major e4m3 B, f32 out.
jfa.kernel @fp8_mmajor_sm100(%at: !jfa.tma<128x128xf8E5M2, swizzle 128>,
                             %b: !jfa.tma<64x128xf8E4M3FN, swizzle 128>,
                             %c: !jfa.ptr<f32>) warps(4) {
  %a_buf = jfa.local_alloc : !jfa.smem<1 x 128x128xf8E5M2, swizzle 128>
  %b_buf = jfa.local_alloc : !jfa.smem<1 x 64x128xf8E4M3FN, swizzle 128>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  %acc = jfa.tmem_alloc : !jfa.tmem<128x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %loaded = jfa.barrier %bars[%c0] : !jfa.mbarriers<2>, i32
  %done = jfa.barrier %bars[%c1] : !jfa.mbarriers<2>, i32
  %sa = jfa.slot %a_buf[%c0] : !jfa.smem<1 x 128x128xf8E5M2, swizzle 128>, i32
  %sb = jfa.slot %b_buf[%c0] : !jfa.smem<1 x 64x128xf8E4M3FN, swizzle 128>, i32
  jfa.barrier_expect %loaded, bytes(24576)
  jfa.tma_load %at[%c0, %c0], %sa, %loaded : !jfa.tma<128x128xf8E5M2, swizzle 128>, !jfa.slot<128x128xf8E5M2, swizzle 128>
  jfa.tma_load %b[%c0, %c0], %sb, %loaded : !jfa.tma<64x128xf8E4M3FN, swizzle 128>, !jfa.slot<64x128xf8E4M3FN, swizzle 128>
  jfa.barrier_wait %loaded, %c0
  %a = jfa.transpose %sa : !jfa.slot<128x128xf8E5M2, swizzle 128>
  %false = arith.constant false
  jfa.tc_dot %a, %sb, %acc, %false : !jfa.slot<128x128xf8E5M2, swizzle 128, transposed>, !jfa.slot<64x128xf8E4M3FN, swizzle 128>, !jfa.tmem<128x64xf32>
  jfa.tc_commit %done
  jfa.barrier_wait %done, %c0
  %r = jfa.tmem_load %acc[%c0] : !jfa.tmem<128x64xf32> -> tensor<128x64xf32, #jfa.tmem_row>
  jfa.store_tile %r, %c[%c0] stride(%c64) rows(%c128) : tensor<128x64xf32, #jfa.tmem_row>, !jfa.ptr<f32>
}
