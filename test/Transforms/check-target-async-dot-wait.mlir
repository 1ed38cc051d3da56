// RUN: jfa-opt %s --jfa-check-target=arch=sm_90a | FileCheck %s
// RUN: jfa-opt %s --jfa-check-target=arch=sm_100a --verify-diagnostics
// RUN: not jfac compile %s --arch sm_100a --emit=ptx -o %t.ptx 2>&1 | FileCheck %s --check-prefix=JFAC
// jfa.async_dot_wait is wgmma.wait_group, which exists on sm_90a only. It
// was not marked as needing wgmma, so jfac --arch sm_100a passed it to the
// NVPTX backend, which aborted ("LLVM ERROR: Cannot select: intrinsic
// %llvm.nvvm.wgmma.wait_group.sync.aligned"); found by jfa-fuzz-frontend
// (docs/FUZZING.md, 2026-12-04).
// JFAC: error: 'jfa.async_dot_wait' op waits for wgmma groups, which sm_100a does not have (sm_90a only)
// JFAC-NOT: LLVM ERROR

// CHECK: jfa.async_dot_wait pending(0)
jfa.kernel @k() warps(4) {
  // expected-error @+1 {{'jfa.async_dot_wait' op waits for wgmma groups, which sm_100a does not have (sm_90a only); on sm_100a jfa.tc_commit arrives on a barrier when jfa.tc_dot finishes}}
  jfa.async_dot_wait pending(0)
}
