// RUN: jfa-opt %s --split-input-file --jfa-convert-to-llvm | FileCheck %s
// TMAToLLVM.cpp: jfa.copy_to_cta is one cp.async.bulk from this CTA's
// shared memory into a peer's (shared::cluster.shared::cta), completing its
// bytes on the peer's barrier. The destination slot and the barrier are
// mapped into the peer at the copy (mapa as inline assembly with side
// effects: never hoisted out of a loop); the copy is inline assembly too,
// since the NVVM op takes the barrier as a shared::cta pointer.

// CHECK-LABEL: llvm.func @copy_slot
// CHECK: %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK-NEXT: %[[PEER:.*]] = arith.xori %[[RANK]], %{{.*}} : i32
// CHECK-NEXT: %[[SRC:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<8192 x i8>
// CHECK-NEXT: %[[DST:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<8192 x i8>
// CHECK-NEXT: %[[BAR:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
// CHECK-NEXT: %[[DST_I:.*]] = llvm.ptrtoint %[[DST]] : !llvm.ptr<3> to i32
// CHECK-NEXT: %[[DST_M:.*]] = llvm.inline_asm has_side_effects "mapa.shared::cluster.u32 $0, $1, $2;", "=r,r,r" %[[DST_I]], %[[PEER]] : (i32, i32) -> i32
// CHECK-NEXT: %[[DST_P:.*]] = llvm.inttoptr %[[DST_M]] : i32 to !llvm.ptr<7>
// CHECK-NEXT: %[[BAR_I:.*]] = llvm.ptrtoint %[[BAR]] : !llvm.ptr<3> to i32
// CHECK-NEXT: %[[BAR_M:.*]] = llvm.inline_asm has_side_effects "mapa.shared::cluster.u32 $0, $1, $2;", "=r,r,r" %[[BAR_I]], %[[PEER]] : (i32, i32) -> i32
// CHECK-NEXT: %[[BAR_P:.*]] = llvm.inttoptr %[[BAR_M]] : i32 to !llvm.ptr<7>
// CHECK-NEXT: %[[D:.*]] = llvm.ptrtoint %[[DST_P]] : !llvm.ptr<7> to i32
// CHECK-NEXT: %[[S:.*]] = llvm.ptrtoint %[[SRC]] : !llvm.ptr<3> to i32
// CHECK-NEXT: %[[B:.*]] = llvm.ptrtoint %[[BAR_P]] : !llvm.ptr<7> to i32
// CHECK-NEXT: llvm.inline_asm has_side_effects "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [$0], [$1], 8192, [$2];", "r,r,r,~{memory}" %[[D]], %[[S]], %[[B]] : (i32, i32, i32) -> ()
// No bulk group: nothing commits or waits.
// CHECK-NOT: nvvm.cp.async.bulk.commit.group
// CHECK: llvm.return
jfa.kernel @copy_slot() warps(4) cluster(2, 1, 1) {
  %buf = jfa.local_alloc {offset = 0 : i64} : !jfa.smem<2 x 64x32xf32, swizzle 128>
  %bars = jfa.alloc_barriers arrive_count(1) {offset = 16384 : i64} : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %rank = jfa.cluster_rank
  %peer = arith.xori %rank, %c1 : i32
  %src = jfa.slot %buf[%c0] : !jfa.smem<2 x 64x32xf32, swizzle 128>, i32
  %dst = jfa.slot %buf[%c1] : !jfa.smem<2 x 64x32xf32, swizzle 128>, i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  jfa.copy_to_cta %src, %dst, %b on cta %peer : !jfa.slot<64x32xf32, swizzle 128>, !jfa.slot<64x32xf32, swizzle 128>
}

// -----

// A blocked slot goes as one copy of both blocks (16384 bytes, contiguous);
// a column block of it is its own 8192 bytes, 8192 bytes in. In a loop, the
// mapping stays at the copy.
// CHECK-LABEL: llvm.func @copy_blocks
// CHECK: %[[W:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<16384 x i8>
// CHECK: "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [$0], [$1], 16384, [$2];"
// CHECK: scf.for
// CHECK-NEXT: %[[HI:.*]] = llvm.getelementptr %[[W]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<8192 x i8>
// CHECK-NEXT: llvm.ptrtoint
// CHECK-NEXT: llvm.inline_asm has_side_effects "mapa.shared::cluster.u32 $0, $1, $2;"
// CHECK: llvm.inline_asm has_side_effects "mapa.shared::cluster.u32 $0, $1, $2;"
// CHECK: %[[S:.*]] = llvm.ptrtoint %[[HI]] : !llvm.ptr<3> to i32
// CHECK: llvm.inline_asm has_side_effects "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [$0], [$1], 8192, [$2];", "r,r,r,~{memory}" %{{.*}}, %[[S]], %{{.*}} : (i32, i32, i32) -> ()
// CHECK-NEXT: }
jfa.kernel @copy_blocks(%n: i32) warps(4) cluster(2, 1, 1) {
  %buf = jfa.local_alloc {offset = 0 : i64} : !jfa.smem<2 x 64x64xf32, swizzle 128>
  %recv = jfa.local_alloc {offset = 32768 : i64} : !jfa.smem<1 x 64x32xf32, swizzle 128>
  %bars = jfa.alloc_barriers arrive_count(1) {offset = 40960 : i64} : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %rank = jfa.cluster_rank
  %peer = arith.xori %rank, %c1 : i32
  %w = jfa.slot %buf[%c0] : !jfa.smem<2 x 64x64xf32, swizzle 128>, i32
  %w1 = jfa.slot %buf[%c1] : !jfa.smem<2 x 64x64xf32, swizzle 128>, i32
  %r = jfa.slot %recv[%c0] : !jfa.smem<1 x 64x32xf32, swizzle 128>, i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  jfa.copy_to_cta %w, %w1, %b on cta %peer : !jfa.slot<64x64xf32, swizzle 128>, !jfa.slot<64x64xf32, swizzle 128>
  scf.for %i = %c0 to %n step %c1 : i32 {
    %hi = jfa.column_block %w[%c1] : !jfa.slot<64x64xf32, swizzle 128> -> !jfa.slot<64x32xf32, swizzle 128>
    jfa.copy_to_cta %hi, %r, %b on cta %peer : !jfa.slot<64x32xf32, swizzle 128>, !jfa.slot<64x32xf32, swizzle 128>
  }
}
