// A library of device helpers (no kernel), imported from
// kernels/jagged_attention/ with `jfa.import "../lib/online_softmax.mlir"`:
// the attention forwards' key mask and online-softmax step, written once
// for both targets. Each names #jfa.wgmma_acc its layout parameter
// (docs/DIALECT.md, "Helpers"): the sm_90a forward calls it with its
// wgmma accumulators, the sm_100a forward with tensor-memory rows
// (#jfa.tmem_row), and inlining writes the call's layout throughout.

// Scores S of a 128-query by 128-key tile (queries from %q0, keys from %k0,
// of a sequence of %len tokens) with the keys a query may not see at -inf:
// keys past the sequence's end and, under %causal, keys after the query.
// The mask is one key bound per row (jfa.mask_cols compares each
// register's constant column with it: no index tile in registers). A query
// past the end keeps every key of the sequence (its bound is len), so its
// row max stays finite and no NaN arises; its output is not stored.
jfa.func @mask_keys(%s: tensor<128x128xf32, #jfa.wgmma_acc>, %q0: i32,
                    %k0: i32, %len: i32, %causal: i1)
    -> tensor<128x128xf32, #jfa.wgmma_acc>
    attributes {layout_parameter = #jfa.wgmma_acc} {
  %neg_inf = arith.constant 0xFF800000 : f32
  %one = arith.constant dense<1> : tensor<128xi32, #jfa.rows_of<#jfa.wgmma_acc>>
  %row = jfa.iota rows : tensor<128xi32, #jfa.rows_of<#jfa.wgmma_acc>>
  %q0_r = tensor.splat %q0 : tensor<128xi32, #jfa.rows_of<#jfa.wgmma_acc>>
  %k0_r = tensor.splat %k0 : tensor<128xi32, #jfa.rows_of<#jfa.wgmma_acc>>
  %len_r = tensor.splat %len : tensor<128xi32, #jfa.rows_of<#jfa.wgmma_acc>>
  %query = arith.addi %row, %q0_r : tensor<128xi32, #jfa.rows_of<#jfa.wgmma_acc>>
  %bound = scf.if %causal -> tensor<128xi32, #jfa.rows_of<#jfa.wgmma_acc>> {
    %upto = arith.addi %query, %one : tensor<128xi32, #jfa.rows_of<#jfa.wgmma_acc>>
    %seen = arith.minsi %upto, %len_r : tensor<128xi32, #jfa.rows_of<#jfa.wgmma_acc>>
    scf.yield %seen : tensor<128xi32, #jfa.rows_of<#jfa.wgmma_acc>>
  } else {
    scf.yield %len_r : tensor<128xi32, #jfa.rows_of<#jfa.wgmma_acc>>
  }
  %limit = arith.subi %bound, %k0_r : tensor<128xi32, #jfa.rows_of<#jfa.wgmma_acc>>
  %masked = jfa.mask_cols %s, %limit, %neg_inf : tensor<128x128xf32, #jfa.wgmma_acc>, tensor<128xi32, #jfa.rows_of<#jfa.wgmma_acc>>, f32
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
  %scale = tensor.splat %scale_log2 : tensor<128x128xf32, #jfa.wgmma_acc>
  %scale_rows = tensor.splat %scale_log2 : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %s_max = jfa.reduce_rows max %s : tensor<128x128xf32, #jfa.wgmma_acc> -> tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %s_max2 = arith.mulf %s_max, %scale_rows : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %m_new = arith.maximumf %m, %s_max2 : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %neg_m = arith.negf %m_new : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %neg_m_t = jfa.broadcast_rows %neg_m : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>> -> tensor<128x128xf32, #jfa.wgmma_acc>
  %x = math.fma %s, %scale, %neg_m_t : tensor<128x128xf32, #jfa.wgmma_acc>
  %p = math.exp2 %x fastmath<afn> : tensor<128x128xf32, #jfa.wgmma_acc>
  %m_drop = arith.subf %m, %m_new : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %corr = math.exp2 %m_drop fastmath<afn> : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %p_sum = jfa.reduce_rows sum %p : tensor<128x128xf32, #jfa.wgmma_acc> -> tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %l_old = arith.mulf %l, %corr : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %l_new = arith.addf %l_old, %p_sum : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  jfa.return %p, %m_new, %l_new, %corr
      : tensor<128x128xf32, #jfa.wgmma_acc>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>,
        tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
}
