// RUN: not jfa-opt %s --jfa-inline-helpers 2>&1 | FileCheck %s
// A helper with a layout parameter that calls a helper without one: the
// inner call's types change with the binding, and the inliner reports the
// call (in the outer helper, called from the kernel) before inlining it.

jfa.func @fixed_max(%s: tensor<128x128xf32, #jfa.wgmma_acc>) -> tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>> {
  %m = jfa.reduce_rows max %s : tensor<128x128xf32, #jfa.wgmma_acc> -> tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  jfa.return %m : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
}
jfa.func @any_max(%s: tensor<128x128xf32, #jfa.wgmma_acc>) -> tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
    attributes {layout_parameter = #jfa.wgmma_acc} {
  // CHECK: inline-helpers-layout-nested.mlir:[[@LINE+1]]:8: error: 'jfa.call' op has type '(tensor<128x128xf32, #jfa.tmem_row>) -> tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>' but @fixed_max is '(tensor<128x128xf32, #jfa.wgmma_acc>) -> tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>' (the call is in a helper whose layout, stage, element or rows parameter this use bound to another)
  %m = jfa.call @fixed_max(%s) : (tensor<128x128xf32, #jfa.wgmma_acc>) -> tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  jfa.return %m : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
}
jfa.kernel @k() warps(4) {
  %t = arith.constant dense<1.0> : tensor<128x128xf32, #jfa.tmem_row>
  // CHECK: inline-helpers-layout-nested.mlir:[[@LINE+1]]:8: note: called from
  %m = jfa.call @any_max(%t) : (tensor<128x128xf32, #jfa.tmem_row>) -> tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>
}
