// RUN: jfa-opt %s --jfa-allocate-shared-memory --jfa-distribute-tiles --jfa-lower-async-tasks --jfa-convert-to-llvm | FileCheck %s
// RUN: jfa-opt %s --jfa-lower-to-llvm | FileCheck %s --check-prefix=ASM

// CHECK: llvm.mlir.global external @jfa_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// TMA descriptors are 128-byte __grid_constant__ parameters.
// CHECK-LABEL: llvm.func @k(
// CHECK-SAME: %{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}
// CHECK-SAME: %{{.*}}: i32, %{{.*}}: f32)
// CHECK-SAME: nvvm.kernel
// CHECK-SAME: nvvm.maxnreg = 248 : i32
// CHECK-SAME: nvvm.minctasm = 1 : i32
// CHECK-SAME: nvvm.reqntid = array<i32: 256, 1, 1>
// Barriers: thread 0 initializes, then fence and CTA barrier.
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[LEAD:.*]] = llvm.icmp "eq" %[[TID]]
// CHECK: nvvm.mbarrier.init %{{.*}}, %{{.*}}, predicate = %[[LEAD]] : !llvm.ptr<3>, i32, i1
// CHECK: nvvm.fence.mbarrier.init
// CHECK: nvvm.barrier0
// CHECK: nvvm.setmaxregister  decrease 232
// CHECK: nvvm.mbarrier.try_wait %{{.*}}, %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32, i32 -> i1
// Fragments move as 16-byte vectors.
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK: arith.mulf %{{.*}}, %{{.*}} : vector<32xf32>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// JFA coordinates are outermost first, TMA's innermost first.
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %{{.*}}, %{{.*}}, box[%[[COL:.*]], %[[ROW:.*]]]
// CHECK: nvvm.cp.async.bulk.commit.group
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK: nvvm.setmaxregister  decrease 40
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32 -> i64
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}] {isCTAOnly = true} : !llvm.ptr<3>, !llvm.ptr
// CHECK-NOT: jfa.

// After the whole pipeline, the inline-PTX NVVM op (predicated init) is
// llvm.inline_asm; the rest stay NVVM intrinsics: a wait's probe too, in a
// loop of plain branches (no inline `bra.uni`).
// ASM-NOT: arith.
// ASM: llvm.inline_asm{{.*}}@$2 mbarrier.init.shared.b64 [$0], $1;
// ASM-NOT: llvm.inline_asm{{.*}}try_wait
// ASM: nvvm.mbarrier.try_wait %{{.*}}, %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32, i32 -> i1
// ASM-NEXT: llvm.xor
// ASM-NEXT: llvm.cond_br
// ASM: llvm.fmul %{{.*}}, %{{.*}} : vector<32xf32>
// ASM: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// ASM-NOT: scf.
// ASM-NOT: jfa.
jfa.kernel @k(%y: !jfa.tma<64x64xf32>, %n: i32, %alpha: f32) warps(8) {
  %ring = jfa.local_alloc : !jfa.smem<2 x 64x64xf32>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  jfa.async_tasks {
    jfa.task default registers(232) {
      // Waits for the producer's load (jfa-lower-to-llvm checks barriers).
      %b = jfa.barrier %bars[%c1] : !jfa.mbarriers<2>, i32
      jfa.barrier_wait %b, %c0
      %s = jfa.slot %ring[%c0] : !jfa.smem<2 x 64x64xf32>, i32
      %x = jfa.local_load %s : !jfa.slot<64x64xf32> -> tensor<64x64xf32>
      %a = tensor.splat %alpha : tensor<64x64xf32>
      %m = arith.mulf %x, %a : tensor<64x64xf32>
      jfa.local_store %m, %s : tensor<64x64xf32> -> !jfa.slot<64x64xf32>
      jfa.fence_async_shared
      jfa.task_barrier
      jfa.tma_store %s, %y[%n, %c1] : !jfa.slot<64x64xf32>, !jfa.tma<64x64xf32>
    }
    jfa.task warps(4) registers(40) {
      %b = jfa.barrier %bars[%c1] : !jfa.mbarriers<2>, i32
      %s = jfa.slot %ring[%c1] : !jfa.smem<2 x 64x64xf32>, i32
      jfa.barrier_expect %b, bytes(16384)
      jfa.tma_load %y[%c0, %n], %s, %b : !jfa.tma<64x64xf32>, !jfa.slot<64x64xf32>
    }
  }
}
