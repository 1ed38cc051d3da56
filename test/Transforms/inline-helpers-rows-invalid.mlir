// RUN: jfa-opt %s --split-input-file --verify-diagnostics
// The rows parameter's errors: a count no tile, slot or box of the
// signature has, one not positive, one not an integer, and a call whose
// types disagree with the bound rows (inline-helpers-rows-nested.mlir: a
// bound copy calling a helper without the parameter).

// expected-error @below {{'jfa.func' op names 64 its rows parameter, but no argument or result is a register tile, row vector, !jfa.slot, !jfa.smem or !jfa.tma of 64 rows}}
jfa.func @no_tile(%s: tensor<128x64xf32, #jfa.wgmma_acc>, %n: i32) attributes {rows_parameter = 64} {
  jfa.return
}

// -----

// expected-error @below {{'jfa.func' op rows parameter must be positive, got 0}}
jfa.func @zero(%s: tensor<128x64xf32, #jfa.wgmma_acc>) attributes {rows_parameter = 0} {
  jfa.return
}

// -----

// expected-error @below {{rows_parameter must be an integer (a tile's row count), got "many"}}
jfa.func @string(%s: tensor<128x64xf32, #jfa.wgmma_acc>) attributes {rows_parameter = "many"} {
  jfa.return
}

// -----

jfa.func @pair(%s: tensor<128x64xf32, #jfa.wgmma_acc>, %m: tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>)
    attributes {rows_parameter = 128} {
  jfa.return
}
jfa.kernel @k() warps(12) {
  %s = arith.constant dense<0.0> : tensor<192x64xf32, #jfa.wgmma_acc>
  %m = arith.constant dense<0.0> : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  // expected-error @below {{'jfa.call' op has type '(tensor<192x64xf32, #jfa.wgmma_acc>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>) -> ()' but @pair is '(tensor<192x64xf32, #jfa.wgmma_acc>, tensor<192xf32, #jfa.rows_of<#jfa.wgmma_acc>>) -> ()' (its rows parameter 128 bound to 192)}}
  jfa.call @pair(%s, %m) : (tensor<192x64xf32, #jfa.wgmma_acc>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>) -> ()
}
