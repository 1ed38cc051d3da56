// RUN: jfa-opt %s --split-input-file --jfa-convert-to-llvm | FileCheck %s
// TensorMemoryToLLVM.cpp: warp 0 allocates tensor memory (the address lands
// in a shared-memory word), tc_dot is one tcgen05.mma per 16 of K with an
// instruction descriptor and nvvm.tcgen05.mma_smem_desc operands, and
// tmem_load/tmem_store move one row per thread with the 32x32b shape at
// base + ((warp % 4) * 32 << 16) + column.
// (Constants that are operands of one builder call are matched in either
// order: their creation order is the C++ argument evaluation order.)

// Instruction descriptor, kind::f16: f32 D (1 << 4), bf16 A and B (1 << 7,
// 1 << 10), K-major B, N = 256 (32 << 17), M = 128 (8 << 24) = 138413200.
// Shared-memory descriptors: LBO 1, SBO 1024 bytes >> 4 = 64, base offset 0,
// absolute LBO mode, 128B swizzle = mode 2; each k16 step is 32 bytes.
// CHECK-LABEL: llvm.func @alloc_dot
// CHECK: %[[BARS:.*]] = llvm.getelementptr %{{.*}}[49152] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: nvvm.barrier0
// CHECK: %[[WORD:.*]] = llvm.getelementptr %{{.*}}[49160] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NEXT: %[[COLS:.*]] = llvm.mlir.constant(256 : i32) : i32
// CHECK-NEXT: %[[T:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-DAG: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-DAG: %[[W32:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK: %[[WARP:.*]] = llvm.udiv %[[T]], %[[W32]] : i32
// CHECK-NEXT: %[[W0:.*]] = llvm.icmp "eq" %[[WARP]], %[[ZERO]] : i32
// CHECK-NEXT: scf.if %[[W0]] {
// CHECK-NEXT: nvvm.tcgen05.alloc %[[WORD]], %[[COLS]] : !llvm.ptr<3>, i32
// CHECK-NEXT: nvvm.tcgen05.relinquish_alloc_permit
// CHECK-NEXT: }
// CHECK-NEXT: nvvm.tcgen05.fence <before>
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: nvvm.tcgen05.fence <after>
// CHECK-NEXT: %[[RAW:.*]] = llvm.load %[[WORD]] {alignment = 4 : i64} : !llvm.ptr<3> -> i32
// CHECK-NEXT: %[[TMEM:.*]] = llvm.inttoptr %[[RAW]] : i32 to !llvm.ptr<6>
// CHECK: %[[SA:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<16384 x i8>
// CHECK-NEXT: %[[SB:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<32768 x i8>
// CHECK-NEXT: %[[BAR:.*]] = llvm.getelementptr %[[BARS]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
// CHECK-NEXT: %[[ACCUM:.*]] = arith.constant false
// CHECK-NEXT: %[[BASEA:.*]] = llvm.ptrtoint %[[SA]] : !llvm.ptr<3> to i32
// CHECK-NEXT: %[[BASEB:.*]] = llvm.ptrtoint %[[SB]] : !llvm.ptr<3> to i32
// CHECK-NEXT: %[[IDESC:.*]] = llvm.mlir.constant(138413200 : i32) : i32
// CHECK-NEXT: %[[TRUE:.*]] = llvm.mlir.constant(true) : i1
// Each operand's descriptor once (k step 0), then each step's at its MMA:
// the base plus the step's offset >> 4 (32 bytes: 2) in an asm block.
// CHECK-NEXT: %[[MASK:.*]] = llvm.mlir.constant(262143 : i32) : i32
// CHECK-NEXT: %[[AND:.*]] = llvm.and %[[BASEA]], %[[MASK]] : i32
// CHECK-NEXT: %[[FOUR:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK-NEXT: %[[START:.*]] = llvm.lshr %[[AND]], %[[FOUR]] : i32
// CHECK-NEXT: %[[LBO:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[SBO:.*]] = llvm.mlir.constant(64 : i32) : i32
// CHECK-NEXT: %[[BOFF:.*]] = llvm.mlir.constant(0 : i8) : i8
// CHECK-NEXT: %[[REL:.*]] = llvm.mlir.constant(false) : i1
// CHECK-NEXT: %[[SW:.*]] = llvm.mlir.constant(2 : i8) : i8
// CHECK-NEXT: %[[DA0:.*]] = nvvm.tcgen05.mma_smem_desc(%[[START]], %[[LBO]], %[[SBO]], %[[BOFF]], %[[REL]], %[[SW]]) : (i32, i32, i32, i8, i1, i8) -> i64
// CHECK-NEXT: llvm.mlir.constant(262143 : i32) : i32
// CHECK-NEXT: llvm.and %[[BASEB]], %{{.*}} : i32
// CHECK: %[[DB0:.*]] = nvvm.tcgen05.mma_smem_desc(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (i32, i32, i32, i8, i1, i8) -> i64
// CHECK-NEXT: nvvm.tcgen05.fence <after>
// CHECK-NEXT: %[[DA:.*]] = llvm.inline_asm has_side_effects "add.s64 $0, $1, 0;", "=l,l" %[[DA0]] : (i64) -> i64
// CHECK-NEXT: %[[DB:.*]] = llvm.inline_asm has_side_effects "add.s64 $0, $1, 0;", "=l,l" %[[DB0]] : (i64) -> i64
// The first MMA takes the accumulate flag, the others accumulate.
// CHECK-NEXT: nvvm.tcgen05.mma %[[TMEM]], %[[DA]], %[[DB]], %[[IDESC]], %[[ACCUM]] {ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.tcgen05_mma_kind<f16>} : (!llvm.ptr<6>, i64, i64, i32, i1)
// CHECK-NEXT: llvm.inline_asm has_side_effects "add.s64 $0, $1, 2;", "=l,l" %[[DA0]]
// CHECK-NEXT: llvm.inline_asm has_side_effects "add.s64 $0, $1, 2;", "=l,l" %[[DB0]]
// CHECK-NEXT: nvvm.tcgen05.mma %[[TMEM]], %{{.*}}, %{{.*}}, %[[IDESC]], %[[TRUE]]
// CHECK: "add.s64 $0, $1, 4;"
// CHECK: nvvm.tcgen05.mma %[[TMEM]], %{{.*}}, %{{.*}}, %[[IDESC]], %[[TRUE]]
// CHECK: "add.s64 $0, $1, 6;"
// CHECK: nvvm.tcgen05.mma %[[TMEM]], %{{.*}}, %{{.*}}, %[[IDESC]], %[[TRUE]]
// CHECK-NEXT: nvvm.tcgen05.commit %[[BAR]] : !llvm.ptr<3>
// Deallocation: after-fence, then warp 0 frees the 256 columns.
// CHECK-NEXT: %[[COLS2:.*]] = llvm.mlir.constant(256 : i32) : i32
// CHECK-NEXT: nvvm.tcgen05.fence <after>
// CHECK: scf.if
// CHECK-NEXT: nvvm.tcgen05.dealloc %[[TMEM]], %[[COLS2]] : !llvm.ptr<6>, i32
// CHECK-NOT: nvvm.tcgen05.mma
// CHECK: llvm.return
jfa.kernel @alloc_dot() warps(4) {
  %a = jfa.local_alloc {offset = 0 : i64} : !jfa.smem<1 x 128x64xbf16, swizzle 128>
  %b = jfa.local_alloc {offset = 16384 : i64} : !jfa.smem<1 x 256x64xbf16, swizzle 128>
  %bars = jfa.alloc_barriers arrive_count(1) {offset = 49152 : i64} : !jfa.mbarriers<1>
  %acc = jfa.tmem_alloc {offset = 49160 : i64} : !jfa.tmem<128x256xf32>
  %c0 = arith.constant 0 : i32
  %sa = jfa.slot %a[%c0] : !jfa.smem<1 x 128x64xbf16, swizzle 128>, i32
  %sb = jfa.slot %b[%c0] : !jfa.smem<1 x 256x64xbf16, swizzle 128>, i32
  %bar = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  %false = arith.constant false
  jfa.tc_dot %sa, %sb, %acc, %false : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<256x64xbf16, swizzle 128>, !jfa.tmem<128x256xf32>
  jfa.tc_commit %bar
  jfa.tmem_dealloc %acc : !jfa.tmem<128x256xf32>
}

// -----

// A in tensor memory (an f16 slice), B a transposed f16 view, 64B swizzle.
// Instruction descriptor: f32 D (1 << 4), f16 A and B (0), transposed B
// (1 << 16), N = 32 (4 << 17), M = 128 (8 << 24) = 134807568.
// The f16 slice at element column 32 is 16 (32-bit) columns on; A's k16
// steps are 8 columns; B's are 16 stored rows of 64 bytes = 1024 bytes;
// B's descriptor has SBO 512 >> 4 = 32 and swizzle mode 4 (64B).
// CHECK-LABEL: llvm.func @tmem_a_transposed_b
// 16-bit tensor memory of 128x64 takes 32 columns.
// CHECK: %[[C32:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK: nvvm.tcgen05.alloc %{{.*}}, %[[C32]] : !llvm.ptr<3>, i32
// CHECK: %[[ACC:.*]] = llvm.inttoptr %{{.*}} : i32 to !llvm.ptr<6>
// CHECK: nvvm.tcgen05.alloc
// CHECK: %[[P:.*]] = llvm.inttoptr %{{.*}} : i32 to !llvm.ptr<6>
// CHECK: %[[PI:.*]] = llvm.ptrtoint %[[P]] : !llvm.ptr<6> to i32
// CHECK-NEXT: %[[OFF:.*]] = llvm.mlir.constant(16 : i32) : i32
// CHECK-NEXT: %[[SI:.*]] = llvm.add %[[PI]], %[[OFF]] : i32
// CHECK-NEXT: %[[SLICE:.*]] = llvm.inttoptr %[[SI]] : i32 to !llvm.ptr<6>
// CHECK: %[[BASEA:.*]] = llvm.ptrtoint %[[SLICE]] : !llvm.ptr<6> to i32
// CHECK-NEXT: %[[BASEB:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr<3> to i32
// CHECK-NEXT: %[[IDESC:.*]] = llvm.mlir.constant(134807568 : i32) : i32
// CHECK: %[[SBO:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK: %[[SW:.*]] = llvm.mlir.constant(4 : i8) : i8
// CHECK-NEXT: %[[DB0:.*]] = nvvm.tcgen05.mma_smem_desc(%{{.*}}, %{{.*}}, %[[SBO]], %{{.*}}, %{{.*}}, %[[SW]])
// CHECK-NEXT: nvvm.tcgen05.fence <after>
// CHECK-NEXT: %[[K:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[AI:.*]] = llvm.add %[[BASEA]], %[[K]] : i32
// CHECK-NEXT: %[[A0:.*]] = llvm.inttoptr %[[AI]] : i32 to !llvm.ptr<6>
// CHECK-NEXT: %[[DB:.*]] = llvm.inline_asm has_side_effects "add.s64 $0, $1, 0;", "=l,l" %[[DB0]]
// CHECK-NEXT: nvvm.tcgen05.mma %[[ACC]], %[[A0]], %[[DB]], %[[IDESC]], %{{.*}} {ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.tcgen05_mma_kind<f16>} : (!llvm.ptr<6>, !llvm.ptr<6>, i64, i32, i1)
// CHECK-NEXT: %[[K:.*]] = llvm.mlir.constant(8 : i32) : i32
// CHECK-NEXT: %[[AI:.*]] = llvm.add %[[BASEA]], %[[K]] : i32
// CHECK-NEXT: %[[A1:.*]] = llvm.inttoptr %[[AI]] : i32 to !llvm.ptr<6>
// 1024 bytes: 64 units.
// CHECK-NEXT: llvm.inline_asm has_side_effects "add.s64 $0, $1, 64;", "=l,l" %[[DB0]]
// CHECK: nvvm.tcgen05.mma %[[ACC]], %[[A1]], %{{.*}}, %[[IDESC]]
// CHECK-NOT: nvvm.tcgen05.mma
// CHECK: llvm.return
jfa.kernel @tmem_a_transposed_b() warps(4) {
  %b = jfa.local_alloc {offset = 0 : i64} : !jfa.smem<1 x 32x32xf16, swizzle 64>
  %acc = jfa.tmem_alloc {offset = 2048 : i64} : !jfa.tmem<128x32xf32>
  %p = jfa.tmem_alloc {offset = 2056 : i64} : !jfa.tmem<128x64xf16>
  %c0 = arith.constant 0 : i32
  %sb = jfa.slot %b[%c0] : !jfa.smem<1 x 32x32xf16, swizzle 64>, i32
  %bt = jfa.transpose %sb : !jfa.slot<32x32xf16, swizzle 64>
  %ps = jfa.tmem_slice %p columns(32) : !jfa.tmem<128x64xf16> -> !jfa.tmem<128x32xf16>
  %true = arith.constant true
  jfa.tc_dot %ps, %bt, %acc, %true : !jfa.tmem<128x32xf16>, !jfa.slot<32x32xf16, swizzle 64, transposed>, !jfa.tmem<128x32xf32>
}

// -----

// A blocked A (K = 128 bf16: two column blocks of 128 rows x 128 bytes):
// k16 steps 0-3 are 32 bytes apart in block 0, steps 4-7 in block 1,
// 16384 bytes on. B is a transposed (N-major) view.
// Instruction descriptor: f32 D (16), bf16 A and B (128 + 1024),
// transposed B (65536), N = 64 (8 << 17), M = 128 (8 << 24) = 135333008.
// CHECK-LABEL: llvm.func @blocked_a
// CHECK: %[[BASEA:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr<3> to i32
// CHECK: llvm.mlir.constant(135333008 : i32) : i32
// CHECK: %[[DA0:.*]] = nvvm.tcgen05.mma_smem_desc
// In 16-byte units: step 3 at 96 bytes (6), step 4 at 16384 (1024), step 5
// at 16416 (1026).
// CHECK: llvm.inline_asm has_side_effects "add.s64 $0, $1, 6;", "=l,l" %[[DA0]]
// CHECK: nvvm.tcgen05.mma %
// CHECK: llvm.inline_asm has_side_effects "add.s64 $0, $1, 1024;", "=l,l" %[[DA0]]
// CHECK: nvvm.tcgen05.mma %
// CHECK: llvm.inline_asm has_side_effects "add.s64 $0, $1, 1026;", "=l,l" %[[DA0]]
// CHECK-COUNT-3: nvvm.tcgen05.mma %
// CHECK-NOT: nvvm.tcgen05.mma %
// CHECK: llvm.return
jfa.kernel @blocked_a() warps(4) {
  %a = jfa.local_alloc {offset = 0 : i64} : !jfa.smem<1 x 128x128xbf16, swizzle 128>
  %b = jfa.local_alloc {offset = 32768 : i64} : !jfa.smem<1 x 128x64xbf16, swizzle 128>
  %acc = jfa.tmem_alloc {offset = 49152 : i64} : !jfa.tmem<128x64xf32>
  %c0 = arith.constant 0 : i32
  %sa = jfa.slot %a[%c0] : !jfa.smem<1 x 128x128xbf16, swizzle 128>, i32
  %sb = jfa.slot %b[%c0] : !jfa.smem<1 x 128x64xbf16, swizzle 128>, i32
  %bt = jfa.transpose %sb : !jfa.slot<128x64xbf16, swizzle 128>
  %true = arith.constant true
  jfa.tc_dot %sa, %bt, %acc, %true : !jfa.slot<128x128xbf16, swizzle 128>, !jfa.slot<64x128xbf16, swizzle 128, transposed>, !jfa.tmem<128x64xf32>
}

// -----

// An M-major A: the transpose of a blocked 32x128 slot (K = 32 rows of
// M = 128, two column blocks of 32 rows x 128 bytes = 4096 bytes). The
// descriptor's leading-dimension offset is the block distance, 4096 >> 4 =
// 256; its stride-dimension offset 8 rows x 128 bytes, 1024 >> 4 = 64; a
// k16 step is 16 stored rows, 2048 bytes.
// Instruction descriptor: f32 D (16), bf16 A and B (128 + 1024),
// transposed A (1 << 15), N = 64 (8 << 17), M = 128 (8 << 24) = 135300240.
// CHECK-LABEL: llvm.func @m_major_a
// CHECK: %[[BASEA:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr<3> to i32
// CHECK: llvm.mlir.constant(135300240 : i32) : i32
// CHECK: %[[LBO:.*]] = llvm.mlir.constant(256 : i32) : i32
// CHECK-NEXT: %[[SBO:.*]] = llvm.mlir.constant(64 : i32) : i32
// CHECK: %[[DA0:.*]] = nvvm.tcgen05.mma_smem_desc(%{{.*}}, %[[LBO]], %[[SBO]],
// CHECK: nvvm.tcgen05.mma %
// 2048 bytes: 128 units.
// CHECK: llvm.inline_asm has_side_effects "add.s64 $0, $1, 128;", "=l,l" %[[DA0]]
// CHECK: nvvm.tcgen05.mma %
// CHECK-NOT: nvvm.tcgen05.mma %
// CHECK: llvm.return
jfa.kernel @m_major_a() warps(4) {
  %a = jfa.local_alloc {offset = 0 : i64} : !jfa.smem<1 x 32x128xbf16, swizzle 128>
  %b = jfa.local_alloc {offset = 8192 : i64} : !jfa.smem<1 x 64x32xbf16, swizzle 64>
  %acc = jfa.tmem_alloc {offset = 12288 : i64} : !jfa.tmem<128x64xf32>
  %c0 = arith.constant 0 : i32
  %sa = jfa.slot %a[%c0] : !jfa.smem<1 x 32x128xbf16, swizzle 128>, i32
  %sb = jfa.slot %b[%c0] : !jfa.smem<1 x 64x32xbf16, swizzle 64>, i32
  %at = jfa.transpose %sa : !jfa.slot<32x128xbf16, swizzle 128>
  %true = arith.constant true
  jfa.tc_dot %at, %sb, %acc, %true : !jfa.slot<128x32xbf16, swizzle 128, transposed>, !jfa.slot<64x32xbf16, swizzle 64>, !jfa.tmem<128x64xf32>
}

// -----

// tmem_load/tmem_store: warp w of the warpgroup reaches lanes 32w..: the
// address is base + ((tid / 32 % 4) * 32 << 16) + column; 32x32b moves one
// 32-bit column per register (16-bit tiles pack 2 elements, and their
// element column is halved).
// CHECK-LABEL: llvm.func @load_store(%arg0: i32)
// CHECK: %[[ACC:.*]] = llvm.inttoptr %{{.*}} : i32 to !llvm.ptr<6>
// CHECK: %[[P:.*]] = llvm.inttoptr %{{.*}} : i32 to !llvm.ptr<6>
// CHECK-NEXT: %[[AI:.*]] = llvm.ptrtoint %[[ACC]] : !llvm.ptr<6> to i32
// CHECK-NEXT: %[[OFF:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK-NEXT: %[[SI:.*]] = llvm.add %[[AI]], %[[OFF]] : i32
// CHECK-NEXT: %[[SLICE:.*]] = llvm.inttoptr %[[SI]] : i32 to !llvm.ptr<6>
// CHECK-NEXT: %[[T:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT: %[[C32:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK-NEXT: %[[W:.*]] = llvm.udiv %[[T]], %[[C32]] : i32
// CHECK-NEXT: %[[C4:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK-NEXT: %[[WIG:.*]] = llvm.urem %[[W]], %[[C4]] : i32
// CHECK-DAG: %[[C16:.*]] = llvm.mlir.constant(16 : i32) : i32
// CHECK-DAG: %[[L32:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK: %[[LANE:.*]] = llvm.mul %[[WIG]], %[[L32]] : i32
// CHECK-NEXT: %[[LSH:.*]] = llvm.shl %[[LANE]], %[[C16]] : i32
// CHECK-NEXT: %[[BASE:.*]] = llvm.ptrtoint %[[SLICE]] : !llvm.ptr<6> to i32
// CHECK-NEXT: %[[BL:.*]] = llvm.add %[[BASE]], %[[LSH]] : i32
// CHECK-NEXT: %[[AD:.*]] = llvm.add %[[BL]], %arg0 : i32
// CHECK-NEXT: %[[TADDR:.*]] = llvm.inttoptr %[[AD]] : i32 to !llvm.ptr<6>
// CHECK-NEXT: nvvm.tcgen05.fence <after>
// CHECK-NEXT: %[[BITS:.*]] = nvvm.tcgen05.ld %[[TADDR]] {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<16xi32>
// CHECK-NEXT: nvvm.tcgen05.wait <load>
// CHECK-NEXT: nvvm.tcgen05.fence <before>
// CHECK-NEXT: %[[V:.*]] = llvm.bitcast %[[BITS]] : vector<16xi32> to vector<16xf32>
// CHECK: %[[SADDR:.*]] = llvm.inttoptr %{{.*}} : i32 to !llvm.ptr<6>
// CHECK-NEXT: %[[SB:.*]] = llvm.bitcast %[[V]] : vector<16xf32> to vector<16xi32>
// CHECK-NEXT: nvvm.tcgen05.st %[[SADDR]], %[[SB]] {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<16xi32>
// CHECK-NEXT: nvvm.tcgen05.wait <store>
// CHECK-NEXT: nvvm.tcgen05.fence <before>
// The bf16 store: column >> 1, 64 bf16 = 32 b32 registers.
// CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[HC:.*]] = llvm.lshr %arg0, %[[ONE]] : i32
// CHECK: %[[PB:.*]] = llvm.ptrtoint %[[P]] : !llvm.ptr<6> to i32
// CHECK-NEXT: %[[PL:.*]] = llvm.add %[[PB]], %{{.*}} : i32
// CHECK-NEXT: llvm.add %[[PL]], %[[HC]] : i32
// CHECK: llvm.bitcast %{{.*}} : vector<64xbf16> to vector<32xi32>
// CHECK-NEXT: nvvm.tcgen05.st %{{.*}}, %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<32xi32>
// CHECK-NEXT: nvvm.tcgen05.wait <store>
// CHECK-NEXT: nvvm.tcgen05.fence <before>
// CHECK-NEXT: llvm.return
jfa.kernel @load_store(%col: i32) warps(4) {
  %acc = jfa.tmem_alloc {offset = 0 : i64} : !jfa.tmem<128x64xf32>
  %p = jfa.tmem_alloc {offset = 8 : i64} : !jfa.tmem<128x64xbf16>
  %s = jfa.tmem_slice %acc columns(32) : !jfa.tmem<128x64xf32> -> !jfa.tmem<128x32xf32>
  %v = jfa.tmem_load %s[%col] : !jfa.tmem<128x32xf32> -> vector<16xf32>
  jfa.tmem_store %v, %s[%col] : vector<16xf32> -> !jfa.tmem<128x32xf32>
  %h = arith.constant dense<1.0> : vector<64xbf16>
  jfa.tmem_store %h, %p[%col] : vector<64xbf16> -> !jfa.tmem<128x64xbf16>
}

// -----

// Several allocations: a CTA may not run tcgen05.alloc after it has given
// up its permit, so only the last one relinquishes it.
// CHECK-LABEL: llvm.func @three_allocations
// CHECK: nvvm.tcgen05.alloc
// CHECK-NOT: nvvm.tcgen05.relinquish_alloc_permit
// CHECK: nvvm.tcgen05.alloc
// CHECK-NOT: nvvm.tcgen05.relinquish_alloc_permit
// CHECK: nvvm.tcgen05.alloc
// CHECK-NEXT: nvvm.tcgen05.relinquish_alloc_permit
// CHECK-NOT: nvvm.tcgen05.relinquish_alloc_permit
// CHECK: llvm.return
jfa.kernel @three_allocations() warps(4) {
  %s = jfa.tmem_alloc {offset = 0 : i64} : !jfa.tmem<128x128xf32>
  %p = jfa.tmem_alloc {offset = 8 : i64} : !jfa.tmem<128x128xbf16>
  %o = jfa.tmem_alloc {offset = 16 : i64} : !jfa.tmem<128x128xf32>
}

// -----

// A double-buffered accumulator: a JFA value chosen at run time (an scf.if
// the canonicalizer may turn into arith.select) becomes the select of the
// tensor-memory addresses.
// CHECK-LABEL: llvm.func @pick_buffer
// CHECK: nvvm.tcgen05.fence <after>
// CHECK: %[[C0:.*]] = llvm.mlir.constant(0 : i32)
// CHECK-NEXT: llvm.add %{{.*}}, %[[C0]]
// CHECK-NEXT: %[[A0:.*]] = llvm.inttoptr %{{.*}} : i32 to !llvm.ptr<6>
// CHECK: llvm.mlir.constant(256 : i32)
// CHECK-NEXT: llvm.add
// CHECK-NEXT: %[[A1:.*]] = llvm.inttoptr %{{.*}} : i32 to !llvm.ptr<6>
// CHECK: llvm.select %{{.*}}, %[[A0]], %[[A1]] : i1, !llvm.ptr<6>
// CHECK: scf.if %{{.*}} -> (!llvm.ptr<6>)
// CHECK-NOT: unrealized_conversion_cast
// CHECK: llvm.return
jfa.kernel @pick_buffer(%which: i32) warps(4) {
  %acc = jfa.tmem_alloc {offset = 0 : i64} : !jfa.tmem<128x512xf32>
  %acc0 = jfa.tmem_slice %acc columns(0) : !jfa.tmem<128x512xf32> -> !jfa.tmem<128x256xf32>
  %acc1 = jfa.tmem_slice %acc columns(256) : !jfa.tmem<128x512xf32> -> !jfa.tmem<128x256xf32>
  %c0 = arith.constant 0 : i32
  %first = arith.cmpi eq, %which, %c0 : i32
  %picked = arith.select %first, %acc0, %acc1 : !jfa.tmem<128x256xf32>
  %again = scf.if %first -> (!jfa.tmem<128x256xf32>) {
    scf.yield %picked : !jfa.tmem<128x256xf32>
  } else {
    scf.yield %acc1 : !jfa.tmem<128x256xf32>
  }
  jfa.tmem_dealloc %acc : !jfa.tmem<128x512xf32>
}
