// The consumer reads the slot with threads (jfa.local_load), then hands it
// back, and the producer's TMA overwrites it: the read and the copy are in
// different proxies, so a jfa.fence_async_shared must order the read first
// (issue 24: without it, the copy landed before the read on the H200 when
// --debug-barriers changed the timing). The second run has the fence.
// RUN: %python %S/Inputs/make_npy.py %t.x.npy f4 128x64
// RUN: not jfa-interp %s --arch sm_90a --grid 1 %t.x.npy 2>&1 | FileCheck %s
// RUN: sed 's|// FENCE: ||' %s > %t.fenced.mlir
// RUN: jfa-interp %t.fenced.mlir --arch sm_90a --grid 1 %t.x.npy

jfa.kernel @unfenced_release(%x: !jfa.tma<64x64xf32>) warps(8) {
  %ring = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %empty = jfa.alloc_barriers arrive_count(128) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c64 = arith.constant 64 : i32
  %slot = jfa.slot %ring[%c0] : !jfa.smem<1 x 64x64xf32>, i32
  %full0 = jfa.barrier %full[%c0] : !jfa.mbarriers<1>, i32
  %empty0 = jfa.barrier %empty[%c0] : !jfa.mbarriers<1>, i32
  jfa.async_tasks {
    jfa.task warps(4) {
      scf.for %i = %c0 to %c2 step %c1 : i32 {
        %free = arith.xori %i, %c1 : i32
        jfa.barrier_wait %empty0, %free
        %row = arith.muli %i, %c64 : i32
        jfa.barrier_expect %full0, bytes(16384)
        // CHECK: race-proxy-war.mlir:[[@LINE+1]]:9: error: the async proxy (TMA) overwrites row 0 of slot 0 of %ring, which threads read without a jfa.fence_async_shared between that read and the barrier that hands the slot back
        jfa.tma_load %x[%row, %c0], %slot, %full0 : !jfa.tma<64x64xf32>, !jfa.slot<64x64xf32>
      }
    }
    jfa.task default {
      scf.for %i = %c0 to %c2 step %c1 : i32 {
        jfa.barrier_wait %full0, %i
        // CHECK: race-proxy-war.mlir:[[@LINE+1]]:14: note: the read
        %t = jfa.local_load %slot : !jfa.slot<64x64xf32> -> tensor<64x64xf32>
        // FENCE: jfa.fence_async_shared
        jfa.barrier_arrive %empty0
      }
    }
  }
}
