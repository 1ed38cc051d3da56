// RUN: jfa-opt %s --split-input-file --jfa-distribute-tiles --verify-diagnostics | FileCheck %s
// A 64x64 tile over the 128 threads of a task is 32 elements per thread; over
// a 256-thread kernel without tasks, 16.

// CHECK-LABEL: jfa.kernel @in_tasks
jfa.kernel @in_tasks(%alpha: f32) warps(8) {
  %buf = jfa.local_alloc : !jfa.smem<2 x 64x64xf32>
  %c0 = arith.constant 0 : i32
  jfa.async_tasks {
    jfa.task warps(4) {
      %s = jfa.slot %buf[%c0] : !jfa.smem<2 x 64x64xf32>, i32
      // CHECK: %[[T:.*]] = jfa.task_thread_id
      // CHECK: %[[X:.*]] = jfa.load_fragment %{{.*}}, %[[T]] threads(128) : !jfa.slot<64x64xf32> -> vector<32xf32>
      %x = jfa.local_load %s : !jfa.slot<64x64xf32> -> tensor<64x64xf32>
      // CHECK: %[[A:.*]] = vector.broadcast %{{.*}} : f32 to vector<32xf32>
      %a = tensor.splat %alpha : tensor<64x64xf32>
      // CHECK: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : vector<32xf32>
      %one = arith.constant dense<1.0> : tensor<64x64xf32>
      // CHECK: %[[M:.*]] = arith.mulf %[[X]], %[[A]] : vector<32xf32>
      %m = arith.mulf %x, %a : tensor<64x64xf32>
      // CHECK: %[[Y:.*]] = arith.addf %[[M]], %[[ONE]] : vector<32xf32>
      %y = arith.addf %m, %one : tensor<64x64xf32>
      // CHECK: jfa.store_fragment %[[Y]], %{{.*}}, %{{.*}} threads(128) : vector<32xf32> -> !jfa.slot<64x64xf32>
      jfa.local_store %y, %s : tensor<64x64xf32> -> !jfa.slot<64x64xf32>
    }
    jfa.task default {
      %s = jfa.slot %buf[%c0] : !jfa.smem<2 x 64x64xf32>, i32
      %x = jfa.local_load %s : !jfa.slot<64x64xf32> -> tensor<64x64xf32>
      // Loop-carried tiles become loop-carried fragments.
      // CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<32xf32>)
      %c4 = arith.constant 4 : index
      %i0 = arith.constant 0 : index
      %i1 = arith.constant 1 : index
      %r = scf.for %i = %i0 to %c4 step %i1 iter_args(%acc = %x) -> (tensor<64x64xf32>) {
        // CHECK: arith.addf %{{.*}}, %{{.*}} : vector<32xf32>
        %n = arith.addf %acc, %x : tensor<64x64xf32>
        scf.yield %n : tensor<64x64xf32>
      }
      // CHECK: arith.truncf %{{.*}} : vector<32xf32> to vector<32xbf16>
      %h = arith.truncf %r : tensor<64x64xf32> to tensor<64x64xbf16>
    }
  }
}

// -----

// CHECK-LABEL: jfa.kernel @whole_cta
jfa.kernel @whole_cta() warps(8) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x64xf32>, i32
  // CHECK: jfa.load_fragment %{{.*}}, %{{.*}} threads(256) : !jfa.slot<64x64xf32> -> vector<16xf32>
  %x = jfa.local_load %s : !jfa.slot<64x64xf32> -> tensor<64x64xf32>
}

// -----

jfa.kernel @uneven() warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 4x16xf32>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 4x16xf32>, i32
  // expected-error @+1 {{tile 'tensor<4x16xf32>' has 64 elements, which cannot be spread evenly over the 128 threads of its task}}
  %x = jfa.local_load %s : !jfa.slot<4x16xf32> -> tensor<4x16xf32>
}

// -----

jfa.kernel @crossing() warps(8) {
  %one = arith.constant dense<1.0> : tensor<64x64xf32>
  jfa.async_tasks {
    jfa.task default {
      // expected-error @+1 {{uses a register tile defined outside its task; define tiles inside the task that uses them}}
      %y = arith.addf %one, %one : tensor<64x64xf32>
    }
  }
}

// -----

jfa.kernel @not_splat() warps(1) {
  // expected-error @+1 {{only splat constant tiles are supported}}
  %c = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0], [1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0], [1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0], [1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]> : tensor<16x2xf32>
}

// -----

// `on cta` carries over to the per-thread forms: each thread moves its own
// fragment of the peer's slot.
// CHECK-LABEL: jfa.kernel @peer_slot
// CHECK: %[[PEER:.*]] = arith.xori
// CHECK: %[[T:.*]] = jfa.task_thread_id
// CHECK-NEXT: jfa.store_fragment %{{.*}}, %[[S:.*]], %[[T]] threads(128) layout(#jfa.wgmma_acc) on cta %[[PEER]] : vector<16xf32> -> !jfa.slot<64x32xf32, swizzle 128>
// CHECK: %[[T2:.*]] = jfa.task_thread_id
// CHECK-NEXT: jfa.load_fragment %[[S]], %[[T2]] threads(128) layout(#jfa.wgmma_acc) on cta %[[PEER]] : !jfa.slot<64x32xf32, swizzle 128> -> vector<16xf32>
// A local move stays local.
// CHECK: %[[T3:.*]] = jfa.task_thread_id
// CHECK-NEXT: jfa.load_fragment %[[S]], %[[T3]] threads(128) layout(#jfa.wgmma_acc) : !jfa.slot<64x32xf32, swizzle 128> -> vector<16xf32>
jfa.kernel @peer_slot(%x: f32) warps(4) cluster(2, 1, 1) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x32xf32, swizzle 128>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = jfa.cluster_rank
  %peer = arith.xori %r, %c1 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x32xf32, swizzle 128>, i32
  %t = tensor.splat %x : tensor<64x32xf32, #jfa.wgmma_acc>
  jfa.local_store %t, %s on cta %peer : tensor<64x32xf32, #jfa.wgmma_acc> -> !jfa.slot<64x32xf32, swizzle 128>
  %u = jfa.local_load %s on cta %peer : !jfa.slot<64x32xf32, swizzle 128> -> tensor<64x32xf32, #jfa.wgmma_acc>
  %v = jfa.local_load %s : !jfa.slot<64x32xf32, swizzle 128> -> tensor<64x32xf32, #jfa.wgmma_acc>
  %w = arith.addf %u, %v : tensor<64x32xf32, #jfa.wgmma_acc>
  jfa.local_store %w, %s : tensor<64x32xf32, #jfa.wgmma_acc> -> !jfa.slot<64x32xf32, swizzle 128>
}
