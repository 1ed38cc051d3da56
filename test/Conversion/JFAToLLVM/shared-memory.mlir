// RUN: jfa-opt %s --split-input-file --jfa-convert-to-llvm | FileCheck %s
// SharedMemoryToLLVM.cpp: buffers are offsets into @jfa_smem, a slot is a GEP
// with the slot's byte size as stride, and a thread's fragment moves piece by
// piece where its layout puts it (blocked, #jfa.wgmma_acc, #jfa.tmem_row),
// through the swizzle: offset ^ ((offset >> 3) & ((swizzle / 16 - 1) << 4)).
// The swizzle repeats every 1024 bytes, so a piece whose constant delta
// from the thread's first element is high + low (high a multiple of 1024)
// is at swizzle(first + low) + high: one swizzled address per distinct low,
// and `high` as a GEP constant (the store's immediate offset).
// (The two constants of the swizzle are matched in either order: the order
// the builder creates them in is the C++ compiler's argument evaluation order.)

// CHECK: llvm.mlir.global external @jfa_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK-LABEL: llvm.func @alloc_and_slots
// Offset 0 is the window itself; other offsets are an i8 GEP.
// CHECK: %[[A:.*]] = llvm.mlir.addressof @jfa_smem : !llvm.ptr<3>
// CHECK-NEXT: %[[W:.*]] = llvm.mlir.addressof @jfa_smem : !llvm.ptr<3>
// CHECK-NEXT: %[[B:.*]] = llvm.getelementptr %[[W]][32768] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// Slot i is base + i * slot bytes: 64x64xf32 = 16384, 64x64xbf16 = 8192.
// CHECK: llvm.getelementptr %[[A]][%[[I1:.*]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<16384 x i8>
// CHECK: llvm.getelementptr %[[B]][%[[I2:.*]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<8192 x i8>
// CHECK-NOT: jfa.
// CHECK: llvm.return
jfa.kernel @alloc_and_slots() warps(4) {
  %a = jfa.local_alloc {offset = 0 : i64} : !jfa.smem<2 x 64x64xf32>
  %b = jfa.local_alloc {offset = 32768 : i64} : !jfa.smem<3 x 64x64xbf16, swizzle 128>
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %sa = jfa.slot %a[%c1] : !jfa.smem<2 x 64x64xf32>, i32
  %sb = jfa.slot %b[%c2] : !jfa.smem<3 x 64x64xbf16, swizzle 128>, i32
  %t = jfa.thread_id
  %v = jfa.load_fragment %sa, %t threads(128) : !jfa.slot<64x64xf32> -> vector<32xf32>
  %w = jfa.load_fragment %sb, %t threads(128) : !jfa.slot<64x64xbf16, swizzle 128> -> vector<32xbf16>
}

// -----

// Blocked, no swizzle: thread t's first element is 4t (row 4t / 64, column
// 4t % 64); its 8 chunks of 4 are 128 * 4 elements = 8 rows (2048 bytes)
// apart, each one 16-byte vector load.
// CHECK-LABEL: llvm.func @blocked
// CHECK: %[[T:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[SLOT:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<16384 x i8>
// CHECK: llvm.mlir.constant(4 : i32)
// CHECK-NEXT: %[[FIRST:.*]] = llvm.mul %[[T]], %{{.*}} : i32
// CHECK-NEXT: llvm.mlir.constant(64 : i32)
// CHECK-NEXT: %[[ROW:.*]] = llvm.udiv %[[FIRST]], %{{.*}} : i32
// CHECK-NEXT: llvm.mlir.constant(64 : i32)
// CHECK-NEXT: %[[COL:.*]] = llvm.urem %[[FIRST]], %{{.*}} : i32
// CHECK-NEXT: llvm.mlir.constant(64 : i32)
// CHECK-NEXT: %[[RC:.*]] = llvm.mul %[[ROW]], %{{.*}} : i32
// CHECK-NEXT: %[[EL:.*]] = llvm.add %[[RC]], %[[COL]] : i32
// CHECK-NEXT: llvm.mlir.constant(4 : i32)
// CHECK-NEXT: %[[BYTES:.*]] = llvm.mul %[[EL]], %{{.*}} : i32
// CHECK-NEXT: %[[D:.*]] = llvm.mlir.constant(0 : i32)
// CHECK-NEXT: %[[O:.*]] = llvm.add %[[BYTES]], %[[D]] : i32
// CHECK-NEXT: %[[P:.*]] = llvm.getelementptr %[[SLOT]][%[[O]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK-NEXT: llvm.load %[[P]] {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-NOT: llvm.xor
// CHECK: %[[D:.*]] = llvm.mlir.constant(2048 : i32)
// CHECK-NEXT: %[[O:.*]] = llvm.add %[[BYTES]], %[[D]] : i32
// CHECK-NEXT: %[[P:.*]] = llvm.getelementptr %[[SLOT]][%[[O]]]
// CHECK-NEXT: llvm.load %[[P]] {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// Registers 4..7 come from the second chunk.
// CHECK: llvm.insertelement %{{.*}}, %{{.*}}[%{{.*}} : i32] : vector<32xf32>
// CHECK: %[[D:.*]] = llvm.mlir.constant(4096 : i32)
// CHECK: %[[D:.*]] = llvm.mlir.constant(6144 : i32)
// CHECK: %[[D:.*]] = llvm.mlir.constant(8192 : i32)
// CHECK: %[[D:.*]] = llvm.mlir.constant(10240 : i32)
// CHECK: %[[D:.*]] = llvm.mlir.constant(12288 : i32)
// CHECK: %[[D:.*]] = llvm.mlir.constant(14336 : i32)
// CHECK-NEXT: %[[O:.*]] = llvm.add %[[BYTES]], %[[D]] : i32
// CHECK-NEXT: %[[P:.*]] = llvm.getelementptr %[[SLOT]][%[[O]]]
// CHECK-NEXT: llvm.load %[[P]] {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-NOT: llvm.load
// CHECK-NOT: llvm.xor
// CHECK: llvm.return
jfa.kernel @blocked() warps(4) {
  %a = jfa.local_alloc {offset = 0 : i64} : !jfa.smem<1 x 64x64xf32>
  %c0 = arith.constant 0 : i32
  %t = jfa.thread_id
  %s = jfa.slot %a[%c0] : !jfa.smem<1 x 64x64xf32>, i32
  %v = jfa.load_fragment %s, %t threads(128) : !jfa.slot<64x64xf32> -> vector<32xf32>
}

// -----

// Blocked store into a 128-byte swizzled 64x32xf32 slot: 4 chunks, 16 rows
// (2048 bytes) apart; each address goes through the 128B swizzle (mask 0x70).
// CHECK-LABEL: llvm.func @blocked_swizzled_store
// CHECK: %[[T:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[SLOT:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<8192 x i8>
// CHECK: llvm.mlir.constant(4 : i32)
// CHECK-NEXT: %[[FIRST:.*]] = llvm.mul %[[T]], %{{.*}} : i32
// CHECK-NEXT: llvm.mlir.constant(32 : i32)
// CHECK-NEXT: %[[ROW:.*]] = llvm.udiv %[[FIRST]], %{{.*}} : i32
// CHECK-NEXT: llvm.mlir.constant(32 : i32)
// CHECK-NEXT: %[[COL:.*]] = llvm.urem %[[FIRST]], %{{.*}} : i32
// CHECK-NEXT: llvm.mlir.constant(32 : i32)
// CHECK-NEXT: %[[RC:.*]] = llvm.mul %[[ROW]], %{{.*}} : i32
// CHECK-NEXT: %[[EL:.*]] = llvm.add %[[RC]], %[[COL]] : i32
// CHECK-NEXT: llvm.mlir.constant(4 : i32)
// CHECK-NEXT: %[[BYTES:.*]] = llvm.mul %[[EL]], %{{.*}} : i32
// CHECK-NEXT: %[[D:.*]] = llvm.mlir.constant(0 : i32)
// CHECK-NEXT: %[[O:.*]] = llvm.add %[[BYTES]], %[[D]] : i32
// CHECK-DAG: %[[MASK:.*]] = llvm.mlir.constant(112 : i32) : i32
// CHECK-DAG: %[[THREE:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK: %[[SH:.*]] = llvm.lshr %[[O]], %[[THREE]] : i32
// CHECK-NEXT: %[[R:.*]] = llvm.and %[[SH]], %[[MASK]] : i32
// CHECK-NEXT: %[[X:.*]] = llvm.xor %[[O]], %[[R]] : i32
// CHECK-NEXT: %[[P:.*]] = llvm.getelementptr %[[SLOT]][%[[X]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK: llvm.store %{{.*}}, %[[P]] {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// The other chunks are 2048, 4096 and 6144 bytes on: the first's swizzled
// address plus a constant, with no swizzle of their own.
// CHECK-NOT: llvm.xor
// CHECK: %[[P1:.*]] = llvm.getelementptr %[[P]][2048] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: llvm.store %{{.*}}, %[[P1]] {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK: %[[P2:.*]] = llvm.getelementptr %[[P]][4096]
// CHECK: llvm.store %{{.*}}, %[[P2]] {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK: %[[P3:.*]] = llvm.getelementptr %[[P]][6144]
// CHECK: llvm.store %{{.*}}, %[[P3]] {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK-NOT: llvm.xor
// CHECK-NOT: llvm.store
// CHECK: llvm.return
jfa.kernel @blocked_swizzled_store() warps(4) {
  %a = jfa.local_alloc {offset = 0 : i64} : !jfa.smem<1 x 64x32xf32, swizzle 128>
  %c0 = arith.constant 0 : i32
  %t = jfa.thread_id
  %s = jfa.slot %a[%c0] : !jfa.smem<1 x 64x32xf32, swizzle 128>, i32
  %v = arith.constant dense<1.0> : vector<16xf32>
  jfa.store_fragment %v, %s, %t threads(128) : vector<16xf32> -> !jfa.slot<64x32xf32, swizzle 128>
}

// -----

// #jfa.wgmma_acc: thread t sits at row 64(t/128) + 16((t%128)/32) + (t%32)/4,
// column 2(t%4); its pairs of registers are at (0, 8j) and (8, 8j), i.e.
// byte deltas 0, 1024, 32, 1056, ... for 32 f32 columns (8-byte pieces):
// 4 swizzled addresses (lows 0, 32, 64, 96), each also used + 1024.
// CHECK-LABEL: llvm.func @wgmma_acc
// CHECK: %[[T:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[SLOT:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<8192 x i8>
// CHECK: llvm.mlir.constant(128 : i32)
// CHECK-NEXT: %[[WG:.*]] = llvm.udiv %[[T]], %{{.*}} : i32
// CHECK-NEXT: llvm.mlir.constant(128 : i32)
// CHECK-NEXT: %[[IN:.*]] = llvm.urem %[[T]], %{{.*}} : i32
// CHECK-NEXT: llvm.mlir.constant(32 : i32)
// CHECK-NEXT: %[[WARP:.*]] = llvm.udiv %[[IN]], %{{.*}} : i32
// CHECK-NEXT: llvm.mlir.constant(32 : i32)
// CHECK-NEXT: %[[LANE:.*]] = llvm.urem %[[IN]], %{{.*}} : i32
// CHECK-NEXT: llvm.mlir.constant(64 : i32)
// CHECK-NEXT: %[[R0:.*]] = llvm.mul %[[WG]], %{{.*}} : i32
// CHECK-NEXT: llvm.mlir.constant(16 : i32)
// CHECK-NEXT: %[[R1:.*]] = llvm.mul %[[WARP]], %{{.*}} : i32
// CHECK-NEXT: %[[R2:.*]] = llvm.add %[[R0]], %[[R1]] : i32
// CHECK-NEXT: llvm.mlir.constant(4 : i32)
// CHECK-NEXT: %[[R3:.*]] = llvm.udiv %[[LANE]], %{{.*}} : i32
// CHECK-NEXT: %[[ROW:.*]] = llvm.add %[[R2]], %[[R3]] : i32
// CHECK-NEXT: llvm.mlir.constant(4 : i32)
// CHECK-NEXT: %[[Q:.*]] = llvm.urem %[[LANE]], %{{.*}} : i32
// CHECK-NEXT: llvm.mlir.constant(2 : i32)
// CHECK-NEXT: %[[COL:.*]] = llvm.mul %[[Q]], %{{.*}} : i32
// CHECK-NEXT: llvm.mlir.constant(32 : i32)
// CHECK-NEXT: %[[RC:.*]] = llvm.mul %[[ROW]], %{{.*}} : i32
// CHECK-NEXT: %[[EL:.*]] = llvm.add %[[RC]], %[[COL]] : i32
// CHECK-NEXT: llvm.mlir.constant(4 : i32)
// CHECK-NEXT: %[[BYTES:.*]] = llvm.mul %[[EL]], %{{.*}} : i32
// CHECK-NEXT: llvm.mlir.constant(0 : i32)
// CHECK-NEXT: %[[O:.*]] = llvm.add %[[BYTES]], %{{.*}} : i32
// CHECK-DAG: %[[MASK:.*]] = llvm.mlir.constant(112 : i32) : i32
// CHECK-DAG: %[[THREE:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK: %[[SH:.*]] = llvm.lshr %[[O]], %[[THREE]] : i32
// CHECK-NEXT: %[[R:.*]] = llvm.and %[[SH]], %[[MASK]] : i32
// CHECK-NEXT: %[[X:.*]] = llvm.xor %[[O]], %[[R]] : i32
// CHECK-NEXT: %[[P:.*]] = llvm.getelementptr %[[SLOT]][%[[X]]]
// CHECK-NEXT: llvm.load %[[P]] {alignment = 8 : i64} : !llvm.ptr<3> -> vector<2xf32>
// Row 8 is 1024 bytes on: the same swizzled address plus 1024.
// CHECK: %[[P8:.*]] = llvm.getelementptr %[[P]][1024] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NEXT: llvm.load %[[P8]] {alignment = 8 : i64} : !llvm.ptr<3> -> vector<2xf32>
// Columns 8, 16, 24 (32, 64, 96 bytes): a swizzled address each, then + 1024.
// CHECK: %[[D:.*]] = llvm.mlir.constant(32 : i32)
// CHECK-NEXT: %[[O:.*]] = llvm.add %[[BYTES]], %[[D]] : i32
// CHECK: %[[X:.*]] = llvm.xor %[[O]], %{{.*}} : i32
// CHECK-NEXT: %[[P:.*]] = llvm.getelementptr %[[SLOT]][%[[X]]]
// CHECK: llvm.getelementptr %[[P]][1024]
// CHECK: %[[D:.*]] = llvm.mlir.constant(64 : i32)
// CHECK-NEXT: llvm.add %[[BYTES]], %[[D]] : i32
// CHECK: %[[D:.*]] = llvm.mlir.constant(96 : i32)
// CHECK-NEXT: llvm.add %[[BYTES]], %[[D]] : i32
// CHECK: %[[X:.*]] = llvm.xor
// CHECK-NEXT: %[[P:.*]] = llvm.getelementptr %[[SLOT]][%[[X]]]
// CHECK: llvm.getelementptr %[[P]][1024]
// CHECK: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<3> -> vector<2xf32>
// CHECK-NOT: llvm.xor
// CHECK-NOT: llvm.load
// CHECK: llvm.return
jfa.kernel @wgmma_acc() warps(4) {
  %a = jfa.local_alloc {offset = 0 : i64} : !jfa.smem<1 x 64x32xf32, swizzle 128>
  %c0 = arith.constant 0 : i32
  %t = jfa.thread_id
  %s = jfa.slot %a[%c0] : !jfa.smem<1 x 64x32xf32, swizzle 128>, i32
  %v = jfa.load_fragment %s, %t threads(128) layout(#jfa.wgmma_acc) : !jfa.slot<64x32xf32, swizzle 128> -> vector<16xf32>
}

// -----

// The same fragment stored: a half-warp's 8-byte stores would put rows 2i
// and 2i+1 on the same two 16-byte chunks (a 2-way bank conflict), so each
// pair goes as two 4-byte stores, odd rows (bit 2 of the thread index)
// writing their second element first: every store a conflict-free warp.
// CHECK-LABEL: llvm.func @wgmma_acc_store
// CHECK: %[[T:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[SH:.*]] = llvm.lshr %[[T]], %{{.*}} : i32
// CHECK-NEXT: %[[PAR:.*]] = llvm.and %[[SH]], %{{.*}} : i32
// CHECK-NEXT: llvm.mlir.constant(0 : i32)
// CHECK-NEXT: %[[ODD:.*]] = llvm.icmp "ne" %[[PAR]], %{{.*}} : i32
// CHECK: %[[P:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK: %[[X0:.*]] = llvm.extractelement %{{.*}} : vector<16xf32>
// CHECK: %[[X1:.*]] = llvm.extractelement %{{.*}} : vector<16xf32>
// CHECK-NEXT: %[[FIRST:.*]] = llvm.select %[[ODD]], %[[X1]], %[[X0]] : i1, f32
// CHECK-NEXT: %[[SECOND:.*]] = llvm.select %[[ODD]], %[[X0]], %[[X1]] : i1, f32
// CHECK: %[[OFF1:.*]] = llvm.select %[[ODD]], %{{.*}}, %{{.*}} : i1, i32
// CHECK: %[[OFF2:.*]] = llvm.select %[[ODD]], %{{.*}}, %{{.*}} : i1, i32
// CHECK-NEXT: %[[A1:.*]] = llvm.getelementptr %[[P]][%[[OFF1]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK-NEXT: llvm.store %[[FIRST]], %[[A1]] {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK-NEXT: %[[A2:.*]] = llvm.getelementptr %[[P]][%[[OFF2]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK-NEXT: llvm.store %[[SECOND]], %[[A2]] {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK-COUNT-14: llvm.store %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK-NOT: llvm.store
// CHECK: llvm.return
jfa.kernel @wgmma_acc_store() warps(4) {
  %a = jfa.local_alloc {offset = 0 : i64} : !jfa.smem<1 x 64x32xf32, swizzle 128>
  %c0 = arith.constant 0 : i32
  %t = jfa.thread_id
  %s = jfa.slot %a[%c0] : !jfa.smem<1 x 64x32xf32, swizzle 128>, i32
  %v = arith.constant dense<1.0> : vector<16xf32>
  jfa.store_fragment %v, %s, %t threads(128) layout(#jfa.wgmma_acc) : vector<16xf32> -> !jfa.slot<64x32xf32, swizzle 128>
}

// -----

// A 16-bit #jfa.wgmma_acc fragment moves with stmatrix / ldmatrix (m8n8,
// x4): thread t's registers 4j + 2h + {0, 1} are its pair of the 8x8
// matrix at rows 8h, columns 8j of its warp's 16 rows, so block k (columns
// 16k..16k+15) takes registers {8k, 8k+1}, {8k+2, 8k+3}, {8k+4, 8k+5},
// {8k+6, 8k+7} as matrices 0-3, and lane l gives the address of row
// 16 (t / 32) + 8 ((l / 8) % 2) + l % 8, column 16k + 8 (l / 16). In a
// 64x128 slot of two 128-byte-swizzled column blocks (8192 bytes each), the
// blocks k = 0..3 take a swizzled address each (byte deltas 0, 32, 64, 96)
// and k = 4..7 the same + 8192.
// CHECK-LABEL: llvm.func @matrix_store
// CHECK: %[[T:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: llvm.mlir.constant(32 : i32)
// CHECK-NEXT: %[[WARP:.*]] = llvm.udiv %[[T]], %{{.*}} : i32
// CHECK-NEXT: llvm.mlir.constant(32 : i32)
// CHECK-NEXT: %[[LANE:.*]] = llvm.urem %[[T]], %{{.*}} : i32
// CHECK-NEXT: llvm.mlir.constant(8 : i32)
// CHECK-NEXT: %[[L8:.*]] = llvm.udiv %[[LANE]], %{{.*}} : i32
// CHECK-NEXT: llvm.mlir.constant(2 : i32)
// CHECK-NEXT: %[[HALF:.*]] = llvm.urem %[[L8]], %{{.*}} : i32
// CHECK-NEXT: llvm.mlir.constant(16 : i32)
// CHECK-NEXT: %[[W16:.*]] = llvm.mul %[[WARP]], %{{.*}} : i32
// CHECK-NEXT: llvm.mlir.constant(8 : i32)
// CHECK-NEXT: %[[H8:.*]] = llvm.mul %[[HALF]], %{{.*}} : i32
// CHECK-NEXT: %[[R01:.*]] = llvm.add %[[W16]], %[[H8]] : i32
// CHECK-NEXT: llvm.mlir.constant(8 : i32)
// CHECK-NEXT: %[[L7:.*]] = llvm.urem %[[LANE]], %{{.*}} : i32
// CHECK-NEXT: %[[ROW:.*]] = llvm.add %[[R01]], %[[L7]] : i32
// CHECK-NEXT: llvm.mlir.constant(16 : i32)
// CHECK-NEXT: %[[L16:.*]] = llvm.udiv %[[LANE]], %{{.*}} : i32
// CHECK-NEXT: llvm.mlir.constant(8 : i32)
// CHECK-NEXT: %[[COL:.*]] = llvm.mul %[[L16]], %{{.*}} : i32
// Row bytes within a block: 128; column bytes: 2.
// CHECK: %[[CB:.*]] = llvm.mul %[[COL]], %{{.*}} : i32
// CHECK: %[[RB:.*]] = llvm.mul %[[ROW]], %{{.*}} : i32
// CHECK-NEXT: %[[FIRST:.*]] = llvm.add %[[RB]], %[[CB]] : i32
// Block 0: registers 0-7, pairs {0, 1}, {2, 3}, {4, 5}, {6, 7} as words.
// CHECK: llvm.add %[[FIRST]], %{{.*}} : i32
// CHECK: %[[X0:.*]] = llvm.xor
// CHECK-NEXT: %[[P0:.*]] = llvm.getelementptr %{{.*}}[%[[X0]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK: %[[E0:.*]] = llvm.mlir.constant(0 : i32)
// CHECK-NEXT: llvm.extractelement %{{.*}}[%[[E0]] : i32] : vector<64xbf16>
// CHECK: %[[E1:.*]] = llvm.mlir.constant(1 : i32)
// CHECK-NEXT: llvm.extractelement %{{.*}}[%[[E1]] : i32] : vector<64xbf16>
// CHECK: %[[M0:.*]] = llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// CHECK: %[[E2:.*]] = llvm.mlir.constant(2 : i32)
// CHECK-NEXT: llvm.extractelement %{{.*}}[%[[E2]] : i32] : vector<64xbf16>
// CHECK: %[[M1:.*]] = llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// CHECK: %[[E4:.*]] = llvm.mlir.constant(4 : i32)
// CHECK-NEXT: llvm.extractelement %{{.*}}[%[[E4]] : i32] : vector<64xbf16>
// CHECK: %[[M2:.*]] = llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// CHECK: %[[E7:.*]] = llvm.mlir.constant(7 : i32)
// CHECK-NEXT: llvm.extractelement %{{.*}}[%[[E7]] : i32] : vector<64xbf16>
// CHECK: %[[M3:.*]] = llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// CHECK-NEXT: nvvm.stmatrix %[[P0]], %[[M0]], %[[M1]], %[[M2]], %[[M3]] {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : !llvm.ptr<3>, i32, i32, i32, i32
// Blocks 1-3: a swizzled address each (32, 64, 96 bytes on).
// CHECK: %[[D1:.*]] = llvm.mlir.constant(32 : i32)
// CHECK-NEXT: llvm.add %[[FIRST]], %[[D1]] : i32
// CHECK: nvvm.stmatrix
// CHECK: %[[D2:.*]] = llvm.mlir.constant(64 : i32)
// CHECK-NEXT: llvm.add %[[FIRST]], %[[D2]] : i32
// CHECK: nvvm.stmatrix
// CHECK: %[[D3:.*]] = llvm.mlir.constant(96 : i32)
// CHECK-NEXT: llvm.add %[[FIRST]], %[[D3]] : i32
// CHECK: nvvm.stmatrix
// Block 4 (the second column block): block 0's address + 8192, no new swizzle.
// CHECK-NOT: llvm.xor
// CHECK: %[[P4:.*]] = llvm.getelementptr %[[P0]][8192] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: nvvm.stmatrix %[[P4]]
// CHECK-COUNT-3: nvvm.stmatrix
// CHECK-NOT: nvvm.stmatrix
// CHECK-NOT: llvm.store
// CHECK: llvm.return
jfa.kernel @matrix_store() warps(4) {
  %a = jfa.local_alloc {offset = 0 : i64} : !jfa.smem<1 x 64x128xbf16, swizzle 128>
  %c0 = arith.constant 0 : i32
  %t = jfa.thread_id
  %s = jfa.slot %a[%c0] : !jfa.smem<1 x 64x128xbf16, swizzle 128>, i32
  %v = arith.constant dense<1.0> : vector<64xbf16>
  jfa.store_fragment %v, %s, %t threads(128) layout(#jfa.wgmma_acc) : vector<64xbf16> -> !jfa.slot<64x128xbf16, swizzle 128>
}

// -----

// The same moves in: ldmatrix x4 per 16 x 16 block, its four registers
// bitcast back to pairs at the fragment indices stmatrix takes them from.
// In an unswizzled 64x32 slot (64-byte rows) block 1 is 32 bytes on: no
// swizzle, one GEP.
// CHECK-LABEL: llvm.func @matrix_load
// CHECK-NOT: llvm.xor
// CHECK: %[[L0:.*]] = nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// Word i of block 0 is the pair at fragment indices 2i, 2i + 1.
// CHECK: %[[W0:.*]] = llvm.extractvalue %[[L0]][0] : !llvm.struct<(i32, i32, i32, i32)>
// CHECK-NEXT: %[[H0:.*]] = llvm.bitcast %[[W0]] : i32 to vector<2xbf16>
// CHECK: llvm.extractelement %[[H0]]
// CHECK-NEXT: %[[I0:.*]] = llvm.mlir.constant(0 : i32)
// CHECK-NEXT: llvm.insertelement %{{.*}}, %{{.*}}[%[[I0]] : i32] : vector<16xbf16>
// CHECK: llvm.extractelement %[[H0]]
// CHECK-NEXT: %[[I1:.*]] = llvm.mlir.constant(1 : i32)
// CHECK-NEXT: llvm.insertelement %{{.*}}, %{{.*}}[%[[I1]] : i32] : vector<16xbf16>
// CHECK: %[[W1:.*]] = llvm.extractvalue %[[L0]][1] : !llvm.struct<(i32, i32, i32, i32)>
// CHECK-NEXT: %[[H1:.*]] = llvm.bitcast %[[W1]] : i32 to vector<2xbf16>
// CHECK: llvm.extractelement %[[H1]]
// CHECK-NEXT: %[[I2:.*]] = llvm.mlir.constant(2 : i32)
// CHECK-NEXT: llvm.insertelement %{{.*}}, %{{.*}}[%[[I2]] : i32] : vector<16xbf16>
// CHECK: llvm.extractelement %[[H1]]
// CHECK-NEXT: %[[I3:.*]] = llvm.mlir.constant(3 : i32)
// CHECK-NEXT: llvm.insertelement %{{.*}}, %{{.*}}[%[[I3]] : i32] : vector<16xbf16>
// CHECK: %[[W2:.*]] = llvm.extractvalue %[[L0]][2] : !llvm.struct<(i32, i32, i32, i32)>
// CHECK-NEXT: %[[H2:.*]] = llvm.bitcast %[[W2]] : i32 to vector<2xbf16>
// CHECK: llvm.extractelement %[[H2]]
// CHECK-NEXT: %[[I4:.*]] = llvm.mlir.constant(4 : i32)
// CHECK-NEXT: llvm.insertelement %{{.*}}, %{{.*}}[%[[I4]] : i32] : vector<16xbf16>
// CHECK: llvm.extractelement %[[H2]]
// CHECK-NEXT: %[[I5:.*]] = llvm.mlir.constant(5 : i32)
// CHECK-NEXT: llvm.insertelement %{{.*}}, %{{.*}}[%[[I5]] : i32] : vector<16xbf16>
// CHECK: %[[W3:.*]] = llvm.extractvalue %[[L0]][3] : !llvm.struct<(i32, i32, i32, i32)>
// CHECK-NEXT: %[[H3:.*]] = llvm.bitcast %[[W3]] : i32 to vector<2xbf16>
// CHECK: llvm.extractelement %[[H3]]
// CHECK-NEXT: %[[I6:.*]] = llvm.mlir.constant(6 : i32)
// CHECK-NEXT: llvm.insertelement %{{.*}}, %{{.*}}[%[[I6]] : i32] : vector<16xbf16>
// CHECK: llvm.extractelement %[[H3]]
// CHECK-NEXT: %[[I7:.*]] = llvm.mlir.constant(7 : i32)
// CHECK-NEXT: llvm.insertelement %{{.*}}, %{{.*}}[%[[I7]] : i32] : vector<16xbf16>
// Block 1 is 32 bytes on.
// CHECK: %[[D32:.*]] = llvm.mlir.constant(32 : i32)
// CHECK-NEXT: llvm.add %{{.*}}, %[[D32]] : i32
// CHECK: nvvm.ldmatrix
// CHECK-NOT: nvvm.ldmatrix
// CHECK-NOT: llvm.load
// CHECK-NOT: llvm.xor
// CHECK: llvm.return
jfa.kernel @matrix_load() warps(4) {
  %a = jfa.local_alloc {offset = 0 : i64} : !jfa.smem<1 x 64x32xbf16>
  %c0 = arith.constant 0 : i32
  %t = jfa.thread_id
  %s = jfa.slot %a[%c0] : !jfa.smem<1 x 64x32xbf16>, i32
  %v = jfa.load_fragment %s, %t threads(128) layout(#jfa.wgmma_acc) : !jfa.slot<64x32xbf16> -> vector<16xbf16>
}

// -----

// Where a 16 x 16 block does not fit, the pieces move one by one: a 64x8
// bf16 tile (N = 8) stores its pairs as 4-byte stores (f32 accumulators
// too: @wgmma_acc_store above).
// CHECK-LABEL: llvm.func @matrix_not_used
// CHECK-NOT: nvvm.stmatrix
// CHECK-COUNT-2: llvm.store %{{.*}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<3>
// CHECK-NOT: nvvm.stmatrix
// CHECK: llvm.return
jfa.kernel @matrix_not_used() warps(4) {
  %a = jfa.local_alloc {offset = 0 : i64} : !jfa.smem<1 x 64x8xbf16>
  %c0 = arith.constant 0 : i32
  %t = jfa.thread_id
  %s = jfa.slot %a[%c0] : !jfa.smem<1 x 64x8xbf16>, i32
  %v = arith.constant dense<1.0> : vector<4xbf16>
  jfa.store_fragment %v, %s, %t threads(128) layout(#jfa.wgmma_acc) : vector<4xbf16> -> !jfa.slot<64x8xbf16>
}

// -----

// #jfa.tmem_row: thread t holds row t % 128 from column 0, read as 16-byte
// pieces (8 bf16) at byte deltas 0, 16, ..., 112, through the swizzle.
// CHECK-LABEL: llvm.func @tmem_row
// CHECK: %[[T:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[SLOT:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<16384 x i8>
// CHECK: llvm.mlir.constant(128 : i32)
// CHECK-NEXT: %[[ROW:.*]] = llvm.urem %[[T]], %{{.*}} : i32
// CHECK-NEXT: %[[COL:.*]] = llvm.mlir.constant(0 : i32)
// CHECK-NEXT: llvm.mlir.constant(64 : i32)
// CHECK-NEXT: %[[RC:.*]] = llvm.mul %[[ROW]], %{{.*}} : i32
// CHECK-NEXT: %[[EL:.*]] = llvm.add %[[RC]], %[[COL]] : i32
// CHECK-NEXT: llvm.mlir.constant(2 : i32)
// CHECK-NEXT: %[[BYTES:.*]] = llvm.mul %[[EL]], %{{.*}} : i32
// CHECK-NEXT: llvm.mlir.constant(0 : i32)
// CHECK-NEXT: %[[O:.*]] = llvm.add %[[BYTES]], %{{.*}} : i32
// CHECK-DAG: %[[MASK:.*]] = llvm.mlir.constant(112 : i32) : i32
// CHECK-DAG: %[[THREE:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK: %[[SH:.*]] = llvm.lshr %[[O]], %[[THREE]] : i32
// CHECK-NEXT: %[[R:.*]] = llvm.and %[[SH]], %[[MASK]] : i32
// CHECK-NEXT: %[[X:.*]] = llvm.xor %[[O]], %[[R]] : i32
// CHECK-NEXT: %[[P:.*]] = llvm.getelementptr %[[SLOT]][%[[X]]]
// CHECK-NEXT: llvm.load %[[P]] {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xbf16>
// CHECK: %[[D:.*]] = llvm.mlir.constant(16 : i32)
// CHECK-NEXT: llvm.add %[[BYTES]], %[[D]] : i32
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xbf16>
// CHECK: %[[D:.*]] = llvm.mlir.constant(32 : i32)
// CHECK-NEXT: llvm.add %[[BYTES]], %[[D]] : i32
// The 6 remaining pieces (deltas 32 .. 112), and no more.
// CHECK-COUNT-6: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xbf16>
// CHECK-NOT: llvm.load
// CHECK: llvm.return
jfa.kernel @tmem_row() warps(4) {
  %a = jfa.local_alloc {offset = 0 : i64} : !jfa.smem<1 x 128x64xbf16, swizzle 128>
  %c0 = arith.constant 0 : i32
  %t = jfa.thread_id
  %s = jfa.slot %a[%c0] : !jfa.smem<1 x 128x64xbf16, swizzle 128>, i32
  %v = jfa.load_fragment %s, %t threads(128) layout(#jfa.tmem_row) : !jfa.slot<128x64xbf16, swizzle 128> -> vector<64xbf16>
}

// -----

// A blocked slot (128 bf16 per row = two 128-byte column blocks of 128 rows
// x 128 bytes): #jfa.tmem_row's pieces (8 bf16) go to block col / 64
// (16384 bytes apart), row * 128 bytes within it, (col % 64) * 2 bytes
// across it, then through the swizzle. Thread t's part (row t * 128) is
// computed once; each piece adds a constant: 0, 16, ..., 112, then 16384,
// 16400, ..., 16496 for block 1, which reuse block 0's swizzled addresses
// (+ 16384). 16 pieces, and no more.
// CHECK-LABEL: llvm.func @tmem_row_blocked
// CHECK: %[[ROW:.*]] = llvm.urem %{{.*}}, %{{.*}} : i32
// CHECK: %[[C128:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT: %[[RB:.*]] = llvm.mul %[[ROW]], %[[C128]] : i32
// CHECK-NEXT: %[[FIRST:.*]] = llvm.add %[[RB]], %{{.*}} : i32
// CHECK: llvm.mlir.constant(112 : i32)
// CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<3>
// CHECK: %[[D:.*]] = llvm.mlir.constant(16 : i32) : i32
// CHECK-NEXT: llvm.add %[[FIRST]], %[[D]] : i32
// CHECK: %[[D:.*]] = llvm.mlir.constant(96 : i32) : i32
// CHECK-NEXT: llvm.add %[[FIRST]], %[[D]] : i32
// Block 1 is 16384 bytes on (a multiple of the swizzle's 1024-byte period):
// block 0's 8 swizzled addresses again, each + 16384.
// CHECK: llvm.getelementptr %{{.*}}[16384] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NOT: llvm.xor
// CHECK-COUNT-7: llvm.getelementptr %{{.*}}[16384] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NOT: llvm.xor
// CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<3>
// CHECK-NOT: llvm.store
// CHECK: llvm.return
jfa.kernel @tmem_row_blocked() warps(4) {
  %a = jfa.local_alloc {offset = 0 : i64} : !jfa.smem<1 x 128x128xbf16, swizzle 128>
  %c0 = arith.constant 0 : i32
  %t = jfa.thread_id
  %s = jfa.slot %a[%c0] : !jfa.smem<1 x 128x128xbf16, swizzle 128>, i32
  %v = arith.constant dense<1.0> : vector<128xbf16>
  jfa.store_fragment %v, %s, %t threads(128) layout(#jfa.tmem_row) : vector<128xbf16> -> !jfa.slot<128x128xbf16, swizzle 128>
}

// -----

// #jfa.blocked into a blocked slot: a thread's base column (4t % 128) can
// sit in either block, so each piece's block and column within it are
// computed from its column: block col / 64 (16384 bytes apart), row * 128
// bytes, (col % 64) * 2 bytes, then the swizzle.
// CHECK-LABEL: llvm.func @blocked_layout_blocked
// CHECK: %[[C64:.*]] = llvm.mlir.constant(64 : i32) : i32
// CHECK-NEXT: %[[WITHIN:.*]] = llvm.urem %[[COL:.*]], %[[C64]] : i32
// CHECK-NEXT: %[[TWO:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: %[[WB:.*]] = llvm.mul %[[WITHIN]], %[[TWO]] : i32
// CHECK-NEXT: %[[C128:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT: %[[RB:.*]] = llvm.mul %{{.*}}, %[[C128]] : i32
// CHECK-NEXT: %[[C64B:.*]] = llvm.mlir.constant(64 : i32) : i32
// CHECK-NEXT: %[[BLOCK:.*]] = llvm.udiv %[[COL]], %[[C64B]] : i32
// CHECK-NEXT: %[[BB:.*]] = llvm.mlir.constant(16384 : i32) : i32
// CHECK-NEXT: %[[BO:.*]] = llvm.mul %[[BLOCK]], %[[BB]] : i32
// CHECK-NEXT: %[[O1:.*]] = llvm.add %[[BO]], %[[RB]] : i32
// CHECK-NEXT: %[[O:.*]] = llvm.add %[[O1]], %[[WB]] : i32
// CHECK: llvm.lshr %[[O]]
// CHECK: llvm.xor %[[O]]
// CHECK: llvm.store %{{.*}} {alignment = 8 : i64} : vector<4xbf16>, !llvm.ptr<3>
// CHECK: llvm.return
jfa.kernel @blocked_layout_blocked() warps(4) {
  %a = jfa.local_alloc {offset = 0 : i64} : !jfa.smem<1 x 128x128xbf16, swizzle 128>
  %c0 = arith.constant 0 : i32
  %t = jfa.thread_id
  %s = jfa.slot %a[%c0] : !jfa.smem<1 x 128x128xbf16, swizzle 128>, i32
  %v = arith.constant dense<1.0> : vector<128xbf16>
  jfa.store_fragment %v, %s, %t threads(128) : vector<128xbf16> -> !jfa.slot<128x128xbf16, swizzle 128>
}

// -----

// A column block of a blocked slot is a GEP with the block's bytes as stride
// (64 rows x 128 bytes = 8192).
// CHECK-LABEL: llvm.func @column_block
// CHECK: %[[SLOT:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<16384 x i8>
// CHECK: llvm.getelementptr %[[SLOT]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<8192 x i8>
jfa.kernel @column_block(%i: i32) warps(4) {
  %buf = jfa.local_alloc {offset = 0 : i64} : !jfa.smem<2 x 64x128xbf16, swizzle 128>
  %c1 = arith.constant 1 : i32
  %s = jfa.slot %buf[%c1] : !jfa.smem<2 x 64x128xbf16, swizzle 128>, i32
  %b = jfa.column_block %s[%i] : !jfa.slot<64x128xbf16, swizzle 128> -> !jfa.slot<64x64xbf16, swizzle 128>
  %t = jfa.transpose %b : !jfa.slot<64x64xbf16, swizzle 128>
}
