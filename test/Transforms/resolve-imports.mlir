// RUN: jfa-opt %s --jfa-resolve-imports | FileCheck %s
// RUN: jfa-opt %s --jfa-resolve-imports --jfa-inline-helpers | FileCheck %s --check-prefix=INLINE
// RUN: jfa-opt %s --jfa-lower-to-llvm | FileCheck %s --check-prefix=LOWER

// lib_a.mlir imports lib_b.mlir and sub/lib_c.mlir, which imports
// ../lib_b.mlir again: each file's helpers are copied once, in the order
// the files finish (imports first), where the import was; the files are
// recorded on the module (the metadata's "imports").
jfa.import "Inputs/imports/lib_a.mlir"

jfa.kernel @k(%n: i32) warps(1) {
  %x = jfa.call @scale(%n) : (i32) -> i32
  %y = jfa.call @twice(%x) : (i32) -> i32
}

// CHECK: module attributes {jfa.imports = ["{{.*}}Inputs/imports/lib_b.mlir", "{{.*}}Inputs/imports/sub/lib_c.mlir", "{{.*}}Inputs/imports/lib_a.mlir"]}
// CHECK-NOT: jfa.import
// CHECK: jfa.func @twice
// CHECK: jfa.func @plus_one
// CHECK: jfa.func @scale
// CHECK-NOT: jfa.func
// CHECK: jfa.kernel @k

// The imported helpers are inlined like the module's own.
// INLINE-NOT: jfa.func
// INLINE-LABEL: jfa.kernel @k
// INLINE-NEXT: %[[A:.*]] = arith.addi %{{.*}}, %{{.*}} : i32
// INLINE-NEXT: %[[C1:.*]] = arith.constant 1 : i32
// INLINE-NEXT: %[[B:.*]] = arith.addi %[[A]], %[[C1]] : i32
// INLINE-NEXT: arith.addi %[[B]], %[[B]] : i32
// INLINE-NOT: jfa.call

// LOWER: llvm.func @k(
