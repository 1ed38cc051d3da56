// jfa.store_tile's global stores are the runs the lowering emits
// (getStoreTileVectorWidth, which the lowering calls too), each aligned to
// its size; a run the GPU would fault on is reported at the store. In
// #jfa.blocked a thread of 128 holding 8 f32 of a 16x64 tile stores runs of
// 4 (16 bytes), not element by element.
// RUN: %python %S/Inputs/make_npy.py %t.o.npy f4 64x64 0
// RUN: not jfa-interp %s --kernel blocked --arch sm_100a %t.o.npy i32:2 i32:64 i32:16 2>&1 | FileCheck %s --check-prefix=OFFSET
// RUN: not jfa-interp %s --kernel blocked --arch sm_100a %t.o.npy i32:0 i32:66 i32:16 2>&1 | FileCheck %s --check-prefix=STRIDE
// Only the rows stored are accessed: one row at a misaligned stride does
// not fault.
// RUN: jfa-interp %s --kernel blocked --arch sm_100a %t.o.npy i32:0 i32:66 i32:1
// RUN: jfa-interp %s --kernel blocked --arch sm_100a %t.o.npy i32:4 i32:68 i32:16
// The atomic adds go in the same runs (red.global.add.v4.f32): the same
// rule.
// RUN: not jfa-interp %s --kernel blocked_add --arch sm_100a %t.o.npy i32:1 i32:64 i32:16 2>&1 | FileCheck %s --check-prefix=ADD
// RUN: jfa-interp %s --kernel blocked_add --arch sm_100a %t.o.npy i32:4 i32:68 i32:16
// The lowering stores the same runs, 16-byte aligned.
// RUN: jfa-opt %s --jfa-allocate-shared-memory --jfa-distribute-tiles --jfa-lower-async-tasks --jfa-convert-to-llvm | FileCheck %s --check-prefix=LLVM

// OFFSET: store-tile-alignment.mlir:[[@LINE+6]]:3: error: jfa.store_tile stores runs of 4 elements, so its offset (2) and row stride (64) must be multiples of 4: row 0 starts at element 2, not aligned to its run's 16 bytes
// STRIDE: store-tile-alignment.mlir:[[@LINE+5]]:3: error: jfa.store_tile stores runs of 4 elements, so its offset (0) and row stride (66) must be multiples of 4: row 1 starts at element 66
// LLVM-LABEL: llvm.func @blocked(
// LLVM: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
jfa.kernel @blocked(%o: !jfa.ptr<f32>, %offset: i32, %stride: i32, %rows: i32) warps(4) {
  %t = arith.constant dense<1.0> : tensor<16x64xf32>
  jfa.store_tile %t, %o[%offset] stride(%stride) rows(%rows) : tensor<16x64xf32>, !jfa.ptr<f32>
}

// ADD: store-tile-alignment.mlir:[[@LINE+5]]:3: error: jfa.store_tile stores runs of 4 elements, so its offset (1) and row stride (64) must be multiples of 4: row 0 starts at element 1
// LLVM-LABEL: llvm.func @blocked_add(
// LLVM: llvm.inline_asm has_side_effects "red.global.add.v4.f32 [$0], {$1, $2, $3, $4};"
jfa.kernel @blocked_add(%o: !jfa.ptr<f32>, %offset: i32, %stride: i32, %rows: i32) warps(4) {
  %t = arith.constant dense<1.0> : tensor<16x64xf32>
  jfa.store_tile %t, %o[%offset] stride(%stride) rows(%rows) add : tensor<16x64xf32>, !jfa.ptr<f32>
}
