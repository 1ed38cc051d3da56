// jfa-targets: sm_90a
// jfa-variants: head_dim=64 causal=0,1 general=0
// Jagged flash attention forward for sm_90a at D = 64, plain attention
// (causal or not):
// attention_fwd_sm90.mlir's algorithm with FA3's D = 64 structure, three
// consumer warpgroups over 192-row q tiles (64 rows each) instead of two
// over 128-row ones. At D = 64 a tile's MMAs take about as long as its
// exponentials, and two warpgroups taking turns leave the tensor pipe idle
// half the time (bench/NOTES.md, run 82: 50% active); a third gives each
// scheduler a warp to issue from while the others' softmax waits (runs
// 95-97: +7.5% to +13% on the non-causal jagged shapes). The runtime
// takes this kernel's variants over attention_fwd_sm90's (a
// specialization: attention_fwd_<target>_<tag>), the causal one only for
// calls whose max_seqlen is 2048 or more: a 192-row tile on the diagonal
// does more masked work, and short causal sequences lose (bench/NOTES.md
// run 97; the runtime's kTallTileDiagonalMinSeqlen). Its q
// tile, 192 rows, comes from its q TMA box (q_tiles, the schedule, which
// attention_bwd_schedule writes in 192-row tiles, and the grid).
//
// The same contract as attention_fwd_sm90 (kernels/jagged_attention/
// README.md) and the same consumer loop (@forward_consumer,
// kernels/lib/forward_consumer_sm90.mlir, written for 192-row tiles and
// three warpgroups and bound to 128 and two by attention_fwd_sm90: its rows
// parameter, docs/DIALECT.md); the unit decode takes the q tile's rows.
// For D = 64 only: the loop's `scf.if %wide` branches fold away. 512
// threads: the consumers at registers(160), the producer at 24 (3 x 160 +
// 24 = 504 of the 512 per lane of a warpgroup's share).
jfa.import "../lib/band_schedule.mlir"
jfa.import "../lib/work_queue.mlir"
jfa.import "../lib/forward_producer.mlir"
jfa.import "../lib/online_softmax.mlir"
jfa.import "../lib/forward_consumer_sm90.mlir"
jfa.import "../lib/block_mask.mlir"

// The load task (forward_producer.mlir's @forward_producer for plain
// attention at D = 64 on 192-row q tiles): takes the work queue's units,
// loads each unit's Q tile (24 KB) into stage n mod 2 of Q's ring
// (@q_stage) once the consumers are done with the one two units back, and
// its K and V tiles through their rings (@load_unit_kv). One thread issues the copies.
// (%block_bits is not read: no block-sparse mask here.)
jfa.func @q192_producer(%units: i32, %heads: i32, %q_tiles: i32,
                        %schedule: !jfa.ptr<i32>, %next_buf: !jfa.smem<2 x 1xi32>,
                        %next_full: !jfa.mbarriers<2>, %next_empty: !jfa.mbarriers<2>,
                        %offsets: !jfa.ptr<i32>, %is_causal: i1,
                        %block_bits: !jfa.ptr<i32>,
                        %q: !jfa.tma<192x64xbf16, swizzle 128>,
                        %k: !jfa.tma<128x64xbf16, swizzle 128>, %v: !jfa.tma<128x64xbf16, swizzle 128>,
                        %q_ring: !jfa.smem<4 x 192x64xbf16, swizzle 128>,
                        %k_ring: !jfa.smem<4 x 128x64xbf16, swizzle 128>, %v_ring: !jfa.smem<4 x 128x64xbf16, swizzle 128>,
                        %q_full: !jfa.mbarriers<2>, %q_empty: !jfa.mbarriers<2>,
                        %k_full: !jfa.mbarriers<2>, %k_empty: !jfa.mbarriers<2>,
                        %v_full: !jfa.mbarriers<2>, %v_empty: !jfa.mbarriers<2>,
                        %walk_buf: !jfa.smem<4 x 128xi32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c192 = arith.constant 192 : i32
  %none = arith.constant -1 : i32
  %false = arith.constant false
  jfa.call @fetch_unit(%c0, %schedule, %next_buf, %next_full, %next_empty)
      : (i32, !jfa.ptr<i32>, !jfa.smem<2 x 1xi32>, !jfa.mbarriers<2>, !jfa.mbarriers<2>) -> ()
  %counts:4 = scf.while (%taken = %c0, %unit_n = %c0, %kv_n = %c0)
      : (i32, i32, i32) -> (i32, i32, i32, i32) {
    %fetched = jfa.call @fetch_ahead_and_take(%taken, %schedule, %next_buf, %next_full, %next_empty)
        : (i32, !jfa.ptr<i32>, !jfa.smem<2 x 1xi32>, !jfa.mbarriers<2>, !jfa.mbarriers<2>) -> i32
    %more = arith.cmpi slt, %fetched, %units : i32
    scf.condition(%more) %fetched, %taken, %unit_n, %kv_n : i32, i32, i32, i32
  } do {
  ^bb0(%u: i32, %taken: i32, %unit_n: i32, %kv_n: i32):
    %h, %start, %len, %q0, %live, %start_k, %len_k, %row_floor, %key_floor, %lo_off, %hi_off, %mask_below, %mask_above, %block_base, %steps, %first_step, %end_tile = jfa.call @forward_unit(%u, %heads, %q_tiles, %c192, %offsets, %offsets, %schedule, %is_causal, %false, %none, %none, %false, %block_bits, %c0, %c0)
        : (i32, i32, i32, i32, !jfa.ptr<i32>, !jfa.ptr<i32>, !jfa.ptr<i32>, i1, i1, i32, i32, i1, !jfa.ptr<i32>, i32, i32) -> (i32, i32, i32, i32, i1, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32)
    %next:2 = scf.if %live -> (i32, i32) {
      %col = arith.muli %h, %c64 : i32
      %q_row = arith.addi %start, %q0 : i32
      %q_slot, %q_slot_hi, %q_full_u, %q_empty_u, %q_phase, %q_stage = jfa.call @q_stage(%unit_n, %q_ring, %q_full, %q_empty)
          : (i32, !jfa.smem<4 x 192x64xbf16, swizzle 128>, !jfa.mbarriers<2>, !jfa.mbarriers<2>) -> (!jfa.slot<192x64xbf16, swizzle 128>, !jfa.slot<192x64xbf16, swizzle 128>, !jfa.mbarrier, !jfa.mbarrier, i32, i32)
      %q_free = arith.xori %q_phase, %c1 : i32
      jfa.barrier_wait %q_empty_u, %q_free
      jfa.barrier_expect %q_full_u, bytes(24576)
      jfa.tma_load %q[%q_row, %col], %q_slot, %q_full_u : !jfa.tma<192x64xbf16, swizzle 128>, !jfa.slot<192x64xbf16, swizzle 128>
      jfa.call @load_unit_kv(%kv_n, %steps, %first_step, %end_tile, %q0, %c192, %start, %len, %start_k, %len_k, %col, %false,
                             %k, %v, %k_ring, %v_ring, %k_full, %k_empty, %v_full, %v_empty,
                             %false, %false, %block_bits, %block_base, %c0, %walk_buf)
          : (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i1,
             !jfa.tma<128x64xbf16, swizzle 128>, !jfa.tma<128x64xbf16, swizzle 128>,
             !jfa.smem<4 x 128x64xbf16, swizzle 128>, !jfa.smem<4 x 128x64xbf16, swizzle 128>,
             !jfa.mbarriers<2>, !jfa.mbarriers<2>, !jfa.mbarriers<2>, !jfa.mbarriers<2>,
             i1, i1, !jfa.ptr<i32>, i32, i32, !jfa.smem<4 x 128xi32>) -> ()
      %unit_next = arith.addi %unit_n, %c1 : i32
      %kv_next = arith.addi %kv_n, %steps : i32
      scf.yield %unit_next, %kv_next : i32, i32
    } else {
      scf.yield %unit_n, %kv_n : i32, i32
    }
    %taken_next = arith.addi %taken, %c1 : i32
    scf.yield %taken_next, %next#0, %next#1 : i32, i32, i32
  }
  jfa.return
}

jfa.kernel @attention_fwd_sm90_q192(%q: !jfa.tma<192x64xbf16, swizzle 128>,
                                    %k: !jfa.tma<128x64xbf16, swizzle 128>,
                                    %v: !jfa.tma<128x64xbf16, swizzle 128>,
                                    %o: !jfa.ptr<bf16>, %lse: !jfa.ptr<f32>,
                                    %offsets: !jfa.ptr<i32>,
                                    %batch: i32, %heads: i32,
                                    %tokens: i32, %o_stride: i32, %q_tiles: i32,
                                    %scale_log2: f32, %offsets_k: !jfa.ptr<i32>,
                                    %kv_group: i32, %window_left: i32,
                                    %window_right: i32,
                                    %block_bits: !jfa.ptr<i32>, %block_words: i32,
                                    %block_head_stride: i32, %schedule: !jfa.ptr<i32>,
                                    %o_out: !jfa.tma<192x64xbf16, swizzle 128>) warps(16) {
  // Compiled for D = 64 and plain attention only (the header's variants);
  // the branches on the parameters fold away. %window_left,
  // %window_right, %kv_group, %offsets_k and the block mask are not read.
  %head_dim = jfa.param "head_dim" = 64 : i32
  %is_causal = jfa.param "causal" = false
  // 0: plain attention (attention_fwd_sm90.mlir has the others).
  %general_kind = jfa.param "general" = 0 : i32
  // Q (unit n's in stage n mod 2: slot 2s; @q_stage's slot 2s + 1, D =
  // 128's chunk, is not used), K, V: stage s in slot 2s (@load_unit_kv).
  %q_ring = jfa.local_alloc : !jfa.smem<4 x 192x64xbf16, swizzle 128>
  %k_ring = jfa.local_alloc : !jfa.smem<4 x 128x64xbf16, swizzle 128>
  %v_ring = jfa.local_alloc : !jfa.smem<4 x 128x64xbf16, swizzle 128>
  // Block-sparse: the load task's hand-off (@hand_over, block_mask.mlir):
  // slots 0 and 1 a unit's steps by Q's stage, 2 and 3 a step's tile and
  // whether it is listed (@tile_word) by the K/V ring's stage. Only the load task searches
  // the bitmap. %handed: the consumers read what the load task wrote
  // exactly when it writes it (@forward_producer's %hand_off and %sparse).
  // The dense variants drop it (jfa-specialize: nothing uses it there).
  %walk_buf = jfa.local_alloc : !jfa.smem<4 x 128xi32>
  // The work queue's ring (@fetch_unit, @take_unit): 512 readers. After
  // the hand-off buffer, which jfa-specialize drops here, so that the
  // kernel's verifier, which counts it, finds the 227 KiB enough (the
  // buffers are 1024-aligned: this one last pads no other).
  %next_buf = jfa.local_alloc : !jfa.smem<2 x 1xi32>
  %hand_off = arith.constant true
  %next_full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  %next_empty = jfa.alloc_barriers arrive_count(512) : !jfa.mbarriers<2>
  // full: the producer's expect plus the TMA bytes; empty: the 384 consumer
  // threads, once they no longer read the slot.
  %q_full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  %q_empty = jfa.alloc_barriers arrive_count(384) : !jfa.mbarriers<2>
  %k_full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  %k_empty = jfa.alloc_barriers arrive_count(384) : !jfa.mbarriers<2>
  %v_full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  %v_empty = jfa.alloc_barriers arrive_count(384) : !jfa.mbarriers<2>

  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %c192 = arith.constant 192 : i32
  %true = arith.constant true
  // The variant's options (kernels/lib/band_schedule.mlir).
  %general, %kv_group_eff, %activation_eff, %is_softmax, %sparse = jfa.call @attention_variant(%general_kind, %kv_group)
      : (i32, i32) -> (i1, i32, i32, i1, i1)
  %handed = arith.andi %sparse, %hand_off : i1
  // The work queue (kernels/lib/work_queue.mlir): %schedule[0] pairs of
  // (sequence, q tile), each for every head.
  %pairs = jfa.load %schedule[%c0] : !jfa.ptr<i32> -> i32
  %units = arith.muli %pairs, %heads : i32
  %wide = arith.cmpi eq, %head_dim, %c128 : i32
  // Of the 16 8-column groups of each P tile, how many exponentials the FMA
  // pipes compute instead of the special-function unit (jfa.exp2), per head
  // dim. 0 for both: on the H100 shares of 2-6 were 3-15% slower at either
  // head dim, the softmax step being issue-bound (bench/NOTES.md, run 78).
  %exp_share_d64 = arith.constant 0 : i32
  %exp_share_d128 = arith.constant 0 : i32
  %exp_share = arith.select %wide, %exp_share_d128, %exp_share_d64 : i32
  // Whole q tiles of O go out by TMA stores, staged in the unit's own Q
  // stage, whose release then waits for the stores' reads: +1% to +7% on
  // every shape at either head dim against row-clipped stores
  // (bench/NOTES.md, runs 78-81).

  jfa.async_tasks {
    // Consumers: warps 0-11, 192 q rows (64 per warpgroup).
    jfa.task warps(12) registers(160) {
      jfa.call @forward_consumer(%q_ring, %k_ring, %v_ring,
                                 %q_full, %q_empty, %k_full, %k_empty, %v_full, %v_empty,
                                 %next_buf, %next_full, %next_empty, %walk_buf,
                                 %o, %o_out, %lse, %offsets, %offsets_k, %schedule,
                                 %units, %heads, %tokens, %o_stride, %q_tiles, %scale_log2, %window_left, %window_right,
                                 %block_bits, %block_words, %block_head_stride,
                                 %head_dim, %is_causal, %general, %sparse, %handed, %activation_eff, %is_softmax, %exp_share,
                                 %c192, %true)
          : (!jfa.smem<4 x 192x64xbf16, swizzle 128>, !jfa.smem<4 x 128x64xbf16, swizzle 128>, !jfa.smem<4 x 128x64xbf16, swizzle 128>,
             !jfa.mbarriers<2>, !jfa.mbarriers<2>, !jfa.mbarriers<2>, !jfa.mbarriers<2>, !jfa.mbarriers<2>, !jfa.mbarriers<2>,
             !jfa.smem<2 x 1xi32>, !jfa.mbarriers<2>, !jfa.mbarriers<2>, !jfa.smem<4 x 128xi32>,
             !jfa.ptr<bf16>, !jfa.tma<192x64xbf16, swizzle 128>, !jfa.ptr<f32>, !jfa.ptr<i32>, !jfa.ptr<i32>, !jfa.ptr<i32>,
             i32, i32, i32, i32, i32, f32, i32, i32,
             !jfa.ptr<i32>, i32, i32,
             i32, i1, i1, i1, i1, i32, i1, i32,
             i32, i1) -> ()
    }

    // Producer: warps 12-15; one thread issues the copies. 24 registers:
    // the CTA starts with 128 a thread (512 threads), and the consumers' 3 x
    // 160 leave 32 of the 512 per lane of a warpgroup (setmaxnreg.inc only
    // takes what a setmaxnreg.dec gave back).
    jfa.task default registers(24) {
    jfa.call @q192_producer(%units, %heads, %q_tiles, %schedule, %next_buf, %next_full, %next_empty,
                            %offsets, %is_causal, %block_bits, %q, %k, %v, %q_ring, %k_ring, %v_ring,
                            %q_full, %q_empty, %k_full, %k_empty, %v_full, %v_empty, %walk_buf)
        : (i32, i32, i32, !jfa.ptr<i32>, !jfa.smem<2 x 1xi32>, !jfa.mbarriers<2>, !jfa.mbarriers<2>,
           !jfa.ptr<i32>, i1, !jfa.ptr<i32>, !jfa.tma<192x64xbf16, swizzle 128>, !jfa.tma<128x64xbf16, swizzle 128>, !jfa.tma<128x64xbf16, swizzle 128>,
           !jfa.smem<4 x 192x64xbf16, swizzle 128>, !jfa.smem<4 x 128x64xbf16, swizzle 128>, !jfa.smem<4 x 128x64xbf16, swizzle 128>,
           !jfa.mbarriers<2>, !jfa.mbarriers<2>, !jfa.mbarriers<2>, !jfa.mbarriers<2>, !jfa.mbarriers<2>, !jfa.mbarriers<2>,
           !jfa.smem<4 x 128xi32>) -> ()
    }
  }
}
