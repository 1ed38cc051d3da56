// Threads write the staging slot and TMA stores it, with a task barrier but
// no proxy fence: the async proxy may not see the threads' writes.
// RUN: %python %S/Inputs/make_npy.py %t.y.npy f4 64x64 0
// RUN: not jfa-interp %s --arch sm_90a --grid 1 %t.y.npy 2>&1 | FileCheck %s

jfa.kernel @missing_fence(%y: !jfa.tma<64x64xf32>) warps(4) {
  %out = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
  %c0 = arith.constant 0 : i32
  %ones = arith.constant dense<1.0> : tensor<64x64xf32>
  %slot = jfa.slot %out[%c0] : !jfa.smem<1 x 64x64xf32>, i32
  jfa.local_store %ones, %slot : tensor<64x64xf32> -> !jfa.slot<64x64xf32>
  jfa.task_barrier
  // CHECK: missing-fence.mlir:[[@LINE+1]]:3: error: the async proxy (TMA, tensor cores) reads row 0 of slot 0 of %out, which threads wrote without a jfa.fence_async_shared
  jfa.tma_store %slot, %y[%c0, %c0] : !jfa.slot<64x64xf32>, !jfa.tma<64x64xf32>
  // CHECK: missing-fence.mlir:[[@LINE-4]]:3: note: the write
  jfa.tma_store_wait pending(0)
}
