// RUN: jfa-opt %s --split-input-file --verify-diagnostics
// `jfa.target` (set by jfa-check-target, read by the passes after it) names a
// target of dialects/JFA/Targets.def, on a module.

// expected-error @+1 {{'jfa.target' names unknown target 'sm_80'; known targets: sm_90a, sm_100a}}
module attributes {jfa.target = "sm_80"} {
}

// -----

// expected-error @+1 {{'jfa.target' is a target name on a module}}
module attributes {jfa.target = 90 : i32} {
}

// -----

module {
  // expected-error @+1 {{'jfa.target' is a target name on a module}}
  jfa.kernel @k() warps(4) attributes {jfa.target = "sm_90a"} {
  }
}
