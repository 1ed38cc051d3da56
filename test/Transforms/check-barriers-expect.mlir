// RUN: jfa-opt %s --split-input-file --jfa-check-barriers --verify-diagnostics
// The bytes armed by jfa.barrier_expect against the TMA loads completing on
// the same barrier: in its block and in the regions nested there.

// Loads in an scf.if body after the expect, the same on both paths.
jfa.kernel @loads_in_if(%x: !jfa.tma<64x64xf32>, %c: i32) warps(4) {
  %p = arith.cmpi ne, %c, %c : i32
  %buf = jfa.local_alloc : !jfa.smem<2 x 64x64xf32>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %s0 = jfa.slot %buf[%c0] : !jfa.smem<2 x 64x64xf32>, i32
  %s1 = jfa.slot %buf[%c1] : !jfa.smem<2 x 64x64xf32>, i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  // expected-error @+1 {{'jfa.barrier_expect' op expects 16384 bytes but the TMA loads completing on this barrier bring 32768}}
  jfa.barrier_expect %b, bytes(16384)
  scf.if %p {
    // expected-note @+1 {{this load brings 16384 bytes}}
    jfa.tma_load %x[%c0, %c0], %s0, %b : !jfa.tma<64x64xf32>, !jfa.slot<64x64xf32>
  } else {
    // expected-note @+1 {{this load brings 16384 bytes}}
    jfa.tma_load %x[%c1, %c0], %s0, %b : !jfa.tma<64x64xf32>, !jfa.slot<64x64xf32>
  }
  // expected-note @+1 {{this load brings 16384 bytes}}
  jfa.tma_load %x[%c0, %c1], %s1, %b : !jfa.tma<64x64xf32>, !jfa.slot<64x64xf32>
  jfa.barrier_wait %b, %c0
}

// -----

// A loop of constant trip count repeats its loads within the phase.
jfa.kernel @loads_in_loop(%x: !jfa.tma<64x64xf32>) warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<2 x 64x64xf32>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %b0 = jfa.barrier %bars[%c0] : !jfa.mbarriers<2>, i32
  %b1 = jfa.barrier %bars[%c1] : !jfa.mbarriers<2>, i32
  // Right: two loads of 16 KiB.
  jfa.barrier_expect %b0, bytes(32768)
  scf.for %i = %c0 to %c2 step %c1 : i32 {
    %s = jfa.slot %buf[%i] : !jfa.smem<2 x 64x64xf32>, i32
    jfa.tma_load %x[%i, %c0], %s, %b0 : !jfa.tma<64x64xf32>, !jfa.slot<64x64xf32>
  }
  jfa.barrier_wait %b0, %c0
  // Wrong: armed for one.
  // expected-error @+1 {{'jfa.barrier_expect' op expects 16384 bytes but the TMA loads completing on this barrier bring 32768}}
  jfa.barrier_expect %b1, bytes(16384)
  scf.for %i = %c0 to %c2 step %c1 : i32 {
    %s = jfa.slot %buf[%i] : !jfa.smem<2 x 64x64xf32>, i32
    // expected-note @+1 {{this load brings 16384 bytes, 2 times (in a loop)}}
    jfa.tma_load %x[%i, %c0], %s, %b1 : !jfa.tma<64x64xf32>, !jfa.slot<64x64xf32>
  }
  jfa.barrier_wait %b1, %c0
}

// -----

jfa.kernel @loads_in_dynamic_loop(%x: !jfa.tma<64x64xf32>, %n: i32) warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x64xf32>, i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  jfa.barrier_expect %b, bytes(16384)
  // expected-remark @+1 {{cannot check the 16384 bytes armed by a jfa.barrier_expect against the TMA loads completing on its barrier: this scf.for has no constant trip count}}
  scf.for %i = %c0 to %n step %c1 : i32 {
    jfa.tma_load %x[%i, %c0], %s, %b : !jfa.tma<64x64xf32>, !jfa.slot<64x64xf32>
  }
  jfa.barrier_wait %b, %c0
}

// -----

jfa.kernel @loads_on_one_path(%x: !jfa.tma<64x64xf32>, %c: i32) warps(4) {
  %p = arith.cmpi ne, %c, %c : i32
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x64xf32>, i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  jfa.barrier_expect %b, bytes(16384)
  // expected-remark @+1 {{cannot check the 16384 bytes armed by a jfa.barrier_expect against the TMA loads completing on its barrier: the paths of this scf.if give different counts (16384, 0)}}
  scf.if %p {
    jfa.tma_load %x[%c0, %c0], %s, %b : !jfa.tma<64x64xf32>, !jfa.slot<64x64xf32>
  }
  jfa.barrier_wait %b, %c0
}

// -----

// The paths disagree and none brings the armed bytes: every path is wrong,
// so it is an error, not a remark (issue 24).
jfa.kernel @no_path_matches(%x: !jfa.tma<64x64xf32>, %c: i32) warps(4) {
  %p = arith.cmpi ne, %c, %c : i32
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x64xf32>, i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  // expected-error @+1 {{'jfa.barrier_expect' op expects 32768 bytes but no path brings that many: the TMA loads completing on this barrier bring (16384, 0) bytes, depending on the path}}
  jfa.barrier_expect %b, bytes(32768)
  // expected-note @+1 {{the paths of this scf.if give different counts (16384, 0)}}
  scf.if %p {
    jfa.tma_load %x[%c0, %c0], %s, %b : !jfa.tma<64x64xf32>, !jfa.slot<64x64xf32>
  }
  jfa.barrier_wait %b, %c0
}

// -----

// Loads before and inside the branch: the paths bring 32768 or 16384; the
// armed 16384 matches the path that skips the branch, so it stays a remark.
jfa.kernel @one_path_matches(%x: !jfa.tma<64x64xf32>, %c: i32) warps(4) {
  %p = arith.cmpi ne, %c, %c : i32
  %buf = jfa.local_alloc : !jfa.smem<2 x 64x64xf32>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<2 x 64x64xf32>, i32
  %s1 = jfa.slot %buf[%c1] : !jfa.smem<2 x 64x64xf32>, i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  jfa.barrier_expect %b, bytes(16384)
  jfa.tma_load %x[%c0, %c0], %s, %b : !jfa.tma<64x64xf32>, !jfa.slot<64x64xf32>
  // expected-remark @+1 {{the paths of this scf.if give different counts (16384, 0)}}
  scf.if %p {
    jfa.tma_load %x[%c0, %c0], %s1, %b : !jfa.tma<64x64xf32>, !jfa.slot<64x64xf32>
  }
  jfa.barrier_wait %b, %c0
}

// -----

// Two branches: totals 0, 16384, 16384, 32768; the armed 8192 matches none.
jfa.kernel @two_branches(%x: !jfa.tma<64x64xf32>, %c: i32) warps(4) {
  %p = arith.cmpi ne, %c, %c : i32
  %buf = jfa.local_alloc : !jfa.smem<2 x 64x64xf32>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<2 x 64x64xf32>, i32
  %s1 = jfa.slot %buf[%c1] : !jfa.smem<2 x 64x64xf32>, i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  // expected-error @+1 {{expects 8192 bytes but no path brings that many: the TMA loads completing on this barrier bring (32768, 16384, 0) bytes}}
  jfa.barrier_expect %b, bytes(8192)
  // expected-note @+1 {{give different counts}}
  scf.if %p {
    jfa.tma_load %x[%c0, %c0], %s, %b : !jfa.tma<64x64xf32>, !jfa.slot<64x64xf32>
  }
  scf.if %p {
    jfa.tma_load %x[%c0, %c0], %s1, %b : !jfa.tma<64x64xf32>, !jfa.slot<64x64xf32>
  }
  jfa.barrier_wait %b, %c0
}
