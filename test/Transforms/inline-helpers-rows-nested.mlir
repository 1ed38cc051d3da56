// RUN: not jfa-opt %s --jfa-inline-helpers 2>&1 | FileCheck %s
// A helper with a rows parameter that calls a helper without one: the
// inner call's types change with the binding, and the inliner reports the
// call (in the outer helper, called from the kernel) before inlining it.

jfa.func @fixed(%s: tensor<128x64xf32, #jfa.wgmma_acc>) {
  jfa.return
}
jfa.func @outer(%s: tensor<128x64xf32, #jfa.wgmma_acc>) attributes {rows_parameter = 128} {
  // CHECK: inline-helpers-rows-nested.mlir:[[@LINE+1]]:3: error: 'jfa.call' op has type '(tensor<192x64xf32, #jfa.wgmma_acc>) -> ()' but @fixed is '(tensor<128x64xf32, #jfa.wgmma_acc>) -> ()' (the call is in a helper whose layout, stage, element or rows parameter this use bound to another)
  jfa.call @fixed(%s) : (tensor<128x64xf32, #jfa.wgmma_acc>) -> ()
  jfa.return
}
jfa.kernel @k() warps(12) {
  %s = arith.constant dense<0.0> : tensor<192x64xf32, #jfa.wgmma_acc>
  // CHECK: inline-helpers-rows-nested.mlir:[[@LINE+1]]:3: note: called from
  jfa.call @outer(%s) : (tensor<192x64xf32, #jfa.wgmma_acc>) -> ()
}
