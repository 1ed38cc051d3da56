// RUN: jfa-opt %s --jfa-allocate-shared-memory --jfa-distribute-tiles --jfa-lower-async-tasks --jfa-convert-to-llvm | FileCheck %s
// The blocked layout is counted in elements: an f32 tile and its bf16 cast
// put every element on the same thread, so both move in chunks of 4
// elements (16 bytes of f32, 8 bytes of bf16), at the same element offsets.

// CHECK-LABEL: llvm.func @cast
// CHECK: llvm.mul %{{.*}}, %[[FOUR:.*]] : i32
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<4xbf16>, !llvm.ptr<3>
// CHECK-NOT: vector<8xbf16>
jfa.kernel @cast() warps(4) {
  %a = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
  %b = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16>
  %c0 = arith.constant 0 : i32
  %sa = jfa.slot %a[%c0] : !jfa.smem<1 x 64x64xf32>, i32
  %sb = jfa.slot %b[%c0] : !jfa.smem<1 x 64x64xbf16>, i32
  %x = jfa.local_load %sa : !jfa.slot<64x64xf32> -> tensor<64x64xf32>
  %h = arith.truncf %x : tensor<64x64xf32> to tensor<64x64xbf16>
  jfa.local_store %h, %sb : tensor<64x64xbf16> -> !jfa.slot<64x64xbf16>
}
