// A cluster of two CTAs shares one 128-row tile per step: each CTA loads
// its jfa.row_block (64 rows) of the tile and multicasts it into the slot
// of both CTAs, so each expects the whole tile's bytes (a peer's half may
// land before the CTA's own expect). After reading the tile each CTA hands
// the slot back to both producers (jfa.barrier_arrive ... on cta): the
// next step's multicast into the peer's slot waits for the peer's read.
// Every CTA writes the whole tile and its own row block to global memory
// each step; numpy checks both. Two clusters (grid 4), two steps each.
// RUN: %python -c "import numpy as n; n.save('%t.a.npy', n.arange(4*128*32, dtype=n.float32).reshape(4*128, 32))"
// RUN: %python %S/Inputs/make_npy.py %t.tile.npy f4 4x2x128x32 -1
// RUN: %python %S/Inputs/make_npy.py %t.mine.npy f4 4x2x64x32 -1
// RUN: jfa-interp %s --arch sm_90a --grid 4 %t.a.npy %t.tile.npy %t.mine.npy
// RUN: %python %S/Inputs/check_multicast.py %t.a.npy %t.tile.npy %t.mine.npy | FileCheck %s --check-prefix=OK
// OK: multicast ok: 4 CTAs, 2 steps
// RUN: jfa-interp %s --arch sm_100a --grid 4 --stats=cta %t.a.npy %t.tile.npy %t.mine.npy | FileCheck %s --check-prefix=STATS
// STATS: jfa-interp stats: CTA (0, 0, 0)
// STATS: #0  the kernel  {{.*}}  2  {{ *}}16384
// STATS: jfa-interp stats: CTA (1, 0, 0)
// STATS: jfa-interp stats: CTA (2, 0, 0)
// STATS: jfa-interp stats: CTA (3, 0, 0)
// STATS: jfa-interp stats: all 4 CTAs run, per executor
//
// Without the wait for the slot to be handed back, CTA 1 runs on into
// step 1 while CTA 0 is still to read step 0's tile: CTA 1's multicast
// overwrites the upper half of CTA 0's slot, whose step-0 copy (CTA 1's
// own, completed on CTA 0's barrier) nothing orders before it.
// RUN: sed '/barrier_wait %e, %ep/d' %s > %t.nowait.mlir
// RUN: not jfa-interp %t.nowait.mlir --arch sm_90a --grid 2 %t.a.npy %t.tile.npy %t.mine.npy 2>&1 | FileCheck %s --check-prefix=RACE
// RACE: nowait.mlir:[[# @LINE + 40]]:5: error: race: writes row 64 of slot 0 of %buf of CTA (0, 0, 0) while an earlier write to it is not ordered before this one
// RACE: note: the earlier write
//
// Without the arrivals on CTA 1, its producer waits for a hand-back that
// never comes, and CTA 0 for CTA 1's half of the tile.
// RUN: sed '/on cta %c1/d' %s > %t.noarrive.mlir
// RUN: not jfa-interp %t.noarrive.mlir --arch sm_90a --grid 2 %t.a.npy %t.tile.npy %t.mine.npy 2>&1 | FileCheck %s --check-prefix=DEADLOCK
// DEADLOCK: error: deadlock in the cluster of CTA (0, 0, 0) to CTA (1, 0, 0): every task that has not finished is blocked
// DEADLOCK: note: the kernel of CTA (0, 0, 0) is blocked here: waits on %full[0] of CTA (0, 0, 0) for a phase of parity 1 to complete, but the barrier's phase 1 (parity 1) is still in progress: all 1 of its arrivals have been made and 8192 transaction bytes are still to come
// DEADLOCK: note: the kernel of CTA (1, 0, 0) is blocked here: waits on %empty[0] of CTA (1, 0, 0) for a phase of parity 0 to complete, but the barrier's phase 0 (parity 0) is still in progress: none of its 256 arrivals has been made

jfa.kernel @multicast(%a: !jfa.tma<64x32xf32, swizzle 128>,
                      %tiles: !jfa.ptr<f32>, %mine: !jfa.ptr<f32>)
    warps(4) cluster(2, 1, 1) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 128x32xf32, swizzle 128>
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  // Both CTAs' threads hand the slot back to each producer.
  %empty = jfa.alloc_barriers arrive_count(256) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %both = arith.constant 3 : i16
  %rank = jfa.cluster_rank
  %cid = jfa.cluster_id x
  %px = jfa.program_id x
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 128x32xf32, swizzle 128>, i32
  %f = jfa.barrier %full[%c0] : !jfa.mbarriers<1>, i32
  %e = jfa.barrier %empty[%c0] : !jfa.mbarriers<1>, i32
  %half = jfa.row_block %s[%rank] : !jfa.slot<128x32xf32, swizzle 128> -> !jfa.slot<64x32xf32, swizzle 128>
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
    jfa.tma_load %a[%row, %c0], %half, %f multicast(%both) : !jfa.tma<64x32xf32, swizzle 128>, !jfa.slot<64x32xf32, swizzle 128>
    jfa.barrier_wait %f, %p
    %t = jfa.local_load %s : !jfa.slot<128x32xf32, swizzle 128> -> tensor<128x32xf32>
    %m = jfa.local_load %half : !jfa.slot<64x32xf32, swizzle 128> -> tensor<64x32xf32>
    %step = arith.muli %px, %c2 : i32
    %at = arith.addi %step, %i : i32
    %tile_at = arith.muli %at, %c128 : i32
    %tile_off = arith.muli %tile_at, %c32 : i32
    jfa.store_tile %t, %tiles[%tile_off] stride(%c32) rows(%c128) : tensor<128x32xf32>, !jfa.ptr<f32>
    %mine_at = arith.muli %at, %c64 : i32
    %mine_off = arith.muli %mine_at, %c32 : i32
    jfa.store_tile %m, %mine[%mine_off] stride(%c32) rows(%c64) : tensor<64x32xf32>, !jfa.ptr<f32>
    jfa.fence_async_shared
    jfa.barrier_arrive %e on cta %c0
    jfa.barrier_arrive %e on cta %c1
  }
}
