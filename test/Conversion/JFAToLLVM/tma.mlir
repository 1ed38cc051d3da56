// RUN: jfa-opt %s --split-input-file --jfa-convert-to-llvm | FileCheck %s
// TMAToLLVM.cpp: tma_load/tma_store are cp.async.bulk.tensor in tile mode
// with the coordinates reversed (JFA's are outermost first, TMA's innermost
// first); a store commits a bulk group; tma_store_wait is the .read wait;
// tma_prefetch is cp.async.bulk.prefetch.tensor, nothing to commit or wait.

// CHECK-LABEL: llvm.func @tma_2d(
// CHECK-SAME: %arg0: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}
// CHECK-SAME: %arg1: i32, %arg2: i32)
// CHECK: %[[SLOT:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<16384 x i8>
// CHECK-NEXT: %[[BAR:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
// CHECK-NEXT: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[SLOT]], %arg0, %[[BAR]], box[%arg2, %arg1] {isCTAOnly = true} : !llvm.ptr<3>, !llvm.ptr
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: nvvm.cp.async.bulk.tensor.global.shared.cta %arg0, %[[SLOT]], box[%arg2, %arg1]
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 1 {read}
// CHECK-NEXT: llvm.return
jfa.kernel @tma_2d(%d: !jfa.tma<64x64xf32>, %row: i32, %col: i32) warps(4) {
  %buf = jfa.local_alloc {offset = 0 : i64} : !jfa.smem<1 x 64x64xf32>
  %bars = jfa.alloc_barriers arrive_count(1) {offset = 16384 : i64} : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x64xf32>, i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  jfa.tma_load %d[%row, %col], %s, %b : !jfa.tma<64x64xf32>, !jfa.slot<64x64xf32>
  jfa.fence_async_shared
  jfa.tma_store %s, %d[%row, %col] : !jfa.slot<64x64xf32>, !jfa.tma<64x64xf32>
  jfa.tma_store_wait pending(1)
}

// -----

// Three coordinates (z, row, col) go out as box[col, row, z].
// CHECK-LABEL: llvm.func @tma_3d(
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg0, %{{.*}}, box[%arg3, %arg2, %arg1] {isCTAOnly = true}
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %arg0, %{{.*}}, box[%arg3, %arg2, %arg1]
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0 {read}
jfa.kernel @tma_3d(%d: !jfa.tma<2x64x32xbf16>, %z: i32, %row: i32, %col: i32) warps(4) {
  %buf = jfa.local_alloc {offset = 0 : i64} : !jfa.smem<1 x 2x64x32xbf16>
  %bars = jfa.alloc_barriers arrive_count(1) {offset = 8192 : i64} : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 2x64x32xbf16>, i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  jfa.tma_load %d[%z, %row, %col], %s, %b : !jfa.tma<2x64x32xbf16>, !jfa.slot<2x64x32xbf16>
  jfa.tma_store %s, %d[%z, %row, %col] : !jfa.slot<2x64x32xbf16>, !jfa.tma<2x64x32xbf16>
  jfa.tma_store_wait pending(0)
}

// -----

// With `add`: TMA's reduce-add (cp.reduce.async.bulk.tensor .add), then the
// same bulk-group commit as a store.
// CHECK-LABEL: llvm.func @tma_store_add(
// CHECK: nvvm.cp.async.bulk.tensor.reduce %arg0, %{{.*}}, box[%arg2, %arg1] {redKind = #nvvm.tma_redux_kind<add>}
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
jfa.kernel @tma_store_add(%d: !jfa.tma<64x64xf32>, %row: i32, %col: i32) warps(4) {
  %buf = jfa.local_alloc {offset = 0 : i64} : !jfa.smem<1 x 64x64xf32>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x64xf32>, i32
  jfa.tma_store %s, %d[%row, %col] add : !jfa.slot<64x64xf32>, !jfa.tma<64x64xf32>
  jfa.tma_store_wait pending(0)
}

// -----

// A blocked slot (64 f32 per row with a 128-byte swizzle: two column blocks
// of 64 rows x 32 f32 = 8192 bytes) moves one box (one block) per copy: the
// second at slot + 8192 and column + 32. A store's copies share one bulk
// group; a load's all complete on its barrier.
// CHECK-LABEL: llvm.func @tma_blocked(
// CHECK: %[[SLOT:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<16384 x i8>
// CHECK: %[[C0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[COL0:.*]] = llvm.add %arg2, %[[C0]] : i32
// CHECK: %[[B0:.*]] = llvm.getelementptr %[[SLOT]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK-NEXT: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[B0]], %arg0, %{{.*}}, box[%[[COL0]], %arg1]
// CHECK: %[[C32:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK-NEXT: %[[COL1:.*]] = llvm.add %arg2, %[[C32]] : i32
// CHECK-NEXT: %[[OFF:.*]] = llvm.mlir.constant(8192 : i32) : i32
// CHECK-NEXT: %[[B1:.*]] = llvm.getelementptr %[[SLOT]][%[[OFF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK-NEXT: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[B1]], %arg0, %{{.*}}, box[%[[COL1]], %arg1]
// CHECK: nvvm.cp.async.bulk.tensor.reduce %arg0, %{{.*}}, box[%{{.*}}, %arg1] {redKind = #nvvm.tma_redux_kind<add>}
// CHECK: nvvm.cp.async.bulk.tensor.reduce %arg0, %{{.*}}, box[%{{.*}}, %arg1] {redKind = #nvvm.tma_redux_kind<add>}
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK-NOT: nvvm.cp.async.bulk
// CHECK: llvm.return
jfa.kernel @tma_blocked(%d: !jfa.tma<64x32xf32, swizzle 128>, %row: i32, %col: i32) warps(4) {
  %buf = jfa.local_alloc {offset = 0 : i64} : !jfa.smem<1 x 64x64xf32, swizzle 128>
  %bars = jfa.alloc_barriers arrive_count(1) {offset = 16384 : i64} : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x64xf32, swizzle 128>, i32
  %bar = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  jfa.tma_load %d[%row, %col], %s, %bar : !jfa.tma<64x32xf32, swizzle 128>, !jfa.slot<64x64xf32, swizzle 128>
  jfa.tma_store %s, %d[%row, %col] add : !jfa.slot<64x64xf32, swizzle 128>, !jfa.tma<64x32xf32, swizzle 128>
}

// -----

// An L2 prefetch: the box's coordinates reversed as a load's, no barrier,
// no bulk group; issued by the first thread (a single-thread op).
// CHECK-LABEL: llvm.func @tma_prefetch(
// CHECK: nvvm.cp.async.bulk.tensor.prefetch %arg0, box[%arg2, %arg1] : !llvm.ptr
// CHECK-NOT: nvvm.cp.async.bulk.commit.group
// CHECK: llvm.return
jfa.kernel @tma_prefetch(%d: !jfa.tma<64x64xbf16, swizzle 128>, %row: i32, %col: i32) warps(4) {
  jfa.tma_prefetch %d[%row, %col] : !jfa.tma<64x64xbf16, swizzle 128>
}

// -----

// Handing TMA's global writes to another CTA: `writes` waits for them (no
// {read}), then the global proxy fence and the GPU-scope acquire-release
// fence (LLVM's device-scope fence, fence.acq_rel.gpu in PTX).
// CHECK-LABEL: llvm.func @tma_store_handover(
// CHECK: nvvm.cp.async.bulk.commit.group
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0{{$}}
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.global>}
// CHECK-NEXT: llvm.fence syncscope("device") acq_rel
jfa.kernel @tma_store_handover(%d: !jfa.tma<64x64xf32>, %row: i32, %col: i32) warps(4) {
  %buf = jfa.local_alloc {offset = 0 : i64} : !jfa.smem<1 x 64x64xf32>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x64xf32>, i32
  jfa.tma_store %s, %d[%row, %col] add : !jfa.slot<64x64xf32>, !jfa.tma<64x64xf32>
  jfa.tma_store_wait pending(0) writes
  jfa.fence_async_global
  jfa.fence_gpu
}
