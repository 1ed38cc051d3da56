// RUN: jfa-opt %s --split-input-file --verify-diagnostics
// #jfa.rows_of takes a tile layout with row vectors, and says so when it is
// parsed: anything else used to verify and then crash the passes that read
// the parent (issue 24, found by mutating attention_fwd_sm90.mlir).

jfa.kernel @k() warps(4) {
  // expected-error @+1 {{#jfa.rows_of takes a tile layout with row vectors (#jfa.wgmma_acc or #jfa.tmem_row), got f16}}
  %x = arith.constant dense<0.0> : tensor<128xf32, #jfa.rows_of<f16>>
}

// -----

jfa.kernel @k() warps(4) {
  // expected-error @+1 {{#jfa.rows_of takes a tile layout with row vectors (#jfa.wgmma_acc or #jfa.tmem_row), got 1 : i64}}
  %x = arith.constant dense<0.0> : tensor<128xf32, #jfa.rows_of<1>>
}

// -----

jfa.kernel @k() warps(4) {
  // expected-error @+1 {{got "x"}}
  %x = arith.constant dense<0.0> : tensor<128xf32, #jfa.rows_of<"x">>
}

// -----

jfa.kernel @k() warps(4) {
  // expected-error @+1 {{got unit}}
  %x = arith.constant dense<0.0> : tensor<128xf32, #jfa.rows_of<unit>>
}

// -----

// A row vector has no row vectors of its own.
jfa.kernel @k() warps(4) {
  // expected-error @+1 {{got #jfa.rows_of<#jfa.wgmma_acc>}}
  %x = arith.constant dense<0.0> : tensor<128xf32, #jfa.rows_of<#jfa.rows_of<#jfa.wgmma_acc>>>
}

// -----

// The blocked layout has no row vectors.
jfa.kernel @k() warps(4) {
  // expected-error @+1 {{got #jfa.blocked}}
  %x = arith.constant dense<0.0> : tensor<128xf32, #jfa.rows_of<#jfa.blocked>>
}

// -----

// Another dialect's attribute is no tile layout.
jfa.kernel @k() warps(4) {
  // expected-error @+1 {{got [1, 2]}}
  %x = arith.constant dense<0.0> : tensor<128xf32, #jfa.rows_of<[1, 2]>>
}
