// A library of device helpers (no kernel), imported from
// kernels/jagged_attention/ with `jfa.import "../lib/forward_producer.mlir"`:
// the attention forwards' walk of a unit and their load task, the same on
// both targets.
jfa.import "band_schedule.mlir"
jfa.import "work_queue.mlir"
jfa.import "block_mask.mlir"

// Unit u of the work queue as every task of a forward walks it, so that
// the tasks cannot disagree on one: @queue_unit's head, sequence and q tile
// (global loads; under %sparse, a compile-time parameter, on the block
// mask's grid, with the row and key floors) and @unit_walk's keys and tiles
// (below).
jfa.func @forward_unit(%u: i32, %heads: i32, %q_tiles: i32, %q_rows: i32,
                       %offsets: !jfa.ptr<i32>, %offsets_k: !jfa.ptr<i32>,
                       %schedule: !jfa.ptr<i32>, %is_causal: i1, %general: i1,
                       %window_left: i32, %window_right: i32, %sparse: i1,
                       %block_bits: !jfa.ptr<i32>, %block_words: i32,
                       %block_head_stride: i32)
    -> (i32, i32, i32, i32, i1, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) {
  %h, %start, %len, %q0, %live, %start_k, %len_k, %row_floor, %key_floor = jfa.call @queue_unit(%u, %heads, %q_tiles, %q_rows, %offsets, %offsets_k, %schedule, %general, %sparse)
      : (i32, i32, i32, i32, !jfa.ptr<i32>, !jfa.ptr<i32>, !jfa.ptr<i32>, i1, i1) -> (i32, i32, i32, i32, i1, i32, i32, i32, i32)
  %lo_off, %hi_off, %mask_below, %mask_above, %block_base, %steps, %first_step, %end_tile = jfa.call @unit_walk(%h, %start, %len, %q0, %q_rows, %live, %start_k, %len_k, %key_floor, %is_causal, %general, %window_left, %window_right, %sparse, %block_bits, %block_words, %block_head_stride)
      : (i32, i32, i32, i32, i32, i1, i32, i32, i32, i1, i1, i32, i32, i1, !jfa.ptr<i32>, i32, i32) -> (i32, i32, i32, i32, i32, i32, i32, i32)
  jfa.return %h, %start, %len, %q0, %live, %start_k, %len_k, %row_floor, %key_floor, %lo_off, %hi_off, %mask_below, %mask_above, %block_base, %steps, %first_step, %end_tile
      : i32, i32, i32, i32, i1, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32
}

// @queue_unit's decode of unit u when it is one (below %units), zeros past
// the last unit, whose schedule entry may not exist.
jfa.func @decode_unit(%u: i32, %units: i32, %heads: i32, %q_tiles: i32, %q_rows: i32,
                      %offsets: !jfa.ptr<i32>, %offsets_k: !jfa.ptr<i32>,
                      %schedule: !jfa.ptr<i32>, %general: i1, %sparse: i1)
    -> (i32, i32, i32, i32, i1, i32, i32, i32, i32) {
  %c0 = arith.constant 0 : i32
  %false = arith.constant false
  %more = arith.cmpi slt, %u, %units : i32
  %d:9 = scf.if %more -> (i32, i32, i32, i32, i1, i32, i32, i32, i32) {
    %h, %start, %len, %q0, %live, %start_k, %len_k, %row_floor, %key_floor = jfa.call @queue_unit(%u, %heads, %q_tiles, %q_rows, %offsets, %offsets_k, %schedule, %general, %sparse)
        : (i32, i32, i32, i32, !jfa.ptr<i32>, !jfa.ptr<i32>, !jfa.ptr<i32>, i1, i1) -> (i32, i32, i32, i32, i1, i32, i32, i32, i32)
    scf.yield %h, %start, %len, %q0, %live, %start_k, %len_k, %row_floor, %key_floor : i32, i32, i32, i32, i1, i32, i32, i32, i32
  } else {
    scf.yield %c0, %c0, %c0, %c0, %false, %c0, %c0, %c0, %c0 : i32, i32, i32, i32, i1, i32, i32, i32, i32
  }
  jfa.return %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7, %d#8 : i32, i32, i32, i32, i1, i32, i32, i32, i32
}

// The sm_90a consumers' decode of their step n's unit one step early
// (work_queue.mlir's @peek_unit: the slot is taken, and released, at step n
// itself). Issued under the current unit's last P V, the decode's two
// dependent rounds of global loads (the schedule, then the offsets) overlap
// it and the epilogue instead of stalling the next unit's first S (issue
// 19's per-unit fixed cost; bench/NOTES.md, run 61).
jfa.func @peek_and_decode(%n: i32, %units: i32, %heads: i32, %q_tiles: i32, %q_rows: i32,
                          %offsets: !jfa.ptr<i32>, %offsets_k: !jfa.ptr<i32>,
                          %schedule: !jfa.ptr<i32>, %general: i1, %sparse: i1,
                          %next_buf: !jfa.smem<2 x 1xi32>,
                          %next_full: !jfa.mbarriers<2>)
    -> (i32, i32, i32, i32, i1, i32, i32, i32, i32) {
  %u = jfa.call @peek_unit(%n, %next_buf, %next_full)
      : (i32, !jfa.smem<2 x 1xi32>, !jfa.mbarriers<2>) -> i32
  %h, %start, %len, %q0, %live, %start_k, %len_k, %row_floor, %key_floor = jfa.call @decode_unit(%u, %units, %heads, %q_tiles, %q_rows, %offsets, %offsets_k, %schedule, %general, %sparse)
      : (i32, i32, i32, i32, i32, !jfa.ptr<i32>, !jfa.ptr<i32>, !jfa.ptr<i32>, i1, i1) -> (i32, i32, i32, i32, i1, i32, i32, i32, i32)
  jfa.return %h, %start, %len, %q0, %live, %start_k, %len_k, %row_floor, %key_floor : i32, i32, i32, i32, i1, i32, i32, i32, i32
}

// A decoded unit's keys and tiles: @unit_keys' key bounds (query i sees
// keys [max(key_floor, i + lo_off), min(len_k, i + hi_off)); keys below
// mask_below or from mask_above need the mask: the tile holding the key
// floor, @queue_unit's, is masked too) and the key tiles it reads (@tile_walk:
// under %sparse, a compile-time parameter, only those with a listed block),
// as the block mask's base for @next_tile, the steps, the first step's tile
// and the end of the tile range. A unit without queries (the schedule lists
// none) takes no step.
jfa.func @unit_walk(%h: i32, %start: i32, %len: i32, %q0: i32, %q_rows: i32, %live: i1,
                    %start_k: i32, %len_k: i32, %key_floor: i32,
                    %is_causal: i1, %general: i1,
                    %window_left: i32, %window_right: i32, %sparse: i1,
                    %block_bits: !jfa.ptr<i32>, %block_words: i32,
                    %block_head_stride: i32)
    -> (i32, i32, i32, i32, i32, i32, i32, i32) {
  %c0 = arith.constant 0 : i32
  %false = arith.constant false
  %first_tile, %kv_tiles, %lo_off, %hi_off, %band_below, %mask_above = jfa.call @unit_keys(%q0, %q_rows, %len, %len_k, %is_causal, %general, %window_left, %window_right)
      : (i32, i32, i32, i32, i1, i1, i32, i32) -> (i32, i32, i32, i32, i32, i32)
  %mask_below = arith.maxsi %band_below, %key_floor : i32
  %block_base = arith.muli %h, %block_head_stride : i32
  %end_tile = arith.addi %first_tile, %kv_tiles : i32
  %walk:2 = scf.if %live -> (i32, i32) {
    %steps, %first_step = jfa.call @tile_walk(%sparse, %false, %first_tile, %kv_tiles, %q0, %q_rows, %block_bits, %block_base, %block_words, %start, %len, %start_k, %len_k)
        : (i1, i1, i32, i32, i32, i32, !jfa.ptr<i32>, i32, i32, i32, i32, i32, i32) -> (i32, i32)
    scf.yield %steps, %first_step : i32, i32
  } else {
    scf.yield %c0, %first_tile : i32, i32
  }
  jfa.return %lo_off, %hi_off, %mask_below, %mask_above, %block_base, %walk#0, %walk#1, %end_tile
      : i32, i32, i32, i32, i32, i32, i32, i32
}

// Unit n's stage of the forwards' Q ring (stage n mod 2): its two 64-column
// chunks (slots 2s and 2s + 1; the second is read at D = 128 only), its full
// and empty barriers, the phase of this use and the stage. For q tiles of
// any height (the rows parameter: 192 in attention_fwd_sm90_q192).
jfa.func @q_stage(%unit_n: i32, %q_ring: !jfa.smem<4 x 128x64xbf16, swizzle 128>,
                  %q_full: !jfa.mbarriers<2>, %q_empty: !jfa.mbarriers<2>)
    -> (!jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>,
        !jfa.mbarrier, !jfa.mbarrier, i32, i32) attributes {rows_parameter = 128} {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %stage, %phase = jfa.ring_position %unit_n stages(2) : i32
  %full = jfa.barrier %q_full[%stage] : !jfa.mbarriers<2>, i32
  %empty = jfa.barrier %q_empty[%stage] : !jfa.mbarriers<2>, i32
  %chunk0 = arith.muli %stage, %c2 : i32
  %chunk1 = arith.addi %chunk0, %c1 : i32
  %lo = jfa.slot %q_ring[%chunk0] : !jfa.smem<4 x 128x64xbf16, swizzle 128>, i32
  %hi = jfa.slot %q_ring[%chunk1] : !jfa.smem<4 x 128x64xbf16, swizzle 128>, i32
  jfa.return %lo, %hi, %full, %empty, %phase, %stage
      : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, !jfa.mbarrier, !jfa.mbarrier, i32, i32
}

// Unit n's K and V tiles (the unit's %steps steps from the K/V ring's
// position %kv_n, first tile %first_step) through the 2-stage rings (stage
// s, 64-column chunk c in slot 2s + c; D = 128 two chunks): the tiles of
// k/v columns from %kv_col0, and under %sparse (a compile-time parameter)
// only those with a listed block (@next_tile; the q tile of %q_rows rows
// from %q0). With %handing it gives the consumers each step's tile and
// listed bit (slot 2 + s of %walk_buf; @hand_over, block_mask.mlir). Full
// barriers get the expect and the TMA bytes, empty ones are waited on
// before a slot is refilled. One thread issues the copies.
jfa.func @load_unit_kv(%kv_n: i32, %steps: i32, %first_step: i32, %end_tile: i32,
                       %q0: i32, %q_rows: i32, %start: i32, %len: i32,
                       %start_k: i32, %len_k: i32, %kv_col0: i32, %wide: i1,
                       %k: !jfa.tma<128x64xbf16, swizzle 128>, %v: !jfa.tma<128x64xbf16, swizzle 128>,
                       %k_ring: !jfa.smem<4 x 128x64xbf16, swizzle 128>, %v_ring: !jfa.smem<4 x 128x64xbf16, swizzle 128>,
                       %k_full: !jfa.mbarriers<2>, %k_empty: !jfa.mbarriers<2>,
                       %v_full: !jfa.mbarriers<2>, %v_empty: !jfa.mbarriers<2>,
                       %sparse: i1, %handing: i1, %block_bits: !jfa.ptr<i32>,
                       %block_base: i32, %block_words: i32,
                       %walk_buf: !jfa.smem<4 x 128xi32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %false = arith.constant false
  %kv_col1 = arith.addi %kv_col0, %c64 : i32
  %last_tile = scf.for %j = %c0 to %steps step %c1
      iter_args(%tile = %first_step) -> (i32) : i32 {
    %n = arith.addi %kv_n, %j : i32
    %stage, %phase = jfa.ring_position %n stages(2) : i32
    %free = arith.xori %phase, %c1 : i32
    %chunk0 = arith.muli %stage, %c2 : i32
    %chunk1 = arith.addi %chunk0, %c1 : i32
    %kv_row0 = arith.muli %tile, %c128 : i32
    %kv_row = arith.addi %start_k, %kv_row0 : i32
    %k_lo = jfa.slot %k_ring[%chunk0] : !jfa.smem<4 x 128x64xbf16, swizzle 128>, i32
    %k_hi = jfa.slot %k_ring[%chunk1] : !jfa.smem<4 x 128x64xbf16, swizzle 128>, i32
    %v_lo = jfa.slot %v_ring[%chunk0] : !jfa.smem<4 x 128x64xbf16, swizzle 128>, i32
    %v_hi = jfa.slot %v_ring[%chunk1] : !jfa.smem<4 x 128x64xbf16, swizzle 128>, i32
    %k_empty_s = jfa.barrier %k_empty[%stage] : !jfa.mbarriers<2>, i32
    %k_full_s = jfa.barrier %k_full[%stage] : !jfa.mbarriers<2>, i32
    %v_empty_s = jfa.barrier %v_empty[%stage] : !jfa.mbarriers<2>, i32
    %v_full_s = jfa.barrier %v_full[%stage] : !jfa.mbarriers<2>, i32
    jfa.barrier_wait %k_empty_s, %free
    // Block-sparse, handed off: the step's tile and whether it is
    // listed (@tile_word), for the consumers.
    scf.if %handing {
      %listed = jfa.call @walk_listed(%false, %tile, %q0, %q_rows, %block_bits, %block_base, %block_words, %start, %len, %start_k, %len_k)
          : (i1, i32, i32, i32, !jfa.ptr<i32>, i32, i32, i32, i32, i32, i32) -> i32
      %word = jfa.call @tile_word(%tile, %listed, %c0) : (i32, i32, i32) -> i32
      %kv_at = arith.addi %stage, %c2 : i32
      jfa.call @hand_over(%word, %walk_buf, %kv_at) : (i32, !jfa.smem<4 x 128xi32>, i32) -> ()
    }
    scf.if %wide {
      jfa.barrier_expect %k_full_s, bytes(32768)
      jfa.tma_load %k[%kv_row, %kv_col0], %k_lo, %k_full_s : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
      jfa.tma_load %k[%kv_row, %kv_col1], %k_hi, %k_full_s : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
    } else {
      jfa.barrier_expect %k_full_s, bytes(16384)
      jfa.tma_load %k[%kv_row, %kv_col0], %k_lo, %k_full_s : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
    }
    jfa.barrier_wait %v_empty_s, %free
    scf.if %wide {
      jfa.barrier_expect %v_full_s, bytes(32768)
      jfa.tma_load %v[%kv_row, %kv_col0], %v_lo, %v_full_s : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
      jfa.tma_load %v[%kv_row, %kv_col1], %v_hi, %v_full_s : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
    } else {
      jfa.barrier_expect %v_full_s, bytes(16384)
      jfa.tma_load %v[%kv_row, %kv_col0], %v_lo, %v_full_s : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
    }
    %after = arith.addi %tile, %c1 : i32
    %next_tile = jfa.call @next_tile(%sparse, %false, %after, %end_tile, %q0, %q_rows, %block_bits, %block_base, %block_words, %start, %len, %start_k, %len_k)
        : (i1, i1, i32, i32, i32, i32, !jfa.ptr<i32>, i32, i32, i32, i32, i32, i32) -> i32
    scf.yield %next_tile : i32
  }
  jfa.return
}

// Takes the units of the work queue (work_queue.mlir: @fetch_unit one
// ahead; @forward_unit) and loads, for each, its Q tile once into a 2-stage
// ring (unit n's in stage n mod 2: chunk c in slot 2s + c, D = 128 two
// chunks) and its K and V tiles through the 2-stage rings
// (@load_unit_kv): the tiles @unit_keys gives,
// of k/v head h / kv_group (grouped-query attention reads one k/v head for
// kv_group q heads), and under %sparse (a compile-time parameter) only those
// with a listed block (@tile_walk, block_mask.mlir). With %hand_off it
// gives the consumers each unit's steps (slot s of %walk_buf for Q's stage
// s) and each step's tile and listed bit (slot 2 + s for the K/V ring's stage s;
// @hand_over, block_mask.mlir), so that only this task searches the bitmap; without it the
// consumers walk the same tiles themselves. One thread issues the copies.
// Q's ring lets the next unit's Q and first K/V tiles load while the
// consumers still run this unit's last tiles and epilogue: with one Q slot
// the loads waited for the last S, and a short unit's first S waited for
// them (issue 19's per-unit fixed cost). The 128-row q tiles of both
// forwards but the sm_90a one at D = 64 (attention_fwd_sm90_q192.mlir,
// which loads its 192-row ones itself and calls @load_unit_kv).
jfa.func @forward_producer(%units: i32, %heads: i32, %q_tiles: i32,
                           %schedule: !jfa.ptr<i32>,
                           %next_buf: !jfa.smem<2 x 1xi32>,
                           %next_full: !jfa.mbarriers<2>,
                           %next_empty: !jfa.mbarriers<2>,
                           %offsets: !jfa.ptr<i32>, %offsets_k: !jfa.ptr<i32>,
                           %is_causal: i1, %general: i1, %window_left: i32,
                           %window_right: i32, %kv_group: i32, %head_dim: i32,
                           %q: !jfa.tma<128x64xbf16, swizzle 128>, %k: !jfa.tma<128x64xbf16, swizzle 128>, %v: !jfa.tma<128x64xbf16, swizzle 128>,
                           %q_ring: !jfa.smem<4 x 128x64xbf16, swizzle 128>,
                           %k_ring: !jfa.smem<4 x 128x64xbf16, swizzle 128>, %v_ring: !jfa.smem<4 x 128x64xbf16, swizzle 128>,
                           %q_full: !jfa.mbarriers<2>, %q_empty: !jfa.mbarriers<2>,
                           %k_full: !jfa.mbarriers<2>, %k_empty: !jfa.mbarriers<2>,
                           %v_full: !jfa.mbarriers<2>, %v_empty: !jfa.mbarriers<2>,
                           %sparse: i1, %block_bits: !jfa.ptr<i32>,
                           %block_words: i32, %block_head_stride: i32,
                           %hand_off: i1, %walk_buf: !jfa.smem<4 x 128xi32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %wide = arith.cmpi eq, %head_dim, %c128 : i32
  %handing = arith.andi %sparse, %hand_off : i1
  // Fetch 0 first; each iteration then fetches the unit after the one it
  // takes, so the atomic's latency hides behind a whole unit.
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
    %h, %start, %len, %q0, %live, %start_k, %len_k, %row_floor, %key_floor, %lo_off, %hi_off, %mask_below, %mask_above, %block_base, %steps, %first_step, %end_tile = jfa.call @forward_unit(%u, %heads, %q_tiles, %c128, %offsets, %offsets_k, %schedule, %is_causal, %general, %window_left, %window_right, %sparse, %block_bits, %block_words, %block_head_stride)
        : (i32, i32, i32, i32, !jfa.ptr<i32>, !jfa.ptr<i32>, !jfa.ptr<i32>, i1, i1, i32, i32, i1, !jfa.ptr<i32>, i32, i32) -> (i32, i32, i32, i32, i1, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32)
    %next:2 = scf.if %live -> (i32, i32) {
      %col0 = arith.muli %h, %head_dim : i32
      %col1 = arith.addi %col0, %c64 : i32
      %kv_head = arith.divui %h, %kv_group : i32
      %kv_col0 = arith.muli %kv_head, %head_dim : i32
      %q_row = arith.addi %start, %q0 : i32

      // Q, once the consumers are done with the one two units back.
      %q_lo, %q_hi, %q_full_u, %q_empty_u, %q_phase, %q_stage = jfa.call @q_stage(%unit_n, %q_ring, %q_full, %q_empty)
          : (i32, !jfa.smem<4 x 128x64xbf16, swizzle 128>, !jfa.mbarriers<2>, !jfa.mbarriers<2>) -> (!jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, !jfa.mbarrier, !jfa.mbarrier, i32, i32)
      %q_free = arith.xori %q_phase, %c1 : i32
      jfa.barrier_wait %q_empty_u, %q_free
      // Block-sparse, handed off: the unit's steps, for the consumers.
      scf.if %handing {
        jfa.call @hand_over(%steps, %walk_buf, %q_stage) : (i32, !jfa.smem<4 x 128xi32>, i32) -> ()
      }
      scf.if %wide {
        jfa.barrier_expect %q_full_u, bytes(32768)
        jfa.tma_load %q[%q_row, %col0], %q_lo, %q_full_u : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
        jfa.tma_load %q[%q_row, %col1], %q_hi, %q_full_u : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
      } else {
        jfa.barrier_expect %q_full_u, bytes(16384)
        jfa.tma_load %q[%q_row, %col0], %q_lo, %q_full_u : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
      }

      // K and V tiles through the ring.
      jfa.call @load_unit_kv(%kv_n, %steps, %first_step, %end_tile, %q0, %c128, %start, %len, %start_k, %len_k, %kv_col0, %wide,
                             %k, %v, %k_ring, %v_ring, %k_full, %k_empty, %v_full, %v_empty,
                             %sparse, %handing, %block_bits, %block_base, %block_words, %walk_buf)
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
