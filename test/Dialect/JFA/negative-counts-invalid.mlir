// RUN: jfa-opt %s --split-input-file --verify-diagnostics
// Negative counts are reported as written, not as their unsigned 32-bit
// reading (warps(-1) was "got 4294967295"; a task's warps(-4) or
// replicas(-1) passed its own check and was counted as billions of warps).

// expected-error @+1 {{'jfa.kernel' op warps must be in [1, 32] (at most 1024 threads per CTA), got -1}}
jfa.kernel @kernel_warps() warps(-1) {
}

// -----

jfa.kernel @arrive_count() warps(4) {
  // expected-error @+1 {{'jfa.alloc_barriers' op arrive_count must be in [1, 1048575], got -1}}
  %bars = jfa.alloc_barriers arrive_count(-1) : !jfa.mbarriers<1>
}

// -----

jfa.kernel @task_warps() warps(8) {
  jfa.async_tasks {
    // expected-error @+1 {{'jfa.task' op warps must be positive, got -4}}
    jfa.task warps(-4) {
    }
    jfa.task default {
    }
  }
}

// -----

jfa.kernel @task_replicas() warps(8) {
  jfa.async_tasks {
    // expected-error @+1 {{'jfa.task' op replicas must be positive, got -1}}
    jfa.task warps(4) replicas(-1) {
    }
    jfa.task default {
    }
  }
}

// -----

jfa.kernel @task_registers() warps(8) {
  jfa.async_tasks {
    // expected-error @+1 {{'jfa.task' op registers(-8) is not a valid setmaxnreg budget}}
    jfa.task warps(4) registers(-8) {
    }
    jfa.task default {
    }
  }
}

// -----

jfa.kernel @ring_stages() warps(4) {
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{'jfa.ring_position' op stages must be in [1, 64], got -2}}
  %slot, %phase = jfa.ring_position %c0 stages(-2) : i32
}
