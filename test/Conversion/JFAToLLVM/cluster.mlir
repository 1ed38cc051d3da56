// RUN: jfa-opt %s --split-input-file --jfa-convert-to-llvm | FileCheck %s
// RUN: jfa-opt %s --split-input-file --jfa-convert-to-llvm | FileCheck %s --check-prefix=MAPAS
// Clusters: ids, the cluster barrier, an arrival on a peer CTA's mbarrier
// (mapa into the cluster window at the arrival, then a release at cluster
// scope), TMA multicast, row blocks, remote fragment moves, and the cluster
// barriers the compiler adds after the mbarriers' initialization and before
// the kernel exits.

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
// CHECK-NEXT: %[[B:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
// CHECK-NEXT: nvvm.mbarrier.arrive %[[B]] : !llvm.ptr<3> -> i64
// The peer's: one arrival per warp from its lowest active lane, counting
// the active lanes, after a warp sync. The barrier's place in the peer is
// mapped inside the leader's branch, by a mapa in inline assembly with side
// effects: LLVM hoists a pure nvvm.mapa out of a loop, and the mapped
// address then holds a register the whole loop long (ptxas spilled so in
// the attention backward's main loop).
// CHECK-NEXT: %[[ACTIVE:.*]] = llvm.inline_asm has_side_effects "activemask.b32 $0;", "=r"
// CHECK-NEXT: %[[FIRST:.*]] = "llvm.intr.cttz"(%[[ACTIVE]]) <{is_zero_poison = true}>
// CHECK-NEXT: %[[LANE:.*]] = nvvm.read.ptx.sreg.laneid : i32
// CHECK-NEXT: %[[LEADS:.*]] = llvm.icmp "eq" %[[LANE]], %[[FIRST]] : i32
// CHECK-NEXT: nvvm.bar.warp.sync %[[ACTIVE]] : i32
// CHECK-NEXT: %[[COUNT:.*]] = llvm.intr.ctpop(%[[ACTIVE]]) : (i32) -> i32
// CHECK-NEXT: scf.if %[[LEADS]] {
// CHECK-NEXT: %[[LOCAL:.*]] = llvm.ptrtoint %[[B]] : !llvm.ptr<3> to i32
// CHECK-NEXT: %[[MAPPED:.*]] = llvm.inline_asm has_side_effects "mapa.shared::cluster.u32 $0, $1, $2;", "=r,r,r" %[[LOCAL]], %[[PEER]] : (i32, i32) -> i32
// CHECK-NEXT: %[[REMOTE:.*]] = llvm.inttoptr %[[MAPPED]] : i32 to !llvm.ptr<7>
// CHECK-NEXT: nvvm.mbarrier.arrive %[[REMOTE]], %[[COUNT]] {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>
// CHECK-NEXT: }
// release(cta): the same message, released at CTA scope (the default scope,
// not printed).
// CHECK-NEXT: %[[ACTIVE2:.*]] = llvm.inline_asm has_side_effects "activemask.b32 $0;", "=r"
// CHECK-NEXT: %[[FIRST2:.*]] = "llvm.intr.cttz"(%[[ACTIVE2]]) <{is_zero_poison = true}>
// CHECK-NEXT: %[[LANE2:.*]] = nvvm.read.ptx.sreg.laneid : i32
// CHECK-NEXT: %[[LEADS2:.*]] = llvm.icmp "eq" %[[LANE2]], %[[FIRST2]] : i32
// CHECK-NEXT: nvvm.bar.warp.sync %[[ACTIVE2]] : i32
// CHECK-NEXT: %[[COUNT2:.*]] = llvm.intr.ctpop(%[[ACTIVE2]]) : (i32) -> i32
// CHECK-NEXT: scf.if %[[LEADS2]] {
// CHECK-NEXT: %[[LOCAL2:.*]] = llvm.ptrtoint %[[B]] : !llvm.ptr<3> to i32
// CHECK-NEXT: %[[MAPPED2:.*]] = llvm.inline_asm has_side_effects "mapa.shared::cluster.u32 $0, $1, $2;", "=r,r,r" %[[LOCAL2]], %[[PEER]] : (i32, i32) -> i32
// CHECK-NEXT: %[[REMOTE2:.*]] = llvm.inttoptr %[[MAPPED2]] : i32 to !llvm.ptr<7>
// CHECK-NEXT: nvvm.mbarrier.arrive %[[REMOTE2]], %[[COUNT2]] : !llvm.ptr<7>
// CHECK-NEXT: }
// MAPAS-LABEL: llvm.func @init
// MAPAS-COUNT-2: "mapa.shared::cluster.u32 $0, $1, $2;"
// MAPAS-NOT: mapa
// MAPAS: llvm.return
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

// Distributed shared memory: a fragment moved `on cta` maps the slot's base
// into the peer's window once, at the op (a mapa in inline assembly with
// side effects, which LLVM does not hoist out of a loop to hold registers
// there), and takes the distance `mapped - local`: a CTA's shared memory is
// one contiguous range of the cluster window. Each piece is then the local
// piece's address (the same swizzled offsets, the same 1024-byte steps as a
// local move) plus that one distance, as a ptr<7>: plain loads and stores in
// address space 7 (ld/st.shared::cluster). An f32 accumulator goes in whole
// 8-byte pieces (not the local store's two 4-byte stores against bank
// conflicts); a 16-bit one pair by pair: stmatrix and ldmatrix address this
// CTA's shared memory only.
// CHECK-LABEL: llvm.func @remote_fragments
// CHECK: %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK-NEXT: %[[PEER:.*]] = arith.xori %[[RANK]], %{{.*}} : i32
// CHECK-NEXT: %[[S:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<8192 x i8>
// CHECK-NEXT: %[[H:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<16384 x i8>
// The load: one mapa of the f32 slot, then 8 pieces of two f32 at their
// local places plus the distance.
// CHECK-NEXT: llvm.mlir.poison : vector<16xf32>
// CHECK-NEXT: %[[LBASE:.*]] = llvm.ptrtoint %[[S]] : !llvm.ptr<3> to i32
// CHECK-NEXT: %[[LARG:.*]] = llvm.ptrtoint %[[S]] : !llvm.ptr<3> to i32
// CHECK-NEXT: %[[LMAP:.*]] = llvm.inline_asm has_side_effects "mapa.shared::cluster.u32 $0, $1, $2;", "=r,r,r" %[[LARG]], %[[PEER]] : (i32, i32) -> i32
// CHECK-NEXT: %[[LPTR:.*]] = llvm.inttoptr %[[LMAP]] : i32 to !llvm.ptr<7>
// CHECK-NEXT: %[[LREM:.*]] = llvm.ptrtoint %[[LPTR]] : !llvm.ptr<7> to i32
// CHECK-NEXT: %[[LD:.*]] = llvm.sub %[[LREM]], %[[LBASE]] : i32
// CHECK-NOT: mapa
// CHECK: %[[X:.*]] = llvm.xor
// CHECK-NEXT: %[[P:.*]] = llvm.getelementptr %[[S]][%[[X]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK-NEXT: %[[PI:.*]] = llvm.ptrtoint %[[P]] : !llvm.ptr<3> to i32
// CHECK-NEXT: %[[PR:.*]] = llvm.add %[[PI]], %[[LD]] : i32
// CHECK-NEXT: %[[PQ:.*]] = llvm.inttoptr %[[PR]] : i32 to !llvm.ptr<7>
// CHECK-NEXT: llvm.load %[[PQ]] {alignment = 8 : i64} : !llvm.ptr<7> -> vector<2xf32>
// CHECK-NOT: mapa
// CHECK: %[[P1:.*]] = llvm.getelementptr %[[P]][1024] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NEXT: %[[P1I:.*]] = llvm.ptrtoint %[[P1]] : !llvm.ptr<3> to i32
// CHECK-NEXT: %[[P1R:.*]] = llvm.add %[[P1I]], %[[LD]] : i32
// CHECK-NEXT: %[[P1Q:.*]] = llvm.inttoptr %[[P1R]] : i32 to !llvm.ptr<7>
// CHECK-NEXT: llvm.load %[[P1Q]] {alignment = 8 : i64} : !llvm.ptr<7> -> vector<2xf32>
// CHECK-NOT: mapa
// CHECK-COUNT-6: %[[I:[0-9]+]] = llvm.ptrtoint %{{[0-9]+}} : !llvm.ptr<3> to i32{{[[:space:]]+}}%[[R:[0-9]+]] = llvm.add %[[I]], %[[LD]] : i32{{[[:space:]]+}}%[[Q:[0-9]+]] = llvm.inttoptr %[[R]] : i32 to !llvm.ptr<7>{{[[:space:]]+}}%{{[0-9]+}} = llvm.load %[[Q]] {alignment = 8 : i64} : !llvm.ptr<7> -> vector<2xf32>
// CHECK-NOT: llvm.load
// The store: its own mapa of the slot, then the same 8 pieces, each one
// 8-byte store.
// CHECK: %[[SBASE:.*]] = llvm.ptrtoint %[[S]] : !llvm.ptr<3> to i32
// CHECK-NEXT: %[[SARG:.*]] = llvm.ptrtoint %[[S]] : !llvm.ptr<3> to i32
// CHECK-NEXT: %[[SMAP:.*]] = llvm.inline_asm has_side_effects "mapa.shared::cluster.u32 $0, $1, $2;", "=r,r,r" %[[SARG]], %[[PEER]] : (i32, i32) -> i32
// CHECK-NEXT: %[[SPTR:.*]] = llvm.inttoptr %[[SMAP]] : i32 to !llvm.ptr<7>
// CHECK-NEXT: %[[SREM:.*]] = llvm.ptrtoint %[[SPTR]] : !llvm.ptr<7> to i32
// CHECK-NEXT: %[[SD:.*]] = llvm.sub %[[SREM]], %[[SBASE]] : i32
// CHECK-NOT: mapa
// CHECK-COUNT-8: %[[I:[0-9]+]] = llvm.ptrtoint %{{[0-9]+}} : !llvm.ptr<3> to i32{{[[:space:]]+}}%[[R:[0-9]+]] = llvm.add %[[I]], %[[SD]] : i32{{[[:space:]]+}}%[[Q:[0-9]+]] = llvm.inttoptr %[[R]] : i32 to !llvm.ptr<7>{{[[:space:]]+}}llvm.store %{{[0-9]+}}, %[[Q]] {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<7>
// CHECK-NOT: : f32, !llvm.ptr
// bf16: its own mapa of the bf16 slot, then 32 pairs, no stmatrix.
// CHECK-NOT: nvvm.stmatrix
// CHECK: %[[HBASE:.*]] = llvm.ptrtoint %[[H]] : !llvm.ptr<3> to i32
// CHECK-NEXT: %[[HARG:.*]] = llvm.ptrtoint %[[H]] : !llvm.ptr<3> to i32
// CHECK-NEXT: %[[HMAP:.*]] = llvm.inline_asm has_side_effects "mapa.shared::cluster.u32 $0, $1, $2;", "=r,r,r" %[[HARG]], %[[PEER]] : (i32, i32) -> i32
// CHECK-NEXT: %[[HPTR:.*]] = llvm.inttoptr %[[HMAP]] : i32 to !llvm.ptr<7>
// CHECK-NEXT: %[[HREM:.*]] = llvm.ptrtoint %[[HPTR]] : !llvm.ptr<7> to i32
// CHECK-NEXT: %[[HD:.*]] = llvm.sub %[[HREM]], %[[HBASE]] : i32
// CHECK-NOT: {{mapa|nvvm.stmatrix}}
// CHECK-COUNT-32: %[[I:[0-9]+]] = llvm.ptrtoint %{{[0-9]+}} : !llvm.ptr<3> to i32{{[[:space:]]+}}%[[R:[0-9]+]] = llvm.add %[[I]], %[[HD]] : i32{{[[:space:]]+}}%[[Q:[0-9]+]] = llvm.inttoptr %[[R]] : i32 to !llvm.ptr<7>{{[[:space:]]+}}llvm.store %{{[0-9]+}}, %[[Q]] {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<7>
// CHECK-NOT: {{mapa|nvvm.stmatrix|llvm.store}}
// CHECK: llvm.return
// One mapa per op in all, none per piece.
// MAPAS-LABEL: llvm.func @remote_fragments
// MAPAS-COUNT-3: "mapa.shared::cluster.u32 $0, $1, $2;"
// MAPAS-NOT: mapa
// MAPAS: llvm.return
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
// The peer's slot and barrier, mapped at the use (inline-asm mapa).
// CHECK-NEXT: %[[SL:.*]] = llvm.ptrtoint %[[S]] : !llvm.ptr<3> to i32
// CHECK-NEXT: %[[SM:.*]] = llvm.inline_asm has_side_effects "mapa.shared::cluster.u32 $0, $1, $2;", "=r,r,r" %[[SL]], %[[PEER]] : (i32, i32) -> i32
// CHECK-NEXT: %[[RS:.*]] = llvm.inttoptr %[[SM]] : i32 to !llvm.ptr<7>
// CHECK-NEXT: llvm.store %[[OLD]], %[[RS]] : i32, !llvm.ptr<7>
// CHECK-NEXT: %[[BL:.*]] = llvm.ptrtoint %[[B]] : !llvm.ptr<3> to i32
// CHECK-NEXT: %[[BM:.*]] = llvm.inline_asm has_side_effects "mapa.shared::cluster.u32 $0, $1, $2;", "=r,r,r" %[[BL]], %[[PEER]] : (i32, i32) -> i32
// CHECK-NEXT: %[[RB:.*]] = llvm.inttoptr %[[BM]] : i32 to !llvm.ptr<7>
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
