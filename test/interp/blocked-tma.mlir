// TMA copies of a blocked slot (rows of 64 f32 with a 128-byte swizzle: two
// 32-column blocks) move one box per block, side by side in the tensor: a
// 64x64 tile at (row 8, column 32) of a 80x128 tensor loaded, then added to
// another tensor at (row 0, column 64); the rest of that tensor untouched.
// L2 prefetches of the load's two boxes first change nothing.
// RUN: %python -c "import numpy as n; n.save('%t.src.npy', n.arange(80*128, dtype=n.float32).reshape(80, 128))"
// RUN: %python -c "import numpy as n; n.save('%t.dst.npy', n.ones((64, 128), dtype=n.float32))"
// RUN: jfa-interp %s --arch sm_90a %t.src.npy %t.dst.npy
// RUN: %python -c "import numpy as n; s = n.load('%t.src.npy'); d = n.load('%t.dst.npy'); w = n.ones((64, 128), n.float32); w[:, 64:] += s[8:72, 32:96]; assert (d == w).all(), d; print('blocked copies ok')" | FileCheck %s
// CHECK: blocked copies ok
jfa.kernel @blocked_copy(%src: !jfa.tma<64x32xf32, swizzle 128>,
                         %dst: !jfa.tma<64x32xf32, swizzle 128>) warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x64xf32, swizzle 128>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x64xf32, swizzle 128>, i32
  %bar = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  jfa.tma_prefetch %src[%c8, %c32] : !jfa.tma<64x32xf32, swizzle 128>
  jfa.tma_prefetch %src[%c8, %c64] : !jfa.tma<64x32xf32, swizzle 128>
  // Both blocks' bytes complete on the barrier.
  jfa.barrier_expect %bar, bytes(16384)
  jfa.tma_load %src[%c8, %c32], %s, %bar : !jfa.tma<64x32xf32, swizzle 128>, !jfa.slot<64x64xf32, swizzle 128>
  jfa.barrier_wait %bar, %c0
  jfa.tma_store %s, %dst[%c0, %c64] add : !jfa.slot<64x64xf32, swizzle 128>, !jfa.tma<64x32xf32, swizzle 128>
  jfa.tma_store_wait pending(0)
}
