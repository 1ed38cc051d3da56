// A relative import not beside the importing file is looked for in the
// search paths: jfa-opt's -I (as jfac's and jfa-interp's), or the pass's
// include-dirs; the first folder that has it wins.
// RUN: jfa-opt %s -I %S/Inputs/imports/sub -I %S/Inputs/imports/searched --jfa-resolve-imports | FileCheck %s
// RUN: jfa-opt %s --jfa-resolve-imports=include-dirs=%S/Inputs/imports/searched | FileCheck %s
// RUN: jfa-opt %s -I%S/Inputs/imports/searched --jfa-lower-to-llvm | FileCheck %s --check-prefix=LOWER
// RUN: jfa-opt %s --jfa-lower-to-llvm=include-dirs=%S/Inputs/imports/searched | FileCheck %s --check-prefix=LOWER
// RUN: not jfa-opt %s --jfa-resolve-imports 2>&1 | FileCheck %s --check-prefix=MISSING

jfa.import "only_here.mlir"

jfa.kernel @k(%n: i32) warps(1) {
  %x = jfa.call @negate(%n) : (i32) -> i32
}

// CHECK: jfa.func @negate
// CHECK: jfa.kernel @k
// LOWER: llvm.func @k(
// MISSING: resolve-imports-search.mlir:10:1: error: cannot find the imported file "only_here.mlir"; looked for it as '{{.*}}Transforms/only_here.mlir' (a relative path is looked for beside the importing file, then in each -I folder)
