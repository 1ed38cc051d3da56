// A warp-specialized producer/consumer kernel: y = alpha * x for a row-major
// f32 matrix [rows, cols], in 64x64 tiles.
//
// Each CTA walks the tiles pid, pid + nprog, ... . The producer warpgroup
// streams them with TMA into a 3-slot ring (`full` barriers carry the TMA
// bytes, `empty` barriers hand the slot back). The consumer warpgroup scales
// each tile in registers and writes it out with TMA through a 2-slot staging
// buffer. TMA zero-fills loads and clips stores at the matrix edge, so any
// shape works.
jfa.kernel @scale_ring(%x: !jfa.tma<64x64xf32>, %y: !jfa.tma<64x64xf32>,
                       %rows: i32, %cols: i32, %alpha: f32) warps(8) {
  %ring = jfa.local_alloc : !jfa.smem<3 x 64x64xf32>
  %out = jfa.local_alloc : !jfa.smem<2 x 64x64xf32>
  // One arrival (the producer's expect) plus the TMA bytes fill a slot;
  // all 128 consumer threads arrive to empty it.
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<3>
  %empty = jfa.alloc_barriers arrive_count(128) : !jfa.mbarriers<3>

  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c63 = arith.constant 63 : i32
  %c64 = arith.constant 64 : i32
  %pid = jfa.program_id x
  %nprog = jfa.num_programs x
  // tiles = ceil(rows / 64) * ceil(cols / 64); this CTA gets
  // ceil((tiles - pid) / nprog) of them.
  %rows_up = arith.addi %rows, %c63 : i32
  %tile_rows = arith.divui %rows_up, %c64 : i32
  %cols_up = arith.addi %cols, %c63 : i32
  %tile_cols = arith.divui %cols_up, %c64 : i32
  %tiles = arith.muli %tile_rows, %tile_cols : i32
  %mine = arith.subi %tiles, %pid : i32
  %mine_up = arith.addi %mine, %nprog : i32
  %mine_up1 = arith.subi %mine_up, %c1 : i32
  %count_raw = arith.divsi %mine_up1, %nprog : i32
  %count = arith.maxsi %count_raw, %c0 : i32

  jfa.async_tasks {
    // Consumer: warps 0-3. Budgets are setmaxnreg targets, up or down:
    // every thread of this warps(8) kernel starts with 248 registers (the
    // kernel's entry allocation, 65536 / 256 threads less the granularity
    // margin, which ptxas reports as "Used 248 registers"), so 232 lowers
    // the consumer's share a little and the producer's 40 frees the rest;
    // together they must fit 65536 registers.
    jfa.task default registers(232) {
      scf.for %k = %c0 to %count step %c1 : i32 {
        %s = arith.remui %k, %c3 : i32
        %round = arith.divui %k, %c3 : i32
        %phase = arith.remui %round, %c2 : i32
        %tile_step = arith.muli %k, %nprog : i32
        %tile = arith.addi %pid, %tile_step : i32
        %tr = arith.divui %tile, %tile_cols : i32
        %tc = arith.remui %tile, %tile_cols : i32
        %row = arith.muli %tr, %c64 : i32
        %col = arith.muli %tc, %c64 : i32

        %full_s = jfa.barrier %full[%s] : !jfa.mbarriers<3>, i32
        jfa.barrier_wait %full_s, %phase
        %in_slot = jfa.slot %ring[%s] : !jfa.smem<3 x 64x64xf32>, i32
        %t = jfa.local_load %in_slot : !jfa.slot<64x64xf32> -> tensor<64x64xf32>
        // The slot goes back to the producer's TMA: the proxy fence orders the
        // threads' read before that write (without it the copy can land
        // first; issue 24).
        jfa.fence_async_shared
        %empty_s = jfa.barrier %empty[%s] : !jfa.mbarriers<3>, i32
        jfa.barrier_arrive %empty_s

        %a = tensor.splat %alpha : tensor<64x64xf32>
        %scaled = arith.mulf %t, %a : tensor<64x64xf32>

        // The staging slot written two tiles ago must be read out first.
        jfa.tma_store_wait pending(1)
        jfa.task_barrier
        %o = arith.remui %k, %c2 : i32
        %out_slot = jfa.slot %out[%o] : !jfa.smem<2 x 64x64xf32>, i32
        jfa.local_store %scaled, %out_slot : tensor<64x64xf32> -> !jfa.slot<64x64xf32>
        jfa.fence_async_shared
        jfa.task_barrier
        jfa.tma_store %out_slot, %y[%row, %col] : !jfa.slot<64x64xf32>, !jfa.tma<64x64xf32>
      }
    }
    // Producer: warps 4-7; one thread issues the copies.
    jfa.task warps(4) registers(40) {
      scf.for %k = %c0 to %count step %c1 : i32 {
        %s = arith.remui %k, %c3 : i32
        %round = arith.divui %k, %c3 : i32
        %phase = arith.remui %round, %c2 : i32
        // A fresh barrier counts as having completed the phase before its
        // first, so the first round's wait on parity 1 passes at once.
        %free_phase = arith.xori %phase, %c1 : i32
        %tile_step = arith.muli %k, %nprog : i32
        %tile = arith.addi %pid, %tile_step : i32
        %tr = arith.divui %tile, %tile_cols : i32
        %tc = arith.remui %tile, %tile_cols : i32
        %row = arith.muli %tr, %c64 : i32
        %col = arith.muli %tc, %c64 : i32

        %empty_s = jfa.barrier %empty[%s] : !jfa.mbarriers<3>, i32
        jfa.barrier_wait %empty_s, %free_phase
        %full_s = jfa.barrier %full[%s] : !jfa.mbarriers<3>, i32
        %slot = jfa.slot %ring[%s] : !jfa.smem<3 x 64x64xf32>, i32
        jfa.barrier_expect %full_s, bytes(16384)
        jfa.tma_load %x[%row, %col], %slot, %full_s : !jfa.tma<64x64xf32>, !jfa.slot<64x64xf32>
      }
    }
  }
}
