// RUN: jfa-opt %s --split-input-file --jfa-check-barriers --verify-diagnostics
// jfa.copy_to_cta brings transaction bytes, no arrival, to the barrier at
// its place in the peer. Checked as one CTA of a symmetric whole: every
// CTA copies into a peer computed from its rank, so each CTA's barrier
// receives one copy, counted on the issuer's own barrier.

// Right: the receiver's expect (one arrival) counts the peer's 8192 bytes.
jfa.kernel @symmetric() warps(4) cluster(2, 1, 1) {
  %send = jfa.local_alloc : !jfa.smem<1 x 64x32xf32, swizzle 128>
  %recv = jfa.local_alloc : !jfa.smem<1 x 64x32xf32, swizzle 128>
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %rank = jfa.cluster_rank
  %peer = arith.xori %rank, %c1 : i32
  %s = jfa.slot %send[%c0] : !jfa.smem<1 x 64x32xf32, swizzle 128>, i32
  %r = jfa.slot %recv[%c0] : !jfa.smem<1 x 64x32xf32, swizzle 128>, i32
  %f = jfa.barrier %full[%c0] : !jfa.mbarriers<1>, i32
  jfa.barrier_expect %f, bytes(8192)
  jfa.copy_to_cta %s, %r, %f on cta %peer : !jfa.slot<64x32xf32, swizzle 128>, !jfa.slot<64x32xf32, swizzle 128>
  jfa.barrier_wait %f, %c0
}

// -----

// Wrong: the expect counts half the slot.
jfa.kernel @wrong_bytes() warps(4) cluster(2, 1, 1) {
  %send = jfa.local_alloc : !jfa.smem<1 x 64x32xf32, swizzle 128>
  %recv = jfa.local_alloc : !jfa.smem<1 x 64x32xf32, swizzle 128>
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %rank = jfa.cluster_rank
  %peer = arith.xori %rank, %c1 : i32
  %s = jfa.slot %send[%c0] : !jfa.smem<1 x 64x32xf32, swizzle 128>, i32
  %r = jfa.slot %recv[%c0] : !jfa.smem<1 x 64x32xf32, swizzle 128>, i32
  %f = jfa.barrier %full[%c0] : !jfa.mbarriers<1>, i32
  // expected-error @+1 {{'jfa.barrier_expect' op expects 4096 bytes but the TMA loads completing on this barrier bring 8192}}
  jfa.barrier_expect %f, bytes(4096)
  // expected-note @+1 {{this copy brings 8192 bytes (each CTA's copy into its peer: one lands here)}}
  jfa.copy_to_cta %s, %r, %f on cta %peer : !jfa.slot<64x32xf32, swizzle 128>, !jfa.slot<64x32xf32, swizzle 128>
  jfa.barrier_wait %f, %c0
}

// -----

// Wrong: nothing arrives on the receive barrier; the copy brings bytes only.
jfa.kernel @no_expect() warps(4) cluster(2, 1, 1) {
  %send = jfa.local_alloc : !jfa.smem<1 x 64x32xf32, swizzle 128>
  %recv = jfa.local_alloc : !jfa.smem<1 x 64x32xf32, swizzle 128>
  // expected-error-re @+2 {{barrier 0 of the barrier array at line {{[0-9]+}} expects 1 arrivals per phase (arrive_count) but its tasks arrive 0 times}}
  // expected-note @+1 {{only peers' jfa.copy_to_cta (or TMA loads) complete on it, and they bring bytes, not arrivals: arm it with jfa.barrier_expect}}
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %rank = jfa.cluster_rank
  %peer = arith.xori %rank, %c1 : i32
  %s = jfa.slot %send[%c0] : !jfa.smem<1 x 64x32xf32, swizzle 128>, i32
  %r = jfa.slot %recv[%c0] : !jfa.smem<1 x 64x32xf32, swizzle 128>, i32
  %f = jfa.barrier %full[%c0] : !jfa.mbarriers<1>, i32
  jfa.copy_to_cta %s, %r, %f on cta %peer : !jfa.slot<64x32xf32, swizzle 128>, !jfa.slot<64x32xf32, swizzle 128>
  jfa.barrier_wait %f, %c0
}

// -----

// Wrong: every CTA copies into CTA 1, which receives both copies.
jfa.kernel @constant_peer() warps(4) cluster(2, 1, 1) {
  %send = jfa.local_alloc : !jfa.smem<1 x 64x32xf32, swizzle 128>
  %recv = jfa.local_alloc : !jfa.smem<1 x 64x32xf32, swizzle 128>
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %s = jfa.slot %send[%c0] : !jfa.smem<1 x 64x32xf32, swizzle 128>, i32
  %r = jfa.slot %recv[%c0] : !jfa.smem<1 x 64x32xf32, swizzle 128>, i32
  %f = jfa.barrier %full[%c0] : !jfa.mbarriers<1>, i32
  jfa.barrier_expect %f, bytes(8192)
  // expected-error @+1 {{'jfa.copy_to_cta' op is issued by every CTA of the cluster (no condition on jfa.cluster_rank) into CTA 1: that CTA's slot and barrier receive the 2 CTAs' copies and the others none; copy into a peer computed from jfa.cluster_rank (such as rank xor 1), or from one CTA under a condition on it}}
  jfa.copy_to_cta %s, %r, %f on cta %c1 : !jfa.slot<64x32xf32, swizzle 128>, !jfa.slot<64x32xf32, swizzle 128>
  jfa.barrier_wait %f, %c0
}

// -----

// One CTA's copy (under a condition on the rank): what each CTA's barrier
// receives depends on which CTAs copy, which the counts cannot follow.
jfa.kernel @one_sender() warps(4) cluster(2, 1, 1) {
  %send = jfa.local_alloc : !jfa.smem<1 x 64x32xf32, swizzle 128>
  %recv = jfa.local_alloc : !jfa.smem<1 x 64x32xf32, swizzle 128>
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %rank = jfa.cluster_rank
  %s = jfa.slot %send[%c0] : !jfa.smem<1 x 64x32xf32, swizzle 128>, i32
  %r = jfa.slot %recv[%c0] : !jfa.smem<1 x 64x32xf32, swizzle 128>, i32
  %f = jfa.barrier %full[%c0] : !jfa.mbarriers<1>, i32
  %sender = arith.cmpi eq, %rank, %c0 : i32
  %receiver = arith.cmpi eq, %rank, %c1 : i32
  scf.if %receiver {
    jfa.barrier_expect %f, bytes(8192)
  }
  scf.if %sender {
    // expected-remark-re @+2 {{cannot count the arrivals per phase on barrier 0 of the barrier array at line {{[0-9]+}}: this op reaches other CTAs of the cluster from under a condition on jfa.cluster_rank}}
    // expected-remark @+1 {{cannot check the 8192 bytes armed by a jfa.barrier_expect: this op reaches other CTAs of the cluster from under a condition on jfa.cluster_rank}}
    jfa.copy_to_cta %s, %r, %f on cta %c1 : !jfa.slot<64x32xf32, swizzle 128>, !jfa.slot<64x32xf32, swizzle 128>
  }
  scf.if %receiver {
    jfa.barrier_wait %f, %c0
  }
}

// -----

// A receive slot read by threads and handed back to the sender without a
// fence: the next copy (the async proxy) may land before the read.
jfa.kernel @unfenced_hand_back() warps(4) cluster(2, 1, 1) {
  %send = jfa.local_alloc : !jfa.smem<1 x 64x32xf32, swizzle 128>
  %recv = jfa.local_alloc : !jfa.smem<1 x 64x32xf32, swizzle 128>
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %free = jfa.alloc_barriers arrive_count(128) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %rank = jfa.cluster_rank
  %peer = arith.xori %rank, %c1 : i32
  %s = jfa.slot %send[%c0] : !jfa.smem<1 x 64x32xf32, swizzle 128>, i32
  %r = jfa.slot %recv[%c0] : !jfa.smem<1 x 64x32xf32, swizzle 128>, i32
  %f = jfa.barrier %full[%c0] : !jfa.mbarriers<1>, i32
  %e = jfa.barrier %free[%c0] : !jfa.mbarriers<1>, i32
  jfa.barrier_expect %f, bytes(8192)
  jfa.copy_to_cta %s, %r, %f on cta %peer : !jfa.slot<64x32xf32, swizzle 128>, !jfa.slot<64x32xf32, swizzle 128>
  jfa.barrier_wait %f, %c0
  // expected-note @+1 {{the read}}
  %t = jfa.local_load %r : !jfa.slot<64x32xf32, swizzle 128> -> tensor<64x32xf32, #jfa.wgmma_acc>
  // expected-warning @+1 {{hands back a slot that threads read and a peer's jfa.copy_to_cta fills, with no jfa.fence_async_shared after the read: the next copy may land before the read has its data; put the fence before this arrive}}
  jfa.barrier_arrive %e on cta %peer
  jfa.barrier_wait %e, %c0
}
