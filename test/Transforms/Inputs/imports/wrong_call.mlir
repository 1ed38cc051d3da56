// Calls @twice (lib_b.mlir) with the wrong types: the verifier reports it
// once the helpers are in.
jfa.import "lib_b.mlir"
jfa.func @bad(%x: i64) -> i64 {
  %y = jfa.call @twice(%x) : (i64) -> i64
  jfa.return %y : i64
}
