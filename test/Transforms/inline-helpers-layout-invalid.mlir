// RUN: jfa-opt %s --verify-diagnostics --jfa-inline-helpers
// RUN: not jfa-opt %s --jfa-inline-helpers 2>&1 | FileCheck %s
// A layout the helper's ops do not take is found in the copy: the error
// is located in the helper, called from the call.

jfa.func @center(%s: tensor<64x64xf32, #jfa.wgmma_acc>) -> tensor<64x64xf32, #jfa.wgmma_acc>
    attributes {layout_parameter = #jfa.wgmma_acc} {
  // expected-error @below {{'jfa.reduce_rows' op}}
  %m = jfa.reduce_rows max %s : tensor<64x64xf32, #jfa.wgmma_acc> -> tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %m_t = jfa.broadcast_rows %m : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>> -> tensor<64x64xf32, #jfa.wgmma_acc>
  %y = arith.subf %s, %m_t : tensor<64x64xf32, #jfa.wgmma_acc>
  jfa.return %y : tensor<64x64xf32, #jfa.wgmma_acc>
}
jfa.kernel @k() warps(4) {
  %t = arith.constant dense<1.0> : tensor<64x64xf32, #jfa.blocked>
  // CHECK: inline-helpers-layout-invalid.mlir:9:8: error: 'jfa.reduce_rows' op works on tiles in the #jfa.wgmma_acc or #jfa.tmem_row layout, got 'tensor<64x64xf32, #jfa.blocked>'
  // CHECK: inline-helpers-layout-invalid.mlir:[[@LINE+1]]:8: note: called from
  %y = jfa.call @center(%t) : (tensor<64x64xf32, #jfa.blocked>) -> tensor<64x64xf32, #jfa.blocked>
}
