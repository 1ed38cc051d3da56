// RUN: jfa-opt %s --split-input-file --jfa-check-barriers --verify-diagnostics
// The barrier protocol checks: one case per error, warning and remark, and
// protocols that must pass without a word.

// A producer/consumer ring: the producer's expect-tx is the one arrival on
// `full`, the 128 consumer threads release `empty`. No diagnostics.
jfa.kernel @ring(%x: !jfa.tma<64x64xf32>, %n: i32) warps(8) {
  %ring = jfa.local_alloc : !jfa.smem<2 x 64x64xf32>
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  %empty = jfa.alloc_barriers arrive_count(128) : !jfa.mbarriers<2>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  jfa.async_tasks {
    jfa.task default {
      scf.for %k = %c0 to %n step %c1 : i32 {
        %s = arith.remui %k, %c2 : i32
        %f = jfa.barrier %full[%s] : !jfa.mbarriers<2>, i32
        jfa.barrier_wait %f, %c0
        %e = jfa.barrier %empty[%s] : !jfa.mbarriers<2>, i32
        jfa.barrier_arrive %e
      }
    }
    jfa.task warps(4) {
      scf.for %k = %c0 to %n step %c1 : i32 {
        %s = arith.remui %k, %c2 : i32
        %e = jfa.barrier %empty[%s] : !jfa.mbarriers<2>, i32
        jfa.barrier_wait %e, %c1
        %f = jfa.barrier %full[%s] : !jfa.mbarriers<2>, i32
        %slot = jfa.slot %ring[%s] : !jfa.smem<2 x 64x64xf32>, i32
        jfa.barrier_expect %f, bytes(16384)
        jfa.tma_load %x[%c0, %c0], %slot, %f : !jfa.tma<64x64xf32>, !jfa.slot<64x64xf32>
      }
    }
  }
}

// -----

// Both paths of an scf.if arrive the same number of times: counted. Two
// barriers of one array with constant indices are counted apart.
jfa.kernel @same_on_both_paths(%c: i32) warps(4) {
  %p = arith.cmpi ne, %c, %c : i32
  %bars = jfa.alloc_barriers arrive_count(128) : !jfa.mbarriers<2>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %b0 = jfa.barrier %bars[%c0] : !jfa.mbarriers<2>, i32
  %b1 = jfa.barrier %bars[%c1] : !jfa.mbarriers<2>, i32
  scf.if %p {
    jfa.barrier_arrive %b0
  } else {
    jfa.barrier_arrive %b0
  }
  jfa.barrier_wait %b0, %c0
  jfa.barrier_arrive %b1
  jfa.barrier_wait %b1, %c0
}

// -----

jfa.kernel @never_signalled() warps(4) {
  // expected-note @+1 {{barrier array allocated here}}
  %bars = jfa.alloc_barriers arrive_count(128) : !jfa.mbarriers<2>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %b0 = jfa.barrier %bars[%c0] : !jfa.mbarriers<2>, i32
  %b1 = jfa.barrier %bars[%c1] : !jfa.mbarriers<2>, i32
  jfa.barrier_arrive %b0
  jfa.barrier_wait %b0, %c0
  // expected-error-re @+1 {{waits on barrier 1 of the barrier array at line {{[0-9]+}}, which nothing signals: no jfa.barrier_arrive, jfa.barrier_expect, jfa.tma_load or jfa.tc_commit completes a phase of it, so this wait never returns}}
  jfa.barrier_wait %b1, %c0
}

// -----

jfa.kernel @never_waited() warps(4) {
  // expected-warning-re @+1 {{barrier array at line {{[0-9]+}} is signalled but never waited on}}
  %bars = jfa.alloc_barriers arrive_count(128) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  jfa.barrier_arrive %b
}

// -----

// The classic: arrive_count(1) on the barrier a 128-thread consumer task
// releases with jfa.barrier_arrive (every thread arrives).
jfa.kernel @too_many_arrivals(%x: !jfa.tma<64x64xf32>, %n: i32) warps(8) {
  %ring = jfa.local_alloc : !jfa.smem<2 x 64x64xf32>
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  // expected-error-re @+1 {{barrier array at line {{[0-9]+}} expects 1 arrivals per phase (arrive_count) but its tasks arrive 128 times}}
  %empty = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  jfa.async_tasks {
    jfa.task default {
      scf.for %k = %c0 to %n step %c1 : i32 {
        %s = arith.remui %k, %c2 : i32
        %f = jfa.barrier %full[%s] : !jfa.mbarriers<2>, i32
        jfa.barrier_wait %f, %c0
        %e = jfa.barrier %empty[%s] : !jfa.mbarriers<2>, i32
        // expected-note @+1 {{arrives 128 times: every thread of task 0 (warps 0-3)}}
        jfa.barrier_arrive %e
      }
    }
    jfa.task warps(4) {
      scf.for %k = %c0 to %n step %c1 : i32 {
        %s = arith.remui %k, %c2 : i32
        %e = jfa.barrier %empty[%s] : !jfa.mbarriers<2>, i32
        jfa.barrier_wait %e, %c1
        %f = jfa.barrier %full[%s] : !jfa.mbarriers<2>, i32
        %slot = jfa.slot %ring[%s] : !jfa.smem<2 x 64x64xf32>, i32
        jfa.barrier_expect %f, bytes(16384)
        jfa.tma_load %x[%c0, %c0], %slot, %f : !jfa.tma<64x64xf32>, !jfa.slot<64x64xf32>
      }
    }
  }
}

// -----

// Two single-thread arrivals (expect-tx and a tensor-core commit) on one
// barrier of arrive_count(1), counted per constant index.
jfa.kernel @two_single_thread_arrivals(%x: !jfa.tma<128x64xbf16, swizzle 128>) warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 128x64xbf16, swizzle 128>
  // expected-error-re @+1 {{barrier 0 of the barrier array at line {{[0-9]+}} expects 1 arrivals per phase (arrive_count) but its tasks arrive 2 times}}
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  %c0 = arith.constant 0 : i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<2>, i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 128x64xbf16, swizzle 128>, i32
  // expected-note @+1 {{arrives once: jfa.barrier_expect is issued by one thread}}
  jfa.barrier_expect %b, bytes(16384)
  jfa.tma_load %x[%c0, %c0], %s, %b : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
  // expected-note @+1 {{arrives once: jfa.tc_commit is issued by one thread}}
  jfa.tc_commit %b
  jfa.barrier_wait %b, %c0
}

// -----

// A TMA load alone brings bytes but no arrival: the phase never completes.
jfa.kernel @load_without_expect(%x: !jfa.tma<64x64xf32>) warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
  // expected-error-re @+2 {{barrier 0 of the barrier array at line {{[0-9]+}} expects 1 arrivals per phase (arrive_count) but its tasks arrive 0 times}}
  // expected-note @+1 {{only TMA loads (or jfa.try_cancel) complete on it, and they bring bytes, not arrivals: arm it with jfa.barrier_expect}}
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x64xf32>, i32
  jfa.tma_load %x[%c0, %c0], %s, %b : !jfa.tma<64x64xf32>, !jfa.slot<64x64xf32>
  jfa.barrier_wait %b, %c0
}

// -----

// The pipelined release of the previous slot (gemm_sm90): only some
// iterations arrive. A path that arrives nothing completes no phase, so the
// count is that of the arriving path, and it matches.
jfa.kernel @arrive_on_some_paths(%n: i32) warps(4) {
  %bars = jfa.alloc_barriers arrive_count(128) : !jfa.mbarriers<2>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  scf.for %k = %c0 to %n step %c1 : i32 {
    %s = arith.remui %k, %c2 : i32
    %b = jfa.barrier %bars[%s] : !jfa.mbarriers<2>, i32
    jfa.barrier_wait %b, %c0
    %has_prev = arith.cmpi ugt, %k, %c0 : i32
    scf.if %has_prev {
      jfa.barrier_arrive %b
    }
  }
}

// -----

// Two paths that both arrive, a different number of times.
jfa.kernel @arrive_differently_on_two_paths(%n: i32) warps(4) {
  %bars = jfa.alloc_barriers arrive_count(128) : !jfa.mbarriers<2>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  scf.for %k = %c0 to %n step %c1 : i32 {
    %s = arith.remui %k, %c2 : i32
    %b = jfa.barrier %bars[%s] : !jfa.mbarriers<2>, i32
    jfa.barrier_wait %b, %c0
    %even = arith.cmpi eq, %s, %c0 : i32
    // expected-remark-re @+1 {{cannot count the arrivals per phase on barrier array at line {{[0-9]+}}: the paths of this scf.if give different counts (256, 128); arrive_count(128) is not checked}}
    scf.if %even {
      jfa.barrier_arrive %b
      jfa.barrier_arrive %b
    } else {
      jfa.barrier_arrive %b
    }
  }
}

// -----

// A path that arrives nothing does not excuse a wrong count on the other.
jfa.kernel @arrive_wrongly_on_one_path(%n: i32) warps(4) {
  // expected-error-re @+1 {{barrier 0 of the barrier array at line {{[0-9]+}} expects 1 arrivals per phase (arrive_count) but its tasks arrive 128 times}}
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  jfa.barrier_wait %b, %c0
  %p = arith.cmpi ne, %n, %c0 : i32
  scf.if %p {
    // expected-note @+1 {{arrives 128 times}}
    jfa.barrier_arrive %b
  }
}

// -----

// One task arrives before its loop, in it and after it (a pipelined loop
// with its first and last iterations peeled): different phases, each of
// which must reach the count on its own. These do.
jfa.kernel @arrive_in_and_out_of_loop(%n: i32) warps(4) {
  %bars = jfa.alloc_barriers arrive_count(128) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  jfa.barrier_arrive %b
  scf.for %k = %c0 to %n step %c1 : i32 {
    jfa.barrier_wait %b, %c0
    jfa.barrier_arrive %b
  }
  jfa.barrier_arrive %b
}

// -----

// The same, with the phase before the loop short of arrivals.
jfa.kernel @peeled_phase_short(%n: i32) warps(4) {
  // expected-error-re @+1 {{barrier 0 of the barrier array at line {{[0-9]+}} expects 256 arrivals per phase (arrive_count) but its tasks arrive 128 times}}
  %bars = jfa.alloc_barriers arrive_count(256) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  // expected-note @+1 {{arrives 128 times}}
  jfa.barrier_arrive %b
  scf.for %k = %c0 to %n step %c1 : i32 {
    jfa.barrier_wait %b, %c0
    jfa.barrier_arrive %b
    jfa.barrier_arrive %b
  }
}

// -----

// Two tasks, one of them arriving in and out of its loop: which of their
// phases coincide is not known.
jfa.kernel @several_tasks_several_phases(%n: i32) warps(8) {
  %bars = jfa.alloc_barriers arrive_count(256) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  // expected-remark-re @+1 {{cannot count the arrivals per phase on barrier 0 of the barrier array at line {{[0-9]+}}: several tasks arrive on it, one of them in loops and outside them: which of their phases coincide is a guess; arrive_count(256) is not checked}}
  jfa.async_tasks {
    jfa.task warps(4) {
      jfa.barrier_arrive %b
      scf.for %k = %c0 to %n step %c1 : i32 {
        jfa.barrier_wait %b, %c0
        jfa.barrier_arrive %b
      }
    }
    jfa.task default {
      scf.for %k = %c0 to %n step %c1 : i32 {
        jfa.barrier_arrive %b
      }
    }
  }
}

// -----

// An scf.while is a loop like an scf.for: the arrivals of one iteration
// (both regions) are one phase's, here 128 as armed. No diagnostics.
jfa.kernel @arrive_in_while(%n: i32) warps(4) {
  %bars = jfa.alloc_barriers arrive_count(128) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  %r = scf.while (%i = %c0) : (i32) -> i32 {
    %go = arith.cmpi ult, %i, %n : i32
    scf.condition(%go) %i : i32
  } do {
  ^bb0(%j: i32):
    jfa.barrier_arrive %b
    jfa.barrier_wait %b, %c0
    %next = arith.addi %j, %c1 : i32
    scf.yield %next : i32
  }
}

// -----

jfa.kernel @mixed_indices(%n: i32) warps(4) {
  // expected-remark-re @+1 {{the signals on barrier array at line {{[0-9]+}} use both constant and dynamic barrier indices; the pass cannot tell which barrier each dynamic one reaches, so it does not check arrive_count(128)}}
  %bars = jfa.alloc_barriers arrive_count(128) : !jfa.mbarriers<2>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %b0 = jfa.barrier %bars[%c0] : !jfa.mbarriers<2>, i32
  jfa.barrier_arrive %b0
  scf.for %k = %c0 to %n step %c1 : i32 {
    %s = arith.remui %k, %c2 : i32
    %b = jfa.barrier %bars[%s] : !jfa.mbarriers<2>, i32
    jfa.barrier_wait %b, %c0
    jfa.barrier_arrive %b
  }
}

// -----

// A barrier carried through a loop cannot be traced to its array.
jfa.kernel @untraced(%n: i32) warps(4) {
  %bars = jfa.alloc_barriers arrive_count(128) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  jfa.barrier_arrive %b
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%it = %b) -> (!jfa.mbarrier) : i32 {
    // expected-remark @+1 {{cannot tell which barrier array this op uses (its barrier is not a jfa.barrier of a jfa.alloc_barriers); the barrier checks skip it}}
    jfa.barrier_wait %it, %c0
    scf.yield %it : !jfa.mbarrier
  }
}

// -----

// A dynamic work queue: the fetch is one arrival per phase on `next_full`
// (one thread issues it), inside an scf.while whose two regions make one
// iteration; `next_empty` gets the 128 readers' arrivals. The count on
// `next_full` is wrong here.
// expected-error @+4 {{barrier array at line}}
// expected-note @+14 {{arrives once: jfa.atomic_fetch_add is issued by one thread}}
jfa.kernel @work_queue(%counter: !jfa.ptr<i32>, %units: i32) warps(4) {
  %next = jfa.local_alloc : !jfa.smem<2 x 1xi32>
  %next_full = jfa.alloc_barriers arrive_count(2) : !jfa.mbarriers<2>
  %next_empty = jfa.alloc_barriers arrive_count(128) : !jfa.mbarriers<2>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r:2 = scf.while (%n = %c0) : (i32) -> (i32, i32) {
    %s, %phase = jfa.ring_position %n stages(2) : i32
    %slot = jfa.slot %next[%s] : !jfa.smem<2 x 1xi32>, i32
    %full = jfa.barrier %next_full[%s] : !jfa.mbarriers<2>, i32
    %empty = jfa.barrier %next_empty[%s] : !jfa.mbarriers<2>, i32
    %free = arith.xori %phase, %c1 : i32
    jfa.barrier_wait %empty, %free
    jfa.atomic_fetch_add %counter[%c0], %c1 into %slot arrive %full : !jfa.ptr<i32>, !jfa.slot<1xi32>
    jfa.barrier_wait %full, %phase
    %u = jfa.load_scalar %slot[%c0] : !jfa.slot<1xi32> -> i32
    jfa.barrier_arrive %empty
    %more = arith.cmpi slt, %u, %units : i32
    scf.condition(%more) %u, %n : i32, i32
  } do {
  ^bb0(%u: i32, %n: i32):
    %n1 = arith.addi %n, %c1 : i32
    scf.yield %n1 : i32
  }
}

// -----

// A ring slot that TMA fills, read by the consumer's threads and handed
// back with no proxy fence after the read (issue 24's reproducer): the next
// TMA load may overwrite it before the read has its data.
jfa.kernel @unfenced_release(%x: !jfa.tma<64x64xf32>, %n: i32) warps(8) {
  %ring = jfa.local_alloc : !jfa.smem<2 x 64x64xf32>
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  %empty = jfa.alloc_barriers arrive_count(128) : !jfa.mbarriers<2>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  jfa.async_tasks {
    jfa.task default {
      scf.for %k = %c0 to %n step %c1 : i32 {
        %s = arith.remui %k, %c2 : i32
        %f = jfa.barrier %full[%s] : !jfa.mbarriers<2>, i32
        jfa.barrier_wait %f, %c0
        %slot = jfa.slot %ring[%s] : !jfa.smem<2 x 64x64xf32>, i32
        // expected-note @+1 {{the read}}
        %t = jfa.local_load %slot : !jfa.slot<64x64xf32> -> tensor<64x64xf32>
        %e = jfa.barrier %empty[%s] : !jfa.mbarriers<2>, i32
        // expected-warning @+1 {{hands back a slot that threads read and TMA loads fill, with no jfa.fence_async_shared after the read}}
        jfa.barrier_arrive %e
      }
    }
    jfa.task warps(4) {
      scf.for %k = %c0 to %n step %c1 : i32 {
        %s = arith.remui %k, %c2 : i32
        %e = jfa.barrier %empty[%s] : !jfa.mbarriers<2>, i32
        jfa.barrier_wait %e, %c1
        %f = jfa.barrier %full[%s] : !jfa.mbarriers<2>, i32
        %slot = jfa.slot %ring[%s] : !jfa.smem<2 x 64x64xf32>, i32
        jfa.barrier_expect %f, bytes(16384)
        jfa.tma_load %x[%c0, %c0], %slot, %f : !jfa.tma<64x64xf32>, !jfa.slot<64x64xf32>
      }
    }
  }
}

// -----

// Arrivals under a condition on jfa.task_thread_id count the threads it
// lets through: each warpgroup of a 256-thread task arrives at its own
// place (the sm_90a forward's Q-stage release), 128 + 128 per phase.
jfa.kernel @warpgroup_halves(%n: i32) warps(8) {
  %bars = jfa.alloc_barriers arrive_count(256) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c128 = arith.constant 128 : i32
  %t = jfa.task_thread_id
  %wg0 = arith.cmpi ult, %t, %c128 : i32
  scf.for %k = %c0 to %n step %c1 : i32 {
    %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
    scf.if %wg0 {
      jfa.barrier_arrive %b
    }
    scf.if %wg0 {
    } else {
      jfa.barrier_arrive %b
    }
    jfa.barrier_wait %b, %c0
  }
}

// -----

// One warpgroup's half alone: 128 of the 256, and the note says which
// threads arrive.
jfa.kernel @one_warpgroup_half(%n: i32) warps(8) {
  // expected-error-re @+1 {{barrier array at line {{[0-9]+}} expects 256 arrivals per phase (arrive_count) but its tasks arrive 128 times}}
  %bars = jfa.alloc_barriers arrive_count(256) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c128 = arith.constant 128 : i32
  %t = jfa.task_thread_id
  %wg1 = arith.cmpi uge, %t, %c128 : i32
  scf.for %k = %c0 to %n step %c1 : i32 {
    %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
    scf.if %wg1 {
      // expected-note @+1 {{arrives 128 times: threads of the CTA (warps 0-7) that the jfa.task_thread_id conditions around it let through}}
      jfa.barrier_arrive %b
    }
    jfa.barrier_wait %b, %c0
  }
}
