// RUN: jfa-opt %s --split-input-file --verify-diagnostics | FileCheck %s
// Transposed slot views: what they are, and who may read them.

// CHECK-LABEL: jfa.kernel @views
jfa.kernel @views() warps(4) {
  %v = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %w = jfa.local_alloc : !jfa.smem<1 x 32x64xbf16, swizzle 128>
  %c0 = arith.constant 0 : i32
  %vs = jfa.slot %v[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  %ws = jfa.slot %w[%c0] : !jfa.smem<1 x 32x64xbf16, swizzle 128>, i32
  // CHECK: jfa.transpose %{{.*}} : !jfa.slot<64x64xbf16, swizzle 128>
  %vt = jfa.transpose %vs : !jfa.slot<64x64xbf16, swizzle 128>
  // A 32x64 stored tile viewed as 64x32: the stored rows still span the
  // 128-byte swizzle.
  // CHECK: jfa.transpose %{{.*}} : !jfa.slot<32x64xbf16, swizzle 128>
  %wt = jfa.transpose %ws : !jfa.slot<32x64xbf16, swizzle 128>
  // Transposing twice gives the stored view back.
  // CHECK: jfa.transpose %{{.*}} : !jfa.slot<64x32xbf16, swizzle 128, transposed>
  %wtt = jfa.transpose %wt : !jfa.slot<64x32xbf16, swizzle 128, transposed>
  %a = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %as = jfa.slot %a[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  %z = arith.constant dense<0.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  // CHECK: jfa.async_dot %{{.*}}, %{{.*}}, %{{.*}} : !jfa.slot<64x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128, transposed>
  %d = jfa.async_dot %as, %vt, %z : !jfa.slot<64x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128, transposed>, tensor<64x64xf32, #jfa.wgmma_acc>
}

// -----

jfa.kernel @k() warps(4) {
  %v = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %c0 = arith.constant 0 : i32
  %vs = jfa.slot %v[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  %vt = jfa.transpose %vs : !jfa.slot<64x64xbf16, swizzle 128>
  // expected-error @+1 {{'jfa.local_load' op cannot use the transposed view '!jfa.slot<64x64xbf16, swizzle 128, transposed>'; only the tensor cores read transposed slots (jfa.async_dot and jfa.tc_dot, as A or B)}}
  %t = jfa.local_load %vt : !jfa.slot<64x64xbf16, swizzle 128, transposed> -> tensor<64x64xbf16>
}

// -----

jfa.kernel @k(%d: !jfa.tma<64x64xbf16, swizzle 128>) warps(4) {
  %v = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  %vs = jfa.slot %v[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  %vt = jfa.transpose %vs : !jfa.slot<64x64xbf16, swizzle 128>
  // expected-error @+1 {{'jfa.tma_load' op cannot use the transposed view}}
  jfa.tma_load %d[%c0, %c0], %vt, %b : !jfa.tma<64x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128, transposed>
}

// -----

jfa.kernel @k() warps(4) {
  %v = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %c0 = arith.constant 0 : i32
  %vs = jfa.slot %v[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  %vt = jfa.transpose %vs : !jfa.slot<64x64xbf16, swizzle 128>
  %z = arith.constant dense<0.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  // An M-major A (wgmma's transpose-A), as dK = dS^T Q reads dS.
  // CHECK: jfa.async_dot %{{.*}}, %{{.*}}, %{{.*}} : !jfa.slot<64x64xbf16, swizzle 128, transposed>, !jfa.slot<64x64xbf16, swizzle 128>
  %d = jfa.async_dot %vt, %vs, %z : !jfa.slot<64x64xbf16, swizzle 128, transposed>, !jfa.slot<64x64xbf16, swizzle 128>, tensor<64x64xf32, #jfa.wgmma_acc>
}

// -----

jfa.kernel @k() warps(4) {
  %v = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %c0 = arith.constant 0 : i32
  %vs = jfa.slot %v[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  %vt = jfa.transpose %vs : !jfa.slot<64x64xbf16, swizzle 128>
  %acc = jfa.tmem_alloc : !jfa.tmem<128x64xf32>
  %true = arith.constant true
  // expected-error @+1 {{'jfa.tc_dot' op a transposed (M-major) A must be 128 rows stored as column blocks of a 128-byte swizzle (the transpose of a KxM slot with M = 128 bf16), got '!jfa.slot<64x64xbf16, swizzle 128, transposed>'}}
  jfa.tc_dot %vt, %vs, %acc, %true : !jfa.slot<64x64xbf16, swizzle 128, transposed>, !jfa.slot<64x64xbf16, swizzle 128>, !jfa.tmem<128x64xf32>
}

// -----

jfa.kernel @k() warps(4) {
  %v = jfa.local_alloc : !jfa.smem<1 x 64x32xbf16, swizzle 64>
  %b = jfa.local_alloc : !jfa.smem<1 x 64x32xbf16, swizzle 64>
  %c0 = arith.constant 0 : i32
  %vs = jfa.slot %v[%c0] : !jfa.smem<1 x 64x32xbf16, swizzle 64>, i32
  %bs = jfa.slot %b[%c0] : !jfa.smem<1 x 64x32xbf16, swizzle 64>, i32
  %vt = jfa.transpose %vs : !jfa.slot<64x32xbf16, swizzle 64>
  %z = arith.constant dense<0.0> : tensor<32x64xf32, #jfa.wgmma_acc>
  // expected-error @+1 {{'jfa.async_dot' op a transposed (M-major) A must be 64 rows (one warpgroup's) in a 128-byte swizzled slot, got '!jfa.slot<32x64xbf16, swizzle 64, transposed>'}}
  %d = jfa.async_dot %vt, %bs, %z : !jfa.slot<32x64xbf16, swizzle 64, transposed>, !jfa.slot<64x32xbf16, swizzle 64>, tensor<32x64xf32, #jfa.wgmma_acc>
}

// -----

jfa.kernel @k() warps(4) {
  %v = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %c0 = arith.constant 0 : i32
  %vs = jfa.slot %v[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  // A transposed 64x32 view is stored as 32x64... but this one claims stored
  // rows of 64 bytes.
  // expected-error @+1 {{slot rows of a 128-byte swizzle must span 128 bytes (or a multiple of it, as column blocks, in a 2-d tile), got 64}}
  %x = "jfa.transpose"(%vs) : (!jfa.slot<64x64xbf16, swizzle 128>) -> !jfa.slot<32x64xbf16, swizzle 128, transposed>
}

// -----

// wgmma reads blocked slots (rows wider than the swizzle) but as an M-major
// A, which is one warpgroup's 64 rows of one block.
jfa.kernel @k() warps(4) {
  %a = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 64>
  %b = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %c0 = arith.constant 0 : i32
  %as = jfa.slot %a[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 64>, i32
  %at = jfa.transpose %as : !jfa.slot<64x64xbf16, swizzle 64>
  %bs = jfa.slot %b[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  %z = arith.constant dense<0.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  // expected-error @+1 {{'jfa.async_dot' op an M-major A cannot be the blocked slot '!jfa.slot<64x64xbf16, swizzle 64, transposed>' (rows wider than its swizzle)}}
  %d = jfa.async_dot %at, %bs, %z : !jfa.slot<64x64xbf16, swizzle 64, transposed>, !jfa.slot<64x64xbf16, swizzle 128>, tensor<64x64xf32, #jfa.wgmma_acc>
}

// -----

jfa.kernel @k() warps(4) {
  %a = jfa.local_alloc : !jfa.smem<1 x 128x128xbf16, swizzle 128>
  %b = jfa.local_alloc : !jfa.smem<1 x 128x128xbf16, swizzle 128>
  %c0 = arith.constant 0 : i32
  %as = jfa.slot %a[%c0] : !jfa.smem<1 x 128x128xbf16, swizzle 128>, i32
  %bs = jfa.slot %b[%c0] : !jfa.smem<1 x 128x128xbf16, swizzle 128>, i32
  %acc = jfa.tmem_alloc : !jfa.tmem<128x128xf32>
  %true = arith.constant true
  // expected-error @+1 {{'jfa.tc_dot' op B cannot be the blocked slot '!jfa.slot<128x128xbf16, swizzle 128>'}}
  jfa.tc_dot %as, %bs, %acc, %true : !jfa.slot<128x128xbf16, swizzle 128>, !jfa.slot<128x128xbf16, swizzle 128>, !jfa.tmem<128x128xf32>
}

// -----

// A blocked slot moves one column block per TMA copy: the box is a block.
jfa.kernel @k(%d: !jfa.tma<64x64xbf16, swizzle 128>) warps(4) {
  %a = jfa.local_alloc : !jfa.smem<1 x 128x128xbf16, swizzle 128>
  %bar = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %as = jfa.slot %a[%c0] : !jfa.smem<1 x 128x128xbf16, swizzle 128>, i32
  %b0 = jfa.barrier %bar[%c0] : !jfa.mbarriers<1>, i32
  // expected-error @+1 {{'jfa.tma_load' op TMA box '!jfa.tma<64x64xbf16, swizzle 128>' does not match the slot '!jfa.slot<128x128xbf16, swizzle 128>' (a blocked slot moves one column block per copy: the box must be one block)}}
  jfa.tma_load %d[%c0, %c0], %as, %b0 : !jfa.tma<64x64xbf16, swizzle 128>, !jfa.slot<128x128xbf16, swizzle 128>
}

// -----

// tcgen05's M-major A is 128 rows with a 128-byte swizzle.
jfa.kernel @k() warps(4) {
  %a = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 64>
  %b = jfa.local_alloc : !jfa.smem<1 x 128x32xbf16, swizzle 64>
  %c0 = arith.constant 0 : i32
  %as = jfa.slot %a[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 64>, i32
  %bs = jfa.slot %b[%c0] : !jfa.smem<1 x 128x32xbf16, swizzle 64>, i32
  %at = jfa.transpose %as : !jfa.slot<64x64xbf16, swizzle 64>
  %acc = jfa.tmem_alloc : !jfa.tmem<128x128xf32>
  %true = arith.constant true
  // expected-error @+1 {{'jfa.tc_dot' op a transposed (M-major) A must be 128 rows stored as column blocks of a 128-byte swizzle}}
  jfa.tc_dot %at, %bs, %acc, %true : !jfa.slot<64x64xbf16, swizzle 64, transposed>, !jfa.slot<128x32xbf16, swizzle 64>, !jfa.tmem<128x128xf32>
}

// -----

// Column blocks: of a stored blocked slot, in range, one block wide.
// CHECK-LABEL: jfa.kernel @column_block
jfa.kernel @column_block() warps(4) {
  %a = jfa.local_alloc : !jfa.smem<2 x 64x128xbf16, swizzle 128>
  %c1 = arith.constant 1 : i32
  %s = jfa.slot %a[%c1] : !jfa.smem<2 x 64x128xbf16, swizzle 128>, i32
  // CHECK: jfa.column_block %{{.*}}[%{{.*}}] : !jfa.slot<64x128xbf16, swizzle 128> -> !jfa.slot<64x64xbf16, swizzle 128>
  %ok = jfa.column_block %s[%c1] : !jfa.slot<64x128xbf16, swizzle 128> -> !jfa.slot<64x64xbf16, swizzle 128>
}

// -----

jfa.kernel @k() warps(4) {
  %a = jfa.local_alloc : !jfa.smem<1 x 64x128xbf16, swizzle 128>
  %c0 = arith.constant 0 : i32
  %c2 = arith.constant 2 : i32
  %s = jfa.slot %a[%c0] : !jfa.smem<1 x 64x128xbf16, swizzle 128>, i32
  // expected-error @+1 {{'jfa.column_block' op block 2 is out of range: '!jfa.slot<64x128xbf16, swizzle 128>' has 2 column blocks}}
  %b = jfa.column_block %s[%c2] : !jfa.slot<64x128xbf16, swizzle 128> -> !jfa.slot<64x64xbf16, swizzle 128>
}

// -----

jfa.kernel @k() warps(4) {
  %a = jfa.local_alloc : !jfa.smem<1 x 64x128xbf16, swizzle 128>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %a[%c0] : !jfa.smem<1 x 64x128xbf16, swizzle 128>, i32
  // expected-error @+1 {{'jfa.column_block' op a block of '!jfa.slot<64x128xbf16, swizzle 128>' is '!jfa.slot<64x64xbf16, swizzle 128>', got '!jfa.slot<64x64xf16, swizzle 128>'}}
  %b = jfa.column_block %s[%c0] : !jfa.slot<64x128xbf16, swizzle 128> -> !jfa.slot<64x64xf16, swizzle 128>
}

// -----

jfa.kernel @k() warps(4) {
  %a = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %a[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  // expected-error @+1 {{'jfa.column_block' op takes a block of a blocked slot (2-d, rows wider than its swizzle), got '!jfa.slot<64x64xbf16, swizzle 128>'}}
  %b = jfa.column_block %s[%c0] : !jfa.slot<64x64xbf16, swizzle 128> -> !jfa.slot<64x64xbf16, swizzle 128>
}

// -----

jfa.kernel @k() warps(4) {
  %a = jfa.local_alloc : !jfa.smem<1 x 128x64xbf16, swizzle 128>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %a[%c0] : !jfa.smem<1 x 128x64xbf16, swizzle 128>, i32
  %t = jfa.transpose %s : !jfa.slot<128x64xbf16, swizzle 128>
  // expected-error @+1 {{'jfa.column_block' op takes a block of a stored slot, not of the transposed view '!jfa.slot<64x128xbf16, swizzle 128, transposed>'; transpose the block instead}}
  %b = jfa.column_block %t[%c0] : !jfa.slot<64x128xbf16, swizzle 128, transposed> -> !jfa.slot<64x64xbf16, swizzle 128>
}
