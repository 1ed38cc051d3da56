// RUN: jfa-opt %s --split-input-file --jfa-check-target=arch=sm_100a --jfa-allocate-shared-memory --jfa-distribute-tiles --jfa-lower-async-tasks --jfa-convert-to-llvm --verify-diagnostics | FileCheck %s
// A tensor-memory slice is an address offset; only the allocation is freed.

// CHECK-LABEL: llvm.func @slice
// CHECK: %[[BASE:.*]] = llvm.inttoptr %{{.*}} : i32 to !llvm.ptr<6>
// CHECK: %[[I:.*]] = llvm.ptrtoint %[[BASE]] : !llvm.ptr<6> to i32
// CHECK: llvm.add %[[I]], %{{.*}} : i32
// CHECK: nvvm.tcgen05.ld
// CHECK-COUNT-1: nvvm.tcgen05.dealloc
// CHECK-NOT: nvvm.tcgen05.dealloc
jfa.kernel @slice() warps(4) {
  %acc = jfa.tmem_alloc : !jfa.tmem<128x256xf32>
  %c0 = arith.constant 0 : i32
  %hi = jfa.tmem_slice %acc columns(128) : !jfa.tmem<128x256xf32> -> !jfa.tmem<128x128xf32>
  %t = jfa.tmem_load %hi[%c0] : !jfa.tmem<128x128xf32> -> tensor<128x32xf32, #jfa.tmem_row>
}

// -----

jfa.kernel @outside() warps(4) {
  %acc = jfa.tmem_alloc : !jfa.tmem<128x256xf32>
  // expected-error @+1 {{'jfa.tmem_slice' op columns [192, 320) are outside the 256 columns of '!jfa.tmem<128x256xf32>'}}
  %hi = jfa.tmem_slice %acc columns(192) : !jfa.tmem<128x256xf32> -> !jfa.tmem<128x128xf32>
}

// -----

jfa.kernel @odd() warps(4) {
  %p = jfa.tmem_alloc : !jfa.tmem<128x128xbf16>
  // expected-error @+1 {{'jfa.tmem_slice' op a 16-bit slice must start at an even column, got 65}}
  %q = jfa.tmem_slice %p columns(65) : !jfa.tmem<128x128xbf16> -> !jfa.tmem<128x32xbf16>
}
