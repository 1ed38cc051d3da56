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

// Column values, from global memory (bounded) and from a slot (with and
// without a bound).
// CHECK-LABEL: jfa.kernel @cols
jfa.kernel @cols(%in: !jfa.ptr<f32>, %n: i32) warps(4) {
  %c0 = arith.constant 0 : i32
  %buf = jfa.local_alloc : !jfa.smem<1 x 64xf32>
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64xf32>, i32
  // CHECK: jfa.load_cols %{{.*}}[%{{.*}}] cols(%{{.*}}) : !jfa.ptr<f32> -> tensor<64x64xf32, #jfa.wgmma_acc>
  %g = jfa.load_cols %in[%n] cols(%n) : !jfa.ptr<f32> -> tensor<64x64xf32, #jfa.wgmma_acc>
  // CHECK: jfa.load_cols %{{.*}}[%{{.*}}] : !jfa.slot<64xf32> -> tensor<64x64xf32, #jfa.wgmma_acc>
  %a = jfa.load_cols %s[%c0] : !jfa.slot<64xf32> -> tensor<64x64xf32, #jfa.wgmma_acc>
  // CHECK: jfa.load_cols %{{.*}}[%{{.*}}] cols(%{{.*}}) : !jfa.slot<64xf32> -> tensor<64x32xf32, #jfa.wgmma_acc>
  %b = jfa.load_cols %s[%n] cols(%n) : !jfa.slot<64xf32> -> tensor<64x32xf32, #jfa.wgmma_acc>
}
