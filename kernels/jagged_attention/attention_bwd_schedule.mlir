// Jagged attention backward, step 0 (both targets): the persistent
// backward's work list (python/jfa/_schedule.py gives the reference), and
// the forwards' over the query sequences.
//
//   schedule = [n, 0, pair_0, ..., pair_{B*k_tiles-1}],  pair = b*k_tiles + kt
//
// n counts the live (sequence, tile of %tile_rows rows: 128 keys for the
// backward, the forward's q tile for it) pairs, those whose first key
// lies before the sequence's end (inside it, but for a sequence's first
// tile on the block grid, below); they come first, longest sequence first (ties:
// lower b first), each sequence's tiles in order; the dead pairs follow in
// (b, kt) order. schedule[1] is the counter the backward's CTAs take units
// from, zeroed here so that one launch of this kernel serves one backward.
//
// One thread per sequence b: it counts the live tiles of the sequences
// ranked before its own (longer, or as long with a lower index) and the dead
// tiles of those with a lower index, which places each of its pairs, then
// scatters them. O(B) loads per thread, all threads reading the same
// offsets at once (a broadcast): O(B^2) in all, microseconds for thousands
// of sequences (3.7 us for B = 8 on the H200), milliseconds past ~10^5. Threads past the batch act as
// its last sequence and write what it writes: no branch on the thread id.
// Grid: ceil(B / 128) CTAs of 128 threads.
jfa.import "../lib/band_schedule.mlir"
//
// %block_aligned (0 or 1): with 1, the kernels place a sequence's tiles on
// the packed axis's 128-token grid (a block-sparse mask's blocks, so that no
// tile straddles two; kernels/lib/work_queue.mlir's @unit_sequences): its first
// tile starts at the block holding its first token, and a sequence of len
// tokens from start has ceil((len + start % 128) / 128) tiles, which the
// caller's k_tiles must allow for.
// %rows / %tile_rows: a division by a constant for the tiles the kernels
// have (128: a shift, 192: a multiply), which every thread does for every
// sequence (a division by a value the thread loads cost unif1k's forward 2%,
// bench/NOTES.md, run 97); by the value itself for any other.
jfa.func @tiles_in(%rows: i32, %tile_rows: i32) -> i32 {
  %c128 = arith.constant 128 : i32
  %c192 = arith.constant 192 : i32
  %is128 = arith.cmpi eq, %tile_rows, %c128 : i32
  %is192 = arith.cmpi eq, %tile_rows, %c192 : i32
  %tiles = scf.if %is128 -> i32 {
    %t = arith.divsi %rows, %c128 : i32
    scf.yield %t : i32
  } else {
    %t192 = scf.if %is192 -> i32 {
      %t = arith.divsi %rows, %c192 : i32
      scf.yield %t : i32
    } else {
      %t = arith.divsi %rows, %tile_rows : i32
      scf.yield %t : i32
    }
    scf.yield %t192 : i32
  }
  jfa.return %tiles : i32
}

jfa.kernel @attention_bwd_schedule(%offsets: !jfa.ptr<i32>,
                                   %schedule: !jfa.ptr<i32>,
                                   %batch: i32, %k_tiles: i32,
                                   %block_aligned: i32, %tile_rows: i32) warps(4) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  // 128 sequences a CTA.
  %c128 = arith.constant 128 : i32
  // A tile's rows (128 on the block grid, whose blocks are 128 tokens).
  %tile_less = arith.subi %tile_rows, %c1 : i32
  %cta = jfa.program_id x
  %tid = jfa.thread_id
  %first = arith.muli %cta, %c128 : i32
  %unclamped = arith.addi %first, %tid : i32
  %last = arith.subi %batch, %c1 : i32
  %b = arith.minsi %unclamped, %last : i32
  %b_next = arith.addi %b, %c1 : i32
  %start = jfa.load %offsets[%b] : !jfa.ptr<i32> -> i32
  %end = jfa.load %offsets[%b_next] : !jfa.ptr<i32> -> i32
  %len = arith.subi %end, %start : i32
  %aligned = arith.cmpi ne, %block_aligned, %c0 : i32
  %phase = jfa.call @block_phase(%aligned, %start, %len) : (i1, i32, i32) -> i32
  %spanned = arith.addi %len, %phase : i32
  %len_up = arith.addi %spanned, %tile_less : i32
  %tiles_up = jfa.call @tiles_in(%len_up, %tile_rows) : (i32, i32) -> i32
  %tiles_max = arith.minsi %tiles_up, %k_tiles : i32
  // Clamped to [0, k_tiles] even for offsets that were not checked (a
  // decreasing pair): every index written stays inside the schedule.
  %tiles = arith.maxsi %tiles_max, %c0 : i32

  // Over every sequence o: live tiles ranked before b's, dead tiles of
  // sequences before b, and all live tiles (n).
  %offset0 = jfa.load %offsets[%c0] : !jfa.ptr<i32> -> i32
  %r:4 = scf.for %o = %c0 to %batch step %c1
      iter_args(%o_start = %offset0, %rank = %c0, %dead_before = %c0, %n = %c0)
      -> (i32, i32, i32, i32) : i32 {
    %o_next = arith.addi %o, %c1 : i32
    %o_end = jfa.load %offsets[%o_next] : !jfa.ptr<i32> -> i32
    %o_len = arith.subi %o_end, %o_start : i32
    %o_phase = jfa.call @block_phase(%aligned, %o_start, %o_len) : (i1, i32, i32) -> i32
    %o_spanned = arith.addi %o_len, %o_phase : i32
    %o_len_up = arith.addi %o_spanned, %tile_less : i32
    %o_tiles_up = jfa.call @tiles_in(%o_len_up, %tile_rows) : (i32, i32) -> i32
    %o_tiles_max = arith.minsi %o_tiles_up, %k_tiles : i32
    %o_tiles = arith.maxsi %o_tiles_max, %c0 : i32
    %longer = arith.cmpi sgt, %o_len, %len : i32
    %as_long = arith.cmpi eq, %o_len, %len : i32
    %earlier = arith.cmpi slt, %o, %b : i32
    %tie_first = arith.andi %as_long, %earlier : i1
    %ranked_before = arith.ori %longer, %tie_first : i1
    %live_add = arith.select %ranked_before, %o_tiles, %c0 : i32
    %rank1 = arith.addi %rank, %live_add : i32
    %o_dead = arith.subi %k_tiles, %o_tiles : i32
    %dead_add = arith.select %earlier, %o_dead, %c0 : i32
    %dead1 = arith.addi %dead_before, %dead_add : i32
    %n1 = arith.addi %n, %o_tiles : i32
    scf.yield %o_end, %rank1, %dead1, %n1 : i32, i32, i32, i32
  }
  %rank = arith.addi %r#1, %c2 : i32
  %dead_base = arith.addi %r#2, %r#3 : i32
  %dead_first = arith.addi %dead_base, %c2 : i32
  %pair0 = arith.muli %b, %k_tiles : i32
  scf.for %kt = %c0 to %k_tiles step %c1 : i32 {
    %live = arith.cmpi slt, %kt, %tiles : i32
    %live_at = arith.addi %rank, %kt : i32
    %dead_index = arith.subi %kt, %tiles : i32
    %dead_at = arith.addi %dead_first, %dead_index : i32
    %at = arith.select %live, %live_at, %dead_at : i32
    %pair = arith.addi %pair0, %kt : i32
    jfa.store %pair, %schedule[%at] : i32, !jfa.ptr<i32>
  }
  jfa.store %r#3, %schedule[%c0] : i32, !jfa.ptr<i32>
  jfa.store %c0, %schedule[%c1] : i32, !jfa.ptr<i32>
}
