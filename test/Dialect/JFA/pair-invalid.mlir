// RUN: jfa-opt %s --split-input-file --verify-diagnostics
// CTA-pair products (jfa.tc_dot ... pair) and the loads that feed them
// (jfa.tma_load ... on cta): the operand rules and ranks the verifiers
// check. The kernel-wide rules (all products pair, an even cluster) are
// jfa-check-target's (test/Transforms/check-target-pair.mlir).

jfa.kernel @b_too_wide() warps(4) cluster(2, 1, 1) {
  %a = jfa.local_alloc : !jfa.smem<1 x 128x64xbf16, swizzle 128>
  %b = jfa.local_alloc : !jfa.smem<1 x 256x64xbf16, swizzle 128>
  %acc = jfa.tmem_alloc : !jfa.tmem<128x512xf32>
  %c0 = arith.constant 0 : i32
  %true = arith.constant true
  %sa = jfa.slot %a[%c0] : !jfa.smem<1 x 128x64xbf16, swizzle 128>, i32
  %sb = jfa.slot %b[%c0] : !jfa.smem<1 x 256x64xbf16, swizzle 128>, i32
  // expected-error @+1 {{'jfa.tc_dot' op pair: each CTA holds N/2 of B's rows, a multiple of 8 up to 128 (N = 16 to 256), got 256}}
  jfa.tc_dot %sa, %sb, %acc, %true pair : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<256x64xbf16, swizzle 128>, !jfa.tmem<128x512xf32>
}

// -----

jfa.kernel @acc_too_narrow() warps(4) cluster(2, 1, 1) {
  %a = jfa.local_alloc : !jfa.smem<1 x 128x64xbf16, swizzle 128>
  %acc = jfa.tmem_alloc : !jfa.tmem<128x128xf32>
  %c0 = arith.constant 0 : i32
  %true = arith.constant true
  %sa = jfa.slot %a[%c0] : !jfa.smem<1 x 128x64xbf16, swizzle 128>, i32
  // Each CTA's 128 rows of B make N = 256 columns of the accumulator.
  // expected-error @+1 {{'jfa.tc_dot' op the accumulator has 128 columns, fewer than N = 256}}
  jfa.tc_dot %sa, %sa, %acc, %true pair : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, !jfa.tmem<128x128xf32>
}

// -----

jfa.kernel @a_in_tmem() warps(4) cluster(2, 1, 1) {
  %b = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %p = jfa.tmem_alloc : !jfa.tmem<128x64xbf16>
  %acc = jfa.tmem_alloc : !jfa.tmem<128x128xf32>
  %c0 = arith.constant 0 : i32
  %true = arith.constant true
  %sb = jfa.slot %b[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  // expected-error @+1 {{'jfa.tc_dot' op pair products take A and B K-major from shared memory (each CTA's half at the same slot); got A '!jfa.tmem<128x64xbf16>'}}
  jfa.tc_dot %p, %sb, %acc, %true pair : !jfa.tmem<128x64xbf16>, !jfa.slot<64x64xbf16, swizzle 128>, !jfa.tmem<128x128xf32>
}

// -----

jfa.kernel @load_beyond_cluster(%d: !jfa.tma<128x64xbf16, swizzle 128>) warps(4) cluster(2, 1, 1) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 128x64xbf16, swizzle 128>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c2 = arith.constant 2 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 128x64xbf16, swizzle 128>, i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  // expected-error @+1 {{'jfa.tma_load' op completes on a barrier of CTA 2 of a cluster of 2 CTAs; ranks run from 0 to the cluster's size - 1}}
  jfa.tma_load %d[%c0, %c0], %s, %b on cta %c2 : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
}

// -----

jfa.kernel @load_both(%d: !jfa.tma<128x64xbf16, swizzle 128>) warps(4) cluster(2, 1, 1) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 128x64xbf16, swizzle 128>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %both = arith.constant 3 : i16
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 128x64xbf16, swizzle 128>, i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  // expected-error @+1 {{'jfa.tma_load' op takes either multicast(...) or on cta, not both}}
  jfa.tma_load %d[%c0, %c0], %s, %b multicast(%both) on cta %c0 : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
}

// -----

jfa.kernel @fp8_pair() warps(4) cluster(2, 1, 1) {
  %a = jfa.local_alloc : !jfa.smem<1 x 128x128xf8E4M3FN, swizzle 128>
  %acc = jfa.tmem_alloc : !jfa.tmem<128x256xf32>
  %c0 = arith.constant 0 : i32
  %true = arith.constant true
  %sa = jfa.slot %a[%c0] : !jfa.smem<1 x 128x128xf8E4M3FN, swizzle 128>, i32
  // expected-error @+1 {{'jfa.tc_dot' op pair products take bf16 or f16 operands (kind::f16) for now, got 'f8E4M3FN'}}
  jfa.tc_dot %sa, %sa, %acc, %true pair : !jfa.slot<128x128xf8E4M3FN, swizzle 128>, !jfa.slot<128x128xf8E4M3FN, swizzle 128>, !jfa.tmem<128x256xf32>
}
