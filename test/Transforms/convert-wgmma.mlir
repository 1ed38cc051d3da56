// RUN: jfa-opt %s --jfa-allocate-shared-memory --jfa-distribute-tiles --jfa-lower-async-tasks --jfa-convert-to-llvm | FileCheck %s
// RUN: jfa-opt %s --jfa-check-target=arch=sm_90a --jfa-lower-to-llvm | FileCheck %s --check-prefix=ASM
// One warpgroup, a 64x64 accumulator: wgmma m64n64k16 four times over
// K = 64, with 128-byte-swizzle descriptors: start >> 4, LBO 1, and in the
// high word SBO 1024 B (64) and mode 1 << 30: 1073741888. The zero
// accumulator (distributed to a zero vector) becomes scale-d 0 in the first
// step.

// CHECK-LABEL: llvm.func @wg
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NEXT: llvm.inline_asm has_side_effects "{{.*}}add.u32 lo, $1, 0;\0Amov.b32 hi, 1073741888;{{.*}}"
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f32>, <zero>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK-COUNT-3: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// Each accumulator element is pinned after the wait.
// CHECK-COUNT-32: llvm.inline_asm has_side_effects "", "=f,0"
// The bf16 tile goes into the swizzled slot by stmatrix, 16 x 16 a warp at
// once (its addresses XOR the 16-byte chunk with the row): 4 of them.
// CHECK: llvm.xor
// CHECK-COUNT-4: nvvm.stmatrix
// CHECK-NOT: nvvm.stmatrix
// CHECK-NOT: llvm.store

// ASM-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// ASM: nvvm.wgmma.wait.group.sync.aligned 0

jfa.kernel @wg() warps(4) {
  %a = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %c = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %c0 = arith.constant 0 : i32
  %sa = jfa.slot %a[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  %sc = jfa.slot %c[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  %z = arith.constant dense<0.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  %d = jfa.async_dot %sa, %sa, %z : !jfa.slot<64x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128>, tensor<64x64xf32, #jfa.wgmma_acc>
  %w = jfa.async_dot_wait pending(0) (%d) : tensor<64x64xf32, #jfa.wgmma_acc>
  %h = arith.truncf %w : tensor<64x64xf32, #jfa.wgmma_acc> to tensor<64x64xbf16, #jfa.wgmma_acc>
  jfa.local_store %h, %sc : tensor<64x64xbf16, #jfa.wgmma_acc> -> !jfa.slot<64x64xbf16, swizzle 128>
}
