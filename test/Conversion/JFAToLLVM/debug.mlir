// RUN: jfa-opt %s --split-input-file --jfa-convert-to-llvm | FileCheck %s
// DebugToLLVM.cpp: jfa.barrier_try_wait is one mbarrier.try_wait probe of
// parity `phase` (an i32 phase) returning i1, with a 1 ms suspend hint;
// jfa.debug_trap is vprintf of a global format (or "" for lanes other than
// the lowest active one of the warp) and an i32 argument buffer, then trap.

// CHECK-DAG: llvm.mlir.global internal constant @jfa_debug_format_0("wait %d timed out at %d\0A\00") {addr_space = 0 : i32}
// CHECK-DAG: llvm.mlir.global internal constant @jfa_debug_format_1("no arguments\00") {addr_space = 0 : i32}
// CHECK-DAG: llvm.mlir.global internal constant @jfa_debug_empty("\00") {addr_space = 0 : i32}
// CHECK-DAG: llvm.func @vprintf(!llvm.ptr, !llvm.ptr) -> i32
// CHECK-LABEL: llvm.func @debug(%arg0: i32, %arg1: i32)
// CHECK: %[[B:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
// CHECK-NEXT: %[[HINT:.*]] = llvm.mlir.constant(1000000 : i32) : i32
// CHECK-NEXT: %[[READY:.*]] = nvvm.mbarrier.try_wait %[[B]], %arg0, %[[HINT]] : !llvm.ptr<3>, i32, i32 -> i1
// The ready flag is an ordinary i1 value.
// CHECK-NEXT: llvm.zext %[[READY]] : i1 to i32
// CHECK-NEXT: %[[F:.*]] = llvm.mlir.addressof @jfa_debug_format_0 : !llvm.ptr
// CHECK-NEXT: %[[FMT:.*]] = llvm.getelementptr %[[F]][0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<25 x i8>
// CHECK-NEXT: %[[E:.*]] = llvm.mlir.addressof @jfa_debug_empty : !llvm.ptr
// CHECK-NEXT: %[[EMPTY:.*]] = llvm.getelementptr %[[E]][0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<1 x i8>
// CHECK-NEXT: %[[MASK:.*]] = llvm.inline_asm has_side_effects "activemask.b32 $0;", "=r"  : () -> i32
// CHECK-NEXT: %[[LEAD:.*]] = "llvm.intr.cttz"(%[[MASK]]) <{is_zero_poison = true}> : (i32) -> i32
// CHECK-NEXT: %[[LANE:.*]] = nvvm.read.ptx.sreg.laneid : i32
// CHECK-NEXT: %[[ME:.*]] = llvm.icmp "eq" %[[LANE]], %[[LEAD]] : i32
// CHECK-NEXT: %[[CHOSEN:.*]] = llvm.select %[[ME]], %[[FMT]], %[[EMPTY]] : i1, !llvm.ptr
// CHECK-NEXT: llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT: %[[ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-NEXT: %[[BUF:.*]] = llvm.alloca %[[ONE]] x !llvm.struct<(i32, i32)> {alignment = 8 : i64} : (i64) -> !llvm.ptr
// CHECK-NEXT: %[[A0:.*]] = llvm.getelementptr %[[BUF]][0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(i32, i32)>
// CHECK-NEXT: llvm.store %arg0, %[[A0]] : i32, !llvm.ptr
// CHECK-NEXT: %[[A1:.*]] = llvm.getelementptr %[[BUF]][0, 1] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(i32, i32)>
// CHECK-NEXT: llvm.store %arg1, %[[A1]] : i32, !llvm.ptr
// CHECK-NEXT: llvm.call @vprintf(%[[CHOSEN]], %[[BUF]]) : (!llvm.ptr, !llvm.ptr) -> i32
// CHECK-NEXT: llvm.intr.trap
// A second report: its own format, the same empty string, a null buffer.
// CHECK-NEXT: %[[F1:.*]] = llvm.mlir.addressof @jfa_debug_format_1 : !llvm.ptr
// CHECK-NEXT: %[[FMT1:.*]] = llvm.getelementptr %[[F1]][0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<13 x i8>
// CHECK-NEXT: %[[EMPTY1:.*]] = llvm.mlir.addressof @jfa_debug_empty : !llvm.ptr
// CHECK: %[[CHOSEN1:.*]] = llvm.select %{{.*}}, %[[FMT1]], %[[EMPTY1]] : i1, !llvm.ptr
// CHECK-NEXT: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT: llvm.call @vprintf(%[[CHOSEN1]], %[[NULL]]) : (!llvm.ptr, !llvm.ptr) -> i32
// CHECK-NEXT: llvm.intr.trap
// CHECK-NEXT: llvm.return
jfa.kernel @debug(%i: i32, %j: i32) warps(4) {
  %bars = jfa.alloc_barriers arrive_count(1) {offset = 0 : i64} : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  %ready = jfa.barrier_try_wait %b, %i
  %r = llvm.zext %ready : i1 to i32
  jfa.debug_trap "wait %d timed out at %d\n" (%i, %j : i32, i32)
  jfa.debug_trap "no arguments"
}
