// RUN: jfa-opt %s | FileCheck %s
// RUN: jfa-opt %s | jfa-opt | FileCheck %s

// CHECK-LABEL: jfa.kernel @rows
jfa.kernel @rows() warps(4) {
  %t = arith.constant dense<1.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  // CHECK: %[[M:.*]] = jfa.reduce_rows max %{{.*}} : tensor<64x64xf32, #jfa.wgmma_acc> -> tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %m = jfa.reduce_rows max %t : tensor<64x64xf32, #jfa.wgmma_acc> -> tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  // CHECK: jfa.reduce_rows sum
  %s = jfa.reduce_rows sum %t : tensor<64x64xf32, #jfa.wgmma_acc> -> tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  // CHECK: jfa.broadcast_rows %[[M]] : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>> -> tensor<64x64xf32, #jfa.wgmma_acc>
  %b = jfa.broadcast_rows %m : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>> -> tensor<64x64xf32, #jfa.wgmma_acc>
  // CHECK: jfa.iota rows : tensor<64x64xi32, #jfa.wgmma_acc>
  %r = jfa.iota rows : tensor<64x64xi32, #jfa.wgmma_acc>
  // CHECK: jfa.iota cols : tensor<128x32xi32>
  %c = jfa.iota cols : tensor<128x32xi32>
  %u = arith.constant dense<1.0> : tensor<128x32xf32, #jfa.tmem_row>
  // CHECK: jfa.reduce_rows max %{{.*}} : tensor<128x32xf32, #jfa.tmem_row> -> tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>
  %um = jfa.reduce_rows max %u : tensor<128x32xf32, #jfa.tmem_row> -> tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>
  // A row vector's iota counts its rows; an i32 row vector broadcasts.
  // CHECK: %[[RI:.*]] = jfa.iota rows : tensor<64xi32, #jfa.rows_of<#jfa.wgmma_acc>>
  %ri = jfa.iota rows : tensor<64xi32, #jfa.rows_of<#jfa.wgmma_acc>>
  // CHECK: jfa.broadcast_rows %[[RI]] : tensor<64xi32, #jfa.rows_of<#jfa.wgmma_acc>> -> tensor<64x64xi32, #jfa.wgmma_acc>
  %rb = jfa.broadcast_rows %ri : tensor<64xi32, #jfa.rows_of<#jfa.wgmma_acc>> -> tensor<64x64xi32, #jfa.wgmma_acc>
  // CHECK: jfa.mask_cols %{{.*}}, %[[RI]], %{{.*}} : tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64xi32, #jfa.rows_of<#jfa.wgmma_acc>>, f32
  %zero = arith.constant 0.0 : f32
  %masked = jfa.mask_cols %t, %ri, %zero : tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64xi32, #jfa.rows_of<#jfa.wgmma_acc>>, f32
  // A lower bound too (a sliding window): the same type as the limit.
  // CHECK: jfa.mask_cols %{{.*}}, %[[RI]], %{{.*}} from %[[RI]] : tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64xi32, #jfa.rows_of<#jfa.wgmma_acc>>, f32
  %band = jfa.mask_cols %t, %ri, %zero from %ri : tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64xi32, #jfa.rows_of<#jfa.wgmma_acc>>, f32
}
