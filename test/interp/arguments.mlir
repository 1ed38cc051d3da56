// Arguments are checked before the run; each error names the argument.
// RUN: not jfa-interp %s --arch sm_90a i32:1 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: not jfa-interp %s --arch sm_90a %t.missing.npy i32:1 f32:2 2>&1 | FileCheck %s --check-prefix=FILE
// RUN: %python %S/Inputs/make_npy.py %t.f32.npy f4 64x64
// RUN: not jfa-interp %s --arch sm_90a %t.f32.npy i32:1 f32:2 2>&1 | FileCheck %s --check-prefix=DTYPE
// RUN: %python %S/Inputs/make_npy.py %t.bf16.npy u2 64x64
// RUN: not jfa-interp %s --arch sm_90a %t.bf16.npy f32:1 f32:2 2>&1 | FileCheck %s --check-prefix=SCALAR
// RUN: not jfa-interp %s --arch sm_90a %t.bf16.npy i32:x f32:2 2>&1 | FileCheck %s --check-prefix=NUMBER
// RUN: %python %S/Inputs/make_npy.py %t.narrow.npy u2 64x60
// RUN: not jfa-interp %s --arch sm_90a %t.narrow.npy i32:1 f32:2 2>&1 | FileCheck %s --check-prefix=STRIDE
// RUN: not jfa-interp %s --arch sm_80 %t.bf16.npy i32:1 f32:2 2>&1 | FileCheck %s --check-prefix=ARCH
// RUN: not jfa-interp %s --arch sm_90a --grid 2,0 %t.bf16.npy i32:1 f32:2 2>&1 | FileCheck %s --check-prefix=GRID
// RUN: jfa-interp %s --arch sm_90a --grid 2,1,1 %t.bf16.npy i32:1 f32:2

// COUNT: error: jfa-interp: @args takes 3 arguments; 1 were given
// FILE: error: argument 0 (%a: !jfa.tma<64x64xbf16, swizzle 128>): '{{.*}}missing.npy': cannot read it: {{.*}}o such file or directory
// DTYPE: error: argument 0 (%a: !jfa.tma<64x64xbf16, swizzle 128>): '{{.*}}f32.npy' holds dtype '<f4'; this parameter needs <u2 (bf16 as raw 16-bit words)
// SCALAR: error: argument 1 (%n: i32): expected 'i32:VALUE', got 'f32:1'
// NUMBER: error: argument 1 (%n: i32): 'x' is not a decimal integer
// STRIDE: error: argument 0 (%a: !jfa.tma<64x64xbf16, swizzle 128>): TMA needs row strides that are multiples of 16 bytes; the rows of '{{.*}}narrow.npy' are 120 bytes
// ARCH: jfa-interp: error: unknown --arch 'sm_80'; known targets: sm_90a, sm_100a
// GRID: jfa-interp: error: --grid '2,0': each dimension must be a positive integer
jfa.kernel @args(%a: !jfa.tma<64x64xbf16, swizzle 128>, %n: i32, %x: f32) warps(4) {
}
