// RUN: jfa-opt %s --split-input-file --verify-diagnostics

jfa.kernel @k() warps(1) {
  %a = jfa.param "head_dim" = 128 : i32
  // expected-error @below {{parameter 'head_dim' is declared twice in this kernel}}
  %b = jfa.param "head_dim" = 64 : i32
}

// -----

jfa.kernel @k() warps(1) {
  // expected-error @below {{parameter name '2d' is not an identifier}}
  %a = jfa.param "2d" : i32
}

// -----

jfa.kernel @k() warps(1) {
  // expected-error @below {{the default of a jfa.param is an integer or float literal with its type}}
  %a = jfa.param "d" = "x"
}

// -----

jfa.kernel @k() warps(1) {
  jfa.async_tasks {
    jfa.task warps(1) {
      // expected-error @below {{'jfa.param' op expects parent op 'jfa.kernel'}}
      %a = jfa.param "d" : i32
    }
  }
}

// -----

jfa.kernel @k() warps(1) {
  // expected-error @below {{'jfa.replica_id' op must be inside a jfa.task}}
  %r = jfa.replica_id : i32
}

// -----

jfa.kernel @k() warps(8) {
  jfa.async_tasks {
    jfa.task warps(4) {
    }
    // expected-error @below {{the default task takes the remaining warps and cannot be replicated}}
    jfa.task default replicas(2) {
    }
  }
}

// -----

jfa.kernel @k() warps(8) {
  // expected-error @below {{tasks use 12 warps but the kernel has warps(8)}}
  jfa.async_tasks {
    jfa.task warps(4) replicas(3) {
    }
  }
}
