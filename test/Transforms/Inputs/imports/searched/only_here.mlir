// Found only through a search path: -I .../Inputs/imports/searched.
jfa.func @negate(%x: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %y = arith.subi %c0, %x : i32
  jfa.return %y : i32
}
