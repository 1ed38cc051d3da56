// RUN: jfa-opt %s --split-input-file --verify-diagnostics

jfa.kernel @k(%n: i32) warps(1) {
  // expected-error @below {{calls @nope, which is no jfa.func of this module}}
  %x = jfa.call @nope(%n) : (i32) -> i32
}

// -----

jfa.func @f(%a: i32) -> i32 {
  jfa.return %a : i32
}
jfa.kernel @k(%n: f32) warps(1) {
  // expected-error @below {{has type '(f32) -> i32' but @f is '(i32) -> i32'}}
  %x = jfa.call @f(%n) : (f32) -> i32
}

// -----

jfa.func @f(%a: i32) -> i32 {
  // expected-error @below {{returns 0 values but @f returns 1}}
  jfa.return
}

// -----

// What must be in the kernel body cannot be in a helper.
jfa.func @f() {
  // expected-error @below {{'jfa.local_alloc' op expects parent op 'jfa.kernel'}}
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
  jfa.return
}
