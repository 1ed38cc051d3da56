// RUN: jfa-opt %s --jfa-check-target=arch=sm_100a | FileCheck %s
// RUN: jfa-opt %s --jfa-check-target=arch=sm_90a --verify-diagnostics
// Cluster launch control exists on sm_100a only; each use is reported.

// CHECK: jfa.try_cancel
jfa.kernel @clc() warps(4) {
  %responses = jfa.local_alloc : !jfa.smem<1 x 4xi32>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %r = jfa.slot %responses[%c0] : !jfa.smem<1 x 4xi32>, i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  jfa.barrier_expect %b, bytes(16)
  // expected-error @+1 {{'jfa.try_cancel' op uses cluster launch control (clusterlaunchcontrol), which sm_90a does not have (sm_100a only); on sm_90a take work from a counter (jfa.atomic_fetch_add)}}
  jfa.try_cancel %r, %b : !jfa.slot<4xi32>
  jfa.barrier_wait %b, %c0
  // expected-error @+1 {{'jfa.query_cancel' op uses cluster launch control}}
  %taken, %x, %y, %z = jfa.query_cancel %r : !jfa.slot<4xi32>
}
