// 16-bit #jfa.wgmma_acc tiles through shared memory on the hardware, the
// way the compiler moves them: ldmatrix out of a slot, stmatrix into one
// (SharedMemoryToLLVM.cpp), 16 x 16 a warp at once. Each output crosses one
// matrix move and otherwise only paths that do not use matrices, so a wrong
// lane address or register order cannot cancel out
// (test/gpu/matrix_slots_test.py; CTA i does rows [64i, 64i + 64) of
// [rows, 128] tensors, x in bf16 and the same values in f32):
//   dst  = x + 1: x (f32, TMA) read pair by pair, to bf16, stmatrix into a
//          128-byte-swizzled slot of two column blocks, TMA out;
//   dst2 = x + 2: x (bf16, TMA) read by ldmatrix from such a slot, stored
//          to global memory from the registers (jfa.store_tile);
//   dst3 = x + 3: stmatrix into an unswizzled slot (256-byte rows), read
//          back row-wise (#jfa.blocked, plain loads);
//   dst4 = x + 4: written row-wise into an unswizzled slot, read by
//          ldmatrix, stored from the registers.
jfa.kernel @matrix_roundtrip(%src: !jfa.tma<64x64xbf16, swizzle 128>,
                             %src_f32: !jfa.tma<64x32xf32, swizzle 128>,
                             %dst: !jfa.tma<64x64xbf16, swizzle 128>,
                             %dst2: !jfa.ptr<bf16>, %dst3: !jfa.ptr<bf16>,
                             %dst4: !jfa.ptr<bf16>) warps(4) {
  %in = jfa.local_alloc : !jfa.smem<1 x 64x128xbf16, swizzle 128>
  %in_f32 = jfa.local_alloc : !jfa.smem<1 x 64x128xf32, swizzle 128>
  %out = jfa.local_alloc : !jfa.smem<1 x 64x128xbf16, swizzle 128>
  %plain = jfa.local_alloc : !jfa.smem<2 x 64x128xbf16>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pid = jfa.program_id x
  %row = arith.muli %pid, %c64 : i32
  %at = arith.muli %row, %c128 : i32
  %in_slot = jfa.slot %in[%c0] : !jfa.smem<1 x 64x128xbf16, swizzle 128>, i32
  %f_slot = jfa.slot %in_f32[%c0] : !jfa.smem<1 x 64x128xf32, swizzle 128>, i32
  %out_slot = jfa.slot %out[%c0] : !jfa.smem<1 x 64x128xbf16, swizzle 128>, i32
  %plain0 = jfa.slot %plain[%c0] : !jfa.smem<2 x 64x128xbf16>, i32
  %plain1 = jfa.slot %plain[%c1] : !jfa.smem<2 x 64x128xbf16>, i32
  %bar = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  jfa.async_tasks {
    jfa.task default {
      %one = arith.constant dense<1.0> : tensor<64x128xbf16, #jfa.wgmma_acc>
      %two = arith.constant dense<2.0> : tensor<64x128xbf16, #jfa.wgmma_acc>
      %three = arith.constant dense<3.0> : tensor<64x128xbf16, #jfa.wgmma_acc>
      %four = arith.constant dense<4.0> : tensor<64x128xbf16>
      // The bf16 slot's two boxes and the f32 slot's four.
      jfa.barrier_expect %bar, bytes(49152)
      jfa.tma_load %src[%row, %c0], %in_slot, %bar : !jfa.tma<64x64xbf16, swizzle 128>, !jfa.slot<64x128xbf16, swizzle 128>
      jfa.tma_load %src_f32[%row, %c0], %f_slot, %bar : !jfa.tma<64x32xf32, swizzle 128>, !jfa.slot<64x128xf32, swizzle 128>
      jfa.barrier_wait %bar, %c0
      // dst: pairs in, stmatrix out.
      %xf = jfa.local_load %f_slot : !jfa.slot<64x128xf32, swizzle 128> -> tensor<64x128xf32, #jfa.wgmma_acc>
      %xb = arith.truncf %xf : tensor<64x128xf32, #jfa.wgmma_acc> to tensor<64x128xbf16, #jfa.wgmma_acc>
      %x1 = arith.addf %xb, %one : tensor<64x128xbf16, #jfa.wgmma_acc>
      jfa.local_store %x1, %out_slot : tensor<64x128xbf16, #jfa.wgmma_acc> -> !jfa.slot<64x128xbf16, swizzle 128>
      // dst3: stmatrix into the unswizzled slot.
      %x3 = arith.addf %xb, %three : tensor<64x128xbf16, #jfa.wgmma_acc>
      jfa.local_store %x3, %plain0 : tensor<64x128xbf16, #jfa.wgmma_acc> -> !jfa.slot<64x128xbf16>
      // dst4: row-wise into the other unswizzled slot.
      %rowwise = jfa.local_load %in_slot : !jfa.slot<64x128xbf16, swizzle 128> -> tensor<64x128xbf16>
      %x4 = arith.addf %rowwise, %four : tensor<64x128xbf16>
      jfa.local_store %x4, %plain1 : tensor<64x128xbf16> -> !jfa.slot<64x128xbf16>
      jfa.fence_async_shared
      jfa.task_barrier
      jfa.tma_store %out_slot, %dst[%row, %c0] : !jfa.slot<64x128xbf16, swizzle 128>, !jfa.tma<64x64xbf16, swizzle 128>
      // dst2: ldmatrix in, stored from the registers.
      %t = jfa.local_load %in_slot : !jfa.slot<64x128xbf16, swizzle 128> -> tensor<64x128xbf16, #jfa.wgmma_acc>
      %t2 = arith.addf %t, %two : tensor<64x128xbf16, #jfa.wgmma_acc>
      jfa.store_tile %t2, %dst2[%at] stride(%c128) rows(%c64) : tensor<64x128xbf16, #jfa.wgmma_acc>, !jfa.ptr<bf16>
      %u = jfa.local_load %plain0 : !jfa.slot<64x128xbf16> -> tensor<64x128xbf16>
      jfa.store_tile %u, %dst3[%at] stride(%c128) rows(%c64) : tensor<64x128xbf16>, !jfa.ptr<bf16>
      %w = jfa.local_load %plain1 : !jfa.slot<64x128xbf16> -> tensor<64x128xbf16, #jfa.wgmma_acc>
      jfa.store_tile %w, %dst4[%at] stride(%c128) rows(%c64) : tensor<64x128xbf16, #jfa.wgmma_acc>, !jfa.ptr<bf16>
      jfa.tma_store_wait pending(0)
    }
  }
}
