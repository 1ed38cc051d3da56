// RUN: jfa-opt %s --split-input-file --jfa-convert-to-llvm | FileCheck %s
// RowOpsToLLVM.cpp: reduce_rows combines a thread's registers of each row,
// then butterfly-shuffles with the layout's masks (1 and 2 in the quad of
// the wgmma layout, none in tmem_row); broadcast_rows gives register i the
// row vector's register of its row; iota is base + the layout's offsets.
// (Shuffle operands are matched in either order of creation: they are
// arguments of one builder call.)

// #jfa.wgmma_acc, 64x32: register 4j + 2h + v is at (8h, 8j + v). Row 0 is
// registers 0, 1, 4, 5, 8, 9, 12, 13; row 8 is 2, 3, 6, 7, 10, 11, 14, 15.
// CHECK-LABEL: llvm.func @reduce_wgmma
// CHECK: %[[IN:.*]] = arith.constant dense<1.000000e+00> : vector<16xf32>
// CHECK-NEXT: %[[RES:.*]] = llvm.mlir.poison : vector<2xf32>
// CHECK-NEXT: %[[I:.*]] = llvm.mlir.constant(0 : i32)
// CHECK-NEXT: %[[X0:.*]] = llvm.extractelement %[[IN]][%[[I]] : i32] : vector<16xf32>
// CHECK-NEXT: %[[I:.*]] = llvm.mlir.constant(1 : i32)
// CHECK-NEXT: %[[X1:.*]] = llvm.extractelement %[[IN]][%[[I]] : i32] : vector<16xf32>
// CHECK-NEXT: %[[M1:.*]] = llvm.intr.maxnum(%[[X0]], %[[X1]]) : (f32, f32) -> f32
// CHECK-NEXT: %[[I:.*]] = llvm.mlir.constant(4 : i32)
// CHECK-NEXT: %[[X4:.*]] = llvm.extractelement %[[IN]][%[[I]] : i32]
// CHECK-NEXT: %[[M2:.*]] = llvm.intr.maxnum(%[[M1]], %[[X4]])
// CHECK-NEXT: llvm.mlir.constant(5 : i32)
// CHECK: llvm.mlir.constant(8 : i32)
// CHECK: llvm.mlir.constant(9 : i32)
// CHECK: llvm.mlir.constant(12 : i32)
// CHECK: %[[I:.*]] = llvm.mlir.constant(13 : i32)
// CHECK-NEXT: %[[X:.*]] = llvm.extractelement %[[IN]][%[[I]] : i32]
// CHECK-NEXT: %[[ROW0:.*]] = llvm.intr.maxnum(%{{.*}}, %[[X]])
// CHECK-DAG: %[[CLAMP:.*]] = llvm.mlir.constant(31 : i32) : i32
// CHECK-DAG: %[[MASK1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-DAG: %[[ALL:.*]] = llvm.mlir.constant(-1 : i32) : i32
// CHECK: %[[S1:.*]] = nvvm.shfl.sync  bfly %[[ALL]], %[[ROW0]], %[[MASK1]], %[[CLAMP]] : f32 -> f32
// CHECK-NEXT: %[[Q1:.*]] = llvm.intr.maxnum(%[[ROW0]], %[[S1]])
// CHECK-DAG: %[[CLAMP:.*]] = llvm.mlir.constant(31 : i32) : i32
// CHECK-DAG: %[[MASK2:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-DAG: %[[ALL:.*]] = llvm.mlir.constant(-1 : i32) : i32
// CHECK: %[[S2:.*]] = nvvm.shfl.sync  bfly %[[ALL]], %[[Q1]], %[[MASK2]], %[[CLAMP]] : f32 -> f32
// CHECK-NEXT: %[[Q2:.*]] = llvm.intr.maxnum(%[[Q1]], %[[S2]])
// CHECK-NEXT: %[[I:.*]] = llvm.mlir.constant(0 : i32)
// CHECK-NEXT: %[[R0:.*]] = llvm.insertelement %[[Q2]], %[[RES]][%[[I]] : i32] : vector<2xf32>
// Row 8.
// CHECK-NEXT: %[[I:.*]] = llvm.mlir.constant(2 : i32)
// CHECK-NEXT: %[[X2:.*]] = llvm.extractelement %[[IN]][%[[I]] : i32]
// CHECK-NEXT: %[[I:.*]] = llvm.mlir.constant(3 : i32)
// CHECK-NEXT: %[[X3:.*]] = llvm.extractelement %[[IN]][%[[I]] : i32]
// CHECK-NEXT: llvm.intr.maxnum(%[[X2]], %[[X3]])
// CHECK-NEXT: llvm.mlir.constant(6 : i32)
// CHECK: llvm.mlir.constant(15 : i32)
// CHECK: nvvm.shfl.sync  bfly
// CHECK: nvvm.shfl.sync  bfly
// CHECK-NEXT: %[[Q:.*]] = llvm.intr.maxnum
// CHECK-NEXT: %[[I:.*]] = llvm.mlir.constant(1 : i32)
// CHECK-NEXT: llvm.insertelement %[[Q]], %[[R0]][%[[I]] : i32] : vector<2xf32>
// CHECK-NOT: nvvm.shfl.sync
// CHECK: llvm.return
jfa.kernel @reduce_wgmma() warps(4) {
  %t = arith.constant dense<1.0> : vector<16xf32>
  %m = jfa.reduce_rows max %t threads(128) layout(#jfa.wgmma_acc) shape [64, 32] : vector<16xf32> -> vector<2xf32>
}

// -----

// Sum: fadd, the same two shuffles.
// CHECK-LABEL: llvm.func @sum_wgmma
// CHECK: llvm.fadd
// CHECK-NOT: llvm.intr.maxnum
// CHECK: nvvm.shfl.sync  bfly
// CHECK-NEXT: llvm.fadd
// CHECK: nvvm.shfl.sync  bfly
// CHECK-NEXT: llvm.fadd
jfa.kernel @sum_wgmma() warps(4) {
  %t = arith.constant dense<1.0> : vector<8xf32>
  %s = jfa.reduce_rows sum %t threads(128) layout(#jfa.wgmma_acc) shape [64, 16] : vector<8xf32> -> vector<2xf32>
}

// -----

// #jfa.tmem_row: the thread holds the whole row; no shuffle.
// CHECK-LABEL: llvm.func @reduce_tmem_row
// CHECK: %[[IN:.*]] = arith.constant dense<1.000000e+00> : vector<4xf32>
// CHECK-NEXT: %[[RES:.*]] = llvm.mlir.poison : vector<1xf32>
// CHECK-NOT: nvvm.shfl.sync
// CHECK: %[[S1:.*]] = llvm.fadd %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: %[[I:.*]] = llvm.mlir.constant(2 : i32)
// CHECK-NEXT: %[[X2:.*]] = llvm.extractelement %[[IN]][%[[I]] : i32]
// CHECK-NEXT: %[[S2:.*]] = llvm.fadd %[[S1]], %[[X2]] : f32
// CHECK-NEXT: %[[I:.*]] = llvm.mlir.constant(3 : i32)
// CHECK-NEXT: %[[X3:.*]] = llvm.extractelement %[[IN]][%[[I]] : i32]
// CHECK-NEXT: %[[S3:.*]] = llvm.fadd %[[S2]], %[[X3]] : f32
// CHECK-NEXT: %[[I:.*]] = llvm.mlir.constant(0 : i32)
// CHECK-NEXT: llvm.insertelement %[[S3]], %[[RES]][%[[I]] : i32] : vector<1xf32>
// CHECK-NOT: nvvm.shfl.sync
// CHECK: llvm.return
jfa.kernel @reduce_tmem_row() warps(4) {
  %t = arith.constant dense<1.0> : vector<4xf32>
  %s = jfa.reduce_rows sum %t threads(128) layout(#jfa.tmem_row) shape [128, 4] : vector<4xf32> -> vector<1xf32>
}

// -----

// broadcast_rows, #jfa.wgmma_acc 64x16: registers at rows 0, 0, 8, 8, 0, 0,
// 8, 8 take row-vector registers 0, 0, 1, 1, 0, 0, 1, 1.
// CHECK-LABEL: llvm.func @broadcast
// CHECK: %[[R:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00]> : vector<2xf32>
// CHECK-NEXT: %[[V:.*]] = llvm.mlir.poison : vector<8xf32>
// CHECK-NEXT: %[[S0:.*]] = llvm.mlir.constant(0 : i32)
// CHECK-NEXT: %[[X0:.*]] = llvm.extractelement %[[R]][%[[S0]] : i32] : vector<2xf32>
// CHECK-NEXT: %[[D0:.*]] = llvm.mlir.constant(0 : i32)
// CHECK-NEXT: %[[V0:.*]] = llvm.insertelement %[[X0]], %[[V]][%[[D0]] : i32] : vector<8xf32>
// CHECK-NEXT: %[[S1:.*]] = llvm.mlir.constant(0 : i32)
// CHECK-NEXT: %[[X1:.*]] = llvm.extractelement %[[R]][%[[S1]] : i32] : vector<2xf32>
// CHECK-NEXT: %[[D1:.*]] = llvm.mlir.constant(1 : i32)
// CHECK-NEXT: %[[V1:.*]] = llvm.insertelement %[[X1]], %[[V0]][%[[D1]] : i32] : vector<8xf32>
// CHECK-NEXT: %[[S2:.*]] = llvm.mlir.constant(1 : i32)
// CHECK-NEXT: %[[X2:.*]] = llvm.extractelement %[[R]][%[[S2]] : i32] : vector<2xf32>
// CHECK-NEXT: %[[D2:.*]] = llvm.mlir.constant(2 : i32)
// CHECK-NEXT: %[[V2:.*]] = llvm.insertelement %[[X2]], %[[V1]][%[[D2]] : i32] : vector<8xf32>
// CHECK-NEXT: %[[S3:.*]] = llvm.mlir.constant(1 : i32)
// CHECK-NEXT: %[[X3:.*]] = llvm.extractelement %[[R]][%[[S3]] : i32] : vector<2xf32>
// CHECK-NEXT: %[[D3:.*]] = llvm.mlir.constant(3 : i32)
// CHECK-NEXT: %[[V3:.*]] = llvm.insertelement %[[X3]], %[[V2]][%[[D3]] : i32] : vector<8xf32>
// CHECK-NEXT: %[[S4:.*]] = llvm.mlir.constant(0 : i32)
// CHECK-NEXT: %[[X4:.*]] = llvm.extractelement %[[R]][%[[S4]] : i32] : vector<2xf32>
// CHECK-NEXT: %[[D4:.*]] = llvm.mlir.constant(4 : i32)
// CHECK-NEXT: %[[V4:.*]] = llvm.insertelement %[[X4]], %[[V3]][%[[D4]] : i32] : vector<8xf32>
// CHECK-NEXT: %[[S5:.*]] = llvm.mlir.constant(0 : i32)
// CHECK-NEXT: %[[X5:.*]] = llvm.extractelement %[[R]][%[[S5]] : i32] : vector<2xf32>
// CHECK-NEXT: %[[D5:.*]] = llvm.mlir.constant(5 : i32)
// CHECK-NEXT: %[[V5:.*]] = llvm.insertelement %[[X5]], %[[V4]][%[[D5]] : i32] : vector<8xf32>
// CHECK-NEXT: %[[S6:.*]] = llvm.mlir.constant(1 : i32)
// CHECK-NEXT: %[[X6:.*]] = llvm.extractelement %[[R]][%[[S6]] : i32] : vector<2xf32>
// CHECK-NEXT: %[[D6:.*]] = llvm.mlir.constant(6 : i32)
// CHECK-NEXT: %[[V6:.*]] = llvm.insertelement %[[X6]], %[[V5]][%[[D6]] : i32] : vector<8xf32>
// CHECK-NEXT: %[[S7:.*]] = llvm.mlir.constant(1 : i32)
// CHECK-NEXT: %[[X7:.*]] = llvm.extractelement %[[R]][%[[S7]] : i32] : vector<2xf32>
// CHECK-NEXT: %[[D7:.*]] = llvm.mlir.constant(7 : i32)
// CHECK-NEXT: %[[V7:.*]] = llvm.insertelement %[[X7]], %[[V6]][%[[D7]] : i32] : vector<8xf32>
// CHECK-NEXT: llvm.return
jfa.kernel @broadcast() warps(4) {
  %r = arith.constant dense<[1.0, 2.0]> : vector<2xf32>
  %b = jfa.broadcast_rows %r threads(128) layout(#jfa.wgmma_acc) shape [64, 16] : vector<2xf32> -> vector<8xf32>
}

// -----

// iota in #jfa.wgmma_acc (64x16): rows are base row + 0, 0, 8, 8, 0, 0, 8, 8
// with base row 64(t/128) + 16((t%128)/32) + (t%32)/4; columns are base
// column 2(t%4) + 0, 1, 0, 1, 8, 9, 8, 9.
// CHECK-LABEL: llvm.func @iota_wgmma
// CHECK: %[[T:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: llvm.mlir.constant(64 : i32)
// CHECK-NEXT: llvm.mul %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: llvm.mlir.constant(16 : i32)
// CHECK-NEXT: llvm.mul
// CHECK-NEXT: llvm.add
// CHECK-NEXT: llvm.mlir.constant(4 : i32)
// CHECK-NEXT: llvm.udiv
// CHECK-NEXT: %[[ROW:.*]] = llvm.add %{{.*}}, %{{.*}} : i32
// CHECK: %[[V:.*]] = llvm.mlir.poison : vector<8xi32>
// CHECK-NEXT: %[[O0:.*]] = llvm.mlir.constant(0 : i32)
// CHECK-NEXT: %[[E0:.*]] = llvm.add %[[ROW]], %[[O0]] : i32
// CHECK-NEXT: %[[D0:.*]] = llvm.mlir.constant(0 : i32)
// CHECK-NEXT: %[[V0:.*]] = llvm.insertelement %[[E0]], %[[V]][%[[D0]] : i32] : vector<8xi32>
// CHECK-NEXT: %[[O1:.*]] = llvm.mlir.constant(0 : i32)
// CHECK-NEXT: %[[E1:.*]] = llvm.add %[[ROW]], %[[O1]] : i32
// CHECK-NEXT: %[[D1:.*]] = llvm.mlir.constant(1 : i32)
// CHECK-NEXT: %[[V1:.*]] = llvm.insertelement %[[E1]], %[[V0]][%[[D1]] : i32] : vector<8xi32>
// CHECK-NEXT: %[[O2:.*]] = llvm.mlir.constant(8 : i32)
// CHECK-NEXT: %[[E2:.*]] = llvm.add %[[ROW]], %[[O2]] : i32
// CHECK-NEXT: %[[D2:.*]] = llvm.mlir.constant(2 : i32)
// CHECK-NEXT: %[[V2:.*]] = llvm.insertelement %[[E2]], %[[V1]][%[[D2]] : i32] : vector<8xi32>
// CHECK-NEXT: %[[O3:.*]] = llvm.mlir.constant(8 : i32)
// CHECK-NEXT: %[[E3:.*]] = llvm.add %[[ROW]], %[[O3]] : i32
// CHECK-NEXT: %[[D3:.*]] = llvm.mlir.constant(3 : i32)
// CHECK-NEXT: %[[V3:.*]] = llvm.insertelement %[[E3]], %[[V2]][%[[D3]] : i32] : vector<8xi32>
// CHECK-NEXT: %[[O4:.*]] = llvm.mlir.constant(0 : i32)
// CHECK-NEXT: %[[E4:.*]] = llvm.add %[[ROW]], %[[O4]] : i32
// CHECK-NEXT: %[[D4:.*]] = llvm.mlir.constant(4 : i32)
// CHECK-NEXT: %[[V4:.*]] = llvm.insertelement %[[E4]], %[[V3]][%[[D4]] : i32] : vector<8xi32>
// CHECK-NEXT: %[[O5:.*]] = llvm.mlir.constant(0 : i32)
// CHECK-NEXT: %[[E5:.*]] = llvm.add %[[ROW]], %[[O5]] : i32
// CHECK-NEXT: %[[D5:.*]] = llvm.mlir.constant(5 : i32)
// CHECK-NEXT: %[[V5:.*]] = llvm.insertelement %[[E5]], %[[V4]][%[[D5]] : i32] : vector<8xi32>
// CHECK-NEXT: %[[O6:.*]] = llvm.mlir.constant(8 : i32)
// CHECK-NEXT: %[[E6:.*]] = llvm.add %[[ROW]], %[[O6]] : i32
// CHECK-NEXT: %[[D6:.*]] = llvm.mlir.constant(6 : i32)
// CHECK-NEXT: %[[V6:.*]] = llvm.insertelement %[[E6]], %[[V5]][%[[D6]] : i32] : vector<8xi32>
// CHECK-NEXT: %[[O7:.*]] = llvm.mlir.constant(8 : i32)
// CHECK-NEXT: %[[E7:.*]] = llvm.add %[[ROW]], %[[O7]] : i32
// CHECK-NEXT: %[[D7:.*]] = llvm.mlir.constant(7 : i32)
// CHECK-NEXT: %[[V7:.*]] = llvm.insertelement %[[E7]], %[[V6]][%[[D7]] : i32] : vector<8xi32>
// Columns.
// CHECK: llvm.mlir.constant(16 : i32)
// CHECK-NEXT: llvm.mul
// CHECK-NEXT: llvm.add
// CHECK-NEXT: llvm.mlir.constant(4 : i32)
// CHECK-NEXT: llvm.udiv
// CHECK-NEXT: llvm.add
// CHECK-NEXT: llvm.mlir.constant(4 : i32)
// CHECK-NEXT: %[[Q:.*]] = llvm.urem %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: llvm.mlir.constant(2 : i32)
// CHECK-NEXT: %[[COL:.*]] = llvm.mul %[[Q]], %{{.*}} : i32
// CHECK-NEXT: %[[V:.*]] = llvm.mlir.poison : vector<8xi32>
// CHECK-NEXT: %[[O0:.*]] = llvm.mlir.constant(0 : i32)
// CHECK-NEXT: %[[E0:.*]] = llvm.add %[[COL]], %[[O0]] : i32
// CHECK-NEXT: %[[D0:.*]] = llvm.mlir.constant(0 : i32)
// CHECK-NEXT: %[[V0:.*]] = llvm.insertelement %[[E0]], %[[V]][%[[D0]] : i32] : vector<8xi32>
// CHECK-NEXT: %[[O1:.*]] = llvm.mlir.constant(1 : i32)
// CHECK-NEXT: %[[E1:.*]] = llvm.add %[[COL]], %[[O1]] : i32
// CHECK-NEXT: %[[D1:.*]] = llvm.mlir.constant(1 : i32)
// CHECK-NEXT: %[[V1:.*]] = llvm.insertelement %[[E1]], %[[V0]][%[[D1]] : i32] : vector<8xi32>
// CHECK-NEXT: %[[O2:.*]] = llvm.mlir.constant(0 : i32)
// CHECK-NEXT: %[[E2:.*]] = llvm.add %[[COL]], %[[O2]] : i32
// CHECK-NEXT: %[[D2:.*]] = llvm.mlir.constant(2 : i32)
// CHECK-NEXT: %[[V2:.*]] = llvm.insertelement %[[E2]], %[[V1]][%[[D2]] : i32] : vector<8xi32>
// CHECK-NEXT: %[[O3:.*]] = llvm.mlir.constant(1 : i32)
// CHECK-NEXT: %[[E3:.*]] = llvm.add %[[COL]], %[[O3]] : i32
// CHECK-NEXT: %[[D3:.*]] = llvm.mlir.constant(3 : i32)
// CHECK-NEXT: %[[V3:.*]] = llvm.insertelement %[[E3]], %[[V2]][%[[D3]] : i32] : vector<8xi32>
// CHECK-NEXT: %[[O4:.*]] = llvm.mlir.constant(8 : i32)
// CHECK-NEXT: %[[E4:.*]] = llvm.add %[[COL]], %[[O4]] : i32
// CHECK-NEXT: %[[D4:.*]] = llvm.mlir.constant(4 : i32)
// CHECK-NEXT: %[[V4:.*]] = llvm.insertelement %[[E4]], %[[V3]][%[[D4]] : i32] : vector<8xi32>
// CHECK-NEXT: %[[O5:.*]] = llvm.mlir.constant(9 : i32)
// CHECK-NEXT: %[[E5:.*]] = llvm.add %[[COL]], %[[O5]] : i32
// CHECK-NEXT: %[[D5:.*]] = llvm.mlir.constant(5 : i32)
// CHECK-NEXT: %[[V5:.*]] = llvm.insertelement %[[E5]], %[[V4]][%[[D5]] : i32] : vector<8xi32>
// CHECK-NEXT: %[[O6:.*]] = llvm.mlir.constant(8 : i32)
// CHECK-NEXT: %[[E6:.*]] = llvm.add %[[COL]], %[[O6]] : i32
// CHECK-NEXT: %[[D6:.*]] = llvm.mlir.constant(6 : i32)
// CHECK-NEXT: %[[V6:.*]] = llvm.insertelement %[[E6]], %[[V5]][%[[D6]] : i32] : vector<8xi32>
// CHECK-NEXT: %[[O7:.*]] = llvm.mlir.constant(9 : i32)
// CHECK-NEXT: %[[E7:.*]] = llvm.add %[[COL]], %[[O7]] : i32
// CHECK-NEXT: %[[D7:.*]] = llvm.mlir.constant(7 : i32)
// CHECK-NEXT: %[[V7:.*]] = llvm.insertelement %[[E7]], %[[V6]][%[[D7]] : i32] : vector<8xi32>
// CHECK: llvm.return
jfa.kernel @iota_wgmma() warps(4) {
  %t = jfa.thread_id
  %r = jfa.iota rows %t threads(128) layout(#jfa.wgmma_acc) shape [64, 16] : vector<8xi32>
  %c = jfa.iota cols %t threads(128) layout(#jfa.wgmma_acc) shape [64, 16] : vector<8xi32>
}

// -----

// Blocked iota (16x64, 128 threads): thread t's first element is 4t; its
// second chunk is 512 elements = 8 rows on. Rows: 4t / 64 + 0 (x4), + 8 (x4).
// CHECK-LABEL: llvm.func @iota_blocked
// CHECK: %[[T:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT: llvm.mlir.constant(4 : i32)
// CHECK-NEXT: %[[FIRST:.*]] = llvm.mul %[[T]], %{{.*}} : i32
// CHECK-NEXT: llvm.mlir.constant(64 : i32)
// CHECK-NEXT: %[[ROW:.*]] = llvm.udiv %[[FIRST]], %{{.*}} : i32
// CHECK-NEXT: llvm.mlir.constant(64 : i32)
// CHECK-NEXT: llvm.urem %[[FIRST]], %{{.*}} : i32
// CHECK-NEXT: %[[V:.*]] = llvm.mlir.poison : vector<8xi32>
// CHECK-NEXT: %[[O0:.*]] = llvm.mlir.constant(0 : i32)
// CHECK-NEXT: %[[E0:.*]] = llvm.add %[[ROW]], %[[O0]] : i32
// CHECK-NEXT: %[[D0:.*]] = llvm.mlir.constant(0 : i32)
// CHECK-NEXT: %[[V0:.*]] = llvm.insertelement %[[E0]], %[[V]][%[[D0]] : i32] : vector<8xi32>
// CHECK-NEXT: %[[O1:.*]] = llvm.mlir.constant(0 : i32)
// CHECK-NEXT: %[[E1:.*]] = llvm.add %[[ROW]], %[[O1]] : i32
// CHECK-NEXT: %[[D1:.*]] = llvm.mlir.constant(1 : i32)
// CHECK-NEXT: %[[V1:.*]] = llvm.insertelement %[[E1]], %[[V0]][%[[D1]] : i32] : vector<8xi32>
// CHECK-NEXT: %[[O2:.*]] = llvm.mlir.constant(0 : i32)
// CHECK-NEXT: %[[E2:.*]] = llvm.add %[[ROW]], %[[O2]] : i32
// CHECK-NEXT: %[[D2:.*]] = llvm.mlir.constant(2 : i32)
// CHECK-NEXT: %[[V2:.*]] = llvm.insertelement %[[E2]], %[[V1]][%[[D2]] : i32] : vector<8xi32>
// CHECK-NEXT: %[[O3:.*]] = llvm.mlir.constant(0 : i32)
// CHECK-NEXT: %[[E3:.*]] = llvm.add %[[ROW]], %[[O3]] : i32
// CHECK-NEXT: %[[D3:.*]] = llvm.mlir.constant(3 : i32)
// CHECK-NEXT: %[[V3:.*]] = llvm.insertelement %[[E3]], %[[V2]][%[[D3]] : i32] : vector<8xi32>
// CHECK-NEXT: %[[O4:.*]] = llvm.mlir.constant(8 : i32)
// CHECK-NEXT: %[[E4:.*]] = llvm.add %[[ROW]], %[[O4]] : i32
// CHECK-NEXT: %[[D4:.*]] = llvm.mlir.constant(4 : i32)
// CHECK-NEXT: %[[V4:.*]] = llvm.insertelement %[[E4]], %[[V3]][%[[D4]] : i32] : vector<8xi32>
// CHECK-NEXT: %[[O5:.*]] = llvm.mlir.constant(8 : i32)
// CHECK-NEXT: %[[E5:.*]] = llvm.add %[[ROW]], %[[O5]] : i32
// CHECK-NEXT: %[[D5:.*]] = llvm.mlir.constant(5 : i32)
// CHECK-NEXT: %[[V5:.*]] = llvm.insertelement %[[E5]], %[[V4]][%[[D5]] : i32] : vector<8xi32>
// CHECK-NEXT: %[[O6:.*]] = llvm.mlir.constant(8 : i32)
// CHECK-NEXT: %[[E6:.*]] = llvm.add %[[ROW]], %[[O6]] : i32
// CHECK-NEXT: %[[D6:.*]] = llvm.mlir.constant(6 : i32)
// CHECK-NEXT: %[[V6:.*]] = llvm.insertelement %[[E6]], %[[V5]][%[[D6]] : i32] : vector<8xi32>
// CHECK-NEXT: %[[O7:.*]] = llvm.mlir.constant(8 : i32)
// CHECK-NEXT: %[[E7:.*]] = llvm.add %[[ROW]], %[[O7]] : i32
// CHECK-NEXT: %[[D7:.*]] = llvm.mlir.constant(7 : i32)
// CHECK-NEXT: %[[V7:.*]] = llvm.insertelement %[[E7]], %[[V6]][%[[D7]] : i32] : vector<8xi32>
// CHECK-NEXT: llvm.return
jfa.kernel @iota_blocked() warps(4) {
  %t = jfa.thread_id
  %br = jfa.iota rows %t threads(128) shape [16, 64] : vector<8xi32>
}

// -----

// mask_cols in #jfa.wgmma_acc (64x16): each row register's limit less the
// thread's base column (2(t%4)), then register i compares that with its
// constant column offset (0, 1, 0, 1, 8, 9, 8, 9): no column index tile.
// CHECK-LABEL: llvm.func @mask_cols_wgmma
// CHECK: %[[X:.*]] = arith.constant dense<1.000000e+00> : vector<8xf32>
// CHECK: %[[L:.*]] = arith.constant dense<5> : vector<2xi32>
// CHECK: %[[FILL:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: llvm.mlir.constant(2 : i32)
// CHECK-NEXT: %[[COL:.*]] = llvm.mul %{{.*}}, %{{.*}} : i32
// CHECK: %[[L0:.*]] = llvm.extractelement %[[L]][%{{.*}} : i32] : vector<2xi32>
// CHECK-NEXT: %[[R0:.*]] = llvm.sub %[[L0]], %[[COL]] : i32
// CHECK: %[[L1:.*]] = llvm.extractelement %[[L]][%{{.*}} : i32] : vector<2xi32>
// CHECK-NEXT: %[[R1:.*]] = llvm.sub %[[L1]], %[[COL]] : i32
// CHECK-NEXT: llvm.mlir.poison : vector<8xf32>
// CHECK-NEXT: %[[C0:.*]] = llvm.mlir.constant(0 : i32)
// CHECK-NEXT: %[[K0:.*]] = llvm.icmp "sgt" %[[R0]], %[[C0]] : i32
// CHECK: %[[E0:.*]] = llvm.extractelement %[[X]]
// CHECK-NEXT: llvm.select %[[K0]], %[[E0]], %[[FILL]] : i1, f32
// CHECK: %[[C1:.*]] = llvm.mlir.constant(1 : i32)
// CHECK-NEXT: llvm.icmp "sgt" %[[R0]], %[[C1]] : i32
// Register 2 is row 8: the second row register.
// CHECK: %[[C2:.*]] = llvm.mlir.constant(0 : i32)
// CHECK-NEXT: llvm.icmp "sgt" %[[R1]], %[[C2]] : i32
// CHECK: %[[C4:.*]] = llvm.mlir.constant(8 : i32)
// CHECK-NEXT: llvm.icmp "sgt" %[[R0]], %[[C4]] : i32
// CHECK: %[[C5:.*]] = llvm.mlir.constant(9 : i32)
// CHECK-NEXT: llvm.icmp "sgt" %[[R0]], %[[C5]] : i32
// Register 7 is row 8, column 9.
// CHECK: %[[C7:.*]] = llvm.mlir.constant(9 : i32)
// CHECK-NEXT: llvm.icmp "sgt" %[[R1]], %[[C7]] : i32
// CHECK-NOT: llvm.icmp
// CHECK: llvm.return
jfa.kernel @mask_cols_wgmma() warps(4) {
  %t = jfa.thread_id
  %x = arith.constant dense<1.0> : vector<8xf32>
  %l = arith.constant dense<5> : vector<2xi32>
  %fill = arith.constant 0.0 : f32
  %m = jfa.mask_cols %x, %l, %fill thread %t threads(128) layout(#jfa.wgmma_acc) shape [64, 16] : vector<8xf32>, vector<2xi32>, f32
}

// -----

// With a lower bound: each row register's lower bound less the base column
// as well, and register i keeps its value where its constant column offset
// is also at or above that (sle), the two compares combined by an and.
// CHECK-LABEL: llvm.func @mask_cols_window
// CHECK: %[[X:.*]] = arith.constant dense<1.000000e+00> : vector<8xf32>
// CHECK: %[[L:.*]] = arith.constant dense<5> : vector<2xi32>
// CHECK: %[[LO:.*]] = arith.constant dense<2> : vector<2xi32>
// CHECK: llvm.mlir.constant(2 : i32)
// CHECK-NEXT: %[[COL:.*]] = llvm.mul %{{.*}}, %{{.*}} : i32
// CHECK: %[[L0:.*]] = llvm.extractelement %[[L]][%{{.*}} : i32] : vector<2xi32>
// CHECK-NEXT: %[[R0:.*]] = llvm.sub %[[L0]], %[[COL]] : i32
// CHECK: %[[L1:.*]] = llvm.extractelement %[[L]][%{{.*}} : i32] : vector<2xi32>
// CHECK-NEXT: llvm.sub %[[L1]], %[[COL]] : i32
// CHECK: %[[LO0:.*]] = llvm.extractelement %[[LO]][%{{.*}} : i32] : vector<2xi32>
// CHECK-NEXT: %[[B0:.*]] = llvm.sub %[[LO0]], %[[COL]] : i32
// CHECK: %[[LO1:.*]] = llvm.extractelement %[[LO]][%{{.*}} : i32] : vector<2xi32>
// CHECK-NEXT: llvm.sub %[[LO1]], %[[COL]] : i32
// CHECK: %[[C0:.*]] = llvm.mlir.constant(0 : i32)
// CHECK-NEXT: %[[BELOW:.*]] = llvm.icmp "sgt" %[[R0]], %[[C0]] : i32
// CHECK-NEXT: %[[ABOVE:.*]] = llvm.icmp "sle" %[[B0]], %[[C0]] : i32
// CHECK-NEXT: %[[KEEP:.*]] = llvm.and %[[BELOW]], %[[ABOVE]] : i1
// CHECK: %[[E0:.*]] = llvm.extractelement %[[X]]
// CHECK-NEXT: llvm.select %[[KEEP]], %[[E0]], %{{.*}} : i1, f32
// CHECK-COUNT-7: llvm.and
// CHECK-NOT: llvm.and
// CHECK: llvm.return
jfa.kernel @mask_cols_window() warps(4) {
  %t = jfa.thread_id
  %x = arith.constant dense<1.0> : vector<8xf32>
  %l = arith.constant dense<5> : vector<2xi32>
  %lo = arith.constant dense<2> : vector<2xi32>
  %fill = arith.constant 0.0 : f32
  %m = jfa.mask_cols %x, %l, %fill from %lo thread %t threads(128) layout(#jfa.wgmma_acc) shape [64, 16] : vector<8xf32>, vector<2xi32>, f32
}

// -----

// A row vector's iota: row r of the parent is column r of the vector, so
// the thread's base row plus the row offsets 0 and 8.
// CHECK-LABEL: llvm.func @iota_row_vector
// CHECK: llvm.udiv
// CHECK: llvm.udiv
// CHECK: llvm.udiv
// CHECK-NEXT: %[[ROW:.*]] = llvm.add %{{.*}}, %{{.*}} : i32
// CHECK: llvm.mlir.poison : vector<2xi32>
// CHECK-NEXT: %[[O0:.*]] = llvm.mlir.constant(0 : i32)
// CHECK-NEXT: llvm.add %[[ROW]], %[[O0]] : i32
// CHECK: %[[O1:.*]] = llvm.mlir.constant(8 : i32)
// CHECK-NEXT: llvm.add %[[ROW]], %[[O1]] : i32
// CHECK: llvm.return
jfa.kernel @iota_row_vector() warps(4) {
  %t = jfa.thread_id
  %r = jfa.iota rows %t threads(128) layout(#jfa.rows_of<#jfa.wgmma_acc>) shape [64] : vector<2xi32>
}
