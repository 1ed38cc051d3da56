// RUN: jfa-opt %s --split-input-file --verify-diagnostics --jfa-debug-barriers

// The report names the kernel of each wait: a wait still in a device helper
// (jfa-debug-barriers run before jfa-inline-helpers) is refused, not a crash.
jfa.func @wait_for(%b: !jfa.mbarrier, %phase: i32) {
  // expected-error @below {{'jfa.barrier_wait' op is not in a kernel: jfa-debug-barriers needs helpers inlined first (jfa-inline-helpers, which jfac runs)}}
  jfa.barrier_wait %b, %phase
  jfa.return
}
