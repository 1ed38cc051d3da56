// A consumer whose register budget is far too small for its 128x64 f32 tile
// (64 values per thread under registers(24)): ptxas spills.
jfa.kernel @spills(%x: !jfa.tma<128x64xf32>, %y: !jfa.tma<128x64xf32>) warps(8) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 128x64xf32>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %bar = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 128x64xf32>, i32
  jfa.async_tasks {
    jfa.task default registers(24) {
      jfa.barrier_wait %bar, %c0
      %t = jfa.local_load %s : !jfa.slot<128x64xf32> -> tensor<128x64xf32, #jfa.tmem_row>
      %e = math.exp2 %t : tensor<128x64xf32, #jfa.tmem_row>
      %m = jfa.reduce_rows max %e : tensor<128x64xf32, #jfa.tmem_row> -> tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>
      %b = jfa.broadcast_rows %m : tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>> -> tensor<128x64xf32, #jfa.tmem_row>
      %d = arith.divf %e, %b : tensor<128x64xf32, #jfa.tmem_row>
      jfa.local_store %d, %s : tensor<128x64xf32, #jfa.tmem_row> -> !jfa.slot<128x64xf32>
      jfa.fence_async_shared
      jfa.task_barrier
      jfa.tma_store %s, %y[%c0, %c0] : !jfa.slot<128x64xf32>, !jfa.tma<128x64xf32>
    }
    jfa.task warps(4) registers(232) {
      jfa.barrier_expect %bar, bytes(32768)
      jfa.tma_load %x[%c0, %c0], %s, %bar : !jfa.tma<128x64xf32>, !jfa.slot<128x64xf32>
    }
  }
}
