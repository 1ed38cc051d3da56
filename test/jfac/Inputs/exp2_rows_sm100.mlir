// jfa.exp2 on a tensor-memory-row tile (sm_100a's softmax layout): element
// (r, c) = a[r] + b[c], 1 of 4 8-column groups in software (columns 0-7 of
// 32: a thread's registers 0-7).
jfa.kernel @exp2_rows(%a: !jfa.ptr<f32>, %b: !jfa.ptr<f32>, %out: !jfa.ptr<f32>) warps(4) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %c128 = arith.constant 128 : i32
  %rows = jfa.load_rows %a[%c0] rows(%c128)
      : !jfa.ptr<f32> -> tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>
  %row_tile = jfa.broadcast_rows %rows
      : tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>> -> tensor<128x32xf32, #jfa.tmem_row>
  %cols = jfa.load_cols %b[%c0] cols(%c32)
      : !jfa.ptr<f32> -> tensor<128x32xf32, #jfa.tmem_row>
  %x = arith.addf %row_tile, %cols : tensor<128x32xf32, #jfa.tmem_row>
  %p = jfa.exp2 %x software(%c1 of 4) : tensor<128x32xf32, #jfa.tmem_row>
  jfa.store_tile %p, %out[%c0] stride(%c32) rows(%c128)
      : tensor<128x32xf32, #jfa.tmem_row>, !jfa.ptr<f32>
}
