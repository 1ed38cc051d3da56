// The consumer reads the slot without waiting on `full`: the TMA bytes may
// not have landed. jfa-interp reports the read and the write it races with.
// RUN: %python %S/Inputs/make_npy.py %t.x.npy f4 64x64
// RUN: %python %S/Inputs/make_npy.py %t.y.npy f4 64x64 0
// RUN: not jfa-interp %s --arch sm_90a --grid 1 %t.x.npy %t.y.npy 2>&1 | FileCheck %s

jfa.kernel @race(%x: !jfa.tma<64x64xf32>, %y: !jfa.tma<64x64xf32>) warps(8) {
  %ring = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %slot = jfa.slot %ring[%c0] : !jfa.smem<1 x 64x64xf32>, i32
  %full0 = jfa.barrier %full[%c0] : !jfa.mbarriers<1>, i32
  jfa.async_tasks {
    jfa.task warps(4) {
      jfa.barrier_expect %full0, bytes(16384)
      jfa.tma_load %x[%c0, %c0], %slot, %full0 : !jfa.tma<64x64xf32>, !jfa.slot<64x64xf32>
    }
    jfa.task default {
      // CHECK: race-read-before-wait.mlir:[[@LINE+1]]:12: error: race: reads row 0 of slot 0 of %ring without waiting for its last write
      %t = jfa.local_load %slot : !jfa.slot<64x64xf32> -> tensor<64x64xf32>
      // CHECK: race-read-before-wait.mlir:[[@LINE-5]]:7: note: the write
      jfa.barrier_wait %full0, %c0
    }
  }
}
