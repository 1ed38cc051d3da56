// DELIBERATELY BROKEN: the `--debug-barriers` demonstration
// (docs/BARRIERS.md). Built without that flag it hangs the GPU: never run
// it that way.
//
// y = x for a row-major f32 matrix [rows, cols], copied through a two-slot
// TMA ring: CTA i copies the 64-row block i, one 64x64 tile per step. The
// producer warpgroup loads tile j into slot j % 2 and signals `full`; the
// consumer warpgroup waits for it, stores it out with TMA from the same slot
// and, once the store has read the slot, hands it back on `empty`.
//
// THE BUG: the producer waits for a free slot on parity %phase instead of
// %phase xor 1. A fresh barrier counts as having completed the phase before
// its first, so a wait on parity 1 passes at once in the first round (the
// slot starts free); parity 0 completes only once the consumer has released
// the slot, which it does only after the producer has filled it: every CTA
// deadlocks, the producer in its first wait on `empty`, the consumer in its
// first wait on `full`.
//
// The protocol is right in every other respect, so jfa-check-barriers
// accepts it: a phase is a run-time value. jfa-interp reports the deadlock
// and every blocked wait (test/interp/deadlock.test). Built with `jfac
// compile --debug-barriers`, the waits time out after 4 s, print their
// location, barrier, phase, CTA and warp, and trap; the runtime then throws
// an error that says so. Launch ceil(rows / 64) CTAs of 256 threads. It
// holds no MMA, so it builds for every target (the H200 runs the sm_90a one).
jfa.kernel @broken_phase(%x: !jfa.tma<64x64xf32>, %y: !jfa.tma<64x64xf32>,
                         %rows: i32, %cols: i32) warps(8) {
  %ring = jfa.local_alloc : !jfa.smem<2 x 64x64xf32>
  // full: the producer's expect plus the tile's 16 KiB of TMA; empty: the
  // 128 consumer threads, each after the store has read the slot.
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  %empty = jfa.alloc_barriers arrive_count(128) : !jfa.mbarriers<2>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c63 = arith.constant 63 : i32
  %c64 = arith.constant 64 : i32
  %pid = jfa.program_id x
  %row0 = arith.muli %pid, %c64 : i32
  %cols_up = arith.addi %cols, %c63 : i32
  %tiles = arith.divui %cols_up, %c64 : i32

  jfa.async_tasks {
    // Consumer: warps 0-3.
    jfa.task warps(4) {
      scf.for %j = %c0 to %tiles step %c1 : i32 {
        %s = arith.remui %j, %c2 : i32
        %round = arith.divui %j, %c2 : i32
        %phase = arith.remui %round, %c2 : i32
        %full_s = jfa.barrier %full[%s] : !jfa.mbarriers<2>, i32
        jfa.barrier_wait %full_s, %phase
        %slot = jfa.slot %ring[%s] : !jfa.smem<2 x 64x64xf32>, i32
        %col = arith.muli %j, %c64 : i32
        jfa.tma_store %slot, %y[%row0, %col] : !jfa.slot<64x64xf32>, !jfa.tma<64x64xf32>
        // The store's thread waits until it has read the slot; the phase
        // completes with its arrival, the last one.
        jfa.tma_store_wait pending(0)
        %empty_s = jfa.barrier %empty[%s] : !jfa.mbarriers<2>, i32
        jfa.barrier_arrive %empty_s
      }
    }
    // Producer: warps 4-7; one thread issues the copies.
    jfa.task default {
      scf.for %j = %c0 to %tiles step %c1 : i32 {
        %s = arith.remui %j, %c2 : i32
        %round = arith.divui %j, %c2 : i32
        %phase = arith.remui %round, %c2 : i32
        // THE BUG: a free slot is a completed phase of parity %phase xor 1.
        %empty_s = jfa.barrier %empty[%s] : !jfa.mbarriers<2>, i32
        jfa.barrier_wait %empty_s, %phase
        %full_s = jfa.barrier %full[%s] : !jfa.mbarriers<2>, i32
        %slot = jfa.slot %ring[%s] : !jfa.smem<2 x 64x64xf32>, i32
        %col = arith.muli %j, %c64 : i32
        jfa.barrier_expect %full_s, bytes(16384)
        jfa.tma_load %x[%row0, %col], %slot, %full_s : !jfa.tma<64x64xf32>, !jfa.slot<64x64xf32>
      }
    }
  }
}
