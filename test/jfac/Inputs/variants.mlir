// A kernel whose header lists the values of two of its three parameters
// (test/jfac/variants.test); `extra` is not listed, so any value goes.
// jfa-variants: wide=0,1
//   (a comment line between the two)
// jfa-variants: size=64,128
jfa.kernel @variants(%o: !jfa.tma<64x64xf32>, %s: f32) warps(4) {
  %wide = jfa.param "wide" = true
  %size = jfa.param "size" = 64 : i32
  %extra = jfa.param "extra" = 0 : i32
  %out = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
  %c0 = arith.constant 0 : i32
  %so = jfa.slot %out[%c0] : !jfa.smem<1 x 64x64xf32>, i32
  %v = scf.if %wide -> f32 {
    %two = arith.constant 5.0 : f32
    %a = arith.mulf %s, %two : f32
    scf.yield %a : f32
  } else {
    %three = arith.constant 7.0 : f32
    %b = arith.mulf %s, %three : f32
    scf.yield %b : f32
  }
  %t = tensor.splat %v : tensor<64x64xf32>
  jfa.local_store %t, %so : tensor<64x64xf32> -> !jfa.slot<64x64xf32>
  jfa.fence_async_shared
  jfa.task_barrier
  %col = arith.addi %size, %extra : i32
  jfa.tma_store %so, %o[%c0, %col] : !jfa.slot<64x64xf32>, !jfa.tma<64x64xf32>
}
