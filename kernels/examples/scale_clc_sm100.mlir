// jfa-targets: sm_100a
// y = alpha * x for a row-major f32 matrix [rows, cols] in 64x64 tiles,
// scheduled by cluster launch control (sm_100a).
//
// The grid has one CTA per tile, as a plain kernel would. A CTA works on
// its own tile and, meanwhile, asks the hardware to cancel the launch of a
// CTA that has not started yet (jfa.try_cancel); when that succeeds, the
// cancelled CTA's tile is this CTA's next. So CTAs that are running take
// the work of those still waiting for an SM, without the host sizing the
// grid to the machine or a counter in global memory, and a CTA that starts
// late simply does its own tile. The first request that cancels nothing
// ends the loop (asking again once a CTA has seen a request fail is not
// allowed).
//
// Each iteration asks for the next tile first, so the request is in flight
// while this tile's copies run, and reads the answer at its end: one
// response slot does, reused once every thread has read it.
jfa.kernel @scale_clc(%x: !jfa.tma<64x64xf32>, %y: !jfa.tma<64x64xf32>,
                      %rows: i32, %cols: i32, %alpha: f32) warps(4) {
  %tile = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
  %responses = jfa.local_alloc : !jfa.smem<1 x 4xi32>
  %loaded = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %answered = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>

  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c63 = arith.constant 63 : i32
  %c64 = arith.constant 64 : i32
  %none = arith.constant -1 : i32
  %cols_up = arith.addi %cols, %c63 : i32
  %tile_cols = arith.divui %cols_up, %c64 : i32
  %pid = jfa.program_id x
  %load_bar = jfa.barrier %loaded[%c0] : !jfa.mbarriers<1>, i32
  %t_slot = jfa.slot %tile[%c0] : !jfa.smem<1 x 64x64xf32>, i32

  %done:2 = scf.while (%t = %pid, %n = %c0) : (i32, i32) -> (i32, i32) {
    %more = arith.cmpi sge, %t, %c0 : i32
    scf.condition(%more) %t, %n : i32, i32
  } do {
  ^bb0(%t: i32, %n: i32):
    // The next tile: ask now, read the answer after this tile's work.
    %phase = arith.andi %n, %c1 : i32
    %response = jfa.slot %responses[%c0] : !jfa.smem<1 x 4xi32>, i32
    %answer = jfa.barrier %answered[%c0] : !jfa.mbarriers<1>, i32
    jfa.barrier_expect %answer, bytes(16)
    jfa.try_cancel %response, %answer : !jfa.slot<4xi32>

    // This tile.
    %tr = arith.divui %t, %tile_cols : i32
    %tc = arith.remui %t, %tile_cols : i32
    %row = arith.muli %tr, %c64 : i32
    %col = arith.muli %tc, %c64 : i32
    jfa.barrier_expect %load_bar, bytes(16384)
    jfa.tma_load %x[%row, %col], %t_slot, %load_bar : !jfa.tma<64x64xf32>, !jfa.slot<64x64xf32>
    jfa.barrier_wait %load_bar, %phase
    %v = jfa.local_load %t_slot : !jfa.slot<64x64xf32> -> tensor<64x64xf32>
    %a = tensor.splat %alpha : tensor<64x64xf32>
    %scaled = arith.mulf %v, %a : tensor<64x64xf32>
    // Every thread has read the tile before any overwrites it.
    jfa.task_barrier
    jfa.local_store %scaled, %t_slot : tensor<64x64xf32> -> !jfa.slot<64x64xf32>
    jfa.fence_async_shared
    jfa.task_barrier
    jfa.tma_store %t_slot, %y[%row, %col] : !jfa.slot<64x64xf32>, !jfa.tma<64x64xf32>
    // The next tile's load overwrites the slot the store reads.
    jfa.tma_store_wait pending(0)

    jfa.barrier_wait %answer, %phase
    %taken, %cx, %cy, %cz = jfa.query_cancel %response : !jfa.slot<4xi32>
    %next = arith.select %taken, %cx, %none : i32
    // All threads have read the response (and the store has been waited
    // on) before the slot and the tile are used again; the response slot's
    // next writer is the async proxy.
    jfa.fence_async_shared
    jfa.task_barrier
    %n1 = arith.addi %n, %c1 : i32
    scf.yield %next, %n1 : i32, i32
  }
}
