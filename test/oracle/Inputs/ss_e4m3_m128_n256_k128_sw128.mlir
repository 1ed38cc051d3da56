// jfa-targets: sm_100a
// tcgen05 oracle (docs/TCGEN05_ORACLE.md): one tc_dot of kernels/gemm/gemm_fp8_sm100.mlir's
// shape, A 128x128 and B 256x128 f8E4M3FN (kind::f8f6f4), both K-major in 128-byte swizzled slots.
jfa.kernel @oracle(%flag: i32) warps(4) {
  %a_buf = jfa.local_alloc : !jfa.smem<1 x 128x128xf8E4M3FN, swizzle 128>
  %b_buf = jfa.local_alloc : !jfa.smem<1 x 256x128xf8E4M3FN, swizzle 128>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %acc = jfa.tmem_alloc : !jfa.tmem<128x256xf32>
  %c0 = arith.constant 0 : i32
  %bar = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  %a = jfa.slot %a_buf[%c0] : !jfa.smem<1 x 128x128xf8E4M3FN, swizzle 128>, i32
  %b = jfa.slot %b_buf[%c0] : !jfa.smem<1 x 256x128xf8E4M3FN, swizzle 128>, i32
  %accumulate = arith.cmpi ne, %flag, %c0 : i32
  jfa.tc_dot %a, %b, %acc, %accumulate : !jfa.slot<128x128xf8E4M3FN, swizzle 128>, !jfa.slot<256x128xf8E4M3FN, swizzle 128>, !jfa.tmem<128x256xf32>
  jfa.tc_commit %bar
  jfa.barrier_wait %bar, %c0
}
