// jfa-targets: sm_100a
// tcgen05 oracle (docs/TCGEN05_ORACLE.md): a 128x64 bf16 tile stored to tensor memory, two per
// column, and loaded back (A of tmem_a_dot_sm100).
jfa.kernel @oracle(%flag: i32) warps(4) {
  %c0 = arith.constant 0 : i32
  %in_buf = jfa.local_alloc : !jfa.smem<1 x 128x64xbf16>
  %in = jfa.slot %in_buf[%c0] : !jfa.smem<1 x 128x64xbf16>, i32
  %out_buf = jfa.local_alloc : !jfa.smem<1 x 128x64xbf16>
  %out = jfa.slot %out_buf[%c0] : !jfa.smem<1 x 128x64xbf16>, i32
  %t = jfa.tmem_alloc : !jfa.tmem<128x64xbf16>
  %v = jfa.local_load %in : !jfa.slot<128x64xbf16> -> tensor<128x64xbf16, #jfa.tmem_row>
  jfa.tmem_store %v, %t[%c0] : tensor<128x64xbf16, #jfa.tmem_row> -> !jfa.tmem<128x64xbf16>
  %w = jfa.tmem_load %t[%c0] : !jfa.tmem<128x64xbf16> -> tensor<128x64xbf16, #jfa.tmem_row>
  jfa.local_store %w, %out : tensor<128x64xbf16, #jfa.tmem_row> -> !jfa.slot<128x64xbf16>
}
