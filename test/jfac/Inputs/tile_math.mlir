jfa.kernel @tilemath(%d: !jfa.tma<64x64xf32>, %o: !jfa.tma<64x64xbf16>, %s: f32) warps(4) {
  %in = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
  %out = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  %si = jfa.slot %in[%c0] : !jfa.smem<1 x 64x64xf32>, i32
  %so = jfa.slot %out[%c0] : !jfa.smem<1 x 64x64xbf16>, i32
  jfa.barrier_expect %b, bytes(16384)
  jfa.tma_load %d[%c0, %c0], %si, %b : !jfa.tma<64x64xf32>, !jfa.slot<64x64xf32>
  jfa.barrier_wait %b, %c0
  %x = jfa.local_load %si : !jfa.slot<64x64xf32> -> tensor<64x64xf32>
  %sc = tensor.splat %s : tensor<64x64xf32>
  %e = math.exp2 %x : tensor<64x64xf32>
  %f = math.fma %e, %sc, %x : tensor<64x64xf32>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %m = arith.maximumf %f, %z : tensor<64x64xf32>
  %c = arith.cmpf ogt, %m, %sc : tensor<64x64xf32>
  %sel = arith.select %c, %m, %x : tensor<64x64xi1>, tensor<64x64xf32>
  %h = arith.truncf %sel : tensor<64x64xf32> to tensor<64x64xbf16>
  jfa.local_store %h, %so : tensor<64x64xbf16> -> !jfa.slot<64x64xbf16>
  jfa.fence_async_shared
  jfa.task_barrier
  jfa.tma_store %so, %o[%c0, %c0] : !jfa.slot<64x64xbf16>, !jfa.tma<64x64xbf16>
}
