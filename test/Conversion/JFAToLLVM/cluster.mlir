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

// -----

// Distributed shared memory: a fragment moved `on cta` goes through the
// slot's address in the peer (mapa into the cluster window, once per op)
// and the same pieces from it: the same swizzled offsets, the same 1024-byte
// steps, plain loads and stores in address space 7 (ld/st.shared::cluster).
// A 16-bit accumulator goes pair by pair: stmatrix and ldmatrix address
// this CTA's shared memory only.
// CHECK-LABEL: llvm.func @remote_fragments
// CHECK: %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK-NEXT: %[[PEER:.*]] = arith.xori %[[RANK]], %{{.*}} : i32
// CHECK-NEXT: %[[S:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<8192 x i8>
// CHECK-NEXT: %[[H:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<16384 x i8>
// The load: 8 pieces of two f32 from the peer's slot.
// CHECK: %[[RL:.*]] = nvvm.mapa %[[S]], %[[PEER]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: %[[X:.*]] = llvm.xor
// CHECK-NEXT: %[[P:.*]] = llvm.getelementptr %[[RL]][%[[X]]] : (!llvm.ptr<7>, i32) -> !llvm.ptr<7>, i8
// CHECK-NEXT: llvm.load %[[P]] {alignment = 8 : i64} : !llvm.ptr<7> -> vector<2xf32>
// CHECK: %[[P1:.*]] = llvm.getelementptr %[[P]][1024] : (!llvm.ptr<7>) -> !llvm.ptr<7>, i8
// CHECK-NEXT: llvm.load %[[P1]] {alignment = 8 : i64} : !llvm.ptr<7> -> vector<2xf32>
// CHECK-COUNT-6: llvm.load %{{.*}} : !llvm.ptr<7> -> vector<2xf32>
// The store: the same pieces, each pair as two 4-byte stores.
// CHECK: %[[RS:.*]] = nvvm.mapa %[[S]], %[[PEER]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: llvm.getelementptr %[[RS]][%{{.*}}] : (!llvm.ptr<7>, i32) -> !llvm.ptr<7>, i8
// CHECK-COUNT-16: llvm.store %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<7>
// bf16: 32 pairs, no stmatrix.
// CHECK: %[[RH:.*]] = nvvm.mapa %[[H]], %[[PEER]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NOT: nvvm.stmatrix
// CHECK: llvm.getelementptr %[[RH]][%{{.*}}] : (!llvm.ptr<7>, i32) -> !llvm.ptr<7>, i8
// CHECK-COUNT-32: llvm.store %{{.*}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<7>
// CHECK-NOT: nvvm.stmatrix
// CHECK-NOT: llvm.store
// CHECK: llvm.return
jfa.kernel @remote_fragments() warps(4) cluster(2, 1, 1) {
  %a = jfa.local_alloc {offset = 0 : i64} : !jfa.smem<1 x 64x32xf32, swizzle 128>
  %h = jfa.local_alloc {offset = 8192 : i64} : !jfa.smem<1 x 64x128xbf16, swizzle 128>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %t = jfa.thread_id
  %r = jfa.cluster_rank
  %peer = arith.xori %r, %c1 : i32
  %s = jfa.slot %a[%c0] : !jfa.smem<1 x 64x32xf32, swizzle 128>, i32
  %hs = jfa.slot %h[%c0] : !jfa.smem<1 x 64x128xbf16, swizzle 128>, i32
  %v = jfa.load_fragment %s, %t threads(128) layout(#jfa.wgmma_acc) on cta %peer : !jfa.slot<64x32xf32, swizzle 128> -> vector<16xf32>
  jfa.store_fragment %v, %s, %t threads(128) layout(#jfa.wgmma_acc) on cta %peer : vector<16xf32> -> !jfa.slot<64x32xf32, swizzle 128>
  %w = arith.constant dense<1.0> : vector<64xbf16>
  jfa.store_fragment %w, %hs, %t threads(128) layout(#jfa.wgmma_acc) on cta %peer : vector<64xbf16> -> !jfa.slot<64x128xbf16, swizzle 128>
}

// -----

// A fetch handed to a peer too: after the local store and arrival, the same
// old value to the slot's place in the peer and one arrival on the
// barrier's place there, released at cluster scope (the store before it).
// A wait with acquire(cluster) probes at cluster scope; so does the debug
// mode's single probe.
// CHECK-LABEL: llvm.func @fetch_for_peer
// CHECK: %[[PEER:.*]] = arith.xori
// CHECK-NEXT: %[[S:.*]] = llvm.getelementptr {{.*}} -> !llvm.ptr<3>, !llvm.array<4 x i8>
// CHECK-NEXT: %[[B:.*]] = llvm.getelementptr {{.*}} -> !llvm.ptr<3>, i64
// CHECK: %[[OLD:.*]] = llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic : !llvm.ptr<1>, i32
// CHECK-NEXT: llvm.store %[[OLD]], %[[S]] : i32, !llvm.ptr<3>
// CHECK-NEXT: nvvm.mbarrier.arrive %[[B]] : !llvm.ptr<3> -> i64
// CHECK-NEXT: %[[RS:.*]] = nvvm.mapa %[[S]], %[[PEER]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT: llvm.store %[[OLD]], %[[RS]] : i32, !llvm.ptr<7>
// CHECK-NEXT: %[[RB:.*]] = nvvm.mapa %[[B]], %[[PEER]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT: nvvm.mbarrier.arrive %[[RB]] {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>
// CHECK: nvvm.mbarrier.try_wait %[[B]], %{{.*}}, %{{.*}} {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<3>, i32, i32 -> i1
// A plain wait stays at CTA scope.
// CHECK: nvvm.mbarrier.try_wait %[[B]], %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32, i32 -> i1
// CHECK: nvvm.mbarrier.try_wait %[[B]], %{{.*}}, %{{.*}} {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<3>, i32, i32 -> i1
jfa.kernel @fetch_for_peer(%counter: !jfa.ptr<i32>) warps(4) cluster(2, 1, 1) {
  %next = jfa.local_alloc {offset = 1024 : i64} : !jfa.smem<1 x 1xi32>
  %full = jfa.alloc_barriers arrive_count(1) {offset = 0 : i64} : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = jfa.cluster_rank
  %peer = arith.xori %r, %c1 : i32
  %s = jfa.slot %next[%c0] : !jfa.smem<1 x 1xi32>, i32
  %f = jfa.barrier %full[%c0] : !jfa.mbarriers<1>, i32
  jfa.atomic_fetch_add %counter[%c0], %c1 into %s arrive %f and cta %peer : !jfa.ptr<i32>, !jfa.slot<1xi32>
  jfa.barrier_wait %f, %c0 acquire(cluster)
  jfa.barrier_wait %f, %c0
  %ready = jfa.barrier_try_wait %f, %c0 acquire(cluster)
}
