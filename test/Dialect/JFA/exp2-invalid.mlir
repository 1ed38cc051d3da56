// RUN: jfa-opt %s --split-input-file --verify-diagnostics
// jfa.exp2's verifier: the share within the period, a 2-d f32 tile in a
// layout whose column groups are the same registers in every thread.

jfa.kernel @k() warps(4) {
  %t = arith.constant dense<1.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  %share = arith.constant 5 : i32
  // expected-error @+1 {{'jfa.exp2' op software share must be in [0, 4] column groups of 8, got 5}}
  %p = jfa.exp2 %t software(%share of 4) : tensor<64x64xf32, #jfa.wgmma_acc>
}

// -----

jfa.kernel @k() warps(4) {
  %t = arith.constant dense<1.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  %share = arith.constant -1 : i32
  // expected-error @+1 {{'jfa.exp2' op software share must be in [0, 16] column groups of 8, got -1}}
  %p = jfa.exp2 %t software(%share of 16) : tensor<64x64xf32, #jfa.wgmma_acc>
}

// -----

jfa.kernel @k() warps(4) {
  %t = arith.constant dense<1.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  %share = arith.constant 0 : i32
  // expected-error @+1 {{'jfa.exp2' op period must be at least 1 column group, got 0}}
  %p = jfa.exp2 %t software(%share of 0) : tensor<64x64xf32, #jfa.wgmma_acc>
}

// -----

jfa.kernel @k() warps(4) {
  %t = arith.constant dense<1.0> : tensor<64x64xf32>
  %share = arith.constant 1 : i32
  // expected-error @+1 {{'jfa.exp2' op works on tiles in the #jfa.wgmma_acc or #jfa.tmem_row layout, got 'tensor<64x64xf32>'}}
  %p = jfa.exp2 %t software(%share of 4) : tensor<64x64xf32>
}

// -----

jfa.kernel @k() warps(4) {
  %t = arith.constant dense<1.0> : tensor<64x64xf16, #jfa.wgmma_acc>
  %share = arith.constant 1 : i32
  // expected-error @+1 {{'jfa.exp2' op works on 2-d f32 tiles, got 'tensor<64x64xf16, #jfa.wgmma_acc>'}}
  %p = jfa.exp2 %t software(%share of 4) : tensor<64x64xf16, #jfa.wgmma_acc>
}

// -----

jfa.kernel @k() warps(4) {
  %t = arith.constant dense<1.0> : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %share = arith.constant 1 : i32
  // expected-error @+1 {{'jfa.exp2' op works on 2-d f32 tiles, got 'tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>'}}
  %p = jfa.exp2 %t software(%share of 4) : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
}

// -----

jfa.kernel @k(%x: f32) warps(4) {
  %v = vector.broadcast %x : f32 to vector<16xf32>
  %share = arith.constant 1 : i32
  // expected-error @+1 {{'jfa.exp2' op in distributed form needs the thread count, the layout and the tile shape}}
  %p = jfa.exp2 %v software(%share of 2) : vector<16xf32>
}
