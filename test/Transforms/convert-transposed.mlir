// RUN: jfa-opt %s --split-input-file --jfa-allocate-shared-memory --jfa-distribute-tiles --jfa-lower-async-tasks --jfa-convert-to-llvm | FileCheck %s
// A transposed (N-major) B: wgmma gets the transpose-B layout and each k16
// step moves 16 stored rows (16 x 128 B = 2048 B, 128 in the descriptor's
// 16-byte units) instead of 32 bytes.

// CHECK-LABEL: llvm.func @wgmma_nn
// CHECK-DAG: add.u32 lo, $1, 128;
// CHECK-DAG: add.u32 lo, $1, 384;
// CHECK: nvvm.wgmma.mma_async {{.*}} A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
jfa.kernel @wgmma_nn() warps(4) {
  %a = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %v = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %c0 = arith.constant 0 : i32
  %as = jfa.slot %a[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  %vs = jfa.slot %v[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  %vt = jfa.transpose %vs : !jfa.slot<64x64xbf16, swizzle 128>
  %z = arith.constant dense<0.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  %d = jfa.async_dot %as, %vt, %z : !jfa.slot<64x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128, transposed>, tensor<64x64xf32, #jfa.wgmma_acc>
  %w = jfa.async_dot_wait pending(0) (%d) : tensor<64x64xf32, #jfa.wgmma_acc>
}

// -----

// tcgen05: transpose-B is bit 16 of the instruction descriptor; for bf16,
// M = 128, N = 64: (1 << 4) | (1 << 7) | (1 << 10) | (1 << 16) | (8 << 17) |
// (8 << 24) = 135333008.
// CHECK-LABEL: llvm.func @tcgen05_nn
// The k-step of the transposed B is 16 stored rows of 128 bytes (2048, 128
// in the descriptor's 16-byte units); shared addresses are 32-bit, as
// nvvm.tcgen05.mma_smem_desc takes them.
// CHECK: llvm.mlir.constant(135333008 : i32)
// CHECK: "add.s64 $0, $1, 128;"
// CHECK: nvvm.tcgen05.mma
jfa.kernel @tcgen05_nn() warps(4) {
  %a = jfa.local_alloc : !jfa.smem<1 x 128x64xbf16, swizzle 128>
  %v = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %acc = jfa.tmem_alloc : !jfa.tmem<128x64xf32>
  %c0 = arith.constant 0 : i32
  %false = arith.constant false
  %as = jfa.slot %a[%c0] : !jfa.smem<1 x 128x64xbf16, swizzle 128>, i32
  %vs = jfa.slot %v[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  %vt = jfa.transpose %vs : !jfa.slot<64x64xbf16, swizzle 128>
  jfa.tc_dot %as, %vt, %acc, %false : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128, transposed>, !jfa.tmem<128x64xf32>
}
