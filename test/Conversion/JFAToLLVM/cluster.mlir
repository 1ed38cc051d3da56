// RUN: jfa-opt %s --split-input-file --jfa-convert-to-llvm | FileCheck %s
// Clusters: ids, the cluster barrier, an arrival on a peer CTA's mbarrier
// (mapa into the cluster window, then a release at cluster scope), TMA
// multicast, row blocks, and the cluster barriers the compiler adds after
// the mbarriers' initialization and before the kernel exits.

// CHECK-LABEL: llvm.func @ids
// CHECK-SAME: nvvm.cluster_dim = array<i32: 2, 1, 1>
// CHECK: nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK: nvvm.read.ptx.sreg.clusterid.x : i32
// CHECK: nvvm.read.ptx.sreg.clusterid.y : i32
// The kernel's own phase barrier: not .aligned.
// CHECK: nvvm.cluster.arrive{{$}}
// CHECK-NEXT: nvvm.cluster.wait{{$}}
// The exit barrier of a cluster kernel.
// CHECK: nvvm.cluster.arrive{{$}}
// CHECK-NEXT: nvvm.cluster.wait{{$}}
// CHECK-NEXT: llvm.return
jfa.kernel @ids(%out: !jfa.ptr<i32>) warps(4) cluster(2, 1, 1) {
  %r = jfa.cluster_rank
  %x = jfa.cluster_id x
  %y = jfa.cluster_id y
  %s = arith.addi %r, %x : i32
  %t = arith.addi %s, %y : i32
  %c0 = arith.constant 0 : i32
  jfa.store %t, %out[%c0] : i32, !jfa.ptr<i32>
  jfa.cluster_arrive
  jfa.cluster_wait
}

// -----

// Without cluster(...) (or a cluster of one CTA) nothing is added: the
// initialization ends with the CTA barrier and the kernel simply returns.
// CHECK-LABEL: llvm.func @single
// CHECK: nvvm.fence.mbarrier.init
// CHECK-NEXT: nvvm.barrier0
// CHECK-NOT: nvvm.cluster
// CHECK: llvm.return
jfa.kernel @single() warps(4) cluster(1, 1, 1) {
  %bars = jfa.alloc_barriers arrive_count(1) {offset = 0 : i64} : !jfa.mbarriers<1>
}

// -----

// Two barrier arrays in a cluster kernel: the cluster waits once, after
// the last one is initialized (a CTA barrier after the first).
// CHECK-LABEL: llvm.func @init
// CHECK: nvvm.fence.mbarrier.init
// CHECK-NEXT: nvvm.barrier0
// CHECK: nvvm.fence.mbarrier.init
// CHECK-NEXT: nvvm.cluster.arrive.relaxed {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// CHECK: %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK-NEXT: %[[PEER:.*]] = {{.*}}xori %[[RANK]], %{{.*}} : i32
// The local arrival, then the peer's.
// CHECK: nvvm.mbarrier.arrive %[[B:.*]] : !llvm.ptr<3> -> i64
// The peer's: one arrival per warp from its lowest active lane, counting
// the active lanes, after a warp sync.
// CHECK-NEXT: %[[ACTIVE:.*]] = llvm.inline_asm has_side_effects "activemask.b32 $0;", "=r"
// CHECK-NEXT: %[[FIRST:.*]] = "llvm.intr.cttz"(%[[ACTIVE]]) <{is_zero_poison = true}>
// CHECK-NEXT: %[[LANE:.*]] = nvvm.read.ptx.sreg.laneid : i32
// CHECK-NEXT: %[[LEADS:.*]] = llvm.icmp "eq" %[[LANE]], %[[FIRST]] : i32
// CHECK-NEXT: nvvm.bar.warp.sync %[[ACTIVE]] : i32
// CHECK-NEXT: %[[COUNT:.*]] = llvm.intr.ctpop(%[[ACTIVE]]) : (i32) -> i32
// CHECK-NEXT: scf.if %[[LEADS]] {
// CHECK-NEXT: %[[REMOTE:.*]] = nvvm.mapa %[[B]], %[[PEER]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT: nvvm.mbarrier.arrive %[[REMOTE]], %[[COUNT]] {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>
// release(cta): the same message, released at CTA scope.
// CHECK: %[[REMOTE2:.*]] = nvvm.mapa %[[B]], %[[PEER]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT: nvvm.mbarrier.arrive %[[REMOTE2]], %{{[^ ]*}}{{( \{scope = #nvvm.mem_scope<cta>\})?}} : !llvm.ptr<7>
// CHECK: nvvm.cluster.arrive{{$}}
// CHECK-NEXT: nvvm.cluster.wait{{$}}
// CHECK-NEXT: llvm.return
jfa.kernel @init() warps(4) cluster(2, 1, 1) {
  %full = jfa.alloc_barriers arrive_count(1) {offset = 0 : i64} : !jfa.mbarriers<1>
  %empty = jfa.alloc_barriers arrive_count(256) {offset = 8 : i64} : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = jfa.cluster_rank
  %peer = arith.xori %r, %c1 : i32
  %b = jfa.barrier %empty[%c0] : !jfa.mbarriers<1>, i32
  jfa.barrier_arrive %b
  jfa.barrier_arrive %b on cta %peer
  jfa.barrier_arrive %b on cta %peer release(cta)
}

// -----

// A multicast copy into a row block: the block is 128 rows x 128 bytes =
// 16 KiB into the slot; the destination goes to the cluster window and the
// copy carries the CTA mask (PTX .multicast::cluster).
// CHECK-LABEL: llvm.func @multicast
// CHECK: %[[MASK:.*]] = {{.*}}constant{{.*}}3 : i16
// CHECK: %[[HALF:.*]] = llvm.getelementptr %[[SLOT:.*]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<16384 x i8>
// CHECK: %[[DST:.*]] = llvm.addrspacecast %[[HALF]] : !llvm.ptr<3> to !llvm.ptr<7>
// CHECK-NEXT: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[DST]], %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}] multicast_mask = %[[MASK]] : !llvm.ptr<7>, !llvm.ptr
// A plain load stays CTA-only.
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[SLOT]], {{.*}} {isCTAOnly = true{{.*}}} : !llvm.ptr<3>, !llvm.ptr
jfa.kernel @multicast(%b: !jfa.tma<128x64xbf16, swizzle 128>,
                      %w: !jfa.tma<256x64xbf16, swizzle 128>) warps(4) cluster(2, 1, 1) {
  %ring = jfa.local_alloc {offset = 1024 : i64} : !jfa.smem<1 x 256x64xbf16, swizzle 128>
  %full = jfa.alloc_barriers arrive_count(1) {offset = 0 : i64} : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %both = arith.constant 3 : i16
  %r = jfa.cluster_rank
  %s = jfa.slot %ring[%c0] : !jfa.smem<1 x 256x64xbf16, swizzle 128>, i32
  %f = jfa.barrier %full[%c0] : !jfa.mbarriers<1>, i32
  %half = jfa.row_block %s[%r] : !jfa.slot<256x64xbf16, swizzle 128> -> !jfa.slot<128x64xbf16, swizzle 128>
  jfa.barrier_expect %f, bytes(65536)
  jfa.tma_load %b[%c0, %c0], %half, %f multicast(%both) : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
  jfa.tma_load %w[%c0, %c0], %s, %f : !jfa.tma<256x64xbf16, swizzle 128>, !jfa.slot<256x64xbf16, swizzle 128>
}

// -----

// sm_100a: a multicast tcgen05.commit arrives on the barrier at the same
// place in every CTA of the mask; a plain one only on this CTA's.
// CHECK-LABEL: llvm.func @commit_multicast
// CHECK: %[[MASK:.*]] = {{.*}}constant{{.*}}3 : i16
// CHECK: nvvm.tcgen05.commit %[[BAR:.*]], multicast_mask = %[[MASK]] : !llvm.ptr<3>, i16
// CHECK-NEXT: nvvm.tcgen05.commit %[[BAR]] : !llvm.ptr<3>
jfa.kernel @commit_multicast() warps(4) cluster(2, 1, 1) {
  %bars = jfa.alloc_barriers arrive_count(2) {offset = 0 : i64} : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %both = arith.constant 3 : i16
  %bar = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  jfa.tc_commit %bar multicast(%both)
  jfa.tc_commit %bar
}
