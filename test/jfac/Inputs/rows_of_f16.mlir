jfa.kernel @k() warps(4) {
  %x = arith.constant dense<0.0> : tensor<128xf32, #jfa.rows_of<f16>>
}
