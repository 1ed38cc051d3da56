// Helpers for test/Transforms/resolve-imports.mlir: imports of its own,
// relative to this file (lib_b.mlir is also imported by sub/lib_c.mlir:
// copied once).
jfa.import "lib_b.mlir"
jfa.import "sub/lib_c.mlir"

jfa.func @scale(%x: i32) -> i32 {
  %y = jfa.call @twice(%x) : (i32) -> i32
  %z = jfa.call @plus_one(%y) : (i32) -> i32
  jfa.return %z : i32
}
