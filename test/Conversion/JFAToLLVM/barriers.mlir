// RUN: jfa-opt %s --split-input-file --jfa-convert-to-llvm | FileCheck %s
// BarrierToLLVM.cpp: an mbarrier array is 8 bytes per barrier at its offset
// in @jfa_smem, initialized by thread 0 (predicated init), then the init
// fence and a CTA barrier; the ops map onto NVVM's mbarrier and bar ops.

// CHECK-LABEL: llvm.func @init
// CHECK: %[[W:.*]] = llvm.mlir.addressof @jfa_smem : !llvm.ptr<3>
// CHECK-NEXT: %[[BASE:.*]] = llvm.getelementptr %[[W]][64] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NEXT: %[[T:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[LEAD:.*]] = llvm.icmp "eq" %[[T]], %[[ZERO]] : i32
// CHECK-NEXT: %[[COUNT:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: %[[B0:.*]] = llvm.getelementptr %[[BASE]][0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i64
// CHECK-NEXT: nvvm.mbarrier.init %[[B0]], %[[COUNT]], predicate = %[[LEAD]] : !llvm.ptr<3>, i32, i1
// CHECK-NEXT: %[[B1:.*]] = llvm.getelementptr %[[BASE]][1] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i64
// CHECK-NEXT: nvvm.mbarrier.init %[[B1]], %[[COUNT]], predicate = %[[LEAD]] : !llvm.ptr<3>, i32, i1
// CHECK-NEXT: %[[B2:.*]] = llvm.getelementptr %[[BASE]][2] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i64
// CHECK-NEXT: nvvm.mbarrier.init %[[B2]], %[[COUNT]], predicate = %[[LEAD]] : !llvm.ptr<3>, i32, i1
// CHECK-NEXT: nvvm.fence.mbarrier.init
// CHECK-NEXT: nvvm.barrier0
// CHECK-NOT: nvvm.mbarrier.init
// CHECK: llvm.return
jfa.kernel @init() warps(4) {
  %bars = jfa.alloc_barriers arrive_count(2) {offset = 64 : i64} : !jfa.mbarriers<3>
}

// -----

// Element i of the array: an i64 GEP (8 bytes per barrier). expect_tx arms
// the byte count, wait is a loop of try_wait.parity probes with the given
// phase: plain control flow, no inline assembly whose `bra.uni` would tell
// ptxas the lanes agree (a split producer warp hung on it; run 64).
// CHECK-LABEL: llvm.func @ops
// CHECK: %[[BASE:.*]] = llvm.getelementptr %{{.*}}[128] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: nvvm.barrier0
// CHECK: %[[B:.*]] = llvm.getelementptr %[[BASE]][%arg0] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
// CHECK-NEXT: %[[BYTES:.*]] = llvm.mlir.constant(16384 : i32) : i32
// CHECK-NEXT: nvvm.mbarrier.arrive.expect_tx %[[B]], %[[BYTES]] : !llvm.ptr<3>, i32 -> i64
// CHECK-NEXT: nvvm.mbarrier.arrive %[[B]] : !llvm.ptr<3> -> i64
// CHECK-NEXT: scf.while : () -> () {
// CHECK-NEXT: %[[HINT:.*]] = llvm.mlir.constant(10000000 : i32) : i32
// CHECK-NEXT: %[[READY:.*]] = nvvm.mbarrier.try_wait %[[B]], %arg1, %[[HINT]] : !llvm.ptr<3>, i32, i32 -> i1
// CHECK-NEXT: %[[TRUE:.*]] = llvm.mlir.constant(true) : i1
// CHECK-NEXT: %[[AGAIN:.*]] = llvm.xor %[[READY]], %[[TRUE]] : i1
// CHECK-NEXT: scf.condition(%[[AGAIN]])
// CHECK-NEXT: } do {
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }
// CHECK-NOT: jfa.
// CHECK: llvm.return
jfa.kernel @ops(%i: i32, %phase: i32) warps(4) {
  %bars = jfa.alloc_barriers arrive_count(1) {offset = 128 : i64} : !jfa.mbarriers<4>
  %b = jfa.barrier %bars[%i] : !jfa.mbarriers<4>, i32
  jfa.barrier_expect %b, bytes(16384)
  jfa.barrier_arrive %b
  jfa.barrier_wait %b, %phase
}

// -----

// Named hardware barriers: bar.sync and bar.arrive with id and thread count.
// CHECK-LABEL: llvm.func @named
// CHECK-DAG: %[[N128:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-DAG: %[[ID3:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK: nvvm.barrier id = %[[ID3]] number_of_threads = %[[N128]]
// CHECK-DAG: %[[N256:.*]] = llvm.mlir.constant(256 : i32) : i32
// CHECK-DAG: %[[ID5:.*]] = llvm.mlir.constant(5 : i32) : i32
// CHECK: nvvm.barrier.arrive id = %[[ID5]] number_of_threads = %[[N256]]
// CHECK-NOT: @jfa_smem
// CHECK: llvm.return
jfa.kernel @named() warps(8) {
  jfa.named_barrier_sync id(3) threads(128)
  jfa.named_barrier_arrive id(5) threads(256)
}
