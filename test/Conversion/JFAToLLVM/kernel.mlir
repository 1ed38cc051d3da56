// RUN: jfa-opt %s --split-input-file --jfa-convert-to-llvm | FileCheck %s
// KernelToLLVM.cpp: a jfa.kernel becomes an llvm.func with nvvm.kernel,
// nvvm.reqntid = 32 * warps, nvvm.maxnreg (and minctasm 1) from
// jfa.entry_registers, nvvm.cluster_dim from cluster(...), and TMA
// descriptors as 64-byte aligned 128-byte byval __grid_constant__ params;
// program_id / num_programs / thread_id read ctaid / nctaid / tid.

// CHECK-LABEL: llvm.func @params(
// CHECK-SAME: %arg0: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant},
// CHECK-SAME: %arg1: !llvm.ptr<1>, %arg2: i32, %arg3: f32,
// CHECK-SAME: %arg4: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant})
// CHECK-SAME: attributes {nvvm.cluster_dim = array<i32: 2, 1, 1>, nvvm.kernel, nvvm.maxnreg = 168 : i32, nvvm.minctasm = 1 : i32, nvvm.reqntid = array<i32: 384, 1, 1>}
// CHECK: nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK-NEXT: nvvm.read.ptx.sreg.ctaid.y : i32
// CHECK-NEXT: nvvm.read.ptx.sreg.ctaid.z : i32
// CHECK-NEXT: nvvm.read.ptx.sreg.nctaid.x : i32
// CHECK-NEXT: nvvm.read.ptx.sreg.nctaid.y : i32
// CHECK-NEXT: nvvm.read.ptx.sreg.nctaid.z : i32
// CHECK-NEXT: nvvm.read.ptx.sreg.tid.x : i32
// A cluster kernel ends with a cluster barrier (test/Conversion/JFAToLLVM/cluster.mlir).
// CHECK-NEXT: nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
// CHECK-NEXT: llvm.return
// CHECK-NOT: jfa.kernel
jfa.kernel @params(%d: !jfa.tma<64x32xbf16>, %p: !jfa.ptr<f32>, %n: i32, %s: f32, %e: !jfa.tma<64x64xf32>) warps(12) cluster(2, 1, 1) attributes {jfa.entry_registers = 168 : i32} {
  %x = jfa.program_id x
  %y = jfa.program_id y
  %z = jfa.program_id z
  %nx = jfa.num_programs x
  %ny = jfa.num_programs y
  %nz = jfa.num_programs z
  %t = jfa.thread_id
}

// -----

// No entry registers, no cluster, no TMA: only nvvm.kernel and reqntid, and
// no shared-memory window is declared.
// CHECK-NOT: @jfa_smem
// CHECK-LABEL: llvm.func @plain(%arg0: i64, %arg1: f64)
// CHECK-SAME: attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>}
// CHECK-NOT: nvvm.maxnreg
// CHECK-NEXT: llvm.return
jfa.kernel @plain(%n: i64, %x: f64) warps(4) {
}
