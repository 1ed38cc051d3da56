// RUN: jfa-opt %s --split-input-file --verify-diagnostics --jfa-check-barriers
// RUN: jfa-opt %s --split-input-file --verify-diagnostics --jfa-lower-async-tasks
// RUN: jfa-opt %s --split-input-file --verify-diagnostics --jfa-distribute-tiles
// The passes that count a task's threads refuse a task not yet expanded.
jfa.kernel @k() warps(8) {
  jfa.async_tasks {
    // expected-error @below {{needs replicated tasks expanded first (jfa-replicate-tasks, which jfac runs)}}
    jfa.task warps(4) replicas(2) {
    }
  }
}
