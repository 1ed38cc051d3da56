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
// first token, and a tile has at most 128 rows and 128 keys from a multiple
// of its size), so that a tile lies in one block: it is listed or not
// (bench/sparse_tiling.py: tiles from each sequence's own start met up to
// four blocks and ran 1.65-2.6x the steps per useful pair). A walk steps
// only over listed tiles, which need no block mask; the one tile that is
// walked unlisted (a unit with no listed tile takes one step, to write its
// zeros) hides every key (@step_keys_end).

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

// Whether a tile has a listed block, 1 or 0: rows [q_row, q_row + q_rows)
// and keys [k_row, k_row + k_cols) of the packed axes, on the mask's grid
// (one block: (q_row / 128, k_row / 128)). A tile with no row or no key has
// none and reads nothing.
jfa.func @tile_listed(%bits: !jfa.ptr<i32>, %row_base: i32, %words: i32,
                      %q_row: i32, %q_rows: i32, %k_row: i32, %k_cols: i32)
    -> i32 {
  %c0 = arith.constant 0 : i32
  %c7 = arith.constant 7 : i32
  %has_rows = arith.cmpi sgt, %q_rows, %c0 : i32
  %has_keys = arith.cmpi sgt, %k_cols, %c0 : i32
  %any = arith.andi %has_rows, %has_keys : i1
  %listed = scf.if %any -> i32 {
    %qb = arith.shrui %q_row, %c7 : i32
    %kb = arith.shrui %k_row, %c7 : i32
    %bit = jfa.call @block_bit(%bits, %row_base, %words, %qb, %kb)
        : (!jfa.ptr<i32>, i32, i32, i32, i32) -> i32
    scf.yield %bit : i32
  } else {
    scf.yield %c0 : i32
  }
  jfa.return %listed : i32
}

// Whether a unit's tile has a listed block (@tile_listed): rows
// [q0, q0 + q_size) of a query sequence of len rows from packed row start,
// keys [k0, k0 + k_size) of a key sequence of len_k keys from start_k (on
// the mask's grid, the sequences as @unit_sequences returns them).
jfa.func @seq_tile_listed(%bits: !jfa.ptr<i32>, %row_base: i32, %words: i32,
                          %start: i32, %len: i32, %q0: i32, %q_size: i32,
                          %start_k: i32, %len_k: i32, %k0: i32, %k_size: i32)
    -> i32 {
  %q_left = arith.subi %len, %q0 : i32
  %q_rows = arith.minsi %q_left, %q_size : i32
  %k_left = arith.subi %len_k, %k0 : i32
  %k_cols = arith.minsi %k_left, %k_size : i32
  %q_row = arith.addi %start, %q0 : i32
  %k_row = arith.addi %start_k, %k0 : i32
  %listed = jfa.call @tile_listed(%bits, %row_base, %words, %q_row, %q_rows, %k_row, %k_cols)
      : (!jfa.ptr<i32>, i32, i32, i32, i32, i32, i32) -> i32
  jfa.return %listed : i32
}

// Whether tile t of a walk is listed: along the queries (%along_q), the q
// tile of %q_size rows from t * q_size against the 128 keys from %fixed (a
// backward's unit); else the 128-key tile from t * 128 against the
// %q_size rows from %fixed (a forward's unit).
jfa.func @walk_listed(%along_q: i1, %t: i32, %fixed: i32, %q_size: i32,
                      %bits: !jfa.ptr<i32>, %row_base: i32, %words: i32,
                      %start: i32, %len: i32, %start_k: i32, %len_k: i32) -> i32 {
  %c128 = arith.constant 128 : i32
  %q_at = arith.muli %t, %q_size : i32
  %k_at = arith.muli %t, %c128 : i32
  %q0 = arith.select %along_q, %q_at, %fixed : i32
  %k0 = arith.select %along_q, %fixed, %k_at : i32
  %listed = jfa.call @seq_tile_listed(%bits, %row_base, %words, %start, %len, %q0, %q_size, %start_k, %len_k, %k0, %c128)
      : (!jfa.ptr<i32>, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> i32
  jfa.return %listed : i32
}

// The first tile from %from before %end that is listed (@walk_listed), or
// %end. Without %sparse (a compile-time parameter) every tile counts: it
// returns %from.
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
        %listed = jfa.call @walk_listed(%along_q, %tile, %fixed, %q_size, %bits, %row_base, %words, %start, %len, %start_k, %len_k)
            : (i1, i32, i32, i32, !jfa.ptr<i32>, i32, i32, i32, i32, i32, i32) -> i32
        %none = arith.cmpi eq, %listed, %c0 : i32
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
// first tile, then unlisted, when none is). Without %sparse: count and
// first.
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
      %bit = jfa.call @walk_listed(%along_q, %tile, %fixed, %q_size, %bits, %row_base, %words, %start, %len, %start_k, %len_k)
          : (i1, i32, i32, i32, !jfa.ptr<i32>, i32, i32, i32, i32, i32, i32) -> i32
      %n_next = arith.addi %n, %bit : i32
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

// Whether a step's tile (%q_size rows from %q0 and %k_size keys from %k0 of
// a unit's sequences) is listed, looked up in the bitmap under %sparse (a
// compile-time parameter); without it 1, nothing read.
jfa.func @step_listed(%sparse: i1, %bits: !jfa.ptr<i32>, %row_base: i32,
                      %words: i32, %start: i32, %len: i32, %q0: i32,
                      %q_size: i32, %start_k: i32, %len_k: i32, %k0: i32,
                      %k_size: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %listed = scf.if %sparse -> i32 {
    %l = jfa.call @seq_tile_listed(%bits, %row_base, %words, %start, %len, %q0, %q_size, %start_k, %len_k, %k0, %k_size)
        : (!jfa.ptr<i32>, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> i32
    scf.yield %l : i32
  } else {
    scf.yield %c1 : i32
  }
  jfa.return %listed : i32
}

// The end of the keys a step's rows may see, for the key mask: %len_k, or
// %k0 for a tile that is not listed (under %sparse: only a unit's one step
// when it has no listed tile), so that every key of it is hidden; and
// whether the tile is such a one (it takes the mask then).
jfa.func @step_keys_end(%sparse: i1, %listed: i32, %k0: i32, %len_k: i32)
    -> (i32, i1) {
  %c0 = arith.constant 0 : i32
  %none = arith.cmpi eq, %listed, %c0 : i32
  %unlisted = arith.andi %none, %sparse : i1
  %end = arith.select %unlisted, %k0, %len_k : i32
  jfa.return %end, %unlisted : i32, i1
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

// A step's tile and whether two key halves of it are listed (a backward's
// two warpgroups; a forward's tile has one: %listed1 = 0) in one word:
// tile << 2 | listed1 << 1 | listed0. A tile index below 2^30 (64-row tiles
// of 2^36 rows, past where the kernels' i32 element offsets end) is read
// back whole by @handed_tile's logical shift.
jfa.func @tile_word(%tile: i32, %listed0: i32, %listed1: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %t = arith.shli %tile, %c2 : i32
  %l1 = arith.shli %listed1, %c1 : i32
  %bits = arith.ori %l1, %listed0 : i32
  %w = arith.ori %t, %bits : i32
  jfa.return %w : i32
}

// The tile and listed bit %which (0 or 1) of the @tile_word in slot %at,
// under %sparse; else %tile and 1.
jfa.func @handed_tile(%sparse: i1, %buf: !jfa.smem<4 x 128xi32>, %at: i32,
                      %which: i32, %tile: i32) -> (i32, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %w = jfa.call @handed_value(%sparse, %buf, %at, %c0)
      : (i1, !jfa.smem<4 x 128xi32>, i32, i32) -> i32
  %t = arith.shrui %w, %c2 : i32
  %bits = arith.shrui %w, %which : i32
  %bit = arith.andi %bits, %c1 : i32
  %tile_r = arith.select %sparse, %t, %tile : i32
  %listed = arith.select %sparse, %bit, %c1 : i32
  jfa.return %tile_r, %listed : i32, i32
}
