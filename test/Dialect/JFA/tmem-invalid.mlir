// RUN: jfa-opt %s --split-input-file --verify-diagnostics

jfa.kernel @k() warps(4) {
  // expected-error @+1 {{tensor memory tiles are 128 lanes x N columns, got a shape of rank 2 with 64 lanes}}
  %t = jfa.tmem_alloc : !jfa.tmem<64x128xf32>
}

// -----

jfa.kernel @k() warps(4) {
  // expected-error @+1 {{tensor memory tiles are f32 (accumulators) or bf16/f16 (MMA operands), got 'i32'}}
  %t = jfa.tmem_alloc : !jfa.tmem<128x128xi32>
}

// -----

jfa.kernel @k() warps(4) {
  // expected-error @+1 {{'jfa.tmem_alloc' op tensor memory is allocated in powers of two of 32 to 512 columns, got 96}}
  %t = jfa.tmem_alloc : !jfa.tmem<128x96xf32>
}

// -----

// expected-error @+1 {{'jfa.kernel' op allocates 768 tensor-memory columns; an SM has 512}}
jfa.kernel @k() warps(4) {
  %t = jfa.tmem_alloc : !jfa.tmem<128x512xf32>
  %u = jfa.tmem_alloc : !jfa.tmem<128x256xf32>
}

// -----

jfa.kernel @k() warps(4) {
  %a = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %acc = jfa.tmem_alloc : !jfa.tmem<128x128xf32>
  %c0 = arith.constant 0 : i32
  %true = arith.constant true
  %sa = jfa.slot %a[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  // expected-error @+1 {{'jfa.tc_dot' op A must have 128 rows (one per tensor-memory lane), got 64}}
  jfa.tc_dot %sa, %sa, %acc, %true : !jfa.slot<64x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128>, !jfa.tmem<128x128xf32>
}

// -----

jfa.kernel @k() warps(4) {
  %a = jfa.local_alloc : !jfa.smem<1 x 128x64xbf16, swizzle 128>
  %b = jfa.local_alloc : !jfa.smem<1 x 256x64xbf16, swizzle 128>
  %acc = jfa.tmem_alloc : !jfa.tmem<128x128xf32>
  %c0 = arith.constant 0 : i32
  %true = arith.constant true
  %sa = jfa.slot %a[%c0] : !jfa.smem<1 x 128x64xbf16, swizzle 128>, i32
  %sb = jfa.slot %b[%c0] : !jfa.smem<1 x 256x64xbf16, swizzle 128>, i32
  // expected-error @+1 {{'jfa.tc_dot' op the accumulator has 128 columns, fewer than N = 256}}
  jfa.tc_dot %sa, %sb, %acc, %true : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<256x64xbf16, swizzle 128>, !jfa.tmem<128x128xf32>
}

// -----

jfa.kernel @k() warps(4) {
  %a = jfa.local_alloc : !jfa.smem<1 x 128x64xbf16>
  %acc = jfa.tmem_alloc : !jfa.tmem<128x128xf32>
  %c0 = arith.constant 0 : i32
  %true = arith.constant true
  %sa = jfa.slot %a[%c0] : !jfa.smem<1 x 128x64xbf16>, i32
  // expected-error @+1 {{'jfa.tc_dot' op A and B must be swizzled slots (swizzle 32, 64 or 128), the layout the tensor cores read}}
  jfa.tc_dot %sa, %sa, %acc, %true : !jfa.slot<128x64xbf16>, !jfa.slot<128x64xbf16>, !jfa.tmem<128x128xf32>
}

// -----

jfa.kernel @k() warps(4) {
  %acc = jfa.tmem_alloc : !jfa.tmem<128x128xf32>
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{'jfa.tmem_load' op moves a 128xN 'f32' tile in the #jfa.tmem_row layout, got 'tensor<128x32xf32>'}}
  %t = jfa.tmem_load %acc[%c0] : !jfa.tmem<128x128xf32> -> tensor<128x32xf32>
}

// -----

jfa.kernel @k() warps(4) {
  %acc = jfa.tmem_alloc : !jfa.tmem<128x128xf32>
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{'jfa.tmem_load' op moves 1 to 128 columns (a power of two) at a time, got 48}}
  %t = jfa.tmem_load %acc[%c0] : !jfa.tmem<128x128xf32> -> tensor<128x48xf32, #jfa.tmem_row>
}

// -----

jfa.kernel @k() warps(4) {
  %acc = jfa.tmem_alloc : !jfa.tmem<128x32xf32>
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{'jfa.tmem_load' op moves 64 columns of a 32-column accumulator}}
  %t = jfa.tmem_load %acc[%c0] : !jfa.tmem<128x32xf32> -> tensor<128x64xf32, #jfa.tmem_row>
}

// -----

jfa.kernel @k() warps(4) {
  jfa.async_tasks {
    jfa.task default {
      // expected-error @+1 {{'jfa.tmem_alloc' op expects parent op 'jfa.kernel'}}
      %acc = jfa.tmem_alloc : !jfa.tmem<128x32xf32>
    }
  }
}

// -----

jfa.kernel @k() warps(4) {
  %acc = jfa.tmem_alloc : !jfa.tmem<128x32xf32>
  %c0 = arith.constant 0 : i32
  %t = arith.constant dense<0.0> : tensor<128x32xf32>
  // expected-error @+1 {{'jfa.tmem_store' op moves a 128xN 'f32' tile in the #jfa.tmem_row layout, got 'tensor<128x32xf32>'}}
  jfa.tmem_store %t, %acc[%c0] : tensor<128x32xf32> -> !jfa.tmem<128x32xf32>
}

// -----

jfa.kernel @k() warps(4) {
  // expected-error @+1 {{tensor memory has 512 columns, got a tile of 1024}}
  %t = jfa.tmem_alloc : !jfa.tmem<128x1024xf32>
}
