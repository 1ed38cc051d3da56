// A library of device helpers (no kernel), imported from
// kernels/jagged_attention/ with `jfa.import "../lib/band_schedule.mlir"`
// (docs/DIALECT.md, "Imports"): the static schedule of the attention
// forwards, written once for both targets and every task that walks it, so
// that the tasks cannot disagree on a unit.
//
// A work unit is (sequence, head, 128-row q tile); the grid is persistent
// and CTA i takes units i, i + G, i + 2G, ... Units go in bands of 7 q tiles
// (from the last): the tiles of one (sequence, head) in a band are
// neighbours, so CTAs running at the same time share K and V through L2;
// bands go from the highest q tiles down, so the long sequences start first.
// 7 is coprime with the grid (132 SMs on an H100/H200, 148 on a B200):
// striding by the grid, a CTA meets every position in a band, not only the
// (often empty) last ones.

// The units of one band, and of the whole schedule, for B sequences, H
// heads and q_tiles = ceil(max_seqlen / 128).
jfa.func @band_schedule(%batch: i32, %heads: i32, %q_tiles: i32)
    -> (i32, i32) {
  %c1 = arith.constant 1 : i32
  %band_size = arith.constant 7 : i32
  %seqs_heads = arith.muli %batch, %heads : i32
  %band_units = arith.muli %seqs_heads, %band_size : i32
  %band_last = arith.subi %band_size, %c1 : i32
  %q_tiles_up = arith.addi %q_tiles, %band_last : i32
  %bands = arith.divui %q_tiles_up, %band_size : i32
  %units = arith.muli %bands, %band_units : i32
  jfa.return %band_units, %units : i32, i32
}

// Unit u: its head, its sequence's first query row and length, the q
// tile's first row in the sequence, whether the tile holds queries (units
// past the end of their sequence are skipped), and the sequence's first key
// row and length (%offsets_k: the key sequences of cross-attention, read
// only when %general, a compile-time parameter, is set: otherwise the
// queries' own).
jfa.func @band_unit(%u: i32, %band_units: i32, %heads: i32, %q_tiles: i32,
                    %offsets: !jfa.ptr<i32>, %offsets_k: !jfa.ptr<i32>,
                    %general: i1)
    -> (i32, i32, i32, i32, i1, i32, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c128 = arith.constant 128 : i32
  %band_size = arith.constant 7 : i32
  // Level: q tiles from the last.
  %band = arith.divui %u, %band_units : i32
  %in_band = arith.remui %u, %band_units : i32
  %sh = arith.divui %in_band, %band_size : i32
  %band_tile = arith.remui %in_band, %band_size : i32
  %band_first = arith.muli %band, %band_size : i32
  %level = arith.addi %band_first, %band_tile : i32
  %b = arith.divui %sh, %heads : i32
  %h = arith.remui %sh, %heads : i32
  %last_tile = arith.subi %q_tiles, %c1 : i32
  %tile = arith.subi %last_tile, %level : i32
  %b1 = arith.addi %b, %c1 : i32
  %start = jfa.load %offsets[%b] : !jfa.ptr<i32> -> i32
  %end = jfa.load %offsets[%b1] : !jfa.ptr<i32> -> i32
  %len = arith.subi %end, %start : i32
  %start_kv = jfa.load %offsets_k[%b] : !jfa.ptr<i32> -> i32
  %end_kv = jfa.load %offsets_k[%b1] : !jfa.ptr<i32> -> i32
  %len_kv = arith.subi %end_kv, %start_kv : i32
  %start_k = arith.select %general, %start_kv, %start : i32
  %len_k = arith.select %general, %len_kv, %len : i32
  %q0 = arith.muli %tile, %c128 : i32
  %starts_in_seq = arith.cmpi slt, %q0, %len : i32
  %tile_exists = arith.cmpi sge, %tile, %c0 : i32
  %live = arith.andi %tile_exists, %starts_in_seq : i1
  jfa.return %h, %start, %len, %q0, %live, %start_k, %len_k
      : i32, i32, i32, i32, i1, i32, i32
}

// The keys of unit (q0, len) of a sequence with len_k keys. Query i sees
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
jfa.func @unit_keys(%q0: i32, %len: i32, %len_k: i32, %causal: i1,
                    %general: i1, %left: i32, %right: i32)
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
  // lo_off: -(len + 128) when unbounded (below -i for every query of the
  // tile, even those past the end).
  %has_left = arith.cmpi sge, %left, %c0 : i32
  %windowed_left = arith.andi %general, %has_left : i1
  %left_lo = arith.subi %shift, %left : i32
  %len_up = arith.addi %len, %c128 : i32
  %open_lo = arith.subi %c0, %len_up : i32
  %lo_off = arith.select %windowed_left, %left_lo, %open_lo : i32
  // The keys of the tile's first and last rows.
  %q_last = arith.addi %q0, %c127 : i32
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
