// RUN: jfa-opt %s --jfa-inline-helpers | FileCheck %s
// A helper written for a 3-stage ring (stage_parameter = 3), called with a
// 4-stage ring and with its own: each copy takes the call's slot count in
// its ring types and jfa.ring_position's stages, and a helper it calls is
// bound the same way. Other counts (the 1-slot buffer) are left alone.

jfa.func @consume(%n: i32, %ring: !jfa.smem<3 x 64x64xbf16, swizzle 128>,
                  %full: !jfa.mbarriers<3>, %empty: !jfa.mbarriers<3>,
                  %out: !jfa.smem<1 x 64x64xbf16, swizzle 128>)
    attributes {stage_parameter = 3} {
  %s, %phase = jfa.ring_position %n stages(3) : i32
  %full_s = jfa.barrier %full[%s] : !jfa.mbarriers<3>, i32
  jfa.barrier_wait %full_s, %phase
  %slot = jfa.slot %ring[%s] : !jfa.smem<3 x 64x64xbf16, swizzle 128>, i32
  jfa.call @release(%n, %empty) : (i32, !jfa.mbarriers<3>) -> ()
  jfa.return
}

jfa.func @release(%n: i32, %empty: !jfa.mbarriers<3>)
    attributes {stage_parameter = 3} {
  %s, %phase = jfa.ring_position %n stages(3) : i32
  %empty_s = jfa.barrier %empty[%s] : !jfa.mbarriers<3>, i32
  jfa.barrier_arrive %empty_s
  jfa.return
}

// CHECK-NOT: jfa.func
// CHECK-LABEL: jfa.kernel @four
// CHECK: jfa.ring_position %{{.*}} stages(4) : i32
// CHECK: jfa.barrier %{{.*}}[%{{.*}}] : !jfa.mbarriers<4>, i32
// CHECK: jfa.slot %{{.*}}[%{{.*}}] : !jfa.smem<4 x 64x64xbf16, swizzle 128>, i32
// CHECK: jfa.ring_position %{{.*}} stages(4) : i32
// CHECK: jfa.barrier %{{.*}}[%{{.*}}] : !jfa.mbarriers<4>, i32
// CHECK-NOT: stages(3)
// CHECK-LABEL: jfa.kernel @three
// CHECK: jfa.ring_position %{{.*}} stages(3) : i32
// CHECK: jfa.slot %{{.*}}[%{{.*}}] : !jfa.smem<3 x 64x64xbf16, swizzle 128>, i32
// CHECK: jfa.ring_position %{{.*}} stages(3) : i32
jfa.kernel @four(%n: i32) warps(4) {
  %ring = jfa.local_alloc : !jfa.smem<4 x 64x64xbf16, swizzle 128>
  %out = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<4>
  %empty = jfa.alloc_barriers arrive_count(128) : !jfa.mbarriers<4>
  jfa.call @consume(%n, %ring, %full, %empty, %out)
      : (i32, !jfa.smem<4 x 64x64xbf16, swizzle 128>, !jfa.mbarriers<4>, !jfa.mbarriers<4>, !jfa.smem<1 x 64x64xbf16, swizzle 128>) -> ()
}
jfa.kernel @three(%n: i32) warps(4) {
  %ring = jfa.local_alloc : !jfa.smem<3 x 64x64xbf16, swizzle 128>
  %out = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<3>
  %empty = jfa.alloc_barriers arrive_count(128) : !jfa.mbarriers<3>
  jfa.call @consume(%n, %ring, %full, %empty, %out)
      : (i32, !jfa.smem<3 x 64x64xbf16, swizzle 128>, !jfa.mbarriers<3>, !jfa.mbarriers<3>, !jfa.smem<1 x 64x64xbf16, swizzle 128>) -> ()
}

// A helper without a stage parameter (no ring in its signature) called
// from a bound copy takes that copy's binding: its ring_position follows
// the ring.
jfa.func @wait_full(%n: i32, %full: !jfa.mbarriers<3>)
    attributes {stage_parameter = 3} {
  %s, %phase = jfa.call @position(%n) : (i32) -> (i32, i32)
  %full_s = jfa.barrier %full[%s] : !jfa.mbarriers<3>, i32
  jfa.barrier_wait %full_s, %phase
  jfa.return
}
jfa.func @position(%n: i32) -> (i32, i32) {
  %s, %phase = jfa.ring_position %n stages(3) : i32
  jfa.return %s, %phase : i32, i32
}
// CHECK-LABEL: jfa.kernel @nested
// CHECK: jfa.ring_position %{{.*}} stages(5) : i32
// CHECK: jfa.barrier %{{.*}}[%{{.*}}] : !jfa.mbarriers<5>, i32
// CHECK-NOT: stages(3)
// CHECK-LABEL: jfa.kernel @unbound
// CHECK: jfa.ring_position %{{.*}} stages(3) : i32
jfa.kernel @nested(%n: i32) warps(4) {
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<5>
  jfa.call @wait_full(%n, %full) : (i32, !jfa.mbarriers<5>) -> ()
}
jfa.kernel @unbound(%n: i32) warps(4) {
  %s, %phase = jfa.call @position(%n) : (i32) -> (i32, i32)
}
