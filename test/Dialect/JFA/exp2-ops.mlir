// RUN: jfa-opt %s | FileCheck %s
// RUN: jfa-opt %s | jfa-opt | FileCheck %s
// jfa.exp2: 2^x with a share of the column groups computed on the FMA pipes.

// CHECK-LABEL: jfa.kernel @exp2
jfa.kernel @exp2() warps(4) {
  %t = arith.constant dense<-1.5> : tensor<64x64xf32, #jfa.wgmma_acc>
  %share = arith.constant 3 : i32
  // CHECK: jfa.exp2 %{{.*}} software(%{{.*}} of 16) : tensor<64x64xf32, #jfa.wgmma_acc>
  %p = jfa.exp2 %t software(%share of 16) : tensor<64x64xf32, #jfa.wgmma_acc>
  %u = arith.constant dense<-1.5> : tensor<128x32xf32, #jfa.tmem_row>
  // CHECK: jfa.exp2 %{{.*}} software(%{{.*}} of 4) : tensor<128x32xf32, #jfa.tmem_row>
  %q = jfa.exp2 %u software(%share of 4) : tensor<128x32xf32, #jfa.tmem_row>
}

// The distributed form records the thread count, the layout and the shape.
// CHECK-LABEL: jfa.kernel @distributed
// CHECK: jfa.exp2 %{{.*}} software(%{{.*}} of 2) threads(128) layout(#jfa.wgmma_acc) shape [64, 32] : vector<16xf32>
jfa.kernel @distributed(%x: f32) warps(4) {
  %v = vector.broadcast %x : f32 to vector<16xf32>
  %share = arith.constant 1 : i32
  %p = jfa.exp2 %v software(%share of 2) threads(128) layout(#jfa.wgmma_acc) shape [64, 32] : vector<16xf32>
}
