// RUN: jfa-opt %s | FileCheck %s
// RUN: jfa-opt %s | jfa-opt | FileCheck %s

// CHECK-LABEL: jfa.kernel @tc
jfa.kernel @tc() warps(4) {
  %a = jfa.local_alloc : !jfa.smem<1 x 128x64xbf16, swizzle 128>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  // CHECK: %[[ACC:.*]] = jfa.tmem_alloc : !jfa.tmem<128x128xf32>
  %acc = jfa.tmem_alloc : !jfa.tmem<128x128xf32>
  %c0 = arith.constant 0 : i32
  %true = arith.constant true
  %sa = jfa.slot %a[%c0] : !jfa.smem<1 x 128x64xbf16, swizzle 128>, i32
  %bar = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  // CHECK: jfa.tc_dot %{{.*}}, %{{.*}}, %[[ACC]], %{{.*}} : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, !jfa.tmem<128x128xf32>
  jfa.tc_dot %sa, %sa, %acc, %true : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, !jfa.tmem<128x128xf32>
  // CHECK: jfa.tc_commit %{{.*}}
  jfa.tc_commit %bar
  // CHECK: jfa.tmem_load %[[ACC]][%{{.*}}] : !jfa.tmem<128x128xf32> -> tensor<128x32xf32, #jfa.tmem_row>
  %t = jfa.tmem_load %acc[%c0] : !jfa.tmem<128x128xf32> -> tensor<128x32xf32, #jfa.tmem_row>
  // CHECK: jfa.tmem_store %{{.*}}, %[[ACC]][%{{.*}}] : tensor<128x32xf32, #jfa.tmem_row> -> !jfa.tmem<128x128xf32>
  jfa.tmem_store %t, %acc[%c0] : tensor<128x32xf32, #jfa.tmem_row> -> !jfa.tmem<128x128xf32>
  // CHECK: jfa.tmem_dealloc %[[ACC]] : !jfa.tmem<128x128xf32>
  jfa.tmem_dealloc %acc : !jfa.tmem<128x128xf32>
}
