// jfa-targets: sm_90a
// The reproducer of issue 24 (--debug-barriers changed its results on the
// H200): run by test/gpu/debug_identity_test.py.
// Row statistics of a bf16 matrix X [M, 128]:
//   out[r, 0] = max_c x[r, c]
//   out[r, 1] = sum_c exp2(x[r, c] - max)      (softmax denominator)
//   out[r, 2..7] = 0
// out is f32 [M, 8] (a 16-byte-multiple row so TMA can store it).
// Producer warpgroup: TMA into a 2-slot ring (full/empty mbarriers).
// Consumer warpgroup: reductions in the wgmma accumulator layout.
// CTAs walk 64-row tiles pid, pid + nprog, ...; TMA zero-fills the rows past
// M on load and clips them on store, so any M works.
jfa.kernel @rowstats(%x: !jfa.tma<64x128xbf16>, %out: !jfa.tma<64x8xf32>,
                     %m: i32) warps(8) {
  %ring = jfa.local_alloc : !jfa.smem<2 x 64x128xbf16>
  %stage = jfa.local_alloc : !jfa.smem<2 x 64x8xf32>
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  %empty = jfa.alloc_barriers arrive_count(128) : !jfa.mbarriers<2>

  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c63 = arith.constant 63 : i32
  %c64 = arith.constant 64 : i32
  %pid = jfa.program_id x
  %nprog = jfa.num_programs x
  // tiles = ceil(M / 64); this CTA gets ceil((tiles - pid) / nprog).
  %m_up = arith.addi %m, %c63 : i32
  %tiles = arith.divui %m_up, %c64 : i32
  %mine = arith.subi %tiles, %pid : i32
  %mine_up = arith.addi %mine, %nprog : i32
  %mine_up1 = arith.subi %mine_up, %c1 : i32
  %count_raw = arith.divsi %mine_up1, %nprog : i32
  %count = arith.maxsi %count_raw, %c0 : i32

  jfa.async_tasks {
    // Consumer: warps 0-3.
    jfa.task default registers(232) {
      scf.for %k = %c0 to %count step %c1 : i32 {
        %s = arith.remui %k, %c2 : i32
        %round = arith.divui %k, %c2 : i32
        %phase = arith.remui %round, %c2 : i32
        %tile_step = arith.muli %k, %nprog : i32
        %tile = arith.addi %pid, %tile_step : i32
        %row = arith.muli %tile, %c64 : i32

        %full_s = jfa.barrier %full[%s] : !jfa.mbarriers<2>, i32
        jfa.barrier_wait %full_s, %phase
        %in_slot = jfa.slot %ring[%s] : !jfa.smem<2 x 64x128xbf16>, i32
        %xb = jfa.local_load %in_slot : !jfa.slot<64x128xbf16> -> tensor<64x128xbf16, #jfa.wgmma_acc>
        // The slot goes back to the producer's TMA: the proxy fence orders the
        // threads' read before that write (without it the copy can land
        // first; issue 24).
        jfa.fence_async_shared
        %empty_s = jfa.barrier %empty[%s] : !jfa.mbarriers<2>, i32
        jfa.barrier_arrive %empty_s

        // --- the algorithm ---
        %xf = arith.extf %xb : tensor<64x128xbf16, #jfa.wgmma_acc> to tensor<64x128xf32, #jfa.wgmma_acc>
        %mx = jfa.reduce_rows max %xf : tensor<64x128xf32, #jfa.wgmma_acc> -> tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
        %mx_t = jfa.broadcast_rows %mx : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>> -> tensor<64x128xf32, #jfa.wgmma_acc>
        %d = arith.subf %xf, %mx_t : tensor<64x128xf32, #jfa.wgmma_acc>
        %e = math.exp2 %d : tensor<64x128xf32, #jfa.wgmma_acc>
        %sm = jfa.reduce_rows sum %e : tensor<64x128xf32, #jfa.wgmma_acc> -> tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
        // Pack (max, sum, 0...) into a 64x8 tile.
        %mx8 = jfa.broadcast_rows %mx : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>> -> tensor<64x8xf32, #jfa.wgmma_acc>
        %sm8 = jfa.broadcast_rows %sm : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>> -> tensor<64x8xf32, #jfa.wgmma_acc>
        %col = jfa.iota cols : tensor<64x8xi32, #jfa.wgmma_acc>
        %zero_i = arith.constant dense<0> : tensor<64x8xi32, #jfa.wgmma_acc>
        %one_i = arith.constant dense<1> : tensor<64x8xi32, #jfa.wgmma_acc>
        %zero_f = arith.constant dense<0.0> : tensor<64x8xf32, #jfa.wgmma_acc>
        %is0 = arith.cmpi eq, %col, %zero_i : tensor<64x8xi32, #jfa.wgmma_acc>
        %is1 = arith.cmpi eq, %col, %one_i : tensor<64x8xi32, #jfa.wgmma_acc>
        %v1 = arith.select %is1, %sm8, %zero_f : tensor<64x8xi1, #jfa.wgmma_acc>, tensor<64x8xf32, #jfa.wgmma_acc>
        %res = arith.select %is0, %mx8, %v1 : tensor<64x8xi1, #jfa.wgmma_acc>, tensor<64x8xf32, #jfa.wgmma_acc>
        // --- end ---

        // The staging slot written two tiles ago must be read out first.
        jfa.tma_store_wait pending(1)
        jfa.task_barrier
        %o_slot = jfa.slot %stage[%s] : !jfa.smem<2 x 64x8xf32>, i32
        jfa.local_store %res, %o_slot : tensor<64x8xf32, #jfa.wgmma_acc> -> !jfa.slot<64x8xf32>
        jfa.fence_async_shared
        jfa.task_barrier
        jfa.tma_store %o_slot, %out[%row, %c0] : !jfa.slot<64x8xf32>, !jfa.tma<64x8xf32>
      }
    }
    // Producer: warps 4-7; one thread issues the copies.
    jfa.task warps(4) registers(40) {
      scf.for %k = %c0 to %count step %c1 : i32 {
        %s = arith.remui %k, %c2 : i32
        %round = arith.divui %k, %c2 : i32
        %phase = arith.remui %round, %c2 : i32
        %free_phase = arith.xori %phase, %c1 : i32
        %tile_step = arith.muli %k, %nprog : i32
        %tile = arith.addi %pid, %tile_step : i32
        %row = arith.muli %tile, %c64 : i32

        %empty_s = jfa.barrier %empty[%s] : !jfa.mbarriers<2>, i32
        jfa.barrier_wait %empty_s, %free_phase
        %full_s = jfa.barrier %full[%s] : !jfa.mbarriers<2>, i32
        %slot = jfa.slot %ring[%s] : !jfa.smem<2 x 64x128xbf16>, i32
        jfa.barrier_expect %full_s, bytes(16384)
        jfa.tma_load %x[%row, %c0], %slot, %full_s : !jfa.tma<64x128xbf16>, !jfa.slot<64x128xbf16>
      }
    }
  }
}
