// RUN: jfa-opt %s --split-input-file --jfa-check-barriers --verify-diagnostics
// A CTA pair's protocol (kernels/gemm/gemm_pair_sm100.mlir): the even CTA
// alone arms the barrier (the expect alone under a condition on
// jfa.cluster_rank) and both CTAs' loads `on cta` complete there, so each
// load's box counts twice.

jfa.kernel @pair_expect_right(%a: !jfa.tma<128x64xbf16, swizzle 128>) warps(4) cluster(2, 1, 1) {
  %ring = jfa.local_alloc : !jfa.smem<2 x 128x64xbf16, swizzle 128>
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %rank = jfa.cluster_rank
  %odd = arith.andi %rank, %c1 : i32
  %even_rank = arith.subi %rank, %odd : i32
  %issues = arith.cmpi eq, %odd, %c0 : i32
  scf.for %kt = %c0 to %c2 step %c1 : i32 {
    %s = jfa.slot %ring[%kt] : !jfa.smem<2 x 128x64xbf16, swizzle 128>, i32
    %f = jfa.barrier %full[%kt] : !jfa.mbarriers<2>, i32
    scf.if %issues {
      jfa.barrier_expect %f, bytes(32768)
    }
    // expected-remark @+1 {{cannot count the arrivals per phase}}
    jfa.tma_load %a[%c0, %c0], %s, %f on cta %even_rank : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
    scf.if %issues {
      jfa.barrier_wait %f, %c0
    }
  }
}

// -----

jfa.kernel @pair_expect_one_half(%a: !jfa.tma<128x64xbf16, swizzle 128>) warps(4) cluster(2, 1, 1) {
  %ring = jfa.local_alloc : !jfa.smem<2 x 128x64xbf16, swizzle 128>
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %rank = jfa.cluster_rank
  %odd = arith.andi %rank, %c1 : i32
  %even_rank = arith.subi %rank, %odd : i32
  %issues = arith.cmpi eq, %odd, %c0 : i32
  scf.for %kt = %c0 to %c2 step %c1 : i32 {
    %s = jfa.slot %ring[%kt] : !jfa.smem<2 x 128x64xbf16, swizzle 128>, i32
    %f = jfa.barrier %full[%kt] : !jfa.mbarriers<2>, i32
    scf.if %issues {
      // expected-error @+1 {{'jfa.barrier_expect' op expects 16384 bytes but the TMA loads completing on this barrier bring 32768}}
      jfa.barrier_expect %f, bytes(16384)
    }
    // expected-remark @+2 {{cannot count the arrivals per phase}}
    // expected-note @+1 {{this load brings 32768 bytes (a CTA pair's load: one box from each CTA of the pair)}}
    jfa.tma_load %a[%c0, %c0], %s, %f on cta %even_rank : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
    scf.if %issues {
      jfa.barrier_wait %f, %c0
    }
  }
}
