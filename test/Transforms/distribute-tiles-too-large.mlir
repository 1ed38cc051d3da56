// RUN: jfa-opt %s --split-input-file --jfa-distribute-tiles --verify-diagnostics | FileCheck %s
// A register tile of more than 1024 32-bit values per thread is an error
// at the op (its distributed form took LLVM minutes and gigabytes); up to
// 1024 it distributes.

jfa.kernel @huge(%p: !jfa.ptr<f32>, %alpha: f32) warps(1) {
  %c0 = arith.constant 0 : i32
  %n = arith.constant 256 : i32
  // expected-error @+1 {{tile 'tensor<1024x1024xf32>' needs 32768 32-bit values per thread over its 32 threads (one tile may take at most 1024); a thread has at most 255 registers: split the tile or use more warps}}
  %t = tensor.splat %alpha : tensor<1024x1024xf32>
  jfa.store_tile %t, %p[%c0] stride(%n) rows(%n) : tensor<1024x1024xf32>, !jfa.ptr<f32>
}

// -----

// Two bf16 elements to a 32-bit value: 4096 elements per thread are 2048.
jfa.kernel @huge_bf16(%a: f32) warps(1) {
  %alpha = arith.truncf %a : f32 to bf16
  // expected-error @+1 {{tile 'tensor<512x256xbf16>' needs 2048 32-bit values per thread over its 32 threads}}
  %t = tensor.splat %alpha : tensor<512x256xbf16>
}

// -----

// In a task: the task's threads count, not the kernel's (2048 over its 256
// threads would be 1024 values).
jfa.kernel @in_task(%alpha: f32) warps(8) {
  jfa.async_tasks {
    jfa.task warps(4) {
      // expected-error @+1 {{tile 'tensor<512x512xf32>' needs 2048 32-bit values per thread over its 128 threads}}
      %t = tensor.splat %alpha : tensor<512x512xf32>
    }
    jfa.task default {
    }
  }
}

// -----

// At the limit: 256x128xf32 on one warp is 1024 values per thread.
// CHECK-LABEL: jfa.kernel @at_limit
jfa.kernel @at_limit() warps(1) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 256x128xf32>
  %c0 = arith.constant 0 : i32
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 256x128xf32>, i32
  // CHECK: jfa.load_fragment %{{.*}}, %{{.*}} threads(32) : !jfa.slot<256x128xf32> -> vector<1024xf32>
  %x = jfa.local_load %s : !jfa.slot<256x128xf32> -> tensor<256x128xf32>
}

// -----

// A tile whose element count overflows 64 bits (2^62 x 4 wrapped to 0 and
// distributed as empty) or whose layout would list billions of register
// offsets is refused before either is computed.
jfa.kernel @overflow(%alpha: f32) warps(4) {
  // expected-error @+1 {{tile 'tensor<4611686018427387904x4xf32>' holds more than 4096 elements per thread over its 128 threads (one tile may take at most 1024 32-bit values per thread); a thread has at most 255 registers: split the tile or use more warps}}
  %t = tensor.splat %alpha : tensor<4611686018427387904x4xf32>
}

// -----

jfa.kernel @huge_acc(%alpha: f32) warps(4) {
  // expected-error @+1 {{tile 'tensor<67108864x256xf32, #jfa.wgmma_acc>' holds more than 4096 elements per thread}}
  %t = tensor.splat %alpha : tensor<67108864x256xf32, #jfa.wgmma_acc>
}

// -----

jfa.kernel @dynamic() warps(4) {
  %n = arith.constant 5 : index
  // expected-error @+1 {{register tile 'tensor<?x64xf32>' needs a static shape}}
  %t = tensor.empty(%n) : tensor<?x64xf32>
}
