// RUN: jfa-opt %s --jfa-check-target=arch=sm_100a --jfa-allocate-shared-memory --jfa-distribute-tiles --jfa-lower-async-tasks --jfa-convert-to-llvm | FileCheck %s
// tmem_store: each warp writes its 32 lanes (address + (32w << 16) + col),
// 32x32b, then waits for the store and fences before the next barrier.

// CHECK-LABEL: llvm.func @st
// CHECK: llvm.shl %{{.*}}, %{{.*}} : i32
// CHECK: %[[ADDR:.*]] = llvm.inttoptr %{{.*}} : i32 to !llvm.ptr<6>
// CHECK: %[[BITS:.*]] = llvm.bitcast %{{.*}} : vector<64xf32> to vector<64xi32>
// CHECK: nvvm.tcgen05.st %[[ADDR]], %[[BITS]] {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<64xi32>
// CHECK-NEXT: nvvm.tcgen05.wait <store>
// CHECK-NEXT: nvvm.tcgen05.fence <before>
jfa.kernel @st(%alpha: f32) warps(4) {
  %acc = jfa.tmem_alloc : !jfa.tmem<128x64xf32>
  %c0 = arith.constant 0 : i32
  %t = tensor.splat %alpha : tensor<128x64xf32, #jfa.tmem_row>
  jfa.tmem_store %t, %acc[%c0] : tensor<128x64xf32, #jfa.tmem_row> -> !jfa.tmem<128x64xf32>
}
