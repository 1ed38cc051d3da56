// RUN: jfa-opt %s --jfa-check-target=arch=sm_100a | FileCheck %s
// RUN: jfa-opt %s --jfa-check-target=arch=sm_90a --verify-diagnostics
// RUN: not jfa-opt %s --jfa-lower-to-llvm=arch=sm_90a 2>&1 | FileCheck %s --check-prefix=PIPE
// RUN: not jfa-opt %s --jfa-lower-to-llvm=arch=sm_80 2>&1 | FileCheck %s --check-prefix=PIPEARCH
// Tensor memory and tcgen05 exist on sm_100a only; each use is reported,
// also by the whole pipeline when given the target.
// PIPE: error: 'jfa.tmem_alloc' op uses tensor memory (tcgen05), which sm_90a does not have
// PIPEARCH: unknown arch 'sm_80'; known targets: sm_90a, sm_100a

// CHECK: jfa.tmem_alloc
jfa.kernel @tmem() warps(4) {
  %a = jfa.local_alloc : !jfa.smem<1 x 128x64xbf16, swizzle 128>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  // expected-error @+1 {{'jfa.tmem_alloc' op uses tensor memory (tcgen05), which sm_90a does not have (sm_100a only); on sm_90a use jfa.async_dot (wgmma)}}
  %acc = jfa.tmem_alloc : !jfa.tmem<128x128xf32>
  %c0 = arith.constant 0 : i32
  %true = arith.constant true
  %sa = jfa.slot %a[%c0] : !jfa.smem<1 x 128x64xbf16, swizzle 128>, i32
  %bar = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  // expected-error @+1 {{'jfa.tc_dot' op uses tensor memory (tcgen05), which sm_90a does not have}}
  jfa.tc_dot %sa, %sa, %acc, %true : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, !jfa.tmem<128x128xf32>
  // expected-error @+1 {{'jfa.tc_commit' op uses tensor memory (tcgen05), which sm_90a does not have}}
  jfa.tc_commit %bar
  // expected-error @+1 {{'jfa.tmem_load' op uses tensor memory (tcgen05), which sm_90a does not have}}
  %t = jfa.tmem_load %acc[%c0] : !jfa.tmem<128x128xf32> -> tensor<128x32xf32, #jfa.tmem_row>
  // expected-error @+1 {{'jfa.tmem_store' op uses tensor memory (tcgen05), which sm_90a does not have}}
  jfa.tmem_store %t, %acc[%c0] : tensor<128x32xf32, #jfa.tmem_row> -> !jfa.tmem<128x128xf32>
}
