// RUN: not jfa-opt %s --jfa-inline-helpers 2>&1 | FileCheck %s
// A copy bound to other rows cannot hold a constant tile of the parameter's
// rows that is not a splat: its values have the written rows.

jfa.func @ramp(%s: tensor<2x64xf32, #jfa.wgmma_acc>) -> tensor<2xf32, #jfa.rows_of<#jfa.wgmma_acc>>
    attributes {rows_parameter = 2} {
  // CHECK: inline-helpers-rows-constant.mlir:[[@LINE+1]]:8: error: 'arith.constant' op in @ramp, its rows parameter 2 bound to 4: 'tensor<2xf32, #jfa.rows_of<#jfa.wgmma_acc>>' holds a constant that is not a splat, whose values cannot take other rows
  %r = arith.constant dense<[1.0, 2.0]> : tensor<2xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  jfa.return %r : tensor<2xf32, #jfa.rows_of<#jfa.wgmma_acc>>
}
jfa.kernel @k() warps(4) {
  %s = arith.constant dense<0.0> : tensor<4x64xf32, #jfa.wgmma_acc>
  // CHECK: inline-helpers-rows-constant.mlir:[[@LINE+1]]:8: note: called from
  %r = jfa.call @ramp(%s) : (tensor<4x64xf32, #jfa.wgmma_acc>) -> tensor<4xf32, #jfa.rows_of<#jfa.wgmma_acc>>
}
