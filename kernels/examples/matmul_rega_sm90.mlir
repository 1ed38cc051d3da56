// jfa-targets: sm_90a
// C[M, N] = A[M, K] * B[K, N] with A fed to wgmma from registers and B
// stored N-major, the way attention computes P * V: A is a bf16 tile in the
// #jfa.wgmma_acc layout (whose columns are exactly wgmma's register A
// operand, so the accumulator-to-operand conversion moves no data), and B is
// a row-major [K, N] tile read through jfa.transpose. fp32 output.
//
// A deliberately plain schedule (one warpgroup, one stage, one 64x64 tile
// per CTA): it checks the operand paths, not speed. Launch
// ceil(M/64) * ceil(N/64) CTAs of 128 threads.
jfa.kernel @matmul_rega_sm90(%a: !jfa.tma<64x64xbf16, swizzle 128>,
                           %b: !jfa.tma<64x64xbf16, swizzle 128>,
                           %c: !jfa.tma<64x64xf32>,
                           %m: i32, %n: i32, %k: i32) warps(4) {
  %a_buf = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %b_buf = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %c_buf = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c63 = arith.constant 63 : i32
  %c64 = arith.constant 64 : i32
  %pid = jfa.program_id x
  %n_up = arith.addi %n, %c63 : i32
  %tiles_n = arith.divui %n_up, %c64 : i32
  %tile_m = arith.divui %pid, %tiles_n : i32
  %tile_n = arith.remui %pid, %tiles_n : i32
  %row0 = arith.muli %tile_m, %c64 : i32
  %col0 = arith.muli %tile_n, %c64 : i32
  %k_up = arith.addi %k, %c63 : i32
  %k_tiles = arith.divui %k_up, %c64 : i32

  %bar = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  %a_s = jfa.slot %a_buf[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  %b_s = jfa.slot %b_buf[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  %b_t = jfa.transpose %b_s : !jfa.slot<64x64xbf16, swizzle 128>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  %acc = scf.for %kt = %c0 to %k_tiles step %c1
      iter_args(%acc_in = %zero) -> (tensor<64x64xf32, #jfa.wgmma_acc>) : i32 {
    %phase = arith.remui %kt, %c2 : i32
    %kcol = arith.muli %kt, %c64 : i32
    jfa.barrier_expect %bar, bytes(16384)
    jfa.tma_load %a[%row0, %kcol], %a_s, %bar : !jfa.tma<64x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128>
    jfa.tma_load %b[%kcol, %col0], %b_s, %bar : !jfa.tma<64x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128>
    jfa.barrier_wait %bar, %phase
    %a_r = jfa.local_load %a_s : !jfa.slot<64x64xbf16, swizzle 128> -> tensor<64x64xbf16, #jfa.wgmma_acc>
    %d = jfa.async_dot %a_r, %b_t, %acc_in
        : tensor<64x64xbf16, #jfa.wgmma_acc>, !jfa.slot<64x64xbf16, swizzle 128, transposed>,
          tensor<64x64xf32, #jfa.wgmma_acc>
    %done = jfa.async_dot_wait pending(0) (%d) : tensor<64x64xf32, #jfa.wgmma_acc>
    // Every warp has finished reading the tiles before the next copy; A was
    // read by the threads, so the proxy fence orders that read before the
    // TMA that overwrites it.
    jfa.fence_async_shared
    jfa.task_barrier
    scf.yield %done : tensor<64x64xf32, #jfa.wgmma_acc>
  }
  %c_s = jfa.slot %c_buf[%c0] : !jfa.smem<1 x 64x64xf32>, i32
  jfa.local_store %acc, %c_s : tensor<64x64xf32, #jfa.wgmma_acc> -> !jfa.slot<64x64xf32>
  jfa.fence_async_shared
  jfa.task_barrier
  jfa.tma_store %c_s, %c[%row0, %col0] : !jfa.slot<64x64xf32>, !jfa.tma<64x64xf32>
}
