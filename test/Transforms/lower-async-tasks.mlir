// RUN: jfa-opt %s --split-input-file --jfa-lower-async-tasks | FileCheck %s

// 12 warps: a 4-warp default task (warps 0-3), a 4-warp consumer (4-7) and a
// 4-warp producer (8-11). The kernel starts at 168 registers per thread
// (65536 / 384, a multiple of 8); budgets above it increase, below decrease.

// CHECK-LABEL: jfa.kernel @tasks
// CHECK-SAME: attributes {jfa.entry_registers = 168 : i32}
jfa.kernel @tasks(%d: !jfa.tma<64x64xf32>) warps(12) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  // CHECK: %[[TID:.*]] = jfa.thread_id
  // CHECK: %[[WARP:.*]] = arith.divui %[[TID]], %c32_i32
  // CHECK: %[[GE:.*]] = arith.cmpi uge, %[[WARP]], %c0_i32
  // CHECK: %[[LT:.*]] = arith.cmpi ult, %[[WARP]], %c4_i32
  // CHECK: %[[IN:.*]] = arith.andi %[[GE]], %[[LT]]
  // CHECK: scf.if %[[IN]] {
  // CHECK-NEXT: nvvm.setmaxregister increase 240
  // The default task's barrier is named barrier 1 over its 128 threads.
  // CHECK: jfa.named_barrier_sync id(1) threads(128)
  // CHECK: } else {
  // CHECK: arith.cmpi uge, %[[WARP]], %c4_i32
  // CHECK: arith.cmpi ult, %[[WARP]], %c8_i32
  // CHECK: scf.if
  // CHECK-NEXT: nvvm.setmaxregister increase 232
  // task_thread_id is the CTA thread index minus the task's first thread.
  // CHECK: %[[T2:.*]] = jfa.thread_id
  // CHECK: arith.subi %[[T2]], %c128_i32
  // CHECK: jfa.named_barrier_sync id(2) threads(128)
  // CHECK: } else {
  // The last task takes the remaining warps without a test.
  // CHECK-NEXT: nvvm.setmaxregister decrease 24
  // Single-thread ops run on the task's first thread (256).
  // CHECK: %[[T3:.*]] = jfa.thread_id
  // CHECK: %[[LEAD:.*]] = arith.cmpi eq, %[[T3]], %c256_i32
  // CHECK: scf.if %[[LEAD]] {
  // CHECK-NEXT: jfa.barrier_expect %{{.*}}, bytes(16384)
  // CHECK: scf.if
  // CHECK-NEXT: jfa.tma_load
  // CHECK-NOT: jfa.async_tasks
  // CHECK-NOT: jfa.task
  jfa.async_tasks {
    jfa.task default registers(240) {
      jfa.task_barrier
    }
    jfa.task warps(4) registers(232) {
      %t = jfa.task_thread_id
      jfa.task_barrier
    }
    jfa.task warps(4) registers(24) {
      %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x64xf32>, i32
      %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
      jfa.barrier_expect %b, bytes(16384)
      jfa.tma_load %d[%c0, %c0], %s, %b : !jfa.tma<64x64xf32>, !jfa.slot<64x64xf32>
    }
  }
}

// -----

// Without tasks the whole CTA is one task: thread 0 issues, barrier 0 syncs,
// and TMA stores are drained before the kernel ends.
// CHECK-LABEL: jfa.kernel @no_tasks
// CHECK-NOT: jfa.entry_registers
// CHECK: jfa.named_barrier_sync id(0) threads(128)
// CHECK: %[[T:.*]] = jfa.thread_id
// CHECK: arith.cmpi eq, %[[T]], %c0_i32
// CHECK: scf.if
// CHECK-NEXT: jfa.tma_store
// CHECK: scf.if
// CHECK-NEXT: jfa.tma_store_wait pending(0)
// CHECK-NOT: setmaxregister
jfa.kernel @no_tasks(%d: !jfa.tma<64x64xf32>) warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x64xf32>, i32
  jfa.task_barrier
  jfa.tma_store %s, %d[%c0, %c0] : !jfa.slot<64x64xf32>, !jfa.tma<64x64xf32>
}
