// jfa.exp2 in jfa-interp: the software columns as the GPU computes them
// (clamp to [-127, 127], floor, a degree-3 polynomial, the exponent added),
// the others as exp2. Column c of the 64x64 tile is in[c]; software(1 of 2)
// puts the 8-column groups 0, 2, 4 and 6 in software.
// RUN: %python -c "import numpy as n; g = [float('-inf'), -300, -127, -125.75, -3.25, 0, 0.5, 126.99]; h = [200, 127, 64, 1, -1, -64, -100, -126]; n.save('%t.in.npy', n.array(g + g + h + h + g + g + g + g, n.float32))"
// RUN: %python %S/Inputs/make_npy.py %t.out.npy f4 64x64 -1
// RUN: jfa-interp %s --arch sm_90a %t.in.npy %t.out.npy
// RUN: %python %s.check.py %t.in.npy %t.out.npy | FileCheck %s
// CHECK: exp2 software columns ok
// CHECK: exp2 unit columns ok

jfa.kernel @exp2_software(%in: !jfa.ptr<f32>, %out: !jfa.ptr<f32>) warps(4) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %x = jfa.load_cols %in[%c0] cols(%c64)
      : !jfa.ptr<f32> -> tensor<64x64xf32, #jfa.wgmma_acc>
  %p = jfa.exp2 %x software(%c1 of 2) : tensor<64x64xf32, #jfa.wgmma_acc>
  jfa.store_tile %p, %out[%c0] stride(%c64) rows(%c64)
      : tensor<64x64xf32, #jfa.wgmma_acc>, !jfa.ptr<f32>
}
