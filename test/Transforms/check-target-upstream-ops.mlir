// RUN: jfa-opt %s --split-input-file --jfa-check-target=arch=sm_90a --verify-diagnostics
// Upstream math ops NVPTX cannot compile (no instruction, no library call)
// and element types the lowering has no arithmetic for are rejected at their
// op: jfac stopped on them with "LLVM ERROR: Cannot select" and a stack
// dump, "error: no libcall available" without a location, or an internal
// translation error (found by fuzzing).

jfa.kernel @sin(%p: !jfa.ptr<f32>, %x: f32) warps(1) {
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{'math.sin' is not supported by jfac's lowering (NVPTX has no instruction or library call for it); jfac lowers these math ops: absf, ceil, copysign, floor, fma, round, roundeven, rsqrt, sqrt, trunc, isfinite, isnan (f16, bf16, f32, f64); exp2 (f16, bf16, f32); log, log2 (f32); absi, ctlz, ctpop, cttz (i8, i16, i32, i64)}}
  %y = math.sin %x : f32
  jfa.store %y, %p[%c0] : f32, !jfa.ptr<f32>
}

// -----

jfa.kernel @exp_tile(%x: f32) warps(1) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 32x32xf32>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 32x32xf32>, i32
  %t = tensor.splat %x : tensor<32x32xf32>
  // expected-error @+1 {{'math.exp' is not supported by jfac's lowering}}
  %e = math.exp %t : tensor<32x32xf32>
  // expected-error @+1 {{'math.tanh' is not supported by jfac's lowering (NVPTX has no instruction or library call for it); jfac lowers these math ops: absf, ceil, copysign, floor, fma, round, roundeven, rsqrt, sqrt, trunc, isfinite, isnan (f16, bf16, f32, f64); exp2 (f16, bf16, f32); log, log2 (f32); absi, ctlz, ctpop, cttz (i8, i16, i32, i64); write tanh(x) as 1 - 2 / (exp2(x * 2.88539008) + 1)}}
  %h = math.tanh %e : tensor<32x32xf32>
  // expected-error @+1 {{'math.powf' is not supported by jfac's lowering}}
  %p = math.powf %h, %t : tensor<32x32xf32>
  // expected-error @+1 {{'math.cbrt' is not supported by jfac's lowering}}
  %c = math.cbrt %p : tensor<32x32xf32>
  jfa.local_store %c, %s : tensor<32x32xf32> -> !jfa.slot<32x32xf32>
}

// -----

jfa.kernel @wrong_types(%p: !jfa.ptr<f32>, %x: f32, %n: i32) warps(1) {
  %c0 = arith.constant 0 : i32
  %d = arith.extf %x : f32 to f64
  // expected-error @+1 {{'math.exp2' on 'f64' is not supported by jfac's lowering: it takes f16, bf16, f32}}
  %e = math.exp2 %d : f64
  // expected-error @+1 {{'math.log' on 'f64' is not supported by jfac's lowering: it takes f32}}
  %l = math.log %e : f64
  // expected-error @+1 {{'math.ipowi' is not supported by jfac's lowering}}
  %i = math.ipowi %n, %n : i32
  %y = arith.truncf %l : f64 to f32
  jfa.store %y, %p[%c0] : f32, !jfa.ptr<f32>
}

// -----

jfa.kernel @i128(%p: !jfa.ptr<f32>, %x: f32) warps(1) {
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{'arith.fptosi' op on 'i128' is not supported by jfac's lowering: arith ops take i1, i8, i16, i32, i64, index, f16, bf16, f32 and f64 elements}}
  %h = arith.fptosi %x : f32 to i128
  // expected-error @+1 {{'arith.sitofp' op on 'i128'}}
  %y = arith.sitofp %h : i128 to f32
  jfa.store %y, %p[%c0] : f32, !jfa.ptr<f32>
}

// -----

jfa.kernel @fp8(%p: !jfa.ptr<f32>, %x: f32, %n: i32) warps(1) {
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{'arith.truncf' op on 'f8E4M3FN' is not supported by jfac's lowering: arith ops take i1, i8, i16, i32, i64, index, f16, bf16, f32 and f64 elements (8-bit and narrower floats are loaded, stored and multiplied by jfa.async_dot/jfa.tc_dot only)}}
  %h = arith.truncf %x : f32 to f8E4M3FN
  // expected-error @+1 {{'arith.extf' op on 'f8E4M3FN'}}
  %y = arith.extf %h : f8E4M3FN to f32
  // expected-error @+1 {{'arith.sitofp' op on 'f8E5M2'}}
  %s = arith.sitofp %n : i32 to f8E5M2
  // expected-error @+1 {{'arith.truncf' op on 'tf32'}}
  %t = arith.truncf %x : f32 to tf32
  // expected-error @+1 {{'arith.truncf' op on 'f4E2M1FN'}}
  %f = arith.truncf %x : f32 to f4E2M1FN
  jfa.store %y, %p[%c0] : f32, !jfa.ptr<f32>
}

// -----

// What the lowering does compile passes: the allowlisted math ops on their
// types, fp8 constants (they fill fp8 tiles), i1 through i64 and index.
jfa.kernel @supported(%p: !jfa.ptr<f32>, %x: f32, %n: i32) warps(1) {
  %c0 = arith.constant 0 : i32
  %one = arith.constant 1.0 : f8E4M3FN
  %h = arith.truncf %x : f32 to f16
  %e = math.exp2 %h : f16
  %r = math.rsqrt %e : f16
  %w = arith.extf %r : f16 to f32
  %l = math.log2 %w : f32
  %f = math.fma %l, %l, %w : f32
  %z = math.ctlz %n : i32
  %i = arith.index_cast %z : i32 to index
  %j = arith.index_cast %i : index to i64
  %k = math.absi %j : i64
  %b = arith.cmpi slt, %k, %k : i64
  %y = arith.select %b, %f, %x : f32
  jfa.store %y, %p[%c0] : f32, !jfa.ptr<f32>
}
