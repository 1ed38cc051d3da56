// A library of device helpers (no kernel), imported from
// kernels/jagged_attention/ with `jfa.import "../lib/online_softmax.mlir"`:
// the attention forwards' key mask, online-softmax step, GDPA
// activations (and the backwards' GDPA gradient) and the stores of O,
// written once for both targets. Each names #jfa.wgmma_acc its layout parameter
// (docs/DIALECT.md, "Helpers"): the sm_90a forward calls it with its
// wgmma accumulators, the sm_100a forward with tensor-memory rows
// (#jfa.tmem_row), and inlining writes the call's layout throughout.
// Each is written for 128-row q tiles and names 128 its rows parameter:
// the sm_90a forward at D = 64 (attention_fwd_sm90_q192.mlir) calls it
// with 192-row ones.
// Scores S of a 128-query by 128-key tile (queries from %q0, keys from %k0)
// with the keys a query may not see at -inf: query i sees keys
// [max(key_floor, i + lo_off), min(keys_end, i + hi_off)) (@unit_keys in
// band_schedule.mlir: the sequence's end, the causal diagonal, a sliding
// window; the key floor, 0 but on a block-sparse mask's grid, @queue_unit;
// %keys_end is the key sequence's length, or %k0 for a block-sparse tile
// that is not listed, @step_keys_end in block_mask.mlir). The bounds are
// one or two per row (jfa.mask_cols compares each register's constant
// column with them: no index tile in registers); the lower one only under
// %general, a compile-time parameter. A row that sees no key of the tile
// is all -inf: @softmax_step keeps it finite. (%fill: -inf for scores, 0
// for a GDPA activation's P.)
jfa.func @mask_keys(%s: tensor<128x128xf32, #jfa.wgmma_acc>, %q0: i32,
                    %k0: i32, %keys_end: i32, %lo_off: i32, %hi_off: i32,
                    %key_floor: i32, %general: i1, %neg_inf: f32)
    -> tensor<128x128xf32, #jfa.wgmma_acc>
    attributes {layout_parameter = #jfa.wgmma_acc, rows_parameter = 128} {
  %row = jfa.iota rows : tensor<128xi32, #jfa.rows_of<#jfa.wgmma_acc>>
  %first_r = tensor.splat %q0 : tensor<128xi32, #jfa.rows_of<#jfa.wgmma_acc>>
  %k0_r = tensor.splat %k0 : tensor<128xi32, #jfa.rows_of<#jfa.wgmma_acc>>
  %len_r = tensor.splat %keys_end : tensor<128xi32, #jfa.rows_of<#jfa.wgmma_acc>>
  %hi_off_r = tensor.splat %hi_off : tensor<128xi32, #jfa.rows_of<#jfa.wgmma_acc>>
  %query = arith.addi %row, %first_r : tensor<128xi32, #jfa.rows_of<#jfa.wgmma_acc>>
  %to = arith.addi %query, %hi_off_r : tensor<128xi32, #jfa.rows_of<#jfa.wgmma_acc>>
  %hi = arith.minsi %to, %len_r : tensor<128xi32, #jfa.rows_of<#jfa.wgmma_acc>>
  %limit = arith.subi %hi, %k0_r : tensor<128xi32, #jfa.rows_of<#jfa.wgmma_acc>>
  %masked = scf.if %general -> tensor<128x128xf32, #jfa.wgmma_acc> {
    %lo_off_r = tensor.splat %lo_off : tensor<128xi32, #jfa.rows_of<#jfa.wgmma_acc>>
    %from = arith.addi %query, %lo_off_r : tensor<128xi32, #jfa.rows_of<#jfa.wgmma_acc>>
    %floor_r = tensor.splat %key_floor : tensor<128xi32, #jfa.rows_of<#jfa.wgmma_acc>>
    %lo = arith.maxsi %from, %floor_r : tensor<128xi32, #jfa.rows_of<#jfa.wgmma_acc>>
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
// accumulated so far must be rescaled. %exp_share of the 16 8-column groups
// of P are computed on the FMA pipes instead of the special-function unit
// (jfa.exp2; a compile-time constant).
jfa.func @softmax_step(%s: tensor<128x128xf32, #jfa.wgmma_acc>,
                       %m: tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>,
                       %l: tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>,
                       %scale_log2: f32, %exp_share: i32)
    -> (tensor<128x128xf32, #jfa.wgmma_acc>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>,
        tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>)
    attributes {layout_parameter = #jfa.wgmma_acc, rows_parameter = 128} {
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
  %p = jfa.exp2 %x software(%exp_share of 16) : tensor<128x128xf32, #jfa.wgmma_acc>
  %m_drop = arith.subf %m, %m_use : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %corr = math.exp2 %m_drop fastmath<afn> : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %p_sum = jfa.reduce_rows sum %p : tensor<128x128xf32, #jfa.wgmma_acc> -> tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %l_old = arith.mulf %l, %corr : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %l_new = arith.addf %l_old, %p_sum : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  jfa.return %p, %m_new, %l_new, %corr
      : tensor<128x128xf32, #jfa.wgmma_acc>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>,
        tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
}

// GDPA's activations (generalized dot-product attention: an activation in
// place of softmax, no normalization) of x = scale * S, in base-2
// exponentials: 1 silu(x) = x / (1 + 2^(-x log2 e)); 2 gelu_tanh(x) =
// x / 2 (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3), tanh(u) = 1 - 2 /
// (1 + 2^(2u log2 e)) (saturating to +-1 for large |u|, no NaN); the
// divisions approximate (div.approx: a full division spilled 172-424 B).
jfa.func @activation(%x: tensor<128x128xf32, #jfa.wgmma_acc>, %activation: i32) -> tensor<128x128xf32, #jfa.wgmma_acc>
    attributes {layout_parameter = #jfa.wgmma_acc, rows_parameter = 128} {
  %c1 = arith.constant 1 : i32
  %one = arith.constant dense<1.0> : tensor<128x128xf32, #jfa.wgmma_acc>
  %is_silu = arith.cmpi eq, %activation, %c1 : i32
  %p = scf.if %is_silu -> tensor<128x128xf32, #jfa.wgmma_acc> {
    %neg_log2e = arith.constant dense<-1.44269504> : tensor<128x128xf32, #jfa.wgmma_acc>
    %nx = arith.mulf %x, %neg_log2e : tensor<128x128xf32, #jfa.wgmma_acc>
    %e = math.exp2 %nx fastmath<afn> : tensor<128x128xf32, #jfa.wgmma_acc>
    %den = arith.addf %e, %one : tensor<128x128xf32, #jfa.wgmma_acc>
    %silu = arith.divf %x, %den fastmath<afn> : tensor<128x128xf32, #jfa.wgmma_acc>
    scf.yield %silu : tensor<128x128xf32, #jfa.wgmma_acc>
  } else {
    %half = arith.constant dense<0.5> : tensor<128x128xf32, #jfa.wgmma_acc>
    %two = arith.constant dense<2.0> : tensor<128x128xf32, #jfa.wgmma_acc>
    %cubic = arith.constant dense<0.044715> : tensor<128x128xf32, #jfa.wgmma_acc>
    // 2 sqrt(2/pi) log2 e
    %u_scale = arith.constant dense<2.30220819> : tensor<128x128xf32, #jfa.wgmma_acc>
    %x2 = arith.mulf %x, %x : tensor<128x128xf32, #jfa.wgmma_acc>
    %x3 = arith.mulf %x2, %x : tensor<128x128xf32, #jfa.wgmma_acc>
    %inner = math.fma %x3, %cubic, %x : tensor<128x128xf32, #jfa.wgmma_acc>
    %u2 = arith.mulf %inner, %u_scale : tensor<128x128xf32, #jfa.wgmma_acc>
    %e = math.exp2 %u2 fastmath<afn> : tensor<128x128xf32, #jfa.wgmma_acc>
    %den = arith.addf %e, %one : tensor<128x128xf32, #jfa.wgmma_acc>
    %frac = arith.divf %two, %den fastmath<afn> : tensor<128x128xf32, #jfa.wgmma_acc>
    %t = arith.subf %one, %frac : tensor<128x128xf32, #jfa.wgmma_acc>
    %t1 = arith.addf %t, %one : tensor<128x128xf32, #jfa.wgmma_acc>
    %hx = arith.mulf %x, %half : tensor<128x128xf32, #jfa.wgmma_acc>
    %gelu = arith.mulf %hx, %t1 : tensor<128x128xf32, #jfa.wgmma_acc>
    scf.yield %gelu : tensor<128x128xf32, #jfa.wgmma_acc>
  }
  jfa.return %p : tensor<128x128xf32, #jfa.wgmma_acc>
}

// The backwards' GDPA step on a tile of scaled scores x (the sm_90a
// backward's 64x64 wgmma tiles, the sm_100a one's 128x64 tensor-memory
// rows): act(x) and act'(x) (1 silu, 2 gelu_tanh), both 0 at x = -1e4
// (the mask). Both activations are x s with s a logistic sigmoid,
// s = 1 / (1 + 2^(-v log2 e)): v = x for silu, v = 2u for gelu_tanh
// (x / 2 (1 + tanh(u)) = x sigmoid(2u), u = sqrt(2/pi) (x + 0.044715 x^3)).
// So act' = s + x s (1 - s) v' = s + s (x - act) v', with v' = 1 for silu
// and 2 sqrt(2/pi) (1 + 3 0.044715 x^2) for gelu_tanh: a few tiles live
// at once (the tanh form's gradient spilled 20-36 B at D = 128 in the
// sm_90a backward, this one 0-28 B; bench/NOTES.md, session 31).
jfa.func @activation_grad(%x: tensor<64x64xf32, #jfa.wgmma_acc>, %activation: i32) -> (tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>)
    attributes {layout_parameter = #jfa.wgmma_acc, rows_parameter = 64} {
  %c1 = arith.constant 1 : i32
  %one = arith.constant dense<1.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  %is_silu = arith.cmpi eq, %activation, %c1 : i32
  %r:2 = scf.if %is_silu -> (tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>) {
    %neg_log2e = arith.constant dense<-1.44269504> : tensor<64x64xf32, #jfa.wgmma_acc>
    %nx = arith.mulf %x, %neg_log2e : tensor<64x64xf32, #jfa.wgmma_acc>
    %e = math.exp2 %nx fastmath<afn> : tensor<64x64xf32, #jfa.wgmma_acc>
    %den = arith.addf %e, %one : tensor<64x64xf32, #jfa.wgmma_acc>
    %sig = arith.divf %one, %den fastmath<afn> : tensor<64x64xf32, #jfa.wgmma_acc>
    %p = arith.mulf %x, %sig : tensor<64x64xf32, #jfa.wgmma_acc>
    %rest = arith.subf %one, %sig : tensor<64x64xf32, #jfa.wgmma_acc>
    %xr = math.fma %x, %rest, %one : tensor<64x64xf32, #jfa.wgmma_acc>
    %g = arith.mulf %sig, %xr : tensor<64x64xf32, #jfa.wgmma_acc>
    scf.yield %p, %g : tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>
  } else {
    %cubic = arith.constant dense<0.044715> : tensor<64x64xf32, #jfa.wgmma_acc>
    // -2 sqrt(2/pi) log2 e
    %v_scale = arith.constant dense<-2.30220819> : tensor<64x64xf32, #jfa.wgmma_acc>
    // v' = 2 sqrt(2/pi) + 6 sqrt(2/pi) 0.044715 x^2
    %slope0 = arith.constant dense<1.59576912> : tensor<64x64xf32, #jfa.wgmma_acc>
    %slope2 = arith.constant dense<0.214064451> : tensor<64x64xf32, #jfa.wgmma_acc>
    %x2 = arith.mulf %x, %x : tensor<64x64xf32, #jfa.wgmma_acc>
    %poly = math.fma %x2, %cubic, %one : tensor<64x64xf32, #jfa.wgmma_acc>
    %inner = arith.mulf %x, %poly : tensor<64x64xf32, #jfa.wgmma_acc>
    %nv = arith.mulf %inner, %v_scale : tensor<64x64xf32, #jfa.wgmma_acc>
    %e = math.exp2 %nv fastmath<afn> : tensor<64x64xf32, #jfa.wgmma_acc>
    %den = arith.addf %e, %one : tensor<64x64xf32, #jfa.wgmma_acc>
    %sig = arith.divf %one, %den fastmath<afn> : tensor<64x64xf32, #jfa.wgmma_acc>
    %p = arith.mulf %x, %sig : tensor<64x64xf32, #jfa.wgmma_acc>
    %rest = arith.subf %one, %sig : tensor<64x64xf32, #jfa.wgmma_acc>
    %xr = arith.mulf %x, %rest : tensor<64x64xf32, #jfa.wgmma_acc>
    %slope = math.fma %x2, %slope2, %slope0 : tensor<64x64xf32, #jfa.wgmma_acc>
    %sxr = arith.mulf %sig, %xr : tensor<64x64xf32, #jfa.wgmma_acc>
    %g = math.fma %sxr, %slope, %sig : tensor<64x64xf32, #jfa.wgmma_acc>
    scf.yield %p, %g : tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>
  }
  jfa.return %r#0, %r#1 : tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>
}

// One step of the forward over a tile of raw scores S (queries from %q0,
// keys from %k0; %masked: the tile holds keys some row does not see, the
// bounds as @mask_keys'), with the running max %m and sum %l. Softmax
// (%activation 0): the mask at -inf and @softmax_step. A GDPA activation (1
// silu, 2 gelu_tanh; only in the general variant, a compile-time
// parameter: without it this folds to softmax): P = act(scale * S) with
// the keys a row does not see at 0, and m, l and the correction unchanged
// (-inf, 0, 1): the output is not normalized. %exp_share: @softmax_step's.
jfa.func @attention_step(%s_raw: tensor<128x128xf32, #jfa.wgmma_acc>, %m: tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, %l: tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, %scale_log2: f32,
                         %activation: i32, %masked: i1, %q0: i32, %k0: i32,
                         %keys_end: i32, %lo_off: i32, %hi_off: i32,
                         %key_floor: i32, %general: i1, %exp_share: i32)
    -> (tensor<128x128xf32, #jfa.wgmma_acc>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>)
    attributes {layout_parameter = #jfa.wgmma_acc, rows_parameter = 128} {
  %c0 = arith.constant 0 : i32
  %neg_inf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %is_softmax = arith.cmpi eq, %activation, %c0 : i32
  %r:4 = scf.if %is_softmax -> (tensor<128x128xf32, #jfa.wgmma_acc>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>) {
    %s = scf.if %masked -> tensor<128x128xf32, #jfa.wgmma_acc> {
      %w = jfa.call @mask_keys(%s_raw, %q0, %k0, %keys_end, %lo_off, %hi_off, %key_floor, %general, %neg_inf)
          : (tensor<128x128xf32, #jfa.wgmma_acc>, i32, i32, i32, i32, i32, i32, i1, f32) -> tensor<128x128xf32, #jfa.wgmma_acc>
      scf.yield %w : tensor<128x128xf32, #jfa.wgmma_acc>
    } else {
      scf.yield %s_raw : tensor<128x128xf32, #jfa.wgmma_acc>
    }
    %p, %m_new, %l_new, %corr = jfa.call @softmax_step(%s, %m, %l, %scale_log2, %exp_share)
        : (tensor<128x128xf32, #jfa.wgmma_acc>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, f32, i32) -> (tensor<128x128xf32, #jfa.wgmma_acc>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>)
    scf.yield %p, %m_new, %l_new, %corr : tensor<128x128xf32, #jfa.wgmma_acc>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  } else {
    %ln2 = arith.constant 0.693147181 : f32
    %scale = arith.mulf %scale_log2, %ln2 : f32
    %scale_t = tensor.splat %scale : tensor<128x128xf32, #jfa.wgmma_acc>
    %x = arith.mulf %s_raw, %scale_t : tensor<128x128xf32, #jfa.wgmma_acc>
    %p_all = jfa.call @activation(%x, %activation) : (tensor<128x128xf32, #jfa.wgmma_acc>, i32) -> tensor<128x128xf32, #jfa.wgmma_acc>
    %p = scf.if %masked -> tensor<128x128xf32, #jfa.wgmma_acc> {
      %w = jfa.call @mask_keys(%p_all, %q0, %k0, %keys_end, %lo_off, %hi_off, %key_floor, %general, %zero)
          : (tensor<128x128xf32, #jfa.wgmma_acc>, i32, i32, i32, i32, i32, i32, i1, f32) -> tensor<128x128xf32, #jfa.wgmma_acc>
      scf.yield %w : tensor<128x128xf32, #jfa.wgmma_acc>
    } else {
      scf.yield %p_all : tensor<128x128xf32, #jfa.wgmma_acc>
    }
    %one = arith.constant dense<1.0> : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
    scf.yield %p, %m, %l, %one : tensor<128x128xf32, #jfa.wgmma_acc>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  }
  jfa.return %r#0, %r#1, %r#2, %r#3 : tensor<128x128xf32, #jfa.wgmma_acc>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
}

// O's epilogue. A q tile whose %q_rows rows all lie in the sequence (none
// past its end, none below a block-sparse row floor: %first_row 0) goes out
// by TMA stores from the unit's Q stage; another by row-clipped stores.
jfa.func @o_tile_whole(%rows_left: i32, %first_row: i32, %q_rows: i32) -> i1 {
  %c0 = arith.constant 0 : i32
  %whole_rows = arith.cmpi sge, %rows_left, %q_rows : i32
  %from_first = arith.cmpi eq, %first_row, %c0 : i32
  %whole = arith.andi %whole_rows, %from_first : i1
  jfa.return %whole : i1
}

// O's one or two 64-column halves (%hi only with %wide: D = 128) into the
// Q stage's slots, fenced for the TMA stores that read them. The caller
// has waited for the unit's last S (the stage's last reader) and meets the
// other writers before @tma_store_o.
jfa.func @stage_o(%lo: tensor<128x64xbf16, #jfa.wgmma_acc>, %hi: tensor<128x64xbf16, #jfa.wgmma_acc>,
                  %slot0: !jfa.slot<128x64xbf16, swizzle 128>, %slot1: !jfa.slot<128x64xbf16, swizzle 128>,
                  %wide: i1)
    attributes {layout_parameter = #jfa.wgmma_acc, rows_parameter = 128} {
  jfa.local_store %lo, %slot0 : tensor<128x64xbf16, #jfa.wgmma_acc> -> !jfa.slot<128x64xbf16, swizzle 128>
  scf.if %wide {
    jfa.local_store %hi, %slot1 : tensor<128x64xbf16, #jfa.wgmma_acc> -> !jfa.slot<128x64xbf16, swizzle 128>
  }
  jfa.fence_async_shared
  jfa.return
}

// The staged halves to o (the 2-d [T, H*D] tensor) at (%row0, %col0).
jfa.func @tma_store_o(%slot0: !jfa.slot<128x64xbf16, swizzle 128>, %slot1: !jfa.slot<128x64xbf16, swizzle 128>,
                      %o_out: !jfa.tma<128x64xbf16, swizzle 128>, %row0: i32, %col0: i32, %wide: i1)
    attributes {rows_parameter = 128} {
  %c64 = arith.constant 64 : i32
  jfa.tma_store %slot0, %o_out[%row0, %col0] : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.tma<128x64xbf16, swizzle 128>
  scf.if %wide {
    %col_hi = arith.addi %col0, %c64 : i32
    jfa.tma_store %slot1, %o_out[%row0, %col_hi] : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.tma<128x64xbf16, swizzle 128>
  }
  jfa.return
}

// The halves to o at element %o_base, rows [%first_row, %rows_left) of the
// tile only (a tile that is not whole).
jfa.func @store_o_rows(%lo: tensor<128x64xbf16, #jfa.wgmma_acc>, %hi: tensor<128x64xbf16, #jfa.wgmma_acc>,
                       %o: !jfa.ptr<bf16>, %o_base: i32, %o_stride: i32, %rows_left: i32,
                       %first_row: i32, %wide: i1)
    attributes {layout_parameter = #jfa.wgmma_acc, rows_parameter = 128} {
  %c64 = arith.constant 64 : i32
  jfa.store_tile %lo, %o[%o_base] stride(%o_stride) rows(%rows_left) from(%first_row)
      : tensor<128x64xbf16, #jfa.wgmma_acc>, !jfa.ptr<bf16>
  scf.if %wide {
    %o_base_hi = arith.addi %o_base, %c64 : i32
    jfa.store_tile %hi, %o[%o_base_hi] stride(%o_stride) rows(%rows_left) from(%first_row)
        : tensor<128x64xbf16, #jfa.wgmma_acc>, !jfa.ptr<bf16>
  }
  jfa.return
}
