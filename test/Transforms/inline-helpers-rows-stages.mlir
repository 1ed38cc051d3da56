// RUN: jfa-opt %s --jfa-inline-helpers | FileCheck %s
// The rows parameter with the stage parameter: a ring of the parameter's
// rows binds its slot count as bound to the call's rows (3 slots of 192
// rows for a helper written for 2 of 128), and the copy takes both.

jfa.func @ring(%n: i32, %r: !jfa.smem<2 x 128x64xbf16, swizzle 128>)
    -> !jfa.slot<128x64xbf16, swizzle 128>
    attributes {stage_parameter = 2, rows_parameter = 128} {
  %s, %phase = jfa.ring_position %n stages(2) : i32
  %slot = jfa.slot %r[%s] : !jfa.smem<2 x 128x64xbf16, swizzle 128>, i32
  jfa.return %slot : !jfa.slot<128x64xbf16, swizzle 128>
}

// CHECK-LABEL: jfa.kernel @k
// CHECK: jfa.ring_position %{{.*}} stages(3) : i32
// CHECK: jfa.slot %{{.*}}[%{{.*}}] : !jfa.smem<3 x 192x64xbf16, swizzle 128>, i32
// CHECK-NOT: jfa.call
jfa.kernel @k(%n: i32) warps(12) {
  %r = jfa.local_alloc : !jfa.smem<3 x 192x64xbf16, swizzle 128>
  %slot = jfa.call @ring(%n, %r) : (i32, !jfa.smem<3 x 192x64xbf16, swizzle 128>) -> !jfa.slot<192x64xbf16, swizzle 128>
}

// A 1-d buffer (a hand-off list) has no rows: it is not rewritten.
jfa.func @list(%s: tensor<128x64xf32, #jfa.wgmma_acc>, %buf: !jfa.smem<4 x 128xi32>)
    attributes {rows_parameter = 128} {
  jfa.return
}
// CHECK-LABEL: jfa.kernel @hand_off
// CHECK-NOT: jfa.call
jfa.kernel @hand_off() warps(12) {
  %s = arith.constant dense<0.0> : tensor<192x64xf32, #jfa.wgmma_acc>
  %buf = jfa.local_alloc : !jfa.smem<4 x 128xi32>
  jfa.call @list(%s, %buf) : (tensor<192x64xf32, #jfa.wgmma_acc>, !jfa.smem<4 x 128xi32>) -> ()
}
