// Every thread of the 128-thread task arrives on a barrier that completes
// its phase after one arrival (the count belongs to a single elected thread).
// RUN: not jfa-interp %s --arch sm_90a --grid 1 2>&1 | FileCheck %s

jfa.kernel @arrive_overflow() warps(4) {
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  %c1 = arith.constant 1 : i32
  %b = jfa.barrier %bars[%c1] : !jfa.mbarriers<2>, i32
  // CHECK: arrive-overflow.mlir:[[@LINE+1]]:3: error: arrives 128 time(s) on %bars[1], which has only 1 arrival(s) left in its phase 0 (arrive_count(1))
  jfa.barrier_arrive %b
  // CHECK: arrive-overflow.mlir:[[@LINE-5]]:11: note: the barrier array
}
