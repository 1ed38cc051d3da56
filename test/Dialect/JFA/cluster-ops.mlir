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

// Distributed shared memory: register tiles to and from a peer's slot, a
// fetch handed to a peer, a wait that acquires at cluster scope.
// CHECK-LABEL: jfa.kernel @dsmem_ops
// CHECK: jfa.local_store %{{.*}}, %[[S:.*]] on cta %[[P:[^ ]*]] : tensor<64x32xf32, #jfa.wgmma_acc> -> !jfa.slot<64x32xf32, swizzle 128>
// CHECK: jfa.local_load %[[S]] on cta %[[P]] : !jfa.slot<64x32xf32, swizzle 128> -> tensor<64x32xf32, #jfa.wgmma_acc>
// CHECK: jfa.store_fragment %{{.*}}, %[[S]], %{{.*}} threads(128) layout(#jfa.wgmma_acc) on cta %[[P]] : vector<16xf32> -> !jfa.slot<64x32xf32, swizzle 128>
// CHECK: jfa.load_fragment %[[S]], %{{.*}} threads(128) layout(#jfa.wgmma_acc) on cta %[[P]] : !jfa.slot<64x32xf32, swizzle 128> -> vector<16xf32>
// CHECK: jfa.atomic_fetch_add %{{.*}}[%{{.*}}], %{{.*}} into %{{.*}} arrive %[[F:.*]] and cta %[[P]] : !jfa.ptr<i32>, !jfa.slot<1xi32>
// CHECK: jfa.barrier_wait %[[F]], %{{.*}} acquire(cluster){{$}}
// CHECK: jfa.barrier_wait %[[F]], %{{[^ ]*}}{{$}}
// CHECK: jfa.barrier_try_wait %[[F]], %{{.*}} acquire(cluster){{$}}
jfa.kernel @dsmem_ops(%counter: !jfa.ptr<i32>) warps(4) cluster(2, 1, 1) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x32xf32, swizzle 128>
  %next = jfa.local_alloc : !jfa.smem<1 x 1xi32>
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = jfa.cluster_rank
  %peer = arith.xori %r, %c1 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x32xf32, swizzle 128>, i32
  %n = jfa.slot %next[%c0] : !jfa.smem<1 x 1xi32>, i32
  %f = jfa.barrier %full[%c0] : !jfa.mbarriers<1>, i32
  %t = arith.constant dense<1.0> : tensor<64x32xf32, #jfa.wgmma_acc>
  jfa.local_store %t, %s on cta %peer : tensor<64x32xf32, #jfa.wgmma_acc> -> !jfa.slot<64x32xf32, swizzle 128>
  %u = jfa.local_load %s on cta %peer : !jfa.slot<64x32xf32, swizzle 128> -> tensor<64x32xf32, #jfa.wgmma_acc>
  %tid = jfa.thread_id
  %v = arith.constant dense<1.0> : vector<16xf32>
  jfa.store_fragment %v, %s, %tid threads(128) layout(#jfa.wgmma_acc) on cta %peer : vector<16xf32> -> !jfa.slot<64x32xf32, swizzle 128>
  %w = jfa.load_fragment %s, %tid threads(128) layout(#jfa.wgmma_acc) on cta %peer : !jfa.slot<64x32xf32, swizzle 128> -> vector<16xf32>
  jfa.atomic_fetch_add %counter[%c0], %c1 into %n arrive %f and cta %peer : !jfa.ptr<i32>, !jfa.slot<1xi32>
  jfa.barrier_wait %f, %c0 acquire(cluster)
  jfa.barrier_wait %f, %c0
  %ready = jfa.barrier_try_wait %f, %c0 acquire(cluster)
}
