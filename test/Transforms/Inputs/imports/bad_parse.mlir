jfa.func @broken(%x: i32) -> i32 {
  %y = arith.addi %x, %undefined : i32
  jfa.return %y : i32
}
