jfa.func @ok(%x: i32) -> i32 {
  jfa.return %x : i32
}
jfa.kernel @not_here(%n: i32) warps(1) {
}
