// The race checker tracks a blocked slot's column blocks apart: a slot
// wider than its swizzle is stored block after block (64x64 f32 under a
// 128-byte swizzle: two 8 KB blocks), so two warpgroups that write
// different column blocks of one slot, with nothing between them, write
// different bytes. Writing the same block is a race.
// RUN: jfa-interp %s --arch sm_90a 2>&1 | FileCheck %s --check-prefix=OK --allow-empty
// OK-NOT: error
// RUN: sed 's/column_block %%s\[%%g\]/column_block %%s[%%c0]/' %s > %t.same.mlir
// RUN: not jfa-interp %t.same.mlir --arch sm_90a 2>&1 | FileCheck %s --check-prefix=RACE
// RACE: error: race: {{.*}}row 0 of slot 0 of %buf

jfa.kernel @blocks() warps(8) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 64x64xf32, swizzle 128>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 64x64xf32, swizzle 128>, i32
  jfa.async_tasks {
    jfa.task warps(4) replicas(2) {
      %g = jfa.replica_id : i32
      %one = arith.constant dense<1.0> : tensor<64x32xf32, #jfa.wgmma_acc>
      %blk = jfa.column_block %s[%g] : !jfa.slot<64x64xf32, swizzle 128> -> !jfa.slot<64x32xf32, swizzle 128>
      jfa.local_store %one, %blk : tensor<64x32xf32, #jfa.wgmma_acc> -> !jfa.slot<64x32xf32, swizzle 128>
    }
  }
}
