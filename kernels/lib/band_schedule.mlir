// A library of device helpers (no kernel), imported from
// kernels/jagged_attention/ with `jfa.import "../lib/band_schedule.mlir"`
// (docs/DIALECT.md, "Imports"): the band of keys each query of the
// attention kernels sees (the causal diagonal, a sliding window, the ends
// aligned under cross-attention) and the key tiles a unit reads, written
// once for both targets and every task, forward and backward, so that the
// tasks cannot disagree on a unit; and the decode of the variant parameter.

// The keys of unit (q0, len) of a sequence with len_k keys, for the q tile
// of %q_rows rows from q0. Query i sees
// keys [max(0, i + lo_off), min(len_k, i + hi_off)): with shift = len_k -
// len (the query and key ends aligned, as FlashAttention aligns them),
// hi_off is shift + 1 under %causal and shift + right + 1 under a window
// with right >= 0, lo_off is shift - left under a window with left >= 0;
// unbounded sides keep the whole sequence (the window is read only when
// %general, a compile-time parameter, is set: without it its selects fold
// away). The unit reads
// kv_tiles 128-key tiles from tile first_tile: at least one, so that a
// unit whose queries see no key still writes o = 0 (its tile is masked
// whole). A tile from key k0 needs the mask when k0 < mask_below or k0 + 128
// > mask_above (@tile_masked): the other tiles are seen whole by every row.
jfa.func @unit_keys(%q0: i32, %q_rows: i32, %len: i32, %len_k: i32,
                    %causal: i1, %general: i1, %left: i32, %right: i32)
    -> (i32, i32, i32, i32, i32, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c127 = arith.constant 127 : i32
  %c128 = arith.constant 128 : i32
  %shift = arith.subi %len_k, %len : i32
  // hi_off: len_k when unbounded (i + len_k >= len_k for every query).
  %has_right = arith.cmpi sge, %right, %c0 : i32
  %windowed_right = arith.andi %general, %has_right : i1
  %causal_hi = arith.addi %shift, %c1 : i32
  %right_hi = arith.addi %causal_hi, %right : i32
  %open_hi = arith.select %windowed_right, %right_hi, %len_k : i32
  %hi_off = arith.select %causal, %causal_hi, %open_hi : i32
  // lo_off: -(len + q_rows) when unbounded (below -i for every query of
  // the tile, even those past the end).
  %has_left = arith.cmpi sge, %left, %c0 : i32
  %windowed_left = arith.andi %general, %has_left : i1
  %left_lo = arith.subi %shift, %left : i32
  %len_up = arith.addi %len, %q_rows : i32
  %open_lo = arith.subi %c0, %len_up : i32
  %lo_off = arith.select %windowed_left, %left_lo, %open_lo : i32
  // The keys of the tile's first and last rows.
  %q_rows_less = arith.subi %q_rows, %c1 : i32
  %q_last = arith.addi %q0, %q_rows_less : i32
  %first_from = arith.addi %q0, %lo_off : i32
  %first_lo = arith.maxsi %first_from, %c0 : i32
  %last_from = arith.addi %q_last, %lo_off : i32
  %last_lo = arith.maxsi %last_from, %c0 : i32
  %first_to = arith.addi %q0, %hi_off : i32
  %first_hi = arith.minsi %first_to, %len_k : i32
  %last_to = arith.addi %q_last, %hi_off : i32
  %last_hi = arith.minsi %last_to, %len_k : i32
  %window_tile = arith.divsi %first_lo, %c128 : i32
  %first_tile = arith.select %windowed_left, %window_tile, %c0 : i32
  %mask_below = arith.select %windowed_left, %last_lo, %c0 : i32
  %end_up = arith.addi %last_hi, %c127 : i32
  %end_tile = arith.divsi %end_up, %c128 : i32
  %span = arith.subi %end_tile, %first_tile : i32
  %kv_tiles = arith.maxsi %span, %c1 : i32
  jfa.return %first_tile, %kv_tiles, %lo_off, %hi_off, %mask_below, %first_hi
      : i32, i32, i32, i32, i32, i32
}

// Whether the tile of keys from %k0 needs the mask (@unit_keys' bounds).
jfa.func @tile_masked(%k0: i32, %mask_below: i32, %mask_above: i32) -> i1 {
  %c128 = arith.constant 128 : i32
  %k_end = arith.addi %k0, %c128 : i32
  %below = arith.cmpi slt, %k0, %mask_below : i32
  %above = arith.cmpi sgt, %k_end, %mask_above : i32
  %masked = arith.ori %below, %above : i1
  jfa.return %masked : i1
}

// The attention kernels' variant (jfa.param "general", a compile-time constant, so
// all of this folds): 0 plain attention, 1 the general variant (windows,
// grouped-query and cross-attention), 2 and 3 the general variant with
// GDPA's silu or gelu_tanh in place of softmax, 4, 5 and 6 those three
// with a block-sparse mask (block_mask.mlir). Returns whether the variant
// is general, the q heads per k/v head (1 unless general), the activation
// (0 softmax, 1 silu, 2 gelu_tanh), whether it is softmax and whether the
// block mask applies.
jfa.func @attention_variant(%general_kind: i32, %kv_group: i32)
    -> (i1, i32, i32, i1, i1) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c4 = arith.constant 4 : i32
  %general = arith.cmpi ne, %general_kind, %c0 : i32
  %kv_group_eff = arith.select %general, %kv_group, %c1 : i32
  %sparse = arith.cmpi sge, %general_kind, %c4 : i32
  %dense_kind = arith.subi %general_kind, %c4 : i32
  %plain_kind = arith.select %sparse, %dense_kind, %general_kind : i32
  %activation_kind = arith.subi %plain_kind, %c1 : i32
  %has_activation = arith.cmpi sge, %plain_kind, %c2 : i32
  %sparse_activation = arith.select %sparse, %dense_kind, %c0 : i32
  %plain_activation = arith.select %has_activation, %activation_kind, %c0 : i32
  %activation = arith.select %sparse, %sparse_activation, %plain_activation : i32
  %is_softmax = arith.cmpi eq, %activation, %c0 : i32
  jfa.return %general, %kv_group_eff, %activation, %is_softmax, %sparse : i1, i32, i32, i1, i1
}

// How far a sequence's first token lies into its 128-token block of the
// packed axis when its tiles are placed on that grid (%aligned: a
// block-sparse mask's blocks, block_mask.mlir), else 0 (and 0 for an empty
// sequence, which has no tile either way): a sequence of len tokens from
// %start then spans len + phase tokens from its block's start,
// ceil((len + phase) / 128) tiles (attention_bwd_schedule.mlir counts them
// so, @queue_unit decodes them so).
jfa.func @block_phase(%aligned: i1, %start: i32, %len: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c127 = arith.constant 127 : i32
  %in_block = arith.andi %start, %c127 : i32
  %has_rows = arith.cmpi sgt, %len, %c0 : i32
  %spans = arith.andi %aligned, %has_rows : i1
  %phase = arith.select %spans, %in_block, %c0 : i32
  jfa.return %phase : i32
}
