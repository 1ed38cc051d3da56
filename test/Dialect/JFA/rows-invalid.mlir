// RUN: jfa-opt %s --split-input-file --verify-diagnostics

jfa.kernel @k() warps(4) {
  %t = arith.constant dense<1.0> : tensor<64x64xf32>
  // expected-error @+1 {{'jfa.reduce_rows' op works on tiles in the #jfa.wgmma_acc or #jfa.tmem_row layout, got 'tensor<64x64xf32>'}}
  %m = jfa.reduce_rows max %t : tensor<64x64xf32> -> tensor<64xf32>
}

// -----

jfa.kernel @k() warps(4) {
  %t = arith.constant dense<1.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  // expected-error @+1 {{'jfa.reduce_rows' op row vector must be 'tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>', got 'tensor<64xf32, #jfa.rows_of<#jfa.tmem_row>>'}}
  %m = jfa.reduce_rows max %t : tensor<64x64xf32, #jfa.wgmma_acc> -> tensor<64xf32, #jfa.rows_of<#jfa.tmem_row>>
}

// -----

jfa.kernel @k() warps(4) {
  %t = arith.constant dense<1.0> : tensor<64x64xf16, #jfa.wgmma_acc>
  // expected-error @+1 {{'jfa.reduce_rows' op works on f32 tiles, got 'tensor<64x64xf16, #jfa.wgmma_acc>'; extend bf16/f16 tiles to f32 first (arith.extf)}}
  %m = jfa.reduce_rows sum %t : tensor<64x64xf16, #jfa.wgmma_acc> -> tensor<64xf16, #jfa.rows_of<#jfa.wgmma_acc>>
}

// -----

jfa.kernel @k() warps(4) {
  %v = arith.constant dense<1.0> : tensor<32xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  // expected-error @+1 {{'jfa.broadcast_rows' op row vector must be 'tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>', got 'tensor<32xf32, #jfa.rows_of<#jfa.wgmma_acc>>'}}
  %b = jfa.broadcast_rows %v : tensor<32xf32, #jfa.rows_of<#jfa.wgmma_acc>> -> tensor<64x64xf32, #jfa.wgmma_acc>
}

// -----

jfa.kernel @k() warps(4) {
  // expected-error @+1 {{'jfa.iota' op makes a 2-d i32 tile or an i32 row vector (#jfa.rows_of), got 'tensor<64x64xf32>'}}
  %r = jfa.iota rows : tensor<64x64xf32>
}

// -----

jfa.kernel @k() warps(4) {
  // expected-error @+1 {{'jfa.iota' op makes a 2-d i32 tile or an i32 row vector (#jfa.rows_of), got 'tensor<64xi32, #jfa.wgmma_acc>'}}
  %r = jfa.iota rows : tensor<64xi32, #jfa.wgmma_acc>
}

// -----

jfa.kernel @k() warps(4) {
  // expected-error @+1 {{'jfa.iota' op of a row vector counts rows; 'cols' has no meaning for 'tensor<64xi32, #jfa.rows_of<#jfa.wgmma_acc>>'}}
  %r = jfa.iota cols : tensor<64xi32, #jfa.rows_of<#jfa.wgmma_acc>>
}

// -----

jfa.kernel @k() warps(4) {
  // expected-error @+1 {{'jfa.iota' op in distributed form needs the thread and the tile shape}}
  %r = jfa.iota rows : vector<32xi32>
}

// -----

// The element-type rule comes first, not a row-vector type that repeats
// the tile's bf16 (issue: the advice led to a second error).
jfa.kernel @k() warps(4) {
  %t = arith.constant dense<1.0> : tensor<64x64xbf16, #jfa.wgmma_acc>
  // expected-error @+1 {{'jfa.reduce_rows' op works on f32 tiles, got 'tensor<64x64xbf16, #jfa.wgmma_acc>'}}
  %m = jfa.reduce_rows max %t : tensor<64x64xbf16, #jfa.wgmma_acc> -> tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
}

// -----

jfa.kernel @k() warps(4) {
  %t = arith.constant dense<1.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  %l = arith.constant dense<3> : tensor<64xi32, #jfa.rows_of<#jfa.wgmma_acc>>
  %fill = arith.constant 0.0 : f16
  // expected-error @+1 {{'jfa.mask_cols' op fill must be a 'f32' like the tile's elements, got 'f16'}}
  %m = jfa.mask_cols %t, %l, %fill : tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64xi32, #jfa.rows_of<#jfa.wgmma_acc>>, f16
}

// -----

jfa.kernel @k() warps(4) {
  %t = arith.constant dense<1.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  %l = arith.constant dense<3.0> : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %fill = arith.constant 0.0 : f32
  // expected-error @+1 {{'jfa.mask_cols' op limit must be 'tensor<64xi32, #jfa.rows_of<#jfa.wgmma_acc>>', got 'tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>'}}
  %m = jfa.mask_cols %t, %l, %fill : tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>, f32
}

// -----

jfa.kernel @k() warps(4) {
  %t = arith.constant dense<1.0> : tensor<64x64xf32>
  %l = arith.constant dense<3> : tensor<64xi32>
  %fill = arith.constant 0.0 : f32
  // expected-error @+1 {{'jfa.mask_cols' op works on tiles in the #jfa.wgmma_acc or #jfa.tmem_row layout, got 'tensor<64x64xf32>'}}
  %m = jfa.mask_cols %t, %l, %fill : tensor<64x64xf32>, tensor<64xi32>, f32
}

// -----

// The custom form takes the lower bound's type from the limit; the generic
// form can name another.
jfa.kernel @k() warps(4) {
  %t = arith.constant dense<1.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  %l = arith.constant dense<3> : tensor<64xi32, #jfa.rows_of<#jfa.wgmma_acc>>
  %lower = arith.constant dense<1> : tensor<64xi32>
  %fill = arith.constant 0.0 : f32
  // expected-error @+1 {{'jfa.mask_cols' op failed to verify that lower has the limit's type}}
  %m = "jfa.mask_cols"(%t, %l, %fill, %lower) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 0>}> : (tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64xi32, #jfa.rows_of<#jfa.wgmma_acc>>, f32, tensor<64xi32>) -> tensor<64x64xf32, #jfa.wgmma_acc>
}

// -----

jfa.kernel @k() warps(4) {
  %v = arith.constant dense<1.0> : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  // expected-error @+1 {{'jfa.broadcast_rows' op row vector must be 'tensor<64xi32, #jfa.rows_of<#jfa.wgmma_acc>>', got 'tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>'}}
  %b = jfa.broadcast_rows %v : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>> -> tensor<64x64xi32, #jfa.wgmma_acc>
}
