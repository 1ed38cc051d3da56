// jfa-targets: sm_100a
// tcgen05 oracle (docs/TCGEN05_ORACLE.md): a 64-byte swizzle (allowed, no kernel uses it yet):
// A 128x32 and B 64x32 bf16, both K-major.
jfa.kernel @oracle(%flag: i32) warps(4) {
  %a_buf = jfa.local_alloc : !jfa.smem<1 x 128x32xbf16, swizzle 64>
  %b_buf = jfa.local_alloc : !jfa.smem<1 x 64x32xbf16, swizzle 64>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %acc = jfa.tmem_alloc : !jfa.tmem<128x64xf32>
  %c0 = arith.constant 0 : i32
  %bar = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  %a = jfa.slot %a_buf[%c0] : !jfa.smem<1 x 128x32xbf16, swizzle 64>, i32
  %b = jfa.slot %b_buf[%c0] : !jfa.smem<1 x 64x32xbf16, swizzle 64>, i32
  %accumulate = arith.cmpi ne, %flag, %c0 : i32
  jfa.tc_dot %a, %b, %acc, %accumulate : !jfa.slot<128x32xbf16, swizzle 64>, !jfa.slot<64x32xbf16, swizzle 64>, !jfa.tmem<128x64xf32>
  jfa.tc_commit %bar
  jfa.barrier_wait %bar, %c0
}
