// jfa-targets: sm_100a
// y = alpha * x through tensor memory, for a [rows, 64] f32 matrix in
// 128-row tiles: TMA load, registers (one row per thread), tcgen05.st into
// tensor memory, tcgen05.ld back, scale, TMA store. It exercises tensor
// memory's allocation, stores and loads on their own; it needs a B200 to
// run (on the machines here it is compiled and disassembled only).
// Launch ceil(rows / 128) CTAs of 128 threads.
jfa.kernel @tmem_roundtrip(%x: !jfa.tma<128x64xf32>, %y: !jfa.tma<128x64xf32>,
                           %alpha: f32) warps(4) {
  %in = jfa.local_alloc : !jfa.smem<1 x 128x64xf32>
  %out = jfa.local_alloc : !jfa.smem<1 x 128x64xf32>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %acc = jfa.tmem_alloc : !jfa.tmem<128x64xf32>
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %pid = jfa.program_id x
  %row0 = arith.muli %pid, %c128 : i32
  %bar = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  %s_in = jfa.slot %in[%c0] : !jfa.smem<1 x 128x64xf32>, i32
  %s_out = jfa.slot %out[%c0] : !jfa.smem<1 x 128x64xf32>, i32
  jfa.barrier_expect %bar, bytes(32768)
  jfa.tma_load %x[%row0, %c0], %s_in, %bar : !jfa.tma<128x64xf32>, !jfa.slot<128x64xf32>
  jfa.barrier_wait %bar, %c0
  %t = jfa.local_load %s_in : !jfa.slot<128x64xf32> -> tensor<128x64xf32, #jfa.tmem_row>
  jfa.tmem_store %t, %acc[%c0] : tensor<128x64xf32, #jfa.tmem_row> -> !jfa.tmem<128x64xf32>
  %back = jfa.tmem_load %acc[%c0] : !jfa.tmem<128x64xf32> -> tensor<128x64xf32, #jfa.tmem_row>
  %a = tensor.splat %alpha : tensor<128x64xf32, #jfa.tmem_row>
  %scaled = arith.mulf %back, %a : tensor<128x64xf32, #jfa.tmem_row>
  jfa.local_store %scaled, %s_out : tensor<128x64xf32, #jfa.tmem_row> -> !jfa.slot<128x64xf32>
  jfa.fence_async_shared
  jfa.task_barrier
  jfa.tma_store %s_out, %y[%row0, %c0] : !jfa.slot<128x64xf32>, !jfa.tma<128x64xf32>
}
