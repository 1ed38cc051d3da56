// jfa.load_cols: element (r, c) is in[offset + c] for c < count, 0 past
// it, in every row; the columns past the count are never read (the input
// holds only offset + count values, so a read past them is out of bounds).
// RUN: %python -c "import numpy as n; n.save('%t.in.npy', n.arange(1, 61, dtype=n.float32))"
// RUN: %python %S/Inputs/make_npy.py %t.t.npy f4 64x64 -1
// RUN: jfa-interp %s --arch sm_90a %t.in.npy %t.t.npy i32:13 i32:47
// RUN: %python -c "import numpy as n; t = n.load('%t.t.npy'); w = n.zeros(64, n.float32); w[:47] = n.arange(14, 61); assert (t == w[None, :]).all(), t; print('cols ok')" | FileCheck %s
// RUN: %python %S/Inputs/make_npy.py %t.t2.npy f4 64x64 -1
// RUN: not jfa-interp %s --arch sm_90a %t.in.npy %t.t2.npy i32:13 i32:48 2>&1 | FileCheck %s --check-prefix=PAST
// CHECK: cols ok
// PAST: load-cols.mlir:[[@LINE+7]]:8: error: jfa.load_cols reads element 60 of argument 0 (%in, {{.*}}), which has 60 elements

jfa.kernel @load_cols(%in: !jfa.ptr<f32>, %tile: !jfa.ptr<f32>,
                      %offset: i32, %count: i32) warps(4) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %n = arith.constant 64 : i32
  %t = jfa.load_cols %in[%offset] cols(%count)
      : !jfa.ptr<f32> -> tensor<64x64xf32, #jfa.wgmma_acc>
  jfa.store_tile %t, %tile[%c0] stride(%c64) rows(%n)
      : tensor<64x64xf32, #jfa.wgmma_acc>, !jfa.ptr<f32>
}
