// Imports a file that does not parse: test/jfac/imports.test.
jfa.import "../../../Transforms/Inputs/imports/bad_parse.mlir"

jfa.kernel @uses_bad(%n: i32) warps(1) {
  %x = jfa.call @broken(%n) : (i32) -> i32
}
