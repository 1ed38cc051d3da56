jfa.func @twice(%x: i32) -> i32 {
  %y = arith.addi %x, %x : i32
  jfa.return %y : i32
}
