// RUN: jfa-opt %s --split-input-file --jfa-distribute-tiles --verify-diagnostics | FileCheck %s
// convert_layout is a round trip through its scratch slot: store in the
// source layout, task barrier, load in the target layout, task barrier.

// CHECK-LABEL: jfa.kernel @convert
// CHECK: jfa.store_fragment %{{.*}}, %[[S:.*]], %{{.*}} threads(128) layout(#jfa.wgmma_acc) : vector<32xf32>
// CHECK-NEXT: jfa.task_barrier
// CHECK: jfa.load_fragment %[[S]], %{{.*}} threads(128) : !jfa.slot<64x64xf32> -> vector<32xf32>
// CHECK-NEXT: jfa.task_barrier
jfa.kernel @convert() warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x64xf32>, i32
  %t = arith.constant dense<1.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  %b = jfa.convert_layout %t, %s : tensor<64x64xf32, #jfa.wgmma_acc> -> tensor<64x64xf32>, !jfa.slot<64x64xf32>
  jfa.local_store %b, %s : tensor<64x64xf32> -> !jfa.slot<64x64xf32>
}

// -----

jfa.kernel @shape() warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x64xf32>, i32
  %t = arith.constant dense<1.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  // expected-error @+1 {{'jfa.convert_layout' op converts between layouts of one tile; 'tensor<64x64xf32, #jfa.wgmma_acc>' and 'tensor<64x64xf16>' differ in shape or type}}
  %b = jfa.convert_layout %t, %s : tensor<64x64xf32, #jfa.wgmma_acc> -> tensor<64x64xf16>, !jfa.slot<64x64xf32>
}

// -----

jfa.kernel @scratch() warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x32xf32>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x32xf32>, i32
  %t = arith.constant dense<1.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  // expected-error @+1 {{'jfa.convert_layout' op scratch slot '!jfa.slot<64x32xf32>' must hold the tile 'tensor<64x64xf32, #jfa.wgmma_acc>'}}
  %b = jfa.convert_layout %t, %s : tensor<64x64xf32, #jfa.wgmma_acc> -> tensor<64x64xf32>, !jfa.slot<64x32xf32>
}
