// RUN: jfa-opt %s --split-input-file --verify-diagnostics

// expected-error @below {{'jfa.import' op names no file}}
jfa.import ""

// -----

jfa.func @f(%x: i32) -> i32 {
  // expected-error @below {{'jfa.import' op expects parent op 'builtin.module'}}
  jfa.import "x.mlir"
  jfa.return %x : i32
}

// -----

// Without an import, a call to a helper the module lacks is an error when
// parsed; with one, it waits for the imports to be resolved.
jfa.kernel @k(%n: i32) warps(1) {
  // expected-error @below {{calls @nowhere, which is no jfa.func of this module}}
  %x = jfa.call @nowhere(%n) : (i32) -> i32
}
