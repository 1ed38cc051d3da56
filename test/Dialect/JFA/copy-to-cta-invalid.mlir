// RUN: jfa-opt %s --split-input-file --verify-diagnostics
// jfa.copy_to_cta's verifier: a cluster of more than one CTA, a rank in
// it, one slot type on both sides (the bytes keep their layout), no
// transposed view, a multiple of 16 bytes.

jfa.kernel @no_cluster() warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<2 x 64x32xf32, swizzle 128>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %src = jfa.slot %buf[%c0] : !jfa.smem<2 x 64x32xf32, swizzle 128>, i32
  %dst = jfa.slot %buf[%c1] : !jfa.smem<2 x 64x32xf32, swizzle 128>, i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  %peer = jfa.cluster_rank
  // expected-error @+1 {{'jfa.copy_to_cta' op copies into another CTA's shared memory, which needs a cluster of more than one CTA; set the kernel's cluster(x, y, z)}}
  jfa.copy_to_cta %src, %dst, %b on cta %peer : !jfa.slot<64x32xf32, swizzle 128>, !jfa.slot<64x32xf32, swizzle 128>
}

// -----

jfa.kernel @cluster_of_one() warps(4) cluster(1, 1, 1) {
  %buf = jfa.local_alloc : !jfa.smem<2 x 64x32xf32, swizzle 128>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %src = jfa.slot %buf[%c0] : !jfa.smem<2 x 64x32xf32, swizzle 128>, i32
  %dst = jfa.slot %buf[%c1] : !jfa.smem<2 x 64x32xf32, swizzle 128>, i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  // expected-error @+1 {{copies into another CTA's shared memory, which needs a cluster of more than one CTA}}
  jfa.copy_to_cta %src, %dst, %b on cta %c0 : !jfa.slot<64x32xf32, swizzle 128>, !jfa.slot<64x32xf32, swizzle 128>
}

// -----

jfa.kernel @rank_beyond_cluster() warps(4) cluster(2, 1, 1) {
  %buf = jfa.local_alloc : !jfa.smem<2 x 64x32xf32, swizzle 128>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %src = jfa.slot %buf[%c0] : !jfa.smem<2 x 64x32xf32, swizzle 128>, i32
  %dst = jfa.slot %buf[%c1] : !jfa.smem<2 x 64x32xf32, swizzle 128>, i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  // expected-error @+1 {{copies into CTA 2 of a cluster of 2 CTAs; ranks run from 0 to the cluster's size - 1}}
  jfa.copy_to_cta %src, %dst, %b on cta %c2 : !jfa.slot<64x32xf32, swizzle 128>, !jfa.slot<64x32xf32, swizzle 128>
}

// -----

// Another swizzle: the same bytes would be another tile there.
jfa.kernel @swizzle_mismatch() warps(4) cluster(2, 1, 1) {
  %a = jfa.local_alloc : !jfa.smem<1 x 64x32xf32, swizzle 128>
  %d = jfa.local_alloc : !jfa.smem<1 x 64x32xf32>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %src = jfa.slot %a[%c0] : !jfa.smem<1 x 64x32xf32, swizzle 128>, i32
  %dst = jfa.slot %d[%c0] : !jfa.smem<1 x 64x32xf32>, i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  // expected-error @+1 {{copies the source's bytes as they are stored, so the destination must have its type (shape, element type and swizzle): got '!jfa.slot<64x32xf32, swizzle 128>' and '!jfa.slot<64x32xf32>'}}
  jfa.copy_to_cta %src, %dst, %b on cta %c1 : !jfa.slot<64x32xf32, swizzle 128>, !jfa.slot<64x32xf32>
}

// -----

// Another size.
jfa.kernel @size_mismatch() warps(4) cluster(2, 1, 1) {
  %a = jfa.local_alloc : !jfa.smem<1 x 64x32xf32, swizzle 128>
  %d = jfa.local_alloc : !jfa.smem<1 x 128x32xf32, swizzle 128>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %src = jfa.slot %a[%c0] : !jfa.smem<1 x 64x32xf32, swizzle 128>, i32
  %dst = jfa.slot %d[%c0] : !jfa.smem<1 x 128x32xf32, swizzle 128>, i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  // expected-error @+1 {{the destination must have its type (shape, element type and swizzle): got '!jfa.slot<64x32xf32, swizzle 128>' and '!jfa.slot<128x32xf32, swizzle 128>'}}
  jfa.copy_to_cta %src, %dst, %b on cta %c1 : !jfa.slot<64x32xf32, swizzle 128>, !jfa.slot<128x32xf32, swizzle 128>
}

// -----

// Another element type of the same byte count.
jfa.kernel @element_mismatch() warps(4) cluster(2, 1, 1) {
  %a = jfa.local_alloc : !jfa.smem<1 x 64x32xf32>
  %d = jfa.local_alloc : !jfa.smem<1 x 64x32xi32>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %src = jfa.slot %a[%c0] : !jfa.smem<1 x 64x32xf32>, i32
  %dst = jfa.slot %d[%c0] : !jfa.smem<1 x 64x32xi32>, i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  // expected-error @+1 {{got '!jfa.slot<64x32xf32>' and '!jfa.slot<64x32xi32>'}}
  jfa.copy_to_cta %src, %dst, %b on cta %c1 : !jfa.slot<64x32xf32>, !jfa.slot<64x32xi32>
}

// -----

// A transposed view is no slot's layout.
jfa.kernel @transposed() warps(4) cluster(2, 1, 1) {
  %a = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %s = jfa.slot %a[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  %t = jfa.transpose %s : !jfa.slot<64x64xbf16, swizzle 128>
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  // expected-error @+1 {{cannot use the transposed view '!jfa.slot<64x64xbf16, swizzle 128, transposed>'}}
  jfa.copy_to_cta %t, %t, %b on cta %c1 : !jfa.slot<64x64xbf16, swizzle 128, transposed>, !jfa.slot<64x64xbf16, swizzle 128, transposed>
}

// -----

// 3 x 2 f32 = 24 bytes: a bulk copy moves 16-byte units.
jfa.kernel @not_16_bytes() warps(4) cluster(2, 1, 1) {
  %a = jfa.local_alloc : !jfa.smem<2 x 3x2xf32>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %s = jfa.slot %a[%c0] : !jfa.smem<2 x 3x2xf32>, i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  // expected-error @+1 {{copies 24 bytes ('!jfa.slot<3x2xf32>'); a bulk copy moves a multiple of 16 bytes}}
  jfa.copy_to_cta %s, %s, %b on cta %c1 : !jfa.slot<3x2xf32>, !jfa.slot<3x2xf32>
}

// -----

// A view too: one row of 4 bf16 is 8 bytes.
jfa.kernel @row_block_not_16_bytes() warps(4) cluster(2, 1, 1) {
  %a = jfa.local_alloc : !jfa.smem<1 x 8x4xbf16>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %s = jfa.slot %a[%c0] : !jfa.smem<1 x 8x4xbf16>, i32
  %r = jfa.row_block %s[%c1] : !jfa.slot<8x4xbf16> -> !jfa.slot<1x4xbf16>
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  // expected-error @+1 {{copies 8 bytes ('!jfa.slot<1x4xbf16>'); a bulk copy moves a multiple of 16 bytes}}
  jfa.copy_to_cta %r, %r, %b on cta %c1 : !jfa.slot<1x4xbf16>, !jfa.slot<1x4xbf16>
}
