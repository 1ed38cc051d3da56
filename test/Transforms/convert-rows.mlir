// RUN: jfa-opt %s --split-input-file --jfa-distribute-tiles --jfa-lower-async-tasks --jfa-convert-to-llvm | FileCheck %s
// Row reductions: in the wgmma layout a thread reduces its 2 x N/4 values
// per row half, then two butterfly shuffles (lane ^ 1, lane ^ 2) finish the
// row within the quad; in the tmem_row layout there is nothing to shuffle.

// CHECK-LABEL: llvm.func @wgmma
// CHECK: llvm.intr.maxnum
// CHECK: nvvm.shfl.sync  bfly %{{.*}}, %{{.*}}, %[[ONE:.*]], %{{.*}} : f32 -> f32
// CHECK: nvvm.shfl.sync  bfly
// CHECK: llvm.fadd
// CHECK-COUNT-2: nvvm.shfl.sync  bfly
jfa.kernel @wgmma() warps(4) {
  %t = arith.constant dense<1.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  %m = jfa.reduce_rows max %t : tensor<64x64xf32, #jfa.wgmma_acc> -> tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %s = jfa.reduce_rows sum %t : tensor<64x64xf32, #jfa.wgmma_acc> -> tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %b = jfa.broadcast_rows %m : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>> -> tensor<64x64xf32, #jfa.wgmma_acc>
}

// -----

// CHECK-LABEL: llvm.func @tmem_row
// CHECK-NOT: nvvm.shfl.sync
// CHECK: llvm.intr.maxnum
// CHECK-NOT: nvvm.shfl.sync
// CHECK: llvm.return
jfa.kernel @tmem_row() warps(4) {
  %u = arith.constant dense<1.0> : tensor<128x32xf32, #jfa.tmem_row>
  %m = jfa.reduce_rows max %u : tensor<128x32xf32, #jfa.tmem_row> -> tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>
}

// -----

// Blocked iota: element (j * 128 + t) * 4 + v of a 64-column tile is at
// row e / 64, column e % 64.
// CHECK-LABEL: llvm.func @iota
// CHECK: %[[T:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK: llvm.udiv %{{.*}}, %{{.*}} : i32
// CHECK: llvm.urem %{{.*}}, %{{.*}} : i32
jfa.kernel @iota() warps(4) {
  %r = jfa.iota rows : tensor<64x64xi32>
  %c = jfa.iota cols : tensor<64x64xi32>
  %s = arith.addi %r, %c : tensor<64x64xi32>
}

// -----

// local_load in the tmem_row layout: thread t reads row t % 128 whole, in
// 16-byte pieces (not the wgmma pairs).
// CHECK-LABEL: llvm.func @tmem_row_load
// CHECK: llvm.urem %{{.*}}, %{{.*}} : i32
// CHECK: llvm.mul %{{.*}}, %{{.*}} : i32
// CHECK-COUNT-8: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-NOT: vector<2xf32>
jfa.kernel @tmem_row_load() warps(4) {
  %buf = jfa.local_alloc {offset = 0 : i64} : !jfa.smem<1 x 128x32xf32>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 128x32xf32>, i32
  %t = jfa.local_load %s : !jfa.slot<128x32xf32> -> tensor<128x32xf32, #jfa.tmem_row>
  %m = jfa.reduce_rows max %t : tensor<128x32xf32, #jfa.tmem_row> -> tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>
}
