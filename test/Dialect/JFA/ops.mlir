// RUN: jfa-opt %s | FileCheck %s
// RUN: jfa-opt %s | jfa-opt | FileCheck %s
// Every op and type of the dialect, printed in its custom form.

// CHECK-LABEL: jfa.kernel @all_ops(
// CHECK-SAME: %{{.*}}: !jfa.tma<64x32xbf16>, %{{.*}}: !jfa.ptr<f32>, %{{.*}}: i32, %{{.*}}: f32) warps(8) cluster(2, 1, 1) {
jfa.kernel @all_ops(%desc: !jfa.tma<64x32xbf16>, %p: !jfa.ptr<f32>, %n: i32, %s: f32) warps(8) cluster(2, 1, 1) {
  // CHECK: jfa.local_alloc : !jfa.smem<2 x 64x32xbf16>
  %buf = jfa.local_alloc : !jfa.smem<2 x 64x32xbf16>
  // CHECK: jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  %c0 = arith.constant 0 : i32
  // CHECK: jfa.program_id x
  %pid = jfa.program_id x
  // CHECK: jfa.num_programs y
  %np = jfa.num_programs y
  // CHECK: jfa.thread_id
  %tid = jfa.thread_id
  // CHECK: jfa.async_tasks {
  jfa.async_tasks {
    // CHECK: jfa.task default registers(232) {
    jfa.task default registers(232) {
      // CHECK: jfa.task_thread_id
      %lt = jfa.task_thread_id
      // CHECK: %[[SLOT:.*]] = jfa.slot %{{.*}}[%{{.*}}] : !jfa.smem<2 x 64x32xbf16>, i32
      %slot = jfa.slot %buf[%c0] : !jfa.smem<2 x 64x32xbf16>, i32
      // CHECK: %[[BAR:.*]] = jfa.barrier %{{.*}}[%{{.*}}] : !jfa.mbarriers<2>, i32
      %bar = jfa.barrier %bars[%c0] : !jfa.mbarriers<2>, i32
      // CHECK: jfa.barrier_wait %[[BAR]], %{{.*}}
      jfa.barrier_wait %bar, %c0
      // CHECK: jfa.local_load %[[SLOT]] : !jfa.slot<64x32xbf16> -> tensor<64x32xbf16>
      %t = jfa.local_load %slot : !jfa.slot<64x32xbf16> -> tensor<64x32xbf16>
      // CHECK: jfa.local_store %{{.*}}, %[[SLOT]] : tensor<64x32xbf16> -> !jfa.slot<64x32xbf16>
      jfa.local_store %t, %slot : tensor<64x32xbf16> -> !jfa.slot<64x32xbf16>
      // CHECK: jfa.barrier_arrive %[[BAR]]
      jfa.barrier_arrive %bar
      // CHECK: jfa.fence_async_shared
      jfa.fence_async_shared
      // CHECK: jfa.task_barrier
      jfa.task_barrier
      // CHECK: jfa.tma_store %[[SLOT]], %{{.*}}[%{{.*}}, %{{.*}}] : !jfa.slot<64x32xbf16>, !jfa.tma<64x32xbf16>
      jfa.tma_store %slot, %desc[%c0, %c0] : !jfa.slot<64x32xbf16>, !jfa.tma<64x32xbf16>
      // CHECK: jfa.tma_store_wait pending(0){{$}}
      jfa.tma_store_wait pending(0)
      // CHECK: jfa.tma_store_wait pending(1) writes
      jfa.tma_store_wait pending(1) writes
      // CHECK: jfa.fence_async_global
      jfa.fence_async_global
      // CHECK: jfa.fence_gpu
      jfa.fence_gpu
      // CHECK: jfa.tma_prefetch %{{.*}}[%{{.*}}, %{{.*}}] : !jfa.tma<64x32xbf16>
      jfa.tma_prefetch %desc[%c0, %c0] : !jfa.tma<64x32xbf16>
      // CHECK: jfa.named_barrier_sync id(3) threads(128)
      jfa.named_barrier_sync id(3) threads(128)
      // CHECK: jfa.named_barrier_arrive id(3) threads(128)
      jfa.named_barrier_arrive id(3) threads(128)
    }
    // CHECK: jfa.task warps(4) registers(40) {
    jfa.task warps(4) registers(40) {
      %slot = jfa.slot %buf[%c0] : !jfa.smem<2 x 64x32xbf16>, i32
      %bar = jfa.barrier %bars[%c0] : !jfa.mbarriers<2>, i32
      // CHECK: jfa.barrier_expect %{{.*}}, bytes(4096)
      jfa.barrier_expect %bar, bytes(4096)
      // CHECK: jfa.tma_load %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}, %{{.*}} : !jfa.tma<64x32xbf16>, !jfa.slot<64x32xbf16>
      jfa.tma_load %desc[%c0, %c0], %slot, %bar : !jfa.tma<64x32xbf16>, !jfa.slot<64x32xbf16>
    }
  }
}

// The distributed forms that jfa-distribute-tiles produces.
// CHECK-LABEL: jfa.kernel @fragments
jfa.kernel @fragments() warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
  %c0 = arith.constant 0 : index
  %slot = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x64xf32>, index
  %t = jfa.thread_id
  // CHECK: jfa.load_fragment %{{.*}}, %{{.*}} threads(128) : !jfa.slot<64x64xf32> -> vector<32xf32>
  %v = jfa.load_fragment %slot, %t threads(128) : !jfa.slot<64x64xf32> -> vector<32xf32>
  // CHECK: jfa.store_fragment %{{.*}}, %{{.*}}, %{{.*}} threads(128) : vector<32xf32> -> !jfa.slot<64x64xf32>
  jfa.store_fragment %v, %slot, %t threads(128) : vector<32xf32> -> !jfa.slot<64x64xf32>
}

// CHECK-LABEL: jfa.kernel @schedule_requests
jfa.kernel @schedule_requests() warps(1) {
  %tight = jfa.param "tight" = false
  // CHECK: jfa.schedule_for_registers if %{{.*}}
  jfa.schedule_for_registers if %tight
}

// CHECK-LABEL: jfa.kernel @schedule_always
jfa.kernel @schedule_always() warps(1) {
  // CHECK-NEXT: jfa.schedule_for_registers{{$}}
  jfa.schedule_for_registers
}

// Row-clipped stores, rows [0, count) and rows [first, count).
// CHECK-LABEL: jfa.kernel @clipped_stores
jfa.kernel @clipped_stores(%out: !jfa.ptr<f32>, %n: i32, %first: i32) warps(4) {
  %t = arith.constant dense<1.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  %r = arith.constant dense<1.0> : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  // CHECK: jfa.store_tile %{{.*}}, %{{.*}}[%{{.*}}] stride(%{{.*}}) rows(%{{.*}}) : tensor<64x64xf32, #jfa.wgmma_acc>, !jfa.ptr<f32>
  jfa.store_tile %t, %out[%n] stride(%n) rows(%n) : tensor<64x64xf32, #jfa.wgmma_acc>, !jfa.ptr<f32>
  // CHECK: jfa.store_tile %{{.*}}, %{{.*}}[%{{.*}}] stride(%{{.*}}) rows(%{{.*}}) from(%{{.*}}) add : tensor<64x64xf32, #jfa.wgmma_acc>, !jfa.ptr<f32>
  jfa.store_tile %t, %out[%n] stride(%n) rows(%n) from(%first) add : tensor<64x64xf32, #jfa.wgmma_acc>, !jfa.ptr<f32>
  // CHECK: jfa.store_rows %{{.*}}, %{{.*}}[%{{.*}}] rows(%{{.*}}) from(%{{.*}}) : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>, !jfa.ptr<f32>
  jfa.store_rows %r, %out[%n] rows(%n) from(%first) : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>, !jfa.ptr<f32>
}
