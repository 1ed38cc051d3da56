// jfa-targets: sm_90a
// jfa-variants: a_operand=0,1,2
// C[M, N] = op(A) * B with B stored N-major (row-major [K, N], as V is in
// attention's P * V): jfa.transpose views each B tile as the K-major operand
// wgmma wants, with no copy (wgmma's transpose-B bit). fp32 output.
//
// How wgmma reads A is a compile-time parameter, one cubin per value
// (`jfac compile -P a_operand=1`; jfa-interp takes the same -P):
//
//   a_operand=0  A[M, K] row-major, K-major from shared memory: C = A B.
//   a_operand=1  A stored [K, M] (M-major), read through a jfa.transpose
//                view with no copy (wgmma's transpose-A bit): C = A^T B.
//                The attention backward's dK = dS^T Q and dV = P^T dO have
//                this shape (dS and P stored as computed, [q, k]).
//   a_operand=2  A[M, K] fed from registers, the way attention computes
//                P * V: a bf16 tile in the #jfa.wgmma_acc layout, whose
//                columns are exactly wgmma's register A operand, so the
//                accumulator-to-operand conversion moves no data.
//
// Only the A load's coordinates and the multiply differ; they branch on the
// parameter, and jfa-specialize folds the branches away, so each cubin holds
// one operand path and no run-time test.
//
// A deliberately plain schedule (one warpgroup, one stage, one 64x64 tile
// per CTA) that checks the operand paths, not speed. Launch
// ceil(M/64) * ceil(N/64) CTAs of 128 threads. Rows of A and B must be
// 16-byte aligned (a TMA rule): N, and K (M for a_operand=1), multiples of 8.
jfa.kernel @matmul_sm90(%a: !jfa.tma<64x64xbf16, swizzle 128>,
                        %b: !jfa.tma<64x64xbf16, swizzle 128>,
                        %c: !jfa.tma<64x64xf32>,
                        %m: i32, %n: i32, %k: i32) warps(4) {
  %a_operand = jfa.param "a_operand" = 0 : i32
  %a_buf = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %b_buf = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %c_buf = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c63 = arith.constant 63 : i32
  %c64 = arith.constant 64 : i32
  %a_mmajor = arith.cmpi eq, %a_operand, %c1 : i32
  %a_in_regs = arith.cmpi eq, %a_operand, %c2 : i32
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
    // A's tile is [row0, kcol] of A[M, K], or [kcol, row0] of A stored [K, M].
    %a_y = arith.select %a_mmajor, %kcol, %row0 : i32
    %a_x = arith.select %a_mmajor, %row0, %kcol : i32
    jfa.barrier_expect %bar, bytes(16384)
    jfa.tma_load %a[%a_y, %a_x], %a_s, %bar : !jfa.tma<64x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128>
    jfa.tma_load %b[%kcol, %col0], %b_s, %bar : !jfa.tma<64x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128>
    jfa.barrier_wait %bar, %phase
    %done = scf.if %a_in_regs -> (tensor<64x64xf32, #jfa.wgmma_acc>) {
      // a_operand=2: A through registers.
      %a_r = jfa.local_load %a_s : !jfa.slot<64x64xbf16, swizzle 128> -> tensor<64x64xbf16, #jfa.wgmma_acc>
      %d = jfa.async_dot %a_r, %b_t, %acc_in
          : tensor<64x64xbf16, #jfa.wgmma_acc>, !jfa.slot<64x64xbf16, swizzle 128, transposed>,
            tensor<64x64xf32, #jfa.wgmma_acc>
      %w = jfa.async_dot_wait pending(0) (%d) : tensor<64x64xf32, #jfa.wgmma_acc>
      // A was read by the threads: the proxy fence orders that read before
      // the TMA that overwrites it (the task barrier below orders the warps).
      jfa.fence_async_shared
      scf.yield %w : tensor<64x64xf32, #jfa.wgmma_acc>
    } else {
      %w = scf.if %a_mmajor -> (tensor<64x64xf32, #jfa.wgmma_acc>) {
        // a_operand=1: the M-major A tile viewed as K-major, no copy.
        %a_t = jfa.transpose %a_s : !jfa.slot<64x64xbf16, swizzle 128>
        %d = jfa.async_dot %a_t, %b_t, %acc_in
            : !jfa.slot<64x64xbf16, swizzle 128, transposed>, !jfa.slot<64x64xbf16, swizzle 128, transposed>,
              tensor<64x64xf32, #jfa.wgmma_acc>
        %w1 = jfa.async_dot_wait pending(0) (%d) : tensor<64x64xf32, #jfa.wgmma_acc>
        scf.yield %w1 : tensor<64x64xf32, #jfa.wgmma_acc>
      } else {
        // a_operand=0: A from shared memory as stored.
        %d = jfa.async_dot %a_s, %b_t, %acc_in
            : !jfa.slot<64x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128, transposed>,
              tensor<64x64xf32, #jfa.wgmma_acc>
        %w0 = jfa.async_dot_wait pending(0) (%d) : tensor<64x64xf32, #jfa.wgmma_acc>
        scf.yield %w0 : tensor<64x64xf32, #jfa.wgmma_acc>
      }
      scf.yield %w : tensor<64x64xf32, #jfa.wgmma_acc>
    }
    // Every warp has finished reading the tiles before the next copy.
    jfa.task_barrier
    scf.yield %done : tensor<64x64xf32, #jfa.wgmma_acc>
  }
  %c_s = jfa.slot %c_buf[%c0] : !jfa.smem<1 x 64x64xf32>, i32
  jfa.local_store %acc, %c_s : tensor<64x64xf32, #jfa.wgmma_acc> -> !jfa.slot<64x64xf32>
  jfa.fence_async_shared
  jfa.task_barrier
  jfa.tma_store %c_s, %c[%row0, %col0] : !jfa.slot<64x64xf32>, !jfa.tma<64x64xf32>
}
