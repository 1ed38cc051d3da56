// RUN: jfa-opt %s --split-input-file --jfa-check-target=arch=sm_100a --jfa-allocate-shared-memory --jfa-distribute-tiles --jfa-lower-async-tasks --jfa-convert-to-llvm --verify-diagnostics | FileCheck %s
// tcgen05.mma with A in tensor memory: a bf16 tmem tile packs two elements
// per column, so each k16 step moves 8 columns on; tmem_store of a bf16
// tile packs pairs into b32 registers (x32 for 64 columns).

// CHECK-LABEL: llvm.func @tmem_a
// CHECK: llvm.lshr %{{.*}}, %{{.*}} : i32
// CHECK: llvm.bitcast %{{.*}} : vector<64xbf16> to vector<32xi32>
// CHECK: nvvm.tcgen05.st %{{.*}}, %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<32xi32>
// CHECK: nvvm.tcgen05.fence <after>
// CHECK: %[[A0:.*]] = llvm.inttoptr %{{.*}} : i32 to !llvm.ptr<6>
// CHECK: nvvm.tcgen05.mma %{{.*}}, %[[A0]], %{{.*}}, %{{.*}}, %{{.*}} {ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.tcgen05_mma_kind<f16>} : (!llvm.ptr<6>, !llvm.ptr<6>, i64, i32, i1)
// CHECK: llvm.mlir.constant(8 : i32)
// CHECK: nvvm.tcgen05.mma
// CHECK: llvm.mlir.constant(16 : i32)
// CHECK: nvvm.tcgen05.mma
jfa.kernel @tmem_a(%x: f32) warps(4) {
  %b = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %acc = jfa.tmem_alloc : !jfa.tmem<128x64xf32>
  %a = jfa.tmem_alloc : !jfa.tmem<128x64xbf16>
  %c0 = arith.constant 0 : i32
  %false = arith.constant false
  %bs = jfa.slot %b[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  %h = arith.truncf %x : f32 to bf16
  %t = tensor.splat %h : tensor<128x64xbf16, #jfa.tmem_row>
  jfa.tmem_store %t, %a[%c0] : tensor<128x64xbf16, #jfa.tmem_row> -> !jfa.tmem<128x64xbf16>
  jfa.tc_dot %a, %bs, %acc, %false : !jfa.tmem<128x64xbf16>, !jfa.slot<64x64xbf16, swizzle 128>, !jfa.tmem<128x64xf32>
}

// -----

jfa.kernel @f32_a() warps(4) {
  %b = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %acc = jfa.tmem_alloc : !jfa.tmem<128x64xf32>
  %a = jfa.tmem_alloc : !jfa.tmem<128x64xf32>
  %c0 = arith.constant 0 : i32
  %false = arith.constant false
  %bs = jfa.slot %b[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  // expected-error @+1 {{'jfa.tc_dot' op A in tensor memory must be bf16 or f16 like B, got '!jfa.tmem<128x64xf32>' and '!jfa.slot<64x64xbf16, swizzle 128>'}}
  jfa.tc_dot %a, %bs, %acc, %false : !jfa.tmem<128x64xf32>, !jfa.slot<64x64xbf16, swizzle 128>, !jfa.tmem<128x64xf32>
}

// -----

jfa.kernel @bf16_acc() warps(4) {
  %b = jfa.local_alloc : !jfa.smem<1 x 128x64xbf16, swizzle 128>
  %acc = jfa.tmem_alloc : !jfa.tmem<128x128xbf16>
  %c0 = arith.constant 0 : i32
  %false = arith.constant false
  %bs = jfa.slot %b[%c0] : !jfa.smem<1 x 128x64xbf16, swizzle 128>, i32
  // expected-error @+1 {{'jfa.tc_dot' op the accumulator must be f32 tensor memory, got '!jfa.tmem<128x128xbf16>'}}
  jfa.tc_dot %bs, %bs, %acc, %false : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, !jfa.tmem<128x128xbf16>
}
