// RUN: jfa-opt %s --split-input-file --verify-diagnostics
// The rules of 8-bit (f8E4M3FN, f8E5M2) tensor-core operands: both operands
// 8-bit (mixed widths are not a tensor-core product), K a multiple of 32 (one
// instruction's K: 32 bytes), an f32 accumulator, and on sm_90a both
// operands K-major in shared memory (wgmma transposes 16-bit operands only,
// and its 8-bit register fragment is not #jfa.wgmma_acc).

jfa.kernel @k() warps(4) {
  %a = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %b = jfa.local_alloc : !jfa.smem<1 x 64x128xf8E4M3FN, swizzle 128>
  %c0 = arith.constant 0 : i32
  %sa = jfa.slot %a[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  %sb = jfa.slot %b[%c0] : !jfa.smem<1 x 64x128xf8E4M3FN, swizzle 128>, i32
  %acc = arith.constant dense<0.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  // expected-error @+1 {{'jfa.async_dot' op A is 'bf16' but B is 'f8E4M3FN'; the tensor cores multiply 16-bit operands of one type (both bf16 or both f16) or two 8-bit floats (f8E4M3FN, f8E5M2)}}
  %d = jfa.async_dot %sa, %sb, %acc : !jfa.slot<64x64xbf16, swizzle 128>, !jfa.slot<64x128xf8E4M3FN, swizzle 128>, tensor<64x64xf32, #jfa.wgmma_acc>
}

// -----

jfa.kernel @k() warps(4) {
  %a = jfa.local_alloc : !jfa.smem<1 x 64x128xi8, swizzle 128>
  %b = jfa.local_alloc : !jfa.smem<1 x 64x128xi8, swizzle 128>
  %c0 = arith.constant 0 : i32
  %sa = jfa.slot %a[%c0] : !jfa.smem<1 x 64x128xi8, swizzle 128>, i32
  %sb = jfa.slot %b[%c0] : !jfa.smem<1 x 64x128xi8, swizzle 128>, i32
  %acc = arith.constant dense<0.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  // expected-error @+1 {{'jfa.async_dot' op A and B must both be bf16, both f16, or both 8-bit floats (f8E4M3FN, f8E5M2), got 'i8' and 'i8'}}
  %d = jfa.async_dot %sa, %sb, %acc : !jfa.slot<64x128xi8, swizzle 128>, !jfa.slot<64x128xi8, swizzle 128>, tensor<64x64xf32, #jfa.wgmma_acc>
}

// -----

// sm_90a: an N-major (transposed) 8-bit B.
jfa.kernel @k() warps(4) {
  %a = jfa.local_alloc : !jfa.smem<1 x 64x128xf8E4M3FN, swizzle 128>
  %b = jfa.local_alloc : !jfa.smem<1 x 128x128xf8E4M3FN, swizzle 128>
  %c0 = arith.constant 0 : i32
  %sa = jfa.slot %a[%c0] : !jfa.smem<1 x 64x128xf8E4M3FN, swizzle 128>, i32
  %sb = jfa.slot %b[%c0] : !jfa.smem<1 x 128x128xf8E4M3FN, swizzle 128>, i32
  %bt = jfa.transpose %sb : !jfa.slot<128x128xf8E4M3FN, swizzle 128>
  %acc = arith.constant dense<0.0> : tensor<64x128xf32, #jfa.wgmma_acc>
  // expected-error @+1 {{'jfa.async_dot' op an 8-bit B must be K-major on sm_90a (wgmma transposes 16-bit operands only), got the transposed view '!jfa.slot<128x128xf8E4M3FN, swizzle 128, transposed>'}}
  %d = jfa.async_dot %sa, %bt, %acc : !jfa.slot<64x128xf8E4M3FN, swizzle 128>, !jfa.slot<128x128xf8E4M3FN, swizzle 128, transposed>, tensor<64x128xf32, #jfa.wgmma_acc>
}

// -----

// sm_90a: an M-major (transposed) 8-bit A.
jfa.kernel @k() warps(4) {
  %a = jfa.local_alloc : !jfa.smem<1 x 128x64xf8E5M2, swizzle 64>
  %b = jfa.local_alloc : !jfa.smem<1 x 64x128xf8E5M2, swizzle 128>
  %c0 = arith.constant 0 : i32
  %sa = jfa.slot %a[%c0] : !jfa.smem<1 x 128x64xf8E5M2, swizzle 64>, i32
  %sb = jfa.slot %b[%c0] : !jfa.smem<1 x 64x128xf8E5M2, swizzle 128>, i32
  %at = jfa.transpose %sa : !jfa.slot<128x64xf8E5M2, swizzle 64>
  %acc = arith.constant dense<0.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  // expected-error @+1 {{'jfa.async_dot' op an 8-bit A must be K-major on sm_90a (wgmma transposes 16-bit operands only), got the transposed view '!jfa.slot<64x128xf8E5M2, swizzle 64, transposed>'}}
  %d = jfa.async_dot %at, %sb, %acc : !jfa.slot<64x128xf8E5M2, swizzle 64, transposed>, !jfa.slot<64x128xf8E5M2, swizzle 128>, tensor<64x64xf32, #jfa.wgmma_acc>
}

// -----

// sm_90a: an 8-bit A in registers.
jfa.kernel @k() warps(4) {
  %b = jfa.local_alloc : !jfa.smem<1 x 64x32xf8E4M3FN, swizzle 32>
  %c0 = arith.constant 0 : i32
  %sb = jfa.slot %b[%c0] : !jfa.smem<1 x 64x32xf8E4M3FN, swizzle 32>, i32
  %p = arith.constant dense<1.0> : tensor<64x32xf8E4M3FN, #jfa.wgmma_acc>
  %acc = arith.constant dense<0.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  // expected-error @+1 {{'jfa.async_dot' op an 8-bit A must be a K-major shared-memory slot: wgmma's 8-bit register fragment (4 consecutive K per register) is not the #jfa.wgmma_acc layout, got 'tensor<64x32xf8E4M3FN, #jfa.wgmma_acc>'}}
  %d = jfa.async_dot %p, %sb, %acc : tensor<64x32xf8E4M3FN, #jfa.wgmma_acc>, !jfa.slot<64x32xf8E4M3FN, swizzle 32>, tensor<64x64xf32, #jfa.wgmma_acc>
}

// -----

// K = 16 is one 16-bit step but half an 8-bit one.
jfa.kernel @k() warps(4) {
  %a = jfa.local_alloc : !jfa.smem<1 x 64x16xf8E4M3FN>
  %b = jfa.local_alloc : !jfa.smem<1 x 64x16xf8E4M3FN>
  %c0 = arith.constant 0 : i32
  %sa = jfa.slot %a[%c0] : !jfa.smem<1 x 64x16xf8E4M3FN>, i32
  %sb = jfa.slot %b[%c0] : !jfa.smem<1 x 64x16xf8E4M3FN>, i32
  %acc = arith.constant dense<0.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  // expected-error @+1 {{'jfa.async_dot' op K must be a multiple of 32 for 8-bit operands (32 bytes, the K of one MMA), got 16}}
  %d = jfa.async_dot %sa, %sb, %acc : !jfa.slot<64x16xf8E4M3FN>, !jfa.slot<64x16xf8E4M3FN>, tensor<64x64xf32, #jfa.wgmma_acc>
}

// -----

jfa.kernel @k() warps(4) {
  %a = jfa.local_alloc : !jfa.smem<1 x 64x128xf8E4M3FN, swizzle 128>
  %b = jfa.local_alloc : !jfa.smem<1 x 64x128xf8E4M3FN, swizzle 128>
  %c0 = arith.constant 0 : i32
  %sa = jfa.slot %a[%c0] : !jfa.smem<1 x 64x128xf8E4M3FN, swizzle 128>, i32
  %sb = jfa.slot %b[%c0] : !jfa.smem<1 x 64x128xf8E4M3FN, swizzle 128>, i32
  %acc = arith.constant dense<0.0> : tensor<64x64xf16, #jfa.wgmma_acc>
  // expected-error @+1 {{'jfa.async_dot' op the accumulator must be an f32 tile in the #jfa.wgmma_acc layout, got 'tensor<64x64xf16, #jfa.wgmma_acc>'}}
  %d = jfa.async_dot %sa, %sb, %acc : !jfa.slot<64x128xf8E4M3FN, swizzle 128>, !jfa.slot<64x128xf8E4M3FN, swizzle 128>, tensor<64x64xf16, #jfa.wgmma_acc>
}

// -----

// sm_100a: mixed widths.
jfa.kernel @k() warps(4) {
  %a = jfa.local_alloc : !jfa.smem<1 x 128x128xf8E4M3FN, swizzle 128>
  %b = jfa.local_alloc : !jfa.smem<1 x 64x64xf16, swizzle 128>
  %c0 = arith.constant 0 : i32
  %sa = jfa.slot %a[%c0] : !jfa.smem<1 x 128x128xf8E4M3FN, swizzle 128>, i32
  %sb = jfa.slot %b[%c0] : !jfa.smem<1 x 64x64xf16, swizzle 128>, i32
  %acc = jfa.tmem_alloc : !jfa.tmem<128x64xf32>
  %true = arith.constant true
  // expected-error @+1 {{'jfa.tc_dot' op A is 'f8E4M3FN' but B is 'f16'; the tensor cores multiply 16-bit operands of one type (both bf16 or both f16) or two 8-bit floats (f8E4M3FN, f8E5M2)}}
  jfa.tc_dot %sa, %sb, %acc, %true : !jfa.slot<128x128xf8E4M3FN, swizzle 128>, !jfa.slot<64x64xf16, swizzle 128>, !jfa.tmem<128x64xf32>
}

// -----

// sm_100a: K = 48 is not a whole number of K = 32 instructions.
jfa.kernel @k() warps(4) {
  %a = jfa.local_alloc : !jfa.smem<1 x 128x48xf8E5M2>
  %b = jfa.local_alloc : !jfa.smem<1 x 64x48xf8E5M2>
  %c0 = arith.constant 0 : i32
  %sa = jfa.slot %a[%c0] : !jfa.smem<1 x 128x48xf8E5M2>, i32
  %sb = jfa.slot %b[%c0] : !jfa.smem<1 x 64x48xf8E5M2>, i32
  %acc = jfa.tmem_alloc : !jfa.tmem<128x64xf32>
  %true = arith.constant true
  // expected-error @+1 {{'jfa.tc_dot' op K must be a multiple of 32 for 8-bit operands (32 bytes, the K of one MMA), got 48}}
  jfa.tc_dot %sa, %sb, %acc, %true : !jfa.slot<128x48xf8E5M2>, !jfa.slot<64x48xf8E5M2>, !jfa.tmem<128x64xf32>
}

// -----

// sm_100a: the accumulator is f32 tensor memory.
jfa.kernel @k() warps(4) {
  %a = jfa.local_alloc : !jfa.smem<1 x 128x128xf8E4M3FN, swizzle 128>
  %b = jfa.local_alloc : !jfa.smem<1 x 64x128xf8E4M3FN, swizzle 128>
  %c0 = arith.constant 0 : i32
  %sa = jfa.slot %a[%c0] : !jfa.smem<1 x 128x128xf8E4M3FN, swizzle 128>, i32
  %sb = jfa.slot %b[%c0] : !jfa.smem<1 x 64x128xf8E4M3FN, swizzle 128>, i32
  %acc = jfa.tmem_alloc : !jfa.tmem<128x64xf16>
  %true = arith.constant true
  // expected-error @+1 {{'jfa.tc_dot' op the accumulator must be f32 tensor memory, got '!jfa.tmem<128x64xf16>'}}
  jfa.tc_dot %sa, %sb, %acc, %true : !jfa.slot<128x128xf8E4M3FN, swizzle 128>, !jfa.slot<64x128xf8E4M3FN, swizzle 128>, !jfa.tmem<128x64xf16>
}

// -----

// sm_100a transposes 8-bit operands (kind::f8f6f4), but an M-major A is
// 128 rows: one 128-byte swizzled row of the stored K x 128 slot.
jfa.kernel @k() warps(4) {
  %a = jfa.local_alloc : !jfa.smem<1 x 128x64xf8E4M3FN, swizzle 64>
  %b = jfa.local_alloc : !jfa.smem<1 x 64x128xf8E4M3FN, swizzle 128>
  %c0 = arith.constant 0 : i32
  %sa = jfa.slot %a[%c0] : !jfa.smem<1 x 128x64xf8E4M3FN, swizzle 64>, i32
  %sb = jfa.slot %b[%c0] : !jfa.smem<1 x 64x128xf8E4M3FN, swizzle 128>, i32
  %at = jfa.transpose %sa : !jfa.slot<128x64xf8E4M3FN, swizzle 64>
  %acc = jfa.tmem_alloc : !jfa.tmem<128x64xf32>
  %true = arith.constant true
  // expected-error @+1 {{'jfa.tc_dot' op a transposed (M-major) 8-bit A must be 128 rows in a 128-byte swizzled slot (the transpose of a Kx128 slot), got '!jfa.slot<64x128xf8E4M3FN, swizzle 64, transposed>'}}
  jfa.tc_dot %at, %sb, %acc, %true : !jfa.slot<64x128xf8E4M3FN, swizzle 64, transposed>, !jfa.slot<64x128xf8E4M3FN, swizzle 128>, !jfa.tmem<128x64xf32>
}

// -----

// 8-bit floats are not register values (NVPTX has no such registers).
jfa.kernel @k() warps(4) {
  %a = jfa.local_alloc : !jfa.smem<1 x 64x64xf8E4M3FN>
  %c0 = arith.constant 0 : i32
  %sa = jfa.slot %a[%c0] : !jfa.smem<1 x 64x64xf8E4M3FN>, i32
  // expected-error @+1 {{'jfa.local_load' op moves a register tile of 8-bit floats 'tensor<64x64xf8E4M3FN>'; they are tensor-core operands only (TMA into shared memory, read by jfa.async_dot or jfa.tc_dot), not register values}}
  %t = jfa.local_load %sa : !jfa.slot<64x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
}
