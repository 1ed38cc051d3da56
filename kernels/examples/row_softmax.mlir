// Masked row softmax of a [rows, 64] f32 matrix, one 64x64 tile per CTA:
//   y[r, c] = exp(x[r, c] - max) / sum   over the columns c < cols with
//   c <= r + diag (a causal mask when diag = 0), 0 elsewhere,
//   lse[r] = max + log(sum)             for r < rows (nothing past rows).
//
// The tile is held in the wgmma accumulator layout, where an attention
// kernel's scores live: row max and row sum are thread-local reductions plus
// two shuffles within each quad of lanes. Index tiles (jfa.iota) build the
// masks. Launch ceil(rows / 64) CTAs of 128 threads; every row needs at least
// one unmasked column. The log-sum-exp row vector goes straight to global
// memory (jfa.store_rows), clipped at `rows` as an attention kernel clips at
// the end of a sequence.
jfa.kernel @row_softmax(%x: !jfa.tma<64x64xf32>, %y: !jfa.tma<64x64xf32>,
                        %lse: !jfa.ptr<f32>, %rows: i32,
                        %cols: i32, %diag: i32) warps(4) {
  %in = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
  %out = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %pid = jfa.program_id x
  %row0 = arith.muli %pid, %c64 : i32
  %bar = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  %s_in = jfa.slot %in[%c0] : !jfa.smem<1 x 64x64xf32>, i32
  %s_out = jfa.slot %out[%c0] : !jfa.smem<1 x 64x64xf32>, i32
  jfa.barrier_expect %bar, bytes(16384)
  jfa.tma_load %x[%row0, %c0], %s_in, %bar : !jfa.tma<64x64xf32>, !jfa.slot<64x64xf32>
  jfa.barrier_wait %bar, %c0

  %t = jfa.local_load %s_in : !jfa.slot<64x64xf32> -> tensor<64x64xf32, #jfa.wgmma_acc>
  %col = jfa.iota cols : tensor<64x64xi32, #jfa.wgmma_acc>
  %row = jfa.iota rows : tensor<64x64xi32, #jfa.wgmma_acc>
  %cols_t = tensor.splat %cols : tensor<64x64xi32, #jfa.wgmma_acc>
  %limit = arith.addi %row0, %diag : i32
  %limit_t = tensor.splat %limit : tensor<64x64xi32, #jfa.wgmma_acc>
  %last = arith.addi %row, %limit_t : tensor<64x64xi32, #jfa.wgmma_acc>
  %in_cols = arith.cmpi slt, %col, %cols_t : tensor<64x64xi32, #jfa.wgmma_acc>
  %causal = arith.cmpi sle, %col, %last : tensor<64x64xi32, #jfa.wgmma_acc>
  %keep = arith.andi %in_cols, %causal : tensor<64x64xi1, #jfa.wgmma_acc>
  %ninf = arith.constant dense<0xFF800000> : tensor<64x64xf32, #jfa.wgmma_acc>
  %s = arith.select %keep, %t, %ninf : tensor<64x64xi1, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>

  %m = jfa.reduce_rows max %s : tensor<64x64xf32, #jfa.wgmma_acc> -> tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %m_t = jfa.broadcast_rows %m : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>> -> tensor<64x64xf32, #jfa.wgmma_acc>
  %d = arith.subf %s, %m_t : tensor<64x64xf32, #jfa.wgmma_acc>
  %log2e = arith.constant dense<1.44269504> : tensor<64x64xf32, #jfa.wgmma_acc>
  %d2 = arith.mulf %d, %log2e : tensor<64x64xf32, #jfa.wgmma_acc>
  %e = math.exp2 %d2 : tensor<64x64xf32, #jfa.wgmma_acc>
  %l = jfa.reduce_rows sum %e : tensor<64x64xf32, #jfa.wgmma_acc> -> tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %l_t = jfa.broadcast_rows %l : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>> -> tensor<64x64xf32, #jfa.wgmma_acc>
  %p = arith.divf %e, %l_t : tensor<64x64xf32, #jfa.wgmma_acc>

  // log(l) = log2(l) * ln 2 (the GPU has lg2, not a natural log).
  %log2_l = math.log2 %l fastmath<afn> : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %ln2 = arith.constant dense<0.693147181> : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %log_l = arith.mulf %log2_l, %ln2 : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %lse_v = arith.addf %m, %log_l : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %left = arith.subi %rows, %row0 : i32
  jfa.store_rows %lse_v, %lse[%row0] rows(%left) : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>, !jfa.ptr<f32>

  jfa.local_store %p, %s_out : tensor<64x64xf32, #jfa.wgmma_acc> -> !jfa.slot<64x64xf32>
  jfa.fence_async_shared
  jfa.task_barrier
  jfa.tma_store %s_out, %y[%row0, %c0] : !jfa.slot<64x64xf32>, !jfa.tma<64x64xf32>
}
