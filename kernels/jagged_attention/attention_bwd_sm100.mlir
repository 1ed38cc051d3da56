// jfa-targets: sm_100a
// jfa-variants: head_dim=64,128 causal=0,1 general=0,1,2,3,4,5,6
// Jagged (variable-length) flash attention backward for sm_100a, with the
// contract, work units and persistent schedule of attention_bwd_sm90.mlir
// (kernels/jagged_attention/README.md), the accumulators in tensor memory:
//
//   P = exp(scale * Q K^T - lse),  dP = dO V^T,  dS = scale * P * (dP - delta)
//   dV = P^T dO,  dK = dS^T Q,  dQ = dS K
//
// A unit is (sequence, head, 128-key tile); its queries go by in blocks of
// 128 rows. Warp specialization:
//   - the load warp loads the unit's K and V once, and streams Q (2-stage
//     ring) and dO (one stage) blocks with TMA;
//   - the MMA warp issues every product with tcgen05.mma: S and dP into
//     tensor memory (a thread per query row), dV += P^T dO and dK += dS^T Q
//     into tensor memory (a thread per key row) over the unit, and
//     dQ = dS K into dP's columns once dP has been read;
//   - the compute warpgroup (a thread per query row, so lse and delta are
//     per-thread values) turns S into P and dP into dS, writes both (bf16)
//     to shared memory as [query, key] tiles, which the MMAs read as they
//     are (dQ's A) or transposed (M-major A of dV and dK), adds each dQ
//     block to the f32 workspace (element-wise reductions, rows past the
//     sequence's end skipped) and, at the end of a unit, writes dK and dV.
// Tensor memory: S, dP (dQ after it), dV and dK, 128 columns each (512).
// P and dS are blocked 128x128 slots (two 64-key column blocks each).
// Needs a B200 to run: compiled, checked by ptxas and disassembled here;
// jfa-interp runs it against numpy (test/interp/attention-bwd.test).
// The general variant (windows, grouped-query and cross-attention) is the
// sm_90a backward's: a unit per k/v head's key tile, a loop over its q heads.

// The dynamic work queue (@fetch_unit, @take_unit) and the decode of its
// units (@unit), shared with
// attention_bwd_sm90.mlir.
jfa.import "../lib/work_queue.mlir"
// The block-sparse mask's walk of the q tiles, and the key end of a step
// whose tile is not listed (@step_keys_end).
jfa.import "../lib/block_mask.mlir"
// GDPA's activation and its gradient (@activation_grad).
jfa.import "../lib/online_softmax.mlir"

// The scores of 64 of the unit's 128 keys (the column block of S's tensor
// memory at %s_cols), masked: zero past each row's %limit keys of the
// block (and before %lower, in the general variant). Softmax (%activation
// 0): P = exp2(scale_log2 * S - lse * log2 e). GDPA (1 silu, 2 gelu_tanh):
// x = scale * S, masked to -1e4, where the activation and its derivative
// are exactly 0 (@activation_grad). The tile goes by in such halves: P and
// dP of all 128 keys would need 256 registers a thread (ptxas spilled
// 116-148 B when they were loaded whole).
jfa.func @masked_scores(%s_cols: !jfa.tmem<128x64xf32>, %lse2: tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>,
                        %limit: tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>, %lower: tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>, %general: i1,
                        %scale_log2: f32, %scale: f32, %activation: i32)
    -> tensor<128x64xf32, #jfa.tmem_row> {
  %c0 = arith.constant 0 : i32
  %s = jfa.tmem_load %s_cols[%c0] : !jfa.tmem<128x64xf32> -> tensor<128x64xf32, #jfa.tmem_row>
  %is_softmax = arith.cmpi eq, %activation, %c0 : i32
  %pre = scf.if %is_softmax -> tensor<128x64xf32, #jfa.tmem_row> {
    %scale_t = tensor.splat %scale_log2 : tensor<128x64xf32, #jfa.tmem_row>
    %lse2_t = jfa.broadcast_rows %lse2 : tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>> -> tensor<128x64xf32, #jfa.tmem_row>
    %x = arith.mulf %s, %scale_t : tensor<128x64xf32, #jfa.tmem_row>
    %x_shift = arith.subf %x, %lse2_t : tensor<128x64xf32, #jfa.tmem_row>
    %e = math.exp2 %x_shift fastmath<afn> : tensor<128x64xf32, #jfa.tmem_row>
    scf.yield %e : tensor<128x64xf32, #jfa.tmem_row>
  } else {
    %scale_t = tensor.splat %scale : tensor<128x64xf32, #jfa.tmem_row>
    %x_nat = arith.mulf %s, %scale_t : tensor<128x64xf32, #jfa.tmem_row>
    scf.yield %x_nat : tensor<128x64xf32, #jfa.tmem_row>
  }
  %fill_p = arith.constant 0.0 : f32
  %fill_x = arith.constant -1.0e4 : f32
  %fill = arith.select %is_softmax, %fill_p, %fill_x : f32
  // The general variant's windows: keys from %lower of the block too.
  %m = scf.if %general -> tensor<128x64xf32, #jfa.tmem_row> {
    %w = jfa.mask_cols %pre, %limit, %fill from %lower : tensor<128x64xf32, #jfa.tmem_row>, tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>, f32
    scf.yield %w : tensor<128x64xf32, #jfa.tmem_row>
  } else {
    %w = jfa.mask_cols %pre, %limit, %fill : tensor<128x64xf32, #jfa.tmem_row>, tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>, f32
    scf.yield %w : tensor<128x64xf32, #jfa.tmem_row>
  }
  jfa.return %m : tensor<128x64xf32, #jfa.tmem_row>
}

// P for the block: @masked_scores, through the activation under GDPA.
jfa.func @p_block(%s_cols: !jfa.tmem<128x64xf32>, %lse2: tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>,
                  %limit: tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>, %lower: tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>, %general: i1,
                  %scale_log2: f32, %scale: f32, %activation: i32) -> tensor<128x64xf32, #jfa.tmem_row> {
  %c0 = arith.constant 0 : i32
  %m = jfa.call @masked_scores(%s_cols, %lse2, %limit, %lower, %general, %scale_log2, %scale, %activation)
      : (!jfa.tmem<128x64xf32>, tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>, tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>, tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>, i1, f32, f32, i32) -> tensor<128x64xf32, #jfa.tmem_row>
  %is_softmax = arith.cmpi eq, %activation, %c0 : i32
  %p = scf.if %is_softmax -> tensor<128x64xf32, #jfa.tmem_row> {
    scf.yield %m : tensor<128x64xf32, #jfa.tmem_row>
  } else {
    %pa, %ga = jfa.call @activation_grad(%m, %activation) : (tensor<128x64xf32, #jfa.tmem_row>, i32) -> (tensor<128x64xf32, #jfa.tmem_row>, tensor<128x64xf32, #jfa.tmem_row>)
    scf.yield %pa : tensor<128x64xf32, #jfa.tmem_row>
  }
  jfa.return %p : tensor<128x64xf32, #jfa.tmem_row>
}

// dS for the same 64 keys, in bf16, with P computed again from S (still in
// tensor memory: P rounded to bf16 would cost dS accuracy): scale * P *
// (dP - delta); under GDPA scale * dP * act'(x).
jfa.func @ds_block(%s_cols: !jfa.tmem<128x64xf32>, %dp_cols: !jfa.tmem<128x64xf32>,
                   %lse2: tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>, %delta: tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>, %limit: tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>, %lower: tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>,
                   %general: i1, %scale_log2: f32, %scale: f32, %activation: i32)
    -> tensor<128x64xbf16, #jfa.tmem_row> {
  %c0 = arith.constant 0 : i32
  %m = jfa.call @masked_scores(%s_cols, %lse2, %limit, %lower, %general, %scale_log2, %scale, %activation)
      : (!jfa.tmem<128x64xf32>, tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>, tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>, tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>, i1, f32, f32, i32) -> tensor<128x64xf32, #jfa.tmem_row>
  %ds_scale = tensor.splat %scale : tensor<128x64xf32, #jfa.tmem_row>
  %dp = jfa.tmem_load %dp_cols[%c0] : !jfa.tmem<128x64xf32> -> tensor<128x64xf32, #jfa.tmem_row>
  %is_softmax = arith.cmpi eq, %activation, %c0 : i32
  %ds = scf.if %is_softmax -> tensor<128x64xf32, #jfa.tmem_row> {
    %delta_t = jfa.broadcast_rows %delta : tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>> -> tensor<128x64xf32, #jfa.tmem_row>
    %dp_c = arith.subf %dp, %delta_t : tensor<128x64xf32, #jfa.tmem_row>
    %pdp = arith.mulf %m, %dp_c : tensor<128x64xf32, #jfa.tmem_row>
    %d = arith.mulf %pdp, %ds_scale : tensor<128x64xf32, #jfa.tmem_row>
    scf.yield %d : tensor<128x64xf32, #jfa.tmem_row>
  } else {
    %pa, %ga = jfa.call @activation_grad(%m, %activation) : (tensor<128x64xf32, #jfa.tmem_row>, i32) -> (tensor<128x64xf32, #jfa.tmem_row>, tensor<128x64xf32, #jfa.tmem_row>)
    %dpg = arith.mulf %dp, %ga : tensor<128x64xf32, #jfa.tmem_row>
    %d = arith.mulf %dpg, %ds_scale : tensor<128x64xf32, #jfa.tmem_row>
    scf.yield %d : tensor<128x64xf32, #jfa.tmem_row>
  }
  %ds16 = arith.truncf %ds : tensor<128x64xf32, #jfa.tmem_row> to tensor<128x64xbf16, #jfa.tmem_row>
  jfa.return %ds16 : tensor<128x64xbf16, #jfa.tmem_row>
}

// One 64-column chunk of a unit's dK or dV, rows [%first, %rows): bf16 to
// its place in dk / dv, or, when units split a k/v head's q heads
// (@unit_heads), added into the f32 sum the caller converts.
jfa.func @write_dkv(%x: tensor<128x64xf32, #jfa.tmem_row>, %summed: i1,
                    %out: !jfa.ptr<bf16>, %out_at: i32, %out_stride: i32,
                    %sum: !jfa.ptr<f32>, %sum_at: i32, %sum_stride: i32,
                    %rows: i32, %first: i32) {
  scf.if %summed {
    jfa.store_tile %x, %sum[%sum_at] stride(%sum_stride) rows(%rows) from(%first) add : tensor<128x64xf32, #jfa.tmem_row>, !jfa.ptr<f32>
  } else {
    %x16 = arith.truncf %x : tensor<128x64xf32, #jfa.tmem_row> to tensor<128x64xbf16, #jfa.tmem_row>
    jfa.store_tile %x16, %out[%out_at] stride(%out_stride) rows(%rows) from(%first) : tensor<128x64xbf16, #jfa.tmem_row>, !jfa.ptr<bf16>
  }
  jfa.return
}

jfa.kernel @attention_bwd_sm100(%q: !jfa.tma<128x64xbf16, swizzle 128>,
                                %k: !jfa.tma<128x64xbf16, swizzle 128>,
                                %v: !jfa.tma<128x64xbf16, swizzle 128>,
                                %do: !jfa.tma<128x64xbf16, swizzle 128>,
                                %dk: !jfa.ptr<bf16>, %dv: !jfa.ptr<bf16>,
                                %dq_accum: !jfa.ptr<f32>,
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
                                %block_head_stride: i32) warps(6) {
  // Compiled for each head dim (64 or 128) and mask: jfac -P head_dim=64
  // -P causal=1 -P general=1; the branches on them fold away. general:
  // windows, grouped-query and cross-attention (attention_bwd_sm90.mlir).
  %head_dim = jfa.param "head_dim" = 128 : i32
  %is_causal = jfa.param "causal" = false
  // 0 plain, 1 general (window, grouped-query and cross-attention), 2, 3
  // general with GDPA's silu or gelu_tanh in place of softmax; 4, 5, 6
  // those three block-sparse (%block_bits, kernels/lib/block_mask.mlir:
  // each q head walks only the q tiles with a listed block for the unit's
  // keys; read only then).
  %general_kind = jfa.param "general" = 0 : i32
  // K, V: chunk c (64 columns of D) in slot c. Q: stage s, chunk c in slot
  // 2s + c. dO: chunk c in slot c (one stage).
  %k_buf = jfa.local_alloc : !jfa.smem<2 x 128x64xbf16, swizzle 128>
  %v_buf = jfa.local_alloc : !jfa.smem<2 x 128x64xbf16, swizzle 128>
  %q_ring = jfa.local_alloc : !jfa.smem<4 x 128x64xbf16, swizzle 128>
  %do_buf = jfa.local_alloc : !jfa.smem<2 x 128x64xbf16, swizzle 128>
  %p_buf = jfa.local_alloc : !jfa.smem<1 x 128x128xbf16, swizzle 128>
  %ds_buf = jfa.local_alloc : !jfa.smem<1 x 128x128xbf16, swizzle 128>
  // Arrive counts: 1 for the load warp's expect or a tcgen05 commit, 128
  // for the compute warpgroup's threads.
  // The work queue's ring (@fetch_unit, @take_unit): 192 readers.
  %next_buf = jfa.local_alloc : !jfa.smem<2 x 1xi32>
  %next_full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  %next_empty = jfa.alloc_barriers arrive_count(192) : !jfa.mbarriers<2>
  %kv_full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %kv_empty = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %q_full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  %q_empty = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  %do_full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %do_empty = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %s_ready = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %dp_ready = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %p_ready = jfa.alloc_barriers arrive_count(128) : !jfa.mbarriers<1>
  %ds_ready = jfa.alloc_barriers arrive_count(128) : !jfa.mbarriers<1>
  %dq_ready = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %dq_free = jfa.alloc_barriers arrive_count(128) : !jfa.mbarriers<1>
  %dkv_ready = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %dkv_free = jfa.alloc_barriers arrive_count(128) : !jfa.mbarriers<1>
  %s_tmem = jfa.tmem_alloc : !jfa.tmem<128x128xf32>
  %dp_tmem = jfa.tmem_alloc : !jfa.tmem<128x128xf32>
  %dv_tmem = jfa.tmem_alloc : !jfa.tmem<128x128xf32>
  %dk_tmem = jfa.tmem_alloc : !jfa.tmem<128x128xf32>
  // dQ reuses dP's columns: chunk c of D in columns [64c, 64c + 64).
  %dq_lo = jfa.tmem_slice %dp_tmem columns(0) : !jfa.tmem<128x128xf32> -> !jfa.tmem<128x64xf32>
  %dq_hi = jfa.tmem_slice %dp_tmem columns(64) : !jfa.tmem<128x128xf32> -> !jfa.tmem<128x64xf32>
  // S's and dP's 64-key halves, read one at a time for dS (@ds_block).
  %s_lo = jfa.tmem_slice %s_tmem columns(0) : !jfa.tmem<128x128xf32> -> !jfa.tmem<128x64xf32>
  %s_hi = jfa.tmem_slice %s_tmem columns(64) : !jfa.tmem<128x128xf32> -> !jfa.tmem<128x64xf32>
  %dp_lo = jfa.tmem_slice %dp_tmem columns(0) : !jfa.tmem<128x128xf32> -> !jfa.tmem<128x64xf32>
  %dp_hi = jfa.tmem_slice %dp_tmem columns(64) : !jfa.tmem<128x128xf32> -> !jfa.tmem<128x64xf32>
  %dv_lo = jfa.tmem_slice %dv_tmem columns(0) : !jfa.tmem<128x128xf32> -> !jfa.tmem<128x64xf32>
  %dv_hi = jfa.tmem_slice %dv_tmem columns(64) : !jfa.tmem<128x128xf32> -> !jfa.tmem<128x64xf32>
  %dk_lo = jfa.tmem_slice %dk_tmem columns(0) : !jfa.tmem<128x128xf32> -> !jfa.tmem<128x64xf32>
  %dk_hi = jfa.tmem_slice %dk_tmem columns(64) : !jfa.tmem<128x128xf32> -> !jfa.tmem<128x64xf32>

  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c64 = arith.constant 64 : i32
  %c127 = arith.constant 127 : i32
  %c128 = arith.constant 128 : i32
  %true = arith.constant true
  %false = arith.constant false
  // Grouped-query attention and dK/dV's own stride only in the general
  // variant.
  %general, %kv_group_eff, %activation, %is_softmax, %sparse = jfa.call @attention_variant(%general_kind, %kv_group)
      : (i32, i32) -> (i1, i32, i32, i1, i1)
  %dkv_stride = arith.select %general, %kv_stride, %stride : i32
  // Units: each listed (sequence, key tile) pair for every group of
  // %per_unit q heads of a k/v head (all kv_group of them unless the caller
  // splits them, @unit_heads; split, dK and dV are added into the f32 sums
  // %dk_accum, %dv_accum, [T_k, H_kv * D]).
  %pairs = jfa.load %schedule[%c0] : !jfa.ptr<i32> -> i32
  %kv_heads = arith.divui %heads, %kv_group_eff : i32
  %per_unit, %unit_kv, %kv_split_eff, %summed = jfa.call @unit_heads(%heads, %kv_group_eff, %kv_split, %general)
      : (i32, i32, i32, i1) -> (i32, i32, i32, i1)
  %sum_stride = arith.muli %kv_heads, %head_dim : i32
  %units = arith.muli %pairs, %unit_kv : i32
  %wide = arith.cmpi eq, %head_dim, %c128 : i32
  %k_lo = jfa.slot %k_buf[%c0] : !jfa.smem<2 x 128x64xbf16, swizzle 128>, i32
  %k_hi = jfa.slot %k_buf[%c1] : !jfa.smem<2 x 128x64xbf16, swizzle 128>, i32
  %v_lo = jfa.slot %v_buf[%c0] : !jfa.smem<2 x 128x64xbf16, swizzle 128>, i32
  %v_hi = jfa.slot %v_buf[%c1] : !jfa.smem<2 x 128x64xbf16, swizzle 128>, i32
  %do_lo = jfa.slot %do_buf[%c0] : !jfa.smem<2 x 128x64xbf16, swizzle 128>, i32
  %do_hi = jfa.slot %do_buf[%c1] : !jfa.smem<2 x 128x64xbf16, swizzle 128>, i32
  %p_slot = jfa.slot %p_buf[%c0] : !jfa.smem<1 x 128x128xbf16, swizzle 128>, i32
  %ds_slot = jfa.slot %ds_buf[%c0] : !jfa.smem<1 x 128x128xbf16, swizzle 128>, i32
  %kv_full0 = jfa.barrier %kv_full[%c0] : !jfa.mbarriers<1>, i32
  %kv_empty0 = jfa.barrier %kv_empty[%c0] : !jfa.mbarriers<1>, i32
  %do_full0 = jfa.barrier %do_full[%c0] : !jfa.mbarriers<1>, i32
  %do_empty0 = jfa.barrier %do_empty[%c0] : !jfa.mbarriers<1>, i32
  %s_ready0 = jfa.barrier %s_ready[%c0] : !jfa.mbarriers<1>, i32
  %dp_ready0 = jfa.barrier %dp_ready[%c0] : !jfa.mbarriers<1>, i32
  %p_ready0 = jfa.barrier %p_ready[%c0] : !jfa.mbarriers<1>, i32
  %ds_ready0 = jfa.barrier %ds_ready[%c0] : !jfa.mbarriers<1>, i32
  %dq_ready0 = jfa.barrier %dq_ready[%c0] : !jfa.mbarriers<1>, i32
  %dq_free0 = jfa.barrier %dq_free[%c0] : !jfa.mbarriers<1>, i32
  %dkv_ready0 = jfa.barrier %dkv_ready[%c0] : !jfa.mbarriers<1>, i32
  %dkv_free0 = jfa.barrier %dkv_free[%c0] : !jfa.mbarriers<1>, i32

  jfa.async_tasks {
    // Compute warpgroup: warps 0-3, query row r of a block in thread r.
    jfa.task warps(4) registers(240) {
      %log2e = arith.constant dense<1.44269504> : tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>
      // Each thread's query row within a block.
      %row_index = jfa.iota rows : tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>
      %one_r = arith.constant dense<1> : tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>
      %zero_r = arith.constant dense<0> : tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>
      %c64_r = arith.constant dense<64> : tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>

      // Units from the load warp's fetches; the first past the last ends the loop.
      %counts:4 = scf.while (%taken = %c0, %unit_n = %c0, %q_n = %c0)
          : (i32, i32, i32) -> (i32, i32, i32, i32) {
        %fetched, %more = jfa.call @take_next_unit(%taken, %units, %next_buf, %next_full, %next_empty)
            : (i32, i32, !jfa.smem<2 x 1xi32>, !jfa.mbarriers<2>, !jfa.mbarriers<2>) -> (i32, i1)
        scf.condition(%more) %fetched, %taken, %unit_n, %q_n : i32, i32, i32, i32
      } do {
      ^bb0(%u: i32, %taken: i32, %unit_n: i32, %q_n: i32):
        %hk, %start, %len, %start_k, %len_k, %k0, %live, %q_first, %q_count, %kv_col0, %lo_off, %hi_off, %row_floor, %key_floor = jfa.call @unit(%u, %k_tiles, %unit_kv, %kv_split_eff, %head_dim, %offsets, %offsets_k, %schedule, %is_causal, %general, %window_left, %window_right, %c128, %sparse)
            : (i32, i32, i32, i32, i32, !jfa.ptr<i32>, !jfa.ptr<i32>, !jfa.ptr<i32>, i1, i1, i32, i32, i32, i1) -> (i32, i32, i32, i32, i32, i32, i1, i32, i32, i32, i32, i32, i32, i32)
        %h_base = arith.muli %hk, %per_unit : i32
        %q_last = arith.addi %q_first, %q_count : i32
        %next:2 = scf.if %live -> (i32, i32) {
          %q_sent = scf.for %member = %c0 to %per_unit step %c1
              iter_args(%member_n = %q_n) -> (i32) : i32 {
          %h = arith.addi %h_base, %member : i32
          %col0 = arith.muli %h, %head_dim : i32
          %head_rows = arith.muli %h, %tokens : i32
          %row_base = arith.addi %head_rows, %start : i32
          // Query blocks [first, last): those that see the unit's keys.
          %block_base = arith.muli %h, %block_head_stride : i32
          %steps, %first_step = jfa.call @tile_walk(%sparse, %true, %q_first, %q_count, %k0, %c128, %block_bits, %block_base, %block_words, %start, %len, %start_k, %len_k)
              : (i1, i1, i32, i32, i32, i32, !jfa.ptr<i32>, i32, i32, i32, i32, i32, i32) -> (i32, i32)
          scf.for %q_step = %c0 to %steps step %c1
              iter_args(%i = %first_step) -> (i32) : i32 {
            %n = arith.addi %member_n, %q_step : i32
            %step = arith.subi %n, %q_n : i32
            %n_phase = arith.andi %n, %c1 : i32
            %q0 = arith.muli %i, %c128 : i32
            %q_left = arith.subi %len, %q0 : i32
            %rows_at = arith.addi %row_base, %q0 : i32
            %lse_i = jfa.load_rows %lse[%rows_at] rows(%q_left) : !jfa.ptr<f32> -> tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>
            %delta_i = jfa.load_rows %delta[%rows_at] rows(%q_left) : !jfa.ptr<f32> -> tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>

            // P = exp2(scale_log2 * S - lse * log2 e), zero where masked:
            // a thread's row keeps keys [k0 + lower, k0 + limit), up to the
            // sequence's end and, under causal, to its query (the bounds of
            // @unit_keys, a window's too); none for queries past the end. jfa.mask_cols compares each register's
            // constant column with the row's bound: no index tile is kept
            // in registers (with one, ptxas spilled 116-140 B here).
            %q0_r = tensor.splat %q0 : tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>
            %len_r = tensor.splat %len : tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>
            // Block-sparse: an unlisted tile (a unit's one step when it has
            // none listed) sees no key: the keys end at k0.
            %listed = jfa.call @step_listed(%sparse, %block_bits, %block_base, %block_words, %start, %len, %q0, %c128, %start_k, %len_k, %k0, %c128)
                : (i1, !jfa.ptr<i32>, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> i32
            %keys_end, %unlisted = jfa.call @step_keys_end(%sparse, %listed, %k0, %len_k)
                : (i1, i32, i32, i32) -> (i32, i1)
            %len_k_r = tensor.splat %keys_end : tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>
            %k0_r = tensor.splat %k0 : tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>
            %hi_off_r = tensor.splat %hi_off : tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>
            %lo_off_r = tensor.splat %lo_off : tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>
            %query = arith.addi %row_index, %q0_r : tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>
            %to_r = arith.addi %query, %hi_off_r : tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>
            %end_r = arith.minsi %to_r, %len_k_r : tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>
            %from_r = arith.addi %query, %lo_off_r : tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>
            // From the key floor (block-sparse: @unit; 0 else).
            %key_floor_r = tensor.splat %key_floor : tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>
            %start_r = arith.maxsi %from_r, %key_floor_r : tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>
            %lower_tile = arith.subi %start_r, %k0_r : tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>
            %query_before_end = arith.cmpi slt, %query, %len_r : tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>
            // From the row floor (block-sparse: @unit).
            %query_in = scf.if %sparse -> tensor<128xi1, #jfa.rows_of<#jfa.tmem_row>> {
              %floor_r = tensor.splat %row_floor : tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>
              %above_r = arith.cmpi sge, %query, %floor_r : tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>
              %in_r = arith.andi %query_before_end, %above_r : tensor<128xi1, #jfa.rows_of<#jfa.tmem_row>>
              scf.yield %in_r : tensor<128xi1, #jfa.rows_of<#jfa.tmem_row>>
            } else {
              scf.yield %query_before_end : tensor<128xi1, #jfa.rows_of<#jfa.tmem_row>>
            }
            %end_in = arith.select %query_in, %end_r, %zero_r : tensor<128xi1, #jfa.rows_of<#jfa.tmem_row>>, tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>
            %limit_tile = arith.subi %end_in, %k0_r : tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>
            %lse2 = arith.mulf %lse_i, %log2e : tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>
            %lower_hi = arith.subi %lower_tile, %c64_r : tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>
            %limit_hi = arith.subi %limit_tile, %c64_r : tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>

            jfa.barrier_wait %s_ready0, %n_phase
            %p_lo = jfa.call @p_block(%s_lo, %lse2, %limit_tile, %lower_tile, %general, %scale_log2, %scale, %activation)
                : (!jfa.tmem<128x64xf32>, tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>, tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>, tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>, i1, f32, f32, i32) -> tensor<128x64xf32, #jfa.tmem_row>
            // P to shared memory, a 64-key column block at a time. The last
            // block's dV and dQ, which read P's and dS's slots, are done:
            // this thread waited for that block's dq_ready, committed after
            // them.
            %p_lo16 = arith.truncf %p_lo : tensor<128x64xf32, #jfa.tmem_row> to tensor<128x64xbf16, #jfa.tmem_row>
            %p_slot_lo = jfa.column_block %p_slot[%c0] : !jfa.slot<128x128xbf16, swizzle 128> -> !jfa.slot<128x64xbf16, swizzle 128>
            jfa.local_store %p_lo16, %p_slot_lo : tensor<128x64xbf16, #jfa.tmem_row> -> !jfa.slot<128x64xbf16, swizzle 128>
            %p_hi = jfa.call @p_block(%s_hi, %lse2, %limit_hi, %lower_hi, %general, %scale_log2, %scale, %activation)
                : (!jfa.tmem<128x64xf32>, tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>, tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>, tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>, i1, f32, f32, i32) -> tensor<128x64xf32, #jfa.tmem_row>
            %p_hi16 = arith.truncf %p_hi : tensor<128x64xf32, #jfa.tmem_row> to tensor<128x64xbf16, #jfa.tmem_row>
            %p_slot_hi = jfa.column_block %p_slot[%c1] : !jfa.slot<128x128xbf16, swizzle 128> -> !jfa.slot<128x64xbf16, swizzle 128>
            jfa.local_store %p_hi16, %p_slot_hi : tensor<128x64xbf16, #jfa.tmem_row> -> !jfa.slot<128x64xbf16, swizzle 128>
            jfa.fence_async_shared
            jfa.barrier_arrive %p_ready0

            // dS = scale * P * (dP - delta), 64 keys at a time, P again from
            // S (still in tensor memory: the next S waits for ds_ready). Each
            // half goes to its column block as soon as it is made, so that
            // one half's registers are free before the next one's loads.
            jfa.barrier_wait %dp_ready0, %n_phase
            %ds_lo = jfa.call @ds_block(%s_lo, %dp_lo, %lse2, %delta_i, %limit_tile, %lower_tile, %general, %scale_log2, %scale, %activation)
                : (!jfa.tmem<128x64xf32>, !jfa.tmem<128x64xf32>, tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>, tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>, tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>, tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>, i1, f32, f32, i32) -> tensor<128x64xbf16, #jfa.tmem_row>
            %ds_slot_lo = jfa.column_block %ds_slot[%c0] : !jfa.slot<128x128xbf16, swizzle 128> -> !jfa.slot<128x64xbf16, swizzle 128>
            jfa.local_store %ds_lo, %ds_slot_lo : tensor<128x64xbf16, #jfa.tmem_row> -> !jfa.slot<128x64xbf16, swizzle 128>
            %ds_hi = jfa.call @ds_block(%s_hi, %dp_hi, %lse2, %delta_i, %limit_hi, %lower_hi, %general, %scale_log2, %scale, %activation)
                : (!jfa.tmem<128x64xf32>, !jfa.tmem<128x64xf32>, tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>, tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>, tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>, tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>, i1, f32, f32, i32) -> tensor<128x64xbf16, #jfa.tmem_row>
            %ds_slot_hi = jfa.column_block %ds_slot[%c1] : !jfa.slot<128x128xbf16, swizzle 128> -> !jfa.slot<128x64xbf16, swizzle 128>
            jfa.local_store %ds_hi, %ds_slot_hi : tensor<128x64xbf16, #jfa.tmem_row> -> !jfa.slot<128x64xbf16, swizzle 128>
            jfa.fence_async_shared
            jfa.barrier_arrive %ds_ready0

            // dQ = dS K (in dP's columns) to the workspace; rows past the
            // sequence's end are skipped (P, so dS, is zero there anyway).
            jfa.barrier_wait %dq_ready0, %n_phase
            %q_row = arith.addi %start, %q0 : i32
            %q_row_el = arith.muli %q_row, %stride : i32
            // Nor rows below the row floor (block-sparse: @unit; 0 else).
            %floor_in_rows = arith.subi %row_floor, %q0 : i32
            %q_first_row = arith.select %sparse, %floor_in_rows, %c0 : i32
            %dq_at0 = arith.addi %q_row_el, %col0 : i32
            // One 64-column chunk in registers at a time; dP's columns are
            // free for the next block once the last chunk is read.
            %dq0 = jfa.tmem_load %dq_lo[%c0] : !jfa.tmem<128x64xf32> -> tensor<128x64xf32, #jfa.tmem_row>
            scf.if %wide {
              jfa.store_tile %dq0, %dq_accum[%dq_at0] stride(%stride) rows(%q_left) from(%q_first_row) add : tensor<128x64xf32, #jfa.tmem_row>, !jfa.ptr<f32>
              %dq1 = jfa.tmem_load %dq_hi[%c0] : !jfa.tmem<128x64xf32> -> tensor<128x64xf32, #jfa.tmem_row>
              jfa.barrier_arrive %dq_free0
              %dq_at1 = arith.addi %dq_at0, %c64 : i32
              jfa.store_tile %dq1, %dq_accum[%dq_at1] stride(%stride) rows(%q_left) from(%q_first_row) add : tensor<128x64xf32, #jfa.tmem_row>, !jfa.ptr<f32>
            } else {
              jfa.barrier_arrive %dq_free0
              jfa.store_tile %dq0, %dq_accum[%dq_at0] stride(%stride) rows(%q_left) from(%q_first_row) add : tensor<128x64xf32, #jfa.tmem_row>, !jfa.ptr<f32>
            }
            %after_i = arith.addi %i, %c1 : i32
            %next_i = jfa.call @next_tile(%sparse, %true, %after_i, %q_last, %k0, %c128, %block_bits, %block_base, %block_words, %start, %len, %start_k, %len_k)
                : (i1, i1, i32, i32, i32, i32, !jfa.ptr<i32>, i32, i32, i32, i32, i32, i32) -> i32
            scf.yield %next_i : i32
          }
          %member_next = arith.addi %member_n, %steps : i32
          scf.yield %member_next : i32
          }

          // dK (the scale is in dS) and dV of the unit's keys, key row r in
          // thread r, rows past the sequence's end not written; of the k/v
          // head (summed over its q heads).
          %unit_phase = arith.andi %unit_n, %c1 : i32
          jfa.barrier_wait %dkv_ready0, %unit_phase
          %key_row = arith.addi %start_k, %k0 : i32
          %key_row_el = arith.muli %key_row, %dkv_stride : i32
          %key_left = arith.subi %len_k, %k0 : i32
          // On a block-sparse mask's grid the keys below the key floor are
          // the previous sequence's (@unit): not written. (0 without the
          // grid: the bound folds away.)
          %floor_in_keys = arith.subi %key_floor, %k0 : i32
          %key_first = arith.select %sparse, %floor_in_keys, %c0 : i32
          %kv_at0 = arith.addi %key_row_el, %kv_col0 : i32
          %key_row_sum = arith.muli %key_row, %sum_stride : i32
          %sum_at0 = arith.addi %key_row_sum, %kv_col0 : i32
          %dv0 = jfa.tmem_load %dv_lo[%c0] : !jfa.tmem<128x64xf32> -> tensor<128x64xf32, #jfa.tmem_row>
          %dk0 = jfa.tmem_load %dk_lo[%c0] : !jfa.tmem<128x64xf32> -> tensor<128x64xf32, #jfa.tmem_row>
          jfa.call @write_dkv(%dv0, %summed, %dv, %kv_at0, %dkv_stride, %dv_accum, %sum_at0, %sum_stride, %key_left, %key_first)
              : (tensor<128x64xf32, #jfa.tmem_row>, i1, !jfa.ptr<bf16>, i32, i32, !jfa.ptr<f32>, i32, i32, i32, i32) -> ()
          jfa.call @write_dkv(%dk0, %summed, %dk, %kv_at0, %dkv_stride, %dk_accum, %sum_at0, %sum_stride, %key_left, %key_first)
              : (tensor<128x64xf32, #jfa.tmem_row>, i1, !jfa.ptr<bf16>, i32, i32, !jfa.ptr<f32>, i32, i32, i32, i32) -> ()
          scf.if %wide {
            %kv_at1 = arith.addi %kv_at0, %c64 : i32
            %sum_at1 = arith.addi %sum_at0, %c64 : i32
            %dv1 = jfa.tmem_load %dv_hi[%c0] : !jfa.tmem<128x64xf32> -> tensor<128x64xf32, #jfa.tmem_row>
            %dk1 = jfa.tmem_load %dk_hi[%c0] : !jfa.tmem<128x64xf32> -> tensor<128x64xf32, #jfa.tmem_row>
            jfa.call @write_dkv(%dv1, %summed, %dv, %kv_at1, %dkv_stride, %dv_accum, %sum_at1, %sum_stride, %key_left, %key_first)
                : (tensor<128x64xf32, #jfa.tmem_row>, i1, !jfa.ptr<bf16>, i32, i32, !jfa.ptr<f32>, i32, i32, i32, i32) -> ()
            jfa.call @write_dkv(%dk1, %summed, %dk, %kv_at1, %dkv_stride, %dk_accum, %sum_at1, %sum_stride, %key_left, %key_first)
                : (tensor<128x64xf32, #jfa.tmem_row>, i1, !jfa.ptr<bf16>, i32, i32, !jfa.ptr<f32>, i32, i32, i32, i32) -> ()
          }
          // Read: the next unit's first dV and dK may overwrite them.
          jfa.barrier_arrive %dkv_free0
          %unit_next = arith.addi %unit_n, %c1 : i32
          scf.yield %unit_next, %q_sent : i32, i32
        } else {
          scf.yield %unit_n, %q_n : i32, i32
        }
        %taken_next = arith.addi %taken, %c1 : i32
        scf.yield %taken_next, %next#0, %next#1 : i32, i32, i32
      }
    }

    // Load warp (warp 4): K and V once per unit, then Q and dO by block.
    jfa.task warps(1) {
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
        %hk, %start, %len, %start_k, %len_k, %k0, %live, %q_first, %q_count, %kv_col0, %lo_off, %hi_off, %row_floor, %key_floor = jfa.call @unit(%u, %k_tiles, %unit_kv, %kv_split_eff, %head_dim, %offsets, %offsets_k, %schedule, %is_causal, %general, %window_left, %window_right, %c128, %sparse)
            : (i32, i32, i32, i32, i32, !jfa.ptr<i32>, !jfa.ptr<i32>, !jfa.ptr<i32>, i1, i1, i32, i32, i32, i1) -> (i32, i32, i32, i32, i32, i32, i1, i32, i32, i32, i32, i32, i32, i32)
        %q_last = arith.addi %q_first, %q_count : i32
        %h_base = arith.muli %hk, %per_unit : i32
        %next:2 = scf.if %live -> (i32, i32) {
          %kv_col1 = arith.addi %kv_col0, %c64 : i32
          %k_row = arith.addi %start_k, %k0 : i32

          // K and V, once the last unit's products are done with them.
          %kv_phase = arith.andi %unit_n, %c1 : i32
          %kv_free = arith.xori %kv_phase, %c1 : i32
          jfa.barrier_wait %kv_empty0, %kv_free
          scf.if %wide {
            jfa.barrier_expect %kv_full0, bytes(65536)
            jfa.tma_load %k[%k_row, %kv_col0], %k_lo, %kv_full0 : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
            jfa.tma_load %k[%k_row, %kv_col1], %k_hi, %kv_full0 : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
            jfa.tma_load %v[%k_row, %kv_col0], %v_lo, %kv_full0 : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
            jfa.tma_load %v[%k_row, %kv_col1], %v_hi, %kv_full0 : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
          } else {
            jfa.barrier_expect %kv_full0, bytes(32768)
            jfa.tma_load %k[%k_row, %kv_col0], %k_lo, %kv_full0 : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
            jfa.tma_load %v[%k_row, %kv_col0], %v_lo, %kv_full0 : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
          }

          %q_sent = scf.for %member = %c0 to %per_unit step %c1
              iter_args(%member_n = %q_n) -> (i32) : i32 {
          %h = arith.addi %h_base, %member : i32
          %col0 = arith.muli %h, %head_dim : i32
          %col1 = arith.addi %col0, %c64 : i32
          %block_base = arith.muli %h, %block_head_stride : i32
          %steps, %first_step = jfa.call @tile_walk(%sparse, %true, %q_first, %q_count, %k0, %c128, %block_bits, %block_base, %block_words, %start, %len, %start_k, %len_k)
              : (i1, i1, i32, i32, i32, i32, !jfa.ptr<i32>, i32, i32, i32, i32, i32, i32) -> (i32, i32)
          scf.for %q_step = %c0 to %steps step %c1
              iter_args(%i = %first_step) -> (i32) : i32 {
            %n = arith.addi %member_n, %q_step : i32
            %step = arith.subi %n, %q_n : i32
            %stage, %phase = jfa.ring_position %n stages(2) : i32
            %free = arith.xori %phase, %c1 : i32
            %s0 = arith.muli %stage, %c2 : i32
            %s1 = arith.addi %s0, %c1 : i32
            %q_lo = jfa.slot %q_ring[%s0] : !jfa.smem<4 x 128x64xbf16, swizzle 128>, i32
            %q_hi = jfa.slot %q_ring[%s1] : !jfa.smem<4 x 128x64xbf16, swizzle 128>, i32
            %q_full_s = jfa.barrier %q_full[%stage] : !jfa.mbarriers<2>, i32
            %q_empty_s = jfa.barrier %q_empty[%stage] : !jfa.mbarriers<2>, i32
            %q0 = arith.muli %i, %c128 : i32
            %q_row = arith.addi %start, %q0 : i32
            jfa.barrier_wait %q_empty_s, %free
            scf.if %wide {
              jfa.barrier_expect %q_full_s, bytes(32768)
              jfa.tma_load %q[%q_row, %col0], %q_lo, %q_full_s : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
              jfa.tma_load %q[%q_row, %col1], %q_hi, %q_full_s : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
            } else {
              jfa.barrier_expect %q_full_s, bytes(16384)
              jfa.tma_load %q[%q_row, %col0], %q_lo, %q_full_s : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
            }
            %n_phase = arith.andi %n, %c1 : i32
            %do_free = arith.xori %n_phase, %c1 : i32
            jfa.barrier_wait %do_empty0, %do_free
            scf.if %wide {
              jfa.barrier_expect %do_full0, bytes(32768)
              jfa.tma_load %do[%q_row, %col0], %do_lo, %do_full0 : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
              jfa.tma_load %do[%q_row, %col1], %do_hi, %do_full0 : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
            } else {
              jfa.barrier_expect %do_full0, bytes(16384)
              jfa.tma_load %do[%q_row, %col0], %do_lo, %do_full0 : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
            }
            %after_i = arith.addi %i, %c1 : i32
            %next_i = jfa.call @next_tile(%sparse, %true, %after_i, %q_last, %k0, %c128, %block_bits, %block_base, %block_words, %start, %len, %start_k, %len_k)
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

    // MMA warp (warp 5): one thread issues the tcgen05 MMAs; each commit
    // arrives when all the thread's earlier MMAs are done.
    jfa.task default {
      %k_lo_t = jfa.transpose %k_lo : !jfa.slot<128x64xbf16, swizzle 128>
      %k_hi_t = jfa.transpose %k_hi : !jfa.slot<128x64xbf16, swizzle 128>
      %do_lo_t = jfa.transpose %do_lo : !jfa.slot<128x64xbf16, swizzle 128>
      %do_hi_t = jfa.transpose %do_hi : !jfa.slot<128x64xbf16, swizzle 128>
      %p_t = jfa.transpose %p_slot : !jfa.slot<128x128xbf16, swizzle 128>
      %ds_t = jfa.transpose %ds_slot : !jfa.slot<128x128xbf16, swizzle 128>
      // Units from the load warp's fetches; the first past the last ends the loop.
      %counts:4 = scf.while (%taken = %c0, %unit_n = %c0, %q_n = %c0)
          : (i32, i32, i32) -> (i32, i32, i32, i32) {
        %fetched, %more = jfa.call @take_next_unit(%taken, %units, %next_buf, %next_full, %next_empty)
            : (i32, i32, !jfa.smem<2 x 1xi32>, !jfa.mbarriers<2>, !jfa.mbarriers<2>) -> (i32, i1)
        scf.condition(%more) %fetched, %taken, %unit_n, %q_n : i32, i32, i32, i32
      } do {
      ^bb0(%u: i32, %taken: i32, %unit_n: i32, %q_n: i32):
        %hk, %start, %len, %start_k, %len_k, %k0, %live, %q_first, %q_count, %kv_col0, %lo_off, %hi_off, %row_floor, %key_floor = jfa.call @unit(%u, %k_tiles, %unit_kv, %kv_split_eff, %head_dim, %offsets, %offsets_k, %schedule, %is_causal, %general, %window_left, %window_right, %c128, %sparse)
            : (i32, i32, i32, i32, i32, !jfa.ptr<i32>, !jfa.ptr<i32>, !jfa.ptr<i32>, i1, i1, i32, i32, i32, i1) -> (i32, i32, i32, i32, i32, i32, i1, i32, i32, i32, i32, i32, i32, i32)
        %q_last = arith.addi %q_first, %q_count : i32
        // The unit's first q head (its walks are per head).
        %h_base = arith.muli %hk, %per_unit : i32
        %next:2 = scf.if %live -> (i32, i32) {
          %unit_phase = arith.andi %unit_n, %c1 : i32
          %unit_free = arith.xori %unit_phase, %c1 : i32
          jfa.barrier_wait %kv_full0, %unit_phase
          // The last unit's dK and dV are read before the first product
          // of this one overwrites them.
          jfa.barrier_wait %dkv_free0, %unit_free

          %q_sent = scf.for %member = %c0 to %per_unit step %c1
              iter_args(%member_n = %q_n) -> (i32) : i32 {
          %h = arith.addi %h_base, %member : i32
          %block_base = arith.muli %h, %block_head_stride : i32
          %steps, %first_step = jfa.call @tile_walk(%sparse, %true, %q_first, %q_count, %k0, %c128, %block_bits, %block_base, %block_words, %start, %len, %start_k, %len_k)
              : (i1, i1, i32, i32, i32, i32, !jfa.ptr<i32>, i32, i32, i32, i32, i32, i32) -> (i32, i32)
          scf.for %q_step = %c0 to %steps step %c1
              iter_args(%i = %first_step) -> (i32) : i32 {
            %n = arith.addi %member_n, %q_step : i32
            %step = arith.subi %n, %q_n : i32
            %stage, %phase = jfa.ring_position %n stages(2) : i32
            %n_phase = arith.andi %n, %c1 : i32
            %n_free = arith.xori %n_phase, %c1 : i32
            %s0 = arith.muli %stage, %c2 : i32
            %s1 = arith.addi %s0, %c1 : i32
            %q_lo = jfa.slot %q_ring[%s0] : !jfa.smem<4 x 128x64xbf16, swizzle 128>, i32
            %q_hi = jfa.slot %q_ring[%s1] : !jfa.smem<4 x 128x64xbf16, swizzle 128>, i32
            %q_full_s = jfa.barrier %q_full[%stage] : !jfa.mbarriers<2>, i32
            %q_empty_s = jfa.barrier %q_empty[%stage] : !jfa.mbarriers<2>, i32
            // dV and dK accumulate over the unit's q blocks of every q head.
            %accumulate = arith.cmpi ugt, %step, %c0 : i32

            // S = Q K^T over D in chunks of 64.
            jfa.barrier_wait %q_full_s, %phase
            jfa.tc_dot %q_lo, %k_lo, %s_tmem, %false : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, !jfa.tmem<128x128xf32>
            scf.if %wide {
              jfa.tc_dot %q_hi, %k_hi, %s_tmem, %true : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, !jfa.tmem<128x128xf32>
            }
            jfa.tc_commit %s_ready0

            // dP = dO V^T, into columns the last block's dQ has left.
            jfa.barrier_wait %do_full0, %n_phase
            jfa.barrier_wait %dq_free0, %n_free
            jfa.tc_dot %do_lo, %v_lo, %dp_tmem, %false : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, !jfa.tmem<128x128xf32>
            scf.if %wide {
              jfa.tc_dot %do_hi, %v_hi, %dp_tmem, %true : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, !jfa.tmem<128x128xf32>
            }
            jfa.tc_commit %dp_ready0

            // dV += P^T dO (P M-major), then dO goes back.
            jfa.barrier_wait %p_ready0, %n_phase
            jfa.tc_dot %p_t, %do_lo_t, %dv_lo, %accumulate : !jfa.slot<128x128xbf16, swizzle 128, transposed>, !jfa.slot<64x128xbf16, swizzle 128, transposed>, !jfa.tmem<128x64xf32>
            scf.if %wide {
              jfa.tc_dot %p_t, %do_hi_t, %dv_hi, %accumulate : !jfa.slot<128x128xbf16, swizzle 128, transposed>, !jfa.slot<64x128xbf16, swizzle 128, transposed>, !jfa.tmem<128x64xf32>
            }
            jfa.tc_commit %do_empty0

            // dK += dS^T Q (dS M-major), dQ = dS K (dS as stored); then
            // this Q stage goes back. dq_ready, committed after them, also
            // frees the P and dS slots (see the compute warpgroup).
            jfa.barrier_wait %ds_ready0, %n_phase
            %q_lo_t = jfa.transpose %q_lo : !jfa.slot<128x64xbf16, swizzle 128>
            %q_hi_t = jfa.transpose %q_hi : !jfa.slot<128x64xbf16, swizzle 128>
            jfa.tc_dot %ds_t, %q_lo_t, %dk_lo, %accumulate : !jfa.slot<128x128xbf16, swizzle 128, transposed>, !jfa.slot<64x128xbf16, swizzle 128, transposed>, !jfa.tmem<128x64xf32>
            jfa.tc_dot %ds_slot, %k_lo_t, %dq_lo, %false : !jfa.slot<128x128xbf16, swizzle 128>, !jfa.slot<64x128xbf16, swizzle 128, transposed>, !jfa.tmem<128x64xf32>
            scf.if %wide {
              jfa.tc_dot %ds_t, %q_hi_t, %dk_hi, %accumulate : !jfa.slot<128x128xbf16, swizzle 128, transposed>, !jfa.slot<64x128xbf16, swizzle 128, transposed>, !jfa.tmem<128x64xf32>
              jfa.tc_dot %ds_slot, %k_hi_t, %dq_hi, %false : !jfa.slot<128x128xbf16, swizzle 128>, !jfa.slot<64x128xbf16, swizzle 128, transposed>, !jfa.tmem<128x64xf32>
            }
            jfa.tc_commit %dq_ready0
            jfa.tc_commit %q_empty_s
            %after_i = arith.addi %i, %c1 : i32
            %next_i = jfa.call @next_tile(%sparse, %true, %after_i, %q_last, %k0, %c128, %block_bits, %block_base, %block_words, %start, %len, %start_k, %len_k)
                : (i1, i1, i32, i32, i32, i32, !jfa.ptr<i32>, i32, i32, i32, i32, i32, i32) -> i32
            scf.yield %next_i : i32
          }
          %member_next = arith.addi %member_n, %steps : i32
          scf.yield %member_next : i32
          }
          // The unit's products are done: dK and dV to the compute
          // warpgroup, K and V to the load warp.
          jfa.tc_commit %dkv_ready0
          jfa.tc_commit %kv_empty0
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
