// RUN: jfa-opt %s --split-input-file --verify-diagnostics
// Verifier errors of the plain global-memory ops: jfa.load, jfa.store, jfa.store_tile,
// jfa.atomic_fetch_add and jfa.load_scalar (the work queue), jfa.load_cols,
// and of jfa.ring_position.

jfa.kernel @k(%p: !jfa.ptr<i32>, %i: i32) warps(4) {
  // expected-error @+1 {{'jfa.load' op loads 'i32' from '!jfa.ptr<i32>', not 'f32'}}
  %x = jfa.load %p[%i] : !jfa.ptr<i32> -> f32
}

// -----

jfa.kernel @k(%p: !jfa.ptr<bf16>, %i: i32) warps(4) {
  %x = arith.constant 1.0 : f32
  // expected-error @+1 {{'jfa.store' op stores 'f32' to '!jfa.ptr<bf16>', not 'bf16'}}
  jfa.store %x, %p[%i] : f32, !jfa.ptr<bf16>
}

// -----

jfa.kernel @k(%p: !jfa.ptr<f32>, %i: i32) warps(4) {
  %t = arith.constant dense<1.0> : tensor<64x64xbf16, #jfa.wgmma_acc>
  // expected-error @+1 {{'jfa.store_tile' op tile 'tensor<64x64xbf16, #jfa.wgmma_acc>' and pointer '!jfa.ptr<f32>' differ in element type}}
  jfa.store_tile %t, %p[%i] stride(%i) rows(%i) : tensor<64x64xbf16, #jfa.wgmma_acc>, !jfa.ptr<f32>
}

// -----

jfa.kernel @k(%p: !jfa.ptr<f32>, %i: i32) warps(4) {
  %t = arith.constant dense<1.0> : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  // expected-error @+1 {{'jfa.store_tile' op stores 2-d tiles; use jfa.store_rows for the row vector 'tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>'}}
  jfa.store_tile %t, %p[%i] stride(%i) rows(%i) : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>, !jfa.ptr<f32>
}

// -----

jfa.kernel @k(%p: !jfa.ptr<f32>, %i: i32) warps(4) {
  %t = arith.constant dense<1.0> : tensor<4x64x64xf32>
  // expected-error @+1 {{'jfa.store_tile' op stores 2-d tiles, got 'tensor<4x64x64xf32>'}}
  jfa.store_tile %t, %p[%i] stride(%i) rows(%i) : tensor<4x64x64xf32>, !jfa.ptr<f32>
}

// -----

jfa.kernel @k(%p: !jfa.ptr<f32>, %i: i32) warps(4) {
  %v = arith.constant dense<1.0> : vector<32xf32>
  // expected-error @+1 {{'jfa.store_tile' op in distributed form needs the thread, the thread count, the layout and the shape}}
  jfa.store_tile %v, %p[%i] stride(%i) rows(%i) : vector<32xf32>, !jfa.ptr<f32>
}

// -----

jfa.kernel @k(%i: i32) warps(4) {
  // expected-error @+1 {{'jfa.ring_position' op stages must be in [1, 64], got 0}}
  %s, %p = jfa.ring_position %i stages(0) : i32
}

// -----

jfa.kernel @k(%p: !jfa.ptr<bf16>, %i: i32) warps(4) {
  %t = arith.constant dense<1.0> : tensor<64x64xbf16, #jfa.wgmma_acc>
  // expected-error @+1 {{'jfa.store_tile' op adds atomically to f32 memory only, got '!jfa.ptr<bf16>'}}
  jfa.store_tile %t, %p[%i] stride(%i) rows(%i) add : tensor<64x64xbf16, #jfa.wgmma_acc>, !jfa.ptr<bf16>
}

// -----

jfa.kernel @k(%d: !jfa.tma<64x64xbf16>) warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x64xbf16>, i32
  // expected-error @+1 {{'jfa.tma_store' op adds to f32 tensors only, got '!jfa.tma<64x64xbf16>'}}
  jfa.tma_store %s, %d[%c0, %c0] add : !jfa.slot<64x64xbf16>, !jfa.tma<64x64xbf16>
}

// -----

jfa.kernel @k(%p: !jfa.ptr<f32>, %i: i32) warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 1xi32>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %s = jfa.slot %buf[%i] : !jfa.smem<1 x 1xi32>, i32
  %b = jfa.barrier %bars[%i] : !jfa.mbarriers<1>, i32
  // expected-error @+1 {{'jfa.atomic_fetch_add' op needs an i32 counter, got '!jfa.ptr<f32>'}}
  jfa.atomic_fetch_add %p[%i], %i into %s arrive %b : !jfa.ptr<f32>, !jfa.slot<1xi32>
}

// -----

jfa.kernel @k(%p: !jfa.ptr<i32>, %i: i32) warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 1xf32>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %s = jfa.slot %buf[%i] : !jfa.smem<1 x 1xf32>, i32
  %b = jfa.barrier %bars[%i] : !jfa.mbarriers<1>, i32
  // expected-error @+1 {{'jfa.atomic_fetch_add' op accesses 'i32' in '!jfa.slot<1xf32>'}}
  jfa.atomic_fetch_add %p[%i], %i into %s arrive %b : !jfa.ptr<i32>, !jfa.slot<1xf32>
}

// -----

jfa.kernel @k(%i: i32) warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 8x64xbf16, swizzle 128>
  %s = jfa.slot %buf[%i] : !jfa.smem<1 x 8x64xbf16, swizzle 128>, i32
  // expected-error @+1 {{'jfa.load_scalar' op needs an unswizzled, untransposed slot for element access, got '!jfa.slot<8x64xbf16, swizzle 128>'}}
  %x = jfa.load_scalar %s[%i] : !jfa.slot<8x64xbf16, swizzle 128> -> bf16
}

// -----

jfa.kernel @k(%i: i32) warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<2 x 1xi32>
  %s = jfa.slot %buf[%i] : !jfa.smem<2 x 1xi32>, i32
  // expected-error @+1 {{'jfa.load_scalar' op accesses 'f32' in '!jfa.slot<1xi32>'}}
  %x = jfa.load_scalar %s[%i] : !jfa.slot<1xi32> -> f32
}

// -----

jfa.kernel @k(%in: !jfa.ptr<f16>, %n: i32) warps(4) {
  // expected-error @+1 {{'jfa.load_cols' op tile 'tensor<64x64xf32, #jfa.wgmma_acc>' and source '!jfa.ptr<f16>' differ in element type}}
  %v = jfa.load_cols %in[%n] cols(%n) : !jfa.ptr<f16> -> tensor<64x64xf32, #jfa.wgmma_acc>
}

// -----

jfa.kernel @k(%in: !jfa.ptr<f32>, %n: i32) warps(4) {
  // expected-error @+1 {{'jfa.load_cols' op loads 2-d tiles (one value per column); use jfa.load_rows for the row vector 'tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>'}}
  %v = jfa.load_cols %in[%n] cols(%n) : !jfa.ptr<f32> -> tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
}

// -----

jfa.kernel @k(%in: !jfa.ptr<f32>, %n: i32) warps(4) {
  // expected-error @+1 {{'jfa.load_cols' op from global memory needs cols(%count): the columns past it are never read}}
  %v = jfa.load_cols %in[%n] : !jfa.ptr<f32> -> tensor<64x64xf32, #jfa.wgmma_acc>
}

// -----

jfa.kernel @k(%n: i32) warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x64xf32, swizzle 128>
  %s = jfa.slot %buf[%n] : !jfa.smem<1 x 64x64xf32, swizzle 128>, i32
  // expected-error @+1 {{'jfa.load_cols' op needs an unswizzled, untransposed slot for element access, got '!jfa.slot<64x64xf32, swizzle 128>'}}
  %v = jfa.load_cols %s[%n] : !jfa.slot<64x64xf32, swizzle 128> -> tensor<64x64xf32, #jfa.wgmma_acc>
}

// -----

jfa.kernel @k(%n: i32) warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64xbf16>
  %s = jfa.slot %buf[%n] : !jfa.smem<1 x 64xbf16>, i32
  // expected-error @+1 {{'jfa.load_cols' op tile 'tensor<64x64xf32, #jfa.wgmma_acc>' and source '!jfa.slot<64xbf16>' differ in element type}}
  %v = jfa.load_cols %s[%n] : !jfa.slot<64xbf16> -> tensor<64x64xf32, #jfa.wgmma_acc>
}

// -----

jfa.kernel @k(%in: !jfa.ptr<f32>, %n: i32) warps(4) {
  // expected-error @+1 {{'jfa.load_cols' op loads 2-d tiles, got 'tensor<2x64x64xf32, #jfa.wgmma_acc>'}}
  %v = jfa.load_cols %in[%n] cols(%n) : !jfa.ptr<f32> -> tensor<2x64x64xf32, #jfa.wgmma_acc>
}

// -----

jfa.kernel @k(%in: !jfa.ptr<f32>, %n: i32) warps(4) {
  %off = arith.constant -4 : i32
  // expected-error @+1 {{'jfa.load_cols' op offset -4 is negative: the read would start before the source}}
  %v = jfa.load_cols %in[%off] cols(%n) : !jfa.ptr<f32> -> tensor<64x64xf32, #jfa.wgmma_acc>
}

// -----

jfa.kernel @k(%n: i32) warps(4) {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %buf = jfa.local_alloc : !jfa.smem<1 x 64xf32>
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64xf32>, i32
  // expected-error @+1 {{'jfa.load_cols' op reads elements [8, 72) of '!jfa.slot<64xf32>', which has 64; bound the columns with cols(%count)}}
  %v = jfa.load_cols %s[%c8] : !jfa.slot<64xf32> -> tensor<64x64xf32, #jfa.wgmma_acc>
}

// -----

jfa.kernel @k(%n: i32) warps(4) {
  %c0 = arith.constant 0 : i32
  %buf = jfa.local_alloc : !jfa.smem<1 x 32xf32>
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 32xf32>, i32
  // expected-error @+1 {{'jfa.load_cols' op reads elements [0, 64) of '!jfa.slot<32xf32>', which has 32; bound the columns with cols(%count)}}
  %v = jfa.load_cols %s[%n] : !jfa.slot<32xf32> -> tensor<64x64xf32, #jfa.wgmma_acc>
}
