// RUN: jfa-opt %s --jfa-check-target=arch=sm_90a --verify-diagnostics
// A CTA pair's load is a cta_group::2 copy: sm_100a only.

jfa.kernel @pair_load_on_sm90(%d: !jfa.tma<128x64xbf16, swizzle 128>) warps(4) cluster(2, 1, 1) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 128x64xbf16, swizzle 128>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 128x64xbf16, swizzle 128>, i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  jfa.barrier_expect %b, bytes(16384)
  // expected-error @+1 {{'jfa.tma_load' op completes on a peer CTA's barrier (on cta, cta_group::2), which sm_90a does not have (sm_100a only); on sm_90a share a tile with multicast(...)}}
  jfa.tma_load %d[%c0, %c0], %s, %b on cta %c0 : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
  jfa.barrier_wait %b, %c0
}
