// jfa.row_block views in one CTA: a 128x64 bf16 tile loaded whole, the
// product of its lower block with its upper block (wgmma reads the two
// 64-row blocks: rows 64-127 as A, rows 0-63 as B), then a store of 7s
// into the upper block through the view, and the whole slot read back: the
// upper half 7s, the lower half the tile.
// RUN: %python -c "import numpy as n; r = n.random.default_rng(3); x = r.standard_normal((128, 64)).astype(n.float32); n.save('%t.x.npy', (x.view(n.uint32) >> 16).astype(n.uint16))"
// RUN: %python %S/Inputs/make_npy.py %t.dot.npy f4 64x64 -1
// RUN: %python %S/Inputs/make_npy.py %t.back.npy f4 128x64 -1
// RUN: jfa-interp %s --arch sm_90a %t.x.npy %t.dot.npy %t.back.npy
// RUN: %python -c "import numpy as n; w = n.load('%t.x.npy'); x = (w.astype(n.uint32) << 16).view(n.float32).astype(n.float64); d = n.load('%t.dot.npy'); b = n.load('%t.back.npy'); assert n.allclose(d, x[64:] @ x[:64].T, rtol=1e-5, atol=1e-4), d; assert (b[:64] == 7).all() and (b[64:] == x[64:]).all(), b; print('row blocks ok')" | FileCheck %s
// CHECK: row blocks ok
// (An index beyond the blocks: cluster-errors.mlir.)

jfa.kernel @row_blocks(%x: !jfa.tma<128x64xbf16, swizzle 128>,
                       %dot: !jfa.ptr<f32>, %back: !jfa.ptr<f32>) warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 128x64xbf16, swizzle 128>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 128x64xbf16, swizzle 128>, i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  jfa.barrier_expect %b, bytes(16384)
  jfa.tma_load %x[%c0, %c0], %s, %b : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
  jfa.barrier_wait %b, %c0
  %upper = jfa.row_block %s[%c0] : !jfa.slot<128x64xbf16, swizzle 128> -> !jfa.slot<64x64xbf16, swizzle 128>
  %lower = jfa.row_block %s[%c1] : !jfa.slot<128x64xbf16, swizzle 128> -> !jfa.slot<64x64xbf16, swizzle 128>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  %p = jfa.async_dot %lower, %upper, %zero : !jfa.slot<64x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128>, tensor<64x64xf32, #jfa.wgmma_acc>
  %d = jfa.async_dot_wait pending(0) (%p) : tensor<64x64xf32, #jfa.wgmma_acc>
  jfa.store_tile %d, %dot[%c0] stride(%c64) rows(%c64) : tensor<64x64xf32, #jfa.wgmma_acc>, !jfa.ptr<f32>
  %sevens = arith.constant dense<7.0> : tensor<64x64xbf16>
  jfa.local_store %sevens, %upper : tensor<64x64xbf16> -> !jfa.slot<64x64xbf16, swizzle 128>
  %all = jfa.local_load %s : !jfa.slot<128x64xbf16, swizzle 128> -> tensor<128x64xbf16>
  %all32 = arith.extf %all : tensor<128x64xbf16> to tensor<128x64xf32>
  jfa.store_tile %all32, %back[%c0] stride(%c64) rows(%c128) : tensor<128x64xf32>, !jfa.ptr<f32>
}
