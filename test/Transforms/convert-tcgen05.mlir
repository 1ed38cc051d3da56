// RUN: jfa-opt %s --jfa-check-target=arch=sm_100a --jfa-allocate-shared-memory --jfa-distribute-tiles --jfa-lower-async-tasks --jfa-convert-to-llvm | FileCheck %s
// RUN: jfa-opt %s --jfa-check-target=arch=sm_100a --jfa-lower-to-llvm | FileCheck %s --check-prefix=FINAL
// tcgen05 lowering: allocation by warp 0, the MMA chain with its
// descriptors, commit, the 32x32b load, and deallocation at the end.
//
// Instruction descriptor: f32 D (1 << 4), bf16 A and B (1 << 7, 1 << 10),
// N = 128 (16 << 17), M = 128 (8 << 24) = 136316048.
// Shared-memory descriptors come from nvvm.tcgen05.mma_smem_desc: LBO 1,
// SBO 1024 B (64 in 16-byte units), relative LBO mode, 128-byte swizzle
// (mode 2); with the version bit its translation packs the fixed bits
// 4611756662049538048 (checked in test/jfac/tcgen05-descriptor.test).

// CHECK-LABEL: llvm.func @tc
// CHECK: scf.if
// CHECK-NEXT: nvvm.tcgen05.alloc %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32
// CHECK-NEXT: nvvm.tcgen05.relinquish_alloc_permit
// CHECK: nvvm.tcgen05.fence <before>
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: nvvm.tcgen05.fence <after>
// CHECK: %[[TADDR:.*]] = llvm.inttoptr %{{.*}} : i32 to !llvm.ptr<6>
// CHECK: llvm.mlir.constant(136316048 : i32)
// CHECK: %[[LBO:.*]] = llvm.mlir.constant(1 : i32)
// CHECK-NEXT: %[[SBO:.*]] = llvm.mlir.constant(64 : i32)
// CHECK-NEXT: %[[BASE:.*]] = llvm.mlir.constant(0 : i8)
// CHECK-NEXT: %[[REL:.*]] = llvm.mlir.constant(false)
// CHECK-NEXT: %[[SWIZZLE:.*]] = llvm.mlir.constant(2 : i8)
// CHECK-NEXT: nvvm.tcgen05.mma_smem_desc(%{{.*}}, %[[LBO]], %[[SBO]], %[[BASE]], %[[REL]], %[[SWIZZLE]])
// The first MMA takes the caller's accumulate flag, the rest accumulate.
// CHECK: nvvm.tcgen05.mma %[[TADDR]], %{{.*}}, %{{.*}}, %{{.*}}, %false {ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.tcgen05_mma_kind<f16>}
// CHECK-COUNT-3: nvvm.tcgen05.mma %[[TADDR]]
// CHECK: nvvm.tcgen05.commit %{{.*}} : !llvm.ptr<3>
// CHECK: nvvm.tcgen05.fence <after>
// CHECK-NEXT: nvvm.tcgen05.ld %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<64xi32>
// CHECK-NEXT: nvvm.tcgen05.wait <load>
// CHECK-NEXT: nvvm.tcgen05.fence <before>
// Row-per-thread stores into the swizzled slot, 16 bytes at a time.
// CHECK: llvm.xor
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<3>
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// CHECK: nvvm.tcgen05.dealloc %[[TADDR]], %{{.*}} : !llvm.ptr<6>, i32

// FINAL-NOT: scf.
// FINAL: nvvm.tcgen05.mma
// FINAL: nvvm.tcgen05.dealloc
jfa.kernel @tc() warps(4) {
  %a = jfa.local_alloc : !jfa.smem<1 x 128x64xbf16, swizzle 128>
  %c = jfa.local_alloc : !jfa.smem<1 x 128x64xbf16, swizzle 128>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %acc = jfa.tmem_alloc : !jfa.tmem<128x128xf32>
  %c0 = arith.constant 0 : i32
  %false = arith.constant false
  %sa = jfa.slot %a[%c0] : !jfa.smem<1 x 128x64xbf16, swizzle 128>, i32
  %sc = jfa.slot %c[%c0] : !jfa.smem<1 x 128x64xbf16, swizzle 128>, i32
  %bar = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  jfa.tc_dot %sa, %sa, %acc, %false : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, !jfa.tmem<128x128xf32>
  jfa.tc_commit %bar
  jfa.barrier_wait %bar, %c0
  %t = jfa.tmem_load %acc[%c0] : !jfa.tmem<128x128xf32> -> tensor<128x64xf32, #jfa.tmem_row>
  %h = arith.truncf %t : tensor<128x64xf32, #jfa.tmem_row> to tensor<128x64xbf16, #jfa.tmem_row>
  jfa.local_store %h, %sc : tensor<128x64xbf16, #jfa.tmem_row> -> !jfa.slot<128x64xbf16, swizzle 128>
}
