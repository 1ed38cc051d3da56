// Further checks, one kernel each (run with --kernel).
// RUN: not jfa-interp %s --kernel narrow_b --arch sm_100a 2>&1 | FileCheck %s --check-prefix=NARROW
// RUN: not jfa-interp %s --kernel per_thread --arch sm_100a 2>&1 | FileCheck %s --check-prefix=THREAD
// RUN: not jfa-interp %s --kernel outside --arch sm_100a 2>&1 | FileCheck %s --check-prefix=OUTSIDE
// RUN: not jfa-interp %s --kernel distributed --arch sm_100a 2>&1 | FileCheck %s --check-prefix=VECTOR
// RUN: %python %S/Inputs/make_npy.py %t.o.npy u2 256x64 0
// RUN: not jfa-interp %s --kernel misaligned --arch sm_100a %t.o.npy i32:3 2>&1 | FileCheck %s --check-prefix=ALIGN
// RUN: not jfa-interp %s --kernel odd_column --arch sm_100a 2>&1 | FileCheck %s --check-prefix=ODD
// RUN: printf 'not numpy' > %t.bad.npy
// RUN: not jfa-interp %s --kernel misaligned --arch sm_100a %t.bad.npy i32:0 2>&1 | FileCheck %s --check-prefix=NPY

// tc_dot writes B's rows' worth of columns (64), not the accumulator's
// width (128): columns 64-127 stay unwritten.
jfa.kernel @narrow_b() warps(4) {
  %buf = jfa.local_alloc : !jfa.smem<1 x 128x64xbf16, swizzle 128>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %acc = jfa.tmem_alloc : !jfa.tmem<128x128xf32>
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %false = arith.constant false
  %s = jfa.slot %buf[%c0] : !jfa.smem<1 x 128x64xbf16, swizzle 128>, i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  %ones = arith.constant dense<1.0> : tensor<128x64xbf16, #jfa.tmem_row>
  jfa.local_store %ones, %s : tensor<128x64xbf16, #jfa.tmem_row> -> !jfa.slot<128x64xbf16, swizzle 128>
  jfa.fence_async_shared
  jfa.task_barrier
  %bs = jfa.local_alloc : !jfa.smem<1 x 64x64xbf16, swizzle 128>
  %bslot = jfa.slot %bs[%c0] : !jfa.smem<1 x 64x64xbf16, swizzle 128>, i32
  %ones64 = arith.constant dense<1.0> : tensor<64x64xbf16>
  jfa.local_store %ones64, %bslot : tensor<64x64xbf16> -> !jfa.slot<64x64xbf16, swizzle 128>
  jfa.fence_async_shared
  jfa.task_barrier
  jfa.tc_dot %s, %bslot, %acc, %false : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<64x64xbf16, swizzle 128>, !jfa.tmem<128x128xf32>
  jfa.tc_commit %b
  jfa.barrier_wait %b, %c0
  // NARROW: more-checks.mlir:[[@LINE+1]]:9: error: reads tensor-memory column 64, which nothing has written
  %hi = jfa.tmem_load %acc[%c64] : !jfa.tmem<128x128xf32> -> tensor<128x64xf32, #jfa.tmem_row>
}

// A per-thread value selecting a whole tile.
jfa.kernel @per_thread() warps(4) {
  %c64 = arith.constant 64 : i32
  %t = jfa.task_thread_id
  %low = arith.cmpi ult, %t, %c64 : i32
  %a = arith.constant dense<1.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  %b = arith.constant dense<2.0> : tensor<64x64xf32, #jfa.wgmma_acc>
  // THREAD: more-checks.mlir:[[@LINE+1]]:8: error: this value differs between the threads of a warpgroup
  %c = arith.select %low, %a, %b : tensor<64x64xf32, #jfa.wgmma_acc>
}

// A barrier arrival outside the tasks would run on every warp.
jfa.kernel @outside() warps(8) {
  %bars = jfa.alloc_barriers arrive_count(256) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  // OUTSIDE: more-checks.mlir:[[@LINE+1]]:3: error: jfa-interp models side effects outside jfa.async_tasks only in kernels without tasks
  jfa.barrier_arrive %b
  jfa.async_tasks {
    jfa.task warps(4) {
    }
    jfa.task default {
    }
  }
}

// The per-thread form jfa-distribute-tiles makes.
jfa.kernel @distributed() warps(4) {
  %t = jfa.thread_id
  // VECTOR: more-checks.mlir:[[@LINE+1]]:8: error: jfa-interp runs kernels as written: this op works on a per-thread vector
  %r = jfa.iota rows %t threads(128) layout(#jfa.wgmma_acc) shape [64, 64] : vector<32xi32>
}

// store_tile's vector stores need aligned runs (16 bytes in the tmem_row
// layout: 8 bf16).
jfa.kernel @misaligned(%o: !jfa.ptr<bf16>, %offset: i32) warps(4) {
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %t = arith.constant dense<1.0> : tensor<128x64xbf16, #jfa.tmem_row>
  // ALIGN: more-checks.mlir:[[@LINE+1]]:3: error: jfa.store_tile stores runs of 8 elements, so its offset (3) and row stride (64) must be multiples of 8
  jfa.store_tile %t, %o[%offset] stride(%c64) rows(%c128) : tensor<128x64xbf16, #jfa.tmem_row>, !jfa.ptr<bf16>
}

// 16-bit tensor memory packs two elements per column.
jfa.kernel @odd_column() warps(4) {
  %p = jfa.tmem_alloc : !jfa.tmem<128x64xbf16>
  %c1 = arith.constant 1 : i32
  %t = arith.constant dense<1.0> : tensor<128x32xbf16, #jfa.tmem_row>
  // ODD: more-checks.mlir:[[@LINE+1]]:3: error: accesses a 16-bit tensor-memory tile from column 1; it packs two elements per 32-bit column, so the first column must be even
  jfa.tmem_store %t, %p[%c1] : tensor<128x32xbf16, #jfa.tmem_row> -> !jfa.tmem<128x64xbf16>
}

// NPY: error: argument 0 (%o: !jfa.ptr<bf16>): '{{.*}}bad.npy' is not a .npy file
