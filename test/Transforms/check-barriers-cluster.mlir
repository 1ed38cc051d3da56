// RUN: jfa-opt %s --split-input-file --jfa-check-barriers --verify-diagnostics
// A cluster kernel is checked as one CTA of a symmetric whole: a multicast
// load with a constant mask brings its box once per CTA of the mask, and an
// arrival on a peer's barrier counts as one on the issuer's own.

// Right: A (16 KiB) plus two 16 KiB halves of B, one from each CTA; 128
// local and 128 remote arrivals per phase of the empty barrier.
jfa.kernel @symmetric(%a: !jfa.tma<128x64xbf16, swizzle 128>,
                      %b: !jfa.tma<128x64xbf16, swizzle 128>) warps(8) cluster(2, 1, 1) {
  %a_ring = jfa.local_alloc : !jfa.smem<1 x 128x64xbf16, swizzle 128>
  %b_ring = jfa.local_alloc : !jfa.smem<1 x 256x64xbf16, swizzle 128>
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %empty = jfa.alloc_barriers arrive_count(256) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %both = arith.constant 3 : i16
  %rank = jfa.cluster_rank
  %peer = arith.xori %rank, %c1 : i32
  %f = jfa.barrier %full[%c0] : !jfa.mbarriers<1>, i32
  %e = jfa.barrier %empty[%c0] : !jfa.mbarriers<1>, i32
  %a_s = jfa.slot %a_ring[%c0] : !jfa.smem<1 x 128x64xbf16, swizzle 128>, i32
  %b_s = jfa.slot %b_ring[%c0] : !jfa.smem<1 x 256x64xbf16, swizzle 128>, i32
  jfa.async_tasks {
    jfa.task warps(4) {
      jfa.barrier_wait %f, %c0
      jfa.barrier_arrive %e
      jfa.barrier_arrive %e on cta %peer
    }
    jfa.task default {
      jfa.barrier_wait %e, %c1
      %half = jfa.row_block %b_s[%rank] : !jfa.slot<256x64xbf16, swizzle 128> -> !jfa.slot<128x64xbf16, swizzle 128>
      jfa.barrier_expect %f, bytes(49152)
      jfa.tma_load %a[%c0, %c0], %a_s, %f : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
      jfa.tma_load %b[%c0, %c0], %half, %f multicast(%both) : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
    }
  }
}

// -----

// Wrong: the expect counts B's half once, as if it were not multicast.
jfa.kernel @half_counted_once(%a: !jfa.tma<128x64xbf16, swizzle 128>,
                              %b: !jfa.tma<128x64xbf16, swizzle 128>) warps(4) cluster(2, 1, 1) {
  %a_ring = jfa.local_alloc : !jfa.smem<1 x 128x64xbf16, swizzle 128>
  %b_ring = jfa.local_alloc : !jfa.smem<1 x 256x64xbf16, swizzle 128>
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %both = arith.constant 3 : i16
  %rank = jfa.cluster_rank
  %f = jfa.barrier %full[%c0] : !jfa.mbarriers<1>, i32
  %a_s = jfa.slot %a_ring[%c0] : !jfa.smem<1 x 128x64xbf16, swizzle 128>, i32
  %b_s = jfa.slot %b_ring[%c0] : !jfa.smem<1 x 256x64xbf16, swizzle 128>, i32
  %half = jfa.row_block %b_s[%rank] : !jfa.slot<256x64xbf16, swizzle 128> -> !jfa.slot<128x64xbf16, swizzle 128>
  // expected-error @+1 {{'jfa.barrier_expect' op expects 32768 bytes but the TMA loads completing on this barrier bring 49152}}
  jfa.barrier_expect %f, bytes(32768)
  // expected-note @+1 {{this load brings 16384 bytes}}
  jfa.tma_load %a[%c0, %c0], %a_s, %f : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
  // expected-note @+1 {{this load brings 32768 bytes (multicast: one box from each CTA of its mask)}}
  jfa.tma_load %b[%c0, %c0], %half, %f multicast(%both) : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
  jfa.barrier_wait %f, %c0
}

// -----

// A mask computed at run time: which CTAs' copies land here is unknown.
jfa.kernel @runtime_mask(%b: !jfa.tma<128x64xbf16, swizzle 128>, %bits: i32) warps(4) cluster(4, 1, 1) {
  %mask = arith.trunci %bits : i32 to i16
  %b_ring = jfa.local_alloc : !jfa.smem<1 x 128x64xbf16, swizzle 128>
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %f = jfa.barrier %full[%c0] : !jfa.mbarriers<1>, i32
  %b_s = jfa.slot %b_ring[%c0] : !jfa.smem<1 x 128x64xbf16, swizzle 128>, i32
  jfa.barrier_expect %f, bytes(16384)
  // expected-remark @+1 {{cannot check the 16384 bytes armed by a jfa.barrier_expect: this multicast load's CTA mask is not a constant}}
  jfa.tma_load %b[%c0, %c0], %b_s, %f multicast(%mask) : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
  jfa.barrier_wait %f, %c0
}

// -----

// Wrong: only the local arrivals, while the empty barrier waits for both
// CTAs' consumers.
jfa.kernel @missing_remote_arrive() warps(8) cluster(2, 1, 1) {
  // expected-error-re @+1 {{barrier array at line {{[0-9]+}} expects 256 arrivals per phase (arrive_count) but its tasks arrive 128 times}}
  %empty = jfa.alloc_barriers arrive_count(256) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %e = jfa.barrier %empty[%c0] : !jfa.mbarriers<1>, i32
  jfa.async_tasks {
    jfa.task warps(4) {
      // expected-note @+1 {{arrives 128 times}}
      jfa.barrier_arrive %e
    }
    jfa.task default {
      jfa.barrier_wait %e, %c1
    }
  }
}

// -----

// A multicast commit to both CTAs of the cluster: each empty barrier gets
// one commit from each MMA warp (the sm_100a multicast GEMM's protocol).
jfa.kernel @commit_to_both() warps(4) cluster(2, 1, 1) {
  %empty = jfa.alloc_barriers arrive_count(2) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %both = arith.constant 3 : i16
  %e = jfa.barrier %empty[%c0] : !jfa.mbarriers<1>, i32
  jfa.async_tasks {
    jfa.task warps(2) {
      jfa.tc_commit %e multicast(%both)
    }
    jfa.task default {
      jfa.barrier_wait %e, %c1
    }
  }
}

// -----

// Wrong: the commit reaches only this CTA's barrier, which waits for two.
jfa.kernel @commit_to_self() warps(4) cluster(2, 1, 1) {
  // expected-error-re @+1 {{barrier array at line {{[0-9]+}} expects 2 arrivals per phase (arrive_count) but its tasks arrive 1 times}}
  %empty = jfa.alloc_barriers arrive_count(2) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %e = jfa.barrier %empty[%c0] : !jfa.mbarriers<1>, i32
  jfa.async_tasks {
    jfa.task warps(2) {
      // expected-note @+1 {{arrives once: jfa.tc_commit is issued by one thread}}
      jfa.tc_commit %e
    }
    jfa.task default {
      jfa.barrier_wait %e, %c1
    }
  }
}

// -----

// A cluster-launch-control response is 16 bytes on its barrier.
jfa.kernel @cancel_bytes() warps(4) {
  %responses = jfa.local_alloc : !jfa.smem<1 x 4xi32>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %r = jfa.slot %responses[%c0] : !jfa.smem<1 x 4xi32>, i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  // expected-error @+1 {{'jfa.barrier_expect' op expects 32 bytes but the TMA loads completing on this barrier bring 16}}
  jfa.barrier_expect %b, bytes(32)
  // expected-note @+1 {{this response brings 16 bytes}}
  jfa.try_cancel %r, %b : !jfa.slot<4xi32>
  jfa.barrier_wait %b, %c0
}

// -----

// Wrong: every CTA arrives on CTA 0's barrier; CTA 1's never completes.
jfa.kernel @constant_peer() warps(8) cluster(2, 1, 1) {
  %empty = jfa.alloc_barriers arrive_count(256) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %e = jfa.barrier %empty[%c0] : !jfa.mbarriers<1>, i32
  jfa.async_tasks {
    jfa.task warps(4) {
      jfa.barrier_arrive %e
      // expected-error @+1 {{is issued by every CTA of the cluster (no condition on jfa.cluster_rank) on CTA 0: that CTA's barrier receives the 2 CTAs' arrivals and the others none}}
      jfa.barrier_arrive %e on cta %c0
    }
    jfa.task default {
      jfa.barrier_wait %e, %c1
    }
  }
}

// -----

// Wrong: every CTA multicasts to CTA 0 only: CTA 0 gets two boxes, CTA 1 none.
jfa.kernel @partial_mask(%b: !jfa.tma<128x64xbf16, swizzle 128>) warps(4) cluster(2, 1, 1) {
  %b_ring = jfa.local_alloc : !jfa.smem<1 x 128x64xbf16, swizzle 128>
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %first = arith.constant 1 : i16
  %f = jfa.barrier %full[%c0] : !jfa.mbarriers<1>, i32
  %b_s = jfa.slot %b_ring[%c0] : !jfa.smem<1 x 128x64xbf16, swizzle 128>, i32
  jfa.barrier_expect %f, bytes(16384)
  // expected-error @+1 {{with the constant mask 1: the 1 CTAs of the mask each receive 1 boxes per phase and the other 1 none; multicast to the whole cluster (mask 3), or issue it from one CTA under a condition on jfa.cluster_rank}}
  jfa.tma_load %b[%c0, %c0], %b_s, %f multicast(%first) : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
  jfa.barrier_wait %f, %c0
}

// -----

// Right, but not countable here: the leader CTA multicasts the whole tile
// to both; each CTA expects one box. A remark, not a false error.
jfa.kernel @leader_multicast(%b: !jfa.tma<128x64xbf16, swizzle 128>) warps(4) cluster(2, 1, 1) {
  %b_ring = jfa.local_alloc : !jfa.smem<1 x 128x64xbf16, swizzle 128>
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %both = arith.constant 3 : i16
  %rank = jfa.cluster_rank
  %leader = arith.cmpi eq, %rank, %c0 : i32
  %f = jfa.barrier %full[%c0] : !jfa.mbarriers<1>, i32
  %b_s = jfa.slot %b_ring[%c0] : !jfa.smem<1 x 128x64xbf16, swizzle 128>, i32
  jfa.barrier_expect %f, bytes(16384)
  scf.if %leader {
    // expected-remark @+2 {{cannot check the 16384 bytes armed by a jfa.barrier_expect: this op reaches other CTAs of the cluster from under a condition on jfa.cluster_rank}}
    // expected-remark @+1 {{cannot count the arrivals per phase on barrier 0 of the barrier array at line}}
    jfa.tma_load %b[%c0, %c0], %b_s, %f multicast(%both) : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
  }
  jfa.barrier_wait %f, %c0
}

// -----

// Wrong: every CTA of the cluster asks to cancel, and every response
// reaches every CTA.
jfa.kernel @cancel_from_every_cta() warps(4) cluster(2, 1, 1) {
  %responses = jfa.local_alloc : !jfa.smem<1 x 4xi32>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %r = jfa.slot %responses[%c0] : !jfa.smem<1 x 4xi32>, i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  jfa.barrier_expect %b, bytes(16)
  // expected-error @+1 {{is issued by every CTA of the cluster (no condition on jfa.cluster_rank), and each response reaches every CTA: each barrier receives 2 responses and 2 clusters are cancelled for one; issue it from one CTA under a condition on jfa.cluster_rank}}
  jfa.try_cancel %r, %b : !jfa.slot<4xi32>
  jfa.barrier_wait %b, %c0
}

// -----

// A work-queue fetch handed to a peer (`and cta`) from every CTA: each slot
// would receive two units per phase.
jfa.kernel @fetch_from_every_cta(%counter: !jfa.ptr<i32>) warps(4) cluster(2, 1, 1) {
  %next = jfa.local_alloc : !jfa.smem<1 x 1xi32>
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %rank = jfa.cluster_rank
  %peer = arith.xori %rank, %c1 : i32
  %s = jfa.slot %next[%c0] : !jfa.smem<1 x 1xi32>, i32
  %f = jfa.barrier %full[%c0] : !jfa.mbarriers<1>, i32
  // expected-error @+1 {{'jfa.atomic_fetch_add' op is issued by every CTA of the cluster (no condition on jfa.cluster_rank) with `and cta`: each CTA writes the unit it fetched into its own slot and a peer's, so a slot receives two units per phase and keeps either; fetch from one CTA for both under a condition on jfa.cluster_rank}}
  jfa.atomic_fetch_add %counter[%c0], %c1 into %s arrive %f and cta %peer : !jfa.ptr<i32>, !jfa.slot<1xi32>
  jfa.barrier_wait %f, %c0
}

// -----

// One CTA fetches for both, as a pair's leader does: what each CTA's
// barrier receives depends on which CTA issues, so a remark.
jfa.kernel @fetch_for_both(%counter: !jfa.ptr<i32>) warps(4) cluster(2, 1, 1) {
  %next = jfa.local_alloc : !jfa.smem<1 x 1xi32>
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %rank = jfa.cluster_rank
  %peer = arith.xori %rank, %c1 : i32
  %s = jfa.slot %next[%c0] : !jfa.smem<1 x 1xi32>, i32
  %f = jfa.barrier %full[%c0] : !jfa.mbarriers<1>, i32
  %leader = arith.cmpi eq, %rank, %c0 : i32
  scf.if %leader {
    // expected-remark-re @+1 {{cannot count the arrivals per phase on barrier 0 of the barrier array at line {{[0-9]+}}: this op reaches other CTAs of the cluster from under a condition on jfa.cluster_rank, so what each CTA's barrier receives depends on which CTAs issue it; arrive_count(1) is not checked (jfa-interp checks it when it runs)}}
    jfa.atomic_fetch_add %counter[%c0], %c1 into %s arrive %f and cta %peer : !jfa.ptr<i32>, !jfa.slot<1xi32>
  }
  jfa.barrier_wait %f, %c0 acquire(cluster)
}
