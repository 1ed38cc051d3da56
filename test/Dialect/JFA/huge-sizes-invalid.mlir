// RUN: jfa-opt %s --split-input-file --verify-diagnostics
// Sizes whose byte counts overflow 64 bits are refused at the type, not
// wrapped to a small number that passes the kernel's shared-memory check
// (a 2^32 x 2^32 f32 buffer compiled as 0 bytes; 2^61 barriers passed as
// 0 bytes and jfa-convert-to-llvm then initialized them one by one: a hang).

jfa.kernel @k() warps(4) {
  // expected-error @+1 {{shared-memory buffer spans more than the 4294967296 bytes that 32-bit shared-memory addresses reach (a CTA has at most 232448 bytes)}}
  %b = jfa.local_alloc : !jfa.smem<1 x 4294967296x4294967296xf32>
}

// -----

jfa.kernel @k() warps(4) {
  // expected-error @+1 {{shared-memory buffer spans more than the 4294967296 bytes}}
  %b = jfa.local_alloc : !jfa.smem<9223372036854775807 x 64x64xf32>
}

// -----

jfa.func @f(%s: !jfa.slot<4611686018427387904x4xf32>) {
  jfa.return
}
// expected-error @-3 {{slot spans more than the 4294967296 bytes}}

// -----

jfa.kernel @k() warps(4) {
  // expected-error @+1 {{mbarrier array of 2305843009213693952 barriers does not fit in shared memory: 8 bytes each, at most 29056 in 232448 bytes}}
  %b = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2305843009213693952>
}

// -----

jfa.kernel @k() warps(4) {
  // expected-error @+1 {{tensor memory has 512 columns, got a tile 9223372036854775807 'f32' wide}}
  %t = jfa.tmem_alloc : !jfa.tmem<128x9223372036854775807xf32>
}
