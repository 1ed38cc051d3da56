// RUN: jfa-opt %s --jfa-specialize | FileCheck %s --check-prefix=DEFAULT
// RUN: jfa-opt %s "--jfa-specialize=params=head_dim=64,causal=1,scale=0.5" | FileCheck %s --check-prefix=SET
// Parameters become constants, the values are recorded on the kernel, and
// the branches on them fold away; nothing else moves.

// DEFAULT-LABEL: jfa.kernel @attention
// DEFAULT-SAME: attributes {jfa.params = {causal = false, head_dim = 128 : i32, scale = 1.250000e-01 : f32}}
// SET-LABEL: jfa.kernel @attention
// SET-SAME: attributes {jfa.params = {causal = true, head_dim = 64 : i32, scale = 5.000000e-01 : f32}}
jfa.kernel @attention(%p: !jfa.ptr<f32>, %n: i32) warps(4) {
  %head_dim = jfa.param "head_dim" = 128 : i32
  %causal = jfa.param "causal" = false
  %scale = jfa.param "scale" = 0.125 : f32
  %c128 = arith.constant 128 : i32
  %wide = arith.cmpi eq, %head_dim, %c128 : i32
  // DEFAULT-NOT: jfa.param
  // DEFAULT-NOT: arith.cmpi
  // DEFAULT-NOT: scf.if
  // The D=128 branch is taken; its ops stay in place.
  // DEFAULT: %[[W:.*]] = arith.muli %{{.*}}, %{{.*}} : i32
  // DEFAULT: jfa.load %{{.*}}[%[[W]]]
  // SET-NOT: scf.if
  // SET: %[[N:.*]] = arith.addi %{{.*}}, %{{.*}} : i32
  // SET: jfa.load %{{.*}}[%[[N]]]
  %x = scf.if %wide -> i32 {
    %two = arith.muli %n, %n : i32
    scf.yield %two : i32
  } else {
    %one = arith.addi %n, %n : i32
    scf.yield %one : i32
  }
  %v = jfa.load %p[%x] : !jfa.ptr<f32> -> f32
  // A select on a parameter folds to the operand it picks.
  // DEFAULT: jfa.load %{{.*}}[%arg1]
  // SET: %[[C7:.*]] = arith.constant 7 : i32
  // SET: jfa.load %{{.*}}[%[[C7]]]
  %c7 = arith.constant 7 : i32
  %at = arith.select %causal, %c7, %n : i32
  %w = jfa.load %p[%at] : !jfa.ptr<f32> -> f32
  // A branch on a run-time value stays.
  // DEFAULT: scf.if
  // SET: scf.if
  %c0 = arith.constant 0 : i32
  %pos = arith.cmpi sgt, %n, %c0 : i32
  scf.if %pos {
    %u = jfa.load %p[%c0] : !jfa.ptr<f32> -> f32
  }
}

// A kernel without parameters gets no jfa.params, but what constants decide
// (a helper's constant flag, once inlined) folds all the same; a branch on
// a run-time value stays.
// DEFAULT-LABEL: jfa.kernel @plain
// DEFAULT-NOT: jfa.params
// DEFAULT-NOT: arith.cmpi slt
// DEFAULT: jfa.store %arg0
// DEFAULT-NOT: jfa.store
// DEFAULT: arith.cmpi sgt
// DEFAULT-NEXT: scf.if
jfa.kernel @plain(%n: i32, %p: !jfa.ptr<i32>) warps(1) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %lt = arith.cmpi slt, %c1, %c2 : i32
  scf.if %lt {
    jfa.store %n, %p[%c0] : i32, !jfa.ptr<i32>
  } else {
    jfa.store %c1, %p[%c0] : i32, !jfa.ptr<i32>
  }
  %pos = arith.cmpi sgt, %n, %c0 : i32
  scf.if %pos {
    jfa.store %c2, %p[%c1] : i32, !jfa.ptr<i32>
  }
}

// A buffer that only a folded-away branch used is dropped, so it takes no
// shared memory in that variant (causal=0); with causal=1 both stay.
// DEFAULT-LABEL: jfa.kernel @variant_buffers
// DEFAULT: jfa.local_alloc : !jfa.smem<1 x 64xf32>
// DEFAULT-NOT: jfa.local_alloc
// SET-LABEL: jfa.kernel @variant_buffers
// SET-COUNT-2: jfa.local_alloc
jfa.kernel @variant_buffers() warps(4) {
  %causal = jfa.param "causal" = false
  %always = jfa.local_alloc : !jfa.smem<1 x 64xf32>
  %causal_only = jfa.local_alloc : !jfa.smem<2 x 64xf32>
  %c0 = arith.constant 0 : i32
  %t = arith.constant dense<1.0> : tensor<64xf32, #jfa.rows_of<#jfa.tmem_row>>
  %s = jfa.slot %always[%c0] : !jfa.smem<1 x 64xf32>, i32
  jfa.local_store %t, %s : tensor<64xf32, #jfa.rows_of<#jfa.tmem_row>> -> !jfa.slot<64xf32>
  scf.if %causal {
    %s2 = jfa.slot %causal_only[%c0] : !jfa.smem<2 x 64xf32>, i32
    jfa.local_store %t, %s2 : tensor<64xf32, #jfa.rows_of<#jfa.tmem_row>> -> !jfa.slot<64xf32>
  }
}
