// Every import error is located at the jfa.import (file:line:col), exit
// status 1, with notes for what it is about.
// RUN: not jfa-opt %s --split-input-file --jfa-resolve-imports 2>&1 | FileCheck %s

// A file that is nowhere: every place looked in is named.
jfa.import "Inputs/imports/missing.mlir"
// CHECK: resolve-imports-invalid.mlir:[[@LINE-1]]:1: error: cannot find the imported file "Inputs/imports/missing.mlir"; looked for it as '{{.*}}/Transforms/Inputs/imports/missing.mlir' (a relative path

// -----

jfa.import "/nonexistent/abs.mlir"
// CHECK: resolve-imports-invalid.mlir:[[@LINE-1]]:1: error: cannot find the imported file "/nonexistent/abs.mlir"; looked for it as '/nonexistent/abs.mlir'{{$}}

// -----

// A directory.
jfa.import "Inputs/imports/sub"
// CHECK: resolve-imports-invalid.mlir:[[@LINE-1]]:1: error: cannot import '{{.*}}Inputs/imports/sub': it is a directory, not a file

// -----

// A parse error in the imported file: at the import, with the parser's
// message at its line there.
jfa.import "Inputs/imports/bad_parse.mlir"
// CHECK: resolve-imports-invalid.mlir:[[@LINE-1]]:1: error: cannot import '{{.*}}Inputs/imports/bad_parse.mlir': it does not parse
// CHECK: bad_parse.mlir:2:23: note: use of undeclared SSA value name

// -----

// A cycle: the chain is named.
jfa.import "Inputs/imports/cycle_a.mlir"
// CHECK: cycle_b.mlir:1:1: error: import cycle: "{{.*}}Inputs/imports/cycle_a.mlir" imports "{{.*}}Inputs/imports/cycle_b.mlir" imports "{{.*}}Inputs/imports/cycle_a.mlir" again
// CHECK: cycle_a.mlir:1:1: note: "{{.*}}Inputs/imports/cycle_b.mlir" is imported here
// CHECK: resolve-imports-invalid.mlir:[[@LINE-3]]:1: note: "{{.*}}Inputs/imports/cycle_a.mlir" is imported here

// -----

// A file importing itself.
jfa.import "resolve-imports-invalid.mlir"
// CHECK: resolve-imports-invalid.mlir:[[@LINE-1]]:1: error: import cycle: "{{.*}}resolve-imports-invalid.mlir" imports "{{.*}}resolve-imports-invalid.mlir" again

// -----

// A helper the module defines and an imported file defines too: both places.
jfa.import "Inputs/imports/lib_b.mlir"
jfa.func @twice(%x: i32) -> i32 {
  jfa.return %x : i32
}
// CHECK: resolve-imports-invalid.mlir:[[@LINE-4]]:1: error: @twice is defined twice: '{{.*}}Inputs/imports/lib_b.mlir' defines a helper of that name and so does the module or another imported file
// CHECK: resolve-imports-invalid.mlir:[[@LINE-4]]:1: note: @twice is defined here
// CHECK: lib_b.mlir:1:1: note: and again here, in '{{.*}}Inputs/imports/lib_b.mlir'

// -----

// Two imported files defining one name.
jfa.import "Inputs/imports/lib_b.mlir"
jfa.import "Inputs/imports/dup_twice.mlir"
// CHECK: resolve-imports-invalid.mlir:[[@LINE-1]]:1: error: @twice is defined twice
// CHECK: lib_b.mlir:1:1: note: @twice is defined here
// CHECK: dup_twice.mlir:2:1: note: and again here

// -----

// A kernel in an imported file.
jfa.import "Inputs/imports/has_kernel.mlir"
// CHECK: resolve-imports-invalid.mlir:[[@LINE-1]]:1: error: cannot import '{{.*}}Inputs/imports/has_kernel.mlir': an imported file holds only helpers (jfa.func) and imports (jfa.import), and it has a 'jfa.kernel' (a kernel is compiled from its own file)
// CHECK: has_kernel.mlir:4:1: note: the 'jfa.kernel' is here

// -----

// Anything else.
jfa.import "Inputs/imports/has_module.mlir"
// CHECK: resolve-imports-invalid.mlir:[[@LINE-1]]:1: error: cannot import '{{.*}}Inputs/imports/has_module.mlir': an imported file holds only helpers (jfa.func) and imports (jfa.import), and it has a 'builtin.module'
// CHECK: has_module.mlir:4:1: note: the 'builtin.module' is here

// -----

// An error in an imported file's own import: at that import, with the
// chain of imports that led to it.
jfa.import "Inputs/imports/nested_missing.mlir"
// CHECK: nested_missing.mlir:1:1: error: cannot find the imported file "nowhere.mlir"; looked for it as '{{.*}}Inputs/imports/nowhere.mlir'
// CHECK: resolve-imports-invalid.mlir:[[@LINE-2]]:1: note: "{{.*}}Inputs/imports/nested_missing.mlir" is imported here

// -----

// A call whose types do not match the imported helper: the verifier, once
// the helpers are in.
jfa.import "Inputs/imports/wrong_call.mlir"
// CHECK: wrong_call.mlir:5:8: error: 'jfa.call' op has type '(i64) -> i64' but @twice is '(i32) -> i32'

// -----

// A generated file (procfs reports 0 bytes for it) is read to its end, not
// taken for an empty file that defines nothing: here its text does not parse.
jfa.import "/proc/self/status"
// CHECK: resolve-imports-invalid.mlir:[[@LINE-1]]:1: error: cannot import '/proc/self/status': it does not parse
// CHECK: status:1:1: note:
