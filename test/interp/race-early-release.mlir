// The consumer hands the slot back (arrives on `empty`) before it reads it,
// so the producer's next TMA load may overwrite the tile while it is read.
// RUN: %python %S/Inputs/make_npy.py %t.x.npy f4 128x64
// RUN: not jfa-interp %s --arch sm_90a --grid 1 %t.x.npy 2>&1 | FileCheck %s

jfa.kernel @early_release(%x: !jfa.tma<64x64xf32>) warps(8) {
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
        // CHECK: race-early-release.mlir:[[@LINE+1]]:9: error: race: overwrites row 0 of slot 0 of %ring before a read of it is known to be done
        jfa.tma_load %x[%row, %c0], %slot, %full0 : !jfa.tma<64x64xf32>, !jfa.slot<64x64xf32>
      }
    }
    jfa.task default {
      scf.for %i = %c0 to %c2 step %c1 : i32 {
        jfa.barrier_wait %full0, %i
        jfa.barrier_arrive %empty0
        // CHECK: race-early-release.mlir:[[@LINE+1]]:14: note: the read
        %t = jfa.local_load %slot : !jfa.slot<64x64xf32> -> tensor<64x64xf32>
      }
    }
  }
}
