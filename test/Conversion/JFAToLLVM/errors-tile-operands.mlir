// RUN: jfa-opt %s --split-input-file --jfa-convert-to-llvm --verify-diagnostics
// JFA ops on register tiles (tensor operands or results) reach the
// conversion only if jfa-distribute-tiles did not run: one clear error, before
// any pattern runs.

jfa.kernel @reduce_tile() warps(4) {
  %t = arith.constant dense<1.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  // expected-error @+1 {{'jfa.reduce_rows' op run jfa-distribute-tiles first}}
  %m = jfa.reduce_rows max %t : tensor<64x64xf32, #jfa.wgmma_acc> -> tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
}

// -----

jfa.kernel @broadcast_tile() warps(4) {
  %r = arith.constant dense<1.0> : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  // expected-error @+1 {{'jfa.broadcast_rows' op run jfa-distribute-tiles first}}
  %b = jfa.broadcast_rows %r : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>> -> tensor<64x64xf32, #jfa.wgmma_acc>
}

// -----

jfa.kernel @tmem_store_tile() warps(4) {
  %acc = jfa.tmem_alloc {offset = 0 : i64} : !jfa.tmem<128x64xf32>
  %c0 = arith.constant 0 : i32
  %v = arith.constant dense<0.0> : tensor<128x64xf32, #jfa.tmem_row>
  // expected-error @+1 {{'jfa.tmem_store' op run jfa-distribute-tiles first}}
  jfa.tmem_store %v, %acc[%c0] : tensor<128x64xf32, #jfa.tmem_row> -> !jfa.tmem<128x64xf32>
}
