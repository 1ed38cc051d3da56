// jfa-targets: sm_100a
// tcgen05 oracle (docs/TCGEN05_ORACLE.md): a 128x64 f32 tile whose element (r, c) is c, stored to
// tensor memory: which column (and for bf16 which half of a register) each
// tcgen05.st register carries.
jfa.kernel @oracle(%flag: i32) warps(4) {
  %c0 = arith.constant 0 : i32
  %t = jfa.tmem_alloc : !jfa.tmem<128x64xf32>
  %j = jfa.iota cols : tensor<128x64xi32, #jfa.tmem_row>
  %f = arith.sitofp %j : tensor<128x64xi32, #jfa.tmem_row> to tensor<128x64xf32, #jfa.tmem_row>
  jfa.tmem_store %f, %t[%c0] : tensor<128x64xf32, #jfa.tmem_row> -> !jfa.tmem<128x64xf32>
}
