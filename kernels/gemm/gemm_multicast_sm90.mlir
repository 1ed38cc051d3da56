// jfa-targets: sm_90a
// The sm_90a GEMM of gemm_sm90.mlir in clusters of two CTAs that share B:
//   C[M, N] = A[M, K] * B[N, K]^T     bf16 in, f32 accumulate, bf16 out.
//
// A cluster computes a 256x256 tile of C: CTA rank r its rows
// [128 r, 128 r + 128), with the same 256 columns, so both read the same
// 256x64 tiles of B. Each CTA's producer loads its own 128x64 tile of A and
// one half of B's tile (its jfa.row_block, 128 rows) multicast to both CTAs:
// every B byte crosses L2 once per cluster instead of twice, and each CTA's
// stage still fills with A + all of B (48 KiB). Because a multicast writes
// into the peer's slot too, a stage goes back to the producers only when
// the consumers of both CTAs have read it: the consumers arrive on their
// own CTA's empty barrier and on the peer's.
//
// Launch with 2 * ceil(M/256) * ceil(N/256) CTAs of 384 threads (x), in
// clusters of (2, 1, 1). Any M, N, K as gemm_sm90 (K a multiple of 8).
jfa.import "../lib/gemm_schedule.mlir"
jfa.import "../lib/gemm_sm90_consumer.mlir"

jfa.kernel @gemm_multicast_sm90(%a: !jfa.tma<128x64xbf16, swizzle 128>,
                                %b: !jfa.tma<128x64xbf16, swizzle 128>,
                                %c: !jfa.tma<128x64xbf16, swizzle 128>,
                                %m: i32, %n: i32, %k: i32)
    warps(12) cluster(2, 1, 1) {
  %a_ring = jfa.local_alloc : !jfa.smem<3 x 128x64xbf16, swizzle 128>
  %b_ring = jfa.local_alloc : !jfa.smem<3 x 256x64xbf16, swizzle 128>
  %c_tile = jfa.local_alloc : !jfa.smem<1 x 128x256xbf16, swizzle 128>
  // full: the producer's expect + 48 KiB of TMA (A, B's half from each CTA);
  // empty: the 256 consumer threads of each of the two CTAs.
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<3>
  %empty = jfa.alloc_barriers arrive_count(512) : !jfa.mbarriers<3>

  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %c256 = arith.constant 256 : i32

  %rank = jfa.cluster_rank
  %peer = arith.xori %rank, %c1 : i32
  %cluster = jfa.cluster_id x
  // The cluster's 256x256 tile (kernels/lib/gemm_schedule.mlir), grouped by
  // 8 tile rows; this CTA's 128 rows of it.
  %k_tiles, %pair_row0, %col0 = jfa.call @gemm_tile_rows(%cluster, %m, %n, %k, %c64, %c256)
      : (i32, i32, i32, i32, i32, i32) -> (i32, i32, i32)
  %my_rows = arith.muli %rank, %c128 : i32
  %row0 = arith.addi %pair_row0, %my_rows : i32
  // The half of B's tile this CTA loads for both.
  %b_row0 = arith.addi %col0, %my_rows : i32

  jfa.async_tasks {
    // Consumers: warps 0-7, two warpgroups (kernels/lib/gemm_sm90_consumer.mlir);
    // each stage goes back to both CTAs' producers, since both write it.
    jfa.task warps(8) registers(232) {
      %yes = arith.constant true
      jfa.call @gemm_consumer(%k_tiles, %row0, %col0, %a_ring, %b_ring, %c_tile, %full, %empty, %c, %yes, %peer)
          : (i32, i32, i32, !jfa.smem<3 x 128x64xbf16, swizzle 128>, !jfa.smem<3 x 256x64xbf16, swizzle 128>,
             !jfa.smem<1 x 128x256xbf16, swizzle 128>, !jfa.mbarriers<3>, !jfa.mbarriers<3>, !jfa.tma<128x64xbf16, swizzle 128>, i1, i32) -> ()
    }
    // Producer: warps 8-11; one thread issues the copies.
    jfa.task default registers(40) {
      scf.for %kt = %c0 to %k_tiles step %c1 : i32 {
        jfa.call @gemm_load_shared_b(%kt, %kt, %c64, %rank, %row0, %b_row0, %a, %b, %a_ring, %b_ring, %full, %empty)
            : (i32, i32, i32, i32, i32, i32, !jfa.tma<128x64xbf16, swizzle 128>, !jfa.tma<128x64xbf16, swizzle 128>,
               !jfa.smem<3 x 128x64xbf16, swizzle 128>, !jfa.smem<3 x 256x64xbf16, swizzle 128>,
               !jfa.mbarriers<3>, !jfa.mbarriers<3>) -> ()
      }
    }
  }
}
