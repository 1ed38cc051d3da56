// RUN: jfa-opt %s --split-input-file --verify-diagnostics --jfa-specialize
// RUN: not jfac compile %s --arch sm_90a --emit=ptx -o %t.ptx 2>&1 | FileCheck %s --check-prefix=JFAC
// A loop step fixed at zero or below (by a constant or a jfa.param) never
// ends on the GPU; the canonicalizer deleted such a loop without a word and
// jfac compiled a kernel that stored the initial value (found by fuzzing).
// jfa-interp reports it at run time with the same words.

// JFAC: specialize-loop-step.mlir:[[@LINE+4]]:8: error: scf.for with step 0: the step must be positive
jfa.kernel @zero(%p: !jfa.ptr<i32>, %n: i32) warps(1) {
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{scf.for with step 0: the step must be positive}}
  %r = scf.for %i = %c0 to %n step %c0 iter_args(%acc = %c0) -> (i32) : i32 {
    %x = arith.addi %acc, %i : i32
    scf.yield %x : i32
  }
  jfa.store %r, %p[%c0] : i32, !jfa.ptr<i32>
}

// -----

jfa.kernel @negative_param(%p: !jfa.ptr<i32>, %n: i32) warps(1) {
  %c0 = arith.constant 0 : i32
  %s = jfa.param "stride" = -2 : i32
  // expected-error @+1 {{scf.for with step -2: the step must be positive}}
  scf.for %i = %c0 to %n step %s : i32 {
    jfa.store %i, %p[%i] : i32, !jfa.ptr<i32>
  }
}

// -----

// A step known only at run time, or a positive one, is left alone.
jfa.kernel @fine(%p: !jfa.ptr<i32>, %n: i32) warps(1) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %n : i32 {
    jfa.store %i, %p[%i] : i32, !jfa.ptr<i32>
  }
  scf.for %i = %c0 to %n step %c1 : i32 {
    jfa.store %i, %p[%i] : i32, !jfa.ptr<i32>
  }
}
