// jfa.load_cols from a slot: a row vector loaded from global memory and
// staged in a 1-d slot (jfa.local_store), then read as one value per
// column: element (r, c) is in[c] for c < count, 0 past it (load_rows
// stores zeros there). Columns past the slot's end are an error.
// RUN: %python -c "import numpy as n; n.save('%t.in.npy', n.arange(1, 65, dtype=n.float32))"
// RUN: %python %S/Inputs/make_npy.py %t.t.npy f4 64x64 -1
// RUN: jfa-interp %s --arch sm_90a %t.in.npy %t.t.npy i32:50 i32:0
// RUN: %python -c "import numpy as n; t = n.load('%t.t.npy'); w = n.zeros(64, n.float32); w[:50] = n.arange(1, 51); assert (t == w[None, :]).all(), t; print('slot ok')" | FileCheck %s
// RUN: %python %S/Inputs/make_npy.py %t.t2.npy f4 64x64 -1
// RUN: not jfa-interp %s --arch sm_90a %t.in.npy %t.t2.npy i32:50 i32:1 2>&1 | FileCheck %s --check-prefix=PAST
// CHECK: slot ok
// PAST: load-cols-slot.mlir:[[@LINE+11]]:8: error: jfa.load_cols reads elements [1, 65) of a slot of 64 elements

jfa.kernel @load_cols_slot(%in: !jfa.ptr<f32>, %tile: !jfa.ptr<f32>,
                           %count: i32, %first: i32) warps(4) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %buf = jfa.local_alloc : !jfa.smem<1 x 64xf32>
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64xf32>, i32
  %r = jfa.load_rows %in[%c0] rows(%count) : !jfa.ptr<f32> -> tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  jfa.local_store %r, %s : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>> -> !jfa.slot<64xf32>
  jfa.task_barrier
  %t = jfa.load_cols %s[%first] : !jfa.slot<64xf32> -> tensor<64x64xf32, #jfa.wgmma_acc>
  jfa.store_tile %t, %tile[%c0] stride(%c64) rows(%c64) : tensor<64x64xf32, #jfa.wgmma_acc>, !jfa.ptr<f32>
}
