// jfa.exp2 on the GPU against jfa-interp (test/gpu/exp2_test.py): element
// (r, c) of a 64x128 tile is a[r] + b[c]; the exponentials of the 8-column
// groups g with g mod 16 < share are computed in software.
jfa.kernel @exp2_columns(%a: !jfa.ptr<f32>, %b: !jfa.ptr<f32>,
                         %out: !jfa.ptr<f32>) warps(4) {
  %share = jfa.param "share" = 5 : i32
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %rows = jfa.load_rows %a[%c0] rows(%c64)
      : !jfa.ptr<f32> -> tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %row_tile = jfa.broadcast_rows %rows
      : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>> -> tensor<64x128xf32, #jfa.wgmma_acc>
  %cols = jfa.load_cols %b[%c0] cols(%c128)
      : !jfa.ptr<f32> -> tensor<64x128xf32, #jfa.wgmma_acc>
  %x = arith.addf %row_tile, %cols : tensor<64x128xf32, #jfa.wgmma_acc>
  %p = jfa.exp2 %x software(%share of 16) : tensor<64x128xf32, #jfa.wgmma_acc>
  jfa.store_tile %p, %out[%c0] stride(%c128) rows(%c64)
      : tensor<64x128xf32, #jfa.wgmma_acc>, !jfa.ptr<f32>
}
