// jfa-targets: sm_100a
// FP8 GEMM with a per-tensor scale for sm_100a (tcgen05.mma kind::f8f6f4):
//   C[M, N] = scale * A[M, K] * B[N, K]^T
//   A, B f8E4M3FN, f32 accumulate in tensor memory, C bf16; scale =
//   scale_a * scale_b, one f32 multiplied into the accumulator before the
//   conversion to bf16 (torch._scaled_mm's per-tensor scaling).
//
// gemm_sm100's schedule (a 128x256 accumulator in 256 tensor-memory
// columns, a producer warp streaming a 4-stage TMA ring, an MMA warp, an
// epilogue warpgroup reading 64 columns at a time) with k tiles of 128 fp8
// columns: 128 bytes, the same 128-byte swizzled rows as gemm_sm100's 64
// bf16 columns, so a stage is again 48 KiB and a k tile is four
// tcgen05.mma (K = 32 each). A file of its own, not a jfa.param of
// gemm_sm100: the element types are in the kernel's signature.
//
// Launch with ceil(M/128) * ceil(N/256) CTAs of 192 threads. K must be a
// multiple of 16 (TMA: 16-byte rows).
jfa.import "../lib/gemm_schedule.mlir"

jfa.kernel @gemm_fp8_sm100(%a: !jfa.tma<128x128xf8E4M3FN, swizzle 128>,
                           %b: !jfa.tma<256x128xf8E4M3FN, swizzle 128>,
                           %c: !jfa.tma<128x64xbf16, swizzle 128>,
                           %m: i32, %n: i32, %k: i32, %scale: f32) warps(6) {
  %a_ring = jfa.local_alloc : !jfa.smem<4 x 128x128xf8E4M3FN, swizzle 128>
  %b_ring = jfa.local_alloc : !jfa.smem<4 x 256x128xf8E4M3FN, swizzle 128>
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
  %c128 = arith.constant 128 : i32

  %pid = jfa.program_id x
  %k_tiles, %row0, %col0 = jfa.call @gemm_tile(%pid, %m, %n, %k, %c128)
      : (i32, i32, i32, i32, i32) -> (i32, i32, i32)

  jfa.async_tasks {
    // Epilogue: warps 0-3, one accumulator row per thread.
    jfa.task warps(4) {
      %ready = jfa.barrier %acc_ready[%c0] : !jfa.mbarriers<1>, i32
      jfa.barrier_wait %ready, %c0
      %scale_t = tensor.splat %scale : tensor<128x64xf32, #jfa.tmem_row>
      scf.for %chunk = %c0 to %c4 step %c1 : i32 {
        %col = arith.muli %chunk, %c64 : i32
        %part = jfa.tmem_load %acc[%col] : !jfa.tmem<128x256xf32> -> tensor<128x64xf32, #jfa.tmem_row>
        %scaled = arith.mulf %part, %scale_t : tensor<128x64xf32, #jfa.tmem_row>
        %out = arith.truncf %scaled : tensor<128x64xf32, #jfa.tmem_row> to tensor<128x64xbf16, #jfa.tmem_row>
        // The staging slot used two chunks ago must have been read out.
        jfa.tma_store_wait pending(1)
        jfa.task_barrier
        %o = arith.remui %chunk, %c2 : i32
        %slot = jfa.slot %c_stage[%o] : !jfa.smem<2 x 128x64xbf16, swizzle 128>, i32
        jfa.local_store %out, %slot : tensor<128x64xbf16, #jfa.tmem_row> -> !jfa.slot<128x64xbf16, swizzle 128>
        jfa.fence_async_shared
        jfa.task_barrier
        %gcol = arith.addi %col0, %col : i32
        jfa.tma_store %slot, %c[%row0, %gcol] : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.tma<128x64xbf16, swizzle 128>
      }
    }
    // Producer: warp 4.
    jfa.task warps(1) {
      scf.for %kt = %c0 to %k_tiles step %c1 : i32 {
        %s, %phase = jfa.ring_position %kt stages(4) : i32
        %free_phase = arith.xori %phase, %c1 : i32
        %empty_s = jfa.barrier %empty[%s] : !jfa.mbarriers<4>, i32
        jfa.barrier_wait %empty_s, %free_phase
        %full_s = jfa.barrier %full[%s] : !jfa.mbarriers<4>, i32
        %a_s = jfa.slot %a_ring[%s] : !jfa.smem<4 x 128x128xf8E4M3FN, swizzle 128>, i32
        %b_s = jfa.slot %b_ring[%s] : !jfa.smem<4 x 256x128xf8E4M3FN, swizzle 128>, i32
        %kcol = arith.muli %kt, %c128 : i32
        jfa.barrier_expect %full_s, bytes(49152)
        jfa.tma_load %a[%row0, %kcol], %a_s, %full_s : !jfa.tma<128x128xf8E4M3FN, swizzle 128>, !jfa.slot<128x128xf8E4M3FN, swizzle 128>
        jfa.tma_load %b[%col0, %kcol], %b_s, %full_s : !jfa.tma<256x128xf8E4M3FN, swizzle 128>, !jfa.slot<256x128xf8E4M3FN, swizzle 128>
      }
    }
    // MMA: warp 5; one thread issues.
    jfa.task default {
      scf.for %kt = %c0 to %k_tiles step %c1 : i32 {
        %s, %phase = jfa.ring_position %kt stages(4) : i32
        %full_s = jfa.barrier %full[%s] : !jfa.mbarriers<4>, i32
        jfa.barrier_wait %full_s, %phase
        %a_s = jfa.slot %a_ring[%s] : !jfa.smem<4 x 128x128xf8E4M3FN, swizzle 128>, i32
        %b_s = jfa.slot %b_ring[%s] : !jfa.smem<4 x 256x128xf8E4M3FN, swizzle 128>, i32
        %accumulate = arith.cmpi ugt, %kt, %c0 : i32
        jfa.tc_dot %a_s, %b_s, %acc, %accumulate : !jfa.slot<128x128xf8E4M3FN, swizzle 128>, !jfa.slot<256x128xf8E4M3FN, swizzle 128>, !jfa.tmem<128x256xf32>
        %empty_s = jfa.barrier %empty[%s] : !jfa.mbarriers<4>, i32
        jfa.tc_commit %empty_s
      }
      %ready = jfa.barrier %acc_ready[%c0] : !jfa.mbarriers<1>, i32
      jfa.tc_commit %ready
    }
  }
}
