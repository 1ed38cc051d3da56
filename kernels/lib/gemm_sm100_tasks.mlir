// A library of device helpers (no kernel), imported with
// `jfa.import "../lib/gemm_sm100_tasks.mlir"`: the MMA and epilogue tasks of
// the sm_100a GEMMs (gemm_sm100.mlir, gemm_multicast_sm100.mlir,
// gemm_persistent_sm100.mlir, gemm_pair_persistent_sm100.mlir).

// The MMA warp: one thread issues the tcgen05.mma chain over the 4-stage
// ring into the 128x256 accumulator and commits each stage back to the
// producer once the MMAs reading it have finished, then commits the
// finished accumulator to the epilogue. %fillers is the mask of the CTAs
// whose copies fill a stage: 1 (this CTA) alone, or 0b11 when the peer's
// multicast fills it too, so that the commit arrives on the empty barrier
// of both; a constant mask folds the choice away.
jfa.func @gemm_mma(%k_tiles: i32,
                   %a_ring: !jfa.smem<4 x 128x64xbf16, swizzle 128>,
                   %b_ring: !jfa.smem<4 x 256x64xbf16, swizzle 128>,
                   %acc: !jfa.tmem<128x256xf32>,
                   %full: !jfa.mbarriers<4>, %empty: !jfa.mbarriers<4>,
                   %acc_ready: !jfa.mbarriers<1>, %fillers: i16) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %self = arith.constant 1 : i16
  %multicast = arith.cmpi ne, %fillers, %self : i16
  scf.for %kt = %c0 to %k_tiles step %c1 : i32 {
    %s, %phase = jfa.ring_position %kt stages(4) : i32
    %full_s = jfa.barrier %full[%s] : !jfa.mbarriers<4>, i32
    jfa.barrier_wait %full_s, %phase
    %a_s = jfa.slot %a_ring[%s] : !jfa.smem<4 x 128x64xbf16, swizzle 128>, i32
    %b_s = jfa.slot %b_ring[%s] : !jfa.smem<4 x 256x64xbf16, swizzle 128>, i32
    %accumulate = arith.cmpi ugt, %kt, %c0 : i32
    jfa.tc_dot %a_s, %b_s, %acc, %accumulate : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<256x64xbf16, swizzle 128>, !jfa.tmem<128x256xf32>
    %empty_s = jfa.barrier %empty[%s] : !jfa.mbarriers<4>, i32
    scf.if %multicast {
      jfa.tc_commit %empty_s multicast(%fillers)
    } else {
      jfa.tc_commit %empty_s
    }
  }
  %ready = jfa.barrier %acc_ready[%c0] : !jfa.mbarriers<1>, i32
  jfa.tc_commit %ready
  jfa.return
}

// The epilogue warpgroup: once %ready completes phase %phase, reads the
// accumulator 64 columns at a time (tcgen05.ld 32x32b, one row per thread),
// converts to bf16, stages through a 2-slot swizzled buffer and stores with
// TMA at (%row0, %col0), which clips the edges. %chunk0 counts the chunks
// staged before (a persistent kernel's earlier tiles), so the staging ring
// runs on across tiles.
jfa.func @gemm_drain(%row0: i32, %col0: i32, %acc: !jfa.tmem<128x256xf32>,
                     %ready: !jfa.mbarrier, %phase: i32, %chunk0: i32,
                     %c_stage: !jfa.smem<2 x 128x64xbf16, swizzle 128>,
                     %c: !jfa.tma<128x64xbf16, swizzle 128>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c4 = arith.constant 4 : i32
  %c64 = arith.constant 64 : i32
  jfa.barrier_wait %ready, %phase
  scf.for %chunk = %c0 to %c4 step %c1 : i32 {
    %col = arith.muli %chunk, %c64 : i32
    %part = jfa.tmem_load %acc[%col] : !jfa.tmem<128x256xf32> -> tensor<128x64xf32, #jfa.tmem_row>
    %out = arith.truncf %part : tensor<128x64xf32, #jfa.tmem_row> to tensor<128x64xbf16, #jfa.tmem_row>
    // The staging slot used two chunks ago must have been read out.
    jfa.tma_store_wait pending(1)
    jfa.task_barrier
    %staged = arith.addi %chunk0, %chunk : i32
    %o = arith.remui %staged, %c2 : i32
    %slot = jfa.slot %c_stage[%o] : !jfa.smem<2 x 128x64xbf16, swizzle 128>, i32
    jfa.local_store %out, %slot : tensor<128x64xbf16, #jfa.tmem_row> -> !jfa.slot<128x64xbf16, swizzle 128>
    jfa.fence_async_shared
    jfa.task_barrier
    %gcol = arith.addi %col0, %col : i32
    jfa.tma_store %slot, %c[%row0, %gcol] : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.tma<128x64xbf16, swizzle 128>
  }
  jfa.return
}

// The epilogue of a one-tile CTA: @gemm_drain once %acc_ready completes its
// first phase.
jfa.func @gemm_epilogue(%row0: i32, %col0: i32, %acc: !jfa.tmem<128x256xf32>,
                        %acc_ready: !jfa.mbarriers<1>,
                        %c_stage: !jfa.smem<2 x 128x64xbf16, swizzle 128>,
                        %c: !jfa.tma<128x64xbf16, swizzle 128>) {
  %c0 = arith.constant 0 : i32
  %ready = jfa.barrier %acc_ready[%c0] : !jfa.mbarriers<1>, i32
  jfa.call @gemm_drain(%row0, %col0, %acc, %ready, %c0, %c0, %c_stage, %c)
      : (i32, i32, !jfa.tmem<128x256xf32>, !jfa.mbarrier, i32, i32,
         !jfa.smem<2 x 128x64xbf16, swizzle 128>, !jfa.tma<128x64xbf16, swizzle 128>) -> ()
  jfa.return
}

// Accumulator buffer %buf (0 or 1) of the two that a persistent kernel's
// MMA warp and epilogue take turns on (gemm_persistent_sm100.mlir,
// gemm_pair_persistent_sm100.mlir).
jfa.func @acc_buffer(%buf: i32, %acc0: !jfa.tmem<128x256xf32>,
                     %acc1: !jfa.tmem<128x256xf32>) -> !jfa.tmem<128x256xf32> {
  %c0 = arith.constant 0 : i32
  %first = arith.cmpi eq, %buf, %c0 : i32
  %acc = scf.if %first -> (!jfa.tmem<128x256xf32>) {
    scf.yield %acc0 : !jfa.tmem<128x256xf32>
  } else {
    scf.yield %acc1 : !jfa.tmem<128x256xf32>
  }
  jfa.return %acc : !jfa.tmem<128x256xf32>
}
