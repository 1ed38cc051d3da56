// A library of device helpers (no kernel), imported from
// kernels/jagged_attention/ with `jfa.import "../lib/work_queue.mlir"`
// (docs/DIALECT.md, "Imports"): the work queue of the attention backwards
// and the decode of its units.
//
// The dynamic work queue (docs/DIALECT.md): the next unit comes from the
// caller-zeroed counter %schedule[1], fetched by one task into a ring of
// two one-element slots and read by every thread of the CTA.
//
// Fetch n of the queue into slot n mod 2, once every reader has released
// what the slot held (fetch n - 2).
jfa.func @fetch_unit(%n: i32, %schedule: !jfa.ptr<i32>,
                     %next_buf: !jfa.smem<2 x 1xi32>,
                     %next_full: !jfa.mbarriers<2>,
                     %next_empty: !jfa.mbarriers<2>) {
  %c1 = arith.constant 1 : i32
  %s, %phase = jfa.ring_position %n stages(2) : i32
  %free = arith.xori %phase, %c1 : i32
  %slot = jfa.slot %next_buf[%s] : !jfa.smem<2 x 1xi32>, i32
  %full = jfa.barrier %next_full[%s] : !jfa.mbarriers<2>, i32
  %empty = jfa.barrier %next_empty[%s] : !jfa.mbarriers<2>, i32
  jfa.barrier_wait %empty, %free
  jfa.atomic_fetch_add %schedule[%c1], %c1 into %slot arrive %full
      : !jfa.ptr<i32>, !jfa.slot<1xi32>
  jfa.return
}

// The unit fetch n brought: waits for it, reads it, releases the slot.
jfa.func @take_unit(%n: i32, %next_buf: !jfa.smem<2 x 1xi32>,
                    %next_full: !jfa.mbarriers<2>,
                    %next_empty: !jfa.mbarriers<2>) -> i32 {
  %c0 = arith.constant 0 : i32
  %s, %phase = jfa.ring_position %n stages(2) : i32
  %slot = jfa.slot %next_buf[%s] : !jfa.smem<2 x 1xi32>, i32
  %full = jfa.barrier %next_full[%s] : !jfa.mbarriers<2>, i32
  %empty = jfa.barrier %next_empty[%s] : !jfa.mbarriers<2>, i32
  jfa.barrier_wait %full, %phase
  %u = jfa.load_scalar %slot[%c0] : !jfa.slot<1xi32> -> i32
  jfa.barrier_arrive %empty
  jfa.return %u : i32
}

// The loading task's step n: fetch n + 1 ahead (its atomic's latency then
// hides behind a whole unit), then take what fetch n brought.
jfa.func @fetch_ahead_and_take(%n: i32, %schedule: !jfa.ptr<i32>,
                               %next_buf: !jfa.smem<2 x 1xi32>,
                               %next_full: !jfa.mbarriers<2>,
                               %next_empty: !jfa.mbarriers<2>) -> i32 {
  %c1 = arith.constant 1 : i32
  %n1 = arith.addi %n, %c1 : i32
  jfa.call @fetch_unit(%n1, %schedule, %next_buf, %next_full, %next_empty)
      : (i32, !jfa.ptr<i32>, !jfa.smem<2 x 1xi32>, !jfa.mbarriers<2>, !jfa.mbarriers<2>) -> ()
  %u = jfa.call @take_unit(%n, %next_buf, %next_full, %next_empty)
      : (i32, !jfa.smem<2 x 1xi32>, !jfa.mbarriers<2>, !jfa.mbarriers<2>) -> i32
  jfa.return %u : i32
}

// Work unit u of a backward's persistent schedule, written once for every
// task that walks it, so that they cannot disagree. The schedule holds the
// number of live (sequence, 128-key tile) pairs, the counter the units are
// fetched from, then the pairs as b * k_tiles + kt, live first
// (python/jfa/_schedule.py); unit u is pair u / heads for head u % heads.
// Returns h, the sequence's first row and length, the tile's first key,
// whether the tile holds keys, the q tiles [q_first, q_last) of %q_tile rows
// it meets (from the diagonal under causal) and the head's first column in
// [T, H*D]. %q_tile is a constant at the call (64 on sm_90a, 128 on
// sm_100a): the divisions fold to shifts.
jfa.func @unit(%u: i32, %k_tiles: i32, %heads: i32, %head_dim: i32,
               %offsets: !jfa.ptr<i32>, %schedule: !jfa.ptr<i32>, %causal: i1,
               %q_tile: i32)
    -> (i32, i32, i32, i32, i1, i32, i32, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c128 = arith.constant 128 : i32
  %pair = arith.divui %u, %heads : i32
  %h = arith.remui %u, %heads : i32
  %at = arith.addi %pair, %c2 : i32
  %bk = jfa.load %schedule[%at] : !jfa.ptr<i32> -> i32
  %b = arith.divui %bk, %k_tiles : i32
  %kt = arith.remui %bk, %k_tiles : i32
  %b1 = arith.addi %b, %c1 : i32
  %start = jfa.load %offsets[%b] : !jfa.ptr<i32> -> i32
  %end = jfa.load %offsets[%b1] : !jfa.ptr<i32> -> i32
  %len = arith.subi %end, %start : i32
  %k0 = arith.muli %kt, %c128 : i32
  %live = arith.cmpi slt, %k0, %len : i32
  %q_tile_last = arith.subi %q_tile, %c1 : i32
  %q_up = arith.addi %len, %q_tile_last : i32
  %q_last = arith.divui %q_up, %q_tile : i32
  %diag = arith.divui %k0, %q_tile : i32
  %q_first = arith.select %causal, %diag, %c0 : i32
  %col0 = arith.muli %h, %head_dim : i32
  jfa.return %h, %start, %len, %k0, %live, %q_first, %q_last, %col0
      : i32, i32, i32, i32, i1, i32, i32, i32
}
