// jfa-targets: sm_100a
// C[M, N] = A[M, K] * B[N, K]^T with A read by tcgen05.mma from tensor
// memory, the way FA4 keeps P: each 128x64 A tile goes TMA -> registers
// (one row per thread) -> tcgen05.st into a bf16 tensor-memory tile; B
// stays in shared memory. fp32 output, 128x64 tiles, one stage: it checks
// the operand path, not speed. Needs a B200 to run (compiled and
// disassembled only here). Launch ceil(M/128) * ceil(N/64) CTAs of 128
// threads.
jfa.kernel @tmem_a_dot(%a: !jfa.tma<128x64xbf16, swizzle 128>,
                       %b: !jfa.tma<64x64xbf16, swizzle 128>,
                       %c: !jfa.tma<128x64xf32>,
                       %m: i32, %n: i32, %k: i32) warps(4) {
  %a_buf = jfa.local_alloc : !jfa.smem<1 x 128x64xbf16, swizzle 128>
  %b_buf = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %c_buf = jfa.local_alloc : !jfa.smem<1 x 128x64xf32>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  %acc = jfa.tmem_alloc : !jfa.tmem<128x64xf32>
  %a_tmem = jfa.tmem_alloc : !jfa.tmem<128x64xbf16>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c63 = arith.constant 63 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pid = jfa.program_id x
  %n_up = arith.addi %n, %c63 : i32
  %tiles_n = arith.divui %n_up, %c64 : i32
  %tile_m = arith.divui %pid, %tiles_n : i32
  %tile_n = arith.remui %pid, %tiles_n : i32
  %row0 = arith.muli %tile_m, %c128 : i32
  %col0 = arith.muli %tile_n, %c64 : i32
  %k_up = arith.addi %k, %c63 : i32
  %k_tiles = arith.divui %k_up, %c64 : i32

  %loaded = jfa.barrier %bars[%c0] : !jfa.mbarriers<2>, i32
  %mma_done = jfa.barrier %bars[%c1] : !jfa.mbarriers<2>, i32
  %a_s = jfa.slot %a_buf[%c0] : !jfa.smem<1 x 128x64xbf16, swizzle 128>, i32
  %b_s = jfa.slot %b_buf[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  scf.for %kt = %c0 to %k_tiles step %c1 : i32 {
    %phase = arith.remui %kt, %c2 : i32
    %kcol = arith.muli %kt, %c64 : i32
    jfa.barrier_expect %loaded, bytes(24576)
    jfa.tma_load %a[%row0, %kcol], %a_s, %loaded : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
    jfa.tma_load %b[%col0, %kcol], %b_s, %loaded : !jfa.tma<64x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128>
    jfa.barrier_wait %loaded, %phase
    %a_r = jfa.local_load %a_s : !jfa.slot<128x64xbf16, swizzle 128> -> tensor<128x64xbf16, #jfa.tmem_row>
    jfa.tmem_store %a_r, %a_tmem[%c0] : tensor<128x64xbf16, #jfa.tmem_row> -> !jfa.tmem<128x64xbf16>
    // Every row of A is in tensor memory before the MMA thread issues; A was
    // read by the threads, and the proxy fence orders that read before the
    // next TMA that overwrites it (issued after this barrier).
    jfa.fence_async_shared
    jfa.task_barrier
    %accumulate = arith.cmpi ugt, %kt, %c0 : i32
    jfa.tc_dot %a_tmem, %b_s, %acc, %accumulate : !jfa.tmem<128x64xbf16>, !jfa.slot<64x64xbf16, swizzle 128>, !jfa.tmem<128x64xf32>
    jfa.tc_commit %mma_done
    // The MMA has read A and B before they are overwritten.
    jfa.barrier_wait %mma_done, %phase
  }
  %out = jfa.tmem_load %acc[%c0] : !jfa.tmem<128x64xf32> -> tensor<128x64xf32, #jfa.tmem_row>
  %c_s = jfa.slot %c_buf[%c0] : !jfa.smem<1 x 128x64xf32>, i32
  jfa.local_store %out, %c_s : tensor<128x64xf32, #jfa.tmem_row> -> !jfa.slot<128x64xf32>
  jfa.fence_async_shared
  jfa.task_barrier
  jfa.tma_store %c_s, %c[%row0, %col0] : !jfa.slot<128x64xf32>, !jfa.tma<128x64xf32>
}
