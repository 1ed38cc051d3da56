// Defines @twice, as lib_b.mlir does.
jfa.func @twice(%x: i32) -> i32 {
  %y = arith.muli %x, %x : i32
  jfa.return %y : i32
}
