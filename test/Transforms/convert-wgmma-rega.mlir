// RUN: jfa-opt %s --split-input-file --jfa-allocate-shared-memory --jfa-distribute-tiles --jfa-lower-async-tasks --jfa-convert-to-llvm --verify-diagnostics | FileCheck %s
// wgmma with A in registers: the bf16 tile in the wgmma layout feeds the
// A registers directly (4 b32 per k16: fragment elements 8kk .. 8kk + 7),
// through inline PTX since NVVM's wgmma op takes A only as a descriptor.

// CHECK-LABEL: llvm.func @rega
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// CHECK: llvm.inline_asm has_side_effects "{\0A.reg .pred p;\0Asetp.ne.b32 p, $69, 0;\0Awgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {$0, {{.*}}, $31}, {$64, $65, $66, $67}, $68, p, 1, 1, 1;\0A}\0A", "=f,{{.*}},=f,0,1,{{.*}},31,r,r,r,r,l,n"
// CHECK-COUNT-3: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// CHECK: nvvm.wgmma.commit.group.sync.aligned
jfa.kernel @rega() warps(4) {
  %v = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %c0 = arith.constant 0 : i32
  %vs = jfa.slot %v[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  %vt = jfa.transpose %vs : !jfa.slot<64x64xbf16, swizzle 128>
  %p = arith.constant dense<1.0> : tensor<64x64xbf16, #jfa.wgmma_acc>
  %z = arith.constant dense<0.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  %d = jfa.async_dot %p, %vt, %z : tensor<64x64xbf16, #jfa.wgmma_acc>, !jfa.slot<64x64xbf16, swizzle 128, transposed>, tensor<64x64xf32, #jfa.wgmma_acc>
  %w = jfa.async_dot_wait pending(0) (%d) : tensor<64x64xf32, #jfa.wgmma_acc>
}

// -----

jfa.kernel @bad_a() warps(4) {
  %v = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %c0 = arith.constant 0 : i32
  %vs = jfa.slot %v[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  %p = arith.constant dense<1.0> : tensor<64x64xbf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  // expected-error @+1 {{'jfa.async_dot' op a register A must be a bf16 or f16 tile in the #jfa.wgmma_acc layout, got 'tensor<64x64xbf16>'}}
  %d = jfa.async_dot %p, %vs, %z : tensor<64x64xbf16>, !jfa.slot<64x64xbf16, swizzle 128>, tensor<64x64xf32, #jfa.wgmma_acc>
}

// -----

jfa.kernel @bad_k() warps(4) {
  %v = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %c0 = arith.constant 0 : i32
  %vs = jfa.slot %v[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  %p = arith.constant dense<1.0> : tensor<64x32xbf16, #jfa.wgmma_acc>
  %z = arith.constant dense<0.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  // expected-error @+1 {{'jfa.async_dot' op A is 64x32 but B is 64x64; B must be K-major with the same K}}
  %d = jfa.async_dot %p, %vs, %z : tensor<64x32xbf16, #jfa.wgmma_acc>, !jfa.slot<64x64xbf16, swizzle 128>, tensor<64x64xf32, #jfa.wgmma_acc>
}
