// A library of device helpers (no kernel), imported with
// `jfa.import "../lib/gemm_schedule.mlir"`: the GEMMs' tile schedule, the
// same on both targets.

// CTA pid's output tile of C[m, n] = A[m, k] B[n, k]^T in 128x256 tiles,
// grouped by 8 tile rows (CTAs running at the same time share B's tiles
// through L2): the number of k tiles of %k_tile columns (64 bf16 or 128
// fp8: 128 bytes either way) and the tile's first row and column.
jfa.func @gemm_tile(%pid: i32, %m: i32, %n: i32, %k: i32, %k_tile: i32)
    -> (i32, i32, i32) {
  %c128 = arith.constant 128 : i32
  %k_tiles, %row0, %col0 = jfa.call @gemm_tile_rows(%pid, %m, %n, %k, %k_tile, %c128)
      : (i32, i32, i32, i32, i32, i32) -> (i32, i32, i32)
  jfa.return %k_tiles, %row0, %col0 : i32, i32, i32
}

// The same schedule for tiles of %tile_rows x 256: a cluster of two CTAs
// stacked along M takes a 256x256 tile (each CTA 128 of its rows).
jfa.func @gemm_tile_rows(%pid: i32, %m: i32, %n: i32, %k: i32, %k_tile: i32,
                         %tile_rows: i32) -> (i32, i32, i32) {
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %c255 = arith.constant 255 : i32
  %c256 = arith.constant 256 : i32
  %rows_last = arith.subi %tile_rows, %c1 : i32
  %m_up = arith.addi %m, %rows_last : i32
  %tiles_m = arith.divui %m_up, %tile_rows : i32
  %n_up = arith.addi %n, %c255 : i32
  %tiles_n = arith.divui %n_up, %c256 : i32
  %k_last = arith.subi %k_tile, %c1 : i32
  %k_up = arith.addi %k, %k_last : i32
  %k_tiles = arith.divui %k_up, %k_tile : i32
  %group_size = arith.muli %tiles_n, %c8 : i32
  %group = arith.divui %pid, %group_size : i32
  %first_m = arith.muli %group, %c8 : i32
  %left_m = arith.subi %tiles_m, %first_m : i32
  %group_m = arith.minui %left_m, %c8 : i32
  %in_group = arith.remui %pid, %group_size : i32
  %tile_m_off = arith.remui %in_group, %group_m : i32
  %tile_m = arith.addi %first_m, %tile_m_off : i32
  %tile_n = arith.divui %in_group, %group_m : i32
  %row0 = arith.muli %tile_m, %tile_rows : i32
  %col0 = arith.muli %tile_n, %c256 : i32
  jfa.return %k_tiles, %row0, %col0 : i32, i32, i32
}

// A persistent kernel's walk in clusters of two CTAs stacked along M over
// the 256x256 tiles of C[m, n]: this CTA's cluster rank and its peer's,
// the cluster's first tile and the stride of its walk (the number of
// clusters: cluster q takes the tiles q, q + Q, ...), the number of tiles,
// and this CTA's first row in a tile (also that of its half of B's tile).
jfa.func @gemm_cluster_walk(%m: i32, %n: i32) -> (i32, i32, i32, i32, i32, i32) {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c128 = arith.constant 128 : i32
  %c255 = arith.constant 255 : i32
  %c256 = arith.constant 256 : i32
  %rank = jfa.cluster_rank
  %peer = arith.xori %rank, %c1 : i32
  %cluster = jfa.cluster_id x
  %ctas = jfa.num_programs x
  %clusters = arith.divui %ctas, %c2 : i32
  %m_up = arith.addi %m, %c255 : i32
  %tiles_m = arith.divui %m_up, %c256 : i32
  %n_up = arith.addi %n, %c255 : i32
  %tiles_n = arith.divui %n_up, %c256 : i32
  %tiles = arith.muli %tiles_m, %tiles_n : i32
  %my_rows = arith.muli %rank, %c128 : i32
  jfa.return %rank, %peer, %cluster, %clusters, %tiles, %my_rows : i32, i32, i32, i32, i32, i32
}

// A cluster's k-step %kt (ring step %step) of a CTA that shares B with its
// peer: once both CTAs' consumers have freed the stage, this CTA's 128x64
// tile of A at row %row0 and its half (cluster rank %rank) of B's 256x64
// tile at row %b_row0, multicast to both CTAs; 48 KiB complete on each
// CTA's full barrier. Written for 3 stages of bf16; a caller's rings bind
// the count (stage_parameter) and its operands the element type
// (element_parameter: fp8 tiles are 128x128, the same 128-byte rows), and
// %k_tile is the k tile's width in elements (64 bf16, 128 fp8).
jfa.func @gemm_load_shared_b(%step: i32, %kt: i32, %k_tile: i32, %rank: i32, %row0: i32,
                             %b_row0: i32,
                             %a: !jfa.tma<128x64xbf16, swizzle 128>,
                             %b: !jfa.tma<128x64xbf16, swizzle 128>,
                             %a_ring: !jfa.smem<3 x 128x64xbf16, swizzle 128>,
                             %b_ring: !jfa.smem<3 x 256x64xbf16, swizzle 128>,
                             %full: !jfa.mbarriers<3>, %empty: !jfa.mbarriers<3>)
    attributes {stage_parameter = 3, element_parameter = bf16} {
  %c1 = arith.constant 1 : i32
  %both = arith.constant 3 : i16
  %s, %phase = jfa.ring_position %step stages(3) : i32
  %free_phase = arith.xori %phase, %c1 : i32
  %empty_s = jfa.barrier %empty[%s] : !jfa.mbarriers<3>, i32
  jfa.barrier_wait %empty_s, %free_phase
  %full_s = jfa.barrier %full[%s] : !jfa.mbarriers<3>, i32
  %a_s = jfa.slot %a_ring[%s] : !jfa.smem<3 x 128x64xbf16, swizzle 128>, i32
  %b_s = jfa.slot %b_ring[%s] : !jfa.smem<3 x 256x64xbf16, swizzle 128>, i32
  %b_half = jfa.row_block %b_s[%rank]
      : !jfa.slot<256x64xbf16, swizzle 128> -> !jfa.slot<128x64xbf16, swizzle 128>
  %kcol = arith.muli %kt, %k_tile : i32
  jfa.barrier_expect %full_s, bytes(49152)
  jfa.tma_load %a[%row0, %kcol], %a_s, %full_s : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
  jfa.tma_load %b[%b_row0, %kcol], %b_half, %full_s multicast(%both) : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
  jfa.return
}

// A persistent cluster's producer (gemm_persistent_multicast_sm90.mlir and
// its fp8 twin): the cluster's 256x256 tiles %tile0, %tile0 + %stride, ...
// below %tiles (@gemm_cluster_walk), each one's k tiles of %k_tile columns
// loaded by @gemm_load_shared_b, the ring's steps running on across tiles.
// Written for 3 stages of bf16, as @gemm_load_shared_b.
jfa.func @gemm_produce_shared_b(%tile0: i32, %stride: i32, %tiles: i32, %m: i32, %n: i32,
                                %k: i32, %k_tile: i32, %rank: i32, %my_rows: i32,
                                %a: !jfa.tma<128x64xbf16, swizzle 128>,
                                %b: !jfa.tma<128x64xbf16, swizzle 128>,
                                %a_ring: !jfa.smem<3 x 128x64xbf16, swizzle 128>,
                                %b_ring: !jfa.smem<3 x 256x64xbf16, swizzle 128>,
                                %full: !jfa.mbarriers<3>, %empty: !jfa.mbarriers<3>)
    attributes {stage_parameter = 3, element_parameter = bf16} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c256 = arith.constant 256 : i32
  %steps = scf.for %tile = %tile0 to %tiles step %stride iter_args(%step0 = %c0) -> (i32) : i32 {
    %k_tiles, %pair_row0, %col0 = jfa.call @gemm_tile_rows(%tile, %m, %n, %k, %k_tile, %c256)
        : (i32, i32, i32, i32, i32, i32) -> (i32, i32, i32)
    %row0 = arith.addi %pair_row0, %my_rows : i32
    %b_row0 = arith.addi %col0, %my_rows : i32
    scf.for %kt = %c0 to %k_tiles step %c1 : i32 {
      %step = arith.addi %step0, %kt : i32
      jfa.call @gemm_load_shared_b(%step, %kt, %k_tile, %rank, %row0, %b_row0, %a, %b, %a_ring, %b_ring, %full, %empty)
          : (i32, i32, i32, i32, i32, i32, !jfa.tma<128x64xbf16, swizzle 128>, !jfa.tma<128x64xbf16, swizzle 128>,
             !jfa.smem<3 x 128x64xbf16, swizzle 128>, !jfa.smem<3 x 256x64xbf16, swizzle 128>,
             !jfa.mbarriers<3>, !jfa.mbarriers<3>) -> ()
    }
    %next = arith.addi %step0, %k_tiles : i32
    scf.yield %next : i32
  }
  jfa.return
}
