// --nan-check stops at the first op that makes a NaN or an infinity from
// finite operands, and names the op, the element and the operands there.
// RUN: not jfa-interp %s --kernel divide_by_zero --arch sm_90a --nan-check 2>&1 | FileCheck %s --check-prefix=DIV
// RUN: not jfa-interp %s --kernel log_of_zero --arch sm_90a --nan-check 2>&1 | FileCheck %s --check-prefix=LOG
// Without the flag both run clean (the values are computed as the GPU
// would); the softmax below, whose masked -inf are deliberate, runs clean
// with it.
// RUN: jfa-interp %s --kernel divide_by_zero --arch sm_90a
// RUN: jfa-interp %s --kernel log_of_zero --arch sm_90a
// RUN: jfa-interp %s --kernel masked_softmax --arch sm_90a --nan-check

jfa.kernel @divide_by_zero() warps(4) {
  %c5 = arith.constant dense<5> : tensor<64x64xi32, #jfa.wgmma_acc>
  %one = arith.constant dense<1.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  %col = jfa.iota cols : tensor<64x64xi32, #jfa.wgmma_acc>
  %d = arith.subi %col, %c5 : tensor<64x64xi32, #jfa.wgmma_acc>
  %df = arith.sitofp %d : tensor<64x64xi32, #jfa.wgmma_acc> to tensor<64x64xf32, #jfa.wgmma_acc>
  // DIV: nan-check.mlir:[[@LINE+1]]:8: error: nan-check: 'arith.divf' turns finite operands into inf at element [0, 5] (operands there: 1, 0)
  %q = arith.divf %one, %df : tensor<64x64xf32, #jfa.wgmma_acc>
  %r = arith.mulf %q, %q : tensor<64x64xf32, #jfa.wgmma_acc>
}

jfa.kernel @log_of_zero() warps(4) {
  %row = jfa.iota rows : tensor<64x64xi32, #jfa.wgmma_acc>
  %rf = arith.sitofp %row : tensor<64x64xi32, #jfa.wgmma_acc> to tensor<64x64xf32, #jfa.wgmma_acc>
  // Row 0 is log(0).
  // LOG: nan-check.mlir:[[@LINE+1]]:8: error: nan-check: 'math.log' turns finite operands into -inf at element [0, 0] (operands there: 0)
  %l = math.log %rf : tensor<64x64xf32, #jfa.wgmma_acc>
  // The -inf it made is not reported again here.
  %s = arith.addf %l, %l : tensor<64x64xf32, #jfa.wgmma_acc>
}

// Columns past 40 are masked with -inf before the row max and exp2, as the
// attention kernels do: every NaN-free -inf comes from an -inf operand.
jfa.kernel @masked_softmax() warps(4) {
  %c40 = arith.constant dense<40> : tensor<64x64xi32, #jfa.wgmma_acc>
  %ninf = arith.constant dense<0xFF800000> : tensor<64x64xf32, #jfa.wgmma_acc>
  %col = jfa.iota cols : tensor<64x64xi32, #jfa.wgmma_acc>
  %x = arith.sitofp %col : tensor<64x64xi32, #jfa.wgmma_acc> to tensor<64x64xf32, #jfa.wgmma_acc>
  %keep = arith.cmpi slt, %col, %c40 : tensor<64x64xi32, #jfa.wgmma_acc>
  %s = arith.select %keep, %x, %ninf : tensor<64x64xi1, #jfa.wgmma_acc>, tensor<64x64xf32, #jfa.wgmma_acc>
  %m = jfa.reduce_rows max %s : tensor<64x64xf32, #jfa.wgmma_acc> -> tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %m_t = jfa.broadcast_rows %m : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>> -> tensor<64x64xf32, #jfa.wgmma_acc>
  %d = arith.subf %s, %m_t : tensor<64x64xf32, #jfa.wgmma_acc>
  %e = math.exp2 %d : tensor<64x64xf32, #jfa.wgmma_acc>
  %l = jfa.reduce_rows sum %e : tensor<64x64xf32, #jfa.wgmma_acc> -> tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
}
