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

// Unit u: its head, its sequence's first row and length, the q tile's first
// row in the sequence, and whether the tile holds queries (units past the
// end of their sequence are skipped).
jfa.func @band_unit(%u: i32, %band_units: i32, %heads: i32, %q_tiles: i32,
                    %offsets: !jfa.ptr<i32>) -> (i32, i32, i32, i32, i1) {
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
  %q0 = arith.muli %tile, %c128 : i32
  %starts_in_seq = arith.cmpi slt, %q0, %len : i32
  %tile_exists = arith.cmpi sge, %tile, %c0 : i32
  %live = arith.andi %tile_exists, %starts_in_seq : i1
  jfa.return %h, %start, %len, %q0, %live : i32, i32, i32, i32, i1
}

// The keys unit (q0, len) attends to: [0, kv_len), all of the sequence or,
// under causal, up to the q tile's last row; kv_tiles 128-key tiles.
jfa.func @unit_keys(%q0: i32, %len: i32, %causal: i1) -> (i32, i32) {
  %c127 = arith.constant 127 : i32
  %c128 = arith.constant 128 : i32
  %q_end = arith.addi %q0, %c128 : i32
  %causal_end = arith.minsi %len, %q_end : i32
  %kv_len = arith.select %causal, %causal_end, %len : i32
  %kv_up = arith.addi %kv_len, %c127 : i32
  %kv_tiles = arith.divui %kv_up, %c128 : i32
  jfa.return %kv_len, %kv_tiles : i32, i32
}
