// Imports a helper found only through -I: test/jfac/imports.test.
jfa.import "only_here.mlir"

jfa.kernel @uses_search(%n: i32) warps(1) {
  %x = jfa.call @negate(%n) : (i32) -> i32
}
