// Jagged attention backward, step 1 (both targets): the row term
//   delta[h, t] = sum_d o[t, h, d] * do[t, h, d]      (f32)
// that dS = P * (dP - delta) needs. o and do are bf16 [T, H*D] as in the
// forward's contract (kernels/jagged_attention/README.md); delta is f32
// [H, T] like the forward's lse. Rows are independent of sequences, so the
// grid is plain: ceil(T / 128) x H CTAs of 128 threads, one token row per
// thread; TMA zero-fills past T and store_rows clips there. The slots are
// 128-byte swizzled: a warp reading one column of 32 rows then hits 8
// different 16-byte bank groups instead of one (unswizzled: 14.7 M bank
// conflicts and 52% of DRAM bandwidth on eq4k; swizzled: 4.4 K and 81%,
// 108 -> 70 us; bench/NOTES.md run 44).
jfa.kernel @attention_bwd_delta(%o: !jfa.tma<128x64xbf16, swizzle 128>,
                                %do: !jfa.tma<128x64xbf16, swizzle 128>,
                                %delta: !jfa.ptr<f32>, %tokens: i32,
                                %head_dim: i32) warps(4) {
  %o_buf = jfa.local_alloc : !jfa.smem<2 x 128x64xbf16, swizzle 128>
  %do_buf = jfa.local_alloc : !jfa.smem<2 x 128x64xbf16, swizzle 128>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %tile = jfa.program_id x
  %head = jfa.program_id y
  %t0 = arith.muli %tile, %c128 : i32
  %col0 = arith.muli %head, %head_dim : i32
  %col1 = arith.addi %col0, %c64 : i32
  %loaded = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  %o0 = jfa.slot %o_buf[%c0] : !jfa.smem<2 x 128x64xbf16, swizzle 128>, i32
  %o1 = jfa.slot %o_buf[%c1] : !jfa.smem<2 x 128x64xbf16, swizzle 128>, i32
  %do0 = jfa.slot %do_buf[%c0] : !jfa.smem<2 x 128x64xbf16, swizzle 128>, i32
  %do1 = jfa.slot %do_buf[%c1] : !jfa.smem<2 x 128x64xbf16, swizzle 128>, i32
  %wide = arith.cmpi eq, %head_dim, %c128 : i32
  // Columns [h*D, h*D + D) of o and do: one 64-column chunk, or two.
  scf.if %wide {
    jfa.barrier_expect %loaded, bytes(65536)
    jfa.tma_load %o[%t0, %col0], %o0, %loaded : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
    jfa.tma_load %o[%t0, %col1], %o1, %loaded : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
    jfa.tma_load %do[%t0, %col0], %do0, %loaded : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
    jfa.tma_load %do[%t0, %col1], %do1, %loaded : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
  } else {
    jfa.barrier_expect %loaded, bytes(32768)
    jfa.tma_load %o[%t0, %col0], %o0, %loaded : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
    jfa.tma_load %do[%t0, %col0], %do0, %loaded : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
  }
  jfa.barrier_wait %loaded, %c0

  %o_lo = jfa.local_load %o0 : !jfa.slot<128x64xbf16, swizzle 128> -> tensor<128x64xbf16, #jfa.tmem_row>
  %do_lo = jfa.local_load %do0 : !jfa.slot<128x64xbf16, swizzle 128> -> tensor<128x64xbf16, #jfa.tmem_row>
  %o_lo32 = arith.extf %o_lo : tensor<128x64xbf16, #jfa.tmem_row> to tensor<128x64xf32, #jfa.tmem_row>
  %do_lo32 = arith.extf %do_lo : tensor<128x64xbf16, #jfa.tmem_row> to tensor<128x64xf32, #jfa.tmem_row>
  %prod_lo = arith.mulf %o_lo32, %do_lo32 : tensor<128x64xf32, #jfa.tmem_row>
  %sum_lo = jfa.reduce_rows sum %prod_lo : tensor<128x64xf32, #jfa.tmem_row> -> tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>
  %sum = scf.if %wide -> tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>> {
    %o_hi = jfa.local_load %o1 : !jfa.slot<128x64xbf16, swizzle 128> -> tensor<128x64xbf16, #jfa.tmem_row>
    %do_hi = jfa.local_load %do1 : !jfa.slot<128x64xbf16, swizzle 128> -> tensor<128x64xbf16, #jfa.tmem_row>
    %o_hi32 = arith.extf %o_hi : tensor<128x64xbf16, #jfa.tmem_row> to tensor<128x64xf32, #jfa.tmem_row>
    %do_hi32 = arith.extf %do_hi : tensor<128x64xbf16, #jfa.tmem_row> to tensor<128x64xf32, #jfa.tmem_row>
    %prod_hi = arith.mulf %o_hi32, %do_hi32 : tensor<128x64xf32, #jfa.tmem_row>
    %sum_hi = jfa.reduce_rows sum %prod_hi : tensor<128x64xf32, #jfa.tmem_row> -> tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>
    %both = arith.addf %sum_lo, %sum_hi : tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>
    scf.yield %both : tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>
  } else {
    scf.yield %sum_lo : tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>
  }
  // delta is [H, T]: row t of head h at h * T + t; rows past T are not written.
  %head_row0 = arith.muli %head, %tokens : i32
  %first = arith.addi %head_row0, %t0 : i32
  %left = arith.subi %tokens, %t0 : i32
  jfa.store_rows %sum, %delta[%first] rows(%left) : tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>, !jfa.ptr<f32>
}
