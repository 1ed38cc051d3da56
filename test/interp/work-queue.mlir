// A dynamic work queue: the producer task takes units from a global counter
// with jfa.atomic_fetch_add (the old value into a slot of a 2-slot ring,
// then an arrival), every thread of both tasks reads it with
// jfa.load_scalar, and the loop (scf.while) ends at the first unit past
// %units. Each unit u writes out[u] = u. The CTAs run one after another in
// jfa-interp, so the first takes every unit and the second none.
// RUN: %python %S/Inputs/make_npy.py %t.counter.npy i4 1 0
// RUN: %python %S/Inputs/make_npy.py %t.out.npy f4 10 -1
// RUN: jfa-interp %s --arch sm_90a --grid 2 %t.counter.npy %t.out.npy i32:10
// RUN: %python -c "import numpy as n; o = n.load('%t.out.npy'); c = n.load('%t.counter.npy'); assert (o == n.arange(10)).all(), o; assert c[0] == 14, c; print('work queue ok')" | FileCheck %s --check-prefix=OK
// OK: work queue ok
//
// Without the producer's wait for the slot's readers, its fetches run
// ahead of the readers and overwrite units they have not read. The first
// reader it overtakes is its own task: the fetching thread writes the slot
// its other threads read a round before, with no barrier between them.
// (Without that check the consumer, overtaken too, then waits for a phase
// the barrier has already left behind: a deadlock.)
// RUN: %python %S/Inputs/make_npy.py %t.counter.npy i4 1 0
// RUN: sed '/jfa.barrier_wait %%after_empty/d' %s > %t.no_wait.mlir
// RUN: not jfa-interp %t.no_wait.mlir --arch sm_90a --grid 1 %t.counter.npy %t.out.npy i32:10 2>&1 | FileCheck %s --check-prefix=AHEAD
// AHEAD: error: race: the one thread that issues 'jfa.atomic_fetch_add' overwrites row 0 of slot {{[01]}} of %next, which the other threads of task 1 (warps 4-7) read
// AHEAD: note: the threads' read
jfa.kernel @work_queue(%counter: !jfa.ptr<i32>, %out: !jfa.ptr<f32>, %units: i32) warps(8) {
  %next = jfa.local_alloc : !jfa.smem<2 x 1xi32>
  %next_full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  %next_empty = jfa.alloc_barriers arrive_count(256) : !jfa.mbarriers<2>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  jfa.async_tasks {
    // Consumer: warps 0-3.
    jfa.task default {
      %ends:2 = scf.while (%n = %c0) : (i32) -> (i32, i32) {
        %s, %phase = jfa.ring_position %n stages(2) : i32
        %slot = jfa.slot %next[%s] : !jfa.smem<2 x 1xi32>, i32
        %full = jfa.barrier %next_full[%s] : !jfa.mbarriers<2>, i32
        %empty = jfa.barrier %next_empty[%s] : !jfa.mbarriers<2>, i32
        jfa.barrier_wait %full, %phase
        %u = jfa.load_scalar %slot[%c0] : !jfa.slot<1xi32> -> i32
        jfa.barrier_arrive %empty
        %more = arith.cmpi slt, %u, %units : i32
        scf.condition(%more) %u, %n : i32, i32
      } do {
      ^bb0(%u: i32, %n: i32):
        %uf = arith.sitofp %u : i32 to f32
        %v = tensor.splat %uf : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
        jfa.store_rows %v, %out[%u] rows(%c1) : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>, !jfa.ptr<f32>
        %n1 = arith.addi %n, %c1 : i32
        scf.yield %n1 : i32
      }
    }
    // Producer: warps 4-7; one thread fetches.
    jfa.task warps(4) {
      %first = jfa.slot %next[%c0] : !jfa.smem<2 x 1xi32>, i32
      %first_full = jfa.barrier %next_full[%c0] : !jfa.mbarriers<2>, i32
      jfa.atomic_fetch_add %counter[%c0], %c1 into %first arrive %first_full : !jfa.ptr<i32>, !jfa.slot<1xi32>
      %ends:2 = scf.while (%n = %c0) : (i32) -> (i32, i32) {
        %s, %phase = jfa.ring_position %n stages(2) : i32
        %slot = jfa.slot %next[%s] : !jfa.smem<2 x 1xi32>, i32
        %full = jfa.barrier %next_full[%s] : !jfa.mbarriers<2>, i32
        %empty = jfa.barrier %next_empty[%s] : !jfa.mbarriers<2>, i32
        jfa.barrier_wait %full, %phase
        %u = jfa.load_scalar %slot[%c0] : !jfa.slot<1xi32> -> i32
        // Fetch the unit after it into the other slot, once its last
        // value (unit n - 1) has been read by both tasks.
        %n1 = arith.addi %n, %c1 : i32
        %s1, %phase1 = jfa.ring_position %n1 stages(2) : i32
        %free1 = arith.xori %phase1, %c1 : i32
        %after = jfa.slot %next[%s1] : !jfa.smem<2 x 1xi32>, i32
        %after_full = jfa.barrier %next_full[%s1] : !jfa.mbarriers<2>, i32
        %after_empty = jfa.barrier %next_empty[%s1] : !jfa.mbarriers<2>, i32
        jfa.barrier_wait %after_empty, %free1
        jfa.atomic_fetch_add %counter[%c0], %c1 into %after arrive %after_full : !jfa.ptr<i32>, !jfa.slot<1xi32>
        jfa.barrier_arrive %empty
        %more = arith.cmpi slt, %u, %units : i32
        scf.condition(%more) %u, %n : i32, i32
      } do {
      ^bb0(%u: i32, %n: i32):
        %n1 = arith.addi %n, %c1 : i32
        scf.yield %n1 : i32
      }
    }
  }
}
