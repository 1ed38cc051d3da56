// RUN: jfa-opt %s --jfa-allocate-shared-memory | FileCheck %s
// Buffers are 1024-byte aligned and come first; barrier arrays follow,
// 8-byte aligned.

// CHECK-LABEL: jfa.kernel @k
// CHECK-SAME: attributes {jfa.shared_bytes = 3112 : i64}
jfa.kernel @k() warps(4) {
  // CHECK: jfa.alloc_barriers arrive_count(1) {offset = 3072 : i64} : !jfa.mbarriers<3>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<3>
  // CHECK: jfa.local_alloc {offset = 0 : i64} : !jfa.smem<3 x 8x8xf32>
  %a = jfa.local_alloc : !jfa.smem<3 x 8x8xf32>
  // 768 bytes, rounded up to the next 1024-byte boundary.
  // CHECK: jfa.local_alloc {offset = 1024 : i64} : !jfa.smem<2 x 16x32xbf16>
  %b = jfa.local_alloc : !jfa.smem<2 x 16x32xbf16>
  // CHECK: jfa.alloc_barriers arrive_count(2) {offset = 3096 : i64} : !jfa.mbarriers<2>
  %more = jfa.alloc_barriers arrive_count(2) : !jfa.mbarriers<2>
}

// CHECK-LABEL: jfa.kernel @empty
// CHECK-SAME: attributes {jfa.shared_bytes = 0 : i64}
jfa.kernel @empty() warps(1) {}
