// jfa-targets: sm_90a
// The sm_90a GEMM persistent and in clusters of two CTAs that share B
// (gemm_persistent_sm90.mlir's loop over tiles, gemm_multicast_sm90.mlir's
// cluster):
//   C[M, N] = A[M, K] * B[N, K]^T     bf16 in, f32 accumulate, bf16 out.
//
// A cluster computes 256x256 tiles of C, CTA rank r the rows
// [128 r, 128 r + 128) of each: cluster q takes the tiles q, q + Q,
// q + 2Q, ... (Q clusters) in the grouped order of
// kernels/lib/gemm_schedule.mlir. Each CTA's producer loads its own 128x64
// tile of A and one half of B's 256x64 tile multicast to both CTAs, so B
// crosses L2 once per cluster (cuBLAS runs such clusters where our
// one-CTA kernels read 24% more through L2: bench/NOTES.md run 75). Both
// CTAs walk the same tiles and k steps, so a ring step is the same stage in
// both; a stage goes back to the producers once the consumers of both CTAs
// have read it. The ring (4 stages) runs on across tiles and C is staged
// in two 128x128 halves, as in gemm_persistent_sm90.
//
// Launch with 2 * min(#SMs / 2, ceil(M/256) * ceil(N/256)) CTAs of 384
// threads (x), in clusters of (2, 1, 1); more clusters than tiles is
// allowed (the extra ones take none). Any M, N, K as gemm_sm90 (K a
// multiple of 8).
jfa.import "../lib/gemm_schedule.mlir"
jfa.import "../lib/gemm_sm90_consumer.mlir"

jfa.kernel @gemm_persistent_multicast_sm90(%a: !jfa.tma<128x64xbf16, swizzle 128>,
                                           %b: !jfa.tma<128x64xbf16, swizzle 128>,
                                           %c: !jfa.tma<128x64xbf16, swizzle 128>,
                                           %m: i32, %n: i32, %k: i32)
    warps(12) cluster(2, 1, 1) {
  %a_ring = jfa.local_alloc : !jfa.smem<4 x 128x64xbf16, swizzle 128>
  %b_ring = jfa.local_alloc : !jfa.smem<4 x 256x64xbf16, swizzle 128>
  %c_tile = jfa.local_alloc : !jfa.smem<1 x 128x128xbf16, swizzle 128>
  // full: the producer's expect + 48 KiB of TMA (A, B's half from each CTA);
  // empty: the 256 consumer threads of each of the two CTAs.
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<4>
  %empty = jfa.alloc_barriers arrive_count(512) : !jfa.mbarriers<4>

  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c256 = arith.constant 256 : i32

  // The cluster's tiles (kernels/lib/gemm_schedule.mlir); %my_rows: this
  // CTA's rows of a tile, and the half of B's tile it loads for both.
  %rank, %peer, %cluster, %clusters, %tiles, %my_rows = jfa.call @gemm_cluster_walk(%m, %n)
      : (i32, i32) -> (i32, i32, i32, i32, i32, i32)

  jfa.async_tasks {
    // Consumers: warps 0-7, two warpgroups (kernels/lib/gemm_sm90_consumer.mlir);
    // each stage goes back to both CTAs' producers, since both write it.
    jfa.task warps(8) registers(232) {
      %yes = arith.constant true
      scf.for %tile = %cluster to %tiles step %clusters iter_args(%step0 = %c0) -> (i32) : i32 {
        %k_tiles, %pair_row0, %col0 = jfa.call @gemm_tile_rows(%tile, %m, %n, %k, %c64, %c256)
            : (i32, i32, i32, i32, i32, i32) -> (i32, i32, i32)
        %row0 = arith.addi %pair_row0, %my_rows : i32
        %acc = jfa.call @gemm_mainloop(%k_tiles, %step0, %a_ring, %b_ring, %full, %empty, %yes, %peer, %yes)
            : (i32, i32, !jfa.smem<4 x 128x64xbf16, swizzle 128>, !jfa.smem<4 x 256x64xbf16, swizzle 128>,
               !jfa.mbarriers<4>, !jfa.mbarriers<4>, i1, i32, i1) -> tensor<128x256xf32, #jfa.wgmma_acc>
        // The previous tile's store may still be reading the staging tile.
        %reused = arith.cmpi ne, %tile, %cluster : i32
        %out = arith.truncf %acc : tensor<128x256xf32, #jfa.wgmma_acc> to tensor<128x256xbf16, #jfa.wgmma_acc>
        jfa.call @gemm_store_halves(%out, %row0, %col0, %c_tile, %c, %reused)
            : (tensor<128x256xbf16, #jfa.wgmma_acc>, i32, i32, !jfa.smem<1 x 128x128xbf16, swizzle 128>,
               !jfa.tma<128x64xbf16, swizzle 128>, i1) -> ()
        %next = arith.addi %step0, %k_tiles : i32
        scf.yield %next : i32
      }
    }
    // Producer: warps 8-11; one thread issues the copies, tile after tile
    // through the one ring (kernels/lib/gemm_schedule.mlir).
    jfa.task default registers(40) {
      jfa.call @gemm_produce_shared_b(%cluster, %clusters, %tiles, %m, %n, %k, %c64, %rank, %my_rows,
                                      %a, %b, %a_ring, %b_ring, %full, %empty)
          : (i32, i32, i32, i32, i32, i32, i32, i32, i32, !jfa.tma<128x64xbf16, swizzle 128>,
             !jfa.tma<128x64xbf16, swizzle 128>, !jfa.smem<4 x 128x64xbf16, swizzle 128>, !jfa.smem<4 x 256x64xbf16, swizzle 128>,
             !jfa.mbarriers<4>, !jfa.mbarriers<4>) -> ()
    }
  }
}
