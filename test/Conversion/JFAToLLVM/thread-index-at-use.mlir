// RUN: jfa-opt %s --jfa-convert-to-llvm | FileCheck %s --check-prefix=HOISTED
// RUN: jfa-opt %s --jfa-convert-to-llvm="thread-index-at-use=true" | FileCheck %s --check-prefix=AT-USE

// By default jfa.thread_id is NVVM's pure read of %tid.x, which LLVM may
// hoist out of a loop with the index arithmetic that depends on it. With
// thread-index-at-use (jfac --thread-index=at-use) every read is a PTX mov
// with side effects: it stays in the loop, one read per use.

// HOISTED-LABEL: llvm.func @in_loop
// HOISTED: nvvm.read.ptx.sreg.tid.x : i32
// HOISTED-NOT: llvm.inline_asm
// AT-USE-LABEL: llvm.func @in_loop
// AT-USE-NOT: nvvm.read.ptx.sreg.tid.x
// AT-USE: scf.for
// AT-USE: llvm.inline_asm has_side_effects "mov.u32 $0, %tid.x;", "=r"{{ +}}: () -> i32
// AT-USE: llvm.inline_asm has_side_effects "mov.u32 $0, %tid.x;", "=r"{{ +}}: () -> i32
// AT-USE-NOT: nvvm.read.ptx.sreg.tid.x
jfa.kernel @in_loop(%p: !jfa.ptr<i32>, %n: i32) warps(4) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    %t = jfa.thread_id
    %u = jfa.thread_id
    %s = arith.addi %t, %u : i32
    jfa.store %s, %p[%i] : i32, !jfa.ptr<i32>
  }
}
