// jfa-targets: sm_90a
// DELIBERATELY BROKEN: kernels/gemm/gemm_sm90.mlir with the producer
// waiting on the wrong phase of the `empty` barriers. A fresh barrier
// counts as having completed the phase before its first, so the producer
// must wait on parity 1 (the stage starts empty); this one waits on parity
// 0, which completes only once the consumers have released the stage,
// which they do only after the producer has filled it: every CTA deadlocks
// in the producer's first wait.
//
// The protocol is right in every other respect, so jfa-check-barriers
// accepts it: a phase is a run-time value. Built with `jfac compile
// --debug-barriers`, the waits time out after 4 s, print their location,
// barrier, phase, CTA and warp, and trap; the runtime then throws an error
// that says so (docs/BARRIERS.md). Without the flag it hangs the GPU: never
// run it that way. Launch like gemm_sm90.
jfa.import "../lib/gemm_schedule.mlir"

jfa.kernel @broken_phase_sm90(%a: !jfa.tma<128x64xbf16, swizzle 128>,
                             %b: !jfa.tma<256x64xbf16, swizzle 128>,
                             %c: !jfa.tma<128x256xbf16>,
                             %m: i32, %n: i32, %k: i32) warps(12) {
  %a_ring = jfa.local_alloc : !jfa.smem<3 x 128x64xbf16, swizzle 128>
  %b_ring = jfa.local_alloc : !jfa.smem<3 x 256x64xbf16, swizzle 128>
  %c_tile = jfa.local_alloc : !jfa.smem<1 x 128x256xbf16>
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
  %k_tiles, %row0, %col0 = jfa.call @gemm_tile(%pid, %m, %n, %k)
      : (i32, i32, i32, i32) -> (i32, i32, i32)

  jfa.async_tasks {
    // Consumers: warps 0-7, two warpgroups.
    jfa.task warps(8) registers(232) {
      %zero = arith.constant dense<0.0> : tensor<128x256xf32, #jfa.wgmma_acc>
      %acc = scf.for %kt = %c0 to %k_tiles step %c1
          iter_args(%acc_in = %zero) -> (tensor<128x256xf32, #jfa.wgmma_acc>) : i32 {
        %s = arith.remui %kt, %c3 : i32
        %round = arith.divui %kt, %c3 : i32
        %phase = arith.remui %round, %c2 : i32
        %full_s = jfa.barrier %full[%s] : !jfa.mbarriers<3>, i32
        jfa.barrier_wait %full_s, %phase
        %a_s = jfa.slot %a_ring[%s] : !jfa.smem<3 x 128x64xbf16, swizzle 128>, i32
        %b_s = jfa.slot %b_ring[%s] : !jfa.smem<3 x 256x64xbf16, swizzle 128>, i32
        %d = jfa.async_dot %a_s, %b_s, %acc_in
            : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<256x64xbf16, swizzle 128>,
              tensor<128x256xf32, #jfa.wgmma_acc>
        // At most this k-step's wgmmas are still running: the previous
        // stage has been read and goes back to the producer.
        %d1 = jfa.async_dot_wait pending(1) (%d) : tensor<128x256xf32, #jfa.wgmma_acc>
        %has_prev = arith.cmpi ugt, %kt, %c0 : i32
        scf.if %has_prev {
          %prev = arith.subi %kt, %c1 : i32
          %ps = arith.remui %prev, %c3 : i32
          %empty_p = jfa.barrier %empty[%ps] : !jfa.mbarriers<3>, i32
          jfa.barrier_arrive %empty_p
        }
        scf.yield %d1 : tensor<128x256xf32, #jfa.wgmma_acc>
      }
      %done = jfa.async_dot_wait pending(0) (%acc) : tensor<128x256xf32, #jfa.wgmma_acc>
      %out = arith.truncf %done : tensor<128x256xf32, #jfa.wgmma_acc> to tensor<128x256xbf16, #jfa.wgmma_acc>
      %c_s = jfa.slot %c_tile[%c0] : !jfa.smem<1 x 128x256xbf16>, i32
      jfa.local_store %out, %c_s : tensor<128x256xbf16, #jfa.wgmma_acc> -> !jfa.slot<128x256xbf16>
      jfa.fence_async_shared
      jfa.task_barrier
      jfa.tma_store %c_s, %c[%row0, %col0] : !jfa.slot<128x256xbf16>, !jfa.tma<128x256xbf16>
    }
    // Producer: warps 8-11; one thread issues the copies.
    jfa.task default registers(40) {
      scf.for %kt = %c0 to %k_tiles step %c1 : i32 {
        %s = arith.remui %kt, %c3 : i32
        %round = arith.divui %kt, %c3 : i32
        %phase = arith.remui %round, %c2 : i32
        // THE BUG: the stage-free wait must use %phase xor 1.
        %empty_s = jfa.barrier %empty[%s] : !jfa.mbarriers<3>, i32
        jfa.barrier_wait %empty_s, %phase
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
