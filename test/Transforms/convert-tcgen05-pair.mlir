// RUN: jfa-opt %s --jfa-check-target=arch=sm_100a --jfa-allocate-shared-memory --jfa-distribute-tiles --jfa-lower-async-tasks --jfa-convert-to-llvm | FileCheck %s
// A kernel of CTA-pair products lowers every tcgen05 op to cta_group::2:
// the allocation and its permit, the products (M = 256, N = twice B's
// rows), the commits and the deallocation, which waits for the cluster.
// A pair's load completes on the barrier mapa finds in the named CTA.
//
// Instruction descriptor: f32 D (1 << 4), bf16 A and B (1 << 7, 1 << 10),
// N = 256 (32 << 17), M = 256 (16 << 24) = 272630928.

// CHECK-LABEL: llvm.func @pair
// CHECK: nvvm.tcgen05.alloc %{{.*}}, %{{.*}} {group = #nvvm.cta_group<cta_2>}
// CHECK-NEXT: nvvm.tcgen05.relinquish_alloc_permit {group = #nvvm.cta_group<cta_2>}
// CHECK: llvm.inline_asm has_side_effects {{.*}}"{\0A.reg .b32 %peer_bar;\0Amapa.shared::cluster.u32 %peer_bar, $2, $3;\0Acp.async.bulk.tensor.2d.cta_group::2.shared::cluster.global.mbarrier::complete_tx::bytes [$0], [$1, {$4, $5}], [%peer_bar];\0A}", "r,l,r,r,r,r,~{memory}"
// CHECK: llvm.mlir.constant(272630928 : i32)
// CHECK: nvvm.tcgen05.mma {{.*}} {ctaGroup = #nvvm.cta_group<cta_2>, kind = #nvvm.tcgen05_mma_kind<f16>}
// CHECK-COUNT-3: nvvm.tcgen05.mma {{.*}}cta_2
// CHECK: nvvm.tcgen05.commit %{{.*}}, multicast_mask = %{{.*}} {group = #nvvm.cta_group<cta_2>}
// CHECK: nvvm.cluster.arrive
// CHECK: nvvm.cluster.wait
// CHECK: nvvm.tcgen05.dealloc %{{.*}}, %{{.*}} {group = #nvvm.cta_group<cta_2>}
jfa.kernel @pair(%d: !jfa.tma<128x64xbf16, swizzle 128>) warps(4) cluster(2, 1, 1) {
  %ring = jfa.local_alloc : !jfa.smem<1 x 128x64xbf16, swizzle 128>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %acc = jfa.tmem_alloc : !jfa.tmem<128x256xf32>
  %c0 = arith.constant 0 : i32
  %true = arith.constant true
  %both = arith.constant 3 : i16
  %s = jfa.slot %ring[%c0] : !jfa.smem<1 x 128x64xbf16, swizzle 128>, i32
  %f = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  jfa.barrier_expect %f, bytes(32768)
  jfa.tma_load %d[%c0, %c0], %s, %f on cta %c0 : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
  jfa.barrier_wait %f, %c0
  jfa.tc_dot %s, %s, %acc, %true pair : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, !jfa.tmem<128x256xf32>
  jfa.tc_commit %f multicast(%both)
}
