// RUN: jfa-opt %s --jfa-inline-helpers | FileCheck %s
// A helper written for bf16 operands (element_parameter = bf16), called
// with fp8 ones: the copy's !jfa.tma, !jfa.smem and !jfa.slot of bf16 take
// f8E4M3FN with twice the columns (a row keeps its 128 bytes), so the byte
// count and the row block stay valid; a buffer of another element (the f32
// one) and register tiles are left alone; a helper it calls is bound in
// turn, and a stage parameter binds beside the element one.

jfa.func @load(%kt: i32, %k_tile: i32, %a: !jfa.tma<64x64xbf16, swizzle 128>,
               %ring: !jfa.smem<3 x 128x64xbf16, swizzle 128>,
               %full: !jfa.mbarriers<3>, %out: !jfa.smem<1 x 64x32xf32, swizzle 128>)
    attributes {stage_parameter = 3, element_parameter = bf16} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %s, %phase = jfa.ring_position %kt stages(3) : i32
  %full_s = jfa.barrier %full[%s] : !jfa.mbarriers<3>, i32
  %slot = jfa.slot %ring[%s] : !jfa.smem<3 x 128x64xbf16, swizzle 128>, i32
  %half = jfa.row_block %slot[%c1] : !jfa.slot<128x64xbf16, swizzle 128> -> !jfa.slot<64x64xbf16, swizzle 128>
  %kcol = arith.muli %kt, %k_tile : i32
  jfa.barrier_expect %full_s, bytes(8192)
  jfa.tma_load %a[%c0, %kcol], %half, %full_s : !jfa.tma<64x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128>
  %o = jfa.slot %out[%c0] : !jfa.smem<1 x 64x32xf32, swizzle 128>, i32
  jfa.call @wait(%full_s, %phase, %slot) : (!jfa.mbarrier, i32, !jfa.slot<128x64xbf16, swizzle 128>) -> ()
  jfa.return
}

jfa.func @wait(%b: !jfa.mbarrier, %phase: i32, %slot: !jfa.slot<128x64xbf16, swizzle 128>)
    attributes {element_parameter = bf16} {
  jfa.barrier_wait %b, %phase
  %t = jfa.transpose %slot : !jfa.slot<128x64xbf16, swizzle 128>
  jfa.return
}

// CHECK-NOT: jfa.func
// CHECK-LABEL: jfa.kernel @fp8
// CHECK: jfa.ring_position %{{.*}} stages(4) : i32
// CHECK: jfa.slot %{{.*}}[%{{.*}}] : !jfa.smem<4 x 128x128xf8E4M3FN, swizzle 128>, i32
// CHECK: jfa.row_block %{{.*}}[%{{.*}}] : !jfa.slot<128x128xf8E4M3FN, swizzle 128> -> !jfa.slot<64x128xf8E4M3FN, swizzle 128>
// CHECK: jfa.barrier_expect %{{.*}}, bytes(8192)
// CHECK: jfa.tma_load %{{.*}} : !jfa.tma<64x128xf8E4M3FN, swizzle 128>, !jfa.slot<64x128xf8E4M3FN, swizzle 128>
// CHECK: jfa.slot %{{.*}}[%{{.*}}] : !jfa.smem<1 x 64x32xf32, swizzle 128>, i32
// CHECK: jfa.transpose %{{.*}} : !jfa.slot<128x128xf8E4M3FN, swizzle 128>
// CHECK-NOT: bf16
// CHECK-LABEL: jfa.kernel @bf16
// CHECK: jfa.slot %{{.*}}[%{{.*}}] : !jfa.smem<3 x 128x64xbf16, swizzle 128>, i32
// CHECK: jfa.tma_load %{{.*}} : !jfa.tma<64x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128>
// CHECK: jfa.transpose %{{.*}} : !jfa.slot<128x64xbf16, swizzle 128>
jfa.kernel @fp8(%a: !jfa.tma<64x128xf8E4M3FN, swizzle 128>, %kt: i32) warps(4) {
  %c128 = arith.constant 128 : i32
  %ring = jfa.local_alloc : !jfa.smem<4 x 128x128xf8E4M3FN, swizzle 128>
  %out = jfa.local_alloc : !jfa.smem<1 x 64x32xf32, swizzle 128>
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<4>
  jfa.call @load(%kt, %c128, %a, %ring, %full, %out)
      : (i32, i32, !jfa.tma<64x128xf8E4M3FN, swizzle 128>, !jfa.smem<4 x 128x128xf8E4M3FN, swizzle 128>,
         !jfa.mbarriers<4>, !jfa.smem<1 x 64x32xf32, swizzle 128>) -> ()
}
jfa.kernel @bf16(%a: !jfa.tma<64x64xbf16, swizzle 128>, %kt: i32) warps(4) {
  %c64 = arith.constant 64 : i32
  %ring = jfa.local_alloc : !jfa.smem<3 x 128x64xbf16, swizzle 128>
  %out = jfa.local_alloc : !jfa.smem<1 x 64x32xf32, swizzle 128>
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<3>
  jfa.call @load(%kt, %c64, %a, %ring, %full, %out)
      : (i32, i32, !jfa.tma<64x64xbf16, swizzle 128>, !jfa.smem<3 x 128x64xbf16, swizzle 128>,
         !jfa.mbarriers<3>, !jfa.smem<1 x 64x32xf32, swizzle 128>) -> ()
}

// From f32 (32 bits) to bf16 (16): 32 columns become 64; a transposed
// view's contiguous dimension is its first.
jfa.func @narrow(%t: !jfa.slot<32x128xf32, swizzle 128, transposed>) attributes {element_parameter = f32} {
  jfa.return
}
// CHECK-LABEL: jfa.kernel @widen
// CHECK-NOT: jfa.call
jfa.kernel @widen() warps(4) {
  %c0 = arith.constant 0 : i32
  %buf = jfa.local_alloc : !jfa.smem<1 x 128x64xbf16, swizzle 128>
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 128x64xbf16, swizzle 128>, i32
  %t = jfa.transpose %s : !jfa.slot<128x64xbf16, swizzle 128>
  jfa.call @narrow(%t) : (!jfa.slot<64x128xbf16, swizzle 128, transposed>) -> ()
}
