// RUN: jfa-opt %s --split-input-file --jfa-allocate-shared-memory --jfa-distribute-tiles --jfa-lower-async-tasks --jfa-convert-to-llvm | FileCheck %s
// Row vectors to and from global memory, and to shared memory.

// wgmma layout: a thread holds rows base and base + 8; the 4 lanes of a
// quad hold copies, and only the first (lane & 3 == 0) stores. Rows at or
// past the count are skipped.
// CHECK-LABEL: llvm.func @store_wgmma
// CHECK: %[[LANE:.*]] = llvm.urem %{{.*}}, %{{.*}} : i32
// CHECK: %[[MASK:.*]] = llvm.mlir.constant(3 : i32)
// CHECK-NEXT: %[[BITS:.*]] = llvm.and %[[LANE]], %[[MASK]] : i32
// CHECK-NEXT: %[[FIRST:.*]] = llvm.icmp "eq" %[[BITS]], %{{.*}} : i32
// CHECK: %[[IN0:.*]] = llvm.icmp "slt" %[[ROW0:.*]], %arg2 : i32
// CHECK-NEXT: %[[IDX0:.*]] = llvm.add %arg1, %[[ROW0]] : i32
// CHECK-NEXT: %[[A0:.*]] = llvm.getelementptr %arg0[%[[IDX0]]] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
// CHECK: %[[P0:.*]] = llvm.and %[[IN0]], %[[FIRST]] : i1
// CHECK-NEXT: scf.if %[[P0]] {
// CHECK-NEXT: llvm.store %{{.*}}, %[[A0]] : f32, !llvm.ptr<1>
// CHECK: %[[EIGHT:.*]] = llvm.mlir.constant(8 : i32)
// CHECK-NEXT: %[[ROW1:.*]] = llvm.add %{{.*}}, %[[EIGHT]] : i32
// CHECK-NEXT: llvm.icmp "slt" %[[ROW1]], %arg2 : i32
// CHECK: llvm.and %{{.*}}, %[[FIRST]] : i1
// CHECK-NEXT: scf.if
// CHECK-NEXT: llvm.store
// CHECK-NOT: llvm.store
// CHECK: llvm.return
jfa.kernel @store_wgmma(%out: !jfa.ptr<f32>, %offset: i32, %count: i32) warps(4) {
  %m = arith.constant dense<2.0> : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  jfa.store_rows %m, %out[%offset] rows(%count) : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>, !jfa.ptr<f32>
}

// -----

// from(%first): rows below first are skipped as well.
// CHECK-LABEL: llvm.func @store_wgmma_from
// CHECK: %[[LANE:.*]] = llvm.urem %{{.*}}, %{{.*}} : i32
// CHECK: %[[FIRST:.*]] = llvm.icmp "eq" %{{.*}}, %{{.*}} : i32
// CHECK: %[[BELOW:.*]] = llvm.icmp "slt" %[[ROW0:.*]], %arg2 : i32
// CHECK-NEXT: %[[ABOVE:.*]] = llvm.icmp "sge" %[[ROW0]], %arg3 : i32
// CHECK-NEXT: %[[IN0:.*]] = llvm.and %[[BELOW]], %[[ABOVE]] : i1
// CHECK: %[[P0:.*]] = llvm.and %[[IN0]], %[[FIRST]] : i1
// CHECK-NEXT: scf.if %[[P0]] {
// CHECK-NEXT: llvm.store
jfa.kernel @store_wgmma_from(%out: !jfa.ptr<f32>, %offset: i32, %count: i32, %first: i32) warps(4) {
  %m = arith.constant dense<2.0> : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  jfa.store_rows %m, %out[%offset] rows(%count) from(%first) : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>, !jfa.ptr<f32>
}

// -----

// tmem_row layout: every thread holds its own row, so every thread stores
// (the copy mask is 0).
// CHECK-LABEL: llvm.func @store_tmem_row
// CHECK: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32)
// CHECK-NEXT: %[[MASK:.*]] = llvm.mlir.constant(0 : i32)
// CHECK-NEXT: llvm.and %{{.*}}, %[[MASK]] : i32
// CHECK: scf.if
// CHECK-NEXT: llvm.store
// CHECK-NOT: llvm.store
// CHECK: llvm.return
jfa.kernel @store_tmem_row(%out: !jfa.ptr<f32>, %offset: i32, %count: i32) warps(4) {
  %m = arith.constant dense<2.0> : tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>
  jfa.store_rows %m, %out[%offset] rows(%count) : tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>, !jfa.ptr<f32>
}

// -----

// Loads: every lane holding a row loads it, rows past the count are 0.
// CHECK-LABEL: llvm.func @load_wgmma
// CHECK: %[[IN:.*]] = llvm.icmp "slt"
// CHECK: scf.if %[[IN]] -> (f32) {
// CHECK-NEXT: %[[V:.*]] = llvm.load %{{.*}} : !llvm.ptr<1> -> f32
// CHECK-NEXT: scf.yield %[[V]] : f32
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[Z:.*]] = llvm.mlir.zero : f32
// CHECK-NEXT: scf.yield %[[Z]] : f32
// CHECK-COUNT-1: scf.if
jfa.kernel @load_wgmma(%in: !jfa.ptr<f32>, %offset: i32, %count: i32) warps(4) {
  %v = jfa.load_rows %in[%offset] rows(%count) : !jfa.ptr<f32> -> tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %b = jfa.broadcast_rows %v : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>> -> tensor<64x64xf32, #jfa.wgmma_acc>
}

// -----

// A row vector stored to a 1-d slot: element r of the slot is row r.
// CHECK-LABEL: llvm.func @local_store_rows
// CHECK-COUNT-2: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<1xf32>, !llvm.ptr<3>
jfa.kernel @local_store_rows() warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64xf32>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64xf32>, i32
  %t = arith.constant dense<1.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  %m = jfa.reduce_rows max %t : tensor<64x64xf32, #jfa.wgmma_acc> -> tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  jfa.local_store %m, %s : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>> -> !jfa.slot<64xf32>
}

// -----

// Column values: a wgmma thread holds 16 of the 64 columns (2 per group
// of 8), each in rows base and base + 8: 16 guarded loads, not 32, and
// every register of a column gets its load's value.
// CHECK-LABEL: llvm.func @load_cols_wgmma
// CHECK: %[[IN:.*]] = llvm.icmp "slt" %{{.*}}, %arg2 : i32
// CHECK: scf.if %[[IN]] -> (f32) {
// CHECK-NEXT: %[[V:.*]] = llvm.load %{{.*}} : !llvm.ptr<1> -> f32
// CHECK-NEXT: scf.yield %[[V]] : f32
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[Z:.*]] = llvm.mlir.zero : f32
// CHECK-NEXT: scf.yield %[[Z]] : f32
// CHECK-COUNT-15: llvm.load %{{.*}} : !llvm.ptr<1> -> f32
// CHECK-NOT: llvm.load %{{.*}} : !llvm.ptr<1> -> f32
// CHECK: llvm.return
jfa.kernel @load_cols_wgmma(%in: !jfa.ptr<f32>, %offset: i32, %count: i32, %out: !jfa.ptr<f32>) warps(4) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %t = jfa.load_cols %in[%offset] cols(%count) : !jfa.ptr<f32> -> tensor<64x64xf32, #jfa.wgmma_acc>
  jfa.store_tile %t, %out[%c0] stride(%c64) rows(%c64) : tensor<64x64xf32, #jfa.wgmma_acc>, !jfa.ptr<f32>
}

// -----

// Column values from a slot (a row vector staged there): 16 shared-memory
// loads a thread, no bound.
// CHECK-LABEL: llvm.func @load_cols_slot
// CHECK-NOT: scf.if
// CHECK-COUNT-16: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: llvm.return
jfa.kernel @load_cols_slot(%out: !jfa.ptr<f32>) warps(4) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %buf = jfa.local_alloc : !jfa.smem<1 x 64xf32>
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64xf32>, i32
  %t = jfa.load_cols %s[%c0] : !jfa.slot<64xf32> -> tensor<64x64xf32, #jfa.wgmma_acc>
  jfa.store_tile %t, %out[%c0] stride(%c64) rows(%c64) : tensor<64x64xf32, #jfa.wgmma_acc>, !jfa.ptr<f32>
}

// -----

// From a slot with cols(%count): each load guarded, 0 past the count.
// CHECK-LABEL: llvm.func @load_cols_slot_bounded
// CHECK: %[[IN:.*]] = llvm.icmp "slt" %{{.*}}, %arg1 : i32
// CHECK-NEXT: scf.if %[[IN]] -> (f32) {
// CHECK-NEXT: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: } else {
// CHECK-NEXT: llvm.mlir.zero : f32
// CHECK-COUNT-15: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: llvm.return
jfa.kernel @load_cols_slot_bounded(%out: !jfa.ptr<f32>, %count: i32) warps(4) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %buf = jfa.local_alloc : !jfa.smem<1 x 64xf32>
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64xf32>, i32
  %t = jfa.load_cols %s[%c0] cols(%count) : !jfa.slot<64xf32> -> tensor<64x64xf32, #jfa.wgmma_acc>
  jfa.store_tile %t, %out[%c0] stride(%c64) rows(%c64) : tensor<64x64xf32, #jfa.wgmma_acc>, !jfa.ptr<f32>
}
