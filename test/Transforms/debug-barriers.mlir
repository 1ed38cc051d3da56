// RUN: jfa-opt %s --jfa-debug-barriers | FileCheck %s
// RUN: jfa-opt %s --jfa-debug-barriers=timeout-ms=250 | FileCheck %s --check-prefix=SHORT
// RUN: jfa-opt %s --jfa-allocate-shared-memory --jfa-lower-async-tasks --jfa-debug-barriers --jfa-convert-to-llvm | FileCheck %s --check-prefix=LLVM

jfa.kernel @k(%n: i32) warps(4) {
  %bars = jfa.alloc_barriers arrive_count(128) : !jfa.mbarriers<2>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    %s = arith.remui %i, %c2 : i32
    %phase = arith.andi %i, %c1 : i32
    %b = jfa.barrier %bars[%s] : !jfa.mbarriers<2>, i32
    jfa.barrier_wait %b, %phase
    jfa.barrier_arrive %b
  }
}

// Each wait becomes a bounded spin of single probes that the lanes that
// entered it leave together, when a vote says all are done (the code after
// a wait may hold .aligned instructions; issue 24); the report names the
// kernel, the wait's location (14:5), the barrier array's allocation (6:11)
// and index, the phase, the CTA and the warp.
// CHECK-LABEL: jfa.kernel @k
// CHECK: %[[BARS:[0-9]+]] = jfa.alloc_barriers
// CHECK: %[[S:[0-9]+]] = arith.remui
// CHECK: %[[PHASE:[0-9]+]] = arith.andi
// CHECK: %[[B:[0-9]+]] = jfa.barrier %[[BARS]][%[[S]]]
// CHECK: %[[ENTERED:[0-9]+]] = llvm.inline_asm has_side_effects "activemask.b32 $0;", "=r"  : () -> i32
// CHECK: %[[START:[0-9]+]] = nvvm.read.ptx.sreg.globaltimer : i64
// CHECK: %[[BUDGET:[0-9a-z_]+]] = arith.constant 4000000000 : i64
// CHECK: %[[FALSE:.*]] = arith.constant false
// CHECK: scf.while (%[[D0:.*]] = %[[FALSE]]) : (i1) -> i1 {
// CHECK:   %[[ALL:[0-9]+]] = nvvm.vote.sync  all %[[ENTERED]], %[[D0]] -> i1
// CHECK:   %[[MORE:[0-9]+]] = arith.xori %[[ALL]], %true
// CHECK:   scf.condition(%[[MORE]]) %[[D0]] : i1
// CHECK: } do {
// CHECK: ^bb0(%[[D:.*]]: i1):
// CHECK:   %[[NEXT:[0-9]+]] = scf.if %[[D]] -> (i1) {
// CHECK:     scf.yield %[[D]] : i1
// CHECK:   } else {
// CHECK:     %[[READY:[0-9]+]] = jfa.barrier_try_wait %[[B]], %[[PHASE]]
// CHECK:     %[[NOW:[0-9]+]] = nvvm.read.ptx.sreg.globaltimer : i64
// CHECK:     %[[ELAPSED:[0-9]+]] = arith.subi %[[NOW]], %[[START]] : i64
// CHECK:     %[[LATE:[0-9]+]] = arith.cmpi ugt, %[[ELAPSED]], %[[BUDGET]] : i64
// CHECK:     %[[NOT:[0-9]+]] = arith.xori %[[READY]], %true
// CHECK:     %[[STUCK:[0-9]+]] = arith.andi %[[LATE]], %[[NOT]] : i1
// CHECK:     scf.if %[[STUCK]] {
// CHECK:       %[[TID:[0-9]+]] = jfa.thread_id
// CHECK:       %[[WARP:[0-9]+]] = arith.divui %[[TID]], %c32
// CHECK:       %[[X:[0-9]+]] = jfa.program_id x
// CHECK:       %[[Y:[0-9]+]] = jfa.program_id y
// CHECK:       %[[Z:[0-9]+]] = jfa.program_id z
// CHECK:       jfa.debug_trap "jfa: kernel k: barrier wait at {{.*}}debug-barriers.mlir:14:5 timed out after 4000 ms: barrier array allocated at {{.*}}debug-barriers.mlir:6:11, index %d, waiting for phase parity %d; block (%d, %d, %d), warp %d; trapping\0A"(%[[S]], %[[PHASE]], %[[X]], %[[Y]], %[[Z]], %[[WARP]] : i32, i32, i32, i32, i32, i32)
// CHECK:     }
// CHECK:     scf.yield %[[READY]] : i1
// CHECK:   }
// CHECK:   scf.yield %[[NEXT]] : i1
// CHECK: }
// CHECK-NEXT: nvvm.bar.warp.sync %[[ENTERED]] : i32
// CHECK-NEXT: jfa.barrier_arrive %[[B]]
// CHECK-NOT: jfa.barrier_wait

// SHORT: arith.constant 250000000 : i64
// SHORT: timed out after 250 ms

// The probe is one try_wait.parity; the report is a vprintf of a global
// format by the warp's lowest active lane, then trap.
// LLVM-DAG: llvm.mlir.global internal constant @jfa_debug_empty("\00")
// LLVM-DAG: llvm.mlir.global internal constant @jfa_debug_format_0("jfa: kernel k: barrier wait at
// LLVM-DAG: llvm.func @vprintf(!llvm.ptr, !llvm.ptr) -> i32
// LLVM: nvvm.mbarrier.try_wait %{{.*}}, %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32, i32 -> i1
// LLVM: llvm.inline_asm has_side_effects "activemask.b32 $0;", "=r"
// LLVM: llvm.intr.cttz
// LLVM: nvvm.read.ptx.sreg.laneid
// LLVM: llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, !llvm.ptr
// LLVM: llvm.alloca %{{.*}} x !llvm.struct<(i32, i32, i32, i32, i32, i32)>
// LLVM: llvm.call @vprintf(
// LLVM-NEXT: llvm.intr.trap
// LLVM-NOT: jfa.

// A wait that acquires at cluster scope probes at cluster scope.
// CHECK-LABEL: jfa.kernel @acquire_cluster
// CHECK: jfa.barrier_try_wait %{{.*}}, %{{.*}} acquire(cluster)
// CHECK-NOT: jfa.barrier_wait
// LLVM-LABEL: llvm.func @acquire_cluster
// LLVM: nvvm.mbarrier.try_wait %{{.*}}, %{{.*}}, %{{.*}} {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<3>, i32, i32 -> i1
jfa.kernel @acquire_cluster() warps(4) cluster(2, 1, 1) {
  %bars = jfa.alloc_barriers arrive_count(128) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  jfa.barrier_wait %b, %c0 acquire(cluster)
}
