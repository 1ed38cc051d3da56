// RUN: jfa-opt %s --split-input-file --verify-diagnostics "--jfa-specialize=params=head_dim=64"
// RUN: not jfa-opt %s --split-input-file "--jfa-specialize=params=nope=1" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not jfa-opt %s --split-input-file "--jfa-specialize=params=head_dim=6x4" 2>&1 | FileCheck %s --check-prefix=TYPE
// RUN: not jfa-opt %s --split-input-file "--jfa-specialize=params=head_dim=2147483648" 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not jfa-opt %s --split-input-file "--jfa-specialize=params=head_dim=064" 2>&1 | FileCheck %s --check-prefix=OCTAL
// RUN: not jfa-opt %s --split-input-file "--jfa-specialize=params=head_dim" 2>&1 | FileCheck %s --check-prefix=FORM
// RUN: not jfa-opt %s --split-input-file "--jfa-specialize=params=head_dim=64,head_dim=128" 2>&1 | FileCheck %s --check-prefix=TWICE

// UNKNOWN: error: no kernel declares a parameter 'nope'; @k declares head_dim
// TYPE: error: parameter 'head_dim' of @k is 'i32'; the value '6x4' is not a decimal integer
// RANGE: error: parameter 'head_dim' of @k is 'i32'; the value '2147483648' does not fit in a signed 32-bit integer
// OCTAL: the value '064' is not a decimal integer
// FORM: error: parameter 'head_dim' is not NAME=VALUE
// TWICE: error: parameter 'head_dim' is given twice
jfa.kernel @k() warps(1) {
  %d = jfa.param "head_dim" = 128 : i32
}

// -----

jfa.kernel @missing() warps(1) {
  %d = jfa.param "head_dim" = 128 : i32
  // expected-error @below {{parameter 'causal' of @missing has no default; give it (jfac -P causal=<value>)}}
  %c = jfa.param "causal" : i1
}
