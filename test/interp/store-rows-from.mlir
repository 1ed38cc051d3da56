// jfa.store_tile and jfa.store_rows with rows(%count) from(%first) write
// rows [first, count) only: the rest of the poisoned outputs keeps its -1.
// A first row past the count writes nothing; a negative one is no bound.
// RUN: %python %S/Inputs/make_npy.py %t.t.npy f4 64x16 -1
// RUN: %python %S/Inputs/make_npy.py %t.r.npy f4 64 -1
// RUN: jfa-interp %s --arch sm_90a %t.t.npy %t.r.npy i32:5 i32:41
// RUN: %python -c "import numpy as n; t = n.load('%t.t.npy'); r = n.load('%t.r.npy'); w = n.full(64, -1.0); w[5:41] = 3; assert (t == w[:, None]).all(), t; assert (r == w).all(), r; print('from ok')" | FileCheck %s
// RUN: %python %S/Inputs/make_npy.py %t.t2.npy f4 64x16 -1
// RUN: %python %S/Inputs/make_npy.py %t.r2.npy f4 64 -1
// RUN: jfa-interp %s --arch sm_90a %t.t2.npy %t.r2.npy i32:50 i32:41
// RUN: %python -c "import numpy as n; assert (n.load('%t.t2.npy') == -1).all() and (n.load('%t.r2.npy') == -1).all(); print('empty ok')" | FileCheck %s --check-prefix=EMPTY
// RUN: %python %S/Inputs/make_npy.py %t.t3.npy f4 64x16 -1
// RUN: %python %S/Inputs/make_npy.py %t.r3.npy f4 64 -1
// RUN: jfa-interp %s --arch sm_90a %t.t3.npy %t.r3.npy i32:-7 i32:2
// RUN: %python -c "import numpy as n; t = n.load('%t.t3.npy'); r = n.load('%t.r3.npy'); assert (t[:2] == 3).all() and (t[2:] == -1).all(), t; assert (r[:2] == 3).all() and (r[2:] == -1).all(), r; print('negative ok')" | FileCheck %s --check-prefix=NEG
// CHECK: from ok
// EMPTY: empty ok
// NEG: negative ok

jfa.kernel @store_from(%tile: !jfa.ptr<f32>, %rows: !jfa.ptr<f32>,
                       %first: i32, %count: i32) warps(4) {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %t = arith.constant dense<3.0> : tensor<64x16xf32, #jfa.wgmma_acc>
  %r = arith.constant dense<3.0> : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  jfa.store_tile %t, %tile[%c0] stride(%c16) rows(%count) from(%first)
      : tensor<64x16xf32, #jfa.wgmma_acc>, !jfa.ptr<f32>
  jfa.store_rows %r, %rows[%c0] rows(%count) from(%first)
      : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>, !jfa.ptr<f32>
}
