// RUN: jfa-opt %s --split-input-file --jfa-check-barriers --verify-diagnostics
// One case per verifier error of the dialect.

jfa.kernel @k() warps(4) {
  // expected-error @+1 {{shared-memory buffer needs at least one slot, got 0}}
  %a = jfa.local_alloc : !jfa.smem<0 x 64xf32>
}

// -----

jfa.kernel @k() warps(4) {
  // expected-error @+1 {{shared-memory buffer dimensions must be positive, got 0}}
  %a = jfa.local_alloc : !jfa.smem<1 x 0x64xf32>
}

// -----

jfa.kernel @k() warps(4) {
  // expected-error @+1 {{shared-memory buffer element type must be an integer or float of a whole number of bytes, got 'i1'}}
  %a = jfa.local_alloc : !jfa.smem<1 x 64xi1>
}

// -----

// expected-error @+1 {{TMA box rank must be at most 5, got 6}}
jfa.kernel @k(%a: !jfa.tma<1x1x1x1x1x16xf32>) warps(4) {}

// -----

// expected-error @+1 {{TMA box dimensions must be at most 256, got 512}}
jfa.kernel @k(%a: !jfa.tma<512x64xf32>) warps(4) {}

// -----

// expected-error @+1 {{TMA box inner dimension must span a multiple of 16 bytes, got 12 bytes}}
jfa.kernel @k(%a: !jfa.tma<64x3xf32>) warps(4) {}

// -----

jfa.kernel @k() warps(4) {
  // expected-error @+1 {{mbarrier array needs at least one barrier, got 0}}
  %a = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<0>
}

// -----

// expected-error @+1 {{TMA box needs a tile shape of rank >= 1}}
jfa.kernel @k(%a: !jfa.tma<f32>) warps(4) {}

// -----

// expected-error @+1 {{'jfa.kernel' op warps must be in [1, 32] (at most 1024 threads per CTA), got 33}}
jfa.kernel @k() warps(33) {}

// -----

// expected-error @+1 {{'jfa.kernel' op cluster needs 3 dimensions (x, y, z), got 2}}
jfa.kernel @k() warps(4) cluster(2, 1) {}

// -----

// expected-error @+1 {{'jfa.kernel' op cluster dimensions must be positive, got 0}}
jfa.kernel @k() warps(4) cluster(0, 1, 1) {}

// -----

// expected-error @+1 {{'jfa.kernel' op a cluster holds at most 16 CTAs, got 32}}
jfa.kernel @k() warps(4) cluster(8, 4, 1) {}

// -----

// expected-error @+1 {{'jfa.kernel' op parameter 0 has type 'tensor<4xf32>'; kernel parameters are !jfa.tma, !jfa.ptr, i32, i64, f32 or f64}}
jfa.kernel @k(%a: tensor<4xf32>) warps(4) {}

// -----

// expected-error @+1 {{'jfa.kernel' op uses 262144 bytes of shared memory, more than the 232448 bytes (227 KiB) a CTA can have}}
jfa.kernel @k() warps(4) {
  // expected-note @+1 {{allocation at offset 0}}
  %a = jfa.local_alloc : !jfa.smem<4 x 128x128xf32>
}

// -----

jfa.kernel @k() warps(4) {
  jfa.async_tasks {
    jfa.task default {}
  }
  // expected-error @+1 {{'jfa.async_tasks' op a kernel has at most one jfa.async_tasks}}
  jfa.async_tasks {
    jfa.task default {}
  }
}

// -----

jfa.kernel @k() warps(4) {
  jfa.async_tasks {
    // expected-error @+1 {{'jfa.thread_id' op cannot appear directly in jfa.async_tasks; put it inside a jfa.task}}
    %t = jfa.thread_id
    jfa.task default {}
  }
}

// -----

jfa.kernel @k() warps(4) {
  // expected-error @+1 {{'jfa.async_tasks' op needs at least one jfa.task}}
  jfa.async_tasks {
  }
}

// -----

jfa.kernel @k() warps(8) {
  // expected-error @+1 {{'jfa.async_tasks' op has 2 default tasks; at most one is allowed}}
  jfa.async_tasks {
    jfa.task default {}
    jfa.task default {}
  }
}

// -----

jfa.kernel @k() warps(8) {
  // expected-error @+1 {{'jfa.async_tasks' op tasks use 6 warps but the kernel has warps(8)}}
  jfa.async_tasks {
    jfa.task warps(4) {}
    jfa.task warps(2) {}
  }
}

// -----

jfa.kernel @k() warps(8) {
  // expected-error @+1 {{'jfa.async_tasks' op tasks use 8 warps, leaving none for the default task of a warps(8) kernel}}
  jfa.async_tasks {
    jfa.task warps(8) {}
    jfa.task default {}
  }
}

// -----

jfa.kernel @k() warps(12) {
  jfa.async_tasks {
    jfa.task warps(2) {}
    // expected-error @+1 {{'jfa.task' op sets registers(232) but runs on warps [2, 6); setmaxnreg needs whole warpgroups (4 warps starting at a multiple of 4)}}
    jfa.task warps(4) registers(232) {}
    jfa.task default {}
  }
}

// -----

jfa.kernel @k() warps(12) {
  // The SM has 65536, but a 384-thread CTA starts with 168 a thread (64512):
  // 2 x 240 + 32 per lane of a warpgroup is more than it can raise to.
  // expected-error @+1 {{'jfa.async_tasks' op register budgets need 65536 registers (each task's registers, 168 for a task without one, times its threads), more than the 64512 a warps(12) CTA starts with (168 a thread): setmaxnreg.inc only takes registers another task gave back, so the raise would wait forever}}
  jfa.async_tasks {
    jfa.task warps(8) registers(240) {}
    jfa.task default registers(32) {}
  }
}

// -----

jfa.kernel @k() warps(12) {
  // expected-error @+1 {{'jfa.async_tasks' op register budgets add up to 86016 registers, more than the 65536 of an SM}}
  jfa.async_tasks {
    jfa.task warps(4) registers(232) {}
    jfa.task warps(4) registers(232) {}
    jfa.task default registers(208) {}
  }
}

// -----

jfa.kernel @k() warps(8) {
  jfa.async_tasks {
    // expected-error @+1 {{'jfa.task' op the default task takes the remaining warps; drop warps(4)}}
    jfa.task default warps(4) {}
  }
}

// -----

jfa.kernel @k() warps(8) {
  jfa.async_tasks {
    // expected-error @+1 {{'jfa.task' op needs warps(N) or `default`}}
    jfa.task {}
  }
}

// -----

jfa.kernel @k() warps(8) {
  jfa.async_tasks {
    // expected-error @+1 {{'jfa.task' op registers(100) is not a valid setmaxnreg budget: it must be a multiple of 8 in [24, 256]}}
    jfa.task default registers(100) {}
  }
}

// -----

jfa.kernel @k() warps(8) {
  jfa.async_tasks {
    // expected-error @+1 {{'jfa.task' op registers(16) is not a valid setmaxnreg budget: it must be a multiple of 8 in [24, 256]}}
    jfa.task default registers(16) {}
  }
}

// -----

jfa.kernel @k() warps(8) {
  // expected-error @+1 {{'jfa.named_barrier_sync' op threads must be a multiple of 32 in [32, 1024], got 48}}
  jfa.named_barrier_sync id(1) threads(48)
}

// -----

jfa.kernel @k() warps(8) {
  // expected-error @+1 {{'jfa.named_barrier_arrive' op attribute 'id' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 0 whose maximum value is 15}}
  jfa.named_barrier_arrive id(16) threads(64)
}

// -----

jfa.kernel @k() warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<3 x 64xf32>
  %c3 = arith.constant 3 : i32
  // expected-error @+1 {{'jfa.slot' op slot index 3 is out of range [0, 3)}}
  %s = jfa.slot %buf[%c3] : !jfa.smem<3 x 64xf32>, i32
}

// -----

jfa.kernel @k() warps(4) {
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  %c = arith.constant -1 : i32
  // expected-error @+1 {{'jfa.barrier' op barrier index -1 is out of range [0, 2)}}
  %b = jfa.barrier %bars[%c] : !jfa.mbarriers<2>, i32
}

// -----

jfa.kernel @k() warps(4) {
  // expected-error @+1 {{'jfa.alloc_barriers' op arrive_count must be in [1, 1048575], got 0}}
  %bars = jfa.alloc_barriers arrive_count(0) : !jfa.mbarriers<2>
}

// -----

jfa.kernel @k() warps(4) {
  jfa.async_tasks {
    jfa.task default {
      // expected-error @+1 {{'jfa.local_alloc' op expects parent op 'jfa.kernel'}}
      %buf = jfa.local_alloc : !jfa.smem<1 x 64xf32>
    }
  }
}

// -----

jfa.kernel @k() warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x64xf32>, i32
  // expected-error @+1 {{'jfa.local_load' op register tile 'tensor<64x32xf32>' does not match the slot '!jfa.slot<64x64xf32>'}}
  %t = jfa.local_load %s : !jfa.slot<64x64xf32> -> tensor<64x32xf32>
}

// -----

jfa.kernel @k() warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x64xf32>, i32
  %t = arith.constant dense<1.0> : tensor<64x64xf16>
  // expected-error @+1 {{'jfa.local_store' op register tile 'tensor<64x64xf16>' does not match the slot '!jfa.slot<64x64xf32>'}}
  jfa.local_store %t, %s : tensor<64x64xf16> -> !jfa.slot<64x64xf32>
}

// -----

jfa.kernel @k() warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x64xf32>, i32
  // expected-error @+1 {{'jfa.load_fragment' op fragment 'vector<16xf32>' times 128 threads does not cover the slot '!jfa.slot<64x64xf32>'}}
  %v = jfa.load_fragment %s, %c0 threads(128) : !jfa.slot<64x64xf32> -> vector<16xf32>
}

// -----

jfa.kernel @k(%d: !jfa.tma<64x64xf32>) warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x64xf32>, i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  // expected-error @+1 {{'jfa.barrier_expect' op expects 8192 bytes but the TMA loads completing on this barrier bring 16384}}
  jfa.barrier_expect %b, bytes(8192)
  // expected-note @+1 {{this load brings 16384 bytes}}
  jfa.tma_load %d[%c0, %c0], %s, %b : !jfa.tma<64x64xf32>, !jfa.slot<64x64xf32>
  jfa.barrier_wait %b, %c0
}

// -----

jfa.kernel @k() warps(4) {
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  // expected-error @+1 {{'jfa.barrier_expect' op bytes must be in [1, 1048575], got 0}}
  jfa.barrier_expect %b, bytes(0)
}

// -----

jfa.kernel @k(%d: !jfa.tma<64x64xf32>) warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x64xf32>, i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  // expected-error @+1 {{'jfa.tma_load' op needs 2 coordinates for '!jfa.tma<64x64xf32>', got 1}}
  jfa.tma_load %d[%c0], %s, %b : !jfa.tma<64x64xf32>, !jfa.slot<64x64xf32>
}

// -----

jfa.kernel @tma_prefetch_coords(%d: !jfa.tma<2x64x32xbf16>) warps(4) {
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{'jfa.tma_prefetch' op needs 3 coordinates for '!jfa.tma<2x64x32xbf16>', got 2}}
  jfa.tma_prefetch %d[%c0, %c0] : !jfa.tma<2x64x32xbf16>
}

// -----

jfa.kernel @k(%d: !jfa.tma<64x32xf32>) warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x64xf32>, i32
  // expected-error @+1 {{'jfa.tma_store' op TMA box '!jfa.tma<64x32xf32>' does not match the slot '!jfa.slot<64x64xf32>'}}
  jfa.tma_store %s, %d[%c0, %c0] : !jfa.slot<64x64xf32>, !jfa.tma<64x32xf32>
}

// -----

jfa.kernel @k() warps(4) {
  // expected-error @+1 {{'jfa.tma_store_wait' op attribute 'pending' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 0}}
  jfa.tma_store_wait pending(-1)
}

// -----

// expected-error @+1 {{'jfa.thread_id' op must be inside a jfa.kernel}}
%t = jfa.thread_id
