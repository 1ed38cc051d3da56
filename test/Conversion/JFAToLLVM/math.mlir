// RUN: jfa-opt %s --split-input-file --jfa-convert-to-llvm --verify-diagnostics | FileCheck %s
// Logarithms: NVPTX has no lowering of llvm.log/llvm.log2 (llc aborts), so
// f32 ones become lg2.approx, element by element; log is lg2 * ln 2.

// CHECK-LABEL: llvm.func @log2_fragment
// CHECK-COUNT-2: llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"(%{{.*}}) : (f32) -> f32
// CHECK-NOT: llvm.call_intrinsic
// CHECK-NOT: math.log2
jfa.kernel @log2_fragment(%x: f32) warps(4) {
  %v = vector.broadcast %x : f32 to vector<2xf32>
  %l = math.log2 %v : vector<2xf32>
}

// -----

// CHECK-LABEL: llvm.func @log_scalar
// CHECK: %[[L:.*]] = llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"(%arg0) : (f32) -> f32
// CHECK-NEXT: %[[LN2:.*]] = llvm.mlir.constant(0.693147182 : f32) : f32
// CHECK-NEXT: llvm.fmul %[[L]], %[[LN2]] : f32
jfa.kernel @log_scalar(%x: f32) warps(4) {
  %l = math.log %x : f32
}

// -----

jfa.kernel @log_f64(%x: f64) warps(4) {
  // expected-error @+2 {{'math.log' op has no GPU lowering for 'f64'; logarithms lower for f32 scalars and fragments only}}
  // expected-error @+1 {{failed to legalize operation 'math.log'}}
  %l = math.log %x : f64
}

// -----

// exp2 with fastmath<afn>: ex2.approx.ftz, one special-function op each.
// CHECK-LABEL: llvm.func @fast_exp2_fragment
// CHECK-COUNT-2: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%{{.*}}) : (f32) -> f32
// CHECK-NOT: llvm.call_intrinsic
// CHECK-NOT: math.exp2
jfa.kernel @fast_exp2_fragment(%x: f32) warps(4) {
  %v = vector.broadcast %x : f32 to vector<2xf32>
  %e = math.exp2 %v fastmath<afn> : vector<2xf32>
}

// -----

// Without afn, exp2 is left to MLIR's default lowering (ex2 with the
// denormal range fixup).
// CHECK-LABEL: llvm.func @exp2_default
// CHECK: math.exp2 %arg0 : f32
// CHECK-NOT: ex2.approx.ftz
jfa.kernel @exp2_default(%x: f32) warps(4) {
  %e = math.exp2 %x : f32
}

// -----

jfa.kernel @fast_exp2_f64(%x: f64) warps(4) {
  // expected-error @+2 {{'math.exp2' op with fastmath<afn> has no GPU lowering for 'f64'; it lowers for f32 scalars and fragments only}}
  // expected-error @+1 {{failed to legalize operation 'math.exp2'}}
  %e = math.exp2 %x fastmath<afn> : f64
}
