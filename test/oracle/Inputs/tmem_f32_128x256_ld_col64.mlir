// jfa-targets: sm_100a
// tcgen05 oracle (docs/TCGEN05_ORACLE.md): 64 columns at column 64 of a 128x256 f32 accumulator,
// once at a column index (gemm_sm100's epilogue) and once through a
// tmem_slice (the attention kernels' O halves).
jfa.kernel @oracle(%flag: i32) warps(4) {
  %c0 = arith.constant 0 : i32
  %out_buf = jfa.local_alloc : !jfa.smem<1 x 128x64xf32>
  %out = jfa.slot %out_buf[%c0] : !jfa.smem<1 x 128x64xf32>, i32
  %out2_buf = jfa.local_alloc : !jfa.smem<1 x 128x64xf32>
  %out2 = jfa.slot %out2_buf[%c0] : !jfa.smem<1 x 128x64xf32>, i32
  %c64 = arith.constant 64 : i32
  %t = jfa.tmem_alloc : !jfa.tmem<128x256xf32>
  %w = jfa.tmem_load %t[%c64] : !jfa.tmem<128x256xf32> -> tensor<128x64xf32, #jfa.tmem_row>
  jfa.local_store %w, %out : tensor<128x64xf32, #jfa.tmem_row> -> !jfa.slot<128x64xf32>
  %hi = jfa.tmem_slice %t columns(64) : !jfa.tmem<128x256xf32> -> !jfa.tmem<128x64xf32>
  %w2 = jfa.tmem_load %hi[%c0] : !jfa.tmem<128x64xf32> -> tensor<128x64xf32, #jfa.tmem_row>
  jfa.local_store %w2, %out2 : tensor<128x64xf32, #jfa.tmem_row> -> !jfa.slot<128x64xf32>
}
