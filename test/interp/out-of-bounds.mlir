// Slot, barrier and tensor-memory indices and global addresses are checked
// as the kernel runs (they are run-time values the verifier cannot see).
// RUN: not jfa-interp %s --kernel slot --arch sm_100a i32:3 2>&1 | FileCheck %s --check-prefix=SLOT
// RUN: not jfa-interp %s --kernel barrier --arch sm_100a i32:-1 2>&1 | FileCheck %s --check-prefix=BAR
// RUN: not jfa-interp %s --kernel tmem --arch sm_100a i32:32 2>&1 | FileCheck %s --check-prefix=TMEM
// RUN: %python %S/Inputs/make_npy.py %t.out.npy f4 100
// RUN: not jfa-interp %s --kernel rows --arch sm_100a %t.out.npy i32:40 2>&1 | FileCheck %s --check-prefix=ROWS

jfa.kernel @slot(%i: i32) warps(4) {
  %ring = jfa.local_alloc : !jfa.smem<3 x 64x64xf32>
  // SLOT: out-of-bounds.mlir:[[@LINE+1]]:8: error: slot index 3 is out of bounds for 3 slots
  %s = jfa.slot %ring[%i] : !jfa.smem<3 x 64x64xf32>, i32
}

jfa.kernel @barrier(%i: i32) warps(4) {
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  // BAR: out-of-bounds.mlir:[[@LINE+1]]:8: error: barrier index -1 is out of bounds for 2 barriers
  %b = jfa.barrier %bars[%i] : !jfa.mbarriers<2>, i32
}

jfa.kernel @tmem(%col: i32) warps(4) {
  %acc = jfa.tmem_alloc : !jfa.tmem<128x64xf32>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32, #jfa.tmem_row>
  // TMEM: out-of-bounds.mlir:[[@LINE+1]]:3: error: accesses columns [32, 96) of a tensor-memory tile of 64 columns
  jfa.tmem_store %zero, %acc[%col] : tensor<128x64xf32, #jfa.tmem_row> -> !jfa.tmem<128x64xf32>
}

jfa.kernel @rows(%out: !jfa.ptr<f32>, %offset: i32) warps(4) {
  %c64 = arith.constant 64 : i32
  %v = arith.constant dense<1.0> : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  // ROWS: out-of-bounds.mlir:[[@LINE+1]]:3: error: jfa.store_rows writes element 100 of argument 0 (%out, {{.*}}.out.npy), which has 100 elements
  jfa.store_rows %v, %out[%offset] rows(%c64) : tensor<64xf32, #jfa.rows_of<#jfa.wgmma_acc>>, !jfa.ptr<f32>
}
