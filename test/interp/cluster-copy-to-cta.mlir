// jfa.copy_to_cta: a cluster of two CTAs swaps tiles through shared memory
// by bulk copy. In each of two rounds, each CTA arms its receive barrier
// (its own arrival and the 8192 bytes its peer's copy brings), writes a
// 64x32 #jfa.wgmma_acc tile (x[c] + 100 row + 1000 rank + 500000 round)
// into its send slot, fences and synchronizes, and one thread copies the
// slot into the peer's receive slot (`on cta`, rank xor 1). After its wait
// the CTA reads what its peer sent and writes it to out[rank][round]; it
// then tells its peer, by an arrival on the peer's barrier, that the copy
// has landed (so the peer's send slot has been read) and that its receive
// slot is free again (read, then fenced: the next copy writes it through
// the async proxy), and waits for the same word from its peer before the
// next round writes its send slot.
// RUN: %python -c "import numpy as n; n.save('%t.x.npy', (n.arange(32) %% 7).astype(n.float32))"
// RUN: %python %S/Inputs/make_npy.py %t.out.npy f4 2x2x64x32 -1
// RUN: jfa-interp %s --arch sm_90a --kernel swap --grid 2 %t.x.npy %t.out.npy
// RUN: %python -c "import numpy as n; x = n.load('%t.x.npy'); o = n.load('%t.out.npy'); rows = n.arange(64)[:, None] * 100.0; want = [[x[None, :] + rows + 1000 * (r ^ 1) + 500000 * k for k in range(2)] for r in range(2)]; assert all((o[r][k] == want[r][k]).all() for r in range(2) for k in range(2)), o; print('swap ok')" | FileCheck %s --check-prefix=OK
// OK: swap ok
//
// Without the wait, the receiver reads its slot with nothing ordering the
// copy's write before the read: jfa-interp runs CTA 0 until it blocks, so
// CTA 0 reads a slot its peer has not copied into yet.
// RUN: sed '/jfa.barrier_wait %%f, %%phase$/d' %s > %t.nowait.mlir
// RUN: not jfa-interp %t.nowait.mlir --arch sm_90a --kernel swap --grid 2 %t.x.npy %t.out.npy 2>&1 | FileCheck %s --check-prefix=NOWAIT
// NOWAIT: nowait.mlir:[[# @LINE + 59]]:12: error: reads row 0 of slot 0 of %recv of CTA (0, 0, 0), which nothing has written
//
// Without the peer's word, the second round overwrites the send slot while,
// as far as this CTA knows, the first round's copy still reads it: the
// copy's completion shows only on the receiver's barrier.
// RUN: sed '/jfa.barrier_wait %%e, %%phase acquire(cluster)/d' %s > %t.reuse.mlir
// RUN: not jfa-interp %t.reuse.mlir --arch sm_90a --kernel swap --grid 2 %t.x.npy %t.out.npy 2>&1 | FileCheck %s --check-prefix=REUSE
// REUSE: reuse.mlir:[[# @LINE + 48]]:5: error: race: overwrites row 0 of slot 0 of %send of CTA (1, 0, 0) while, as far as the writer knows, a jfa.copy_to_cta still reads it: the copy's completion shows only on the receiving CTA's barrier, so the receiver must tell this CTA (an arrival on a barrier here after its wait, waited on before this write)
// REUSE: reuse.mlir:[[# @LINE + 50]]:5: note: the jfa.copy_to_cta
//
// Without the fence after the threads' writes, the copy (the async proxy)
// reads what they wrote through the generic proxy unordered.
// RUN: sed '/jfa.fence_async_shared  \/\/ before the copy/d' %s > %t.nofence.mlir
// RUN: not jfa-interp %t.nofence.mlir --arch sm_90a --kernel swap --grid 2 %t.x.npy %t.out.npy 2>&1 | FileCheck %s --check-prefix=NOFENCE
// NOFENCE: nofence.mlir:[[# @LINE + 43]]:5: error: the async proxy (TMA, tensor cores) reads row 0 of slot 0 of %send of CTA (0, 0, 0), which threads wrote without a jfa.fence_async_shared

jfa.kernel @swap(%x: !jfa.ptr<f32>, %out: !jfa.ptr<f32>) warps(4) cluster(2, 1, 1) {
  %send = jfa.local_alloc : !jfa.smem<1 x 64x32xf32, swizzle 128>
  %recv = jfa.local_alloc : !jfa.smem<1 x 64x32xf32, swizzle 128>
  // The receive barrier: its own expect, and the peer's copy's bytes.
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  // The peer's 128 threads: its copy has landed, its receive slot is free.
  %done = jfa.alloc_barriers arrive_count(128) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %c1000 = arith.constant 1000 : i32
  %c2048 = arith.constant 2048 : i32
  %c500000 = arith.constant 500000 : i32
  %rank = jfa.cluster_rank
  %peer = arith.xori %rank, %c1 : i32
  %s = jfa.slot %send[%c0] : !jfa.smem<1 x 64x32xf32, swizzle 128>, i32
  %r = jfa.slot %recv[%c0] : !jfa.smem<1 x 64x32xf32, swizzle 128>, i32
  %f = jfa.barrier %full[%c0] : !jfa.mbarriers<1>, i32
  %e = jfa.barrier %done[%c0] : !jfa.mbarriers<1>, i32
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
  scf.for %i = %c0 to %c2 step %c1 : i32 {
    %phase = arith.remui %i, %c2 : i32
    jfa.barrier_expect %f, bytes(8192)
    %k = arith.muli %i, %c500000 : i32
    %k_f = arith.sitofp %k : i32 to f32
    %k_t = tensor.splat %k_f : tensor<64x32xf32, #jfa.wgmma_acc>
    %mine = arith.addf %t, %k_t : tensor<64x32xf32, #jfa.wgmma_acc>
    jfa.local_store %mine, %s : tensor<64x32xf32, #jfa.wgmma_acc> -> !jfa.slot<64x32xf32, swizzle 128>
    jfa.fence_async_shared  // before the copy
    jfa.task_barrier
    jfa.copy_to_cta %s, %r, %f on cta %peer : !jfa.slot<64x32xf32, swizzle 128>, !jfa.slot<64x32xf32, swizzle 128>
    jfa.barrier_wait %f, %phase
    %got = jfa.local_load %r : !jfa.slot<64x32xf32, swizzle 128> -> tensor<64x32xf32, #jfa.wgmma_acc>
    %at0 = arith.muli %rank, %c2 : i32
    %at = arith.addi %at0, %i : i32
    %off = arith.muli %at, %c2048 : i32
    jfa.store_tile %got, %out[%off] stride(%c32) rows(%c64) : tensor<64x32xf32, #jfa.wgmma_acc>, !jfa.ptr<f32>
    // The receive slot's read, before the next copy writes it.
    jfa.fence_async_shared
    jfa.barrier_arrive %e on cta %peer
    jfa.barrier_wait %e, %phase acquire(cluster)
  }
}

// @blocks: views. Each CTA writes a 64x64 f32 tile (64 row + col + 10000
// rank) into a blocked slot (two 64x32 column blocks of 8 KB, one after the
// other) and copies the whole slot, then its column block 1 alone (one
// contiguous block), into its peer; one barrier receives both copies'
// bytes.
// RUN: %python %S/Inputs/make_npy.py %t.whole.npy f4 2x64x64 -1
// RUN: %python %S/Inputs/make_npy.py %t.block.npy f4 2x64x32 -1
// RUN: jfa-interp %s --arch sm_90a --kernel blocks --grid 2 %t.whole.npy %t.block.npy
// RUN: %python -c "import numpy as n; w = n.load('%t.whole.npy'); b = n.load('%t.block.npy'); t = n.arange(64)[:, None] * 64.0 + n.arange(64); assert all((w[r] == t + 10000 * (r ^ 1)).all() and (b[r] == t[:, 32:] + 10000 * (r ^ 1)).all() for r in range(2)), (w, b); print('blocks ok')" | FileCheck %s --check-prefix=BLOCKS
// BLOCKS: blocks ok
jfa.kernel @blocks(%whole_out: !jfa.ptr<f32>, %block_out: !jfa.ptr<f32>) warps(4) cluster(2, 1, 1) {
  %wide = jfa.local_alloc : !jfa.smem<1 x 64x64xf32, swizzle 128>
  %whole = jfa.local_alloc : !jfa.smem<1 x 64x64xf32, swizzle 128>
  %block = jfa.local_alloc : !jfa.smem<1 x 64x32xf32, swizzle 128>
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %c2048 = arith.constant 2048 : i32
  %c4096 = arith.constant 4096 : i32
  %c10000 = arith.constant 10000 : i32
  %rank = jfa.cluster_rank
  %peer = arith.xori %rank, %c1 : i32
  %w = jfa.slot %wide[%c0] : !jfa.smem<1 x 64x64xf32, swizzle 128>, i32
  %wr = jfa.slot %whole[%c0] : !jfa.smem<1 x 64x64xf32, swizzle 128>, i32
  %br = jfa.slot %block[%c0] : !jfa.smem<1 x 64x32xf32, swizzle 128>, i32
  %f = jfa.barrier %full[%c0] : !jfa.mbarriers<1>, i32
  jfa.barrier_expect %f, bytes(24576)
  %rows = jfa.iota rows : tensor<64x64xi32, #jfa.wgmma_acc>
  %cols = jfa.iota cols : tensor<64x64xi32, #jfa.wgmma_acc>
  %k64 = arith.constant dense<64> : tensor<64x64xi32, #jfa.wgmma_acc>
  %row_base = arith.muli %rows, %k64 : tensor<64x64xi32, #jfa.wgmma_acc>
  %flat = arith.addi %row_base, %cols : tensor<64x64xi32, #jfa.wgmma_acc>
  %rank_k = arith.muli %rank, %c10000 : i32
  %rank_t = tensor.splat %rank_k : tensor<64x64xi32, #jfa.wgmma_acc>
  %mine = arith.addi %flat, %rank_t : tensor<64x64xi32, #jfa.wgmma_acc>
  %mine_f = arith.sitofp %mine : tensor<64x64xi32, #jfa.wgmma_acc> to tensor<64x64xf32, #jfa.wgmma_acc>
  jfa.local_store %mine_f, %w : tensor<64x64xf32, #jfa.wgmma_acc> -> !jfa.slot<64x64xf32, swizzle 128>
  jfa.fence_async_shared
  jfa.task_barrier
  jfa.copy_to_cta %w, %wr, %f on cta %peer : !jfa.slot<64x64xf32, swizzle 128>, !jfa.slot<64x64xf32, swizzle 128>
  %hi = jfa.column_block %w[%c1] : !jfa.slot<64x64xf32, swizzle 128> -> !jfa.slot<64x32xf32, swizzle 128>
  jfa.copy_to_cta %hi, %br, %f on cta %peer : !jfa.slot<64x32xf32, swizzle 128>, !jfa.slot<64x32xf32, swizzle 128>
  jfa.barrier_wait %f, %c0
  %got_w = jfa.local_load %wr : !jfa.slot<64x64xf32, swizzle 128> -> tensor<64x64xf32, #jfa.wgmma_acc>
  %got_b = jfa.local_load %br : !jfa.slot<64x32xf32, swizzle 128> -> tensor<64x32xf32, #jfa.wgmma_acc>
  %wo = arith.muli %rank, %c4096 : i32
  jfa.store_tile %got_w, %whole_out[%wo] stride(%c64) rows(%c64) : tensor<64x64xf32, #jfa.wgmma_acc>, !jfa.ptr<f32>
  %bo = arith.muli %rank, %c2048 : i32
  jfa.store_tile %got_b, %block_out[%bo] stride(%c32) rows(%c64) : tensor<64x32xf32, #jfa.wgmma_acc>, !jfa.ptr<f32>
}
