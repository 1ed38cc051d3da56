// A blocked slot on the hardware: TMA fills a 128x128 bf16 slot that is
// two 64-column blocks (one 128x64 box each), the threads read it as a
// register tile, add 1, store it to a second blocked slot with their own
// address mapping, and TMA writes that out: `dst` gets the input plus 1
// through the #jfa.tmem_row layout (a row per thread, as the sm_100a
// attention backward writes P and dS; each piece a constant offset from
// the thread's base), `dst2` the input plus 2 through #jfa.blocked (whose
// pieces may fall in either column block). Both are right only if TMA's
// placement of the boxes and the registers' mapping of a blocked slot agree
// (test/gpu/blocked_slots_test.py; CTA i does rows [128i, 128i + 128) of
// [rows, 128] bf16 tensors).
jfa.kernel @blocked_roundtrip(%src: !jfa.tma<128x64xbf16, swizzle 128>,
                              %dst: !jfa.tma<128x64xbf16, swizzle 128>,
                              %dst2: !jfa.tma<128x64xbf16, swizzle 128>) warps(4) {
  %in = jfa.local_alloc : !jfa.smem<1 x 128x128xbf16, swizzle 128>
  %out = jfa.local_alloc : !jfa.smem<1 x 128x128xbf16, swizzle 128>
  %out2 = jfa.local_alloc : !jfa.smem<1 x 128x128xbf16, swizzle 128>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %pid = jfa.program_id x
  %row = arith.muli %pid, %c128 : i32
  %in_slot = jfa.slot %in[%c0] : !jfa.smem<1 x 128x128xbf16, swizzle 128>, i32
  %out_slot = jfa.slot %out[%c0] : !jfa.smem<1 x 128x128xbf16, swizzle 128>, i32
  %out2_slot = jfa.slot %out2[%c0] : !jfa.smem<1 x 128x128xbf16, swizzle 128>, i32
  %bar = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  jfa.async_tasks {
    jfa.task default {
      %one = arith.constant dense<1.0> : tensor<128x128xbf16, #jfa.tmem_row>
      %two = arith.constant dense<2.0> : tensor<128x128xbf16>
      // Both boxes' bytes complete on the barrier.
      jfa.barrier_expect %bar, bytes(32768)
      jfa.tma_load %src[%row, %c0], %in_slot, %bar : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x128xbf16, swizzle 128>
      jfa.barrier_wait %bar, %c0
      %t = jfa.local_load %in_slot : !jfa.slot<128x128xbf16, swizzle 128> -> tensor<128x128xbf16, #jfa.tmem_row>
      %t1 = arith.addf %t, %one : tensor<128x128xbf16, #jfa.tmem_row>
      jfa.local_store %t1, %out_slot : tensor<128x128xbf16, #jfa.tmem_row> -> !jfa.slot<128x128xbf16, swizzle 128>
      %u = jfa.local_load %in_slot : !jfa.slot<128x128xbf16, swizzle 128> -> tensor<128x128xbf16>
      %u2 = arith.addf %u, %two : tensor<128x128xbf16>
      jfa.local_store %u2, %out2_slot : tensor<128x128xbf16> -> !jfa.slot<128x128xbf16, swizzle 128>
      jfa.fence_async_shared
      jfa.task_barrier
      jfa.tma_store %out_slot, %dst[%row, %c0] : !jfa.slot<128x128xbf16, swizzle 128>, !jfa.tma<128x64xbf16, swizzle 128>
      jfa.tma_store %out2_slot, %dst2[%row, %c0] : !jfa.slot<128x128xbf16, swizzle 128>, !jfa.tma<128x64xbf16, swizzle 128>
      jfa.tma_store_wait pending(0)
    }
  }
}
