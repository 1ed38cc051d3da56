// An op the interpreter does not model is an error naming it, never a guess.
// RUN: not jfa-interp %s --arch sm_90a f32:0.5 2>&1 | FileCheck %s

jfa.kernel @cosine(%x: f32) warps(4) {
  // CHECK: not-modeled.mlir:[[@LINE+1]]:8: error: jfa-interp does not model 'math.cos'
  %y = math.cos %x : f32
}
