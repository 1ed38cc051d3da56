// RUN: jfa-opt %s | jfa-opt | FileCheck %s
// jfa.copy_to_cta prints as it is written and parses back: whole slots and
// views (a column block of a blocked slot is one contiguous block, a row
// block rows of an unblocked one), and any rank inside a helper, whose
// callers' clusters may differ.

// CHECK-LABEL: jfa.kernel @copies
// CHECK: jfa.copy_to_cta %{{.*}}, %{{.*}}, %{{.*}} on cta %{{.*}} : !jfa.slot<64x32xf32, swizzle 128>, !jfa.slot<64x32xf32, swizzle 128>
// CHECK: jfa.copy_to_cta %{{.*}}, %{{.*}}, %{{.*}} on cta %{{.*}} : !jfa.slot<64x64xf32, swizzle 128>, !jfa.slot<64x64xf32, swizzle 128>
// CHECK: jfa.copy_to_cta %{{.*}}, %{{.*}}, %{{.*}} on cta %{{.*}} : !jfa.slot<64x32xf32, swizzle 128>, !jfa.slot<64x32xf32, swizzle 128>
// CHECK: jfa.copy_to_cta %{{.*}}, %{{.*}}, %{{.*}} on cta %{{.*}} : !jfa.slot<32x32xf32, swizzle 128>, !jfa.slot<32x32xf32, swizzle 128>
// CHECK: jfa.copy_to_cta %{{.*}}, %{{.*}}, %{{.*}} on cta %{{.*}} : !jfa.slot<4xi32>, !jfa.slot<4xi32>
jfa.kernel @copies() warps(4) cluster(2, 1, 1) {
  %one = jfa.local_alloc : !jfa.smem<2 x 64x32xf32, swizzle 128>
  %wide = jfa.local_alloc : !jfa.smem<2 x 64x64xf32, swizzle 128>
  %small = jfa.local_alloc : !jfa.smem<2 x 4xi32>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %rank = jfa.cluster_rank
  %peer = arith.xori %rank, %c1 : i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  %s0 = jfa.slot %one[%c0] : !jfa.smem<2 x 64x32xf32, swizzle 128>, i32
  %s1 = jfa.slot %one[%c1] : !jfa.smem<2 x 64x32xf32, swizzle 128>, i32
  jfa.copy_to_cta %s0, %s1, %b on cta %peer : !jfa.slot<64x32xf32, swizzle 128>, !jfa.slot<64x32xf32, swizzle 128>
  // A blocked slot: its two blocks, one after the other.
  %w0 = jfa.slot %wide[%c0] : !jfa.smem<2 x 64x64xf32, swizzle 128>, i32
  %w1 = jfa.slot %wide[%c1] : !jfa.smem<2 x 64x64xf32, swizzle 128>, i32
  jfa.copy_to_cta %w0, %w1, %b on cta %peer : !jfa.slot<64x64xf32, swizzle 128>, !jfa.slot<64x64xf32, swizzle 128>
  // One block of it into a plain slot of the block's type.
  %blk = jfa.column_block %w0[%c1] : !jfa.slot<64x64xf32, swizzle 128> -> !jfa.slot<64x32xf32, swizzle 128>
  jfa.copy_to_cta %blk, %s1, %b on cta %c1 : !jfa.slot<64x32xf32, swizzle 128>, !jfa.slot<64x32xf32, swizzle 128>
  // Rows of an unblocked slot.
  %half = jfa.row_block %s0[%rank] : !jfa.slot<64x32xf32, swizzle 128> -> !jfa.slot<32x32xf32, swizzle 128>
  jfa.copy_to_cta %half, %half, %b on cta %peer : !jfa.slot<32x32xf32, swizzle 128>, !jfa.slot<32x32xf32, swizzle 128>
  %m0 = jfa.slot %small[%c0] : !jfa.smem<2 x 4xi32>, i32
  %m1 = jfa.slot %small[%c1] : !jfa.smem<2 x 4xi32>, i32
  jfa.copy_to_cta %m0, %m1, %b on cta %peer : !jfa.slot<4xi32>, !jfa.slot<4xi32>
}

// CHECK-LABEL: jfa.func @hand_over
// CHECK: jfa.copy_to_cta %{{.*}}, %{{.*}}, %{{.*}} on cta %{{.*}} : !jfa.slot<64x32xf32, swizzle 128>, !jfa.slot<64x32xf32, swizzle 128>
jfa.func @hand_over(%buf: !jfa.smem<2 x 64x32xf32, swizzle 128>,
                    %bars: !jfa.mbarriers<1>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c5 = arith.constant 5 : i32
  %s0 = jfa.slot %buf[%c0] : !jfa.smem<2 x 64x32xf32, swizzle 128>, i32
  %s1 = jfa.slot %buf[%c1] : !jfa.smem<2 x 64x32xf32, swizzle 128>, i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  jfa.copy_to_cta %s0, %s1, %b on cta %c5 : !jfa.slot<64x32xf32, swizzle 128>, !jfa.slot<64x32xf32, swizzle 128>
  jfa.return
}
