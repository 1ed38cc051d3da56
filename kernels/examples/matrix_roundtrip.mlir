// A 16-bit #jfa.wgmma_acc tile through shared memory on the hardware, the
// way the compiler moves it: ldmatrix out of a slot, stmatrix into one
// (SharedMemoryToLLVM.cpp), 16 x 16 a warp at once. TMA fills a 64x128 bf16
// slot of two 128-byte-swizzled column blocks; the threads read it as a
// wgmma accumulator tile (ldmatrix), add 1 and store it to a second such
// slot (stmatrix) that TMA writes to `dst`, and add 2 and store it to an
// unswizzled slot (stmatrix, 256-byte rows), which they read back row-wise
// (#jfa.blocked, plain loads) into `dst2`. Both are right only if the
// matrices' lane addresses and register order agree with TMA's placement
// and with the element-by-element mapping (test/gpu/matrix_slots_test.py;
// CTA i does rows [64i, 64i + 64) of [rows, 128] bf16 tensors).
jfa.kernel @matrix_roundtrip(%src: !jfa.tma<64x64xbf16, swizzle 128>,
                             %dst: !jfa.tma<64x64xbf16, swizzle 128>,
                             %dst2: !jfa.ptr<bf16>) warps(4) {
  %in = jfa.local_alloc : !jfa.smem<1 x 64x128xbf16, swizzle 128>
  %out = jfa.local_alloc : !jfa.smem<1 x 64x128xbf16, swizzle 128>
  %plain = jfa.local_alloc : !jfa.smem<1 x 64x128xbf16>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pid = jfa.program_id x
  %row = arith.muli %pid, %c64 : i32
  %in_slot = jfa.slot %in[%c0] : !jfa.smem<1 x 64x128xbf16, swizzle 128>, i32
  %out_slot = jfa.slot %out[%c0] : !jfa.smem<1 x 64x128xbf16, swizzle 128>, i32
  %plain_slot = jfa.slot %plain[%c0] : !jfa.smem<1 x 64x128xbf16>, i32
  %bar = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  jfa.async_tasks {
    jfa.task default {
      %one = arith.constant dense<1.0> : tensor<64x128xbf16, #jfa.wgmma_acc>
      %two = arith.constant dense<2.0> : tensor<64x128xbf16, #jfa.wgmma_acc>
      // Both boxes' bytes complete on the barrier.
      jfa.barrier_expect %bar, bytes(16384)
      jfa.tma_load %src[%row, %c0], %in_slot, %bar : !jfa.tma<64x64xbf16, swizzle 128>, !jfa.slot<64x128xbf16, swizzle 128>
      jfa.barrier_wait %bar, %c0
      %t = jfa.local_load %in_slot : !jfa.slot<64x128xbf16, swizzle 128> -> tensor<64x128xbf16, #jfa.wgmma_acc>
      %t1 = arith.addf %t, %one : tensor<64x128xbf16, #jfa.wgmma_acc>
      jfa.local_store %t1, %out_slot : tensor<64x128xbf16, #jfa.wgmma_acc> -> !jfa.slot<64x128xbf16, swizzle 128>
      %t2 = arith.addf %t, %two : tensor<64x128xbf16, #jfa.wgmma_acc>
      jfa.local_store %t2, %plain_slot : tensor<64x128xbf16, #jfa.wgmma_acc> -> !jfa.slot<64x128xbf16>
      jfa.fence_async_shared
      jfa.task_barrier
      jfa.tma_store %out_slot, %dst[%row, %c0] : !jfa.slot<64x128xbf16, swizzle 128>, !jfa.tma<64x64xbf16, swizzle 128>
      %u = jfa.local_load %plain_slot : !jfa.slot<64x128xbf16> -> tensor<64x128xbf16>
      %at = arith.muli %row, %c128 : i32
      jfa.store_tile %u, %dst2[%at] stride(%c128) rows(%c64) : tensor<64x128xbf16>, !jfa.ptr<bf16>
      jfa.tma_store_wait pending(0)
    }
  }
}
