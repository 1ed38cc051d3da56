// A producer that prefetches the next tile into L2 (jfa.tma_prefetch) before
// it waits for the one slot that tile will land in (test/jfac/tma-prefetch.test).
jfa.kernel @prefetch_then_load(%src: !jfa.tma<64x64xbf16, swizzle 128>,
                               %dst: !jfa.tma<64x64xbf16, swizzle 128>,
                               %tiles: i32) warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  %bar = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  scf.for %t = %c0 to %tiles step %c1 : i32 {
    %row = arith.muli %t, %c64 : i32
    %next = arith.addi %row, %c64 : i32
    jfa.tma_prefetch %src[%next, %c0] : !jfa.tma<64x64xbf16, swizzle 128>
    jfa.barrier_expect %bar, bytes(8192)
    jfa.tma_load %src[%row, %c0], %s, %bar : !jfa.tma<64x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128>
    %phase = arith.andi %t, %c1 : i32
    jfa.barrier_wait %bar, %phase
    jfa.tma_store %s, %dst[%row, %c0] : !jfa.slot<64x64xbf16, swizzle 128>, !jfa.tma<64x64xbf16, swizzle 128>
    jfa.tma_store_wait pending(0)
  }
}
