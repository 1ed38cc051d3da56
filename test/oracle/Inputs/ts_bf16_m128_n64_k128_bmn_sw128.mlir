// jfa-targets: sm_100a
// tcgen05 oracle (docs/TCGEN05_ORACLE.md): O += P V of attention_fwd_sm100:
// A (P) 128x128 bf16 in tensor memory, B the transposed (N-major) view of a 128x64 V slot.
jfa.kernel @oracle(%flag: i32) warps(4) {
  %b_buf = jfa.local_alloc : !jfa.smem<1 x 128x64xbf16, swizzle 128>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %acc = jfa.tmem_alloc : !jfa.tmem<128x64xf32>
  %c0 = arith.constant 0 : i32
  %bar = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  %a = jfa.tmem_alloc : !jfa.tmem<128x128xbf16>
  %b_s = jfa.slot %b_buf[%c0] : !jfa.smem<1 x 128x64xbf16, swizzle 128>, i32
  %b = jfa.transpose %b_s : !jfa.slot<128x64xbf16, swizzle 128>
  %accumulate = arith.cmpi ne, %flag, %c0 : i32
  jfa.tc_dot %a, %b, %acc, %accumulate : !jfa.tmem<128x128xbf16>, !jfa.slot<64x128xbf16, swizzle 128, transposed>, !jfa.tmem<128x64xf32>
  jfa.tc_commit %bar
  jfa.barrier_wait %bar, %c0
}
