// RUN: jfa-opt %s --split-input-file --verify-diagnostics
// The cluster ops' verifiers: ranks and masks against the kernel's cluster,
// row blocks against their slot.

jfa.kernel @mask_beyond_cluster(%b: !jfa.tma<128x64xbf16, swizzle 128>) warps(4) cluster(2, 1, 1) {
  %ring = jfa.local_alloc : !jfa.smem<1 x 128x64xbf16, swizzle 128>
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %mask = arith.constant 5 : i16
  %s = jfa.slot %ring[%c0] : !jfa.smem<1 x 128x64xbf16, swizzle 128>, i32
  %f = jfa.barrier %full[%c0] : !jfa.mbarriers<1>, i32
  // expected-error @+1 {{multicast mask 5 names a CTA beyond the cluster, which has 2 CTAs (ranks 0 to 1)}}
  jfa.tma_load %b[%c0, %c0], %s, %f multicast(%mask) : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
}

// -----

jfa.kernel @mask_without_cluster(%b: !jfa.tma<128x64xbf16, swizzle 128>) warps(4) {
  %ring = jfa.local_alloc : !jfa.smem<1 x 128x64xbf16, swizzle 128>
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %mask = arith.constant 3 : i16
  %s = jfa.slot %ring[%c0] : !jfa.smem<1 x 128x64xbf16, swizzle 128>, i32
  %f = jfa.barrier %full[%c0] : !jfa.mbarriers<1>, i32
  // expected-error @+1 {{which has 1 CTA (ranks 0 to 0); set the kernel's cluster(x, y, z)}}
  jfa.tma_load %b[%c0, %c0], %s, %f multicast(%mask) : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
}

// -----

jfa.kernel @empty_mask(%b: !jfa.tma<128x64xbf16, swizzle 128>) warps(4) cluster(2, 1, 1) {
  %ring = jfa.local_alloc : !jfa.smem<1 x 128x64xbf16, swizzle 128>
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %mask = arith.constant 0 : i16
  %s = jfa.slot %ring[%c0] : !jfa.smem<1 x 128x64xbf16, swizzle 128>, i32
  %f = jfa.barrier %full[%c0] : !jfa.mbarriers<1>, i32
  // expected-error @+1 {{multicast mask 0 names no CTA}}
  jfa.tma_load %b[%c0, %c0], %s, %f multicast(%mask) : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
}

// -----

jfa.kernel @arrive_beyond_cluster() warps(4) cluster(2, 2, 1) {
  %bars = jfa.alloc_barriers arrive_count(128) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  // expected-error @+1 {{arrives on CTA 4 of a cluster of 4 CTAs; ranks run from 0 to the cluster's size - 1}}
  jfa.barrier_arrive %b on cta %c4
}

// -----

jfa.kernel @release_cta_local() warps(4) cluster(2, 1, 1) {
  %bars = jfa.alloc_barriers arrive_count(128) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  // expected-error @+1 {{release(cta) is for an arrival on another CTA's barrier (`on cta %rank`); a local arrival already releases at CTA scope}}
  jfa.barrier_arrive %b release(cta)
}

// -----

jfa.kernel @row_block_not_dividing(%i: i32) warps(4) {
  %ring = jfa.local_alloc : !jfa.smem<1 x 256x64xbf16, swizzle 128>
  %s = jfa.slot %ring[%i] : !jfa.smem<1 x 256x64xbf16, swizzle 128>, i32
  // expected-error @+1 {{blocks of 96 rows do not divide the 256 rows of '!jfa.slot<256x64xbf16, swizzle 128>'}}
  %h = jfa.row_block %s[%i] : !jfa.slot<256x64xbf16, swizzle 128> -> !jfa.slot<96x64xbf16, swizzle 128>
}

// -----

jfa.kernel @row_block_blocked(%i: i32) warps(4) {
  %ring = jfa.local_alloc : !jfa.smem<1 x 128x128xbf16, swizzle 128>
  %s = jfa.slot %ring[%i] : !jfa.smem<1 x 128x128xbf16, swizzle 128>, i32
  // expected-error @+1 {{takes rows of a 2-d slot whose rows fit its swizzle (a blocked slot's rows are not contiguous)}}
  %h = jfa.row_block %s[%i] : !jfa.slot<128x128xbf16, swizzle 128> -> !jfa.slot<64x128xbf16, swizzle 128>
}

// -----

jfa.kernel @row_block_other_columns(%i: i32) warps(4) {
  %ring = jfa.local_alloc : !jfa.smem<1 x 256x64xbf16, swizzle 128>
  %s = jfa.slot %ring[%i] : !jfa.smem<1 x 256x64xbf16, swizzle 128>, i32
  // expected-error @+1 {{a row block of '!jfa.slot<256x64xbf16, swizzle 128>' has its columns, element type and swizzle, got '!jfa.slot<128x64xf16, swizzle 128>'}}
  %h = jfa.row_block %s[%i] : !jfa.slot<256x64xbf16, swizzle 128> -> !jfa.slot<128x64xf16, swizzle 128>
}

// -----

jfa.kernel @row_block_out_of_range() warps(4) {
  %ring = jfa.local_alloc : !jfa.smem<1 x 256x64xbf16, swizzle 128>
  %c0 = arith.constant 0 : i32
  %c2 = arith.constant 2 : i32
  %s = jfa.slot %ring[%c0] : !jfa.smem<1 x 256x64xbf16, swizzle 128>, i32
  // expected-error @+1 {{block 2 is out of range: '!jfa.slot<256x64xbf16, swizzle 128>' has 2 blocks of 128 rows}}
  %h = jfa.row_block %s[%c2] : !jfa.slot<256x64xbf16, swizzle 128> -> !jfa.slot<128x64xbf16, swizzle 128>
}

// -----

jfa.kernel @row_block_of_transposed(%i: i32) warps(4) {
  %ring = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %s = jfa.slot %ring[%i] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  %t = jfa.transpose %s : !jfa.slot<64x64xbf16, swizzle 128>
  // expected-error @+1 {{takes rows of a stored slot, not of the transposed view}}
  %h = jfa.row_block %t[%i] : !jfa.slot<64x64xbf16, swizzle 128, transposed> -> !jfa.slot<64x64xbf16, swizzle 128, transposed>
}

// -----

jfa.kernel @commit_mask_beyond_cluster() warps(4) cluster(2, 1, 1) {
  %bars = jfa.alloc_barriers arrive_count(2) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %mask = arith.constant 4 : i16
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  // expected-error @+1 {{multicast mask 4 names a CTA beyond the cluster, which has 2 CTAs (ranks 0 to 1)}}
  jfa.tc_commit %b multicast(%mask)
}

// -----

jfa.kernel @response_too_small() warps(4) {
  %responses = jfa.local_alloc : !jfa.smem<1 x 2xi32>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %r = jfa.slot %responses[%c0] : !jfa.smem<1 x 2xi32>, i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  // expected-error @+1 {{takes the 16-byte response in an unswizzled !jfa.slot<4xi32>, got '!jfa.slot<2xi32>'}}
  jfa.try_cancel %r, %b : !jfa.slot<2xi32>
}

// -----

jfa.kernel @response_of_floats() warps(4) {
  %responses = jfa.local_alloc : !jfa.smem<1 x 4xf32>
  %c0 = arith.constant 0 : i32
  %r = jfa.slot %responses[%c0] : !jfa.smem<1 x 4xf32>, i32
  // expected-error @+1 {{takes the 16-byte response in an unswizzled !jfa.slot<4xi32>, got '!jfa.slot<4xf32>'}}
  %taken, %x, %y, %z = jfa.query_cancel %r : !jfa.slot<4xf32>
}

// -----

// Distributed shared memory (`on cta`, `and cta`) needs a cluster.
jfa.kernel @store_on_cta_without_cluster(%peer: i32) warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x32xf32, swizzle 128>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x32xf32, swizzle 128>, i32
  %t = arith.constant dense<1.0> : tensor<64x32xf32, #jfa.wgmma_acc>
  // expected-error @+1 {{'jfa.local_store' op with `on cta` stores into another CTA's shared memory, which needs a cluster of more than one CTA; set the kernel's cluster(x, y, z)}}
  jfa.local_store %t, %s on cta %peer : tensor<64x32xf32, #jfa.wgmma_acc> -> !jfa.slot<64x32xf32, swizzle 128>
}

// -----

jfa.kernel @load_on_cta_in_cluster_of_one(%peer: i32) warps(4) cluster(1, 1, 1) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x32xf32, swizzle 128>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x32xf32, swizzle 128>, i32
  // expected-error @+1 {{'jfa.local_load' op with `on cta` loads from another CTA's shared memory, which needs a cluster of more than one CTA}}
  %t = jfa.local_load %s on cta %peer : !jfa.slot<64x32xf32, swizzle 128> -> tensor<64x32xf32, #jfa.wgmma_acc>
}

// -----

jfa.kernel @load_beyond_cluster() warps(4) cluster(2, 1, 1) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x32xf32, swizzle 128>
  %c0 = arith.constant 0 : i32
  %c2 = arith.constant 2 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x32xf32, swizzle 128>, i32
  // expected-error @+1 {{'jfa.local_load' op loads from CTA 2 of a cluster of 2 CTAs; ranks run from 0 to the cluster's size - 1}}
  %t = jfa.local_load %s on cta %c2 : !jfa.slot<64x32xf32, swizzle 128> -> tensor<64x32xf32, #jfa.wgmma_acc>
}

// -----

jfa.kernel @store_negative_rank() warps(4) cluster(2, 1, 1) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x32xf32, swizzle 128>
  %c0 = arith.constant 0 : i32
  %cm1 = arith.constant -1 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x32xf32, swizzle 128>, i32
  %t = arith.constant dense<1.0> : tensor<64x32xf32, #jfa.wgmma_acc>
  // expected-error @+1 {{'jfa.local_store' op stores into CTA -1 of a cluster of 2 CTAs}}
  jfa.local_store %t, %s on cta %cm1 : tensor<64x32xf32, #jfa.wgmma_acc> -> !jfa.slot<64x32xf32, swizzle 128>
}

// -----

// Only the tensor cores read transposed views, here or in a peer.
jfa.kernel @load_transposed_on_cta(%peer: i32) warps(4) cluster(2, 1, 1) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  %v = jfa.transpose %s : !jfa.slot<64x64xbf16, swizzle 128>
  // expected-error @+1 {{'jfa.local_load' op cannot use the transposed view '!jfa.slot<64x64xbf16, swizzle 128, transposed>'; only the tensor cores read transposed slots}}
  %t = jfa.local_load %v on cta %peer : !jfa.slot<64x64xbf16, swizzle 128, transposed> -> tensor<64x64xbf16, #jfa.wgmma_acc>
}

// -----

jfa.kernel @store_fragment_without_cluster(%peer: i32) warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x32xf32, swizzle 128>
  %c0 = arith.constant 0 : i32
  %t = jfa.thread_id
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x32xf32, swizzle 128>, i32
  %v = arith.constant dense<1.0> : vector<16xf32>
  // expected-error @+1 {{'jfa.store_fragment' op with `on cta` stores into another CTA's shared memory, which needs a cluster of more than one CTA}}
  jfa.store_fragment %v, %s, %t threads(128) layout(#jfa.wgmma_acc) on cta %peer : vector<16xf32> -> !jfa.slot<64x32xf32, swizzle 128>
}

// -----

jfa.kernel @load_fragment_beyond_cluster() warps(4) cluster(2, 1, 1) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x32xf32, swizzle 128>
  %c0 = arith.constant 0 : i32
  %c3 = arith.constant 3 : i32
  %t = jfa.thread_id
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x32xf32, swizzle 128>, i32
  // expected-error @+1 {{'jfa.load_fragment' op loads from CTA 3 of a cluster of 2 CTAs}}
  %v = jfa.load_fragment %s, %t threads(128) layout(#jfa.wgmma_acc) on cta %c3 : !jfa.slot<64x32xf32, swizzle 128> -> vector<16xf32>
}

// -----

jfa.kernel @fetch_for_peer_without_cluster(%counter: !jfa.ptr<i32>, %peer: i32) warps(4) {
  %next = jfa.local_alloc : !jfa.smem<1 x 1xi32>
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %s = jfa.slot %next[%c0] : !jfa.smem<1 x 1xi32>, i32
  %f = jfa.barrier %full[%c0] : !jfa.mbarriers<1>, i32
  // expected-error @+1 {{'jfa.atomic_fetch_add' op with `and cta` writes into another CTA's shared memory, which needs a cluster of more than one CTA; set the kernel's cluster(x, y, z)}}
  jfa.atomic_fetch_add %counter[%c0], %c1 into %s arrive %f and cta %peer : !jfa.ptr<i32>, !jfa.slot<1xi32>
}

// -----

jfa.kernel @fetch_for_peer_beyond_cluster(%counter: !jfa.ptr<i32>) warps(4) cluster(2, 1, 1) {
  %next = jfa.local_alloc : !jfa.smem<1 x 1xi32>
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %s = jfa.slot %next[%c0] : !jfa.smem<1 x 1xi32>, i32
  %f = jfa.barrier %full[%c0] : !jfa.mbarriers<1>, i32
  // expected-error @+1 {{'jfa.atomic_fetch_add' op writes into CTA 2 of a cluster of 2 CTAs; ranks run from 0 to the cluster's size - 1}}
  jfa.atomic_fetch_add %counter[%c0], %c1 into %s arrive %f and cta %c2 : !jfa.ptr<i32>, !jfa.slot<1xi32>
}
