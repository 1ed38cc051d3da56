// RUN: jfa-opt %s --split-input-file --jfa-distribute-tiles --jfa-lower-async-tasks --jfa-convert-to-llvm --verify-diagnostics
// jfa.exp2's software share picks registers at compile time: one that is
// not a constant by the lowering is an error at the op.

jfa.kernel @runtime_share(%share: i32) warps(4) {
  %t = arith.constant dense<-1.5> : tensor<64x32xf32, #jfa.wgmma_acc>
  // expected-error @+2 {{'jfa.exp2' op needs a compile-time software share (a jfa.param or a constant; jfac -P sets a param)}}
  // expected-error @+1 {{failed to legalize operation 'jfa.exp2'}}
  %p = jfa.exp2 %t software(%share of 2) : tensor<64x32xf32, #jfa.wgmma_acc>
  %sink = jfa.reduce_rows sum %p : tensor<64x32xf32, #jfa.wgmma_acc> -> tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
}
