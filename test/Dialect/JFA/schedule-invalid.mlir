// RUN: jfa-opt %s --split-input-file --verify-diagnostics

jfa.kernel @k() warps(1) {
  %t = arith.constant true
  jfa.schedule_for_registers if %t
  // expected-error @below {{appears twice in this kernel; combine the conditions into one (arith.ori)}}
  jfa.schedule_for_registers
}

// -----

jfa.func @helper() {
  // expected-error @below {{expects parent op 'jfa.kernel'}}
  jfa.schedule_for_registers
  jfa.return
}

// -----

// The condition is an i1: an i32 is refused where it is used.
// expected-note @below {{prior use here}}
jfa.kernel @k(%n: i32) warps(1) {
  // expected-error @below {{use of value '%n' expects different type than prior uses: 'i1' vs 'i32'}}
  jfa.schedule_for_registers if %n
}
