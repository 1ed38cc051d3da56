// Warpgroup 0 waits at named barrier 3 for 256 threads, but warpgroup 1
// syncs on barrier 4: neither ever completes.
// RUN: not jfa-interp %s --arch sm_90a 2>&1 | FileCheck %s

jfa.kernel @named() warps(8) {
  %c128 = arith.constant 128 : i32
  %t = jfa.task_thread_id
  %first = arith.cmpi ult, %t, %c128 : i32
  scf.if %first {
    // CHECK: named-barrier-deadlock.mlir:[[@LINE+1]]:5: error: deadlock in CTA (0, 0, 0)
    jfa.named_barrier_sync id(3) threads(256)
    // CHECK: note: the kernel warpgroup 0 is blocked here: waits at named barrier 3 for threads(256), but its phase is still in progress: 128 threads have arrived, 128 still missing
  } else {
    // CHECK: named-barrier-deadlock.mlir:[[@LINE+2]]:5: note: the kernel warpgroup 1 is blocked here: waits at named barrier 4 for threads(256), but its phase is still in progress: 128 threads have arrived, 128 still missing
    // CHECK-NOT: note
    jfa.named_barrier_sync id(4) threads(256)
  }
}
