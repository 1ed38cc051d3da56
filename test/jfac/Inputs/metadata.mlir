// Every kind of launch parameter and a cluster (test/jfac/metadata.test).
jfa.kernel @every_kind(%d: !jfa.tma<64x32xbf16, swizzle 64>, %p: !jfa.ptr<f32>, %n: i32, %m: i64, %s: f32, %t: f64, %e: !jfa.tma<8x16x64xf32>) warps(4) cluster(2, 1, 1) {
  %x = jfa.program_id x
}
