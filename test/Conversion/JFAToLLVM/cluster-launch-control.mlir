// RUN: jfa-opt %s --split-input-file --jfa-convert-to-llvm | FileCheck %s
// Cluster launch control (sm_100a): jfa.try_cancel is
// clusterlaunchcontrol.try_cancel into the response slot, completing on the
// barrier (multicast to the whole cluster when it has several CTAs);
// jfa.query_cancel loads the 16-byte response as one i128 and queries it.

// CHECK-LABEL: llvm.func @cancel
// CHECK: %[[R:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<16 x i8>
// CHECK: %[[B:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
// CHECK: nvvm.clusterlaunchcontrol.try.cancel %[[R]], %[[B]]
// CHECK: %[[RESP:.*]] = llvm.load %[[R]] {alignment = 16 : i64} : !llvm.ptr<3> -> i128
// CHECK-NEXT: %[[TAKEN:.*]] = nvvm.clusterlaunchcontrol.query.cancel query = is_canceled, %[[RESP]] : i1
// CHECK-NEXT: %[[X:.*]] = nvvm.clusterlaunchcontrol.query.cancel query = get_first_cta_id_x, %[[RESP]] : i32
// CHECK-NEXT: nvvm.clusterlaunchcontrol.query.cancel query = get_first_cta_id_y, %[[RESP]] : i32
// CHECK-NEXT: nvvm.clusterlaunchcontrol.query.cancel query = get_first_cta_id_z, %[[RESP]] : i32
// CHECK: select %[[TAKEN]], %[[X]]
jfa.kernel @cancel(%out: !jfa.ptr<i32>) warps(4) {
  %responses = jfa.local_alloc {offset = 0 : i64} : !jfa.smem<2 x 4xi32>
  %bars = jfa.alloc_barriers arrive_count(1) {offset = 32 : i64} : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %none = arith.constant -1 : i32
  %r = jfa.slot %responses[%c0] : !jfa.smem<2 x 4xi32>, i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  jfa.barrier_expect %b, bytes(16)
  jfa.try_cancel %r, %b : !jfa.slot<4xi32>
  jfa.barrier_wait %b, %c0
  %taken, %x, %y, %z = jfa.query_cancel %r : !jfa.slot<4xi32>
  %next = arith.select %taken, %x, %none : i32
  jfa.store %next, %out[%c0] : i32, !jfa.ptr<i32>
}

// -----

// In a cluster the response goes to every CTA of it.
// CHECK-LABEL: llvm.func @cancel_cluster
// CHECK: nvvm.clusterlaunchcontrol.try.cancel multicast, %{{.*}}, %{{.*}}
jfa.kernel @cancel_cluster() warps(4) cluster(2, 1, 1) {
  %responses = jfa.local_alloc {offset = 0 : i64} : !jfa.smem<1 x 4xi32>
  %bars = jfa.alloc_barriers arrive_count(1) {offset = 16 : i64} : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %r = jfa.slot %responses[%c0] : !jfa.smem<1 x 4xi32>, i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  jfa.try_cancel %r, %b : !jfa.slot<4xi32>
}
