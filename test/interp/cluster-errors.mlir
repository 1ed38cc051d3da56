// The cluster ops' runtime errors, at the op: a row block, a multicast
// mask or a remote arrival's CTA that the cluster does not have. (The
// verifier rejects constant ones; these come from the arguments.) The
// first run is the valid one: each CTA multicasts its row block to both.
// RUN: %python %S/Inputs/make_npy.py %t.a.npy f4 128x32
// RUN: jfa-interp %s --arch sm_90a --kernel errors --grid 2 %t.a.npy i32:0 i32:3 i32:0
// RUN: not jfa-interp %s --arch sm_90a --kernel errors --grid 2 %t.a.npy i32:1 i32:3 i32:0 2>&1 | FileCheck %s --check-prefix=BLOCK
// BLOCK: cluster-errors.mlir:[[# @LINE + 24]]:11: error: row block index 2 is out of bounds for 2 row blocks
// RUN: not jfa-interp %s --arch sm_90a --kernel errors --grid 2 %t.a.npy i32:0 i32:0 i32:0 2>&1 | FileCheck %s --check-prefix=MASK0
// MASK0: cluster-errors.mlir:[[# @LINE + 26]]:3: error: jfa.tma_load's multicast mask is 0: it names no CTA, so it would land nowhere
// RUN: not jfa-interp %s --arch sm_90a --kernel errors --grid 2 %t.a.npy i32:0 i32:5 i32:0 2>&1 | FileCheck %s --check-prefix=MASK
// MASK: cluster-errors.mlir:[[# @LINE + 24]]:3: error: jfa.tma_load's multicast mask 5 names CTA rank 2, outside the cluster of 2 CTAs (ranks 0 to 1)
// RUN: not jfa-interp %s --arch sm_90a --kernel errors --grid 2 %t.a.npy i32:0 i32:3 i32:1 2>&1 | FileCheck %s --check-prefix=RANK
// RANK: cluster-errors.mlir:[[# @LINE + 26]]:3: error: arrives on CTA rank 2, outside the cluster of 2 CTAs (ranks 0 to 1)
//
// Without cluster(...) a kernel is a cluster of one CTA.
// RUN: not jfa-interp %s --arch sm_100a --kernel single %t.a.npy i32:1 2>&1 | FileCheck %s --check-prefix=SINGLE
// SINGLE: cluster-errors.mlir:[[# @LINE + 29]]:3: error: arrives on CTA rank 1, outside the cluster of 1 CTA (ranks 0 to 0)

jfa.kernel @errors(%a: !jfa.tma<64x32xf32>, %block: i32, %mask: i32,
                   %peer: i32) warps(4) cluster(2, 1, 1) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 128x32xf32>
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %empty = jfa.alloc_barriers arrive_count(128) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %rank = jfa.cluster_rank
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 128x32xf32>, i32
  %f = jfa.barrier %full[%c0] : !jfa.mbarriers<1>, i32
  %e = jfa.barrier %empty[%c0] : !jfa.mbarriers<1>, i32
  %index = arith.addi %rank, %block : i32
  %half = jfa.row_block %s[%index] : !jfa.slot<128x32xf32> -> !jfa.slot<64x32xf32>
  %bits = arith.trunci %mask : i32 to i16
  %row = arith.muli %rank, %c64 : i32
  jfa.barrier_expect %f, bytes(16384)
  jfa.tma_load %a[%row, %c0], %half, %f multicast(%bits) : !jfa.tma<64x32xf32>, !jfa.slot<64x32xf32>
  jfa.barrier_wait %f, %c0
  %t = jfa.local_load %s : !jfa.slot<128x32xf32> -> tensor<128x32xf32>
  %target = arith.addi %rank, %peer : i32
  jfa.barrier_arrive %e on cta %target
}

jfa.kernel @single(%a: !jfa.tma<64x32xf32>, %peer: i32) warps(4) {
  %bars = jfa.alloc_barriers arrive_count(128) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  jfa.barrier_arrive %b on cta %peer
}
