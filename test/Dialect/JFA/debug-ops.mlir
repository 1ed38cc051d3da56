// RUN: jfa-opt %s --split-input-file --verify-diagnostics | FileCheck %s
// The debug-mode ops jfa-debug-barriers builds.

// CHECK-LABEL: jfa.kernel @k
// CHECK: %{{.*}} = jfa.barrier_try_wait %{{.*}}, %{{.*}}
// CHECK: jfa.debug_trap "index %d, 100%% stuck\0A"(%{{.*}} : i32)
// CHECK: jfa.debug_trap "no arguments"
jfa.kernel @k() warps(4) {
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  %ready = jfa.barrier_try_wait %b, %c0
  jfa.debug_trap "index %d, 100%% stuck\n" (%c0 : i32)
  jfa.debug_trap "no arguments"
}

// -----

jfa.kernel @k() warps(4) {
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{'jfa.debug_trap' op format has 2 conversions but 1 arguments are given}}
  jfa.debug_trap "%d and %d" (%c0 : i32)
}
