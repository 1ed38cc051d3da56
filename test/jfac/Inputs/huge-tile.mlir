// A register tile far beyond a thread's registers (test/jfac/huge-tile.test).
jfa.kernel @big(%p: !jfa.ptr<f32>, %alpha: f32) warps(1) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %n = arith.constant 256 : i32
  %t = tensor.splat %alpha : tensor<1024x1024xf32>
  %u = arith.mulf %t, %t : tensor<1024x1024xf32>
  %e = math.exp2 %u : tensor<1024x1024xf32>
  jfa.store_tile %e, %p[%c0] stride(%n) rows(%n) : tensor<1024x1024xf32>, !jfa.ptr<f32>
}
