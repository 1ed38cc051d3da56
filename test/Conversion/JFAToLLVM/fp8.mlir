// RUN: jfa-opt %s --split-input-file --jfa-convert-to-llvm | FileCheck %s
// 8-bit float operands (f8E4M3FN = PTX .e4m3, f8E5M2 = .e5m2): one
// instruction per 32 of K (32 bytes, as for 16-bit operands), so the
// descriptors step by 32 bytes (2 units of 16) along a K-major row.

// wgmma (WGMMAToLLVM.cpp): m64nNk32, A and B types separate (.e4m3 A, .e5m2
// B), both K-major (row A, col B: wgmma has no transpose for 8-bit types).
// Warpgroup 1 reads rows [64, 128) of A: 64 rows * 128 bytes = 8192.
// CHECK-LABEL: llvm.func @wgmma_e4m3_e5m2
// CHECK: llvm.mlir.constant(8192 : i64) : i64
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: "{{.*}}add.u32 lo, $1, 0;{{.*}}"
// CHECK: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %{{.*}}, <m = 64, n = 64, k = 32>, D[<f32>, <zero>], A[<e4m3>, <one>, <row>], B[<e5m2>, <one>, <col>]
// CHECK: "{{.*}}add.u32 lo, $1, 2;{{.*}}"
// CHECK: nvvm.wgmma.mma_async %{{.*}}, <m = 64, n = 64, k = 32>, D[<f32>, <one>], A[<e4m3>, <one>, <row>], B[<e5m2>, <one>, <col>]
// CHECK: "{{.*}}add.u32 lo, $1, 4;{{.*}}"
// CHECK: nvvm.wgmma.mma_async
// CHECK: "{{.*}}add.u32 lo, $1, 6;{{.*}}"
// CHECK: nvvm.wgmma.mma_async
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
jfa.kernel @wgmma_e4m3_e5m2() warps(8) {
  %a = jfa.local_alloc {offset = 0 : i64} : !jfa.smem<1 x 128x128xf8E4M3FN, swizzle 128>
  %b = jfa.local_alloc {offset = 16384 : i64} : !jfa.smem<1 x 64x128xf8E5M2, swizzle 128>
  %c0 = arith.constant 0 : i32
  %sa = jfa.slot %a[%c0] : !jfa.smem<1 x 128x128xf8E4M3FN, swizzle 128>, i32
  %sb = jfa.slot %b[%c0] : !jfa.smem<1 x 64x128xf8E5M2, swizzle 128>, i32
  %wg = arith.constant 1 : i32
  %acc = arith.constant dense<0.0> : vector<32xf32>
  %d = jfa.warpgroup_dot %sa, %sb, %acc, %wg : !jfa.slot<128x128xf8E4M3FN, swizzle 128>, !jfa.slot<64x128xf8E5M2, swizzle 128>, vector<32xf32>
  %w = jfa.async_dot_wait pending(0) (%d) : vector<32xf32>
}

// -----

// tcgen05 (TensorMemoryToLLVM.cpp): kind::f8f6f4. Instruction descriptor
// (PTX ISA, "Instruction descriptor", kind::f8f6f4): f32 D (1 << 4), A E4M3
// (0 << 7), B E5M2 (1 << 10), K-major both, N = 256 (32 << 17), M = 128
// (8 << 24) = 138413072.
// CHECK-LABEL: llvm.func @tcgen05_e4m3_e5m2
// CHECK: %[[IDESC:.*]] = llvm.mlir.constant(138413072 : i32) : i32
// CHECK: llvm.inline_asm has_side_effects "add.s64 $0, $1, 0;", "=l,l"
// CHECK: llvm.inline_asm has_side_effects "add.s64 $0, $1, 0;", "=l,l"
// CHECK-NEXT: nvvm.tcgen05.mma %{{.*}}, %{{.*}}, %{{.*}}, %[[IDESC]], %{{.*}} {ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.tcgen05_mma_kind<f8f6f4>}
// CHECK: llvm.inline_asm has_side_effects "add.s64 $0, $1, 2;", "=l,l"
// CHECK: llvm.inline_asm has_side_effects "add.s64 $0, $1, 2;", "=l,l"
// CHECK-NEXT: nvvm.tcgen05.mma %{{.*}}, %[[IDESC]], %{{.*}} {{.*}}kind = #nvvm.tcgen05_mma_kind<f8f6f4>
// CHECK: "add.s64 $0, $1, 6;"
// CHECK: nvvm.tcgen05.mma
// CHECK-NOT: nvvm.tcgen05.mma
// CHECK: llvm.return
jfa.kernel @tcgen05_e4m3_e5m2() warps(4) {
  %a = jfa.local_alloc {offset = 0 : i64} : !jfa.smem<1 x 128x128xf8E4M3FN, swizzle 128>
  %b = jfa.local_alloc {offset = 16384 : i64} : !jfa.smem<1 x 256x128xf8E5M2, swizzle 128>
  %acc = jfa.tmem_alloc {offset = 49152 : i64} : !jfa.tmem<128x256xf32>
  %c0 = arith.constant 0 : i32
  %sa = jfa.slot %a[%c0] : !jfa.smem<1 x 128x128xf8E4M3FN, swizzle 128>, i32
  %sb = jfa.slot %b[%c0] : !jfa.smem<1 x 256x128xf8E5M2, swizzle 128>, i32
  %false = arith.constant false
  jfa.tc_dot %sa, %sb, %acc, %false : !jfa.slot<128x128xf8E4M3FN, swizzle 128>, !jfa.slot<256x128xf8E5M2, swizzle 128>, !jfa.tmem<128x256xf32>
}

// -----

// tcgen05 transposes 8-bit operands: an M-major e4m3 A (the transpose of a
// 128x128 slot: K rows of 128 bytes), a K-major e4m3 B of 64 rows.
// Descriptor: f32 D (1 << 4), E4M3 A and B (0), transposed A (1 << 15),
// N = 64 (8 << 17), M = 128 (8 << 24) = 135299088. A's k steps are 32
// stored rows of 128 bytes: 4096 bytes, 256 units; B's 32 bytes, 2 units.
// CHECK-LABEL: llvm.func @tcgen05_m_major_a
// CHECK: %[[IDESC:.*]] = llvm.mlir.constant(135299088 : i32) : i32
// CHECK: "add.s64 $0, $1, 0;"
// CHECK: "add.s64 $0, $1, 0;"
// CHECK-NEXT: nvvm.tcgen05.mma %{{.*}}, %[[IDESC]], %{{.*}}kind = #nvvm.tcgen05_mma_kind<f8f6f4>
// CHECK: "add.s64 $0, $1, 256;"
// CHECK: "add.s64 $0, $1, 2;"
// CHECK-NEXT: nvvm.tcgen05.mma
// CHECK: "add.s64 $0, $1, 768;"
// CHECK: "add.s64 $0, $1, 6;"
// CHECK-NEXT: nvvm.tcgen05.mma
// CHECK-NOT: nvvm.tcgen05.mma
jfa.kernel @tcgen05_m_major_a() warps(4) {
  %a = jfa.local_alloc {offset = 0 : i64} : !jfa.smem<1 x 128x128xf8E4M3FN, swizzle 128>
  %b = jfa.local_alloc {offset = 16384 : i64} : !jfa.smem<1 x 64x128xf8E4M3FN, swizzle 128>
  %acc = jfa.tmem_alloc {offset = 24576 : i64} : !jfa.tmem<128x64xf32>
  %c0 = arith.constant 0 : i32
  %sa = jfa.slot %a[%c0] : !jfa.smem<1 x 128x128xf8E4M3FN, swizzle 128>, i32
  %sb = jfa.slot %b[%c0] : !jfa.smem<1 x 64x128xf8E4M3FN, swizzle 128>, i32
  %at = jfa.transpose %sa : !jfa.slot<128x128xf8E4M3FN, swizzle 128>
  %true = arith.constant true
  jfa.tc_dot %at, %sb, %acc, %true : !jfa.slot<128x128xf8E4M3FN, swizzle 128, transposed>, !jfa.slot<64x128xf8E4M3FN, swizzle 128>, !jfa.tmem<128x64xf32>
}
