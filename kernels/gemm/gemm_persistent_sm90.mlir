// jfa-targets: sm_90a
// The sm_90a GEMM of gemm_sm90.mlir, persistent:
//   C[M, N] = A[M, K] * B[N, K]^T     bf16 in, f32 accumulate, bf16 out.
//
// Launch with min(#SMs, ceil(M/128) * ceil(N/256)) CTAs of 384 threads: CTA
// p computes the 128x256 tiles p, p + grid, p + 2 grid, ... in the grouped
// order of kernels/lib/gemm_schedule.mlir. The ring of k steps runs on
// across tiles, so the producer loads the next tile's first stages while
// the consumers finish this one and store it, and the store itself (TMA,
// from a staging tile) overlaps the next tile's products: the consumers
// wait for it only when they stage the next tile. A CTA pays its start
// (barriers, launch) once, not once per tile: what the short-K and small
// shapes lose in gemm_sm90 (bench/NOTES.md, run 51). The ring has 4
// stages (192 KiB; gemm_sm90's 3 with the consumer library's stage
// parameter bound to 4) and C is staged in two 128x128 halves (32 KiB,
// @gemm_store_halves): 4-8% on the large shapes (bench/NOTES.md, run 71).
jfa.import "../lib/gemm_schedule.mlir"
jfa.import "../lib/gemm_sm90_consumer.mlir"

jfa.kernel @gemm_persistent_sm90(%a: !jfa.tma<128x64xbf16, swizzle 128>,
                                 %b: !jfa.tma<256x64xbf16, swizzle 128>,
                                 %c: !jfa.tma<128x64xbf16, swizzle 128>,
                                 %m: i32, %n: i32, %k: i32) warps(12) {
  %a_ring = jfa.local_alloc : !jfa.smem<4 x 128x64xbf16, swizzle 128>
  %b_ring = jfa.local_alloc : !jfa.smem<4 x 256x64xbf16, swizzle 128>
  %c_tile = jfa.local_alloc : !jfa.smem<1 x 128x128xbf16, swizzle 128>
  // full: the producer's expect + 48 KiB of TMA; empty: 256 consumer threads.
  %full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<4>
  %empty = jfa.alloc_barriers arrive_count(256) : !jfa.mbarriers<4>

  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c127 = arith.constant 127 : i32
  %c128 = arith.constant 128 : i32
  %c255 = arith.constant 255 : i32
  %c256 = arith.constant 256 : i32

  %pid = jfa.program_id x
  %grid = jfa.num_programs x
  %m_up = arith.addi %m, %c127 : i32
  %tiles_m = arith.divui %m_up, %c128 : i32
  %n_up = arith.addi %n, %c255 : i32
  %tiles_n = arith.divui %n_up, %c256 : i32
  %tiles = arith.muli %tiles_m, %tiles_n : i32

  jfa.async_tasks {
    // Consumers: warps 0-7, two warpgroups (kernels/lib/gemm_sm90_consumer.mlir).
    jfa.task warps(8) registers(232) {
      %no = arith.constant false
      %yes = arith.constant true
      // The CTA's first tile; then each next tile's first k-step is issued
      // before the last tile's C is stored, so the tensor cores work
      // through that epilogue. A CTA past the tile count takes none (a
      // grid may have more CTAs than tiles).
      %has_tile = arith.cmpi ult, %pid, %tiles : i32
      scf.if %has_tile {
        %k_steps0, %row00, %col00 = jfa.call @gemm_tile(%pid, %m, %n, %k, %c64)
            : (i32, i32, i32, i32, i32) -> (i32, i32, i32)
        // At least one k-step (K = 0 multiplies TMA's zero fill: C = 0), as
        // the producer loads.
        %k_tiles0 = arith.maxui %k_steps0, %c1 : i32
        %acc0 = jfa.call @gemm_mainloop(%k_tiles0, %c0, %a_ring, %b_ring, %full, %empty, %no, %c0, %yes)
            : (i32, i32, !jfa.smem<4 x 128x64xbf16, swizzle 128>, !jfa.smem<4 x 256x64xbf16, swizzle 128>,
               !jfa.mbarriers<4>, !jfa.mbarriers<4>, i1, i32, i1) -> tensor<128x256xf32, #jfa.wgmma_acc>
        %second = arith.addi %pid, %grid : i32
        %last:4 = scf.for %tile = %second to %tiles step %grid
            iter_args(%step0 = %k_tiles0, %prev = %acc0, %prev_row = %row00, %prev_col = %col00)
            -> (i32, tensor<128x256xf32, #jfa.wgmma_acc>, i32, i32) : i32 {
          %k_steps, %row0, %col0 = jfa.call @gemm_tile(%tile, %m, %n, %k, %c64)
              : (i32, i32, i32, i32, i32) -> (i32, i32, i32)
          %k_tiles = arith.maxui %k_steps, %c1 : i32
          // The last tile's C, left half first: stored to the staging tile
          // before this tile's first k-step is issued, so that its registers
          // are free for the product (the tile before may still be reading
          // the staging tile); the right half while the product runs.
          %prev16 = arith.truncf %prev : tensor<128x256xf32, #jfa.wgmma_acc> to tensor<128x256xbf16, #jfa.wgmma_acc>
          %left = tensor.extract_slice %prev16[0, 0] [128, 128] [1, 1] : tensor<128x256xbf16, #jfa.wgmma_acc> to tensor<128x128xbf16, #jfa.wgmma_acc>
          %right = tensor.extract_slice %prev16[0, 128] [128, 128] [1, 1] : tensor<128x256xbf16, #jfa.wgmma_acc> to tensor<128x128xbf16, #jfa.wgmma_acc>
          %c_s = jfa.slot %c_tile[%c0] : !jfa.smem<1 x 128x128xbf16, swizzle 128>, i32
          %reused = arith.cmpi ne, %tile, %second : i32
          scf.if %reused {
            jfa.tma_store_wait pending(0)
            jfa.task_barrier
          }
          jfa.call @gemm_store_half(%left, %c_s, %prev_row, %prev_col, %c)
              : (tensor<128x128xbf16, #jfa.wgmma_acc>, !jfa.slot<128x128xbf16, swizzle 128>, i32, i32,
                 !jfa.tma<128x64xbf16, swizzle 128>) -> ()
          %first = jfa.call @gemm_first_step(%step0, %a_ring, %b_ring, %full)
              : (i32, !jfa.smem<4 x 128x64xbf16, swizzle 128>, !jfa.smem<4 x 256x64xbf16, swizzle 128>,
                 !jfa.mbarriers<4>) -> tensor<128x256xf32, #jfa.wgmma_acc>
          jfa.tma_store_wait pending(0)
          jfa.task_barrier
          %prev_col1 = arith.addi %prev_col, %c128 : i32
          jfa.call @gemm_store_half(%right, %c_s, %prev_row, %prev_col1, %c)
              : (tensor<128x128xbf16, #jfa.wgmma_acc>, !jfa.slot<128x128xbf16, swizzle 128>, i32, i32,
                 !jfa.tma<128x64xbf16, swizzle 128>) -> ()
          %acc = jfa.call @gemm_mainloop_from(%c1, %first, %k_tiles, %step0, %a_ring, %b_ring, %full, %empty, %no, %c0, %yes)
              : (i32, tensor<128x256xf32, #jfa.wgmma_acc>, i32, i32, !jfa.smem<4 x 128x64xbf16, swizzle 128>,
                 !jfa.smem<4 x 256x64xbf16, swizzle 128>, !jfa.mbarriers<4>, !jfa.mbarriers<4>, i1, i32, i1)
              -> tensor<128x256xf32, #jfa.wgmma_acc>
          %next = arith.addi %step0, %k_tiles : i32
          scf.yield %next, %acc, %row0, %col0 : i32, tensor<128x256xf32, #jfa.wgmma_acc>, i32, i32
        }
        %last16 = arith.truncf %last#1 : tensor<128x256xf32, #jfa.wgmma_acc> to tensor<128x256xbf16, #jfa.wgmma_acc>
        %many = arith.cmpi ult, %second, %tiles : i32
        jfa.call @gemm_store_halves(%last16, %last#2, %last#3, %c_tile, %c, %many)
            : (tensor<128x256xbf16, #jfa.wgmma_acc>, i32, i32, !jfa.smem<1 x 128x128xbf16, swizzle 128>,
               !jfa.tma<128x64xbf16, swizzle 128>, i1) -> ()
      }
    }
    // Producer: warps 8-11; one thread issues the copies, tile after tile
    // through the one ring.
    jfa.task default registers(40) {
      scf.for %tile = %pid to %tiles step %grid iter_args(%step0 = %c0) -> (i32) : i32 {
        %k_steps, %row0, %col0 = jfa.call @gemm_tile(%tile, %m, %n, %k, %c64)
            : (i32, i32, i32, i32, i32) -> (i32, i32, i32)
        %k_tiles = arith.maxui %k_steps, %c1 : i32
        scf.for %kt = %c0 to %k_tiles step %c1 : i32 {
          %step = arith.addi %step0, %kt : i32
          %s, %phase = jfa.ring_position %step stages(4) : i32
          %free_phase = arith.xori %phase, %c1 : i32
          %empty_s = jfa.barrier %empty[%s] : !jfa.mbarriers<4>, i32
          jfa.barrier_wait %empty_s, %free_phase
          %full_s = jfa.barrier %full[%s] : !jfa.mbarriers<4>, i32
          %a_s = jfa.slot %a_ring[%s] : !jfa.smem<4 x 128x64xbf16, swizzle 128>, i32
          %b_s = jfa.slot %b_ring[%s] : !jfa.smem<4 x 256x64xbf16, swizzle 128>, i32
          %kcol = arith.muli %kt, %c64 : i32
          jfa.barrier_expect %full_s, bytes(49152)
          jfa.tma_load %a[%row0, %kcol], %a_s, %full_s : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
          jfa.tma_load %b[%col0, %kcol], %b_s, %full_s : !jfa.tma<256x64xbf16, swizzle 128>, !jfa.slot<256x64xbf16, swizzle 128>
        }
        %next = arith.addi %step0, %k_tiles : i32
        scf.yield %next : i32
      }
    }
  }
}
