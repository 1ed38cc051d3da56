// RUN: jfa-opt %s --split-input-file --jfa-allocate-shared-memory --jfa-distribute-tiles --jfa-lower-async-tasks --jfa-convert-to-llvm | FileCheck %s
// GlobalMemoryToLLVM.cpp: a scalar load and store, the row-clipped store of a register
// tile, and a ring's slot and phase.

// CHECK-LABEL: llvm.func @load_scalar
// CHECK: %[[A:.*]] = llvm.getelementptr %arg0[%arg1] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
// CHECK-NEXT: %[[X:.*]] = llvm.load %[[A]] : !llvm.ptr<1> -> i32
// CHECK: %[[B:.*]] = llvm.getelementptr %arg2[%[[X]]] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
// CHECK-NEXT: llvm.load %[[B]] : !llvm.ptr<1> -> f32
jfa.kernel @load_scalar(%offsets: !jfa.ptr<i32>, %b: i32, %scales: !jfa.ptr<f32>) warps(1) {
  %x = jfa.load %offsets[%b] : !jfa.ptr<i32> -> i32
  %y = jfa.load %scales[%x] : !jfa.ptr<f32> -> f32
}

// -----

// Every thread stores its own value at its own index (a scatter).
// CHECK-LABEL: llvm.func @store_scalar
// CHECK: %[[A:.*]] = llvm.getelementptr %arg0[%[[I:.*]]] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
// CHECK-NEXT: llvm.store %[[V:.*]], %[[A]] : i32, !llvm.ptr<1>
// CHECK: %[[B:.*]] = llvm.getelementptr %arg1[%arg2] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, bf16
// CHECK-NEXT: llvm.store %{{.*}}, %[[B]] : bf16, !llvm.ptr<1>
jfa.kernel @store_scalar(%list: !jfa.ptr<i32>, %out: !jfa.ptr<bf16>, %i: i32) warps(4) {
  %tid = jfa.thread_id
  %at = arith.addi %tid, %i : i32
  jfa.store %tid, %list[%at] : i32, !jfa.ptr<i32>
  %x = arith.constant 1.5 : bf16
  jfa.store %x, %out[%i] : bf16, !jfa.ptr<bf16>
}

// -----

// wgmma layout, 64x16 bf16 over 4 warps: a thread holds 2 consecutive
// columns in each of rows base and base + 8 (and again 8 columns on), so it
// stores 4-byte pairs, each guarded by its row's bound:
//   index = offset + row * stride + col.
// CHECK-LABEL: llvm.func @store_tile_wgmma
// CHECK: %[[IN:.*]] = llvm.icmp "slt" %[[ROW:.*]], %arg3 : i32
// CHECK-NEXT: %[[RS:.*]] = llvm.mul %[[ROW]], %arg2 : i32
// CHECK-NEXT: %[[RC:.*]] = llvm.add %[[RS]], %{{.*}} : i32
// CHECK-NEXT: %[[IDX:.*]] = llvm.add %arg1, %[[RC]] : i32
// CHECK-NEXT: %[[A:.*]] = llvm.getelementptr %arg0[%[[IDX]]] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, bf16
// CHECK: scf.if %[[IN]] {
// CHECK-NEXT: llvm.store %{{.*}}, %[[A]] {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<1>
// CHECK-COUNT-3: llvm.store %{{.*}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<1>
// CHECK-NOT: llvm.store
// CHECK: llvm.return
jfa.kernel @store_tile_wgmma(%out: !jfa.ptr<bf16>, %offset: i32, %stride: i32, %rows: i32) warps(4) {
  %t = arith.constant dense<1.0> : tensor<64x16xbf16, #jfa.wgmma_acc>
  jfa.store_tile %t, %out[%offset] stride(%stride) rows(%rows) : tensor<64x16xbf16, #jfa.wgmma_acc>, !jfa.ptr<bf16>
}

// -----

// rows(%count) from(%first): each run's guard is row < count and row >=
// first (a tile placed on a block grid that starts before its sequence).
// CHECK-LABEL: llvm.func @store_tile_from
// CHECK: %[[BELOW:.*]] = llvm.icmp "slt" %[[ROW:.*]], %arg3 : i32
// CHECK-NEXT: %[[ABOVE:.*]] = llvm.icmp "sge" %[[ROW]], %arg4 : i32
// CHECK-NEXT: %[[IN:.*]] = llvm.and %[[BELOW]], %[[ABOVE]] : i1
// CHECK: scf.if %[[IN]] {
// CHECK-NEXT: llvm.store %{{.*}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<1>
// The atomic adds' rows are guarded the same way.
// CHECK-LABEL: llvm.func @store_tile_add_from
// CHECK: llvm.icmp "slt" %[[AROW:.*]], %arg3 : i32
// CHECK-NEXT: llvm.icmp "sge" %[[AROW]], %arg4 : i32
// CHECK-NEXT: %[[AIN:.*]] = llvm.and
// CHECK: scf.if %[[AIN]] {
// CHECK: llvm.inline_asm has_side_effects "red.global.add.v2.f32
jfa.kernel @store_tile_from(%out: !jfa.ptr<bf16>, %offset: i32, %stride: i32, %rows: i32, %first: i32) warps(4) {
  %t = arith.constant dense<1.0> : tensor<64x16xbf16, #jfa.wgmma_acc>
  jfa.store_tile %t, %out[%offset] stride(%stride) rows(%rows) from(%first) : tensor<64x16xbf16, #jfa.wgmma_acc>, !jfa.ptr<bf16>
}
jfa.kernel @store_tile_add_from(%out: !jfa.ptr<f32>, %offset: i32, %stride: i32, %rows: i32, %first: i32) warps(4) {
  %t = arith.constant dense<1.0> : tensor<64x16xf32, #jfa.wgmma_acc>
  jfa.store_tile %t, %out[%offset] stride(%stride) rows(%rows) from(%first) add : tensor<64x16xf32, #jfa.wgmma_acc>, !jfa.ptr<f32>
}

// -----

// #jfa.blocked with 2 columns: a thread's 4 elements span two rows, so it
// stores two 2-element runs, one per row (a chunk never runs past its row).
// CHECK-LABEL: llvm.func @store_tile_blocked_narrow
// CHECK-COUNT-2: llvm.store {{.*}} : vector<2xf32>, !llvm.ptr<1>
// CHECK-NOT: llvm.store
// CHECK: llvm.return
jfa.kernel @store_tile_blocked_narrow(%out: !jfa.ptr<f32>, %offset: i32, %stride: i32, %rows: i32) warps(4) {
  %t = arith.constant dense<1.0> : tensor<256x2xf32, #jfa.blocked>
  jfa.store_tile %t, %out[%offset] stride(%stride) rows(%rows) : tensor<256x2xf32, #jfa.blocked>, !jfa.ptr<f32>
}

// -----

// Slot n mod 3, phase (n / 3) mod 2.
// CHECK-LABEL: llvm.func @ring
// CHECK-DAG: %[[THREE:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-DAG: %[[SLOT:.*]] = llvm.urem %arg0, %[[THREE]] : i32
// CHECK-DAG: %[[ROUND:.*]] = llvm.udiv %arg0, %{{.*}} : i32
// CHECK: %[[PHASE:.*]] = llvm.and %[[ROUND]], %{{.*}} : i32
// CHECK: llvm.getelementptr %arg1[%[[SLOT]]]
// CHECK: llvm.getelementptr %arg1[%[[PHASE]]]
jfa.kernel @ring(%n: i32, %out: !jfa.ptr<i32>) warps(1) {
  %slot, %phase = jfa.ring_position %n stages(3) : i32
  %a = jfa.load %out[%slot] : !jfa.ptr<i32> -> i32
  %b = jfa.load %out[%phase] : !jfa.ptr<i32> -> i32
}

// -----

// With `add`: the stores' runs, each one atomic add under its row's guard
// at offset + row * stride + col: a wgmma accumulator's column pairs as
// red.global.add.v2.f32 (inline PTX: NVPTX has no vector atomics).
// CHECK-LABEL: llvm.func @store_tile_add
// CHECK: llvm.icmp "slt"
// CHECK: llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
// CHECK: scf.if
// One address per row; the row's other runs at constant byte offsets.
// CHECK: llvm.inline_asm has_side_effects "red.global.add.v2.f32 [$0], {$1, $2};", "l,f,f" %[[ROW:[0-9]+]], %{{.*}}, %{{.*}} : (!llvm.ptr<1>, f32, f32) -> ()
// CHECK: llvm.inline_asm has_side_effects "red.global.add.v2.f32 [$0+32], {$1, $2};", "l,f,f" %[[ROW]], %{{.*}}, %{{.*}} : (!llvm.ptr<1>, f32, f32) -> ()
// CHECK-NOT: llvm.store
// CHECK-NOT: llvm.atomicrmw
// CHECK-LABEL: llvm.func @store_tile_add_rows
jfa.kernel @store_tile_add(%out: !jfa.ptr<f32>, %offset: i32, %stride: i32, %rows: i32) warps(4) {
  %t = arith.constant dense<1.0> : tensor<64x16xf32, #jfa.wgmma_acc>
  jfa.store_tile %t, %out[%offset] stride(%stride) rows(%rows) add : tensor<64x16xf32, #jfa.wgmma_acc>, !jfa.ptr<f32>
}

// A row per thread (the tensor-memory layout): 16-byte runs, v4.
// CHECK: llvm.inline_asm has_side_effects "red.global.add.v4.f32 [$0], {$1, $2, $3, $4};", "l,f,f,f,f" %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (!llvm.ptr<1>, f32, f32, f32, f32) -> ()
// CHECK-NOT: llvm.atomicrmw
// CHECK-LABEL: llvm.func @store_tile_add_scalar
jfa.kernel @store_tile_add_rows(%out: !jfa.ptr<f32>, %offset: i32, %stride: i32, %rows: i32) warps(4) {
  %t = arith.constant dense<1.0> : tensor<128x8xf32, #jfa.tmem_row>
  jfa.store_tile %t, %out[%offset] stride(%stride) rows(%rows) add : tensor<128x8xf32, #jfa.tmem_row>, !jfa.ptr<f32>
}

// One column a thread: runs of one element, the scalar atomic
// (red.global.add.f32, its result unused).
// CHECK: llvm.atomicrmw fadd %{{.*}}, %{{.*}} monotonic : !llvm.ptr<1>, f32
// CHECK-NOT: llvm.inline_asm
jfa.kernel @store_tile_add_scalar(%out: !jfa.ptr<f32>, %offset: i32, %stride: i32, %rows: i32) warps(4) {
  %t = arith.constant dense<1.0> : tensor<128x1xf32, #jfa.blocked>
  jfa.store_tile %t, %out[%offset] stride(%stride) rows(%rows) add : tensor<128x1xf32, #jfa.blocked>, !jfa.ptr<f32>
}

// -----

// The dynamic work queue: one thread (the task's first) adds to the counter,
// stores the old value into the slot and arrives (release); every thread
// reads the slot back.
// CHECK-LABEL: llvm.func @work_queue
// CHECK: scf.if
// CHECK: %[[C:.*]] = llvm.getelementptr %arg0[%{{.*}}] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
// CHECK-NEXT: %[[OLD:.*]] = llvm.atomicrmw add %[[C]], %{{.*}} monotonic : !llvm.ptr<1>, i32
// CHECK-NEXT: llvm.store %[[OLD]], %[[SLOT:.*]] : i32, !llvm.ptr<3>
// CHECK-NEXT: nvvm.mbarrier.arrive
// CHECK: nvvm.mbarrier.try_wait %
// CHECK: %[[E:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
// CHECK-NEXT: llvm.load %[[E]] : !llvm.ptr<3> -> i32
jfa.kernel @work_queue(%counter: !jfa.ptr<i32>) warps(4) {
  %next = jfa.local_alloc : !jfa.smem<1 x 1xi32>
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %slot = jfa.slot %next[%c0] : !jfa.smem<1 x 1xi32>, i32
  %full0 = jfa.barrier %full[%c0] : !jfa.mbarriers<1>, i32
  jfa.atomic_fetch_add %counter[%c0], %c1 into %slot arrive %full0 : !jfa.ptr<i32>, !jfa.slot<1xi32>
  jfa.barrier_wait %full0, %c0
  %unit = jfa.load_scalar %slot[%c0] : !jfa.slot<1xi32> -> i32
}
