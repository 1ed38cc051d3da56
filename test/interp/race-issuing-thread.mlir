// Inside one task: its 128 threads write the staging slot, and one thread
// (the one that issues the single-thread ops: TMA, expect, tc_dot, tc_commit)
// issues the TMA store. The threads' writes reach that one thread only
// through a barrier between them: without a jfa.task_barrier the store may
// read the slot before the other warps have written it (issue 21).
// RUN: %python %S/Inputs/make_npy.py %t.y.npy f4 64x64 0
// RUN: not jfa-interp %s --kernel no_task_barrier --arch sm_90a %t.y.npy 2>&1 | FileCheck %s --check-prefix=STORE
// RUN: jfa-interp %s --kernel with_task_barrier --arch sm_90a %t.y.npy
// RUN: not jfa-interp %s --kernel fence_after_barrier --arch sm_90a %t.y.npy 2>&1 | FileCheck %s --check-prefix=FENCE
// RUN: not jfa-interp %s --kernel reuse_after_store_wait --arch sm_90a %t.y.npy 2>&1 | FileCheck %s --check-prefix=REUSE
// RUN: jfa-interp %s --kernel reuse_after_task_barrier --arch sm_90a %t.y.npy

jfa.kernel @no_task_barrier(%y: !jfa.tma<64x64xf32>) warps(4) {
  %out = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
  %c0 = arith.constant 0 : i32
  %ones = arith.constant dense<1.0> : tensor<64x64xf32>
  %slot = jfa.slot %out[%c0] : !jfa.smem<1 x 64x64xf32>, i32
  jfa.local_store %ones, %slot : tensor<64x64xf32> -> !jfa.slot<64x64xf32>
  jfa.fence_async_shared
  // STORE: race-issuing-thread.mlir:[[@LINE+1]]:3: error: race: the one thread that issues 'jfa.tma_store' reads row 0 of slot 0 of %out, which the other threads of the kernel wrote; nothing orders their writes before it (a jfa.task_barrier, or a wait on an mbarrier they all arrived on, between the write and this op would)
  jfa.tma_store %slot, %y[%c0, %c0] : !jfa.slot<64x64xf32>, !jfa.tma<64x64xf32>
  // STORE: race-issuing-thread.mlir:[[@LINE-4]]:3: note: the threads' write
  jfa.tma_store_wait pending(0)
}

// The twin, as the kernels in kernels/ write it: store, fence, barrier.
jfa.kernel @with_task_barrier(%y: !jfa.tma<64x64xf32>) warps(4) {
  %out = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
  %c0 = arith.constant 0 : i32
  %ones = arith.constant dense<1.0> : tensor<64x64xf32>
  %slot = jfa.slot %out[%c0] : !jfa.smem<1 x 64x64xf32>, i32
  jfa.local_store %ones, %slot : tensor<64x64xf32> -> !jfa.slot<64x64xf32>
  jfa.fence_async_shared
  jfa.task_barrier
  jfa.tma_store %slot, %y[%c0, %c0] : !jfa.slot<64x64xf32>, !jfa.tma<64x64xf32>
  jfa.tma_store_wait pending(0)
}

// The other threads fence after the barrier: the issuing thread is not
// ordered after their fences.
jfa.kernel @fence_after_barrier(%y: !jfa.tma<64x64xf32>) warps(4) {
  %out = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
  %c0 = arith.constant 0 : i32
  %ones = arith.constant dense<1.0> : tensor<64x64xf32>
  %slot = jfa.slot %out[%c0] : !jfa.smem<1 x 64x64xf32>, i32
  jfa.local_store %ones, %slot : tensor<64x64xf32> -> !jfa.slot<64x64xf32>
  jfa.task_barrier
  jfa.fence_async_shared
  // FENCE: race-issuing-thread.mlir:[[@LINE+1]]:3: error: the async proxy (TMA, tensor cores) reads row 0 of slot 0 of %out, which threads wrote without a jfa.fence_async_shared between that write and this read
  jfa.tma_store %slot, %y[%c0, %c0] : !jfa.slot<64x64xf32>, !jfa.tma<64x64xf32>
  jfa.tma_store_wait pending(0)
}

// The slot is written again after jfa.tma_store_wait: the wait completes
// the store for the issuing thread only.
jfa.kernel @reuse_after_store_wait(%y: !jfa.tma<64x64xf32>) warps(4) {
  %out = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
  %c0 = arith.constant 0 : i32
  %ones = arith.constant dense<1.0> : tensor<64x64xf32>
  %slot = jfa.slot %out[%c0] : !jfa.smem<1 x 64x64xf32>, i32
  jfa.local_store %ones, %slot : tensor<64x64xf32> -> !jfa.slot<64x64xf32>
  jfa.fence_async_shared
  jfa.task_barrier
  jfa.tma_store %slot, %y[%c0, %c0] : !jfa.slot<64x64xf32>, !jfa.tma<64x64xf32>
  jfa.tma_store_wait pending(0)
  // REUSE: race-issuing-thread.mlir:[[@LINE+2]]:3: error: race: the threads of the kernel overwrite row 0 of slot 0 of %out while, as far as they know, a jfa.tma_store still reads it: the jfa.tma_store_wait that completed the store tells only the thread that issued it; a jfa.task_barrier after the wait tells the others
  // REUSE: race-issuing-thread.mlir:[[@LINE-3]]:3: note: the jfa.tma_store
  jfa.local_store %ones, %slot : tensor<64x64xf32> -> !jfa.slot<64x64xf32>
}

jfa.kernel @reuse_after_task_barrier(%y: !jfa.tma<64x64xf32>) warps(4) {
  %out = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
  %c0 = arith.constant 0 : i32
  %ones = arith.constant dense<1.0> : tensor<64x64xf32>
  %slot = jfa.slot %out[%c0] : !jfa.smem<1 x 64x64xf32>, i32
  jfa.local_store %ones, %slot : tensor<64x64xf32> -> !jfa.slot<64x64xf32>
  jfa.fence_async_shared
  jfa.task_barrier
  jfa.tma_store %slot, %y[%c0, %c0] : !jfa.slot<64x64xf32>, !jfa.tma<64x64xf32>
  jfa.tma_store_wait pending(0)
  jfa.task_barrier
  jfa.local_store %ones, %slot : tensor<64x64xf32> -> !jfa.slot<64x64xf32>
}
