// jfa-targets: sm_100a
// Warp-specialized, TMA-pipelined GEMM for sm_100a (tcgen05 + tensor memory):
//   C[M, N] = A[M, K] * B[N, K]^T     bf16 in, f32 accumulate, bf16 out.
//
// One CTA computes a 128x256 tile of C in 256 tensor-memory columns. Warp 4
// (producer) streams 128x64 tiles of A and 256x64 tiles of B (128-byte
// swizzle) into a 4-stage ring; warp 5 (MMA) issues the tcgen05.mma chain
// and commits each stage back to the producer once the MMAs reading it have
// finished, then commits the finished accumulator to the epilogue. The
// epilogue warpgroup (warps 0-3) reads the accumulator 64 columns at a time
// (tcgen05.ld 32x32b, one row per thread), converts to bf16, stages through
// a 2-slot swizzled buffer and stores with TMA, which clips the edges.
//
// Launch with ceil(M/128) * ceil(N/256) CTAs of 192 threads. Tiles are
// walked in groups of 8 tile rows, as in gemm_sm90.
jfa.import "../lib/gemm_schedule.mlir"
jfa.import "../lib/gemm_sm100_tasks.mlir"

jfa.kernel @gemm_sm100(%a: !jfa.tma<128x64xbf16, swizzle 128>,
                       %b: !jfa.tma<256x64xbf16, swizzle 128>,
                       %c: !jfa.tma<128x64xbf16, swizzle 128>,
                       %m: i32, %n: i32, %k: i32) warps(6) {
  %a_ring = jfa.local_alloc : !jfa.smem<4 x 128x64xbf16, swizzle 128>
  %b_ring = jfa.local_alloc : !jfa.smem<4 x 256x64xbf16, swizzle 128>
  %c_stage = jfa.local_alloc : !jfa.smem<2 x 128x64xbf16, swizzle 128>
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<4>
  %empty = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<4>
  %acc_ready = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %acc = jfa.tmem_alloc : !jfa.tmem<128x256xf32>

  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c4 = arith.constant 4 : i32
  %c64 = arith.constant 64 : i32

  %pid = jfa.program_id x
  // The tile schedule (kernels/lib/gemm_schedule.mlir), grouped by 8 tile rows.
  %k_tiles, %row0, %col0 = jfa.call @gemm_tile(%pid, %m, %n, %k, %c64)
      : (i32, i32, i32, i32, i32) -> (i32, i32, i32)

  jfa.async_tasks {
    // Epilogue: warps 0-3, one accumulator row per thread
    // (kernels/lib/gemm_sm100_tasks.mlir).
    jfa.task warps(4) {
      jfa.call @gemm_epilogue(%row0, %col0, %acc, %acc_ready, %c_stage, %c)
          : (i32, i32, !jfa.tmem<128x256xf32>, !jfa.mbarriers<1>,
             !jfa.smem<2 x 128x64xbf16, swizzle 128>, !jfa.tma<128x64xbf16, swizzle 128>) -> ()
    }
    // Producer: warp 4.
    jfa.task warps(1) {
      scf.for %kt = %c0 to %k_tiles step %c1 : i32 {
        %s = arith.remui %kt, %c4 : i32
        %round = arith.divui %kt, %c4 : i32
        %phase = arith.remui %round, %c2 : i32
        %free_phase = arith.xori %phase, %c1 : i32
        %empty_s = jfa.barrier %empty[%s] : !jfa.mbarriers<4>, i32
        jfa.barrier_wait %empty_s, %free_phase
        %full_s = jfa.barrier %full[%s] : !jfa.mbarriers<4>, i32
        %a_s = jfa.slot %a_ring[%s] : !jfa.smem<4 x 128x64xbf16, swizzle 128>, i32
        %b_s = jfa.slot %b_ring[%s] : !jfa.smem<4 x 256x64xbf16, swizzle 128>, i32
        %kcol = arith.muli %kt, %c64 : i32
        jfa.barrier_expect %full_s, bytes(49152)
        jfa.tma_load %a[%row0, %kcol], %a_s, %full_s : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
        jfa.tma_load %b[%col0, %kcol], %b_s, %full_s : !jfa.tma<256x64xbf16, swizzle 128>, !jfa.slot<256x64xbf16, swizzle 128>
      }
    }
    // MMA: warp 5; one thread issues.
    jfa.task default {
      %self = arith.constant 1 : i16
      jfa.call @gemm_mma(%k_tiles, %a_ring, %b_ring, %acc, %full, %empty, %acc_ready, %self)
          : (i32, !jfa.smem<4 x 128x64xbf16, swizzle 128>, !jfa.smem<4 x 256x64xbf16, swizzle 128>,
             !jfa.tmem<128x256xf32>, !jfa.mbarriers<4>, !jfa.mbarriers<4>, !jfa.mbarriers<1>, i16) -> ()
    }
  }
}
