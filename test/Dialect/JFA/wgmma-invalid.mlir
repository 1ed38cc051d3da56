// RUN: jfa-opt %s --split-input-file --verify-diagnostics
// Verifier errors of swizzles, tile layouts and the tensor-core ops.

jfa.kernel @k() warps(4) {
  // expected-error @+1 {{shared-memory buffer swizzle must be 32, 64 or 128 (bytes), got 16}}
  %a = jfa.local_alloc : !jfa.smem<1 x 8x8xbf16, swizzle 16>
}

// -----

jfa.kernel @k() warps(4) {
  // expected-error @+1 {{shared-memory buffer rows of a 128-byte swizzle must span 128 bytes (or a multiple of it, as column blocks, in a 2-d tile), got 64}}
  %a = jfa.local_alloc : !jfa.smem<1 x 64x32xbf16, swizzle 128>
}

// -----

jfa.kernel @k() warps(4) {
  // expected-error @+1 {{shared-memory buffer with a swizzle needs a multiple of 8 rows, got 4}}
  %a = jfa.local_alloc : !jfa.smem<1 x 4x64xbf16, swizzle 128>
}

// -----

// expected-error @+1 {{TMA box rows of a 64-byte swizzle must span 64 bytes, got 128}}
jfa.kernel @k(%d: !jfa.tma<64x64xbf16, swizzle 64>) warps(4) {}

// -----

jfa.kernel @k(%d: !jfa.tma<64x64xbf16>) warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  // expected-error @+1 {{'jfa.tma_store' op TMA box '!jfa.tma<64x64xbf16>' does not match the slot '!jfa.slot<64x64xbf16, swizzle 128>'}}
  jfa.tma_store %s, %d[%c0, %c0] : !jfa.slot<64x64xbf16, swizzle 128>, !jfa.tma<64x64xbf16>
}

// -----

jfa.kernel @k() warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 32x64xf32>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 32x64xf32>, i32
  // expected-error @+1 {{'jfa.local_load' op a #jfa.wgmma_acc tile is M x N with M a multiple of 64 and N a multiple of 8 up to 256, got 'tensor<32x64xf32, #jfa.wgmma_acc>'}}
  %t = jfa.local_load %s : !jfa.slot<32x64xf32> -> tensor<32x64xf32, #jfa.wgmma_acc>
}

// -----

jfa.kernel @k() warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x64xf32>, i32
  // expected-error @+1 {{'jfa.local_load' op unknown register-tile layout "row"}}
  %t = jfa.local_load %s : !jfa.slot<64x64xf32> -> tensor<64x64xf32, "row">
}

// -----

jfa.kernel @k() warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x64xf32>, i32
  // expected-error @+1 {{invalid kind of attribute specified}}
  %v = jfa.load_fragment %s, %c0 threads(128) layout("row") : !jfa.slot<64x64xf32> -> vector<32xf32>
}

// -----

jfa.kernel @k() warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x32xf32, swizzle 128>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x32xf32, swizzle 128>, i32
  %z = arith.constant dense<0.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  // expected-error @+1 {{'jfa.async_dot' op A and B must both be bf16, both f16, or both 8-bit floats (f8E4M3FN, f8E5M2), got 'f32' and 'f32'}}
  %d = jfa.async_dot %s, %s, %z : !jfa.slot<64x32xf32, swizzle 128>, !jfa.slot<64x32xf32, swizzle 128>, tensor<64x64xf32, #jfa.wgmma_acc>
}

// -----

jfa.kernel @k() warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-error @+1 {{'jfa.async_dot' op the accumulator must be an f32 tile in the #jfa.wgmma_acc layout, got 'tensor<64x64xf32>'}}
  %d = jfa.async_dot %s, %s, %z : !jfa.slot<64x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128>, tensor<64x64xf32>
}

// -----

jfa.kernel @k() warps(4) {
  %a = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %b = jfa.local_alloc : !jfa.smem<1 x 64x32xbf16, swizzle 64>
  %c0 = arith.constant 0 : i32
  %sa = jfa.slot %a[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  %sb = jfa.slot %b[%c0] : !jfa.smem<1 x 64x32xbf16, swizzle 64>, i32
  %z = arith.constant dense<0.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  // expected-error @+1 {{'jfa.async_dot' op A is 64x64 but B is 64x32; both must be K-major with the same K}}
  %d = jfa.async_dot %sa, %sb, %z : !jfa.slot<64x64xbf16, swizzle 128>, !jfa.slot<64x32xbf16, swizzle 64>, tensor<64x64xf32, #jfa.wgmma_acc>
}

// -----

jfa.kernel @k() warps(4) {
  %a = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %c0 = arith.constant 0 : i32
  %sa = jfa.slot %a[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  %z = arith.constant dense<0.0> : tensor<64x128xf32, #jfa.wgmma_acc>
  // expected-error @+1 {{'jfa.async_dot' op accumulator 'tensor<64x128xf32, #jfa.wgmma_acc>' must be 64x64 (A rows x B rows)}}
  %d = jfa.async_dot %sa, %sa, %z : !jfa.slot<64x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128>, tensor<64x128xf32, #jfa.wgmma_acc>
}

// -----

jfa.kernel @k() warps(4) {
  %a = jfa.local_alloc : !jfa.smem<1 x 64x8xbf16>
  %c0 = arith.constant 0 : i32
  %sa = jfa.slot %a[%c0] : !jfa.smem<1 x 64x8xbf16>, i32
  %z = arith.constant dense<0.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  // expected-error @+1 {{'jfa.async_dot' op K must be a multiple of 16, got 8}}
  %d = jfa.async_dot %sa, %sa, %z : !jfa.slot<64x8xbf16>, !jfa.slot<64x8xbf16>, tensor<64x64xf32, #jfa.wgmma_acc>
}

// -----

jfa.kernel @k() warps(4) {
  %a = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16>
  %c0 = arith.constant 0 : i32
  %sa = jfa.slot %a[%c0] : !jfa.smem<1 x 64x64xbf16>, i32
  %z = arith.constant dense<0.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  // expected-error @+1 {{'jfa.async_dot' op A and B must be swizzled slots (swizzle 32, 64 or 128), the layout the tensor cores read}}
  %d = jfa.async_dot %sa, %sa, %z : !jfa.slot<64x64xbf16>, !jfa.slot<64x64xbf16>, tensor<64x64xf32, #jfa.wgmma_acc>
}

// -----

jfa.kernel @k() warps(4) {
  %z = arith.constant dense<0.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  // expected-error @+1 {{'jfa.async_dot_wait' op attribute 'pending' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 0}}
  %w = jfa.async_dot_wait pending(-1) (%z) : tensor<64x64xf32, #jfa.wgmma_acc>
}

// -----

// A convert_layout that misses part of its form gets the whole form.
jfa.kernel @k() warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x64xf32>, i32
  %t = arith.constant dense<1.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  // expected-error @+2 {{expected '->'}}
  // expected-error @+1 {{jfa.convert_layout is written `jfa.convert_layout %tile, %scratch : tensor<S, #from> -> tensor<S, #to>, !jfa.slot<S>`}}
  %u = jfa.convert_layout %t, %s : tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32>
}
