// RUN: jfa-opt %s --split-input-file --jfa-check-target=arch=sm_100a --verify-diagnostics
// The kernel-wide rules of CTA-pair products: tcgen05 ops of cta_group::1
// and ::2 do not mix in one kernel, a pair needs a cluster of an even size,
// and a load `on cta` feeds a pair product.

jfa.kernel @mixed() warps(4) cluster(2, 1, 1) {
  %a = jfa.local_alloc : !jfa.smem<1 x 128x64xbf16, swizzle 128>
  %acc = jfa.tmem_alloc : !jfa.tmem<128x256xf32>
  %c0 = arith.constant 0 : i32
  %true = arith.constant true
  %sa = jfa.slot %a[%c0] : !jfa.smem<1 x 128x64xbf16, swizzle 128>, i32
  // expected-note @+1 {{a pair product}}
  jfa.tc_dot %sa, %sa, %acc, %true pair : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, !jfa.tmem<128x256xf32>
  // expected-error @+1 {{'jfa.tc_dot' op is a single-CTA product in a kernel with CTA-pair products; tcgen05 ops of cta_group::1 and ::2 do not mix in one kernel: make every product `pair`}}
  jfa.tc_dot %sa, %sa, %acc, %true : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, !jfa.tmem<128x256xf32>
}

// -----

// expected-error @+1 {{'jfa.kernel' op has a CTA-pair product but a cluster of 1 CTA; a pair is ranks 2i and 2i + 1: set cluster(x, y, z) to an even number of CTAs}}
jfa.kernel @no_cluster() warps(4) {
  %a = jfa.local_alloc : !jfa.smem<1 x 128x64xbf16, swizzle 128>
  %acc = jfa.tmem_alloc : !jfa.tmem<128x256xf32>
  %c0 = arith.constant 0 : i32
  %true = arith.constant true
  %sa = jfa.slot %a[%c0] : !jfa.smem<1 x 128x64xbf16, swizzle 128>, i32
  // expected-note @+1 {{the pair product}}
  jfa.tc_dot %sa, %sa, %acc, %true pair : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, !jfa.tmem<128x256xf32>
}

// -----

// expected-error @+1 {{'jfa.kernel' op has a CTA-pair product but a cluster of 3 CTAs}}
jfa.kernel @odd_cluster() warps(4) cluster(3, 1, 1) {
  %a = jfa.local_alloc : !jfa.smem<1 x 128x64xbf16, swizzle 128>
  %acc = jfa.tmem_alloc : !jfa.tmem<128x256xf32>
  %c0 = arith.constant 0 : i32
  %true = arith.constant true
  %sa = jfa.slot %a[%c0] : !jfa.smem<1 x 128x64xbf16, swizzle 128>, i32
  // expected-note @+1 {{the pair product}}
  jfa.tc_dot %sa, %sa, %acc, %true pair : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, !jfa.tmem<128x256xf32>
}

// -----

jfa.kernel @load_without_pair(%d: !jfa.tma<128x64xbf16, swizzle 128>) warps(4) cluster(2, 1, 1) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 128x64xbf16, swizzle 128>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 128x64xbf16, swizzle 128>, i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  jfa.barrier_expect %b, bytes(16384)
  // expected-error @+1 {{'jfa.tma_load' op completes on a peer CTA's barrier (on cta), which feeds a CTA-pair product, but the kernel has no `jfa.tc_dot ... pair`}}
  jfa.tma_load %d[%c0, %c0], %s, %b on cta %c0 : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
  jfa.barrier_wait %b, %c0
}
