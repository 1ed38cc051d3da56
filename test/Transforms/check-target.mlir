// RUN: jfa-opt %s --jfa-check-target=arch=sm_90a | FileCheck %s
// RUN: jfa-opt %s --jfa-check-target=arch=sm_100a --verify-diagnostics
// RUN: not jfa-opt %s --jfa-check-target=arch=sm_80 2>&1 | FileCheck %s --check-prefix=ARCH
// wgmma (register-accumulator async_dot) exists on sm_90a only.

// jfa-check-target records the target for the passes after it.
// CHECK: module attributes {jfa.target = "sm_90a"}
// CHECK: jfa.async_dot
// ARCH: error: jfa-check-target: unknown arch 'sm_80'; known targets: sm_90a, sm_100a
jfa.kernel @k() warps(4) {
  %a = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %c0 = arith.constant 0 : i32
  %sa = jfa.slot %a[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  %z = arith.constant dense<0.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  // expected-error @+1 {{'jfa.async_dot' op with a register accumulator is wgmma, which sm_100a does not have (sm_90a only); on sm_100a accumulate in tensor memory (jfa.tc_dot)}}
  %d = jfa.async_dot %sa, %sa, %z : !jfa.slot<64x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128>, tensor<64x64xf32, #jfa.wgmma_acc>
}
