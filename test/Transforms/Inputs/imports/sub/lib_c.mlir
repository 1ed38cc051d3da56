// Imports lib_b.mlir again (through another path): copied once.
jfa.import "../lib_b.mlir"

jfa.func @plus_one(%x: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %y = arith.addi %x, %c1 : i32
  jfa.return %y : i32
}
