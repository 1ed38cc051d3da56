// jfa-targets: sm_90a
// Warp-specialized, TMA-pipelined GEMM for sm_90a (wgmma):
//   C[M, N] = A[M, K] * B[N, K]^T     bf16 in, f32 accumulate, bf16 out.
//
// One CTA computes a 128x256 tile of C. The producer warpgroup streams
// 128x64 tiles of A and 256x64 tiles of B (128-byte swizzled, the layout
// wgmma reads) into a 3-stage ring; two consumer warpgroups each run
// m64n256k16 wgmmas on their 64 rows, keeping one k-step in flight, and
// release a stage once the wgmmas reading it have completed. The epilogue
// converts to bf16 in registers, stages the tile in shared memory and
// stores it with TMA, which clips the edges: any M, N, K work (rows of A and
// B must be 16-byte aligned: K a multiple of 8).
//
// Launch with ceil(M/128) * ceil(N/256) CTAs of 384 threads. CTAs walk the
// tiles in groups of 8 tile rows so that concurrent CTAs share A and B in L2.
jfa.import "../lib/gemm_schedule.mlir"
jfa.import "../lib/gemm_sm90_consumer.mlir"

jfa.kernel @gemm_sm90(%a: !jfa.tma<128x64xbf16, swizzle 128>,
                      %b: !jfa.tma<256x64xbf16, swizzle 128>,
                      %c: !jfa.tma<128x64xbf16, swizzle 128>,
                      %m: i32, %n: i32, %k: i32) warps(12) {
  %a_ring = jfa.local_alloc : !jfa.smem<3 x 128x64xbf16, swizzle 128>
  %b_ring = jfa.local_alloc : !jfa.smem<3 x 256x64xbf16, swizzle 128>
  %c_tile = jfa.local_alloc : !jfa.smem<1 x 128x256xbf16, swizzle 128>
  // full: the producer's expect + 48 KiB of TMA; empty: 256 consumer threads.
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<3>
  %empty = jfa.alloc_barriers arrive_count(256) : !jfa.mbarriers<3>

  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c64 = arith.constant 64 : i32

  %pid = jfa.program_id x
  // The tile schedule (kernels/lib/gemm_schedule.mlir), grouped by 8 tile rows.
  %k_tiles, %row0, %col0 = jfa.call @gemm_tile(%pid, %m, %n, %k, %c64)
      : (i32, i32, i32, i32, i32) -> (i32, i32, i32)

  jfa.async_tasks {
    // Consumers: warps 0-7, two warpgroups (kernels/lib/gemm_sm90_consumer.mlir).
    jfa.task warps(8) registers(232) {
      %no = arith.constant false
      jfa.call @gemm_consumer(%k_tiles, %row0, %col0, %a_ring, %b_ring, %c_tile, %full, %empty, %c, %no, %c0)
          : (i32, i32, i32, !jfa.smem<3 x 128x64xbf16, swizzle 128>, !jfa.smem<3 x 256x64xbf16, swizzle 128>,
             !jfa.smem<1 x 128x256xbf16, swizzle 128>, !jfa.mbarriers<3>, !jfa.mbarriers<3>, !jfa.tma<128x64xbf16, swizzle 128>, i1, i32) -> ()
    }
    // Producer: warps 8-11; one thread issues the copies.
    jfa.task default registers(40) {
      scf.for %kt = %c0 to %k_tiles step %c1 : i32 {
        %s = arith.remui %kt, %c3 : i32
        %round = arith.divui %kt, %c3 : i32
        %phase = arith.remui %round, %c2 : i32
        %free_phase = arith.xori %phase, %c1 : i32
        %empty_s = jfa.barrier %empty[%s] : !jfa.mbarriers<3>, i32
        jfa.barrier_wait %empty_s, %free_phase
        %full_s = jfa.barrier %full[%s] : !jfa.mbarriers<3>, i32
        %a_s = jfa.slot %a_ring[%s] : !jfa.smem<3 x 128x64xbf16, swizzle 128>, i32
        %b_s = jfa.slot %b_ring[%s] : !jfa.smem<3 x 256x64xbf16, swizzle 128>, i32
        %kcol = arith.muli %kt, %c64 : i32
        jfa.barrier_expect %full_s, bytes(49152)
        jfa.tma_load %a[%row0, %kcol], %a_s, %full_s : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
        jfa.tma_load %b[%col0, %kcol], %b_s, %full_s : !jfa.tma<256x64xbf16, swizzle 128>, !jfa.slot<256x64xbf16, swizzle 128>
      }
    }
  }
}
