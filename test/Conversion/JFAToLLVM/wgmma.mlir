// RUN: jfa-opt %s --split-input-file --jfa-convert-to-llvm | FileCheck %s
// WGMMAToLLVM.cpp: a warpgroup_dot is wgmma.fence, one m64nNk16 per 16 of K
// and a commit. Matrix descriptors: the low word, (addr & 0x3FFFF) >> 4 with
// LBO 1 (bit 16), is computed once per operand; each k step's descriptor is
// an asm block with side effects at its wgmma (so that LLVM cannot hoist one
// register per step out of a loop) adding the step's offset >> 4 and setting
// the high word: SBO 8 rows of `swizzle` bytes >> 4, swizzle mode at bit 30
// (128B = 1, 64B = 2):
//   128B: 64 | 1 << 30 = 1073741888
//   64B:  32 | 2 << 30 = 2147483680
// A zero accumulator is not materialized: the first step runs with scale-d
// zero on a poison struct.

// Both operands in shared memory. Warpgroup 1 reads rows [64, 128) of A:
// A's base is + 1 * 64 rows * 128 bytes; each k16 step is 32 bytes along K
// (2 in the descriptor's 16-byte units).
// CHECK-LABEL: llvm.func @smem_ab
// CHECK: %[[SA:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<16384 x i8>
// CHECK-NEXT: %[[SB:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<16384 x i8>
// CHECK: %[[POISON:.*]] = llvm.mlir.poison : !llvm.struct<(f32
// CHECK-NOT: llvm.insertvalue
// CHECK: %[[G:.*]] = llvm.zext %[[WG:.*]] : i32 to i64
// CHECK-NEXT: %[[ROWS:.*]] = llvm.mlir.constant(8192 : i64) : i64
// CHECK-NEXT: %[[GOFF:.*]] = llvm.mul %[[G]], %[[ROWS]] : i64
// CHECK-NEXT: %[[PA:.*]] = llvm.ptrtoint %[[SA]] : !llvm.ptr<3> to i64
// CHECK-NEXT: %[[BASEA:.*]] = llvm.add %[[PA]], %[[GOFF]] : i64
// CHECK-NEXT: %[[BASEB:.*]] = llvm.ptrtoint %[[SB]] : !llvm.ptr<3> to i64
// B's low word, then A's.
// CHECK-NEXT: %[[B32:.*]] = llvm.trunc %[[BASEB]] : i64 to i32
// CHECK-NEXT: %[[M:.*]] = llvm.mlir.constant(262143 : i32) : i32
// CHECK-NEXT: %[[AND:.*]] = llvm.and %[[B32]], %[[M]] : i32
// CHECK-NEXT: %[[FOUR:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK-NEXT: %[[START:.*]] = llvm.lshr %[[AND]], %[[FOUR]] : i32
// CHECK-NEXT: %[[LBO:.*]] = llvm.mlir.constant(65536 : i32) : i32
// CHECK-NEXT: %[[LOWB:.*]] = llvm.or %[[START]], %[[LBO]] : i32
// CHECK-NEXT: %[[A32:.*]] = llvm.trunc %[[BASEA]] : i64 to i32
// CHECK: %[[LOWA:.*]] = llvm.or %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: nvvm.wgmma.fence.aligned
// k = 0: scale-d zero.
// CHECK-NEXT: %[[DB0:.*]] = llvm.inline_asm has_side_effects "{\0A.reg .b32 lo, hi;\0Aadd.u32 lo, $1, 0;\0Amov.b32 hi, 1073741888;\0Amov.b64 $0, {lo, hi};\0A}\0A", "=l,r" %[[LOWB]] : (i32) -> i64
// CHECK-NEXT: %[[DA0:.*]] = llvm.inline_asm has_side_effects "{{.*}}add.u32 lo, $1, 0;{{.*}}", "=l,r" %[[LOWA]] : (i32) -> i64
// CHECK-NEXT: %[[D0:.*]] = nvvm.wgmma.mma_async %[[DA0]], %[[DB0]], %[[POISON]], <m = 64, n = 128, k = 16>, D[<f32>, <zero>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// k = 1: 32 bytes on in both operands; the chain threads the accumulator.
// CHECK-NEXT: llvm.inline_asm has_side_effects "{{.*}}add.u32 lo, $1, 2;{{.*}}", "=l,r" %[[LOWB]]
// CHECK-NEXT: llvm.inline_asm has_side_effects "{{.*}}add.u32 lo, $1, 2;{{.*}}", "=l,r" %[[LOWA]]
// CHECK-NEXT: %[[D1:.*]] = nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[D0]], <m = 64, n = 128, k = 16>, D[<f32>, <one>]
// CHECK: add.u32 lo, $1, 4;
// CHECK: %[[D2:.*]] = nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[D1]], <m = 64, n = 128, k = 16>, D[<f32>, <one>]
// CHECK: add.u32 lo, $1, 6;
// CHECK: %[[D3:.*]] = nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[D2]], <m = 64, n = 128, k = 16>, D[<f32>, <one>]
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: nvvm.wgmma.mma_async
// The result fragment is the struct, element for element.
// CHECK: llvm.extractvalue %[[D3]][63]
// async_dot_wait: the wait, then every element pinned behind an empty asm.
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-COUNT-64: llvm.inline_asm has_side_effects "", "=f,0" %{{.*}} : (f32) -> f32
// CHECK-NOT: llvm.inline_asm
// CHECK: llvm.return
jfa.kernel @smem_ab() warps(8) {
  %a = jfa.local_alloc {offset = 0 : i64} : !jfa.smem<1 x 128x64xbf16, swizzle 128>
  %b = jfa.local_alloc {offset = 16384 : i64} : !jfa.smem<1 x 128x64xbf16, swizzle 128>
  %c0 = arith.constant 0 : i32
  %sa = jfa.slot %a[%c0] : !jfa.smem<1 x 128x64xbf16, swizzle 128>, i32
  %sb = jfa.slot %b[%c0] : !jfa.smem<1 x 128x64xbf16, swizzle 128>, i32
  %wg = arith.constant 1 : i32
  %acc = arith.constant dense<0.0> : vector<64xf32>
  %d = jfa.warpgroup_dot %sa, %sb, %acc, %wg : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, vector<64xf32>
  %w = jfa.async_dot_wait pending(0) (%d) : vector<64xf32>
}

// -----

// f16, 64-byte swizzle, and a transposed (N-major) B: B's layout is row
// (wgmma's transpose-B bit) and its k16 step is 16 stored rows of 64 bytes
// = 1024 bytes, while A's is 32 bytes. N = 32, K = 32: two m64n32k16.
// CHECK-LABEL: llvm.func @sw64_transposed_b
// A non-zero accumulator goes into the struct and every step accumulates.
// CHECK-COUNT-16: llvm.insertvalue
// CHECK: llvm.mlir.constant(4096 : i64)
// CHECK-NEXT: llvm.mul %{{.*}}, %{{.*}} : i64
// CHECK-NEXT: llvm.ptrtoint %{{.*}} : !llvm.ptr<3> to i64
// CHECK-NEXT: llvm.add %{{.*}}, %{{.*}} : i64
// CHECK-NEXT: %[[BASEB:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr<3> to i64
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NEXT: llvm.inline_asm has_side_effects "{{.*}}add.u32 lo, $1, 0;\0Amov.b32 hi, 2147483680;{{.*}}"
// CHECK-NEXT: llvm.inline_asm has_side_effects "{{.*}}add.u32 lo, $1, 0;\0Amov.b32 hi, 2147483680;{{.*}}"
// CHECK-NEXT: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %{{.*}}, <m = 64, n = 32, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// B's step: 1024 bytes = 64 units; A's: 32 bytes = 2.
// CHECK-NEXT: llvm.inline_asm has_side_effects "{{.*}}add.u32 lo, $1, 64;{{.*}}"
// CHECK-NEXT: llvm.inline_asm has_side_effects "{{.*}}add.u32 lo, $1, 2;{{.*}}"
// CHECK-NEXT: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %{{.*}}, <m = 64, n = 32, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: llvm.return
jfa.kernel @sw64_transposed_b() warps(4) {
  %a = jfa.local_alloc {offset = 0 : i64} : !jfa.smem<1 x 64x32xf16, swizzle 64>
  %b = jfa.local_alloc {offset = 4096 : i64} : !jfa.smem<1 x 32x32xf16, swizzle 64>
  %c0 = arith.constant 0 : i32
  %sa = jfa.slot %a[%c0] : !jfa.smem<1 x 64x32xf16, swizzle 64>, i32
  %sb = jfa.slot %b[%c0] : !jfa.smem<1 x 32x32xf16, swizzle 64>, i32
  %bt = jfa.transpose %sb : !jfa.slot<32x32xf16, swizzle 64>
  %wg = arith.constant 0 : i32
  %acc = arith.constant dense<1.0> : vector<16xf32>
  %d = jfa.warpgroup_dot %sa, %bt, %acc, %wg : !jfa.slot<64x32xf16, swizzle 64>, !jfa.slot<32x32xf16, swizzle 64, transposed>, vector<16xf32>
}

// -----

// A in registers (the #jfa.wgmma_acc fragment): inline PTX, with the 4 b32
// A registers of step kk packed from fragment elements 8kk .. 8kk + 7, the
// B descriptor as an "l" operand and scale-d as an immediate.
// CHECK-LABEL: llvm.func @register_a
// CHECK: %[[P:.*]] = arith.constant dense<1.000000e+00> : vector<16xbf16>
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NEXT: %[[DB:.*]] = llvm.inline_asm has_side_effects "{{.*}}add.u32 lo, $1, 0;{{.*}}", "=l,r"
// CHECK: %[[I:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: llvm.extractelement %[[P]][%[[I]] : i32] : vector<16xbf16>
// CHECK: %[[R0:.*]] = llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// CHECK: %[[R1:.*]] = llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// CHECK: %[[R2:.*]] = llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// CHECK: %[[I:.*]] = llvm.mlir.constant(7 : i32) : i32
// CHECK-NEXT: llvm.extractelement %[[P]][%[[I]] : i32] : vector<16xbf16>
// CHECK: %[[R3:.*]] = llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// The accumulator is zero: scale-d is 0 in the first step, 1 after it.
// CHECK: %[[SCALED:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: llvm.inline_asm has_side_effects "{\0A.reg .pred p;\0Asetp.ne.b32 p, $69, 0;\0Awgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {$0, $1, {{.*}}, $31}, {$64, $65, $66, $67}, $68, p, 1, 1, 0;\0A}\0A", "=f,=f,{{(=f,)+}}0,1,{{([0-9]+,)+}}31,r,r,r,r,l,n"
// CHECK-SAME: %[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[DB]], %[[SCALED]] : ({{(f32, )+}}i32, i32, i32, i32, i64, i32)
// Step 1: 32 bytes (2 units) on in B, fragment elements 8 .. 15.
// CHECK: llvm.inline_asm has_side_effects "{{.*}}add.u32 lo, $1, 2;{{.*}}", "=l,r"
// CHECK: %[[I:.*]] = llvm.mlir.constant(8 : i32) : i32
// CHECK-NEXT: llvm.extractelement %[[P]][%[[I]] : i32] : vector<16xbf16>
// CHECK: %[[I:.*]] = llvm.mlir.constant(15 : i32) : i32
// CHECK-NEXT: llvm.extractelement %[[P]][%[[I]] : i32] : vector<16xbf16>
// CHECK: llvm.inline_asm has_side_effects {{.*}}wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: wgmma.mma_async
// CHECK: llvm.return
jfa.kernel @register_a() warps(4) {
  %b = jfa.local_alloc {offset = 0 : i64} : !jfa.smem<1 x 64x32xbf16, swizzle 64>
  %c0 = arith.constant 0 : i32
  %sb = jfa.slot %b[%c0] : !jfa.smem<1 x 64x32xbf16, swizzle 64>, i32
  %wg = arith.constant 0 : i32
  %p = arith.constant dense<1.0> : vector<16xbf16>
  %acc = arith.constant dense<0.0> : vector<32xf32>
  %d = jfa.warpgroup_dot %p, %sb, %acc, %wg : vector<16xbf16>, !jfa.slot<64x32xbf16, swizzle 64>, vector<32xf32>
}

// -----

// A transposed (M-major) A, as the attention backward reads dS for
// dK = dS^T Q: A's layout is col (wgmma's transpose-A bit), its base is the
// slot itself (one warpgroup's 64 rows; no per-warpgroup offset) and its k16
// step is 16 stored rows of 128 bytes = 2048 bytes. B is K-major: 32 bytes.
// CHECK-LABEL: llvm.func @transposed_a
// CHECK-NOT: llvm.zext
// CHECK: %[[BASEA:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr<3> to i64
// CHECK: llvm.trunc %[[BASEA]] : i64 to i32
// CHECK: %[[LOWA:.*]] = llvm.or %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: nvvm.wgmma.fence.aligned
// CHECK-NEXT: llvm.inline_asm has_side_effects "{{.*}}add.u32 lo, $1, 0;{{.*}}"
// CHECK-NEXT: llvm.inline_asm has_side_effects "{{.*}}add.u32 lo, $1, 0;{{.*}}", "=l,r" %[[LOWA]]
// CHECK-NEXT: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %{{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <zero>], A[<bf16>, <one>, <col>], B[<bf16>, <one>, <col>]
// 2048 bytes = 128 units.
// CHECK-NEXT: llvm.inline_asm has_side_effects "{{.*}}add.u32 lo, $1, 2;{{.*}}"
// CHECK-NEXT: llvm.inline_asm has_side_effects "{{.*}}add.u32 lo, $1, 128;{{.*}}", "=l,r" %[[LOWA]]
// CHECK-NEXT: nvvm.wgmma.mma_async {{.*}} D[<f32>, <one>], A[<bf16>, <one>, <col>], B[<bf16>, <one>, <col>]
jfa.kernel @transposed_a() warps(4) {
  %a = jfa.local_alloc {offset = 0 : i64} : !jfa.smem<1 x 32x64xbf16, swizzle 128>
  %b = jfa.local_alloc {offset = 4096 : i64} : !jfa.smem<1 x 64x32xbf16, swizzle 64>
  %c0 = arith.constant 0 : i32
  %sa = jfa.slot %a[%c0] : !jfa.smem<1 x 32x64xbf16, swizzle 128>, i32
  %at = jfa.transpose %sa : !jfa.slot<32x64xbf16, swizzle 128>
  %sb = jfa.slot %b[%c0] : !jfa.smem<1 x 64x32xbf16, swizzle 64>, i32
  %wg = arith.constant 0 : i32
  %acc = arith.constant dense<0.0> : vector<32xf32>
  %d = jfa.warpgroup_dot %at, %sb, %acc, %wg : !jfa.slot<64x32xbf16, swizzle 128, transposed>, !jfa.slot<64x32xbf16, swizzle 64>, vector<32xf32>
}

// -----

// Blocked slots (rows of 128 bf16: two 64-column blocks of 64 rows x 128
// bytes = 8192 bytes each). A and B K-major over K = 128: steps 0-3 are 32
// bytes apart in block 0, steps 4-7 start in block 1 (8192 bytes = 512
// units on). The N-major B of dV = P^T dO (N = 128 over two blocks): the
// leading-dimension offset is the block distance, 8192 >> 4 = 512 at bit
// 16 (33554432); its k16 step is 16 stored rows of 128 bytes (128 units).
// CHECK-LABEL: llvm.func @blocked_operands
// CHECK: llvm.mlir.constant(65536 : i32)
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NEXT: llvm.inline_asm has_side_effects "{{.*}}add.u32 lo, $1, 0;{{.*}}"
// CHECK-NEXT: llvm.inline_asm has_side_effects "{{.*}}add.u32 lo, $1, 0;{{.*}}"
// CHECK-NEXT: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>
// CHECK: add.u32 lo, $1, 6;
// CHECK: add.u32 lo, $1, 6;
// CHECK: add.u32 lo, $1, 512;
// CHECK-NEXT: {{.*}}add.u32 lo, $1, 512;
// CHECK-NEXT: nvvm.wgmma.mma_async
// CHECK: add.u32 lo, $1, 518;
// CHECK-NEXT: {{.*}}add.u32 lo, $1, 518;
// CHECK-NEXT: nvvm.wgmma.mma_async
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// The N-major B: LBO 512 units.
// CHECK: %[[LBO:.*]] = llvm.mlir.constant(33554432 : i32) : i32
// CHECK-NEXT: %[[LOWB:.*]] = llvm.or %{{.*}}, %[[LBO]] : i32
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NEXT: llvm.inline_asm has_side_effects "{{.*}}add.u32 lo, $1, 0;{{.*}}", "=l,r" %[[LOWB]]
// CHECK-NEXT: llvm.inline_asm
// CHECK-NEXT: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>, D[<f32>, <zero>], A[<bf16>, <one>, <col>], B[<bf16>, <one>, <row>]
// CHECK-NEXT: llvm.inline_asm has_side_effects "{{.*}}add.u32 lo, $1, 128;{{.*}}", "=l,r" %[[LOWB]]
// CHECK: llvm.return
jfa.kernel @blocked_operands() warps(4) {
  %a = jfa.local_alloc {offset = 0 : i64} : !jfa.smem<1 x 64x128xbf16, swizzle 128>
  %b = jfa.local_alloc {offset = 16384 : i64} : !jfa.smem<1 x 64x128xbf16, swizzle 128>
  %p = jfa.local_alloc {offset = 32768 : i64} : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %c0 = arith.constant 0 : i32
  %sa = jfa.slot %a[%c0] : !jfa.smem<1 x 64x128xbf16, swizzle 128>, i32
  %sb = jfa.slot %b[%c0] : !jfa.smem<1 x 64x128xbf16, swizzle 128>, i32
  %sp = jfa.slot %p[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  %wg = arith.constant 0 : i32
  %acc = arith.constant dense<0.0> : vector<32xf32>
  %s = jfa.warpgroup_dot %sa, %sb, %acc, %wg : !jfa.slot<64x128xbf16, swizzle 128>, !jfa.slot<64x128xbf16, swizzle 128>, vector<32xf32>
  %pt = jfa.transpose %sp : !jfa.slot<64x64xbf16, swizzle 128>
  %bt = jfa.transpose %sb : !jfa.slot<64x128xbf16, swizzle 128>
  %acc2 = arith.constant dense<0.0> : vector<64xf32>
  %dv = jfa.warpgroup_dot %pt, %bt, %acc2, %wg : !jfa.slot<64x64xbf16, swizzle 128, transposed>, !jfa.slot<128x64xbf16, swizzle 128, transposed>, vector<64xf32>
}
