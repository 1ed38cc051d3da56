// A library of device helpers (no kernel), imported from
// kernels/jagged_attention/ with `jfa.import "../lib/work_queue.mlir"`
// (docs/DIALECT.md, "Imports"): the work queue of the attention backwards.
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
