// jfa-targets: sm_100a
// The sm_100a GEMM of gemm_sm100.mlir in clusters of two CTAs that share B:
//   C[M, N] = A[M, K] * B[N, K]^T     bf16 in, f32 accumulate, bf16 out.
//
// As gemm_multicast_sm90.mlir: a cluster computes a 256x256 tile of C, CTA
// rank r its rows [128 r, 128 r + 128); each CTA's producer loads its own
// 128x64 tile of A and its half of B's 256x64 tile (a jfa.row_block)
// multicast to both CTAs. The MMA warp's commit hands each stage back to
// the producers of both CTAs (tcgen05.commit multicast), since both write
// into it: each empty barrier waits for two commits.
//
// Launch with 2 * ceil(M/256) * ceil(N/256) CTAs of 192 threads (x), in
// clusters of (2, 1, 1).
jfa.import "../lib/gemm_schedule.mlir"
jfa.import "../lib/gemm_sm100_tasks.mlir"

jfa.kernel @gemm_multicast_sm100(%a: !jfa.tma<128x64xbf16, swizzle 128>,
                                 %b: !jfa.tma<128x64xbf16, swizzle 128>,
                                 %c: !jfa.tma<128x64xbf16, swizzle 128>,
                                 %m: i32, %n: i32, %k: i32)
    warps(6) cluster(2, 1, 1) {
  %a_ring = jfa.local_alloc : !jfa.smem<4 x 128x64xbf16, swizzle 128>
  %b_ring = jfa.local_alloc : !jfa.smem<4 x 256x64xbf16, swizzle 128>
  %c_stage = jfa.local_alloc : !jfa.smem<2 x 128x64xbf16, swizzle 128>
  // full: the producer's expect + 48 KiB (A, B's half from each CTA);
  // empty: the MMA commits of both CTAs.
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<4>
  %empty = jfa.alloc_barriers arrive_count(2) : !jfa.mbarriers<4>
  %acc_ready = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %acc = jfa.tmem_alloc : !jfa.tmem<128x256xf32>

  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %c256 = arith.constant 256 : i32
  %both = arith.constant 3 : i16

  %rank = jfa.cluster_rank
  %cluster = jfa.cluster_id x
  // The cluster's 256x256 tile (kernels/lib/gemm_schedule.mlir); this CTA's
  // 128 rows of it, and the half of B's tile it loads for both.
  %k_tiles, %pair_row0, %col0 = jfa.call @gemm_tile_rows(%cluster, %m, %n, %k, %c64, %c256)
      : (i32, i32, i32, i32, i32, i32) -> (i32, i32, i32)
  %my_rows = arith.muli %rank, %c128 : i32
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
        jfa.call @gemm_load_shared_b(%kt, %kt, %c64, %rank, %row0, %b_row0, %a, %b, %a_ring, %b_ring, %full, %empty)
            : (i32, i32, i32, i32, i32, i32, !jfa.tma<128x64xbf16, swizzle 128>, !jfa.tma<128x64xbf16, swizzle 128>,
               !jfa.smem<4 x 128x64xbf16, swizzle 128>, !jfa.smem<4 x 256x64xbf16, swizzle 128>,
               !jfa.mbarriers<4>, !jfa.mbarriers<4>) -> ()
      }
      // The tail: the commits that free this CTA's stages include the
      // peer's asynchronous arrivals, which no thread barrier orders; wait
      // for the last ones before the CTA may exit.
      %c4 = arith.constant 4 : i32
      %tail_lo = arith.maxui %k_tiles, %c4 : i32
      %tail_hi = arith.addi %k_tiles, %c4 : i32
      scf.for %kt = %tail_lo to %tail_hi step %c1 : i32 {
        %s, %phase = jfa.ring_position %kt stages(4) : i32
        %free_phase = arith.xori %phase, %c1 : i32
        %empty_s = jfa.barrier %empty[%s] : !jfa.mbarriers<4>, i32
        jfa.barrier_wait %empty_s, %free_phase
      }
    }
    // MMA: warp 5; one thread issues, committing to both CTAs.
    jfa.task default {
      jfa.call @gemm_mma(%k_tiles, %a_ring, %b_ring, %acc, %full, %empty, %acc_ready, %both)
          : (i32, !jfa.smem<4 x 128x64xbf16, swizzle 128>, !jfa.smem<4 x 256x64xbf16, swizzle 128>,
             !jfa.tmem<128x256xf32>, !jfa.mbarriers<4>, !jfa.mbarriers<4>, !jfa.mbarriers<1>, i16) -> ()
    }
  }
}
