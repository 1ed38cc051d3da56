// RUN: jfa-opt %s --split-input-file --jfa-distribute-tiles --jfa-lower-async-tasks --jfa-convert-to-llvm | FileCheck %s
// RUN: jfa-opt %s --split-input-file --jfa-distribute-tiles --jfa-lower-async-tasks --jfa-convert-to-llvm | FileCheck %s --check-prefix=POLY
// RUN: jfa-opt %s --split-input-file --jfa-distribute-tiles --jfa-lower-async-tasks --jfa-convert-to-llvm | FileCheck %s --check-prefix=UNIT
// jfa.exp2 ... software(k of n): the registers whose column group (column
// offset / 8) mod n is below k get the polynomial times 2^n, the others one
// ex2.approx.ftz. In the wgmma layout a thread holds 4 registers of each
// 8-column group: a 64x32 tile on 128 threads is 16 registers in 4 groups,
// and 1 of 2 puts groups 0 and 2 (registers 0-3 and 8-11) in software.

// CHECK-LABEL: llvm.func @wgmma_half
// CHECK: %[[X:.*]] = llvm.extractelement
// CHECK: %[[LO:.*]] = llvm.call_intrinsic "llvm.nvvm.fmax.nan.f"(%[[X]], %{{.*}}) : (f32, f32) -> f32
// CHECK: %[[C:.*]] = llvm.call_intrinsic "llvm.nvvm.fmin.nan.f"(%[[LO]], %{{.*}}) : (f32, f32) -> f32
// CHECK: %[[T:.*]] = llvm.call_intrinsic "llvm.nvvm.add.rm.ftz.f"(%[[C]], %[[MAGIC:.*]]) : (f32, f32) -> f32
// CHECK: %[[N:.*]] = llvm.fsub %[[T]], %[[MAGIC]] : f32
// CHECK: %[[F:.*]] = llvm.fsub %[[C]], %[[N]] : f32
// CHECK: %[[P3:.*]] = llvm.intr.fma(%{{.*}}, %[[F]], %{{.*}}) : (f32, f32, f32) -> f32
// CHECK: %[[P2:.*]] = llvm.intr.fma(%[[P3]], %[[F]], %{{.*}}) : (f32, f32, f32) -> f32
// CHECK: %[[P:.*]] = llvm.intr.fma(%[[P2]], %[[F]], %{{.*}}) : (f32, f32, f32) -> f32
// CHECK: %[[TB:.*]] = llvm.bitcast %[[T]] : f32 to i32
// CHECK: %[[E:.*]] = llvm.shl %[[TB]], %{{.*}} : i32
// CHECK: %[[SB:.*]] = llvm.add %[[E]], %{{.*}} : i32
// CHECK: %[[S:.*]] = llvm.bitcast %[[SB]] : i32 to f32
// CHECK: llvm.fmul %[[P]], %[[S]] : f32
// POLY-LABEL: llvm.func @wgmma_half
// POLY-COUNT-8: llvm.nvvm.add.rm.ftz.f
// POLY-NOT: llvm.nvvm.add.rm.ftz.f
// POLY: llvm.return
// UNIT-LABEL: llvm.func @wgmma_half
// UNIT-COUNT-4: add.rm.ftz
// UNIT-COUNT-4: ex2.approx.ftz
// UNIT-COUNT-4: add.rm.ftz
// UNIT-COUNT-4: ex2.approx.ftz
// UNIT-NOT: ex2.approx.ftz
// UNIT: llvm.return
jfa.kernel @wgmma_half() warps(4) {
  %t = arith.constant dense<-1.5> : tensor<64x32xf32, #jfa.wgmma_acc>
  %share = arith.constant 1 : i32
  %p = jfa.exp2 %t software(%share of 2) : tensor<64x32xf32, #jfa.wgmma_acc>
  %sink = jfa.reduce_rows sum %p : tensor<64x32xf32, #jfa.wgmma_acc> -> tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
}

// -----

// A thread of the tmem_row layout holds its row's columns in order: of a
// 128x32 tile's 32 registers, 1 of 4 groups is registers 0-7 and nothing
// else (group 4 would be columns 32-39).
// POLY-LABEL: llvm.func @tmem_row_quarter
// POLY-COUNT-8: llvm.nvvm.add.rm.ftz.f
// POLY-NOT: llvm.nvvm.add.rm.ftz.f
// POLY: llvm.return
// UNIT-LABEL: llvm.func @tmem_row_quarter
// UNIT-COUNT-8: add.rm.ftz
// UNIT-COUNT-24: ex2.approx.ftz
// UNIT-NOT: add.rm.ftz
// UNIT: llvm.return
jfa.kernel @tmem_row_quarter() warps(4) {
  %t = arith.constant dense<-1.5> : tensor<128x32xf32, #jfa.tmem_row>
  %share = arith.constant 1 : i32
  %p = jfa.exp2 %t software(%share of 4) : tensor<128x32xf32, #jfa.tmem_row>
  %sink = jfa.reduce_rows sum %p : tensor<128x32xf32, #jfa.tmem_row> -> tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>
}

// -----

// A share of 0 is math.exp2 fastmath<afn>: no polynomial.
// POLY-LABEL: llvm.func @none
// POLY-NOT: add.rm
// POLY: llvm.return
// UNIT-LABEL: llvm.func @none
// UNIT-COUNT-16: ex2.approx.ftz
// UNIT-NOT: ex2.approx.ftz
// UNIT: llvm.return
jfa.kernel @none() warps(4) {
  %t = arith.constant dense<-1.5> : tensor<64x32xf32, #jfa.wgmma_acc>
  %share = arith.constant 0 : i32
  %p = jfa.exp2 %t software(%share of 2) : tensor<64x32xf32, #jfa.wgmma_acc>
  %sink = jfa.reduce_rows sum %p : tensor<64x32xf32, #jfa.wgmma_acc> -> tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
}
