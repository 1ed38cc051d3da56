// RUN: jfa-opt %s | jfa-opt | FileCheck %s
// The cluster ops print as they are written and parse back.

// CHECK-LABEL: jfa.kernel @cluster_ops
// CHECK-SAME: cluster(2, 1, 1)
// CHECK: jfa.cluster_rank
// CHECK: jfa.cluster_id y
// CHECK: jfa.row_block %{{.*}}[%{{.*}}] : !jfa.slot<256x64xbf16, swizzle 128> -> !jfa.slot<128x64xbf16, swizzle 128>
// CHECK: jfa.tma_load %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}, %{{.*}} multicast(%{{.*}}) : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
// CHECK: jfa.tma_load %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}, %{{.*}} : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
// CHECK: jfa.barrier_arrive %{{.*}} on cta %{{.*}}{{$}}
// CHECK: jfa.barrier_arrive %{{.*}} on cta %{{.*}} release(cta){{$}}
// CHECK: jfa.barrier_arrive %{{[0-9]+}}{{$}}
// CHECK: jfa.cluster_arrive
// CHECK: jfa.cluster_wait
jfa.kernel @cluster_ops(%b: !jfa.tma<128x64xbf16, swizzle 128>) warps(4) cluster(2, 1, 1) {
  %ring = jfa.local_alloc : !jfa.smem<1 x 256x64xbf16, swizzle 128>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %both = arith.constant 3 : i16
  %r = jfa.cluster_rank
  %y = jfa.cluster_id y
  %s = jfa.slot %ring[%c0] : !jfa.smem<1 x 256x64xbf16, swizzle 128>, i32
  %f = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  %half = jfa.row_block %s[%r] : !jfa.slot<256x64xbf16, swizzle 128> -> !jfa.slot<128x64xbf16, swizzle 128>
  jfa.tma_load %b[%y, %c0], %half, %f multicast(%both) : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
  jfa.tma_load %b[%y, %c0], %half, %f : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
  %peer = arith.xori %r, %c1 : i32
  jfa.barrier_arrive %f on cta %peer
  jfa.barrier_arrive %f on cta %peer release(cta)
  jfa.barrier_arrive %f
  jfa.cluster_arrive
  jfa.cluster_wait
}

// CTA-pair products and the loads that feed them.
// CHECK-LABEL: jfa.kernel @pair_ops
// CHECK: jfa.tma_load %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}, %{{.*}} on cta %{{.*}} : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
// CHECK: jfa.tc_dot %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} pair : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, !jfa.tmem<128x256xf32>
// CHECK: jfa.tc_commit %{{.*}} multicast(%{{.*}})
jfa.kernel @pair_ops(%d: !jfa.tma<128x64xbf16, swizzle 128>) warps(4) cluster(2, 1, 1) {
  %ring = jfa.local_alloc : !jfa.smem<1 x 128x64xbf16, swizzle 128>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %acc = jfa.tmem_alloc : !jfa.tmem<128x256xf32>
  %c0 = arith.constant 0 : i32
  %true = arith.constant true
  %both = arith.constant 3 : i16
  %s = jfa.slot %ring[%c0] : !jfa.smem<1 x 128x64xbf16, swizzle 128>, i32
  %f = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  jfa.tma_load %d[%c0, %c0], %s, %f on cta %c0 : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
  jfa.tc_dot %s, %s, %acc, %true pair : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, !jfa.tmem<128x256xf32>
  jfa.tc_commit %f multicast(%both)
}
