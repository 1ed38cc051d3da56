// Distributed shared memory: a cluster of two CTAs swaps register tiles.
// Each CTA makes a 64x32 #jfa.wgmma_acc tile from %x, its rank and the
// unit it was handed, stores it into its peer's slot (`on cta`, rank xor
// 1), arrives on the peer's barrier (`on cta`: a release at cluster scope)
// and waits on its own with acquire(cluster); then it loads its slot, now
// its peer's tile, and writes it to out[rank]. The unit comes from a work
// counter: rank 1's thread fetches it for both CTAs (jfa.atomic_fetch_add
// ... and cta), writing its slot and arriving on its barrier in both.
// RUN: %python -c "import numpy as n; n.save('%t.x.npy', (n.arange(32) %% 7).astype(n.float32))"
// RUN: %python %S/Inputs/make_npy.py %t.counter.npy i4 1 7
// RUN: %python %S/Inputs/make_npy.py %t.out.npy f4 2x64x32 -1
// RUN: jfa-interp %s --arch sm_90a --kernel exchange --grid 2 %t.counter.npy %t.x.npy %t.out.npy
// RUN: %python -c "import numpy as n; x = n.load('%t.x.npy'); o = n.load('%t.out.npy'); c = n.load('%t.counter.npy'); rows = n.arange(64)[:, None] * 100.0; want = [x[None, :] + rows + 1000 * (r ^ 1) + 10000 * 7 for r in range(2)]; assert all((o[r] == want[r]).all() for r in range(2)), o; assert c[0] == 8, c; print('dsmem ok')" | FileCheck %s --check-prefix=OK
// OK: dsmem ok
//
// Without the wait, the peer's store into this CTA's slot is ordered
// before nothing here. jfa-interp runs CTA 0 until it blocks (on the unit,
// which rank 1 fetches) after its store into CTA 1's slot; CTA 1 then
// reads that slot with nothing ordering CTA 0's store before the read.
// RUN: %python %S/Inputs/make_npy.py %t.counter.npy i4 1 7
// RUN: sed '/jfa.barrier_wait %f, %c0 acquire(cluster)/d' %s > %t.nowait.mlir
// RUN: not jfa-interp %t.nowait.mlir --arch sm_90a --kernel exchange --grid 2 %t.counter.npy %t.x.npy %t.out.npy 2>&1 | FileCheck %s --check-prefix=RACE
// RACE: nowait.mlir:[[# @LINE + 51]]:10: error: race: reads row 0 of slot 0 of %buf of CTA (1, 0, 0) without waiting for its last write
// RACE: nowait.mlir:[[# @LINE + 42]]:3: note: the write
//
// Without `and cta`, CTA 0 never receives a unit: it waits forever.
// RUN: %python %S/Inputs/make_npy.py %t.counter.npy i4 1 7
// RUN: sed 's/ and cta %%peer//' %s > %t.nopeer.mlir
// RUN: not jfa-interp %t.nopeer.mlir --arch sm_90a --kernel exchange --grid 2 %t.counter.npy %t.x.npy %t.out.npy 2>&1 | FileCheck %s --check-prefix=DEADLOCK
// DEADLOCK: error: deadlock in the cluster of CTA (0, 0, 0) to CTA (1, 0, 0): every task that has not finished is blocked
// DEADLOCK: note: the kernel of CTA (0, 0, 0) is blocked here: waits on %unit_full[0] of CTA (0, 0, 0) for a phase of parity 0 to complete, but the barrier's phase 0 (parity 0) is still in progress: its one arrival has not been made

jfa.kernel @exchange(%counter: !jfa.ptr<i32>, %x: !jfa.ptr<f32>, %out: !jfa.ptr<f32>)
    warps(4) cluster(2, 1, 1) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x32xf32, swizzle 128>
  %unit = jfa.local_alloc : !jfa.smem<1 x 1xi32>
  // The peer's 128 threads arrive after their stores.
  %full = jfa.alloc_barriers arrive_count(128) : !jfa.mbarriers<1>
  %unit_full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %c1000 = arith.constant 1000 : i32
  %c10000 = arith.constant 10000 : i32
  %rank = jfa.cluster_rank
  %peer = arith.xori %rank, %c1 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x32xf32, swizzle 128>, i32
  %u_s = jfa.slot %unit[%c0] : !jfa.smem<1 x 1xi32>, i32
  %f = jfa.barrier %full[%c0] : !jfa.mbarriers<1>, i32
  %uf = jfa.barrier %unit_full[%c0] : !jfa.mbarriers<1>, i32
  %fetcher = arith.cmpi eq, %rank, %c1 : i32
  scf.if %fetcher {
    jfa.atomic_fetch_add %counter[%c0], %c1 into %u_s arrive %uf and cta %peer : !jfa.ptr<i32>, !jfa.slot<1xi32>
  }
  // x[c] + 100 row + 1000 rank
  %xc = jfa.load_cols %x[%c0] cols(%c32) : !jfa.ptr<f32> -> tensor<64x32xf32, #jfa.wgmma_acc>
  %rows = jfa.iota rows : tensor<64x32xi32, #jfa.wgmma_acc>
  %rows_f = arith.sitofp %rows : tensor<64x32xi32, #jfa.wgmma_acc> to tensor<64x32xf32, #jfa.wgmma_acc>
  %hundred = arith.constant dense<100.0> : tensor<64x32xf32, #jfa.wgmma_acc>
  %by_row = arith.mulf %rows_f, %hundred : tensor<64x32xf32, #jfa.wgmma_acc>
  %rank_k = arith.muli %rank, %c1000 : i32
  %rank_f = arith.sitofp %rank_k : i32 to f32
  %rank_t = tensor.splat %rank_f : tensor<64x32xf32, #jfa.wgmma_acc>
  %t0 = arith.addf %xc, %by_row : tensor<64x32xf32, #jfa.wgmma_acc>
  %t = arith.addf %t0, %rank_t : tensor<64x32xf32, #jfa.wgmma_acc>
  jfa.local_store %t, %s on cta %peer : tensor<64x32xf32, #jfa.wgmma_acc> -> !jfa.slot<64x32xf32, swizzle 128>
  jfa.barrier_arrive %f on cta %peer
  // The unit: + 10000 u.
  jfa.barrier_wait %uf, %c0
  %u = jfa.load_scalar %u_s[%c0] : !jfa.slot<1xi32> -> i32
  %u_k = arith.muli %u, %c10000 : i32
  %u_f = arith.sitofp %u_k : i32 to f32
  %u_t = tensor.splat %u_f : tensor<64x32xf32, #jfa.wgmma_acc>
  jfa.barrier_wait %f, %c0 acquire(cluster)
  %got = jfa.local_load %s : !jfa.slot<64x32xf32, swizzle 128> -> tensor<64x32xf32, #jfa.wgmma_acc>
  %res = arith.addf %got, %u_t : tensor<64x32xf32, #jfa.wgmma_acc>
  %at = arith.muli %rank, %c64 : i32
  %off = arith.muli %at, %c32 : i32
  jfa.store_tile %res, %out[%off] stride(%c32) rows(%c64) : tensor<64x32xf32, #jfa.wgmma_acc>, !jfa.ptr<f32>
}

// @pull: the other direction, and 16-bit tiles. Each CTA stores an f32
// tile into its own slot and a bf16 tile into its peer's (`on cta`: pairs
// of bf16 by st.shared::cluster, not stmatrix), arrives on the peer's
// barrier and, after its wait, loads the peer's f32 slot (`on cta`:
// ld.shared::cluster) and its own bf16 slot, now its peer's tile.
// RUN: %python %S/Inputs/make_npy.py %t.f.npy f4 2x64x32 -1
// RUN: %python %S/Inputs/make_npy.py %t.b.npy f4 2x64x64 -1
// RUN: jfa-interp %s --arch sm_90a --kernel pull --grid 2 %t.f.npy %t.b.npy
// RUN: %python -c "import numpy as n; f = n.load('%t.f.npy'); b = n.load('%t.b.npy'); r = n.arange(64)[:, None]; assert all((f[k] == r * 32 + n.arange(32) + 4096 * (k ^ 1)).all() and (b[k] == r %% 2 + n.arange(64) + 64 * (k ^ 1)).all() for k in range(2)), (f, b); print('pull ok')" | FileCheck %s --check-prefix=PULL
// PULL: pull ok
jfa.kernel @pull(%f: !jfa.ptr<f32>, %b: !jfa.ptr<f32>) warps(4) cluster(2, 1, 1) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x32xf32, swizzle 128>
  %pairs = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %ready = jfa.alloc_barriers arrive_count(128) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %c2048 = arith.constant 2048 : i32
  %c4096 = arith.constant 4096 : i32
  %rank = jfa.cluster_rank
  %peer = arith.xori %rank, %c1 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x32xf32, swizzle 128>, i32
  %p = jfa.slot %pairs[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  %r = jfa.barrier %ready[%c0] : !jfa.mbarriers<1>, i32
  // f32: 32 row + col + 4096 rank, into this CTA's slot.
  %rows = jfa.iota rows : tensor<64x32xi32, #jfa.wgmma_acc>
  %cols = jfa.iota cols : tensor<64x32xi32, #jfa.wgmma_acc>
  %k32 = arith.constant dense<32> : tensor<64x32xi32, #jfa.wgmma_acc>
  %row_base = arith.muli %rows, %k32 : tensor<64x32xi32, #jfa.wgmma_acc>
  %flat = arith.addi %row_base, %cols : tensor<64x32xi32, #jfa.wgmma_acc>
  %rank_k = arith.muli %rank, %c4096 : i32
  %rank_t = tensor.splat %rank_k : tensor<64x32xi32, #jfa.wgmma_acc>
  %mine = arith.addi %flat, %rank_t : tensor<64x32xi32, #jfa.wgmma_acc>
  %mine_f = arith.sitofp %mine : tensor<64x32xi32, #jfa.wgmma_acc> to tensor<64x32xf32, #jfa.wgmma_acc>
  jfa.local_store %mine_f, %s : tensor<64x32xf32, #jfa.wgmma_acc> -> !jfa.slot<64x32xf32, swizzle 128>
  // bf16: row % 2 + col + 64 rank (exact in bf16), into the peer's slot.
  %brows = jfa.iota rows : tensor<64x64xi32, #jfa.wgmma_acc>
  %bcols = jfa.iota cols : tensor<64x64xi32, #jfa.wgmma_acc>
  %k2 = arith.constant dense<2> : tensor<64x64xi32, #jfa.wgmma_acc>
  %odd = arith.remui %brows, %k2 : tensor<64x64xi32, #jfa.wgmma_acc>
  %bflat = arith.addi %odd, %bcols : tensor<64x64xi32, #jfa.wgmma_acc>
  %rank64 = arith.muli %rank, %c64 : i32
  %rank64_t = tensor.splat %rank64 : tensor<64x64xi32, #jfa.wgmma_acc>
  %bmine = arith.addi %bflat, %rank64_t : tensor<64x64xi32, #jfa.wgmma_acc>
  %bmine_f = arith.sitofp %bmine : tensor<64x64xi32, #jfa.wgmma_acc> to tensor<64x64xf32, #jfa.wgmma_acc>
  %bmine_h = arith.truncf %bmine_f : tensor<64x64xf32, #jfa.wgmma_acc> to tensor<64x64xbf16, #jfa.wgmma_acc>
  jfa.local_store %bmine_h, %p on cta %peer : tensor<64x64xbf16, #jfa.wgmma_acc> -> !jfa.slot<64x64xbf16, swizzle 128>
  jfa.barrier_arrive %r on cta %peer
  jfa.barrier_wait %r, %c0 acquire(cluster)
  %theirs = jfa.local_load %s on cta %peer : !jfa.slot<64x32xf32, swizzle 128> -> tensor<64x32xf32, #jfa.wgmma_acc>
  %fo = arith.muli %rank, %c2048 : i32
  jfa.store_tile %theirs, %f[%fo] stride(%c32) rows(%c64) : tensor<64x32xf32, #jfa.wgmma_acc>, !jfa.ptr<f32>
  %got_h = jfa.local_load %p : !jfa.slot<64x64xbf16, swizzle 128> -> tensor<64x64xbf16, #jfa.wgmma_acc>
  %got = arith.extf %got_h : tensor<64x64xbf16, #jfa.wgmma_acc> to tensor<64x64xf32, #jfa.wgmma_acc>
  %bo = arith.muli %rank, %c4096 : i32
  jfa.store_tile %got, %b[%bo] stride(%c64) rows(%c64) : tensor<64x64xf32, #jfa.wgmma_acc>, !jfa.ptr<f32>
}
