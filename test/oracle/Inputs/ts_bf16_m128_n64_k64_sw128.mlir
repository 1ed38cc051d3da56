// jfa-targets: sm_100a
// tcgen05 oracle (docs/TCGEN05_ORACLE.md): kernels/examples/tmem_a_dot_sm100.mlir:
// A 128x64 bf16 in tensor memory, B 64x64 K-major in a 128-byte swizzled slot.
jfa.kernel @oracle(%flag: i32) warps(4) {
  %b_buf = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %acc = jfa.tmem_alloc : !jfa.tmem<128x64xf32>
  %c0 = arith.constant 0 : i32
  %bar = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  %a = jfa.tmem_alloc : !jfa.tmem<128x64xbf16>
  %b = jfa.slot %b_buf[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  %accumulate = arith.cmpi ne, %flag, %c0 : i32
  jfa.tc_dot %a, %b, %acc, %accumulate : !jfa.tmem<128x64xbf16>, !jfa.slot<64x64xbf16, swizzle 128>, !jfa.tmem<128x64xf32>
  jfa.tc_commit %bar
  jfa.barrier_wait %bar, %c0
}
