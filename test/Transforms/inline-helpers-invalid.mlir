// RUN: jfa-opt %s --split-input-file --verify-diagnostics --jfa-inline-helpers

// expected-note @below {{@f is here}}
jfa.func @f(%a: i32) -> i32 {
  // expected-error @below {{helper @g calls itself; helpers are inlined and cannot recurse}}
  %b = jfa.call @g(%a) : (i32) -> i32
  jfa.return %b : i32
}
// expected-note @below {{@g is here}}
jfa.func @g(%a: i32) -> i32 {
  %b = jfa.call @f(%a) : (i32) -> i32
  jfa.return %b : i32
}
jfa.kernel @k(%n: i32) warps(1) {
  %x = jfa.call @g(%n) : (i32) -> i32
}

// -----

// A cycle no kernel reaches is still an error.
// expected-note @below {{@self is here}}
jfa.func @self(%a: i32) -> i32 {
  // expected-error @below {{helper @self calls itself}}
  %b = jfa.call @self(%a) : (i32) -> i32
  jfa.return %b : i32
}
