// jfa-targets: sm_100a
// The sm_100a GEMM with CTA-pair products (tcgen05.mma.cta_group::2):
//   C[M, N] = A[M, K] * B[N, K]^T     bf16 in, f32 accumulate, bf16 out.
//
// A cluster of two CTAs computes a 256x256 tile of C as one 256x256 product
// per k step, issued by the even CTA. Each CTA loads only its halves of the
// operands: its 128 rows of A's tile and its 128 rows of B's 256 (CTA rank r
// holds B's rows [128 r, 128 r + 128) of the tile), so a stage is 32 KiB a
// CTA instead of gemm_multicast_sm100's 48 KiB, and the ring has 6 stages.
// The tensor cores read the peer's halves through the same slots.
//
// The protocol:
//  - both CTAs' producers load into their own slots; the boxes complete on
//    the even CTA's `full` barrier (`on cta %even`), which its producer
//    arms for both CTAs' 64 KiB;
//  - the even CTA's MMA warp waits on its `full`, issues the pair product
//    and commits the stage back to both producers' `empty` barriers
//    (multicast), then the accumulator to both epilogues;
//  - each CTA's epilogue drains its own 128 rows from its tensor memory;
//  - each producer waits for the last commits into its barriers before
//    its CTA exits (they are asynchronous arrivals from the peer).
//
// Launch with 2 * ceil(M/256) * ceil(N/256) CTAs of 192 threads (x), in
// clusters of (2, 1, 1).
jfa.import "../lib/gemm_schedule.mlir"
jfa.import "../lib/gemm_sm100_tasks.mlir"

jfa.kernel @gemm_pair_sm100(%a: !jfa.tma<128x64xbf16, swizzle 128>,
                            %b: !jfa.tma<128x64xbf16, swizzle 128>,
                            %c: !jfa.tma<128x64xbf16, swizzle 128>,
                            %m: i32, %n: i32, %k: i32)
    warps(6) cluster(2, 1, 1) {
  %a_ring = jfa.local_alloc : !jfa.smem<6 x 128x64xbf16, swizzle 128>
  %b_ring = jfa.local_alloc : !jfa.smem<6 x 128x64xbf16, swizzle 128>
  %c_stage = jfa.local_alloc : !jfa.smem<2 x 128x64xbf16, swizzle 128>
  // full: the even CTA's, armed for both CTAs' boxes; empty: each CTA's,
  // the pair product's commit.
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<6>
  %empty = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<6>
  %acc_ready = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  // Each CTA's 128 rows of the 256x256 accumulator.
  %acc = jfa.tmem_alloc : !jfa.tmem<128x256xf32>

  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %c256 = arith.constant 256 : i32

  %rank = jfa.cluster_rank
  %cluster = jfa.cluster_id x
  // The pair's issuing CTA: the even one.
  %odd = arith.andi %rank, %c1 : i32
  %even_rank = arith.subi %rank, %odd : i32
  %issues = arith.cmpi eq, %odd, %c0 : i32
  // The pair's two CTAs, as a multicast mask.
  %c3 = arith.constant 3 : i16
  %even_rank16 = arith.trunci %even_rank : i32 to i16
  %both = arith.shli %c3, %even_rank16 : i16
  // The cluster's 256x256 tile (kernels/lib/gemm_schedule.mlir); this CTA's
  // 128 rows of it, and the 128 of B's rows it loads.
  %k_tiles, %pair_row0, %col0 = jfa.call @gemm_tile_rows(%cluster, %m, %n, %k, %c64, %c256)
      : (i32, i32, i32, i32, i32, i32) -> (i32, i32, i32)
  %my_rows = arith.muli %odd, %c128 : i32
  %row0 = arith.addi %pair_row0, %my_rows : i32
  %b_row0 = arith.addi %col0, %my_rows : i32

  jfa.async_tasks {
    // Epilogue: warps 0-3 (kernels/lib/gemm_sm100_tasks.mlir).
    jfa.task warps(4) {
      jfa.call @gemm_epilogue(%row0, %col0, %acc, %acc_ready, %c_stage, %c)
          : (i32, i32, !jfa.tmem<128x256xf32>, !jfa.mbarriers<1>,
             !jfa.smem<2 x 128x64xbf16, swizzle 128>, !jfa.tma<128x64xbf16, swizzle 128>) -> ()
    }
    // Producer: warp 4.
    jfa.task warps(1) {
      scf.for %kt = %c0 to %k_tiles step %c1 : i32 {
        %s, %phase = jfa.ring_position %kt stages(6) : i32
        %free_phase = arith.xori %phase, %c1 : i32
        %empty_s = jfa.barrier %empty[%s] : !jfa.mbarriers<6>, i32
        jfa.barrier_wait %empty_s, %free_phase
        %full_s = jfa.barrier %full[%s] : !jfa.mbarriers<6>, i32
        %a_s = jfa.slot %a_ring[%s] : !jfa.smem<6 x 128x64xbf16, swizzle 128>, i32
        %b_s = jfa.slot %b_ring[%s] : !jfa.smem<6 x 128x64xbf16, swizzle 128>, i32
        %kcol = arith.muli %kt, %c64 : i32
        scf.if %issues {
          jfa.barrier_expect %full_s, bytes(65536)
        }
        jfa.tma_load %a[%row0, %kcol], %a_s, %full_s on cta %even_rank : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
        jfa.tma_load %b[%b_row0, %kcol], %b_s, %full_s on cta %even_rank : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
      }
      // The tail: the commits that free this CTA's stages are the even CTA's
      // asynchronous arrivals, which no thread barrier orders; wait for the
      // last ones to land before the CTA may exit (CUTLASS's producer tail).
      %c6 = arith.constant 6 : i32
      %tail_lo = arith.maxui %k_tiles, %c6 : i32
      %tail_hi = arith.addi %k_tiles, %c6 : i32
      scf.for %kt = %tail_lo to %tail_hi step %c1 : i32 {
        %s, %phase = jfa.ring_position %kt stages(6) : i32
        %free_phase = arith.xori %phase, %c1 : i32
        %empty_s = jfa.barrier %empty[%s] : !jfa.mbarriers<6>, i32
        jfa.barrier_wait %empty_s, %free_phase
      }
    }
    // MMA: warp 5 of the even CTA; one thread issues the pair's products.
    jfa.task default {
      scf.if %issues {
        scf.for %kt = %c0 to %k_tiles step %c1 : i32 {
          %s, %phase = jfa.ring_position %kt stages(6) : i32
          %full_s = jfa.barrier %full[%s] : !jfa.mbarriers<6>, i32
          jfa.barrier_wait %full_s, %phase
          %a_s = jfa.slot %a_ring[%s] : !jfa.smem<6 x 128x64xbf16, swizzle 128>, i32
          %b_s = jfa.slot %b_ring[%s] : !jfa.smem<6 x 128x64xbf16, swizzle 128>, i32
          %accumulate = arith.cmpi ugt, %kt, %c0 : i32
          jfa.tc_dot %a_s, %b_s, %acc, %accumulate pair : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, !jfa.tmem<128x256xf32>
          // Both CTAs' slots of the stage are free once the product is done.
          %empty_s = jfa.barrier %empty[%s] : !jfa.mbarriers<6>, i32
          jfa.tc_commit %empty_s multicast(%both)
        }
        %ready = jfa.barrier %acc_ready[%c0] : !jfa.mbarriers<1>, i32
        jfa.tc_commit %ready multicast(%both)
      }
    }
  }
}
