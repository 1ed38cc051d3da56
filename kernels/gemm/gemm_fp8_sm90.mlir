// jfa-targets: sm_90a
// FP8 GEMM with a per-tensor scale for sm_90a (wgmma .e4m3):
//   C[M, N] = scale * A[M, K] * B[N, K]^T
//   A, B f8E4M3FN, f32 accumulate, C bf16; scale = scale_a * scale_b, one
//   f32 multiplied into the accumulator before the conversion to bf16
//   (torch._scaled_mm's per-tensor scaling).
//
// gemm_sm90's schedule (a 128x256 tile of C per CTA, a producer warpgroup,
// two consumer warpgroups, a 3-stage TMA ring, the tile order of
// kernels/lib/gemm_schedule.mlir) with k tiles of 128 fp8 columns: 128
// bytes, the same 128-byte swizzled rows as gemm_sm90's 64 bf16 columns, so
// a stage is again 48 KiB and a k tile is four m64n256k32 wgmmas per
// warpgroup. fp8 wgmma reads both operands K-major (sm_90a transposes 16-bit
// operands only; the verifier says so), hence B is given N x K. A file of
// its own, not a jfa.param of gemm_sm90: the element types are in the
// kernel's signature, which a compile-time parameter does not change.
//
// Launch with ceil(M/128) * ceil(N/256) CTAs of 384 threads. K must be a
// multiple of 16 (TMA: rows of A and B 16-byte aligned); any M, N, K work
// (TMA clips the edges and reads zeros past them).
jfa.import "../lib/gemm_schedule.mlir"
jfa.import "../lib/gemm_sm90_consumer.mlir"

jfa.kernel @gemm_fp8_sm90(%a: !jfa.tma<128x128xf8E4M3FN, swizzle 128>,
                          %b: !jfa.tma<256x128xf8E4M3FN, swizzle 128>,
                          %c: !jfa.tma<128x64xbf16, swizzle 128>,
                          %m: i32, %n: i32, %k: i32, %scale: f32) warps(12) {
  %a_ring = jfa.local_alloc : !jfa.smem<3 x 128x128xf8E4M3FN, swizzle 128>
  %b_ring = jfa.local_alloc : !jfa.smem<3 x 256x128xf8E4M3FN, swizzle 128>
  %c_tile = jfa.local_alloc : !jfa.smem<1 x 128x256xbf16, swizzle 128>
  // full: the producer's expect + 48 KiB of TMA; empty: 256 consumer threads.
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<3>
  %empty = jfa.alloc_barriers arrive_count(256) : !jfa.mbarriers<3>

  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c128 = arith.constant 128 : i32

  %pid = jfa.program_id x
  %k_tiles, %row0, %col0 = jfa.call @gemm_tile(%pid, %m, %n, %k, %c128)
      : (i32, i32, i32, i32, i32) -> (i32, i32, i32)

  jfa.async_tasks {
    // Consumers: warps 0-7, two warpgroups of 64 rows each.
    jfa.task warps(8) registers(232) {
      %zero = arith.constant dense<0.0> : tensor<128x256xf32, #jfa.wgmma_acc>
      %acc = scf.for %kt = %c0 to %k_tiles step %c1
          iter_args(%acc_in = %zero) -> (tensor<128x256xf32, #jfa.wgmma_acc>) : i32 {
        %s, %phase = jfa.ring_position %kt stages(3) : i32
        %full_s = jfa.barrier %full[%s] : !jfa.mbarriers<3>, i32
        jfa.barrier_wait %full_s, %phase
        %a_s = jfa.slot %a_ring[%s] : !jfa.smem<3 x 128x128xf8E4M3FN, swizzle 128>, i32
        %b_s = jfa.slot %b_ring[%s] : !jfa.smem<3 x 256x128xf8E4M3FN, swizzle 128>, i32
        %d = jfa.async_dot %a_s, %b_s, %acc_in
            : !jfa.slot<128x128xf8E4M3FN, swizzle 128>,
              !jfa.slot<256x128xf8E4M3FN, swizzle 128>, tensor<128x256xf32, #jfa.wgmma_acc>
        // This k tile's wgmmas may still run; the previous stage is read.
        %d1 = jfa.async_dot_wait pending(1) (%d) : tensor<128x256xf32, #jfa.wgmma_acc>
        %has_prev = arith.cmpi ugt, %kt, %c0 : i32
        scf.if %has_prev {
          %prev = arith.subi %kt, %c1 : i32
          %ps, %pphase = jfa.ring_position %prev stages(3) : i32
          %empty_p = jfa.barrier %empty[%ps] : !jfa.mbarriers<3>, i32
          jfa.barrier_arrive %empty_p
        }
        scf.yield %d1 : tensor<128x256xf32, #jfa.wgmma_acc>
      }
      %done = jfa.async_dot_wait pending(0) (%acc) : tensor<128x256xf32, #jfa.wgmma_acc>
      // The per-tensor scale, in f32, then bf16.
      %scale_t = tensor.splat %scale : tensor<128x256xf32, #jfa.wgmma_acc>
      %scaled = arith.mulf %done, %scale_t : tensor<128x256xf32, #jfa.wgmma_acc>
      %out = arith.truncf %scaled : tensor<128x256xf32, #jfa.wgmma_acc> to tensor<128x256xbf16, #jfa.wgmma_acc>
      // Staged in the 128-byte swizzle and stored as four 128x64 boxes, as
      // gemm_sm90_consumer.mlir's @gemm_store does (why: there).
      %c_s = jfa.slot %c_tile[%c0] : !jfa.smem<1 x 128x256xbf16, swizzle 128>, i32
      jfa.local_store %out, %c_s : tensor<128x256xbf16, #jfa.wgmma_acc> -> !jfa.slot<128x256xbf16, swizzle 128>
      jfa.fence_async_shared
      jfa.task_barrier
      jfa.call @gemm_store_blocks(%c_s, %row0, %col0, %c)
          : (!jfa.slot<128x256xbf16, swizzle 128>, i32, i32, !jfa.tma<128x64xbf16, swizzle 128>) -> ()
    }
    // Producer: warps 8-11; one thread issues the copies.
    jfa.task default registers(40) {
      scf.for %kt = %c0 to %k_tiles step %c1 : i32 {
        %s, %phase = jfa.ring_position %kt stages(3) : i32
        %free_phase = arith.xori %phase, %c1 : i32
        %empty_s = jfa.barrier %empty[%s] : !jfa.mbarriers<3>, i32
        jfa.barrier_wait %empty_s, %free_phase
        %full_s = jfa.barrier %full[%s] : !jfa.mbarriers<3>, i32
        %a_s = jfa.slot %a_ring[%s] : !jfa.smem<3 x 128x128xf8E4M3FN, swizzle 128>, i32
        %b_s = jfa.slot %b_ring[%s] : !jfa.smem<3 x 256x128xf8E4M3FN, swizzle 128>, i32
        %kcol = arith.muli %kt, %c128 : i32
        jfa.barrier_expect %full_s, bytes(49152)
        jfa.tma_load %a[%row0, %kcol], %a_s, %full_s : !jfa.tma<128x128xf8E4M3FN, swizzle 128>, !jfa.slot<128x128xf8E4M3FN, swizzle 128>
        jfa.tma_load %b[%col0, %kcol], %b_s, %full_s : !jfa.tma<256x128xf8E4M3FN, swizzle 128>, !jfa.slot<256x128xf8E4M3FN, swizzle 128>
      }
    }
  }
}
