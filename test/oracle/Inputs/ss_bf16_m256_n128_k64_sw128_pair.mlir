// jfa-targets: sm_100a
// tcgen05 oracle (docs/TCGEN05_ORACLE.md): one CTA-pair product
// (tcgen05.mma.cta_group::2, kernels/gemm/gemm_pair_sm100.mlir's shape for
// N = 256), M = 256 over the pair: each CTA's A 128x64 and B 64x64 bf16,
// both K-major in 128-byte swizzled slots, N = 128.
jfa.kernel @oracle(%flag: i32) warps(4) cluster(2, 1, 1) {
  %a_buf = jfa.local_alloc : !jfa.smem<1 x 128x64xbf16, swizzle 128>
  %b_buf = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %acc = jfa.tmem_alloc : !jfa.tmem<128x128xf32>
  %c0 = arith.constant 0 : i32
  %both = arith.constant 3 : i16
  %bar = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  %a = jfa.slot %a_buf[%c0] : !jfa.smem<1 x 128x64xbf16, swizzle 128>, i32
  %b = jfa.slot %b_buf[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  %accumulate = arith.cmpi ne, %flag, %c0 : i32
  %rank = jfa.cluster_rank
  %even = arith.cmpi eq, %rank, %c0 : i32
  scf.if %even {
    jfa.tc_dot %a, %b, %acc, %accumulate pair : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128>, !jfa.tmem<128x128xf32>
    jfa.tc_commit %bar multicast(%both)
  }
  jfa.barrier_wait %bar, %c0
}
