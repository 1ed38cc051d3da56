// jfa-targets: sm_100a
// The sm_100a GEMM with CTA-pair products, persistent under cluster launch
// control: gemm_pair_sm100.mlir's 256x256 pair tiles, scheduled as
// gemm_persistent_sm100.mlir schedules its CTAs.
//   C[M, N] = A[M, K] * B[N, K]^T     bf16 in, f32 accumulate, bf16 out.
//
// The grid has one cluster of two CTAs per 256x256 tile of C. A cluster
// does not stop after its own tile: the even CTA's scheduler warp asks the
// hardware to cancel a cluster that has not started yet (jfa.try_cancel; the
// response reaches both CTAs) and, when it can, the pair takes that tile
// next. The accumulator is double-buffered in each CTA's tensor memory
// (2 x 256 of the 512 columns, each CTA its 128 rows), so the even CTA's
// MMA warp starts tile n + 1 while both epilogues drain tile n.
//
// The protocol, beyond gemm_pair_sm100's (operand halves completing on the
// even CTA's `full`, its pair products, the stage commits to both CTAs):
//  - tiles: every task of both CTAs walks the same sequence, its cluster's
//    own tile first, then the tile of each cancelled cluster, read from a
//    2-slot ring of responses; the first request that cancels nothing ends
//    every loop;
//  - responses: each CTA's scheduler arms its own `answered` barrier for
//    16 bytes; the even one issues the request once all 448 threads of the
//    pair have read what the slot held before (every thread arrives on both
//    CTAs' `read`, so each counts the pair; the odd CTA's is not waited on);
//  - accumulators: the even CTA's MMA warp commits a finished buffer to
//    both CTAs' `acc_full` and refills it once both epilogues (256 threads,
//    each arriving on both CTAs' `acc_empty`) have drained it;
//  - each producer waits for the last stage commits into its barriers
//    before its CTA exits, as gemm_pair_sm100's.
//
// Warps: 0-3 epilogue, 4 producer (TMA, 6-stage ring of 32 KiB a CTA),
// 5 scheduler, 6 MMA. Launch with 2 * ceil(M/256) * ceil(N/256) CTAs of 224
// threads (x), in clusters of (2, 1, 1).
jfa.import "../lib/gemm_schedule.mlir"
jfa.import "../lib/gemm_sm100_tasks.mlir"

// The pair's tile after use %n of the response ring: the cancelled
// cluster's (its first CTA's program id over 2), or -1 when the request
// cancelled nothing. The slot goes back to the even CTA's scheduler once
// read: every thread of both CTAs arrives on its own CTA's %read and on
// the peer's, so each CTA's barrier counts the whole pair.
jfa.func @next_pair_tile(%n: i32, %responses: !jfa.smem<2 x 4xi32>,
                         %answered: !jfa.mbarriers<2>, %read: !jfa.mbarriers<2>,
                         %peer: i32) -> i32 {
  %none = arith.constant -1 : i32
  %c2 = arith.constant 2 : i32
  %s, %phase = jfa.ring_position %n stages(2) : i32
  %answered_s = jfa.barrier %answered[%s] : !jfa.mbarriers<2>, i32
  jfa.barrier_wait %answered_s, %phase
  %response = jfa.slot %responses[%s] : !jfa.smem<2 x 4xi32>, i32
  %taken, %x, %y, %z = jfa.query_cancel %response : !jfa.slot<4xi32>
  // The next request into this slot is an async-proxy write.
  jfa.fence_async_shared
  %read_s = jfa.barrier %read[%s] : !jfa.mbarriers<2>, i32
  jfa.barrier_arrive %read_s
  jfa.barrier_arrive %read_s on cta %peer
  %cluster = arith.divui %x, %c2 : i32
  %next = arith.select %taken, %cluster, %none : i32
  jfa.return %next : i32
}

jfa.kernel @gemm_pair_persistent_sm100(%a: !jfa.tma<128x64xbf16, swizzle 128>,
                                       %b: !jfa.tma<128x64xbf16, swizzle 128>,
                                       %c: !jfa.tma<128x64xbf16, swizzle 128>,
                                       %m: i32, %n: i32, %k: i32)
    warps(7) cluster(2, 1, 1) {
  %a_ring = jfa.local_alloc : !jfa.smem<6 x 128x64xbf16, swizzle 128>
  %b_ring = jfa.local_alloc : !jfa.smem<6 x 128x64xbf16, swizzle 128>
  %c_stage = jfa.local_alloc : !jfa.smem<2 x 128x64xbf16, swizzle 128>
  %responses = jfa.local_alloc : !jfa.smem<2 x 4xi32>
  // The k-step ring: full is the even CTA's, armed for both CTAs' boxes;
  // empty is each CTA's, the pair product's commit.
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<6>
  %empty = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<6>
  // The accumulators: the even MMA warp's commit into both CTAs; empty
  // counts both epilogues (each thread arrives on both CTAs' barriers).
  %acc_full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  %acc_empty = jfa.alloc_barriers arrive_count(256) : !jfa.mbarriers<2>
  // The responses: each CTA's scheduler's expect + 16 bytes; read counts
  // all 448 threads of the pair (each arrives on both CTAs' barriers).
  %answered = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  %read = jfa.alloc_barriers arrive_count(448) : !jfa.mbarriers<2>
  %acc = jfa.tmem_alloc : !jfa.tmem<128x512xf32>
  %acc0 = jfa.tmem_slice %acc columns(0) : !jfa.tmem<128x512xf32> -> !jfa.tmem<128x256xf32>
  %acc1 = jfa.tmem_slice %acc columns(256) : !jfa.tmem<128x512xf32> -> !jfa.tmem<128x256xf32>

  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %c6 = arith.constant 6 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %c256 = arith.constant 256 : i32

  %rank = jfa.cluster_rank
  %cluster = jfa.cluster_id x
  // The pair's issuing CTA: the even one.
  %odd = arith.andi %rank, %c1 : i32
  %even_rank = arith.subi %rank, %odd : i32
  %issues = arith.cmpi eq, %odd, %c0 : i32
  %peer = arith.xori %rank, %c1 : i32
  // The pair's two CTAs, as a multicast mask.
  %c3 = arith.constant 3 : i16
  %even_rank16 = arith.trunci %even_rank : i32 to i16
  %both = arith.shli %c3, %even_rank16 : i16
  // This CTA's 128 rows of a 256x256 tile, and the 128 of B's rows it loads.
  %my_rows = arith.muli %odd, %c128 : i32

  jfa.async_tasks {
    // Epilogue: warps 0-3, one accumulator row per thread, this CTA's rows.
    jfa.task warps(4) {
      %last:2 = scf.while (%t = %cluster, %i = %c0) : (i32, i32) -> (i32, i32) {
        %more = arith.cmpi sge, %t, %c0 : i32
        scf.condition(%more) %t, %i : i32, i32
      } do {
      ^bb0(%t: i32, %i: i32):
        %k_tiles, %pair_row0, %col0 = jfa.call @gemm_tile_rows(%t, %m, %n, %k, %c64, %c256)
            : (i32, i32, i32, i32, i32, i32) -> (i32, i32, i32)
        %row0 = arith.addi %pair_row0, %my_rows : i32
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
        jfa.barrier_arrive %empty_b on cta %peer
        %next = jfa.call @next_pair_tile(%i, %responses, %answered, %read, %peer)
            : (i32, !jfa.smem<2 x 4xi32>, !jfa.mbarriers<2>, !jfa.mbarriers<2>, i32) -> i32
        %i1 = arith.addi %i, %c1 : i32
        scf.yield %next, %i1 : i32, i32
      }
    }
    // Producer: warp 4; the k-step ring runs on across tiles.
    jfa.task warps(1) {
      %last:3 = scf.while (%t = %cluster, %i = %c0, %step0 = %c0) : (i32, i32, i32) -> (i32, i32, i32) {
        %more = arith.cmpi sge, %t, %c0 : i32
        scf.condition(%more) %t, %i, %step0 : i32, i32, i32
      } do {
      ^bb0(%t: i32, %i: i32, %step0: i32):
        %k_tiles, %pair_row0, %col0 = jfa.call @gemm_tile_rows(%t, %m, %n, %k, %c64, %c256)
            : (i32, i32, i32, i32, i32, i32) -> (i32, i32, i32)
        %row0 = arith.addi %pair_row0, %my_rows : i32
        %b_row0 = arith.addi %col0, %my_rows : i32
        %step_end = scf.for %kt = %c0 to %k_tiles step %c1 iter_args(%step = %step0) -> (i32) : i32 {
          %s, %phase = jfa.ring_position %step stages(6) : i32
          %free_phase = arith.xori %phase, %c1 : i32
          %empty_s = jfa.barrier %empty[%s] : !jfa.mbarriers<6>, i32
          jfa.barrier_wait %empty_s, %free_phase
          %full_s = jfa.barrier %full[%s] : !jfa.mbarriers<6>, i32
          %a_s = jfa.slot %a_ring[%s] : !jfa.smem<6 x 128x64xbf16, swizzle 128>, i32
          %b_s = jfa.slot %b_ring[%s] : !jfa.smem<6 x 128x64xbf16, swizzle 128>, i32
          %kcol = arith.muli %kt, %c64 : i32
          scf.if %issues {
            jfa.barrier_expect %full_s, bytes(65536)
          }
          jfa.tma_load %a[%row0, %kcol], %a_s, %full_s on cta %even_rank : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
          jfa.tma_load %b[%b_row0, %kcol], %b_s, %full_s on cta %even_rank : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
          %step1 = arith.addi %step, %c1 : i32
          scf.yield %step1 : i32
        }
        %next = jfa.call @next_pair_tile(%i, %responses, %answered, %read, %peer)
            : (i32, !jfa.smem<2 x 4xi32>, !jfa.mbarriers<2>, !jfa.mbarriers<2>, i32) -> i32
        %i1 = arith.addi %i, %c1 : i32
        scf.yield %next, %i1, %step_end : i32, i32, i32
      }
      // The tail: the commits that free this CTA's stages are the even CTA's
      // asynchronous arrivals; wait for the last ones before the CTA exits.
      %tail_lo = arith.maxui %last#2, %c6 : i32
      %tail_hi = arith.addi %last#2, %c6 : i32
      scf.for %step = %tail_lo to %tail_hi step %c1 : i32 {
        %s, %phase = jfa.ring_position %step stages(6) : i32
        %free_phase = arith.xori %phase, %c1 : i32
        %empty_s = jfa.barrier %empty[%s] : !jfa.mbarriers<6>, i32
        jfa.barrier_wait %empty_s, %free_phase
      }
    }
    // Scheduler: warp 5. Each CTA arms its own barrier for the response;
    // the even CTA's issues request i once the pair has read response
    // i - 2 from the same slot. The loop ends at the first request that
    // cancels nothing (asking again is not allowed).
    jfa.task warps(1) {
      %requests = scf.while (%i = %c0) : (i32) -> i32 {
        %s, %phase = jfa.ring_position %i stages(2) : i32
        %response = jfa.slot %responses[%s] : !jfa.smem<2 x 4xi32>, i32
        %answered_s = jfa.barrier %answered[%s] : !jfa.mbarriers<2>, i32
        jfa.barrier_expect %answered_s, bytes(16)
        scf.if %issues {
          %free_phase = arith.xori %phase, %c1 : i32
          %read_s = jfa.barrier %read[%s] : !jfa.mbarriers<2>, i32
          jfa.barrier_wait %read_s, %free_phase
          jfa.try_cancel %response, %answered_s : !jfa.slot<4xi32>
        }
        %next = jfa.call @next_pair_tile(%i, %responses, %answered, %read, %peer)
            : (i32, !jfa.smem<2 x 4xi32>, !jfa.mbarriers<2>, !jfa.mbarriers<2>, i32) -> i32
        %taken = arith.cmpi sge, %next, %c0 : i32
        %i1 = arith.addi %i, %c1 : i32
        scf.condition(%taken) %i1 : i32
      } do {
      ^bb0(%i1: i32):
        scf.yield %i1 : i32
      }
    }
    // MMA: warp 6; the even CTA's thread issues the pair's products into
    // the buffer both epilogues freed. The odd CTA's warp only reads the
    // responses (every thread of the pair reads each one).
    jfa.task default {
      %last:3 = scf.while (%t = %cluster, %i = %c0, %step0 = %c0) : (i32, i32, i32) -> (i32, i32, i32) {
        %more = arith.cmpi sge, %t, %c0 : i32
        scf.condition(%more) %t, %i, %step0 : i32, i32, i32
      } do {
      ^bb0(%t: i32, %i: i32, %step0: i32):
        %k_tiles, %pair_row0, %col0 = jfa.call @gemm_tile_rows(%t, %m, %n, %k, %c64, %c256)
            : (i32, i32, i32, i32, i32, i32) -> (i32, i32, i32)
        %step_end = arith.addi %step0, %k_tiles : i32
        scf.if %issues {
          %buf, %acc_phase = jfa.ring_position %i stages(2) : i32
          %free_phase = arith.xori %acc_phase, %c1 : i32
          %empty_b = jfa.barrier %acc_empty[%buf] : !jfa.mbarriers<2>, i32
          jfa.barrier_wait %empty_b, %free_phase
          %acc_b = jfa.call @acc_buffer(%buf, %acc0, %acc1)
              : (i32, !jfa.tmem<128x256xf32>, !jfa.tmem<128x256xf32>) -> !jfa.tmem<128x256xf32>
          scf.for %kt = %c0 to %k_tiles step %c1 : i32 {
            %step = arith.addi %step0, %kt : i32
            %s, %phase = jfa.ring_position %step stages(6) : i32
            %full_s = jfa.barrier %full[%s] : !jfa.mbarriers<6>, i32
            jfa.barrier_wait %full_s, %phase
            %a_s = jfa.slot %a_ring[%s] : !jfa.smem<6 x 128x64xbf16, swizzle 128>, i32
            %b_s = jfa.slot %b_ring[%s] : !jfa.smem<6 x 128x64xbf16, swizzle 128>, i32
            %accumulate = arith.cmpi ugt, %kt, %c0 : i32
            jfa.tc_dot %a_s, %b_s, %acc_b, %accumulate pair : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, !jfa.tmem<128x256xf32>
            // Both CTAs' slots of the stage are free once the product is done.
            %empty_s = jfa.barrier %empty[%s] : !jfa.mbarriers<6>, i32
            jfa.tc_commit %empty_s multicast(%both)
          }
          %full_b = jfa.barrier %acc_full[%buf] : !jfa.mbarriers<2>, i32
          jfa.tc_commit %full_b multicast(%both)
        }
        %next = jfa.call @next_pair_tile(%i, %responses, %answered, %read, %peer)
            : (i32, !jfa.smem<2 x 4xi32>, !jfa.mbarriers<2>, !jfa.mbarriers<2>, i32) -> i32
        %i1 = arith.addi %i, %c1 : i32
        scf.yield %next, %i1, %step_end : i32, i32, i32
      }
    }
  }
}
