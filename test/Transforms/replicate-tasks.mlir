// RUN: jfa-opt %s --jfa-replicate-tasks | FileCheck %s
// A replicated task becomes consecutive copies; each copy's replica_id is
// its index; the copies keep the warps and register budget.

// CHECK-LABEL: jfa.kernel @k
jfa.kernel @k(%p: !jfa.ptr<f32>) warps(12) {
  %bars = jfa.alloc_barriers arrive_count(256) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %bar = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  jfa.async_tasks {
    // CHECK: jfa.task warps(4) registers(240) {
    // CHECK-NEXT: %[[R0:.*]] = arith.constant 0 : i32
    // CHECK-NEXT: jfa.load %{{.*}}[%[[R0]]]
    // CHECK: jfa.barrier_arrive
    // CHECK: jfa.task warps(4) registers(240) {
    // CHECK-NEXT: %[[R1:.*]] = arith.constant 1 : i32
    // CHECK-NEXT: jfa.load %{{.*}}[%[[R1]]]
    // CHECK: jfa.barrier_arrive
    // CHECK-NOT: replicas
    // CHECK: jfa.task default registers(24)
    jfa.task warps(4) replicas(2) registers(240) {
      %g = jfa.replica_id : i32
      %x = jfa.load %p[%g] : !jfa.ptr<f32> -> f32
      jfa.barrier_arrive %bar
    }
    jfa.task default registers(24) {
      %phase = arith.constant 0 : i32
      jfa.barrier_wait %bar, %phase
    }
  }
}
