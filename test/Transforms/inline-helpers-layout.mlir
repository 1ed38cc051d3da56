// RUN: jfa-opt %s --jfa-inline-helpers | FileCheck %s
// A helper written for #jfa.wgmma_acc tiles, called with #jfa.tmem_row ones
// (and with its own layout): each copy holds the call's layout everywhere,
// in result types, row vectors, constants and the block arguments of nested
// regions, and a helper it calls is bound the same way.

jfa.func @softmax_rows(%s: tensor<128x128xf32, #jfa.wgmma_acc>, %m: tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, %first: i1)
    -> (tensor<128x128xf32, #jfa.wgmma_acc>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>)
    attributes {layout_parameter = #jfa.wgmma_acc} {
  %neg_inf = arith.constant dense<0xFF800000> : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %m_in = scf.if %first -> tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>> {
    scf.yield %neg_inf : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  } else {
    scf.yield %m : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  }
  %s_max = jfa.reduce_rows max %s : tensor<128x128xf32, #jfa.wgmma_acc> -> tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %m_new = arith.maximumf %m_in, %s_max : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %p = jfa.call @shift(%s, %m_new) : (tensor<128x128xf32, #jfa.wgmma_acc>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>) -> tensor<128x128xf32, #jfa.wgmma_acc>
  jfa.return %p, %m_new : tensor<128x128xf32, #jfa.wgmma_acc>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
}

// Bound by its second argument (a row vector) when called from @softmax_rows.
jfa.func @shift(%s: tensor<128x128xf32, #jfa.wgmma_acc>, %m: tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>)
    -> tensor<128x128xf32, #jfa.wgmma_acc>
    attributes {layout_parameter = #jfa.wgmma_acc} {
  %m_t = jfa.broadcast_rows %m : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>> -> tensor<128x128xf32, #jfa.wgmma_acc>
  %x = arith.subf %s, %m_t : tensor<128x128xf32, #jfa.wgmma_acc>
  %p = math.exp2 %x : tensor<128x128xf32, #jfa.wgmma_acc>
  jfa.return %p : tensor<128x128xf32, #jfa.wgmma_acc>
}

// CHECK-NOT: jfa.func
// CHECK-LABEL: jfa.kernel @sm100
// CHECK-NOT: wgmma_acc
// CHECK: arith.constant dense<0xFF800000> : tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>
// CHECK: scf.if %{{.*}} -> (tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>)
// CHECK: jfa.reduce_rows max %{{.*}} : tensor<128x128xf32, #jfa.tmem_row> -> tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>
// CHECK: jfa.broadcast_rows %{{.*}} : tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>> -> tensor<128x128xf32, #jfa.tmem_row>
// CHECK: math.exp2 %{{.*}} : tensor<128x128xf32, #jfa.tmem_row>
// CHECK-NOT: wgmma_acc
// CHECK: jfa.kernel @sm90
jfa.kernel @sm100(%p: !jfa.ptr<f32>) warps(4) {
  %t = arith.constant dense<1.0> : tensor<128x128xf32, #jfa.tmem_row>
  %m = arith.constant dense<0.0> : tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>
  %true = arith.constant true
  %q, %m1 = jfa.call @softmax_rows(%t, %m, %true)
      : (tensor<128x128xf32, #jfa.tmem_row>, tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>, i1)
      -> (tensor<128x128xf32, #jfa.tmem_row>, tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>)
}

// Called with the layout it is written for: copied as it is.
// CHECK: jfa.reduce_rows max %{{.*}} : tensor<128x128xf32, #jfa.wgmma_acc>
// CHECK: math.exp2 %{{.*}} : tensor<128x128xf32, #jfa.wgmma_acc>
jfa.kernel @sm90(%p: !jfa.ptr<f32>) warps(8) {
  %t = arith.constant dense<1.0> : tensor<128x128xf32, #jfa.wgmma_acc>
  %m = arith.constant dense<0.0> : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %false = arith.constant false
  %q, %m1 = jfa.call @softmax_rows(%t, %m, %false)
      : (tensor<128x128xf32, #jfa.wgmma_acc>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, i1)
      -> (tensor<128x128xf32, #jfa.wgmma_acc>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>)
}
