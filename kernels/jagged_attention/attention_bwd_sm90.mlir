// jfa-targets: sm_90a
// jfa-variants: head_dim=64,128 causal=0,1 general=0,1,2,3,4,5,6
// Jagged (variable-length) flash attention backward for sm_90a, FA3's
// pattern (kernels/jagged_attention/README.md has the contract):
//
//   P = exp(scale * Q K^T - lse),  dP = dO V^T,  dS = scale * P * (dP - delta)
//   dV = P^T dO,  dK = dS^T Q,  dQ = dS K
//
// over each sequence's keys and queries (keys <= queries under causal);
// delta = rowsum(o * do) comes from attention_bwd_delta.mlir, lse from the
// forward. A work unit is (sequence, head, 128-key tile). The grid is
// persistent and the units are handed out dynamically: the caller's
// schedule lists only the (sequence, key tile) pairs that hold keys,
// longest sequence first and each sequence's tiles in order, every pair for
// each head (python/jfa/_schedule.py says why), and the producer takes the
// next unit from a counter (jfa.atomic_fetch_add) as it starts one, so a
// CTA that drew short units takes more (bench/NOTES.md, runs 29 and 31).
//
// Warp specialization: a producer warpgroup loads the unit's K and V once
// and streams 64-row tiles of Q and dO through a 2-stage ring with TMA. Two
// MMA warpgroups (one task written once, replicas(2)) own 64 keys each: they
// keep dK and dV for those keys in registers over the whole unit, and for
// each q tile compute S and dP with wgmma from shared memory, P and dS in
// registers, then dV += P^T dO and dK += dS^T Q with P and dS stored to
// shared memory and read M-major (wgmma's transpose-A). FA3's order within
// a step: S is waited for before dP, so that P's exponentials run beside
// dP's product, and at D = 128 dV, dQ and dK are issued in that order, so
// that dQ's store and add run beside dK's product (bench/NOTES.md run 73;
// at D = 64 dK goes before dQ, which one warpgroup at a time computes
// there). dQ = dS K is computed once per q tile, as FA3 does: each
// warpgroup takes one 64-column chunk of dQ over all 128 keys (both
// warpgroups' dS, synchronized by the ds_ready / ds_free barriers), and
// adds it to an f32 workspace through shared memory with TMA's reduce-add
// (`tma_store ... add`): several units add to the same q rows. Half the
// reduce traffic of a dQ per warpgroup (ncu, eq4k: 409 M -> 208 M L2
// reduction sectors; bench/NOTES.md run 34).
// The caller zeroes the workspace first and converts it to bf16 afterwards.
//
// A row of D bf16 is D/64 blocks of 64 columns (one 128-byte swizzle span
// each), stored block after block in one slot. At D = 128 the products read
// the slots whole, which halves the shared-memory reads of the
// transpose-A operands: S and dP with K = 128 in one chain, dV and dK with
// N = 128 (P^T and dS^T read once, not once per 64 columns; the two 64x64
// accumulators of each joined for the product and cut after it: register
// moves), and dQ takes this warpgroup's own dS from registers. At D = 64
// they read the first block (jfa.column_block). bench/NOTES.md run 39.
// Masks (the sequence's end, the causal diagonal, a window's edges, and on
// a block-sparse mask's grid the row and key floors, @unit) are applied to
// the tiles that hold them; rows past the end or below a floor are never
// written (row-clipped stores and adds). In the plain variant at D = 64
// a warpgroup whose 64 keys no query of the step's tile sees (past the
// sequence's end, above the causal diagonal: a causal unit's first step
// for the upper half) skips the step's products but its share of dQ
// (bench/NOTES.md run 99).
//
// The general variant (jfa.param "general") adds the forward's options: a
// sliding window (%window_left/%window_right), grouped-query attention (a
// unit is a k/v head's key tile; a loop over the %kv_group q heads that
// read it sums their dK and dV; with %kv_split > 1 those heads are split
// over that many units, whose dK and dV are added into f32 sums:
// @unit_heads) and cross-attention (%offsets_k: the key
// sequences, ends aligned with the queries'). A unit walks only the q tiles
// that see its keys (@unit), at least one, so that keys no query sees get
// dK = dV = 0. Without it they fold away. The block-sparse variants
// (general 4-6: a mask over the packed axes in 128-token blocks,
// kernels/lib/block_mask.mlir) walk only the q tiles with a listed block
// for the unit's keys (@tile_walk), each q head its own.

// The dynamic work queue (@fetch_unit, @take_unit) and the decode of its
// units (@unit), shared with
// attention_bwd_sm100.mlir.
jfa.import "../lib/work_queue.mlir"
// The block-sparse mask's walk of the q tiles, and the key end of a step
// whose tile is not listed (@step_keys_end).
jfa.import "../lib/block_mask.mlir"
// GDPA's activation and its gradient (@activation_grad).
jfa.import "../lib/online_softmax.mlir"

// A q tile's lse and delta (rows from %rows_at; those at or past %left
// are 0 and never read) when %load, else zeros (GDPA has neither).
jfa.func @load_coef(%load: i1, %lse: !jfa.ptr<f32>, %delta: !jfa.ptr<f32>,
                    %rows_at: i32, %left: i32)
    -> (tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>) {
  %r:2 = scf.if %load -> (tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>) {
    %lse_r = jfa.load_rows %lse[%rows_at] rows(%left) : !jfa.ptr<f32> -> tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
    %delta_r = jfa.load_rows %delta[%rows_at] rows(%left) : !jfa.ptr<f32> -> tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
    scf.yield %lse_r, %delta_r : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  } else {
    %zero = arith.constant dense<0.0> : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
    scf.yield %zero, %zero : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  }
  jfa.return %r#0, %r#1 : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
}

// dK += dS^T Q for one warpgroup's 64 keys, issued if %issue and left
// running (the caller waits), else dK unchanged: at D = 128 one N = 128
// product over Q's two blocks, the accumulators joined for it and cut after
// it; at D = 64 the first block.
jfa.func @dk_product(%issue: i1, %wide: i1,
                     %ds_t: !jfa.slot<64x64xbf16, swizzle 128, transposed>,
                     %q_s: !jfa.slot<64x128xbf16, swizzle 128>,
                     %dk0: tensor<64x64xf32, #jfa.wgmma_acc>,
                     %dk1: tensor<64x64xf32, #jfa.wgmma_acc>)
    -> (tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>) {
  %c0 = arith.constant 0 : i32
  %r:2 = scf.if %issue -> (tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>) {
    %w:2 = scf.if %wide -> (tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>) {
      %dk_w = tensor.concat dim(1) %dk0, %dk1 : (tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>) -> tensor<64x128xf32, #jfa.wgmma_acc>
      %q_t = jfa.transpose %q_s : !jfa.slot<64x128xbf16, swizzle 128>
      %dk_n = jfa.async_dot %ds_t, %q_t, %dk_w : !jfa.slot<64x64xbf16, swizzle 128, transposed>, !jfa.slot<128x64xbf16, swizzle 128, transposed>, tensor<64x128xf32, #jfa.wgmma_acc>
      %dk0_n = tensor.extract_slice %dk_n[0, 0] [64, 64] [1, 1] : tensor<64x128xf32, #jfa.wgmma_acc> to tensor<64x64xf32, #jfa.wgmma_acc>
      %dk1_n = tensor.extract_slice %dk_n[0, 64] [64, 64] [1, 1] : tensor<64x128xf32, #jfa.wgmma_acc> to tensor<64x64xf32, #jfa.wgmma_acc>
      scf.yield %dk0_n, %dk1_n : tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>
    } else {
      %q_blk = jfa.column_block %q_s[%c0] : !jfa.slot<64x128xbf16, swizzle 128> -> !jfa.slot<64x64xbf16, swizzle 128>
      %q_blk_t = jfa.transpose %q_blk : !jfa.slot<64x64xbf16, swizzle 128>
      %dk0_n = jfa.async_dot %ds_t, %q_blk_t, %dk0 : !jfa.slot<64x64xbf16, swizzle 128, transposed>, !jfa.slot<64x64xbf16, swizzle 128, transposed>, tensor<64x64xf32, #jfa.wgmma_acc>
      scf.yield %dk0_n, %dk1 : tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>
    }
    scf.yield %w#0, %w#1 : tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>
  } else {
    scf.yield %dk0, %dk1 : tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>
  }
  jfa.return %r#0, %r#1 : tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>
}

// One 64-column chunk of a unit's dK or dV, rows [%first, %rows), to its
// place in dk / dv. The tile goes through %scratch (this warpgroup's free
// 8 KB slot) into the blocked layout, where a warp stores two whole rows at
// once (8 bytes a thread), not 8 rows of 16 bytes with an address per
// register pair: that epilogue cost 15% of a short causal backward
// (bench/NOTES.md run 73).
jfa.func @write_dkv(%x16: tensor<64x64xbf16, #jfa.wgmma_acc>,
                    %out: !jfa.ptr<bf16>, %out_at: i32, %out_stride: i32,
                    %rows: i32, %first: i32,
                    %scratch: !jfa.slot<64x64xbf16, swizzle 128>) {
  jfa.local_store %x16, %scratch : tensor<64x64xbf16, #jfa.wgmma_acc> -> !jfa.slot<64x64xbf16, swizzle 128>
  jfa.task_barrier
  %rowwise = jfa.local_load %scratch : !jfa.slot<64x64xbf16, swizzle 128> -> tensor<64x64xbf16>
  // The next chunk overwrites the slot once every thread has read it.
  jfa.task_barrier
  jfa.store_tile %rowwise, %out[%out_at] stride(%out_stride) rows(%rows) from(%first) : tensor<64x64xbf16>, !jfa.ptr<bf16>
  jfa.return
}

// One 64-column chunk each of dV and dK for a whole 64-key tile (no row to
// clip): stored to two free 8 KB slots of this warpgroup and written out by
// TMA, so that the warpgroup goes on to the next unit while the TMA unit
// copies them (the next unit waits for their reads before its first step
// overwrites the slots). The tile's rows start at %row, its columns at %col
// of dv / dk as [T_k, H_kv*D].
jfa.func @store_dkv_tma(%dv16: tensor<64x64xbf16, #jfa.wgmma_acc>,
                        %dk16: tensor<64x64xbf16, #jfa.wgmma_acc>,
                        %dv_out: !jfa.tma<64x64xbf16, swizzle 128>,
                        %dk_out: !jfa.tma<64x64xbf16, swizzle 128>,
                        %row: i32, %col: i32,
                        %slot_v: !jfa.slot<64x64xbf16, swizzle 128>,
                        %slot_k: !jfa.slot<64x64xbf16, swizzle 128>) {
  jfa.local_store %dv16, %slot_v : tensor<64x64xbf16, #jfa.wgmma_acc> -> !jfa.slot<64x64xbf16, swizzle 128>
  jfa.local_store %dk16, %slot_k : tensor<64x64xbf16, #jfa.wgmma_acc> -> !jfa.slot<64x64xbf16, swizzle 128>
  jfa.fence_async_shared
  jfa.task_barrier
  jfa.tma_store %slot_v, %dv_out[%row, %col] : !jfa.slot<64x64xbf16, swizzle 128>, !jfa.tma<64x64xbf16, swizzle 128>
  jfa.tma_store %slot_k, %dk_out[%row, %col] : !jfa.slot<64x64xbf16, swizzle 128>, !jfa.tma<64x64xbf16, swizzle 128>
  jfa.return
}

// One 64-column chunk of dQ for q tile rows [%start + %q0, + 64) and
// columns %col0 + 64 %chunk, added into the f32 workspace by TMA's
// reduce-add through this warpgroup's dQ slot, once the last add has read
// the slot (rows past the sequence's end, and below the row floor, which
// are the next and previous sequences', add zeros: dS is masked there).
jfa.func @add_dq_chunk(%dq: tensor<64x64xf32, #jfa.wgmma_acc>,
                       %dq_slot: !jfa.slot<64x64xf32, swizzle 128>,
                       %dq_accum: !jfa.tma<64x32xf32, swizzle 128>,
                       %start: i32, %q0: i32, %col0: i32, %chunk: i32) {
  %c64 = arith.constant 64 : i32
  %q_row = arith.addi %start, %q0 : i32
  %chunk_col = arith.muli %chunk, %c64 : i32
  %dq_col = arith.addi %col0, %chunk_col : i32
  jfa.tma_store_wait pending(0)
  jfa.task_barrier
  jfa.local_store %dq, %dq_slot : tensor<64x64xf32, #jfa.wgmma_acc> -> !jfa.slot<64x64xf32, swizzle 128>
  jfa.fence_async_shared
  jfa.task_barrier
  jfa.tma_store %dq_slot, %dq_accum[%q_row, %dq_col] add : !jfa.slot<64x64xf32, swizzle 128>, !jfa.tma<64x32xf32, swizzle 128>
  jfa.return
}

jfa.kernel @attention_bwd_sm90(%q: !jfa.tma<64x64xbf16, swizzle 128>,
                               %k: !jfa.tma<64x64xbf16, swizzle 128>,
                               %v: !jfa.tma<64x64xbf16, swizzle 128>,
                               %do: !jfa.tma<64x64xbf16, swizzle 128>,
                               %dk: !jfa.ptr<bf16>, %dv: !jfa.ptr<bf16>,
                               %dq_accum: !jfa.tma<64x32xf32, swizzle 128>,
                               %lse: !jfa.ptr<f32>, %delta: !jfa.ptr<f32>,
                               %offsets: !jfa.ptr<i32>, %schedule: !jfa.ptr<i32>,
                               %batch: i32, %heads: i32,
                               %tokens: i32, %stride: i32, %k_tiles: i32,
                               %scale_log2: f32, %scale: f32,
                               %offsets_k: !jfa.ptr<i32>, %kv_group: i32,
                               %window_left: i32, %window_right: i32,
                               %kv_stride: i32, %kv_split: i32,
                               %dk_accum: !jfa.ptr<f32>,
                               %dv_accum: !jfa.ptr<f32>,
                               %block_bits: !jfa.ptr<i32>, %block_words: i32,
                               %block_head_stride: i32,
                               %dk_out: !jfa.tma<64x64xbf16, swizzle 128>,
                               %dv_out: !jfa.tma<64x64xbf16, swizzle 128>) warps(12) {
  // Compiled for each head dim (64 or 128) and mask: jfac -P head_dim=64
  // -P causal=1 -P general=1; the branches on them fold away.
  %head_dim = jfa.param "head_dim" = 128 : i32
  %is_causal = jfa.param "causal" = false
  // 0 plain, 1 general (window, grouped-query and cross-attention), 2, 3
  // general with GDPA's silu or gelu_tanh in place of softmax; 4, 5, 6
  // those three block-sparse (%block_bits; read only then).
  %general_kind = jfa.param "general" = 0 : i32
  // K, V: half g (keys [64g, 64g + 64) of the tile) in slot g; Q, dO: stage
  // s in slot s. A row of D = 128 is two 64-column blocks (one 128-byte
  // swizzle span each): the products read the slot whole (K = 128 for S and
  // dP, N = 128 for dV and dK: P^T and dS^T read once, not once per 64
  // columns), and, at D = 64, its first block (jfa.column_block).
  %k_buf = jfa.local_alloc : !jfa.smem<2 x 64x128xbf16, swizzle 128>
  %v_buf = jfa.local_alloc : !jfa.smem<2 x 64x128xbf16, swizzle 128>
  %q_ring = jfa.local_alloc : !jfa.smem<2 x 64x128xbf16, swizzle 128>
  %do_ring = jfa.local_alloc : !jfa.smem<2 x 64x128xbf16, swizzle 128>
  // P of MMA warpgroup g in slot g, [q, key], read back transposed by its dV.
  %p_buf = jfa.local_alloc : !jfa.smem<2 x 64x64xbf16, swizzle 128>
  // dS, [q, key]: q tile n's in the pair n mod 2, warpgroup g's keys in slot
  // 2 (n mod 2) + g. Its own dK reads its half transposed; the dQ products
  // of both warpgroups read the pair, so it is double-buffered: a
  // warpgroup may store tile n + 1's dS while the other still reads tile n's.
  %ds_buf = jfa.local_alloc : !jfa.smem<4 x 64x64xbf16, swizzle 128>
  // The dQ chunk of warpgroup g in slot g, on its way to the workspace:
  // swizzled (two 32-column blocks per slot, one TMA add each). Unswizzled,
  // the 8 rows a warp stores at once share their banks: ncu counted 211 M
  // bank conflicts on eq4k (run 26), 70 M swizzled; 2-10% faster.
  %dq_buf = jfa.local_alloc : !jfa.smem<2 x 64x64xf32, swizzle 128>
  // full: the producer's expect plus the TMA bytes; empty: the 256 MMA
  // threads, once they no longer read the slots.
  // The work queue's ring (@fetch_unit, @take_unit): 384 readers.
  %next_buf = jfa.local_alloc : !jfa.smem<2 x 1xi32>
  // Block-sparse: the producer's hand-off for Q / dO stage s (@hand_over,
  // block_mask.mlir): slot 2s holds the step's q tile and whether each of
  // its two 64-key halves, one per MMA warpgroup, is listed (@tile_word), slot 2s + 1 (at
  // a head's first step) the head's steps. Only the producer's walk
  // searches the bitmap (with the search in the MMA warpgroups' loop ptxas
  // spilled 388 B at D = 128; with the steps and tiles still looked up
  // there, 332 B).
  %tile_buf = jfa.local_alloc : !jfa.smem<4 x 128xi32>
  %next_full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  %next_empty = jfa.alloc_barriers arrive_count(384) : !jfa.mbarriers<2>
  %kv_full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %kv_empty = jfa.alloc_barriers arrive_count(256) : !jfa.mbarriers<1>
  %q_full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  %q_empty = jfa.alloc_barriers arrive_count(256) : !jfa.mbarriers<2>
  // dS pair p: ready once both MMA warpgroups stored their half; free once
  // both no longer read it (their dQ products done).
  %ds_ready = jfa.alloc_barriers arrive_count(256) : !jfa.mbarriers<2>
  %ds_free = jfa.alloc_barriers arrive_count(256) : !jfa.mbarriers<2>

  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c63 = arith.constant 63 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  // Units: each listed (sequence, key tile) pair for every k/v head.
  %pairs = jfa.load %schedule[%c0] : !jfa.ptr<i32> -> i32
  // The variant's options (kernels/lib/band_schedule.mlir).
  %general, %kv_group_eff, %activation, %is_softmax, %sparse = jfa.call @attention_variant(%general_kind, %kv_group)
      : (i32, i32) -> (i1, i32, i32, i1, i1)
  // gelu_tanh's gradient keeps x, t and p live beside the dK and dV
  // accumulators, and its variants spill at D = 128. LLVM's register-
  // pressure scheduler ran them 6-11% faster on an H100 (bench/NOTES.md
  // run 66). In the softmax variants it made ptxas spill and ran up to 3%
  // slower, so they keep source order.
  %is_gelu_tanh = arith.cmpi eq, %activation, %c2 : i32
  jfa.schedule_for_registers if %is_gelu_tanh
  // The block-sparse walks go along the queries.
  %along_q = arith.constant true
  // dK and dV's token stride: %stride (dq's) but in the general variant.
  %dkv_stride = arith.select %general, %kv_stride, %stride : i32
  %kv_heads = arith.divui %heads, %kv_group_eff : i32
  // A unit walks %per_unit q heads of one k/v head (all kv_group of them
  // unless the caller splits them, @unit_heads); split, dK and dV are
  // added into the f32 sums %dk_accum, %dv_accum ([T_k, H_kv * D]).
  %per_unit, %unit_kv, %kv_split_eff, %summed = jfa.call @unit_heads(%heads, %kv_group_eff, %kv_split, %general)
      : (i32, i32, i32, i1) -> (i32, i32, i32, i1)
  %sum_stride = arith.muli %kv_heads, %head_dim : i32
  %units = arith.muli %pairs, %unit_kv : i32
  // Whether a query's keys end before the sequence's (causal or a window's
  // right side) and start after its first (a window's left side).
  %bounded_hi = arith.ori %is_causal, %general : i1
  %wide = arith.cmpi eq, %head_dim, %c128 : i32
  %narrow = arith.cmpi ne, %head_dim, %c128 : i32
  %kv_full0 = jfa.barrier %kv_full[%c0] : !jfa.mbarriers<1>, i32
  %kv_empty0 = jfa.barrier %kv_empty[%c0] : !jfa.mbarriers<1>, i32

  jfa.async_tasks {
    // The two MMA warpgroups (warps 0-3 and 4-7): warpgroup g owns keys
    // [64g, 64g + 64) of the tile.
    jfa.task warps(4) replicas(2) registers(240) {
      %g = jfa.replica_id : i32
      %zero = arith.constant dense<0.0> : tensor<64x64xf32, #jfa.wgmma_acc>
      %zero16 = arith.constant dense<0.0> : tensor<64x64xbf16, #jfa.wgmma_acc>
      %zero_rows = arith.constant dense<0.0> : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
      %log2e = arith.constant dense<1.44269504> : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
      %scale_t = tensor.splat %scale_log2 : tensor<64x64xf32, #jfa.wgmma_acc>
      %ds_scale = tensor.splat %scale : tensor<64x64xf32, #jfa.wgmma_acc>
      %true = arith.constant true
      %not_bounded = arith.xori %bounded_hi, %true : i1
      %dense = arith.xori %sparse, %true : i1
      %prefetch = arith.andi %is_softmax, %dense : i1
      %load_here = arith.andi %is_softmax, %sparse : i1
      // The plain variant (general 0): no window, and at D = 64 the one
      // whose warpgroups skip the steps where they see no key (below).
      %plain = arith.xori %general, %true : i1
      %skips_unseen = arith.andi %narrow, %plain : i1
      %k_mine = jfa.slot %k_buf[%g] : !jfa.smem<2 x 64x128xbf16, swizzle 128>, i32
      %v_mine = jfa.slot %v_buf[%g] : !jfa.smem<2 x 64x128xbf16, swizzle 128>, i32
      %g_other = arith.xori %g, %c1 : i32
      %k_other = jfa.slot %k_buf[%g_other] : !jfa.smem<2 x 64x128xbf16, swizzle 128>, i32
      %p_slot = jfa.slot %p_buf[%g] : !jfa.smem<2 x 64x64xbf16, swizzle 128>, i32
      %dq_slot = jfa.slot %dq_buf[%g] : !jfa.smem<2 x 64x64xf32, swizzle 128>, i32
      %p_t = jfa.transpose %p_slot : !jfa.slot<64x64xbf16, swizzle 128>
      // Chunks of 64 columns in a row of D.
      %chunks = arith.divui %head_dim, %c64 : i32
      %key_off = arith.muli %g, %c64 : i32

      // Units from the producer's fetches; the first past the last ends the loop.
      %counts:4 = scf.while (%taken = %c0, %unit_n = %c0, %q_n = %c0)
          : (i32, i32, i32) -> (i32, i32, i32, i32) {
        %fetched, %more = jfa.call @take_next_unit(%taken, %units, %next_buf, %next_full, %next_empty)
            : (i32, i32, !jfa.smem<2 x 1xi32>, !jfa.mbarriers<2>, !jfa.mbarriers<2>) -> (i32, i1)
        scf.condition(%more) %fetched, %taken, %unit_n, %q_n : i32, i32, i32, i32
      } do {
      ^bb0(%u: i32, %taken: i32, %unit_n: i32, %q_n: i32):
        %hk, %start, %len, %start_k, %len_k, %k0, %live, %q_first, %q_count, %kv_col0, %lo_off, %hi_off, %row_floor, %key_floor = jfa.call @unit(%u, %k_tiles, %unit_kv, %kv_split_eff, %head_dim, %offsets, %offsets_k, %schedule, %is_causal, %general, %window_left, %window_right, %c64, %sparse)
            : (i32, i32, i32, i32, i32, !jfa.ptr<i32>, !jfa.ptr<i32>, !jfa.ptr<i32>, i1, i1, i32, i32, i32, i1) -> (i32, i32, i32, i32, i32, i32, i1, i32, i32, i32, i32, i32, i32, i32)
        %q_last = arith.addi %q_first, %q_count : i32
        %h_base = arith.muli %hk, %per_unit : i32
        %next:2 = scf.if %live -> (i32, i32) {
          %my_k0 = arith.addi %k0, %key_off : i32
          %my_k_end = arith.addi %my_k0, %c64 : i32
          %keys_past = arith.cmpi sgt, %my_k_end, %len_k : i32

          %kv_phase = arith.andi %unit_n, %c1 : i32
          jfa.barrier_wait %kv_full0, %kv_phase
          // The last unit's dK and dV TMA stores read the P and dS slots
          // that this unit's first step writes. Softmax waits here; GDPA in
          // its first step, just before the P store, so that the S and dP
          // products run meanwhile: there ptxas spills far less (gelu_tanh
          // 608 -> 72 B at D = 128) and runs 20% faster, while the softmax
          // variants ran 1-3% slower so (bench/NOTES.md, run 77).
          scf.if %is_softmax {
            jfa.tma_store_wait pending(0)
            jfa.task_barrier
          }
          // The q heads that read this k/v head (one without grouped-query
          // attention), each over the q tiles that see the unit's keys.
          %acc:5 = scf.for %member = %c0 to %per_unit step %c1
              iter_args(%dv0_g = %zero, %dv1_g = %zero, %dk0_g = %zero, %dk1_g = %zero, %member_n = %q_n)
              -> (tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>,
                  tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>, i32) : i32 {
          %h = arith.addi %h_base, %member : i32
          %col0 = arith.muli %h, %head_dim : i32
          %head_rows = arith.muli %h, %tokens : i32
          %row_base = arith.addi %head_rows, %start : i32
          // Block-sparse: this head's q tiles with a listed block, as the
          // producer walked them: their number comes with the first one's
          // Q (@handed_value), the tiles with each Q (@handed_tile); without
          // a block mask, all %q_count of them from %q_first.
          %head_stage, %head_phase = jfa.ring_position %member_n stages(2) : i32
          scf.if %sparse {
            %head_full = jfa.barrier %q_full[%head_stage] : !jfa.mbarriers<2>, i32
            jfa.barrier_wait %head_full, %head_phase
          }
          %head_word_at = arith.muli %head_stage, %c2 : i32
          %head_steps_at = arith.addi %head_word_at, %c1 : i32
          %steps = jfa.call @handed_value(%sparse, %tile_buf, %head_steps_at, %q_count)
              : (i1, !jfa.smem<4 x 128xi32>, i32, i32) -> i32
          // Without a block mask the q tiles are consecutive, and under
          // softmax each step loads the next tile's lse and delta (the
          // first tile's here): their latency hides behind a whole step
          // instead of stalling P's exponentials (bench/NOTES.md run 72).
          // A block-sparse step learns its tile from the producer and
          // loads them itself.
          %first_q0 = arith.muli %q_first, %c64 : i32
          %first_rows = arith.addi %row_base, %first_q0 : i32
          %first_left = arith.subi %len, %first_q0 : i32
          %first_coef:2 = jfa.call @load_coef(%prefetch, %lse, %delta, %first_rows, %first_left)
              : (i1, !jfa.ptr<f32>, !jfa.ptr<f32>, i32, i32) -> (tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>)
          %acc_h:7 = scf.for %step = %c0 to %steps step %c1
              iter_args(%dv0 = %dv0_g, %dv1 = %dv1_g, %dk0 = %dk0_g, %dk1 = %dk1_g, %i = %q_first,
                        %lse_next = %first_coef#0, %delta_next = %first_coef#1)
              -> (tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>,
                  tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>, i32,
                  tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>) : i32 {
            %n = arith.addi %member_n, %step : i32
            %stage, %phase = jfa.ring_position %n stages(2) : i32
            %q_s = jfa.slot %q_ring[%stage] : !jfa.smem<2 x 64x128xbf16, swizzle 128>, i32
            %do_s = jfa.slot %do_ring[%stage] : !jfa.smem<2 x 64x128xbf16, swizzle 128>, i32
            %q_full_s = jfa.barrier %q_full[%stage] : !jfa.mbarriers<2>, i32
            %q_empty_s = jfa.barrier %q_empty[%stage] : !jfa.mbarriers<2>, i32
            %ds_free_phase = arith.xori %phase, %c1 : i32
            %ds_pair = arith.muli %stage, %c2 : i32
            %ds_pair_1 = arith.addi %ds_pair, %c1 : i32
            %ds_mine_i = arith.addi %ds_pair, %g : i32
            %ds_pair0 = jfa.slot %ds_buf[%ds_pair] : !jfa.smem<4 x 64x64xbf16, swizzle 128>, i32
            %ds_pair1 = jfa.slot %ds_buf[%ds_pair_1] : !jfa.smem<4 x 64x64xbf16, swizzle 128>, i32
            %ds_mine = jfa.slot %ds_buf[%ds_mine_i] : !jfa.smem<4 x 64x64xbf16, swizzle 128>, i32
            %ds_mine_t = jfa.transpose %ds_mine : !jfa.slot<64x64xbf16, swizzle 128>
            %ds_ready_s = jfa.barrier %ds_ready[%stage] : !jfa.mbarriers<2>, i32
            %ds_free_s = jfa.barrier %ds_free[%stage] : !jfa.mbarriers<2>, i32
            jfa.barrier_wait %q_full_s, %phase
            // Block-sparse: the q tile the producer loaded into this stage
            // and whether this warpgroup's 64 keys against it are listed.
            %word_at = arith.muli %stage, %c2 : i32
            %tile, %my_listed = jfa.call @handed_tile(%sparse, %tile_buf, %word_at, %g, %i)
                : (i1, !jfa.smem<4 x 128xi32>, i32, i32, i32) -> (i32, i32)

            // This q tile's lse and delta: loaded a step ahead, or (block-
            // sparse) here, before the products so that their latency hides
            // behind them; then the next tile's (GDPA: neither).
            %q0 = arith.muli %tile, %c64 : i32
            %q_left = arith.subi %len, %q0 : i32
            // Block-sparse: an unlisted tile (a unit's one step when it has
            // none listed) sees no key: the mask's keys end at my_k0.
            %keys_end, %unlisted = jfa.call @step_keys_end(%sparse, %my_listed, %my_k0, %len_k)
                : (i1, i32, i32, i32) -> (i32, i1)

            %rows_at = arith.addi %row_base, %q0 : i32
            %here:2 = jfa.call @load_coef(%load_here, %lse, %delta, %rows_at, %q_left)
                : (i1, !jfa.ptr<f32>, !jfa.ptr<f32>, i32, i32) -> (tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>)
            %lse_i = arith.select %prefetch, %lse_next, %here#0 : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
            %delta_i = arith.select %prefetch, %delta_next, %here#1 : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
            %after_rows = arith.addi %rows_at, %c64 : i32
            %after_left = arith.subi %q_left, %c64 : i32
            %after_coef:2 = jfa.call @load_coef(%prefetch, %lse, %delta, %after_rows, %after_left)
                : (i1, !jfa.ptr<f32>, !jfa.ptr<f32>, i32, i32) -> (tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>)
            // A warpgroup none of whose 64 keys a query of this tile sees
            // (they start at or past the sequence's end, in its last key
            // tile, or lie above the causal diagonal: a causal unit's first
            // step for the upper warpgroup) has P = dS = 0 here: it adds
            // nothing to dV and dK, and its half of dQ's product is zero. It
            // skips S, dP, the exponentials and its dV and dK products, and
            // takes part in dQ only: zeros to its dS slot (the other
            // warpgroup's chunk reads both halves) and its own chunk from the
            // other half. About 7% of warpgroup steps at unif1k causal, 6% at
            // eq1k, 2% at 4K. Only in the plain variant at D = 64: on an H100
            // (bench/NOTES.md run 99, three rounds each) it gained 0.8% at
            // unif1k-d64-causal and lost 0.6% at D = 128 (unif1k and eq1k
            // causal; not profiled: the skipping warpgroup still waits at
            // ds_ready for the other's whole step). The general variants
            // (where a window's left edge would add a case) were not timed
            // with it; at D = 128 ptxas spilled 8 B there with it. (GDPA would
            // also need the first step's wait for the last unit's epilogue,
            // which softmax takes at the unit's start.)
            %tile_last = arith.addi %q0, %c63 : i32
            %last_bound = arith.addi %tile_last, %hi_off : i32
            %after_last = arith.cmpi sge, %my_k0, %last_bound : i32
            %above_all = arith.andi %after_last, %bounded_hi : i1
            %past_end = arith.cmpi sge, %my_k0, %len_k : i32
            %unseen = arith.ori %above_all, %past_end : i1
            %mine_dead = arith.andi %unseen, %skips_unseen : i1
            %dkv:4 = scf.if %mine_dead -> (tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>) {
              jfa.barrier_wait %ds_free_s, %ds_free_phase
              jfa.local_store %zero16, %ds_mine : tensor<64x64xbf16, #jfa.wgmma_acc> -> !jfa.slot<64x64xbf16, swizzle 128>
              jfa.fence_async_shared
              jfa.task_barrier
              jfa.barrier_arrive %ds_ready_s
              jfa.barrier_wait %ds_ready_s, %phase
              %dead_chunk = arith.xori %g, %stage : i32
              %dead_has_dq = arith.cmpi ult, %dead_chunk, %chunks : i32
              scf.if %dead_has_dq {
                %dead_other_i = arith.addi %ds_pair, %g_other : i32
                %dead_ds_other = jfa.slot %ds_buf[%dead_other_i] : !jfa.smem<4 x 64x64xbf16, swizzle 128>, i32
                %dead_kq = jfa.column_block %k_other[%dead_chunk] : !jfa.slot<64x128xbf16, swizzle 128> -> !jfa.slot<64x64xbf16, swizzle 128>
                %dead_kq_t = jfa.transpose %dead_kq : !jfa.slot<64x64xbf16, swizzle 128>
                %dead_dq_issued = jfa.async_dot %dead_ds_other, %dead_kq_t, %zero : !jfa.slot<64x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128, transposed>, tensor<64x64xf32, #jfa.wgmma_acc>
                %dead_dq = jfa.async_dot_wait pending(0) (%dead_dq_issued) : tensor<64x64xf32, #jfa.wgmma_acc>
                jfa.barrier_arrive %ds_free_s
                jfa.call @add_dq_chunk(%dead_dq, %dq_slot, %dq_accum, %start, %q0, %col0, %dead_chunk)
                    : (tensor<64x64xf32, #jfa.wgmma_acc>, !jfa.slot<64x64xf32, swizzle 128>, !jfa.tma<64x32xf32, swizzle 128>, i32, i32, i32, i32) -> ()
              } else {
                jfa.barrier_arrive %ds_free_s
              }
              scf.yield %dv0, %dv1, %dk0, %dk1 : tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>
            } else {
              // S = Q K^T and dP = dO V^T over the D/64 chunks, one chain each.
              %sd_issued:2 = scf.if %wide -> (tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>) {
                %s_w = jfa.async_dot %q_s, %k_mine, %zero : !jfa.slot<64x128xbf16, swizzle 128>, !jfa.slot<64x128xbf16, swizzle 128>, tensor<64x64xf32, #jfa.wgmma_acc>
                %dp_w = jfa.async_dot %do_s, %v_mine, %zero : !jfa.slot<64x128xbf16, swizzle 128>, !jfa.slot<64x128xbf16, swizzle 128>, tensor<64x64xf32, #jfa.wgmma_acc>
                scf.yield %s_w, %dp_w : tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>
              } else {
                %q_blk = jfa.column_block %q_s[%c0] : !jfa.slot<64x128xbf16, swizzle 128> -> !jfa.slot<64x64xbf16, swizzle 128>
                %do_blk = jfa.column_block %do_s[%c0] : !jfa.slot<64x128xbf16, swizzle 128> -> !jfa.slot<64x64xbf16, swizzle 128>
                %k_blk = jfa.column_block %k_mine[%c0] : !jfa.slot<64x128xbf16, swizzle 128> -> !jfa.slot<64x64xbf16, swizzle 128>
                %v_blk = jfa.column_block %v_mine[%c0] : !jfa.slot<64x128xbf16, swizzle 128> -> !jfa.slot<64x64xbf16, swizzle 128>
                %s_blk = jfa.async_dot %q_blk, %k_blk, %zero : !jfa.slot<64x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128>, tensor<64x64xf32, #jfa.wgmma_acc>
                %dp_blk = jfa.async_dot %do_blk, %v_blk, %zero : !jfa.slot<64x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128>, tensor<64x64xf32, #jfa.wgmma_acc>
                scf.yield %s_blk, %dp_blk : tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>
              }
              // S first: P's exponentials and mask run while dP's product
              // still occupies the tensor cores (FA3's order).
              %s_done = jfa.async_dot_wait pending(1) (%sd_issued#0) : tensor<64x64xf32, #jfa.wgmma_acc>

              // P = exp2(scale_log2 * S - lse * log2 e), zero where masked:
              // keys and queries past the end, keys after the query (causal).
              %lse2 = arith.mulf %lse_i, %log2e : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
              %lse2_t = jfa.broadcast_rows %lse2 : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>> -> tensor<64x64xf32, #jfa.wgmma_acc>
              %delta_t = jfa.broadcast_rows %delta_i : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>> -> tensor<64x64xf32, #jfa.wgmma_acc>
              // GDPA: the scaled score itself, masked below to -1e4, where
              // the activation and its derivative are exactly 0.
              %p_raw = scf.if %is_softmax -> tensor<64x64xf32, #jfa.wgmma_acc> {
                %x = arith.mulf %s_done, %scale_t : tensor<64x64xf32, #jfa.wgmma_acc>
                %x_shift = arith.subf %x, %lse2_t : tensor<64x64xf32, #jfa.wgmma_acc>
                %e = math.exp2 %x_shift fastmath<afn> : tensor<64x64xf32, #jfa.wgmma_acc>
                scf.yield %e : tensor<64x64xf32, #jfa.wgmma_acc>
              } else {
                %x_nat = arith.mulf %s_done, %ds_scale : tensor<64x64xf32, #jfa.wgmma_acc>
                scf.yield %x_nat : tensor<64x64xf32, #jfa.wgmma_acc>
              }
              %fill_p = arith.constant 0.0 : f32
              %fill_x = arith.constant -1.0e4 : f32
              %fill = arith.select %is_softmax, %fill_p, %fill_x : f32
              // Only tiles that hold a sequence's end, the causal diagonal, a
              // window's edge or (block-sparse) a floor, and the one step of a
              // unit with no listed tile, need the mask (the index tiles are made there,
              // not kept in registers): the first query's keys end before the
              // last key, or the last query's start after the first key.
              %q_end = arith.addi %q0, %c64 : i32
              %queries_past = arith.cmpi sgt, %q_end, %len : i32
              %first_hi = arith.addi %q0, %hi_off : i32
              %cut_hi = arith.cmpi slt, %first_hi, %my_k_end : i32
              %cut_above = arith.andi %cut_hi, %bounded_hi : i1
              %q_final = arith.subi %q_end, %c1 : i32
              %final_lo = arith.addi %q_final, %lo_off : i32
              %cut_lo = arith.cmpi sgt, %final_lo, %my_k0 : i32
              %cut_below = arith.andi %cut_lo, %general : i1
              %ends = arith.ori %keys_past, %queries_past : i1
              %cuts = arith.ori %cut_above, %cut_below : i1
              %edges = arith.ori %ends, %cuts : i1
              // On a block-sparse mask's grid: the tile that holds the row or
              // key floor (@unit), whose rows or keys below it are the
              // previous sequence's.
              %rows_below = arith.cmpi slt, %q0, %row_floor : i32
              %keys_below = arith.cmpi slt, %my_k0, %key_floor : i32
              %below = arith.ori %rows_below, %keys_below : i1
              %floor_cut = arith.andi %below, %sparse : i1
              %blk_cuts = arith.ori %unlisted, %floor_cut : i1
              %needs_mask = arith.ori %edges, %blk_cuts : i1
              %p = scf.if %needs_mask -> tensor<64x64xf32, #jfa.wgmma_acc> {
                %masked_p = scf.if %wide -> tensor<64x64xf32, #jfa.wgmma_acc> {
                  // D = 128: the mask as one key bound per row (jfa.mask_cols
                  // makes no index tiles; with them ptxas spilled 40-48 B here).
                  %row = jfa.iota rows : tensor<64xi32, #jfa.rows_of<#jfa.wgmma_acc>>
                  %q0_r = tensor.splat %q0 : tensor<64xi32, #jfa.rows_of<#jfa.wgmma_acc>>
                  %query_r = arith.addi %row, %q0_r : tensor<64xi32, #jfa.rows_of<#jfa.wgmma_acc>>
                  %len_r = tensor.splat %len : tensor<64xi32, #jfa.rows_of<#jfa.wgmma_acc>>
                  %len_k_r = tensor.splat %keys_end : tensor<64xi32, #jfa.rows_of<#jfa.wgmma_acc>>
                  %query_before_end_r = arith.cmpi slt, %query_r, %len_r : tensor<64xi32, #jfa.rows_of<#jfa.wgmma_acc>>
                  // From the row floor (block-sparse: @unit).
                  %query_in_r = scf.if %sparse -> tensor<64xi1, #jfa.rows_of<#jfa.wgmma_acc>> {
                    %floor_r = tensor.splat %row_floor : tensor<64xi32, #jfa.rows_of<#jfa.wgmma_acc>>
                    %above_r = arith.cmpi sge, %query_r, %floor_r : tensor<64xi32, #jfa.rows_of<#jfa.wgmma_acc>>
                    %in_r = arith.andi %query_before_end_r, %above_r : tensor<64xi1, #jfa.rows_of<#jfa.wgmma_acc>>
                    scf.yield %in_r : tensor<64xi1, #jfa.rows_of<#jfa.wgmma_acc>>
                  } else {
                    scf.yield %query_before_end_r : tensor<64xi1, #jfa.rows_of<#jfa.wgmma_acc>>
                  }
                  // Keys [lower, bound): up to the sequence's end, the query's
                  // own under causal, its window's right edge.
                  %hi_off_r = tensor.splat %hi_off : tensor<64xi32, #jfa.rows_of<#jfa.wgmma_acc>>
                  %to_r = arith.addi %query_r, %hi_off_r : tensor<64xi32, #jfa.rows_of<#jfa.wgmma_acc>>
                  %bound = arith.minsi %to_r, %len_k_r : tensor<64xi32, #jfa.rows_of<#jfa.wgmma_acc>>
                  // A query past the end sees no key.
                  %none_r = arith.constant dense<0> : tensor<64xi32, #jfa.rows_of<#jfa.wgmma_acc>>
                  %row_bound = arith.select %query_in_r, %bound, %none_r : tensor<64xi1, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<64xi32, #jfa.rows_of<#jfa.wgmma_acc>>
                  %my_k0_r = tensor.splat %my_k0 : tensor<64xi32, #jfa.rows_of<#jfa.wgmma_acc>>
                  %col_bound = arith.subi %row_bound, %my_k0_r : tensor<64xi32, #jfa.rows_of<#jfa.wgmma_acc>>
                  %cut = scf.if %general -> tensor<64x64xf32, #jfa.wgmma_acc> {
                    %lo_off_r = tensor.splat %lo_off : tensor<64xi32, #jfa.rows_of<#jfa.wgmma_acc>>
                    %from_r = arith.addi %query_r, %lo_off_r : tensor<64xi32, #jfa.rows_of<#jfa.wgmma_acc>>
                    // From the key floor (block-sparse: @unit; 0 else).
                    %key_floor_r = tensor.splat %key_floor : tensor<64xi32, #jfa.rows_of<#jfa.wgmma_acc>>
                    %none_lo = arith.maxsi %from_r, %key_floor_r : tensor<64xi32, #jfa.rows_of<#jfa.wgmma_acc>>
                    %lower = arith.subi %none_lo, %my_k0_r : tensor<64xi32, #jfa.rows_of<#jfa.wgmma_acc>>
                    %w = jfa.mask_cols %p_raw, %col_bound, %fill from %lower : tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64xi32, #jfa.rows_of<#jfa.wgmma_acc>>, f32
                    scf.yield %w : tensor<64x64xf32, #jfa.wgmma_acc>
                  } else {
                    %w = jfa.mask_cols %p_raw, %col_bound, %fill : tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64xi32, #jfa.rows_of<#jfa.wgmma_acc>>, f32
                    scf.yield %w : tensor<64x64xf32, #jfa.wgmma_acc>
                  }
                  scf.yield %cut : tensor<64x64xf32, #jfa.wgmma_acc>
                } else {
                  // D = 64: index tiles (the row-bound form measured 5-8% slower
                  // there, bench/NOTES.md run 39, cause not found).
                  %tile_row = jfa.iota rows : tensor<64x64xi32, #jfa.wgmma_acc>
                  %tile_col = jfa.iota cols : tensor<64x64xi32, #jfa.wgmma_acc>
                  %my_k0_t = tensor.splat %my_k0 : tensor<64x64xi32, #jfa.wgmma_acc>
                  %key = arith.addi %tile_col, %my_k0_t : tensor<64x64xi32, #jfa.wgmma_acc>
                  %q0_t = tensor.splat %q0 : tensor<64x64xi32, #jfa.wgmma_acc>
                  %query = arith.addi %tile_row, %q0_t : tensor<64x64xi32, #jfa.wgmma_acc>
                  %len_t = tensor.splat %len : tensor<64x64xi32, #jfa.wgmma_acc>
                  %len_k_t = tensor.splat %keys_end : tensor<64x64xi32, #jfa.wgmma_acc>
                  %key_before_end = arith.cmpi slt, %key, %len_k_t : tensor<64x64xi32, #jfa.wgmma_acc>
                  %query_before_end = arith.cmpi slt, %query, %len_t : tensor<64x64xi32, #jfa.wgmma_acc>
                  // From the row and key floors (block-sparse: @unit).
                  %key_in, %query_in = scf.if %sparse -> (tensor<64x64xi1, #jfa.wgmma_acc>, tensor<64x64xi1, #jfa.wgmma_acc>) {
                    %key_floor_t = tensor.splat %key_floor : tensor<64x64xi32, #jfa.wgmma_acc>
                    %row_floor_t = tensor.splat %row_floor : tensor<64x64xi32, #jfa.wgmma_acc>
                    %key_above = arith.cmpi sge, %key, %key_floor_t : tensor<64x64xi32, #jfa.wgmma_acc>
                    %query_above = arith.cmpi sge, %query, %row_floor_t : tensor<64x64xi32, #jfa.wgmma_acc>
                    %k_in = arith.andi %key_before_end, %key_above : tensor<64x64xi1, #jfa.wgmma_acc>
                    %q_in = arith.andi %query_before_end, %query_above : tensor<64x64xi1, #jfa.wgmma_acc>
                    scf.yield %k_in, %q_in : tensor<64x64xi1, #jfa.wgmma_acc>, tensor<64x64xi1, #jfa.wgmma_acc>
                  } else {
                    scf.yield %key_before_end, %query_before_end : tensor<64x64xi1, #jfa.wgmma_acc>, tensor<64x64xi1, #jfa.wgmma_acc>
                  }
                  %hi_off_t = tensor.splat %hi_off : tensor<64x64xi32, #jfa.wgmma_acc>
                  %q_hi = arith.addi %query, %hi_off_t : tensor<64x64xi32, #jfa.wgmma_acc>
                  %before = arith.cmpi slt, %key, %q_hi : tensor<64x64xi32, #jfa.wgmma_acc>
                  %not_bounded_t = tensor.splat %not_bounded : tensor<64x64xi1, #jfa.wgmma_acc>
                  %seen_hi = arith.ori %before, %not_bounded_t : tensor<64x64xi1, #jfa.wgmma_acc>
                  %lo_off_t = tensor.splat %lo_off : tensor<64x64xi32, #jfa.wgmma_acc>
                  %q_lo = arith.addi %query, %lo_off_t : tensor<64x64xi32, #jfa.wgmma_acc>
                  %after = arith.cmpi sge, %key, %q_lo : tensor<64x64xi32, #jfa.wgmma_acc>
                  %no_window_t = tensor.splat %plain : tensor<64x64xi1, #jfa.wgmma_acc>
                  %seen_lo = arith.ori %after, %no_window_t : tensor<64x64xi1, #jfa.wgmma_acc>
                  %seen = arith.andi %seen_hi, %seen_lo : tensor<64x64xi1, #jfa.wgmma_acc>
                  %in_both = arith.andi %key_in, %query_in : tensor<64x64xi1, #jfa.wgmma_acc>
                  %keep = arith.andi %in_both, %seen : tensor<64x64xi1, #jfa.wgmma_acc>
                  %fill_t = tensor.splat %fill : tensor<64x64xf32, #jfa.wgmma_acc>
                  %masked = arith.select %keep, %p_raw, %fill_t : tensor<64x64xi1, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>
                  scf.yield %masked : tensor<64x64xf32, #jfa.wgmma_acc>
                }
                scf.yield %masked_p : tensor<64x64xf32, #jfa.wgmma_acc>
              } else {
                scf.yield %p_raw : tensor<64x64xf32, #jfa.wgmma_acc>
              }
              // dS = scale * P * (dP - delta); under GDPA P = act(x) and dS =
              // scale * dP * act'(x).
              %dp_done = jfa.async_dot_wait pending(0) (%sd_issued#1) : tensor<64x64xf32, #jfa.wgmma_acc>
              %pd:2 = scf.if %is_softmax -> (tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>) {
                %dp_c = arith.subf %dp_done, %delta_t : tensor<64x64xf32, #jfa.wgmma_acc>
                %pdp = arith.mulf %p, %dp_c : tensor<64x64xf32, #jfa.wgmma_acc>
                %ds_s = arith.mulf %pdp, %ds_scale : tensor<64x64xf32, #jfa.wgmma_acc>
                scf.yield %p, %ds_s : tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>
              } else {
                %pa, %ga = jfa.call @activation_grad(%p, %activation) : (tensor<64x64xf32, #jfa.wgmma_acc>, i32) -> (tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>)
                %dpg = arith.mulf %dp_done, %ga : tensor<64x64xf32, #jfa.wgmma_acc>
                %ds_a = arith.mulf %dpg, %ds_scale : tensor<64x64xf32, #jfa.wgmma_acc>
                scf.yield %pa, %ds_a : tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>
              }
              %p16 = arith.truncf %pd#0 : tensor<64x64xf32, #jfa.wgmma_acc> to tensor<64x64xbf16, #jfa.wgmma_acc>
              %ds16 = arith.truncf %pd#1 : tensor<64x64xf32, #jfa.wgmma_acc> to tensor<64x64xbf16, #jfa.wgmma_acc>
              // GDPA, a unit's first step: the last unit's dK and dV TMA
              // stores read the P and dS slots written here (see the unit's
              // start).
              %unit_first = arith.cmpi eq, %n, %q_n : i32
              %late_wait = arith.xori %is_softmax, %true : i1
              %wait_here = arith.andi %unit_first, %late_wait : i1
              scf.if %wait_here {
                jfa.tma_store_wait pending(0)
                jfa.task_barrier
              }
              // P to this warpgroup's slot (only its dV reads it, waited below
              // each q tile); dS to its half of the parity-(n mod 2) pair, once
              // both warpgroups' dQ of q tile n - 2 no longer read it.
              jfa.local_store %p16, %p_slot : tensor<64x64xbf16, #jfa.wgmma_acc> -> !jfa.slot<64x64xbf16, swizzle 128>
              jfa.barrier_wait %ds_free_s, %ds_free_phase
              jfa.local_store %ds16, %ds_mine : tensor<64x64xbf16, #jfa.wgmma_acc> -> !jfa.slot<64x64xbf16, swizzle 128>
              jfa.fence_async_shared
              jfa.task_barrier
              jfa.barrier_arrive %ds_ready_s

              // dV += P^T dO, then (D = 128) dQ, then dK += dS^T Q (P, dS
              // M-major from shared memory), FA3's order: dQ's store and add
              // overlap dK's product. D = 128: one N = 128 product each over dO's and Q's
              // two blocks (each pair of 64x64 accumulators joined for it and
              // cut after it: register moves); D = 64: the first block.
              %dv_issued:2 = scf.if %wide -> (tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>) {
                %dv_w = tensor.concat dim(1) %dv0, %dv1 : (tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>) -> tensor<64x128xf32, #jfa.wgmma_acc>
                %do_t = jfa.transpose %do_s : !jfa.slot<64x128xbf16, swizzle 128>
                %dv_n = jfa.async_dot %p_t, %do_t, %dv_w : !jfa.slot<64x64xbf16, swizzle 128, transposed>, !jfa.slot<128x64xbf16, swizzle 128, transposed>, tensor<64x128xf32, #jfa.wgmma_acc>
                %dv0_n = tensor.extract_slice %dv_n[0, 0] [64, 64] [1, 1] : tensor<64x128xf32, #jfa.wgmma_acc> to tensor<64x64xf32, #jfa.wgmma_acc>
                %dv1_n = tensor.extract_slice %dv_n[0, 64] [64, 64] [1, 1] : tensor<64x128xf32, #jfa.wgmma_acc> to tensor<64x64xf32, #jfa.wgmma_acc>
                scf.yield %dv0_n, %dv1_n : tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>
              } else {
                %do_blk = jfa.column_block %do_s[%c0] : !jfa.slot<64x128xbf16, swizzle 128> -> !jfa.slot<64x64xbf16, swizzle 128>
                %do_blk_t = jfa.transpose %do_blk : !jfa.slot<64x64xbf16, swizzle 128>
                %dv0_n = jfa.async_dot %p_t, %do_blk_t, %dv0 : !jfa.slot<64x64xbf16, swizzle 128, transposed>, !jfa.slot<64x64xbf16, swizzle 128, transposed>, tensor<64x64xf32, #jfa.wgmma_acc>
                scf.yield %dv0_n, %dv1 : tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>
              }

              // D = 64: dK now, behind dV (measured faster there: dQ is one
              // warpgroup's at a time).
              %dk_early:2 = jfa.call @dk_product(%narrow, %wide, %ds_mine_t, %q_s, %dk0, %dk1)
                  : (i1, i1, !jfa.slot<64x64xbf16, swizzle 128, transposed>, !jfa.slot<64x128xbf16, swizzle 128>, tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>) -> (tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>)

              // dQ = dS K over all 128 keys of the unit, once per q tile: both
              // warpgroups' dS, each warpgroup one 64-column chunk of dQ (chunk
              // g xor n mod 2, so that at D = 64 the two take turns), added to
              // the workspace with TMA's reduce-add (rows past the sequence's
              // end, and below the row floor, which are the next and previous
              // sequences', add zeros: dS is masked there). Waited in every
              // step, with dQ or without: the unit's TMA epilogue writes this
              // warpgroup's dS slot of the stage before its last step, which
              // is free only because this wait follows the other warpgroup's
              // dQ of that step.
              jfa.barrier_wait %ds_ready_s, %phase
              %dq_chunk = arith.xori %g, %stage : i32
              %has_dq = arith.cmpi ult, %dq_chunk, %chunks : i32
              %dk_issued:2 = scf.if %has_dq -> (tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>) {
                // This warpgroup's keys with its own dS (at D = 128 from
                // registers: A from registers reads no shared memory), then
                // the other half's.
                %ds_other_i = arith.addi %ds_pair, %g_other : i32
                %ds_other = jfa.slot %ds_buf[%ds_other_i] : !jfa.smem<4 x 64x64xbf16, swizzle 128>, i32
                %kq_mine = jfa.column_block %k_mine[%dq_chunk] : !jfa.slot<64x128xbf16, swizzle 128> -> !jfa.slot<64x64xbf16, swizzle 128>
                %kq_other = jfa.column_block %k_other[%dq_chunk] : !jfa.slot<64x128xbf16, swizzle 128> -> !jfa.slot<64x64xbf16, swizzle 128>
                %kq_mine_t = jfa.transpose %kq_mine : !jfa.slot<64x64xbf16, swizzle 128>
                %kq_other_t = jfa.transpose %kq_other : !jfa.slot<64x64xbf16, swizzle 128>
                %dq_a = scf.if %wide -> tensor<64x64xf32, #jfa.wgmma_acc> {
                  %dq_r = jfa.async_dot %ds16, %kq_mine_t, %zero : tensor<64x64xbf16, #jfa.wgmma_acc>, !jfa.slot<64x64xbf16, swizzle 128, transposed>, tensor<64x64xf32, #jfa.wgmma_acc>
                  scf.yield %dq_r : tensor<64x64xf32, #jfa.wgmma_acc>
                } else {
                  %dq_s = jfa.async_dot %ds_mine, %kq_mine_t, %zero : !jfa.slot<64x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128, transposed>, tensor<64x64xf32, #jfa.wgmma_acc>
                  scf.yield %dq_s : tensor<64x64xf32, #jfa.wgmma_acc>
                }
                %dq_b = jfa.async_dot %ds_other, %kq_other_t, %dq_a : !jfa.slot<64x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128, transposed>, tensor<64x64xf32, #jfa.wgmma_acc>
                %dk_n:2 = jfa.call @dk_product(%wide, %wide, %ds_mine_t, %q_s, %dk_early#0, %dk_early#1)
                    : (i1, i1, !jfa.slot<64x64xbf16, swizzle 128, transposed>, !jfa.slot<64x128xbf16, swizzle 128>, tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>) -> (tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>)
                // D = 128: dV and dQ are done, dK still runs.
                %dq = scf.if %wide -> tensor<64x64xf32, #jfa.wgmma_acc> {
                  %dq_w = jfa.async_dot_wait pending(1) (%dq_b) : tensor<64x64xf32, #jfa.wgmma_acc>
                  scf.yield %dq_w : tensor<64x64xf32, #jfa.wgmma_acc>
                } else {
                  %dq_n = jfa.async_dot_wait pending(0) (%dq_b) : tensor<64x64xf32, #jfa.wgmma_acc>
                  scf.yield %dq_n : tensor<64x64xf32, #jfa.wgmma_acc>
                }
                jfa.barrier_arrive %ds_free_s
                jfa.call @add_dq_chunk(%dq, %dq_slot, %dq_accum, %start, %q0, %col0, %dq_chunk)
                    : (tensor<64x64xf32, #jfa.wgmma_acc>, !jfa.slot<64x64xf32, swizzle 128>, !jfa.tma<64x32xf32, swizzle 128>, i32, i32, i32, i32) -> ()
                scf.yield %dk_n#0, %dk_n#1 : tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>
              } else {
                // dK is issued in both branches, after dQ in the one above:
                // dQ's running accumulator may not leave its branch (a phi of
                // it serializes the wgmma pipeline, ptxas C7514).
                %dk_n:2 = jfa.call @dk_product(%wide, %wide, %ds_mine_t, %q_s, %dk_early#0, %dk_early#1)
                    : (i1, i1, !jfa.slot<64x64xbf16, swizzle 128, transposed>, !jfa.slot<64x128xbf16, swizzle 128>, tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>) -> (tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>)
                jfa.barrier_arrive %ds_free_s
                scf.yield %dk_n#0, %dk_n#1 : tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>
              }
              %dkv_live:4 = jfa.async_dot_wait pending(0) (%dv_issued#0, %dv_issued#1, %dk_issued#0, %dk_issued#1) : tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>
              scf.yield %dkv_live#0, %dkv_live#1, %dkv_live#2, %dkv_live#3 : tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>
            }
            // This stage's Q and dO are read: hand them back.
            jfa.barrier_arrive %q_empty_s
            // Without a block mask the q tiles are consecutive.
            %next_i = arith.addi %i, %c1 : i32
            scf.yield %dkv#0, %dkv#1, %dkv#2, %dkv#3, %next_i, %after_coef#0, %after_coef#1 : tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>, i32, tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
          }
          %member_next = arith.addi %member_n, %steps : i32
          scf.yield %acc_h#0, %acc_h#1, %acc_h#2, %acc_h#3, %member_next : tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>, i32
          }
          // K and V are read: the producer may load the next unit's.
          jfa.barrier_arrive %kv_empty0

          // dK (with the scale already in dS) and dV for this warpgroup's
          // keys, rows past the sequence's end not written; of the k/v head.
          %key_row = arith.addi %start_k, %my_k0 : i32
          %key_row_el = arith.muli %key_row, %dkv_stride : i32
          %key_left = arith.subi %len_k, %my_k0 : i32
          // On a block-sparse mask's grid the keys below the key floor are
          // the previous sequence's (@unit): not written. (0 without the
          // grid: the bound folds away.)
          %floor_in_keys = arith.subi %key_floor, %my_k0 : i32
          %key_first = arith.select %sparse, %floor_in_keys, %c0 : i32
          %kv_at0 = arith.addi %key_row_el, %kv_col0 : i32
          %key_row_sum = arith.muli %key_row, %sum_stride : i32
          %sum_at0 = arith.addi %key_row_sum, %kv_col0 : i32
          %kv_at1 = arith.addi %kv_at0, %c64 : i32
          scf.if %summed {
            // Units split the k/v head's q heads (@unit_heads): added into
            // the f32 sums the caller converts.
            %sum_at1 = arith.addi %sum_at0, %c64 : i32
            jfa.store_tile %acc#0, %dv_accum[%sum_at0] stride(%sum_stride) rows(%key_left) from(%key_first) add : tensor<64x64xf32, #jfa.wgmma_acc>, !jfa.ptr<f32>
            jfa.store_tile %acc#2, %dk_accum[%sum_at0] stride(%sum_stride) rows(%key_left) from(%key_first) add : tensor<64x64xf32, #jfa.wgmma_acc>, !jfa.ptr<f32>
            scf.if %wide {
              jfa.store_tile %acc#1, %dv_accum[%sum_at1] stride(%sum_stride) rows(%key_left) from(%key_first) add : tensor<64x64xf32, #jfa.wgmma_acc>, !jfa.ptr<f32>
              jfa.store_tile %acc#3, %dk_accum[%sum_at1] stride(%sum_stride) rows(%key_left) from(%key_first) add : tensor<64x64xf32, #jfa.wgmma_acc>, !jfa.ptr<f32>
            }
          } else {
            // bf16 first: half the registers live through the stores.
            %dv0_16 = arith.truncf %acc#0 : tensor<64x64xf32, #jfa.wgmma_acc> to tensor<64x64xbf16, #jfa.wgmma_acc>
            %dv1_16 = arith.truncf %acc#1 : tensor<64x64xf32, #jfa.wgmma_acc> to tensor<64x64xbf16, #jfa.wgmma_acc>
            %dk0_16 = arith.truncf %acc#2 : tensor<64x64xf32, #jfa.wgmma_acc> to tensor<64x64xbf16, #jfa.wgmma_acc>
            %dk1_16 = arith.truncf %acc#3 : tensor<64x64xf32, #jfa.wgmma_acc> to tensor<64x64xbf16, #jfa.wgmma_acc>
            // A whole 64-key tile (every key in the sequence and, on a
            // block-sparse grid, none below the key floor) goes out by TMA;
            // one with rows to clip through @write_dkv.
            %rows_all = arith.cmpi sge, %key_left, %c64 : i32
            %none_below = arith.cmpi sle, %key_first, %c0 : i32
            %whole = arith.andi %rows_all, %none_below : i1
            scf.if %whole {
              // The P slot, and this warpgroup's dS slot of the stage
              // before the unit's last step: the other warpgroup's dQ read
              // it before that warpgroup signalled ds_ready for the last
              // step, which this one waited for.
              %free_stage = arith.andi %acc#4, %c1 : i32
              %free_pair = arith.muli %free_stage, %c2 : i32
              %free_i = arith.addi %free_pair, %g : i32
              %ds_spare = jfa.slot %ds_buf[%free_i] : !jfa.smem<4 x 64x64xbf16, swizzle 128>, i32
              jfa.call @store_dkv_tma(%dv0_16, %dk0_16, %dv_out, %dk_out, %key_row, %kv_col0, %p_slot, %ds_spare)
                  : (tensor<64x64xbf16, #jfa.wgmma_acc>, tensor<64x64xbf16, #jfa.wgmma_acc>, !jfa.tma<64x64xbf16, swizzle 128>, !jfa.tma<64x64xbf16, swizzle 128>, i32, i32, !jfa.slot<64x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128>) -> ()
              scf.if %wide {
                // The slots again, once the first pair is read.
                jfa.tma_store_wait pending(0)
                jfa.task_barrier
                %kv_col1 = arith.addi %kv_col0, %c64 : i32
                jfa.call @store_dkv_tma(%dv1_16, %dk1_16, %dv_out, %dk_out, %key_row, %kv_col1, %p_slot, %ds_spare)
                    : (tensor<64x64xbf16, #jfa.wgmma_acc>, tensor<64x64xbf16, #jfa.wgmma_acc>, !jfa.tma<64x64xbf16, swizzle 128>, !jfa.tma<64x64xbf16, swizzle 128>, i32, i32, !jfa.slot<64x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128>) -> ()
              }
            } else {
              jfa.call @write_dkv(%dv0_16, %dv, %kv_at0, %dkv_stride, %key_left, %key_first, %p_slot)
                  : (tensor<64x64xbf16, #jfa.wgmma_acc>, !jfa.ptr<bf16>, i32, i32, i32, i32, !jfa.slot<64x64xbf16, swizzle 128>) -> ()
              jfa.call @write_dkv(%dk0_16, %dk, %kv_at0, %dkv_stride, %key_left, %key_first, %p_slot)
                  : (tensor<64x64xbf16, #jfa.wgmma_acc>, !jfa.ptr<bf16>, i32, i32, i32, i32, !jfa.slot<64x64xbf16, swizzle 128>) -> ()
              scf.if %wide {
                jfa.call @write_dkv(%dv1_16, %dv, %kv_at1, %dkv_stride, %key_left, %key_first, %p_slot)
                    : (tensor<64x64xbf16, #jfa.wgmma_acc>, !jfa.ptr<bf16>, i32, i32, i32, i32, !jfa.slot<64x64xbf16, swizzle 128>) -> ()
                jfa.call @write_dkv(%dk1_16, %dk, %kv_at1, %dkv_stride, %key_left, %key_first, %p_slot)
                    : (tensor<64x64xbf16, #jfa.wgmma_acc>, !jfa.ptr<bf16>, i32, i32, i32, i32, !jfa.slot<64x64xbf16, swizzle 128>) -> ()
              }
            }
          }
          %unit_next = arith.addi %unit_n, %c1 : i32
          scf.yield %unit_next, %acc#4 : i32, i32
        } else {
          scf.yield %unit_n, %q_n : i32, i32
        }
        %taken_next = arith.addi %taken, %c1 : i32
        scf.yield %taken_next, %next#0, %next#1 : i32, i32, i32
      }
      // The last adds must have read their slots before the CTA exits.
      jfa.tma_store_wait pending(0)
    }
    // Producer: warps 8-11; one thread issues the copies.
    // 24 registers: the CTA starts with 168 a thread (384 threads), and the
    // MMA warpgroups' 2 x 240 leave 24 of the 504 per lane of a warpgroup
    // (setmaxnreg.inc only takes what a setmaxnreg.dec gave back). The
    // block-sparse walk spills there.
    jfa.task default registers(24) {
      // Fetch 0 first; each iteration then fetches the unit after the one it
      // takes, so the atomic's latency hides behind a whole unit.
      jfa.call @fetch_unit(%c0, %schedule, %next_buf, %next_full, %next_empty)
          : (i32, !jfa.ptr<i32>, !jfa.smem<2 x 1xi32>, !jfa.mbarriers<2>, !jfa.mbarriers<2>) -> ()
      %counts:4 = scf.while (%taken = %c0, %unit_n = %c0, %q_n = %c0)
          : (i32, i32, i32) -> (i32, i32, i32, i32) {
        %fetched = jfa.call @fetch_ahead_and_take(%taken, %schedule, %next_buf, %next_full, %next_empty)
            : (i32, !jfa.ptr<i32>, !jfa.smem<2 x 1xi32>, !jfa.mbarriers<2>, !jfa.mbarriers<2>) -> i32
        %more = arith.cmpi slt, %fetched, %units : i32
        scf.condition(%more) %fetched, %taken, %unit_n, %q_n : i32, i32, i32, i32
      } do {
      ^bb0(%u: i32, %taken: i32, %unit_n: i32, %q_n: i32):
        %hk, %start, %len, %start_k, %len_k, %k0, %live, %q_first, %q_count, %kv_col0, %lo_off, %hi_off, %row_floor, %key_floor = jfa.call @unit(%u, %k_tiles, %unit_kv, %kv_split_eff, %head_dim, %offsets, %offsets_k, %schedule, %is_causal, %general, %window_left, %window_right, %c64, %sparse)
            : (i32, i32, i32, i32, i32, !jfa.ptr<i32>, !jfa.ptr<i32>, !jfa.ptr<i32>, i1, i1, i32, i32, i32, i1) -> (i32, i32, i32, i32, i32, i32, i1, i32, i32, i32, i32, i32, i32, i32)
        %q_last = arith.addi %q_first, %q_count : i32
        %h_base = arith.muli %hk, %per_unit : i32
        %next:2 = scf.if %live -> (i32, i32) {
          %k_row0 = arith.addi %start_k, %k0 : i32
          %k_row1 = arith.addi %k_row0, %c64 : i32
          %k_0 = jfa.slot %k_buf[%c0] : !jfa.smem<2 x 64x128xbf16, swizzle 128>, i32
          %k_1 = jfa.slot %k_buf[%c1] : !jfa.smem<2 x 64x128xbf16, swizzle 128>, i32
          %v_0 = jfa.slot %v_buf[%c0] : !jfa.smem<2 x 64x128xbf16, swizzle 128>, i32
          %v_1 = jfa.slot %v_buf[%c1] : !jfa.smem<2 x 64x128xbf16, swizzle 128>, i32

          // Q and dO tiles through the ring (block-sparse: those the MMA
          // warpgroups walk, @tile_walk).
          %q_sent = scf.for %member = %c0 to %per_unit step %c1
              iter_args(%member_n = %q_n) -> (i32) : i32 {
          %h = arith.addi %h_base, %member : i32
          %col0 = arith.muli %h, %head_dim : i32
          %block_base = arith.muli %h, %block_head_stride : i32
          %steps, %first_step = jfa.call @tile_walk(%sparse, %along_q, %q_first, %q_count, %k0, %c64, %block_bits, %block_base, %block_words, %start, %len, %start_k, %len_k)
              : (i1, i1, i32, i32, i32, i32, !jfa.ptr<i32>, i32, i32, i32, i32, i32, i32) -> (i32, i32)
          %walked = scf.for %q_step = %c0 to %steps step %c1
              iter_args(%i = %first_step) -> (i32) : i32 {
            %n = arith.addi %member_n, %q_step : i32
            %step = arith.subi %n, %q_n : i32
            %stage, %phase = jfa.ring_position %n stages(2) : i32
            %free = arith.xori %phase, %c1 : i32
            %q_s = jfa.slot %q_ring[%stage] : !jfa.smem<2 x 64x128xbf16, swizzle 128>, i32
            %do_s = jfa.slot %do_ring[%stage] : !jfa.smem<2 x 64x128xbf16, swizzle 128>, i32
            %q_full_s = jfa.barrier %q_full[%stage] : !jfa.mbarriers<2>, i32
            %q_empty_s = jfa.barrier %q_empty[%stage] : !jfa.mbarriers<2>, i32
            %q0 = arith.muli %i, %c64 : i32
            %q_row = arith.addi %start, %q0 : i32
            jfa.barrier_wait %q_empty_s, %free
            // Block-sparse: the tile, whether each of its two 64-key halves
            // is listed (a half with no key is not) and the head's steps,
            // for the MMA warpgroups (they read them once the stage is
            // full).
            scf.if %sparse {
              %listed_lo = jfa.call @seq_tile_listed(%block_bits, %block_base, %block_words, %start, %len, %q0, %c64, %start_k, %len_k, %k0, %c64)
                  : (!jfa.ptr<i32>, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> i32
              // The high half lies in the same 128-key block (a unit's keys
              // are one block on the grid): listed if the low half is and
              // it holds keys.
              %k_hi = arith.addi %k0, %c64 : i32
              %hi_has_keys = arith.cmpi sgt, %len_k, %k_hi : i32
              %hi_keys = arith.extui %hi_has_keys : i1 to i32
              %listed_hi = arith.andi %listed_lo, %hi_keys : i32
              %word = jfa.call @tile_word(%i, %listed_lo, %listed_hi) : (i32, i32, i32) -> i32
              %word_at = arith.muli %stage, %c2 : i32
              %steps_at = arith.addi %word_at, %c1 : i32
              jfa.call @hand_over(%word, %tile_buf, %word_at) : (i32, !jfa.smem<4 x 128xi32>, i32) -> ()
              // The steps: read with the head's first step only.
              %head_first = arith.cmpi eq, %q_step, %c0 : i32
              scf.if %head_first {
                jfa.call @hand_over(%steps, %tile_buf, %steps_at) : (i32, !jfa.smem<4 x 128xi32>, i32) -> ()
              }
            }
            scf.if %wide {
              jfa.barrier_expect %q_full_s, bytes(32768)
              jfa.tma_load %q[%q_row, %col0], %q_s, %q_full_s : !jfa.tma<64x64xbf16, swizzle 128>, !jfa.slot<64x128xbf16, swizzle 128>
              jfa.tma_load %do[%q_row, %col0], %do_s, %q_full_s : !jfa.tma<64x64xbf16, swizzle 128>, !jfa.slot<64x128xbf16, swizzle 128>
            } else {
              %q_blk = jfa.column_block %q_s[%c0] : !jfa.slot<64x128xbf16, swizzle 128> -> !jfa.slot<64x64xbf16, swizzle 128>
              %do_blk = jfa.column_block %do_s[%c0] : !jfa.slot<64x128xbf16, swizzle 128> -> !jfa.slot<64x64xbf16, swizzle 128>
              jfa.barrier_expect %q_full_s, bytes(16384)
              jfa.tma_load %q[%q_row, %col0], %q_blk, %q_full_s : !jfa.tma<64x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128>
              jfa.tma_load %do[%q_row, %col0], %do_blk, %q_full_s : !jfa.tma<64x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128>
            }
            // The unit's first Q and dO go ahead of K and V: their slot is
            // free before the last unit ends, K and V's only at its end.
            // Every live unit has a q tile (@unit: k0 < len puts q_first
            // below q_last), so K and V are always loaded here.
            %first_tile = arith.cmpi eq, %step, %c0 : i32
            scf.if %first_tile {
              // K and V, once the MMA warpgroups are done with the last unit's.
              %kv_phase = arith.andi %unit_n, %c1 : i32
              %kv_free = arith.xori %kv_phase, %c1 : i32
              jfa.barrier_wait %kv_empty0, %kv_free
              // A blocked slot takes one TMA box per 64-column block.
              scf.if %wide {
                jfa.barrier_expect %kv_full0, bytes(65536)
                jfa.tma_load %k[%k_row0, %kv_col0], %k_0, %kv_full0 : !jfa.tma<64x64xbf16, swizzle 128>, !jfa.slot<64x128xbf16, swizzle 128>
                jfa.tma_load %k[%k_row1, %kv_col0], %k_1, %kv_full0 : !jfa.tma<64x64xbf16, swizzle 128>, !jfa.slot<64x128xbf16, swizzle 128>
                jfa.tma_load %v[%k_row0, %kv_col0], %v_0, %kv_full0 : !jfa.tma<64x64xbf16, swizzle 128>, !jfa.slot<64x128xbf16, swizzle 128>
                jfa.tma_load %v[%k_row1, %kv_col0], %v_1, %kv_full0 : !jfa.tma<64x64xbf16, swizzle 128>, !jfa.slot<64x128xbf16, swizzle 128>
              } else {
                %k_0n = jfa.column_block %k_0[%c0] : !jfa.slot<64x128xbf16, swizzle 128> -> !jfa.slot<64x64xbf16, swizzle 128>
                %k_1n = jfa.column_block %k_1[%c0] : !jfa.slot<64x128xbf16, swizzle 128> -> !jfa.slot<64x64xbf16, swizzle 128>
                %v_0n = jfa.column_block %v_0[%c0] : !jfa.slot<64x128xbf16, swizzle 128> -> !jfa.slot<64x64xbf16, swizzle 128>
                %v_1n = jfa.column_block %v_1[%c0] : !jfa.slot<64x128xbf16, swizzle 128> -> !jfa.slot<64x64xbf16, swizzle 128>
                jfa.barrier_expect %kv_full0, bytes(32768)
                jfa.tma_load %k[%k_row0, %kv_col0], %k_0n, %kv_full0 : !jfa.tma<64x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128>
                jfa.tma_load %k[%k_row1, %kv_col0], %k_1n, %kv_full0 : !jfa.tma<64x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128>
                jfa.tma_load %v[%k_row0, %kv_col0], %v_0n, %kv_full0 : !jfa.tma<64x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128>
                jfa.tma_load %v[%k_row1, %kv_col0], %v_1n, %kv_full0 : !jfa.tma<64x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128>
              }
            }
            %after_i = arith.addi %i, %c1 : i32
            %next_i = jfa.call @next_tile(%sparse, %along_q, %after_i, %q_last, %k0, %c64, %block_bits, %block_base, %block_words, %start, %len, %start_k, %len_k)
                : (i1, i1, i32, i32, i32, i32, !jfa.ptr<i32>, i32, i32, i32, i32, i32, i32) -> i32
            scf.yield %next_i : i32
          }
          %member_next = arith.addi %member_n, %steps : i32
          scf.yield %member_next : i32
          }
          %unit_next = arith.addi %unit_n, %c1 : i32
          scf.yield %unit_next, %q_sent : i32, i32
        } else {
          scf.yield %unit_n, %q_n : i32, i32
        }
        %taken_next = arith.addi %taken, %c1 : i32
        scf.yield %taken_next, %next#0, %next#1 : i32, i32, i32
      }
    }
  }
}
