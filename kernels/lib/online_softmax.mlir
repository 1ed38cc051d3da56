// A library of device helpers (no kernel), imported from
// kernels/jagged_attention/ with `jfa.import "../lib/online_softmax.mlir"`:
// the attention forwards' key mask and online-softmax step, written once
// for both targets. Each names #jfa.wgmma_acc its layout parameter
// (docs/DIALECT.md, "Helpers"): the sm_90a forward calls it with its
// wgmma accumulators, the sm_100a forward with tensor-memory rows
// (#jfa.tmem_row), and inlining writes the call's layout throughout.

// Scores S of a 128-query by 128-key tile (queries from %q0, keys from %k0)
// with the keys a query may not see at -inf: query i sees keys
// [max(0, i + lo_off), min(len_k, i + hi_off)) (@unit_keys in
// band_schedule.mlir: the sequence's end, the causal diagonal, a sliding
// window). The bounds are one or two per row (jfa.mask_cols compares each
// register's constant column with them: no index tile in registers); the
// lower one only under %general, a compile-time parameter. A row that sees
// no key of the tile is all -inf: @softmax_step keeps it finite.
jfa.func @mask_keys(%s: tensor<128x128xf32, #jfa.wgmma_acc>, %q0: i32,
                    %k0: i32, %len_k: i32, %lo_off: i32, %hi_off: i32,
                    %general: i1)
    -> tensor<128x128xf32, #jfa.wgmma_acc>
    attributes {layout_parameter = #jfa.wgmma_acc} {
  %neg_inf = arith.constant 0xFF800000 : f32
  %zero = arith.constant dense<0> : tensor<128xi32, #jfa.rows_of<#jfa.wgmma_acc>>
  %row = jfa.iota rows : tensor<128xi32, #jfa.rows_of<#jfa.wgmma_acc>>
  %first_r = tensor.splat %q0 : tensor<128xi32, #jfa.rows_of<#jfa.wgmma_acc>>
  %k0_r = tensor.splat %k0 : tensor<128xi32, #jfa.rows_of<#jfa.wgmma_acc>>
  %len_r = tensor.splat %len_k : tensor<128xi32, #jfa.rows_of<#jfa.wgmma_acc>>
  %hi_off_r = tensor.splat %hi_off : tensor<128xi32, #jfa.rows_of<#jfa.wgmma_acc>>
  %query = arith.addi %row, %first_r : tensor<128xi32, #jfa.rows_of<#jfa.wgmma_acc>>
  %to = arith.addi %query, %hi_off_r : tensor<128xi32, #jfa.rows_of<#jfa.wgmma_acc>>
  %hi = arith.minsi %to, %len_r : tensor<128xi32, #jfa.rows_of<#jfa.wgmma_acc>>
  %limit = arith.subi %hi, %k0_r : tensor<128xi32, #jfa.rows_of<#jfa.wgmma_acc>>
  %masked = scf.if %general -> tensor<128x128xf32, #jfa.wgmma_acc> {
    %lo_off_r = tensor.splat %lo_off : tensor<128xi32, #jfa.rows_of<#jfa.wgmma_acc>>
    %from = arith.addi %query, %lo_off_r : tensor<128xi32, #jfa.rows_of<#jfa.wgmma_acc>>
    %lo = arith.maxsi %from, %zero : tensor<128xi32, #jfa.rows_of<#jfa.wgmma_acc>>
    %lower = arith.subi %lo, %k0_r : tensor<128xi32, #jfa.rows_of<#jfa.wgmma_acc>>
    %w = jfa.mask_cols %s, %limit, %neg_inf from %lower : tensor<128x128xf32, #jfa.wgmma_acc>, tensor<128xi32, #jfa.rows_of<#jfa.wgmma_acc>>, f32
    scf.yield %w : tensor<128x128xf32, #jfa.wgmma_acc>
  } else {
    %w = jfa.mask_cols %s, %limit, %neg_inf : tensor<128x128xf32, #jfa.wgmma_acc>, tensor<128xi32, #jfa.rows_of<#jfa.wgmma_acc>>, f32
    scf.yield %w : tensor<128x128xf32, #jfa.wgmma_acc>
  }
  jfa.return %masked : tensor<128x128xf32, #jfa.wgmma_acc>
}

// One step of the online softmax in base 2, over a tile of scores S with
// the running row max %m (of scale_log2 * S) and row sum %l so far (-inf
// and 0 before the first tile): P = exp2(scale_log2 * S - m_new), the new
// max and sum, and the factor corr = exp2(m - m_new) by which the output
// accumulated so far must be rescaled.
jfa.func @softmax_step(%s: tensor<128x128xf32, #jfa.wgmma_acc>,
                       %m: tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>,
                       %l: tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>,
                       %scale_log2: f32)
    -> (tensor<128x128xf32, #jfa.wgmma_acc>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>,
        tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>)
    attributes {layout_parameter = #jfa.wgmma_acc} {
  %neg_inf_rows = arith.constant dense<0xFF800000> : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %zero_rows = arith.constant dense<0.0> : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %scale = tensor.splat %scale_log2 : tensor<128x128xf32, #jfa.wgmma_acc>
  %scale_rows = tensor.splat %scale_log2 : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %s_max = jfa.reduce_rows max %s : tensor<128x128xf32, #jfa.wgmma_acc> -> tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %s_max2 = arith.mulf %s_max, %scale_rows : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %m_new = arith.maximumf %m, %s_max2 : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  // A row that has seen no key yet (all -inf) subtracts 0, not -inf, so
  // that its P and correction are 0, not NaN.
  %unseen = arith.cmpf oeq, %m_new, %neg_inf_rows : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %m_use = arith.select %unseen, %zero_rows, %m_new : tensor<128xi1, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %neg_m = arith.negf %m_use : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %neg_m_t = jfa.broadcast_rows %neg_m : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>> -> tensor<128x128xf32, #jfa.wgmma_acc>
  %x = math.fma %s, %scale, %neg_m_t : tensor<128x128xf32, #jfa.wgmma_acc>
  %p = math.exp2 %x fastmath<afn> : tensor<128x128xf32, #jfa.wgmma_acc>
  %m_drop = arith.subf %m, %m_use : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %corr = math.exp2 %m_drop fastmath<afn> : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %p_sum = jfa.reduce_rows sum %p : tensor<128x128xf32, #jfa.wgmma_acc> -> tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %l_old = arith.mulf %l, %corr : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %l_new = arith.addf %l_old, %p_sum : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  jfa.return %p, %m_new, %l_new, %corr
      : tensor<128x128xf32, #jfa.wgmma_acc>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>,
        tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
}
