// A wait that can never return names the barrier, the parity it waits for,
// the phase still in progress and what that phase lacks: transaction bytes
// announced by jfa.barrier_expect that no TMA load brings, or arrivals.
// RUN: %python %S/Inputs/make_npy.py %t.x.npy f4 64x64
// RUN: not jfa-interp %s --kernel missing_bytes --arch sm_90a %t.x.npy 2>&1 | FileCheck %s --check-prefix=BYTES
// RUN: not jfa-interp %s --kernel missing_arrivals --arch sm_90a 2>&1 | FileCheck %s --check-prefix=ARRIVALS

jfa.kernel @missing_bytes(%x: !jfa.tma<64x64xf32>) warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %bar = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  %slot = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x64xf32>, i32
  // Two tiles announced, one loaded.
  jfa.barrier_expect %bar, bytes(32768)
  jfa.tma_load %x[%c0, %c0], %slot, %bar : !jfa.tma<64x64xf32>, !jfa.slot<64x64xf32>
  // BYTES: deadlock-pending.mlir:[[@LINE+2]]:3: error: deadlock in CTA (0, 0, 0): every task that has not finished is blocked
  // BYTES: deadlock-pending.mlir:[[@LINE+1]]:3: note: the kernel is blocked here: waits on %bars[0] for a phase of parity 0 to complete, but the barrier's phase 0 (parity 0) is still in progress: all 1 of its arrivals have been made and 16384 transaction bytes are still to come (expected by jfa.barrier_expect, not yet brought by TMA); no phase of %bars[0] has completed yet (on a fresh barrier a wait for parity 1 returns at once)
  jfa.barrier_wait %bar, %c0
}

// Warpgroup 0 arrives (128 arrivals) and waits; warpgroup 1 only waits.
jfa.kernel @missing_arrivals() warps(8) {
  %bars = jfa.alloc_barriers arrive_count(256) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c128 = arith.constant 128 : i32
  %bar = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  jfa.async_tasks {
    jfa.task default registers(232) {
      jfa.barrier_arrive %bar
      // The first phase completes (parity 0); wait for it.
      // ARRIVALS: deadlock-pending.mlir:[[@LINE+1]]:7: note: task 0 (warps 0-3) is blocked here: waits on %bars[0] for a phase of parity 0 to complete, but the barrier's phase 0 (parity 0) is still in progress: 128 of its 256 arrivals have been made, 128 are missing and no transaction bytes are pending; no phase of %bars[0] has completed yet
      jfa.barrier_wait %bar, %c0
    }
    jfa.task warps(4) registers(232) {
      // ARRIVALS: deadlock-pending.mlir:[[@LINE+1]]:7: note: task 1 (warps 4-7) is blocked here: waits on %bars[0] for a phase of parity 0
      jfa.barrier_wait %bar, %c0
    }
  }
}
