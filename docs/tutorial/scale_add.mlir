// The tutorial's kernel (docs/TUTORIAL.md): out = alpha * x + y, and with the
// compile-time parameter relu=1, out = max(alpha * x + y, 0), for row-major
// f32 matrices [rows, cols] in 64x64 tiles.
//
// Each CTA walks the tiles pid, pid + nprog, ...: TMA brings the x and y
// tiles into shared memory (one mbarrier counts their bytes), the 128
// threads compute in registers, and TMA writes the result tile back. TMA
// zero-fills loads and clips stores at the matrix edge, so any shape works.
jfa.kernel @scale_add(%x: !jfa.tma<64x64xf32>, %y: !jfa.tma<64x64xf32>,
                      %out: !jfa.tma<64x64xf32>, %rows: i32, %cols: i32,
                      %alpha: f32) warps(4) {
  %relu = jfa.param "relu" = false
  %xs = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
  %ys = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
  %os = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
  // One arrival (the expect) plus the bytes of both tiles complete a phase.
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>

  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c63 = arith.constant 63 : i32
  %c64 = arith.constant 64 : i32
  %pid = jfa.program_id x
  %nprog = jfa.num_programs x
  // tiles = ceil(rows / 64) * ceil(cols / 64); this CTA takes
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

  // relu: clamp at 0; otherwise at -inf (no clamp). Folded at compile time.
  %lo = scf.if %relu -> f32 {
    %zero = arith.constant 0.0 : f32
    scf.yield %zero : f32
  } else {
    %ninf = arith.constant 0xFF800000 : f32
    scf.yield %ninf : f32
  }
  %lo_t = tensor.splat %lo : tensor<64x64xf32>
  %alpha_t = tensor.splat %alpha : tensor<64x64xf32>

  %bar = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  %sx = jfa.slot %xs[%c0] : !jfa.smem<1 x 64x64xf32>, i32
  %sy = jfa.slot %ys[%c0] : !jfa.smem<1 x 64x64xf32>, i32
  %so = jfa.slot %os[%c0] : !jfa.smem<1 x 64x64xf32>, i32
  scf.for %k = %c0 to %count step %c1 : i32 {
    %tile_step = arith.muli %k, %nprog : i32
    %tile = arith.addi %pid, %tile_step : i32
    %tr = arith.divui %tile, %tile_cols : i32
    %tc = arith.remui %tile, %tile_cols : i32
    %row = arith.muli %tr, %c64 : i32
    %col = arith.muli %tc, %c64 : i32
    // The barrier completes one phase per tile: wait on parity k % 2.
    %phase = arith.remui %k, %c2 : i32

    jfa.barrier_expect %bar, bytes(32768)
    jfa.tma_load %x[%row, %col], %sx, %bar : !jfa.tma<64x64xf32>, !jfa.slot<64x64xf32>
    jfa.tma_load %y[%row, %col], %sy, %bar : !jfa.tma<64x64xf32>, !jfa.slot<64x64xf32>
    jfa.barrier_wait %bar, %phase
    %tx = jfa.local_load %sx : !jfa.slot<64x64xf32> -> tensor<64x64xf32>
    %ty = jfa.local_load %sy : !jfa.slot<64x64xf32> -> tensor<64x64xf32>

    %ax = arith.mulf %tx, %alpha_t : tensor<64x64xf32>
    %sum = arith.addf %ax, %ty : tensor<64x64xf32>
    %r = arith.maximumf %sum, %lo_t : tensor<64x64xf32>

    // The previous tile's store must have read the output slot before the
    // threads overwrite it: the first thread waits for the store, all meet.
    jfa.tma_store_wait pending(0)
    jfa.task_barrier
    jfa.local_store %r, %so : tensor<64x64xf32> -> !jfa.slot<64x64xf32>
    // Order this thread's shared-memory accesses (the reads of x and y, the
    // write of the result) before the TMA copies that follow (the store now,
    // the next tile's loads), and meet.
    jfa.fence_async_shared
    jfa.task_barrier
    jfa.tma_store %so, %out[%row, %col] : !jfa.slot<64x64xf32>, !jfa.tma<64x64xf32>
  }
}
