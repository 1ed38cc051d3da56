// jfa-targets: sm_100a
// A persistent sm_100a GEMM scheduled by cluster launch control:
//   C[M, N] = A[M, K] * B[N, K]^T     bf16 in, f32 accumulate, bf16 out.
//
// The grid has one CTA per 128x256 tile of C, as gemm_sm100.mlir's, but a
// CTA does not stop after its own tile: its scheduler warp asks the
// hardware to cancel a CTA that has not started yet (jfa.try_cancel) and,
// when it can, the CTA takes that tile next. So the CTAs that hold an SM
// keep it, each paying its set-up once, and the epilogue of one tile
// overlaps the next tile's main loop: the accumulator is double-buffered in
// tensor memory (2 x 256 of the 512 columns), so the MMA warp starts tile
// n + 1 in one buffer while the epilogue drains tile n from the other.
//
// Warps: 0-3 epilogue, 4 producer (TMA, 4-stage ring), 5 scheduler, 6 MMA.
// Every task walks the same tile sequence: its own program id first, then
// the tile of each cancelled CTA, read from a 2-slot ring of responses that
// all 224 threads read before the scheduler reuses a slot. The first
// request that cancels nothing ends every task's loop.
//
// Launch with ceil(M/128) * ceil(N/256) CTAs of 224 threads (x).
jfa.import "../lib/gemm_schedule.mlir"
jfa.import "../lib/gemm_sm100_tasks.mlir"

// The tile after use %n of the response ring: the cancelled CTA's program
// id, or -1 when the request cancelled nothing. The slot goes back to the
// scheduler once read (every thread of every task arrives).
jfa.func @next_tile(%n: i32, %responses: !jfa.smem<2 x 4xi32>,
                    %answered: !jfa.mbarriers<2>, %read: !jfa.mbarriers<2>)
    -> i32 {
  %none = arith.constant -1 : i32
  %s, %phase = jfa.ring_position %n stages(2) : i32
  %answered_s = jfa.barrier %answered[%s] : !jfa.mbarriers<2>, i32
  jfa.barrier_wait %answered_s, %phase
  %response = jfa.slot %responses[%s] : !jfa.smem<2 x 4xi32>, i32
  %taken, %x, %y, %z = jfa.query_cancel %response : !jfa.slot<4xi32>
  // The scheduler's next request into this slot is an async-proxy write.
  jfa.fence_async_shared
  %read_s = jfa.barrier %read[%s] : !jfa.mbarriers<2>, i32
  jfa.barrier_arrive %read_s
  %next = arith.select %taken, %x, %none : i32
  jfa.return %next : i32
}

jfa.kernel @gemm_persistent_sm100(%a: !jfa.tma<128x64xbf16, swizzle 128>,
                                  %b: !jfa.tma<256x64xbf16, swizzle 128>,
                                  %c: !jfa.tma<128x64xbf16, swizzle 128>,
                                  %m: i32, %n: i32, %k: i32) warps(7) {
  %a_ring = jfa.local_alloc : !jfa.smem<4 x 128x64xbf16, swizzle 128>
  %b_ring = jfa.local_alloc : !jfa.smem<4 x 256x64xbf16, swizzle 128>
  %c_stage = jfa.local_alloc : !jfa.smem<2 x 128x64xbf16, swizzle 128>
  %responses = jfa.local_alloc : !jfa.smem<2 x 4xi32>
  // The k-step ring: the producer's expect + 48 KiB; the MMA's commit.
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<4>
  %empty = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<4>
  // The two accumulators: the MMA's commit; the epilogue's 128 threads.
  %acc_full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  %acc_empty = jfa.alloc_barriers arrive_count(128) : !jfa.mbarriers<2>
  // The responses: the scheduler's expect + 16 bytes; all 224 threads.
  %answered = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  %read = jfa.alloc_barriers arrive_count(224) : !jfa.mbarriers<2>
  %acc = jfa.tmem_alloc : !jfa.tmem<128x512xf32>
  %acc0 = jfa.tmem_slice %acc columns(0) : !jfa.tmem<128x512xf32> -> !jfa.tmem<128x256xf32>
  %acc1 = jfa.tmem_slice %acc columns(256) : !jfa.tmem<128x512xf32> -> !jfa.tmem<128x256xf32>

  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %c64 = arith.constant 64 : i32
  %pid = jfa.program_id x

  jfa.async_tasks {
    // Epilogue: warps 0-3, one accumulator row per thread.
    jfa.task warps(4) {
      %last:2 = scf.while (%t = %pid, %i = %c0) : (i32, i32) -> (i32, i32) {
        %more = arith.cmpi sge, %t, %c0 : i32
        scf.condition(%more) %t, %i : i32, i32
      } do {
      ^bb0(%t: i32, %i: i32):
        %k_tiles, %row0, %col0 = jfa.call @gemm_tile(%t, %m, %n, %k, %c64)
            : (i32, i32, i32, i32, i32) -> (i32, i32, i32)
        %buf, %acc_phase = jfa.ring_position %i stages(2) : i32
        %acc_b = jfa.call @acc_buffer(%buf, %acc0, %acc1)
            : (i32, !jfa.tmem<128x256xf32>, !jfa.tmem<128x256xf32>) -> !jfa.tmem<128x256xf32>
        %full_b = jfa.barrier %acc_full[%buf] : !jfa.mbarriers<2>, i32
        %chunk0 = arith.muli %i, %c4 : i32
        // kernels/lib/gemm_sm100_tasks.mlir: 4 chunks of 64 columns through
        // the 2-slot staging ring (use %chunk0 on), then the buffer is free.
        jfa.call @gemm_drain(%row0, %col0, %acc_b, %full_b, %acc_phase, %chunk0, %c_stage, %c)
            : (i32, i32, !jfa.tmem<128x256xf32>, !jfa.mbarrier, i32, i32,
               !jfa.smem<2 x 128x64xbf16, swizzle 128>, !jfa.tma<128x64xbf16, swizzle 128>) -> ()
        %empty_b = jfa.barrier %acc_empty[%buf] : !jfa.mbarriers<2>, i32
        jfa.barrier_arrive %empty_b
        %next = jfa.call @next_tile(%i, %responses, %answered, %read)
            : (i32, !jfa.smem<2 x 4xi32>, !jfa.mbarriers<2>, !jfa.mbarriers<2>) -> i32
        %i1 = arith.addi %i, %c1 : i32
        scf.yield %next, %i1 : i32, i32
      }
    }
    // Producer: warp 4; the k-step ring runs on across tiles.
    jfa.task warps(1) {
      %last:3 = scf.while (%t = %pid, %i = %c0, %step0 = %c0) : (i32, i32, i32) -> (i32, i32, i32) {
        %more = arith.cmpi sge, %t, %c0 : i32
        scf.condition(%more) %t, %i, %step0 : i32, i32, i32
      } do {
      ^bb0(%t: i32, %i: i32, %step0: i32):
        %k_tiles, %row0, %col0 = jfa.call @gemm_tile(%t, %m, %n, %k, %c64)
            : (i32, i32, i32, i32, i32) -> (i32, i32, i32)
        %step_end = scf.for %kt = %c0 to %k_tiles step %c1 iter_args(%step = %step0) -> (i32) : i32 {
          %s, %phase = jfa.ring_position %step stages(4) : i32
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
          %step1 = arith.addi %step, %c1 : i32
          scf.yield %step1 : i32
        }
        %next = jfa.call @next_tile(%i, %responses, %answered, %read)
            : (i32, !jfa.smem<2 x 4xi32>, !jfa.mbarriers<2>, !jfa.mbarriers<2>) -> i32
        %i1 = arith.addi %i, %c1 : i32
        scf.yield %next, %i1, %step_end : i32, i32, i32
      }
    }
    // Scheduler: warp 5. Request i + 1 goes out once every thread has read
    // response i - 1 from the same slot; the loop ends at the first request
    // that cancels nothing (asking again is not allowed).
    jfa.task warps(1) {
      %requests = scf.while (%i = %c0) : (i32) -> i32 {
        %s, %phase = jfa.ring_position %i stages(2) : i32
        %free_phase = arith.xori %phase, %c1 : i32
        %read_s = jfa.barrier %read[%s] : !jfa.mbarriers<2>, i32
        jfa.barrier_wait %read_s, %free_phase
        %response = jfa.slot %responses[%s] : !jfa.smem<2 x 4xi32>, i32
        %answered_s = jfa.barrier %answered[%s] : !jfa.mbarriers<2>, i32
        jfa.barrier_expect %answered_s, bytes(16)
        jfa.try_cancel %response, %answered_s : !jfa.slot<4xi32>
        %next = jfa.call @next_tile(%i, %responses, %answered, %read)
            : (i32, !jfa.smem<2 x 4xi32>, !jfa.mbarriers<2>, !jfa.mbarriers<2>) -> i32
        %taken = arith.cmpi sge, %next, %c0 : i32
        %i1 = arith.addi %i, %c1 : i32
        scf.condition(%taken) %i1 : i32
      } do {
      ^bb0(%i1: i32):
        scf.yield %i1 : i32
      }
    }
    // MMA: warp 6; one thread issues, into the buffer the epilogue freed.
    jfa.task default {
      %last:3 = scf.while (%t = %pid, %i = %c0, %step0 = %c0) : (i32, i32, i32) -> (i32, i32, i32) {
        %more = arith.cmpi sge, %t, %c0 : i32
        scf.condition(%more) %t, %i, %step0 : i32, i32, i32
      } do {
      ^bb0(%t: i32, %i: i32, %step0: i32):
        %k_tiles, %row0, %col0 = jfa.call @gemm_tile(%t, %m, %n, %k, %c64)
            : (i32, i32, i32, i32, i32) -> (i32, i32, i32)
        %buf, %acc_phase = jfa.ring_position %i stages(2) : i32
        %free_phase = arith.xori %acc_phase, %c1 : i32
        %empty_b = jfa.barrier %acc_empty[%buf] : !jfa.mbarriers<2>, i32
        jfa.barrier_wait %empty_b, %free_phase
        %acc_b = jfa.call @acc_buffer(%buf, %acc0, %acc1)
            : (i32, !jfa.tmem<128x256xf32>, !jfa.tmem<128x256xf32>) -> !jfa.tmem<128x256xf32>
        %step_end = scf.for %kt = %c0 to %k_tiles step %c1 iter_args(%step = %step0) -> (i32) : i32 {
          %s, %phase = jfa.ring_position %step stages(4) : i32
          %full_s = jfa.barrier %full[%s] : !jfa.mbarriers<4>, i32
          jfa.barrier_wait %full_s, %phase
          %a_s = jfa.slot %a_ring[%s] : !jfa.smem<4 x 128x64xbf16, swizzle 128>, i32
          %b_s = jfa.slot %b_ring[%s] : !jfa.smem<4 x 256x64xbf16, swizzle 128>, i32
          %accumulate = arith.cmpi ugt, %kt, %c0 : i32
          jfa.tc_dot %a_s, %b_s, %acc_b, %accumulate : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<256x64xbf16, swizzle 128>, !jfa.tmem<128x256xf32>
          %empty_s = jfa.barrier %empty[%s] : !jfa.mbarriers<4>, i32
          jfa.tc_commit %empty_s
          %step1 = arith.addi %step, %c1 : i32
          scf.yield %step1 : i32
        }
        %full_b = jfa.barrier %acc_full[%buf] : !jfa.mbarriers<2>, i32
        jfa.tc_commit %full_b
        %next = jfa.call @next_tile(%i, %responses, %answered, %read)
            : (i32, !jfa.smem<2 x 4xi32>, !jfa.mbarriers<2>, !jfa.mbarriers<2>) -> i32
        %i1 = arith.addi %i, %c1 : i32
        scf.yield %next, %i1, %step_end : i32, i32, i32
      }
    }
  }
}
