// RUN: jfa-opt %s --split-input-file --verify-diagnostics
// Verifier errors of the distributed forms (what jfa-distribute-tiles
// makes; written by hand only in tests and by passes).

jfa.kernel @k() warps(4) {
  %t = arith.constant dense<1.0> : vector<16xf32>
  // expected-error @+1 {{'jfa.reduce_rows' op works on tiles in the #jfa.wgmma_acc or #jfa.tmem_row layout, got #jfa.blocked}}
  %m = jfa.reduce_rows max %t threads(128) layout(#jfa.blocked) shape [32, 64] : vector<16xf32> -> vector<2xf32>
}

// -----

jfa.kernel @k() warps(4) {
  %t = arith.constant dense<1.0> : vector<16xf32>
  // expected-error @+1 {{'jfa.reduce_rows' op fragment 'vector<16xf32>' does not match the 32 registers a thread holds of the tile (shape, 128 threads, #jfa.wgmma_acc)}}
  %m = jfa.reduce_rows max %t threads(128) layout(#jfa.wgmma_acc) shape [64, 64] : vector<16xf32> -> vector<2xf32>
}

// -----

jfa.kernel @k() warps(4) {
  %r = arith.constant dense<1.0> : vector<2xf32>
  // expected-error @+1 {{'jfa.broadcast_rows' op fragment 'vector<8xf32>' does not match the 32 registers a thread holds of the tile (shape, 128 threads, #jfa.wgmma_acc)}}
  %b = jfa.broadcast_rows %r threads(128) layout(#jfa.wgmma_acc) shape [64, 64] : vector<2xf32> -> vector<8xf32>
}

// -----

// A shape that is no tile of the layout: 17 columns would round down to the
// 8-register fragment.
jfa.kernel @k() warps(4) {
  %r = arith.constant dense<1.0> : vector<2xf32>
  // expected-error @+1 {{'jfa.broadcast_rows' op a #jfa.wgmma_acc tile is M x N with M a multiple of 64 and N a multiple of 8 up to 256, got 'tensor<64x17xf32, #jfa.wgmma_acc>'}}
  %b = jfa.broadcast_rows %r threads(128) layout(#jfa.wgmma_acc) shape [64, 17] : vector<2xf32> -> vector<8xf32>
}

// -----

// A shape no register file holds is rejected before its registers are
// listed (listing 2^37 of them hung the verifier).
jfa.kernel @k() warps(4) {
  %r = arith.constant dense<1.0> : vector<2xf32>
  // expected-error @+1 {{'jfa.broadcast_rows' op shape 64x2147483647 over 128 threads is no tile a thread's registers hold (at most 4096 values a thread)}}
  %b = jfa.broadcast_rows %r threads(128) layout(#jfa.wgmma_acc) shape [64, 2147483647] : vector<2xf32> -> vector<8xf32>
}

// -----

jfa.kernel @k() warps(4) {
  %t = arith.constant dense<1.0> : vector<16xf32>
  // expected-error @+1 {{'jfa.reduce_rows' op shape 4194304x64 over 128 threads is no tile a thread's registers hold (at most 4096 values a thread)}}
  %m = jfa.reduce_rows max %t threads(128) layout(#jfa.wgmma_acc) shape [4194304, 64] : vector<16xf32> -> vector<2xf32>
}

// -----

jfa.kernel @k() warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  %st = jfa.transpose %s : !jfa.slot<64x64xbf16, swizzle 128>
  // expected-error @+1 {{'jfa.load_fragment' op cannot use the transposed view}}
  %v = jfa.load_fragment %st, %c0 threads(128) : !jfa.slot<64x64xbf16, swizzle 128, transposed> -> vector<32xbf16>
}

// -----

jfa.kernel @k(%out: !jfa.ptr<f32>, %n: i32) warps(4) {
  %t = arith.constant dense<1.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  // expected-error @+1 {{'jfa.store_rows' op moves row vectors (tensor<M x T, #jfa.rows_of<L>>, as jfa.reduce_rows makes them), got 'tensor<64x64xf32, #jfa.wgmma_acc>'}}
  jfa.store_rows %t, %out[%n] rows(%n) : tensor<64x64xf32, #jfa.wgmma_acc>, !jfa.ptr<f32>
}

// -----

jfa.kernel @k(%in: !jfa.ptr<f16>, %n: i32) warps(4) {
  // expected-error @+1 {{'jfa.load_rows' op row vector 'tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>' and pointer '!jfa.ptr<f16>' differ in element type}}
  %v = jfa.load_rows %in[%n] rows(%n) : !jfa.ptr<f16> -> tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
}

// -----

jfa.kernel @k(%out: !jfa.ptr<f32>, %n: i32) warps(4) {
  %v = arith.constant dense<1.0> : vector<2xf32>
  // expected-error @+1 {{'jfa.store_rows' op in distributed form needs the thread, the thread count, a #jfa.rows_of layout and the shape}}
  jfa.store_rows %v, %out[%n] rows(%n) : vector<2xf32>, !jfa.ptr<f32>
}

// -----

jfa.kernel @k(%in: !jfa.ptr<f32>, %n: i32) warps(4) {
  // expected-error @+1 {{'jfa.load_cols' op in distributed form needs the thread, the thread count, the layout and the shape}}
  %v = jfa.load_cols %in[%n] cols(%n) : !jfa.ptr<f32> -> vector<32xf32>
}

// -----

jfa.kernel @k(%in: !jfa.ptr<f32>, %n: i32) warps(4) {
  %t = arith.constant 0 : i32
  // expected-error @+1 {{'jfa.load_cols' op fragment 'vector<16xf32>' does not match the 32 registers a thread holds of the tile (shape, 128 threads, #jfa.wgmma_acc)}}
  %v = jfa.load_cols %in[%n] cols(%n) thread %t threads(128) layout(#jfa.wgmma_acc) shape [64, 64] : !jfa.ptr<f32> -> vector<16xf32>
}
