// RUN: jfa-opt %s --jfa-allocate-shared-memory --jfa-distribute-tiles --jfa-report-registers -o /dev/null 2>&1 | FileCheck %s
// RUN: jfa-opt %s --jfa-allocate-shared-memory --jfa-distribute-tiles --jfa-report-registers=top-values=1 -o /dev/null 2>&1 | FileCheck %s --check-prefix=TOP1
// Each task's peak of live 32-bit values per thread after tile distribution:
// a 128x64 f32 tile in #jfa.tmem_row over 128 threads is 64 registers a
// thread; bf16 halves it; i1 tiles (predicates) count nothing.

jfa.kernel @pressure(%p: !jfa.ptr<f32>, %n: i32) warps(8) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 128x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 128x64xf32>, i32
  jfa.async_tasks {
    // Two f32 tiles carried through the loop (64 + 64) and a third loaded
    // in it (64; its bf16 step is 32, its i1 mask 0, constants and the
    // thread index nothing: they are made again where used), plus the slot:
    // the peak is first reached where the loop body loads its tile.
    // CHECK: report-registers.mlir:[[@LINE+1]]:5: remark: task (registers(240)): at most 193 live 32-bit values per thread, at {{.*}}report-registers.mlir:[[@LINE+5]]:14{{$}}
    jfa.task warps(4) registers(240) {
      %zero = arith.constant dense<0.0> : tensor<128x64xf32, #jfa.tmem_row>
      %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %zero, %b = %zero)
          -> (tensor<128x64xf32, #jfa.tmem_row>, tensor<128x64xf32, #jfa.tmem_row>) : i32 {
        %t = jfa.local_load %s : !jfa.slot<128x64xf32> -> tensor<128x64xf32, #jfa.tmem_row>
        %a2 = arith.addf %a, %t : tensor<128x64xf32, #jfa.tmem_row>
        %b2 = arith.mulf %b, %t : tensor<128x64xf32, #jfa.tmem_row>
        %pos = arith.cmpf ogt, %a2, %b2 : tensor<128x64xf32, #jfa.tmem_row>
        %m = arith.select %pos, %a2, %b2 : tensor<128x64xi1, #jfa.tmem_row>, tensor<128x64xf32, #jfa.tmem_row>
        %h = arith.truncf %m : tensor<128x64xf32, #jfa.tmem_row> to tensor<128x64xbf16, #jfa.tmem_row>
        %back = arith.extf %h : tensor<128x64xbf16, #jfa.tmem_row> to tensor<128x64xf32, #jfa.tmem_row>
        jfa.local_store %back, %s : tensor<128x64xf32, #jfa.tmem_row> -> !jfa.slot<128x64xf32>
        scf.yield %a2, %b2 : tensor<128x64xf32, #jfa.tmem_row>, tensor<128x64xf32, #jfa.tmem_row>
      }
      %sum = arith.addf %r#0, %r#1 : tensor<128x64xf32, #jfa.tmem_row>
      jfa.local_store %sum, %s : tensor<128x64xf32, #jfa.tmem_row> -> !jfa.slot<128x64xf32>
    }
    // The largest values live at the peak, each where it is made (the first
    // made first among equals): the two carried tiles, then the loaded one.
    // CHECK: report-registers.mlir:[[@LINE-17]]:56: note: live there: vector<64xf32> (64 registers) from {{.*}}report-registers.mlir:[[@LINE-17]]:56
    // CHECK: report-registers.mlir:[[@LINE-18]]:68: note: live there: vector<64xf32> (64 registers) from
    // CHECK: report-registers.mlir:[[@LINE-17]]:14: note: live there: vector<64xf32> (64 registers) from
    // CHECK: note: live there: !jfa.slot<128x64xf32> (1 registers)
    // A task whose budget is smaller than its peak is told so.
    // CHECK: report-registers.mlir:[[@LINE+1]]:5: remark: task (registers(24)): at most 65 live 32-bit values per thread, at {{.*}}report-registers.mlir:[[@LINE+2]]:12; more than the budget: ptxas must reorder or rematerialize, or spill
    jfa.task default registers(24) {
      %t = jfa.local_load %s : !jfa.slot<128x64xf32> -> tensor<128x64xf32, #jfa.tmem_row>
      %e = math.exp2 %t : tensor<128x64xf32, #jfa.tmem_row>
      jfa.local_store %e, %s : tensor<128x64xf32, #jfa.tmem_row> -> !jfa.slot<128x64xf32>
    }
  }
}
// TOP1: remark: task (registers(240))
// TOP1: note: live there:
// TOP1-NOT: note: live there:
// TOP1: remark: task (registers(24))

// A kernel without tasks is reported whole.
// CHECK: report-registers.mlir:[[@LINE+1]]:1: remark: kernel (no registers(...) budget): at most {{[0-9]+}} live 32-bit values per thread
jfa.kernel @no_tasks(%p: !jfa.ptr<f32>) warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 128x64xf32>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 128x64xf32>, i32
  %t = jfa.local_load %s : !jfa.slot<128x64xf32> -> tensor<128x64xf32, #jfa.tmem_row>
  %e = math.exp2 %t : tensor<128x64xf32, #jfa.tmem_row>
  jfa.local_store %e, %s : tensor<128x64xf32, #jfa.tmem_row> -> !jfa.slot<128x64xf32>
}
