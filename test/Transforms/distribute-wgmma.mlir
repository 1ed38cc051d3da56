// RUN: jfa-opt %s --split-input-file --jfa-distribute-tiles --verify-diagnostics | FileCheck %s
// A 128x256 accumulator over a task of two warpgroups is 128 f32 per
// thread; each warpgroup's wgmma chain gets its index.

// CHECK-LABEL: jfa.kernel @dot
jfa.kernel @dot() warps(12) {
  %a = jfa.local_alloc : !jfa.smem<1 x 128x64xbf16, swizzle 128>
  %b = jfa.local_alloc : !jfa.smem<1 x 256x64xbf16, swizzle 128>
  %c = jfa.local_alloc : !jfa.smem<1 x 128x256xbf16>
  %c0 = arith.constant 0 : i32
  jfa.async_tasks {
    jfa.task warps(8) {
      %sa = jfa.slot %a[%c0] : !jfa.smem<1 x 128x64xbf16, swizzle 128>, i32
      %sb = jfa.slot %b[%c0] : !jfa.smem<1 x 256x64xbf16, swizzle 128>, i32
      // CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<128xf32>
      %z = arith.constant dense<0.0> : tensor<128x256xf32, #jfa.wgmma_acc>
      // CHECK: %[[T:.*]] = jfa.task_thread_id
      // CHECK: %[[WG:.*]] = arith.divui %[[T]], %c128_i32
      // CHECK: %[[D:.*]] = jfa.warpgroup_dot %{{.*}}, %{{.*}}, %[[Z]], %[[WG]] : {{.*}}, vector<128xf32>
      %d = jfa.async_dot %sa, %sb, %z : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<256x64xbf16, swizzle 128>, tensor<128x256xf32, #jfa.wgmma_acc>
      // CHECK: %[[W:.*]] = jfa.async_dot_wait pending(0) (%[[D]]) : vector<128xf32>
      %w = jfa.async_dot_wait pending(0) (%d) : tensor<128x256xf32, #jfa.wgmma_acc>
      // CHECK: %[[H:.*]] = arith.truncf %[[W]] : vector<128xf32> to vector<128xbf16>
      %h = arith.truncf %w : tensor<128x256xf32, #jfa.wgmma_acc> to tensor<128x256xbf16, #jfa.wgmma_acc>
      %sc = jfa.slot %c[%c0] : !jfa.smem<1 x 128x256xbf16>, i32
      // CHECK: jfa.store_fragment %[[H]], %{{.*}}, %{{.*}} threads(256) layout(#jfa.wgmma_acc) : vector<128xbf16> -> !jfa.slot<128x256xbf16>
      jfa.local_store %h, %sc : tensor<128x256xbf16, #jfa.wgmma_acc> -> !jfa.slot<128x256xbf16>
    }
    jfa.task default {}
  }
}

// -----

jfa.kernel @misaligned() warps(8) {
  jfa.async_tasks {
    jfa.task warps(2) {}
    jfa.task warps(4) {
      // expected-error @+1 {{tile 'tensor<64x64xf32, #jfa.wgmma_acc>' in the wgmma layout needs 64 rows per warpgroup of its task; the task has 4 warps starting at warp 2 (whole, aligned warpgroups needed)}}
      %z = arith.constant dense<0.0> : tensor<64x64xf32, #jfa.wgmma_acc>
    }
    jfa.task default {}
  }
}

// -----

jfa.kernel @rows() warps(8) {
  // expected-error @+1 {{tile 'tensor<64x64xf32, #jfa.wgmma_acc>' in the wgmma layout needs 64 rows per warpgroup of its task; the task has 8 warps starting at warp 0 (whole, aligned warpgroups needed)}}
  %z = arith.constant dense<0.0> : tensor<64x64xf32, #jfa.wgmma_acc>
}

// -----

// Whole-row column joins and cuts of wgmma accumulators are register moves:
// a 64x64 tile is registers 0-31 (8-column groups 0-7), so the halves of a
// 64x128 tile are its registers 0-31 and 32-63, in order.
// CHECK-LABEL: jfa.kernel @join_and_cut_columns
jfa.kernel @join_and_cut_columns() warps(4) {
  %a = arith.constant dense<1.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  %b = arith.constant dense<2.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  // CHECK: %[[W:.*]] = vector.shuffle %{{.*}}, %{{.*}} [0, 1, 2, {{.*}}, 62, 63] : vector<32xf32>, vector<32xf32>
  %w = tensor.concat dim(1) %a, %b : (tensor<64x64xf32, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>) -> tensor<64x128xf32, #jfa.wgmma_acc>
  // CHECK: vector.shuffle %[[W]], %[[W]] [32, 33, 34, {{.*}}, 62, 63] : vector<64xf32>, vector<64xf32>
  %hi = tensor.extract_slice %w[0, 64] [64, 64] [1, 1] : tensor<64x128xf32, #jfa.wgmma_acc> to tensor<64x64xf32, #jfa.wgmma_acc>
  // Columns 8-23: 8-column groups 1 and 2, registers 4-11.
  // CHECK: vector.shuffle %[[W]], %[[W]] [4, 5, 6, 7, 8, 9, 10, 11] : vector<64xf32>, vector<64xf32>
  %mid = tensor.extract_slice %w[0, 8] [64, 16] [1, 1] : tensor<64x128xf32, #jfa.wgmma_acc> to tensor<64x16xf32, #jfa.wgmma_acc>
}

// -----

// A cut inside an 8-column group is not a register move.
jfa.kernel @cut_inside_a_group() warps(4) {
  %w = jfa.iota cols : tensor<64x128xi32, #jfa.wgmma_acc>
  // expected-error @+1 {{'tensor.extract_slice' op takes whole rows of a register tile at a constant column, in the #jfa.wgmma_acc or #jfa.tmem_row layout (where a column keeps its register offset at any width), got 'tensor<64x8xi32, #jfa.wgmma_acc>' of 'tensor<64x128xi32, #jfa.wgmma_acc>'}}
  %x = tensor.extract_slice %w[0, 4] [64, 8] [1, 1] : tensor<64x128xi32, #jfa.wgmma_acc> to tensor<64x8xi32, #jfa.wgmma_acc>
}

// -----

// The blocked default layout spreads a tile by its width: no joins.
jfa.kernel @join_blocked() warps(4) {
  %a = jfa.iota cols : tensor<64x64xi32>
  // expected-error @+1 {{'tensor.concat' op joins register tiles only along columns, two at a time, in the #jfa.wgmma_acc or #jfa.tmem_row layout (where a column keeps its register offset at any width), got 'tensor<64x128xi32>'}}
  %w = tensor.concat dim(1) %a, %a : (tensor<64x64xi32>, tensor<64x64xi32>) -> tensor<64x128xi32>
}
