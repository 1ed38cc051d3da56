// RUN: jfa-opt %s --split-input-file --jfa-convert-to-llvm --verify-diagnostics
// The conversion's own errors: allocations that jfa-allocate-shared-memory
// has not placed, and tile-level (undistributed) ops. Each is followed by
// the dialect conversion's "failed to legalize" for the same op.

jfa.kernel @buffer_without_offset() warps(4) {
  // expected-error @+2 {{'jfa.local_alloc' op has no shared-memory offset; run jfa-allocate-shared-memory}}
  // expected-error @+1 {{failed to legalize operation 'jfa.local_alloc' that was explicitly marked illegal}}
  %a = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
}

// -----

jfa.kernel @barriers_without_offset() warps(4) {
  // expected-error @+2 {{'jfa.alloc_barriers' op has no shared-memory offset; run jfa-allocate-shared-memory}}
  // expected-error @+1 {{failed to legalize operation 'jfa.alloc_barriers'}}
  %b = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
}

// -----

jfa.kernel @tmem_without_offset() warps(4) {
  // expected-error @+2 {{'jfa.tmem_alloc' op has no shared-memory offset; run jfa-allocate-shared-memory}}
  // expected-error @+1 {{failed to legalize operation 'jfa.tmem_alloc'}}
  %t = jfa.tmem_alloc : !jfa.tmem<128x64xf32>
}

// -----

// The tile-level iota (a tensor result, no thread).
jfa.kernel @iota_tile() warps(4) {
  // expected-error @+1 {{'jfa.iota' op run jfa-distribute-tiles first}}
  %r = jfa.iota rows : tensor<64x64xi32, #jfa.wgmma_acc>
}

// -----

// A distributed-looking iota without its threads attribute.
jfa.kernel @iota_without_threads() warps(4) {
  %t = jfa.thread_id
  // expected-error @+2 {{'jfa.iota' op run jfa-distribute-tiles first}}
  // expected-error @+1 {{failed to legalize operation 'jfa.iota'}}
  %r = jfa.iota rows %t shape [64, 64] : vector<32xi32>
}

// -----

jfa.kernel @tmem_load_tile() warps(4) {
  %acc = jfa.tmem_alloc {offset = 0 : i64} : !jfa.tmem<128x64xf32>
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{'jfa.tmem_load' op run jfa-distribute-tiles first}}
  %v = jfa.tmem_load %acc[%c0] : !jfa.tmem<128x64xf32> -> tensor<128x64xf32, #jfa.tmem_row>
}

// -----

// Fragments without the layout / shape / threads of the distributed form.
jfa.kernel @reduce_without_layout() warps(4) {
  %t = arith.constant dense<1.0> : vector<16xf32>
  // expected-error @+2 {{'jfa.reduce_rows' op run jfa-distribute-tiles first}}
  // expected-error @+1 {{failed to legalize operation 'jfa.reduce_rows'}}
  %m = jfa.reduce_rows max %t threads(128) shape [64, 32] : vector<16xf32> -> vector<2xf32>
}

// -----

jfa.kernel @broadcast_without_attributes() warps(4) {
  %r = arith.constant dense<1.0> : vector<2xf32>
  // expected-error @+2 {{'jfa.broadcast_rows' op run jfa-distribute-tiles first}}
  // expected-error @+1 {{failed to legalize operation 'jfa.broadcast_rows'}}
  %b = jfa.broadcast_rows %r : vector<2xf32> -> vector<16xf32>
}
