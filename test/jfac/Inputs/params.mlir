// A kernel with compile-time parameters (test/jfac/params.test).
jfa.kernel @params(%o: !jfa.tma<64x64xf32>, %s: f32) warps(4) {
  %wide = jfa.param "wide" = true
  %size = jfa.param "size" = 64 : i32
  %out = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
  %c0 = arith.constant 0 : i32
  %so = jfa.slot %out[%c0] : !jfa.smem<1 x 64x64xf32>, i32
  // s * 5 (0f40A00000) when wide, else s * 7 (0f40E00000).
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
  jfa.tma_store %so, %o[%c0, %size] : !jfa.slot<64x64xf32>, !jfa.tma<64x64xf32>
}
