// A library of device helpers (no kernel), imported from
// kernels/jagged_attention/ with `jfa.import "../lib/block_mask.mlir"`:
// block-sparse attention (issue 20), written once for both targets and
// both directions.
//
// The mask is over the packed token axis in blocks of 128 tokens: query
// token t and key token s may attend only if block (t / 128, s / 128) is
// listed (and the jagged, causal and window masks let them). The kernels
// read it as a bitmap of 32-bit words: bit kb % 32 of word
// %bits[head_base + qb * %words + kb / 32] is block (qb, kb) of a head,
// head_base = h * %head_stride (0 for a mask shared by the heads). The
// runtime takes it as given (block_mask_bits); the Python package builds it
// on the device from FlexAttention's layout (kv_num_blocks, kv_indices) or
// bool blocks (python/jfa/_block_mask.py).
//
// The kernels place their tiles on the mask's grid (work_queue.mlir's
// @queue_unit and @unit: a sequence's tiles start at the block holding its
// first token), so that a tile lies in one block and costs a step only if
// that block is listed (bench/sparse_tiling.py: tiles from each sequence's
// own start ran 1.65-2.6x the steps per useful pair). The helpers below
// still take any tile of at most 128 rows and 128 keys, which meets at
// most two query blocks and two key blocks: rows [0, q_split) are in
// block qb and the rest in qb + 1, keys [0, k_split) in kb and the rest in
// kb + 1. Its code holds the four blocks' bits (1: (qb, kb), 2: (qb, kb +
// 1), 4: (qb + 1, kb), 8: (qb + 1, kb + 1)), 0 for a pair the tile does not
// reach. A tile whose code is 0 is skipped; a row sees one interval of the
// tile's keys ([0, k_split), [k_split, n), both or neither), so the mask
// stays one pair of bounds per row (jfa.mask_cols).

// Bit (qb, kb) of the bitmap, 0 or 1.
jfa.func @block_bit(%bits: !jfa.ptr<i32>, %row_base: i32, %words: i32,
                    %qb: i32, %kb: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %c5 = arith.constant 5 : i32
  %c31 = arith.constant 31 : i32
  %word_in_row = arith.shrui %kb, %c5 : i32
  %row = arith.muli %qb, %words : i32
  %row_at = arith.addi %row_base, %row : i32
  %at = arith.addi %row_at, %word_in_row : i32
  %word = jfa.load %bits[%at] : !jfa.ptr<i32> -> i32
  %shift = arith.andi %kb, %c31 : i32
  %moved = arith.shrui %word, %shift : i32
  %bit = arith.andi %moved, %c1 : i32
  jfa.return %bit : i32
}

// Where a tile lies among the blocks: rows [q_row, q_row + q_rows) and keys
// [k_row, k_row + k_cols) of the packed axes (q_rows, k_cols <= 128).
// Returns its first blocks qb and kb, q_split and k_split, whether it
// reaches block qb + 1 and kb + 1, whether it has a row and a key, and the
// code of such a tile whose blocks are all listed (a tile with that code
// needs no block mask; 1 for a tile with no row or no key).
jfa.func @tile_place(%q_row: i32, %q_rows: i32, %k_row: i32, %k_cols: i32)
    -> (i32, i32, i32, i32, i1, i1, i1, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c4 = arith.constant 4 : i32
  %c7 = arith.constant 7 : i32
  %c8 = arith.constant 8 : i32
  %c127 = arith.constant 127 : i32
  %c128 = arith.constant 128 : i32
  %qb = arith.shrui %q_row, %c7 : i32
  %kb = arith.shrui %k_row, %c7 : i32
  %q_in = arith.andi %q_row, %c127 : i32
  %k_in = arith.andi %k_row, %c127 : i32
  %q_room = arith.subi %c128, %q_in : i32
  %k_room = arith.subi %c128, %k_in : i32
  %q_split = arith.minsi %q_room, %q_rows : i32
  %k_split = arith.minsi %k_room, %k_cols : i32
  %has_rows = arith.cmpi sgt, %q_rows, %c0 : i32
  %has_keys = arith.cmpi sgt, %k_cols, %c0 : i32
  %any = arith.andi %has_rows, %has_keys : i1
  %two_q = arith.cmpi slt, %q_split, %q_rows : i32
  %two_k = arith.cmpi slt, %k_split, %k_cols : i32
  %both = arith.andi %two_q, %two_k : i1
  %f01 = arith.select %two_k, %c2, %c0 : i32
  %f10 = arith.select %two_q, %c4, %c0 : i32
  %f11 = arith.select %both, %c8, %c0 : i32
  %f_top = arith.ori %c1, %f01 : i32
  %f_bottom = arith.ori %f10, %f11 : i32
  %full_any = arith.ori %f_top, %f_bottom : i32
  %full = arith.select %any, %full_any, %c1 : i32
  jfa.return %qb, %kb, %q_split, %k_split, %two_q, %two_k, %any, %full
      : i32, i32, i32, i32, i1, i1, i1, i32
}

// The code of a tile (@tile_place's rows and keys; a tile with no row or
// no key has code 0 and reads nothing). Returns the code, the code of a
// tile whose blocks are all listed, q_split and k_split.
jfa.func @tile_code(%bits: !jfa.ptr<i32>, %row_base: i32, %words: i32,
                    %q_row: i32, %q_rows: i32, %k_row: i32, %k_cols: i32)
    -> (i32, i32, i32, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c4 = arith.constant 4 : i32
  %c8 = arith.constant 8 : i32
  %qb, %kb, %q_split, %k_split, %two_q, %two_k, %any, %full = jfa.call @tile_place(%q_row, %q_rows, %k_row, %k_cols)
      : (i32, i32, i32, i32) -> (i32, i32, i32, i32, i1, i1, i1, i32)
  %code = scf.if %any -> i32 {
    %qb1 = arith.addi %qb, %c1 : i32
    %kb1 = arith.addi %kb, %c1 : i32
    %b00 = jfa.call @block_bit(%bits, %row_base, %words, %qb, %kb)
        : (!jfa.ptr<i32>, i32, i32, i32, i32) -> i32
    %b01 = scf.if %two_k -> i32 {
      %b = jfa.call @block_bit(%bits, %row_base, %words, %qb, %kb1)
          : (!jfa.ptr<i32>, i32, i32, i32, i32) -> i32
      %s = arith.muli %b, %c2 : i32
      scf.yield %s : i32
    } else {
      scf.yield %c0 : i32
    }
    %b10 = scf.if %two_q -> i32 {
      %b = jfa.call @block_bit(%bits, %row_base, %words, %qb1, %kb)
          : (!jfa.ptr<i32>, i32, i32, i32, i32) -> i32
      %s = arith.muli %b, %c4 : i32
      scf.yield %s : i32
    } else {
      scf.yield %c0 : i32
    }
    %both = arith.andi %two_q, %two_k : i1
    %b11 = scf.if %both -> i32 {
      %b = jfa.call @block_bit(%bits, %row_base, %words, %qb1, %kb1)
          : (!jfa.ptr<i32>, i32, i32, i32, i32) -> i32
      %s = arith.muli %b, %c8 : i32
      scf.yield %s : i32
    } else {
      scf.yield %c0 : i32
    }
    %top = arith.ori %b00, %b01 : i32
    %bottom = arith.ori %b10, %b11 : i32
    %c = arith.ori %top, %bottom : i32
    scf.yield %c : i32
  } else {
    scf.yield %c0 : i32
  }
  jfa.return %code, %full, %q_split, %k_split : i32, i32, i32, i32
}

// The packed rows and keys of a unit's tile: rows [q0, q0 + q_size) of a
// query sequence of len rows from packed row start, keys [k0, k0 + k_size)
// of a key sequence of len_k keys from start_k (on the mask's grid, the
// sequences as @unit_sequences returns them). Returns the first packed
// row, the rows, the first packed key and the keys.
jfa.func @seq_tile_rows(%start: i32, %len: i32, %q0: i32, %q_size: i32,
                        %start_k: i32, %len_k: i32, %k0: i32, %k_size: i32)
    -> (i32, i32, i32, i32) {
  %q_left = arith.subi %len, %q0 : i32
  %q_rows = arith.minsi %q_left, %q_size : i32
  %k_left = arith.subi %len_k, %k0 : i32
  %k_cols = arith.minsi %k_left, %k_size : i32
  %q_row = arith.addi %start, %q0 : i32
  %k_row = arith.addi %start_k, %k0 : i32
  jfa.return %q_row, %q_rows, %k_row, %k_cols : i32, i32, i32, i32
}

// Whether a tile has a listed block (its code), over a unit's tile: rows
// [q0, q0 + q_size) of a query sequence of len rows from packed row start,
// keys [k0, k0 + k_size) of a key sequence of len_k keys from start_k.
jfa.func @seq_tile_code(%bits: !jfa.ptr<i32>, %row_base: i32, %words: i32,
                        %start: i32, %len: i32, %q0: i32, %q_size: i32,
                        %start_k: i32, %len_k: i32, %k0: i32, %k_size: i32)
    -> (i32, i32, i32, i32) {
  %q_row, %q_rows, %k_row, %k_cols = jfa.call @seq_tile_rows(%start, %len, %q0, %q_size, %start_k, %len_k, %k0, %k_size)
      : (i32, i32, i32, i32, i32, i32, i32, i32) -> (i32, i32, i32, i32)
  %code, %full, %q_split, %k_split = jfa.call @tile_code(%bits, %row_base, %words, %q_row, %q_rows, %k_row, %k_cols)
      : (!jfa.ptr<i32>, i32, i32, i32, i32, i32, i32) -> (i32, i32, i32, i32)
  jfa.return %code, %full, %q_split, %k_split : i32, i32, i32, i32
}

// The code of tile t of a walk: along the queries (%along_q), the q tile
// of %q_size rows from t * q_size against the 128 keys from %fixed (a
// backward's unit); else the 128-key tile from t * 128 against the
// %q_size rows from %fixed (a forward's unit).
jfa.func @walk_code(%along_q: i1, %t: i32, %fixed: i32, %q_size: i32,
                    %bits: !jfa.ptr<i32>, %row_base: i32, %words: i32,
                    %start: i32, %len: i32, %start_k: i32, %len_k: i32) -> i32 {
  %c128 = arith.constant 128 : i32
  %q_at = arith.muli %t, %q_size : i32
  %k_at = arith.muli %t, %c128 : i32
  %q0 = arith.select %along_q, %q_at, %fixed : i32
  %k0 = arith.select %along_q, %fixed, %k_at : i32
  %code, %full, %q_split, %k_split = jfa.call @seq_tile_code(%bits, %row_base, %words, %start, %len, %q0, %q_size, %start_k, %len_k, %k0, %c128)
      : (!jfa.ptr<i32>, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> (i32, i32, i32, i32)
  jfa.return %code : i32
}

// The first tile from %from before %end that has a listed block
// (@walk_code), or %end. Without %sparse (a compile-time parameter) every
// tile counts: it returns %from.
jfa.func @next_tile(%sparse: i1, %along_q: i1, %from: i32, %end: i32,
                    %fixed: i32, %q_size: i32, %bits: !jfa.ptr<i32>,
                    %row_base: i32, %words: i32, %start: i32, %len: i32,
                    %start_k: i32, %len_k: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %t = scf.if %sparse -> i32 {
    %found = scf.while (%tile = %from) : (i32) -> i32 {
      %before_end = arith.cmpi slt, %tile, %end : i32
      %unlisted = scf.if %before_end -> i1 {
        %code = jfa.call @walk_code(%along_q, %tile, %fixed, %q_size, %bits, %row_base, %words, %start, %len, %start_k, %len_k)
            : (i1, i32, i32, i32, !jfa.ptr<i32>, i32, i32, i32, i32, i32, i32) -> i32
        %none = arith.cmpi eq, %code, %c0 : i32
        scf.yield %none : i1
      } else {
        %false = arith.constant false
        scf.yield %false : i1
      }
      scf.condition(%unlisted) %tile : i32
    } do {
    ^bb0(%tile: i32):
      %next = arith.addi %tile, %c1 : i32
      scf.yield %next : i32
    }
    scf.yield %found : i32
  } else {
    scf.yield %from : i32
  }
  jfa.return %t : i32
}

// A unit's walk of the tiles [first, first + count) (@unit_keys' key tiles
// in a forward, @unit's q tiles in a backward): the number of steps (the
// listed tiles, at least one, so that a unit that sees no block still
// writes its zeros) and the first step's tile (the first listed one; the
// first tile, whose code is then 0, when none is). Without %sparse: count
// and first.
jfa.func @tile_walk(%sparse: i1, %along_q: i1, %first: i32, %count: i32,
                    %fixed: i32, %q_size: i32, %bits: !jfa.ptr<i32>,
                    %row_base: i32, %words: i32, %start: i32, %len: i32,
                    %start_k: i32, %len_k: i32) -> (i32, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %walk:2 = scf.if %sparse -> (i32, i32) {
    %end = arith.addi %first, %count : i32
    %listed = scf.for %tile = %first to %end step %c1
        iter_args(%n = %c0) -> (i32) : i32 {
      %code = jfa.call @walk_code(%along_q, %tile, %fixed, %q_size, %bits, %row_base, %words, %start, %len, %start_k, %len_k)
          : (i1, i32, i32, i32, !jfa.ptr<i32>, i32, i32, i32, i32, i32, i32) -> i32
      %seen = arith.cmpi ne, %code, %c0 : i32
      %one = arith.extui %seen : i1 to i32
      %n_next = arith.addi %n, %one : i32
      scf.yield %n_next : i32
    }
    %steps = arith.maxsi %listed, %c1 : i32
    %found = jfa.call @next_tile(%sparse, %along_q, %first, %end, %fixed, %q_size, %bits, %row_base, %words, %start, %len, %start_k, %len_k)
        : (i1, i1, i32, i32, i32, i32, !jfa.ptr<i32>, i32, i32, i32, i32, i32, i32) -> i32
    %none = arith.cmpi eq, %listed, %c0 : i32
    %first_step = arith.select %none, %first, %found : i32
    scf.yield %steps, %first_step : i32, i32
  } else {
    scf.yield %count, %first : i32, i32
  }
  jfa.return %walk#0, %walk#1 : i32, i32
}

// The keys [lo, hi) of a tile of n keys that a row sees by the block mask:
// for rows [0, q_split) (top) and the others (bottom), from the tile's code
// and k_split (@tile_code). A row with no listed block gets [k_split, 0),
// empty.
jfa.func @block_bounds(%code: i32, %k_split: i32, %n: i32)
    -> (i32, i32, i32, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c4 = arith.constant 4 : i32
  %c8 = arith.constant 8 : i32
  %b00 = arith.andi %code, %c1 : i32
  %b01 = arith.andi %code, %c2 : i32
  %b10 = arith.andi %code, %c4 : i32
  %b11 = arith.andi %code, %c8 : i32
  %a_top = arith.cmpi ne, %b00, %c0 : i32
  %b_top = arith.cmpi ne, %b01, %c0 : i32
  %a_bottom = arith.cmpi ne, %b10, %c0 : i32
  %b_bottom = arith.cmpi ne, %b11, %c0 : i32
  %lo_top = arith.select %a_top, %c0, %k_split : i32
  %first_top = arith.select %a_top, %k_split, %c0 : i32
  %hi_top = arith.select %b_top, %n, %first_top : i32
  %lo_bottom = arith.select %a_bottom, %c0, %k_split : i32
  %first_bottom = arith.select %a_bottom, %k_split, %c0 : i32
  %hi_bottom = arith.select %b_bottom, %n, %first_bottom : i32
  jfa.return %lo_top, %hi_top, %lo_bottom, %hi_bottom : i32, i32, i32, i32
}

// The block mask of a step over the tile of %q_size rows from %q0 and
// %k_size keys from %k0 (of a unit's sequences): the tile's code, whether some
// row misses some of its keys by the mask (then the bounds of
// @block_bounds apply), q_split and k_split: the code looked up in the
// bitmap, then @coded_block_mask. Without %sparse (a compile-time
// parameter): nothing to mask, nothing read.
jfa.func @tile_block_mask(%sparse: i1, %bits: !jfa.ptr<i32>, %row_base: i32,
                          %words: i32, %start: i32, %len: i32, %q0: i32,
                          %q_size: i32, %start_k: i32, %len_k: i32, %k0: i32,
                          %k_size: i32)
    -> (i32, i1, i32, i32) {
  %c0 = arith.constant 0 : i32
  %code = scf.if %sparse -> i32 {
    %c, %full, %q_split, %k_split = jfa.call @seq_tile_code(%bits, %row_base, %words, %start, %len, %q0, %q_size, %start_k, %len_k, %k0, %k_size)
        : (!jfa.ptr<i32>, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> (i32, i32, i32, i32)
    scf.yield %c : i32
  } else {
    scf.yield %c0 : i32
  }
  %r:4 = jfa.call @coded_block_mask(%sparse, %code, %start, %len, %q0, %q_size, %start_k, %len_k, %k0, %k_size)
      : (i1, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> (i32, i1, i32, i32)
  jfa.return %r#0, %r#1, %r#2, %r#3 : i32, i1, i32, i32
}

// @tile_block_mask's results for a step whose code is known (found by
// @tile_block_mask, or by another task: the sm_90a kernels' load task hands
// each step's tile and code to the tasks that compute), from %code and the
// tile's place, with no load.
jfa.func @coded_block_mask(%sparse: i1, %code: i32, %start: i32, %len: i32,
                           %q0: i32, %q_size: i32, %start_k: i32,
                           %len_k: i32, %k0: i32, %k_size: i32)
    -> (i32, i1, i32, i32) {
  %c0 = arith.constant 0 : i32
  %false = arith.constant false
  %r:4 = scf.if %sparse -> (i32, i1, i32, i32) {
    %q_row, %q_rows, %k_row, %k_cols = jfa.call @seq_tile_rows(%start, %len, %q0, %q_size, %start_k, %len_k, %k0, %k_size)
        : (i32, i32, i32, i32, i32, i32, i32, i32) -> (i32, i32, i32, i32)
    %qb, %kb, %q_split, %k_split, %two_q, %two_k, %any, %full = jfa.call @tile_place(%q_row, %q_rows, %k_row, %k_cols)
        : (i32, i32, i32, i32) -> (i32, i32, i32, i32, i1, i1, i1, i32)
    %partial = arith.cmpi ne, %code, %full : i32
    scf.yield %code, %partial, %q_split, %k_split : i32, i1, i32, i32
  } else {
    scf.yield %c0, %false, %c0, %c0 : i32, i1, i32, i32
  }
  jfa.return %r#0, %r#1, %r#2, %r#3 : i32, i1, i32, i32
}

// The hand-off of a block-sparse walk from the load task, which alone
// searches the bitmap, to the tasks that compute (the sm_90a kernels): a
// value in row 0 of a slot of a !jfa.smem<4 x 128xi32>, written before the
// load task arms the stage's full barrier and read once it is full, before
// the stage is released. Which slot holds what is the kernel's.
//
// Writes %value into slot %at: every thread of the task writes its row of a
// splat, and the task barrier orders the writes before the one thread's
// arrival that follows.
jfa.func @hand_over(%value: i32, %buf: !jfa.smem<4 x 128xi32>, %at: i32) {
  %slot = jfa.slot %buf[%at] : !jfa.smem<4 x 128xi32>, i32
  %rows = tensor.splat %value : tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>>
  jfa.local_store %rows, %slot : tensor<128xi32, #jfa.rows_of<#jfa.tmem_row>> -> !jfa.slot<128xi32>
  jfa.task_barrier
  jfa.return
}

// What @hand_over wrote into slot %at, under %sparse (a compile-time
// parameter); else %otherwise, the reader's own value.
jfa.func @handed_value(%sparse: i1, %buf: !jfa.smem<4 x 128xi32>, %at: i32,
                       %otherwise: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %v = scf.if %sparse -> i32 {
    %slot = jfa.slot %buf[%at] : !jfa.smem<4 x 128xi32>, i32
    %x = jfa.load_scalar %slot[%c0] : !jfa.slot<128xi32> -> i32
    scf.yield %x : i32
  } else {
    scf.yield %otherwise : i32
  }
  jfa.return %v : i32
}

// A step's tile and the codes of two key halves of it (a backward's two
// warpgroups; a forward's tile has one: %code1 = 0) in one word: tile << 8
// | code1 << 4 | code0. Codes are below 16; a tile index below 2^24 (64-row
// tiles of 2^30 rows, past where the kernels' i32 element offsets end) is
// read back whole by @handed_tile's logical shift.
jfa.func @tile_word(%tile: i32, %code0: i32, %code1: i32) -> i32 {
  %c4 = arith.constant 4 : i32
  %c8 = arith.constant 8 : i32
  %t = arith.shli %tile, %c8 : i32
  %c1s = arith.shli %code1, %c4 : i32
  %codes = arith.ori %c1s, %code0 : i32
  %w = arith.ori %t, %codes : i32
  jfa.return %w : i32
}

// The tile and code %which (0 or 1) of the @tile_word in slot %at, under
// %sparse; else %tile and code 0.
jfa.func @handed_tile(%sparse: i1, %buf: !jfa.smem<4 x 128xi32>, %at: i32,
                      %which: i32, %tile: i32) -> (i32, i32) {
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  %c8 = arith.constant 8 : i32
  %c15 = arith.constant 15 : i32
  %w = jfa.call @handed_value(%sparse, %buf, %at, %c0)
      : (i1, !jfa.smem<4 x 128xi32>, i32, i32) -> i32
  %t = arith.shrui %w, %c8 : i32
  %shift = arith.muli %which, %c4 : i32
  %codes = arith.shrui %w, %shift : i32
  %code = arith.andi %codes, %c15 : i32
  %tile_r = arith.select %sparse, %t, %tile : i32
  %code_r = arith.select %sparse, %code, %c0 : i32
  jfa.return %tile_r, %code_r : i32, i32
}
