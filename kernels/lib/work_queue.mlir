// A library of device helpers (no kernel), imported from
// kernels/jagged_attention/ with `jfa.import "../lib/work_queue.mlir"`
// (docs/DIALECT.md, "Imports"): the work queue of the attention kernels,
// forward and backward, and the decode of their units.
//
// The dynamic work queue (docs/DIALECT.md): the next unit comes from the
// counter %schedule[1] (zeroed by attention_bwd_schedule.mlir, which writes
// the schedule), fetched by one task into a ring of two one-element slots
// and read by every thread of the CTA.
//
// The key bounds of a query (@unit_keys), shared with the forwards.
jfa.import "band_schedule.mlir"

// Fetch n of the queue into slot n mod 2, once every reader has released
// what the slot held (fetch n - 2).
jfa.func @fetch_unit(%n: i32, %schedule: !jfa.ptr<i32>,
                     %next_buf: !jfa.smem<2 x 1xi32>,
                     %next_full: !jfa.mbarriers<2>,
                     %next_empty: !jfa.mbarriers<2>) {
  %c1 = arith.constant 1 : i32
  %s, %phase = jfa.ring_position %n stages(2) : i32
  %free = arith.xori %phase, %c1 : i32
  %slot = jfa.slot %next_buf[%s] : !jfa.smem<2 x 1xi32>, i32
  %full = jfa.barrier %next_full[%s] : !jfa.mbarriers<2>, i32
  %empty = jfa.barrier %next_empty[%s] : !jfa.mbarriers<2>, i32
  jfa.barrier_wait %empty, %free
  jfa.atomic_fetch_add %schedule[%c1], %c1 into %slot arrive %full
      : !jfa.ptr<i32>, !jfa.slot<1xi32>
  jfa.return
}

// The unit fetch n brought, read without releasing the slot: a reader that
// has taken fetch n - 2 but not yet fetch n (@take_unit) may look at it
// early, e.g. to decode the next unit while the current one runs (before
// its take of n - 2, fetch n could not start: the wait would never end).
// The slot cannot be refilled before this reader's own @take_unit of it.
jfa.func @peek_unit(%n: i32, %next_buf: !jfa.smem<2 x 1xi32>,
                    %next_full: !jfa.mbarriers<2>) -> i32 {
  %c0 = arith.constant 0 : i32
  %s, %phase = jfa.ring_position %n stages(2) : i32
  %slot = jfa.slot %next_buf[%s] : !jfa.smem<2 x 1xi32>, i32
  %full = jfa.barrier %next_full[%s] : !jfa.mbarriers<2>, i32
  jfa.barrier_wait %full, %phase
  %u = jfa.load_scalar %slot[%c0] : !jfa.slot<1xi32> -> i32
  jfa.return %u : i32
}

// The unit fetch n brought: @peek_unit's read, then the slot's release.
jfa.func @take_unit(%n: i32, %next_buf: !jfa.smem<2 x 1xi32>,
                    %next_full: !jfa.mbarriers<2>,
                    %next_empty: !jfa.mbarriers<2>) -> i32 {
  %u = jfa.call @peek_unit(%n, %next_buf, %next_full)
      : (i32, !jfa.smem<2 x 1xi32>, !jfa.mbarriers<2>) -> i32
  %s, %phase = jfa.ring_position %n stages(2) : i32
  %empty = jfa.barrier %next_empty[%s] : !jfa.mbarriers<2>, i32
  jfa.barrier_arrive %empty
  jfa.return %u : i32
}

// A reading task's loop condition at its step n: the unit fetch n brought
// (@take_unit) and whether it is one (below %units: the first past the
// last ends the loop).
jfa.func @take_next_unit(%n: i32, %units: i32,
                         %next_buf: !jfa.smem<2 x 1xi32>,
                         %next_full: !jfa.mbarriers<2>,
                         %next_empty: !jfa.mbarriers<2>) -> (i32, i1) {
  %u = jfa.call @take_unit(%n, %next_buf, %next_full, %next_empty)
      : (i32, !jfa.smem<2 x 1xi32>, !jfa.mbarriers<2>, !jfa.mbarriers<2>) -> i32
  %more = arith.cmpi slt, %u, %units : i32
  jfa.return %u, %more : i32, i1
}

// The loading task's step n: fetch n + 1 ahead (its atomic's latency then
// hides behind a whole unit), then take what fetch n brought.
jfa.func @fetch_ahead_and_take(%n: i32, %schedule: !jfa.ptr<i32>,
                               %next_buf: !jfa.smem<2 x 1xi32>,
                               %next_full: !jfa.mbarriers<2>,
                               %next_empty: !jfa.mbarriers<2>) -> i32 {
  %c1 = arith.constant 1 : i32
  %n1 = arith.addi %n, %c1 : i32
  jfa.call @fetch_unit(%n1, %schedule, %next_buf, %next_full, %next_empty)
      : (i32, !jfa.ptr<i32>, !jfa.smem<2 x 1xi32>, !jfa.mbarriers<2>, !jfa.mbarriers<2>) -> ()
  %u = jfa.call @take_unit(%n, %next_buf, %next_full, %next_empty)
      : (i32, !jfa.smem<2 x 1xi32>, !jfa.mbarriers<2>, !jfa.mbarriers<2>) -> i32
  jfa.return %u : i32
}

// Sequence b of a unit as the kernels walk it: the queries' first row and
// length, the keys' (%offsets_k, read only when %general, a compile-time
// parameter, is set; the queries' own else), and the row and key floors.
// Under %block_aligned (a compile-time parameter: the block-sparse
// variants) the tiles lie on the packed axis's 128-token grid, the block
// mask's, so that no tile straddles two blocks (bench/sparse_tiling.py):
// both sequences are returned as starting at the block that holds their
// first token (start rounded down to 128, len grown by as much), and the
// floors (@block_phase) say how far in they really start. The rows below
// the row floor and the keys below the key floor belong to the sequence
// before: none of them is seen or written. Causal, window and
// cross-attention bounds align the sequences' ends (@unit_keys), which the
// rounding does not move, so they hold as they are. Without it both floors
// are 0 and the sequences are as the offsets give them.
jfa.func @unit_sequences(%b: i32, %offsets: !jfa.ptr<i32>,
                         %offsets_k: !jfa.ptr<i32>, %general: i1,
                         %block_aligned: i1)
    -> (i32, i32, i32, i32, i32, i32) {
  %c1 = arith.constant 1 : i32
  %b1 = arith.addi %b, %c1 : i32
  %seq_start = jfa.load %offsets[%b] : !jfa.ptr<i32> -> i32
  %end = jfa.load %offsets[%b1] : !jfa.ptr<i32> -> i32
  %seq_len = arith.subi %end, %seq_start : i32
  %start_kv = jfa.load %offsets_k[%b] : !jfa.ptr<i32> -> i32
  %end_kv = jfa.load %offsets_k[%b1] : !jfa.ptr<i32> -> i32
  %len_kv = arith.subi %end_kv, %start_kv : i32
  %seq_start_k = arith.select %general, %start_kv, %seq_start : i32
  %seq_len_k = arith.select %general, %len_kv, %seq_len : i32
  // On the block grid: from the block of the first token (floors 0 else).
  %row_floor = jfa.call @block_phase(%block_aligned, %seq_start, %seq_len) : (i1, i32, i32) -> i32
  %key_floor = jfa.call @block_phase(%block_aligned, %seq_start_k, %seq_len_k) : (i1, i32, i32) -> i32
  %start = arith.subi %seq_start, %row_floor : i32
  %len = arith.addi %seq_len, %row_floor : i32
  %start_k = arith.subi %seq_start_k, %key_floor : i32
  %len_k = arith.addi %seq_len_k, %key_floor : i32
  jfa.return %start, %len, %start_k, %len_k, %row_floor, %key_floor
      : i32, i32, i32, i32, i32, i32
}

// The forwards' unit u: head u mod H of the (sequence, q tile of %q_rows
// rows: 128, or 192 for the sm_90a forward at D = 64) pair u / H of
// %schedule, which attention_bwd_schedule.mlir writes over the
// query sequences with %q_tiles tiles per sequence (its k_tiles): the pairs
// with queries, longest sequence first. A sequence's tiles are taken last
// first: under causal the last sees the most keys, so the costliest units
// start first and the short ones fill the end (bench/NOTES.md, run 57).
// Returns the head, the sequence's first query row and length, the tile's
// first row in it, whether it holds queries (a listed pair always does),
// the sequence's first key row and length, and the row and key floors
// (@unit_sequences: under %block_aligned, a compile-time parameter, the
// tiles lie on the block mask's grid).
jfa.func @queue_unit(%u: i32, %heads: i32, %q_tiles: i32, %q_rows: i32,
                     %offsets: !jfa.ptr<i32>, %offsets_k: !jfa.ptr<i32>,
                     %schedule: !jfa.ptr<i32>, %general: i1,
                     %block_aligned: i1)
    -> (i32, i32, i32, i32, i1, i32, i32, i32, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %pair = arith.divui %u, %heads : i32
  %h = arith.remui %u, %heads : i32
  %at = arith.addi %pair, %c2 : i32
  %bt = jfa.load %schedule[%at] : !jfa.ptr<i32> -> i32
  %b = arith.divui %bt, %q_tiles : i32
  %t = arith.remui %bt, %q_tiles : i32
  %start, %len, %start_k, %len_k, %row_floor, %key_floor = jfa.call @unit_sequences(%b, %offsets, %offsets_k, %general, %block_aligned)
      : (i32, !jfa.ptr<i32>, !jfa.ptr<i32>, i1, i1) -> (i32, i32, i32, i32, i32, i32)
  // At most %q_tiles, as the schedule counts them (a sequence longer than
  // max_seqlen, whose offsets were not checked, is cut as it cut it).
  %q_rows_less = arith.subi %q_rows, %c1 : i32
  %len_up = arith.addi %len, %q_rows_less : i32
  %len_tiles = arith.divsi %len_up, %q_rows : i32
  %tiles = arith.minsi %len_tiles, %q_tiles : i32
  %last = arith.subi %tiles, %c1 : i32
  %tile = arith.subi %last, %t : i32
  %q0 = arith.muli %tile, %q_rows : i32
  %has_queries = arith.cmpi sge, %tile, %c0 : i32
  jfa.return %h, %start, %len, %q0, %has_queries, %start_k, %len_k, %row_floor, %key_floor
      : i32, i32, i32, i32, i1, i32, i32, i32, i32
}

// How a backward's units divide the q heads (grouped-query attention): the
// kv_group q heads that read a k/v head are split over %kv_split units
// (the caller's choice, a divisor of kv_group; 1 without the general
// variant, where it folds away), each walking kv_group / kv_split of them
// in turn. A unit's dK and dV then sum over its own heads only: with
// kv_split > 1 they are added (f32) into workspaces that the caller zeroes
// and converts, since several units write the same keys. Splitting keeps
// the longest unit (a sequence's first key tile, walking every q tile of
// every head) short beside a CTA's share of the work when there are few
// k/v heads: under MQA one unit per key tile would walk all H q heads.
// Returns the q heads per unit, the units per (sequence, key tile) pair
// (H / those), the split, and whether dK and dV are summed across units.
jfa.func @unit_heads(%heads: i32, %kv_group: i32, %kv_split: i32, %general: i1)
    -> (i32, i32, i32, i1) {
  %c1 = arith.constant 1 : i32
  %split = arith.select %general, %kv_split, %c1 : i32
  %per_unit = arith.divui %kv_group, %split : i32
  %unit_kv = arith.divui %heads, %per_unit : i32
  %summed = arith.cmpi ugt, %split, %c1 : i32
  jfa.return %per_unit, %unit_kv, %split, %summed : i32, i32, i32, i1
}

// Work unit u of a backward's persistent schedule, written once for every
// task that walks it, so that they cannot disagree. The schedule holds the
// number of live (sequence, 128-key tile) pairs, the counter the units are
// fetched from, then the pairs as b * k_tiles + kt, live first
// (python/jfa/_schedule.py, over the key sequences %offsets_k); unit u is
// pair u / unit_kv for head group u % unit_kv (@unit_heads: the group's q
// heads are [g * per_unit, (g + 1) * per_unit), which read k/v head
// g / kv_split; the unit's dK and dV sum over them, each in turn).
// Returns the head group, the query sequence's first row and
// length, the key sequence's first row and length, the tile's first key,
// whether the tile holds keys, the q tiles [q_first, q_first + q_count) of
// %q_tile rows that see its keys, the k/v head's first column in
// [T_k, H_kv*D], and the bounds of @unit_keys (band_schedule.mlir): query
// i (from the row floor) sees keys [max(key_floor, i + lo_off), min(len_k,
// i + hi_off)). q_count is at least 1, so that a tile no query sees still writes dK = dV = 0 (its q
// tile is masked whole). %q_tile is a constant at the call (64 on sm_90a,
// 128 on sm_100a): the divisions fold to shifts; %causal and %general are
// compile-time parameters: without %general the key sequences are the
// queries' own (%offsets_k is not read), there is no window, and the
// window's selects fold away. %block_aligned (a compile-time parameter,
// the block-sparse variants) places the key and q tiles on the packed
// axis's 128-token grid (@unit_sequences): the sequences returned start
// at the block of their first token, and the row and key floors (the last
// two results; 0 without it) say where they really start: rows and keys
// below are the previous sequence's, seen by no one and never written.
jfa.func @unit(%u: i32, %k_tiles: i32, %unit_kv: i32, %kv_split: i32, %head_dim: i32,
               %offsets: !jfa.ptr<i32>, %offsets_k: !jfa.ptr<i32>,
               %schedule: !jfa.ptr<i32>, %causal: i1, %general: i1,
               %left: i32, %right: i32, %q_tile: i32, %block_aligned: i1)
    -> (i32, i32, i32, i32, i32, i32, i1, i32, i32, i32, i32, i32, i32, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c128 = arith.constant 128 : i32
  %pair = arith.divui %u, %unit_kv : i32
  %hk = arith.remui %u, %unit_kv : i32
  %at = arith.addi %pair, %c2 : i32
  %bk = jfa.load %schedule[%at] : !jfa.ptr<i32> -> i32
  %b = arith.divui %bk, %k_tiles : i32
  %kt = arith.remui %bk, %k_tiles : i32
  %start, %len, %start_k, %len_k, %row_floor, %key_floor = jfa.call @unit_sequences(%b, %offsets, %offsets_k, %general, %block_aligned)
      : (i32, !jfa.ptr<i32>, !jfa.ptr<i32>, i1, i1) -> (i32, i32, i32, i32, i32, i32)
  %k0 = arith.muli %kt, %c128 : i32
  %live = arith.cmpi slt, %k0, %len_k : i32
  // The bounds, as the forward's (the queries and the whole k tile).
  %first_tile, %kv_tiles, %lo_off, %hi_off, %mask_below, %mask_above = jfa.call @unit_keys(%c0, %c128, %len, %len_k, %causal, %general, %left, %right)
      : (i32, i32, i32, i32, i1, i1, i32, i32) -> (i32, i32, i32, i32, i32, i32)
  // Queries i with i + hi_off > k0 and i + lo_off <= k0 + 127, from the
  // row floor.
  %after = arith.subi %k0, %hi_off : i32
  %first_row = arith.addi %after, %c1 : i32
  %first_seen = arith.maxsi %first_row, %row_floor : i32
  %q_first = arith.divui %first_seen, %q_tile : i32
  %k_end = arith.addi %k0, %c128 : i32
  %end_row = arith.subi %k_end, %lo_off : i32
  %end_seen = arith.minsi %end_row, %len : i32
  %q_tile_last = arith.subi %q_tile, %c1 : i32
  %q_up = arith.addi %end_seen, %q_tile_last : i32
  %q_last = arith.divsi %q_up, %q_tile : i32
  %span = arith.subi %q_last, %q_first : i32
  %q_count = arith.maxsi %span, %c1 : i32
  %kv_head = arith.divui %hk, %kv_split : i32
  %kv_col0 = arith.muli %kv_head, %head_dim : i32
  jfa.return %hk, %start, %len, %start_k, %len_k, %k0, %live, %q_first, %q_count, %kv_col0, %lo_off, %hi_off, %row_floor, %key_floor
      : i32, i32, i32, i32, i32, i32, i1, i32, i32, i32, i32, i32, i32, i32
}
