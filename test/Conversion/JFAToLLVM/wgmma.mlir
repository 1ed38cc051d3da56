// RUN: jfa-opt %s --split-input-file --jfa-convert-to-llvm | FileCheck %s
// WGMMAToLLVM.cpp: a warpgroup_dot is wgmma.fence, one m64nNk16 per 16 of K
// and a commit. Matrix descriptors: (addr & 0x3FFFF) >> 4, LBO 1 (bit 16),
// SBO 8 rows of `swizzle` bytes >> 4 (bit 32), swizzle mode at bit 62
// (128B = 1, 64B = 2):
//   128B: 1 << 16 | 64 << 32 | 1 << 62 = 4611686293305360384
//   64B:  1 << 16 | 32 << 32 | 2 << 62 = -9223371899415756800 (as i64)

// Both operands in shared memory. Warpgroup 1 reads rows [64, 128) of A:
// A's base is + 1 * 64 rows * 128 bytes; each k16 step is 32 bytes along K.
// CHECK-LABEL: llvm.func @smem_ab
// CHECK: %[[SA:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<16384 x i8>
// CHECK-NEXT: %[[SB:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<16384 x i8>
// CHECK: %[[G:.*]] = llvm.zext %[[WG:.*]] : i32 to i64
// CHECK-NEXT: %[[ROWS:.*]] = llvm.mlir.constant(8192 : i64) : i64
// CHECK-NEXT: %[[GOFF:.*]] = llvm.mul %[[G]], %[[ROWS]] : i64
// CHECK-NEXT: %[[PA:.*]] = llvm.ptrtoint %[[SA]] : !llvm.ptr<3> to i64
// CHECK-NEXT: %[[BASEA:.*]] = llvm.add %[[PA]], %[[GOFF]] : i64
// CHECK-NEXT: %[[BASEB:.*]] = llvm.ptrtoint %[[SB]] : !llvm.ptr<3> to i64
// CHECK-NEXT: nvvm.wgmma.fence.aligned
// k = 0: B's descriptor, then A's.
// CHECK-NEXT: %[[K:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-NEXT: %[[AB:.*]] = llvm.add %[[BASEB]], %[[K]] : i64
// CHECK-NEXT: %[[M:.*]] = llvm.mlir.constant(262143 : i64) : i64
// CHECK-NEXT: %[[AND:.*]] = llvm.and %[[AB]], %[[M]] : i64
// CHECK-NEXT: %[[FOUR:.*]] = llvm.mlir.constant(4 : i64) : i64
// CHECK-NEXT: %[[START:.*]] = llvm.lshr %[[AND]], %[[FOUR]] : i64
// CHECK-NEXT: %[[FIXED:.*]] = llvm.mlir.constant(4611686293305360384 : i64) : i64
// CHECK-NEXT: %[[DB0:.*]] = llvm.or %[[START]], %[[FIXED]] : i64
// CHECK-NEXT: %[[K:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-NEXT: %[[AA:.*]] = llvm.add %[[BASEA]], %[[K]] : i64
// CHECK: %[[DA0:.*]] = llvm.or %{{.*}}, %{{.*}} : i64
// CHECK-NEXT: %[[D0:.*]] = nvvm.wgmma.mma_async %[[DA0]], %[[DB0]], %{{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// k = 1: 32 bytes on in both operands; the chain threads the accumulator.
// CHECK: %[[K:.*]] = llvm.mlir.constant(32 : i64) : i64
// CHECK-NEXT: llvm.add %[[BASEB]], %[[K]] : i64
// CHECK: llvm.mlir.constant(4611686293305360384 : i64)
// CHECK: %[[K:.*]] = llvm.mlir.constant(32 : i64) : i64
// CHECK-NEXT: llvm.add %[[BASEA]], %[[K]] : i64
// CHECK: %[[D1:.*]] = nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[D0]], <m = 64, n = 128, k = 16>
// CHECK: llvm.mlir.constant(64 : i64)
// CHECK: %[[D2:.*]] = nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[D1]], <m = 64, n = 128, k = 16>
// CHECK: llvm.mlir.constant(96 : i64)
// CHECK: %[[D3:.*]] = nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[D2]], <m = 64, n = 128, k = 16>
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
// CHECK: llvm.mlir.constant(4096 : i64)
// CHECK-NEXT: llvm.mul %{{.*}}, %{{.*}} : i64
// CHECK-NEXT: llvm.ptrtoint %{{.*}} : !llvm.ptr<3> to i64
// CHECK-NEXT: llvm.add %{{.*}}, %{{.*}} : i64
// CHECK-NEXT: %[[BASEB:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr<3> to i64
// CHECK-NEXT: nvvm.wgmma.fence.aligned
// CHECK: llvm.mlir.constant(-9223371899415756800 : i64)
// CHECK: llvm.mlir.constant(-9223371899415756800 : i64)
// CHECK: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %{{.*}}, <m = 64, n = 32, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// CHECK: %[[K:.*]] = llvm.mlir.constant(1024 : i64) : i64
// CHECK-NEXT: llvm.add %[[BASEB]], %[[K]] : i64
// CHECK: %[[K:.*]] = llvm.mlir.constant(32 : i64) : i64
// CHECK-NEXT: llvm.add %{{.*}}, %[[K]] : i64
// CHECK: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %{{.*}}, <m = 64, n = 32, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
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
  %acc = arith.constant dense<0.0> : vector<16xf32>
  %d = jfa.warpgroup_dot %sa, %bt, %acc, %wg : !jfa.slot<64x32xf16, swizzle 64>, !jfa.slot<32x32xf16, swizzle 64, transposed>, vector<16xf32>
}

// -----

// A in registers (the #jfa.wgmma_acc fragment): inline PTX, with the 4 b32
// A registers of step kk packed from fragment elements 8kk .. 8kk + 7, the
// B descriptor as an "l" operand and scale-d as an immediate.
// CHECK-LABEL: llvm.func @register_a
// CHECK: %[[P:.*]] = arith.constant dense<1.000000e+00> : vector<16xbf16>
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: %[[DB:.*]] = llvm.or %{{.*}}, %{{.*}} : i64
// CHECK: %[[I:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: llvm.extractelement %[[P]][%[[I]] : i32] : vector<16xbf16>
// CHECK: %[[R0:.*]] = llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// CHECK: %[[R1:.*]] = llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// CHECK: %[[R2:.*]] = llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// CHECK: %[[I:.*]] = llvm.mlir.constant(7 : i32) : i32
// CHECK-NEXT: llvm.extractelement %[[P]][%[[I]] : i32] : vector<16xbf16>
// CHECK: %[[R3:.*]] = llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: llvm.inline_asm has_side_effects "{\0A.reg .pred p;\0Asetp.ne.b32 p, $69, 0;\0Awgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {$0, $1, {{.*}}, $31}, {$64, $65, $66, $67}, $68, p, 1, 1, 0;\0A}\0A", "=f,=f,{{(=f,)+}}0,1,{{([0-9]+,)+}}31,r,r,r,r,l,n"
// CHECK-SAME: %[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[DB]], %[[ONE]] : ({{(f32, )+}}i32, i32, i32, i32, i64, i32)
// Step 1: 32 bytes on in B, fragment elements 8 .. 15.
// CHECK: %[[K:.*]] = llvm.mlir.constant(32 : i64) : i64
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
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: llvm.add %[[BASEA]], %{{.*}} : i64
// CHECK: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %{{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <col>], B[<bf16>, <one>, <col>]
// CHECK: llvm.mlir.constant(2048 : i64) : i64
// CHECK-NEXT: llvm.add %[[BASEA]], %{{.*}} : i64
// CHECK: nvvm.wgmma.mma_async {{.*}} A[<bf16>, <one>, <col>], B[<bf16>, <one>, <col>]
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
