jfa.func @ok(%x: i32) -> i32 {
  jfa.return %x : i32
}
module {
}
