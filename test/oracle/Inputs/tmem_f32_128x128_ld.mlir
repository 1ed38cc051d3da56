// jfa-targets: sm_100a
// tcgen05 oracle (docs/TCGEN05_ORACLE.md): a 128x128 f32 tile loaded from tensor memory (the
// attention kernels' S and dP).
jfa.kernel @oracle(%flag: i32) warps(4) {
  %c0 = arith.constant 0 : i32
  %out_buf = jfa.local_alloc : !jfa.smem<1 x 128x128xf32>
  %out = jfa.slot %out_buf[%c0] : !jfa.smem<1 x 128x128xf32>, i32
  %t = jfa.tmem_alloc : !jfa.tmem<128x128xf32>
  %w = jfa.tmem_load %t[%c0] : !jfa.tmem<128x128xf32> -> tensor<128x128xf32, #jfa.tmem_row>
  jfa.local_store %w, %out : tensor<128x128xf32, #jfa.tmem_row> -> !jfa.slot<128x128xf32>
}
