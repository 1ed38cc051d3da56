// jfa.tc_commit with multicast hands a stage back to the producers of
// both CTAs of a cluster once the tensor cores have read it. Each CTA loads
// its row block of a 128x64 tile X_i and multicasts it to both; each one's
// MMA accumulates X_i X_i^T in its tensor memory and commits the stage to
// both CTAs' empty barrier (two arrivals a phase): the next step's
// multicast into the peer waits for the peer's tensor cores too. Each CTA
// writes X_0 X_0^T + X_1 X_1^T of its cluster's tiles.
// RUN: %python -c "import numpy as n; r = n.random.default_rng(5); x = r.standard_normal((4 * 128, 64)).astype(n.float32); n.save('%t.x.npy', (x.view(n.uint32) >> 16).astype(n.uint16))"
// RUN: %python %S/Inputs/make_npy.py %t.out.npy f4 4x128x128 -1
// RUN: jfa-interp %s --arch sm_100a --grid 4 %t.x.npy %t.out.npy i32:3
// RUN: %python -c "import numpy as n; w = n.load('%t.x.npy'); x = (w.astype(n.uint32) << 16).view(n.float32).astype(n.float64); o = n.load('%t.out.npy'); t = [x[128 * i:128 * i + 128] for i in range(4)]; want = [t[2 * c] @ t[2 * c].T + t[2 * c + 1] @ t[2 * c + 1].T for c in (0, 0, 1, 1)]; assert all(n.allclose(o[p], want[p], rtol=1e-5, atol=1e-3) for p in range(4)), o; print('commit multicast ok')" | FileCheck %s
// CHECK: commit multicast ok
//
// Committed to its own CTA only, a stage goes back to its producer while
// the peer has not used it: CTA 1 runs on into step 1 and its multicast
// overwrites CTA 0's copy of step 0 before CTA 0 has even waited for it.
// RUN: sed 's/arrive_count(2)/arrive_count(1)/; s/tc_commit %e multicast(%commit_mask)/tc_commit %e/' %s > %t.local.mlir
// RUN: not jfa-interp %t.local.mlir --arch sm_100a --grid 2 %t.x.npy %t.out.npy i32:3 2>&1 | FileCheck %s --check-prefix=RACE
// RACE: local.mlir:{{[0-9]+}}:5: error: race: writes row 64 of slot 0 of %buf of CTA (0, 0, 0) while an earlier write to it is not ordered before this one
// RACE: note: the earlier write
//
// A commit mask naming a CTA beyond the cluster, or none.
// RUN: not jfa-interp %s --arch sm_100a --grid 2 %t.x.npy %t.out.npy i32:4 2>&1 | FileCheck %s --check-prefix=MASK
// MASK: cluster-tc-commit.mlir:[[# @LINE + 41]]:5: error: jfa.tc_commit's multicast mask 4 names CTA rank 2, outside the cluster of 2 CTAs (ranks 0 to 1)
// RUN: not jfa-interp %s --arch sm_100a --grid 2 %t.x.npy %t.out.npy i32:0 2>&1 | FileCheck %s --check-prefix=MASK0
// MASK0: cluster-tc-commit.mlir:[[# @LINE + 39]]:5: error: jfa.tc_commit's multicast mask is 0: it names no CTA, so it would land nowhere

jfa.kernel @commit(%x: !jfa.tma<64x64xbf16, swizzle 128>, %out: !jfa.ptr<f32>,
                   %commit_to: i32) warps(4) cluster(2, 1, 1) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 128x64xbf16, swizzle 128>
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  // Both CTAs' MMAs commit the stage to each producer.
  %empty = jfa.alloc_barriers arrive_count(2) : !jfa.mbarriers<1>
  %ready = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %acc = jfa.tmem_alloc : !jfa.tmem<128x128xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %both = arith.constant 3 : i16
  %commit_mask = arith.trunci %commit_to : i32 to i16
  %rank = jfa.cluster_rank
  %cid = jfa.cluster_id x
  %px = jfa.program_id x
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 128x64xbf16, swizzle 128>, i32
  %f = jfa.barrier %full[%c0] : !jfa.mbarriers<1>, i32
  %e = jfa.barrier %empty[%c0] : !jfa.mbarriers<1>, i32
  %r = jfa.barrier %ready[%c0] : !jfa.mbarriers<1>, i32
  %half = jfa.row_block %s[%rank] : !jfa.slot<128x64xbf16, swizzle 128> -> !jfa.slot<64x64xbf16, swizzle 128>
  scf.for %i = %c0 to %c2 step %c1 : i32 {
    %p = arith.andi %i, %c1 : i32
    %ep = arith.xori %p, %c1 : i32
    jfa.barrier_wait %e, %ep
    jfa.barrier_expect %f, bytes(16384)
    %pair = arith.muli %cid, %c2 : i32
    %tile = arith.addi %pair, %i : i32
    %tile_row = arith.muli %tile, %c128 : i32
    %half_row = arith.muli %rank, %c64 : i32
    %row = arith.addi %tile_row, %half_row : i32
    jfa.tma_load %x[%row, %c0], %half, %f multicast(%both) : !jfa.tma<64x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128>
    jfa.barrier_wait %f, %p
    %accumulate = arith.cmpi ugt, %i, %c0 : i32
    jfa.tc_dot %s, %s, %acc, %accumulate : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, !jfa.tmem<128x128xf32>
    jfa.tc_commit %e multicast(%commit_mask)
  }
  jfa.tc_commit %r
  jfa.barrier_wait %r, %c0
  %t = jfa.tmem_load %acc[%c0] : !jfa.tmem<128x128xf32> -> tensor<128x128xf32, #jfa.tmem_row>
  %at = arith.muli %px, %c128 : i32
  %off = arith.muli %at, %c128 : i32
  jfa.store_tile %t, %out[%off] stride(%c128) rows(%c128) : tensor<128x128xf32, #jfa.tmem_row>, !jfa.ptr<f32>
}
