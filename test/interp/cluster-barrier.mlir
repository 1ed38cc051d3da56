// The cluster barrier (jfa.cluster_arrive / jfa.cluster_wait) orders the
// CTAs of a cluster.
//
// @handshake: CTA 1 writes out[0], CTA 0 copies it to out[1] after the
// cluster barrier. The interpreter runs CTA 0 first, so without the
// barrier the copy takes the old value.
// RUN: %python %S/Inputs/make_npy.py %t.flag.npy f4 2 -1
// RUN: jfa-interp %s --arch sm_90a --kernel handshake --grid 2 %t.flag.npy
// RUN: %python -c "import numpy as n; o = n.load('%t.flag.npy'); assert list(o) == [42, 42], o; print('handshake ok')" | FileCheck %s --check-prefix=HANDSHAKE
// HANDSHAKE: handshake ok
// RUN: %python %S/Inputs/make_npy.py %t.flag.npy f4 2 -1
// RUN: sed '/jfa.cluster_[aw]/d' %s > %t.unsynced.mlir
// RUN: jfa-interp %t.unsynced.mlir --arch sm_90a --kernel handshake --grid 2 %t.flag.npy
// RUN: %python -c "import numpy as n; o = n.load('%t.flag.npy'); assert list(o) == [42, -1], o; print('unsynced copy is early')" | FileCheck %s --check-prefix=UNSYNCED
// UNSYNCED: unsynced copy is early
//
// @handback: each CTA fills its slot with its rank and reads it; then CTA 0
// multicasts a tile of %a into both CTAs' slots. The second cluster
// barrier hands the slot back: CTA 1's read must be done before CTA 0's
// copy overwrites it. Two clusters (grid 4).
// RUN: %python -c "import numpy as n; n.save('%t.a.npy', n.arange(2*64*32, dtype=n.float32).reshape(2*64, 32))"
// RUN: %python %S/Inputs/make_npy.py %t.out.npy f4 4x2x64x32 -1
// RUN: jfa-interp %s --arch sm_90a --kernel handback --grid 4 %t.a.npy %t.out.npy
// RUN: %python -c "import numpy as n; a = n.load('%t.a.npy'); o = n.load('%t.out.npy'); assert all((o[p, 0] == p %% 2).all() and (o[p, 1] == a[64 * (p // 2):64 * (p // 2) + 64]).all() for p in range(4)), o; print('handback ok')" | FileCheck %s --check-prefix=HANDBACK
// HANDBACK: handback ok
//
// Without the hand-back, CTA 0's copy overwrites what CTA 1 read with
// nothing ordering that read first (CTA 0's named barrier orders only its
// own threads' reads).
// RUN: sed '/HANDBACK$/d' %s > %t.race.mlir
// RUN: not jfa-interp %t.race.mlir --arch sm_90a --kernel handback --grid 2 %t.a.npy %t.out.npy 2>&1 | FileCheck %s --check-prefix=RACE
// RACE: race.mlir:{{[0-9]+}}:5: error: race: overwrites row 0 of slot 0 of %buf of CTA (1, 0, 0) before a read of it is known to be done (the reader has not released it through a barrier or wait this write follows)
// RACE: race.mlir:{{[0-9]+}}:12: note: the read
//
// A wait with no arrival before it would never return.
// RUN: sed '/FILLED$/d' %s > %t.noarrive.mlir
// RUN: not jfa-interp %t.noarrive.mlir --arch sm_90a --kernel handback --grid 2 %t.a.npy %t.out.npy 2>&1 | FileCheck %s --check-prefix=NOARRIVE
// NOARRIVE: error: the threads of the kernel of CTA (0, 0, 0) wait on the cluster barrier without having arrived on it (jfa.cluster_arrive) since their last jfa.cluster_wait: the wait would never return

jfa.kernel @handshake(%out: !jfa.ptr<f32>) warps(4) cluster(2, 1, 1) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %answer = arith.constant 42.0 : f32
  %rank = jfa.cluster_rank
  %writer = arith.cmpi eq, %rank, %c1 : i32
  scf.if %writer {
    jfa.store %answer, %out[%c0] : f32, !jfa.ptr<f32>
  }
  jfa.cluster_arrive
  jfa.cluster_wait
  %reader = arith.cmpi eq, %rank, %c0 : i32
  scf.if %reader {
    %x = jfa.load %out[%c0] : !jfa.ptr<f32> -> f32
    jfa.store %x, %out[%c1] : f32, !jfa.ptr<f32>
  }
}

jfa.kernel @handback(%a: !jfa.tma<64x32xf32>, %out: !jfa.ptr<f32>)
    warps(4) cluster(2, 1, 1) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x32xf32>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %both = arith.constant 3 : i16
  %rank = jfa.cluster_rank
  %cid = jfa.cluster_id x
  %px = jfa.program_id x
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x32xf32>, i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  %rank_f = arith.sitofp %rank : i32 to f32
  %fill = tensor.splat %rank_f : tensor<64x32xf32>
  jfa.local_store %fill, %s : tensor<64x32xf32> -> !jfa.slot<64x32xf32>
  jfa.fence_async_shared
  jfa.cluster_arrive // FILLED
  jfa.cluster_wait
  %first = jfa.local_load %s : !jfa.slot<64x32xf32> -> tensor<64x32xf32>
  %at = arith.muli %px, %c2 : i32
  %at_row = arith.muli %at, %c64 : i32
  %off = arith.muli %at_row, %c32 : i32
  jfa.store_tile %first, %out[%off] stride(%c32) rows(%c64) : tensor<64x32xf32>, !jfa.ptr<f32>
  jfa.fence_async_shared
  // The CTA's own threads' reads, before its issuing thread's copy.
  jfa.named_barrier_sync id(1) threads(128)
  jfa.cluster_arrive // HANDBACK
  jfa.cluster_wait // HANDBACK
  jfa.barrier_expect %b, bytes(8192)
  %issuer = arith.cmpi eq, %rank, %c0 : i32
  scf.if %issuer {
    %row = arith.muli %cid, %c64 : i32
    jfa.tma_load %a[%row, %c0], %s, %b multicast(%both) : !jfa.tma<64x32xf32>, !jfa.slot<64x32xf32>
  }
  jfa.barrier_wait %b, %c0
  %second = jfa.local_load %s : !jfa.slot<64x32xf32> -> tensor<64x32xf32>
  %at1 = arith.addi %at, %c1 : i32
  %at1_row = arith.muli %at1, %c64 : i32
  %off1 = arith.muli %at1_row, %c32 : i32
  jfa.store_tile %second, %out[%off1] stride(%c32) rows(%c64) : tensor<64x32xf32>, !jfa.ptr<f32>
}
