// RUN: jfa-opt %s --jfa-inline-helpers | FileCheck %s
// RUN: jfa-opt %s --jfa-inline-helpers --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC
// Calls become the helper's body (helpers calling helpers too); the helpers
// are gone afterwards; copied ops are located in the helper, called from the
// call.

// CHECK-NOT: jfa.func
// CHECK-LABEL: jfa.kernel @k
jfa.func @unit(%u: i32, %k_tiles: i32) -> (i32, i32) {
  %sh = arith.divui %u, %k_tiles : i32
  %kt = jfa.call @rem(%u, %k_tiles) : (i32, i32) -> i32
  jfa.return %sh, %kt : i32, i32
}

jfa.func @rem(%a: i32, %b: i32) -> i32 {
  %r = arith.remui %a, %b : i32
  jfa.return %r : i32
}

// Tiles and slots in and out.
jfa.func @scaled(%slot: !jfa.slot<64x64xf32>, %s: f32) -> tensor<64x64xf32> {
  %x = jfa.local_load %slot : !jfa.slot<64x64xf32> -> tensor<64x64xf32>
  %st = tensor.splat %s : tensor<64x64xf32>
  %y = arith.mulf %x, %st : tensor<64x64xf32>
  jfa.return %y : tensor<64x64xf32>
}

jfa.kernel @k(%p: !jfa.ptr<f32>, %n: i32, %s: f32) warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
  %c0 = arith.constant 0 : i32
  %slot = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x64xf32>, i32
  // CHECK: %[[SH:.*]] = arith.divui %arg1, %arg1 : i32
  // CHECK-NEXT: %[[KT:.*]] = arith.remui %arg1, %arg1 : i32
  // CHECK-NEXT: jfa.load %arg0[%[[SH]]]
  // CHECK-NEXT: jfa.load %arg0[%[[KT]]]
  // The remainder, from @rem called from @unit called from here.
  // LOC: arith.remui {{.*}} loc(#[[REM:loc[0-9]+]])
  // LOC: #[[REM]] = loc(callsite(#{{loc[0-9]+}} at #[[CALL:loc[0-9]+]]))
  %a, %b = jfa.call @unit(%n, %n) : (i32, i32) -> (i32, i32)
  %x = jfa.load %p[%a] : !jfa.ptr<f32> -> f32
  %y = jfa.load %p[%b] : !jfa.ptr<f32> -> f32
  // CHECK: jfa.local_load
  // CHECK-NEXT: tensor.splat %arg2
  // CHECK-NEXT: arith.mulf
  // CHECK-NOT: jfa.call
  %t = jfa.call @scaled(%slot, %s) : (!jfa.slot<64x64xf32>, f32) -> tensor<64x64xf32>
  jfa.local_store %t, %slot : tensor<64x64xf32> -> !jfa.slot<64x64xf32>
}
