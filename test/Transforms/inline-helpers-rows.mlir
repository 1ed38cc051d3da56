// RUN: jfa-opt %s --jfa-inline-helpers | FileCheck %s
// A helper written for 128-row tiles (rows_parameter = 128), called with
// 192-row ones (three consumer warpgroups) and with its own: each copy takes
// the call's rows in its register tiles, row vectors, constants, nested
// regions' block arguments, slots and TMA boxes, and a helper it calls is
// bound the same way. Other row counts (the 64-row key slot, the 64-column
// rows of the transposed view) are left alone.

jfa.func @scores(%q: !jfa.slot<128x64xbf16, swizzle 128>,
                 %k: !jfa.slot<64x64xbf16, swizzle 128>,
                 %m: tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, %first: i1)
    -> (tensor<128x64xf32, #jfa.wgmma_acc>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>)
    attributes {rows_parameter = 128} {
  %zero = arith.constant dense<0.0> : tensor<128x64xf32, #jfa.wgmma_acc>
  %neg_inf = arith.constant dense<0xFF800000> : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %s0 = jfa.async_dot %q, %k, %zero : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128>, tensor<128x64xf32, #jfa.wgmma_acc>
  %s = jfa.async_dot_wait pending(0) (%s0) : tensor<128x64xf32, #jfa.wgmma_acc>
  %m_in = scf.if %first -> tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>> {
    scf.yield %neg_inf : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  } else {
    scf.yield %m : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  }
  %m_new = jfa.call @row_max(%s, %m_in) : (tensor<128x64xf32, #jfa.wgmma_acc>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>) -> tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  jfa.return %s, %m_new : tensor<128x64xf32, #jfa.wgmma_acc>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
}

jfa.func @row_max(%s: tensor<128x64xf32, #jfa.wgmma_acc>, %m: tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>)
    -> tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
    attributes {rows_parameter = 128} {
  %s_max = jfa.reduce_rows max %s : tensor<128x64xf32, #jfa.wgmma_acc> -> tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %m_new = arith.maximumf %m, %s_max : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  jfa.return %m_new : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
}

// The TMA box and the slot it stores from.
jfa.func @store(%slot: !jfa.slot<128x64xbf16, swizzle 128>,
                %out: !jfa.tma<128x64xbf16, swizzle 128>, %row: i32)
    attributes {rows_parameter = 128} {
  %c0 = arith.constant 0 : i32
  jfa.tma_store %slot, %out[%row, %c0] : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.tma<128x64xbf16, swizzle 128>
  jfa.return
}

// CHECK-NOT: jfa.func
// CHECK-LABEL: jfa.kernel @three_warpgroups
// CHECK: arith.constant dense<0.000000e+00> : tensor<192x64xf32, #jfa.wgmma_acc>
// CHECK: arith.constant dense<0xFF800000> : tensor<192xf32, #jfa.rows_of<#jfa.wgmma_acc>>
// CHECK: jfa.async_dot %{{.*}}, %{{.*}}, %{{.*}} : !jfa.slot<192x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128>, tensor<192x64xf32, #jfa.wgmma_acc>
// CHECK: scf.if %{{.*}} -> (tensor<192xf32, #jfa.rows_of<#jfa.wgmma_acc>>)
// CHECK: jfa.reduce_rows max %{{.*}} : tensor<192x64xf32, #jfa.wgmma_acc> -> tensor<192xf32, #jfa.rows_of<#jfa.wgmma_acc>>
// CHECK: jfa.tma_store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : !jfa.slot<192x64xbf16, swizzle 128>, !jfa.tma<192x64xbf16, swizzle 128>
// CHECK-NOT: 128x64
// CHECK-LABEL: jfa.kernel @two_warpgroups
// CHECK: jfa.async_dot %{{.*}}, %{{.*}}, %{{.*}} : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128>, tensor<128x64xf32, #jfa.wgmma_acc>
// CHECK: jfa.reduce_rows max %{{.*}} : tensor<128x64xf32, #jfa.wgmma_acc> -> tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
jfa.kernel @three_warpgroups(%out: !jfa.tma<192x64xbf16, swizzle 128>, %n: i32) warps(12) {
  %c0 = arith.constant 0 : i32
  %first = arith.cmpi eq, %n, %c0 : i32
  %q_buf = jfa.local_alloc : !jfa.smem<1 x 192x64xbf16, swizzle 128>
  %k_buf = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %q = jfa.slot %q_buf[%c0] : !jfa.smem<1 x 192x64xbf16, swizzle 128>, i32
  %k = jfa.slot %k_buf[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  %m0 = arith.constant dense<0.0> : tensor<192xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %s, %m = jfa.call @scores(%q, %k, %m0, %first)
      : (!jfa.slot<192x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128>, tensor<192xf32, #jfa.rows_of<#jfa.wgmma_acc>>, i1)
      -> (tensor<192x64xf32, #jfa.wgmma_acc>, tensor<192xf32, #jfa.rows_of<#jfa.wgmma_acc>>)
  jfa.call @store(%q, %out, %c0) : (!jfa.slot<192x64xbf16, swizzle 128>, !jfa.tma<192x64xbf16, swizzle 128>, i32) -> ()
}
jfa.kernel @two_warpgroups(%n: i32) warps(8) {
  %c0 = arith.constant 0 : i32
  %first = arith.cmpi eq, %n, %c0 : i32
  %q_buf = jfa.local_alloc : !jfa.smem<1 x 128x64xbf16, swizzle 128>
  %k_buf = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %q = jfa.slot %q_buf[%c0] : !jfa.smem<1 x 128x64xbf16, swizzle 128>, i32
  %k = jfa.slot %k_buf[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  %m0 = arith.constant dense<0.0> : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %s, %m = jfa.call @scores(%q, %k, %m0, %first)
      : (!jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, i1)
      -> (tensor<128x64xf32, #jfa.wgmma_acc>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>)
}

// A transposed view binds by its stored rows (dimension 1); the columns it
// was transposed from stay.
jfa.func @transposed(%v: !jfa.slot<64x128xbf16, swizzle 128, transposed>)
    attributes {rows_parameter = 128} {
  jfa.return
}
// CHECK-LABEL: jfa.kernel @view
// CHECK-NOT: jfa.call
jfa.kernel @view() warps(4) {
  %c0 = arith.constant 0 : i32
  %v_buf = jfa.local_alloc : !jfa.smem<1 x 192x64xbf16, swizzle 128>
  %v = jfa.slot %v_buf[%c0] : !jfa.smem<1 x 192x64xbf16, swizzle 128>, i32
  %v_t = jfa.transpose %v : !jfa.slot<192x64xbf16, swizzle 128>
  jfa.call @transposed(%v_t) : (!jfa.slot<64x192xbf16, swizzle 128, transposed>) -> ()
}
