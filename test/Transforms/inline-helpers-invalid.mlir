// RUN: jfa-opt %s --split-input-file --verify-diagnostics --jfa-inline-helpers

// expected-note @below {{@f is here}}
jfa.func @f(%a: i32) -> i32 {
  // expected-error @below {{helper @g calls itself; helpers are inlined and cannot recurse}}
  %b = jfa.call @g(%a) : (i32) -> i32
  jfa.return %b : i32
}
// expected-note @below {{@g is here}}
jfa.func @g(%a: i32) -> i32 {
  %b = jfa.call @f(%a) : (i32) -> i32
  jfa.return %b : i32
}
jfa.kernel @k(%n: i32) warps(1) {
  %x = jfa.call @g(%n) : (i32) -> i32
}

// -----

// A cycle no kernel reaches is still an error.
// expected-note @below {{@self is here}}
jfa.func @self(%a: i32) -> i32 {
  // expected-error @below {{helper @self calls itself}}
  %b = jfa.call @self(%a) : (i32) -> i32
  jfa.return %b : i32
}

// -----

// A layout parameter that no argument or result holds binds nothing.
// expected-error @below {{'jfa.func' op names #jfa.tmem_row its layout parameter, but no argument or result type holds it}}
jfa.func @unbound(%s: tensor<128x128xf32, #jfa.wgmma_acc>) -> tensor<128x128xf32, #jfa.wgmma_acc>
    attributes {layout_parameter = #jfa.tmem_row} {
  jfa.return %s : tensor<128x128xf32, #jfa.wgmma_acc>
}

// -----

// The first tile binds the parameter; the row vector then disagrees.
jfa.func @scale_rows(%s: tensor<128x128xf32, #jfa.wgmma_acc>, %r: tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>)
    -> tensor<128x128xf32, #jfa.wgmma_acc>
    attributes {layout_parameter = #jfa.wgmma_acc} {
  %r_t = jfa.broadcast_rows %r : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>> -> tensor<128x128xf32, #jfa.wgmma_acc>
  %y = arith.mulf %s, %r_t : tensor<128x128xf32, #jfa.wgmma_acc>
  jfa.return %y : tensor<128x128xf32, #jfa.wgmma_acc>
}
jfa.kernel @k() warps(4) {
  %t = arith.constant dense<1.0> : tensor<128x128xf32, #jfa.tmem_row>
  %r = arith.constant dense<1.0> : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  // expected-error @below {{'jfa.call' op has type '(tensor<128x128xf32, #jfa.tmem_row>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>) -> tensor<128x128xf32, #jfa.tmem_row>' but @scale_rows is '(tensor<128x128xf32, #jfa.tmem_row>, tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>) -> tensor<128x128xf32, #jfa.tmem_row>' (its layout parameter #jfa.wgmma_acc bound to #jfa.tmem_row)}}
  %y = jfa.call @scale_rows(%t, %r)
      : (tensor<128x128xf32, #jfa.tmem_row>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>) -> tensor<128x128xf32, #jfa.tmem_row>
}

// -----

// Without a layout parameter a helper takes only its own layout.
jfa.func @fixed(%s: tensor<128x128xf32, #jfa.wgmma_acc>) -> tensor<128x128xf32, #jfa.wgmma_acc> {
  jfa.return %s : tensor<128x128xf32, #jfa.wgmma_acc>
}
jfa.kernel @k() warps(4) {
  %t = arith.constant dense<1.0> : tensor<128x128xf32, #jfa.tmem_row>
  // expected-error @below {{'jfa.call' op has type '(tensor<128x128xf32, #jfa.tmem_row>) -> tensor<128x128xf32, #jfa.tmem_row>' but @fixed is '(tensor<128x128xf32, #jfa.wgmma_acc>) -> tensor<128x128xf32, #jfa.wgmma_acc>'}}
  %y = jfa.call @fixed(%t) : (tensor<128x128xf32, #jfa.tmem_row>) -> tensor<128x128xf32, #jfa.tmem_row>
}
