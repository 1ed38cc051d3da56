// jfa-targets: sm_90a
// jfa-variants: head_dim=64,128 causal=0,1 general=0,1,2,3,4,5,6
// Jagged (variable-length) flash attention forward for sm_90a, FA3-style:
//
//   o[t, h] = softmax(scale * q[t, h] . k[s, h']^T) . v[s, h']   over the
//   keys s of t's sequence that t sees, lse[h, t] = the log-sum-exp.
//
// The variants are options of this one kernel: causal and a sliding window
// (compile-time parameters; %window_left/%window_right, -1 unbounded, are
// read only when window is set), grouped-query attention (h' = h /
// %kv_group) and cross-attention (%offsets_k: the keys' sequences, their
// ends aligned with the queries'). @unit_keys (band_schedule.mlir) gives a
// unit's key tiles, so tiles outside the window are not loaded at all.
//
// The contract (tensors, parameters, launch) is kernels/jagged_attention/
// README.md. A work unit is (sequence, head, 128-row q tile). The grid is
// persistent and the units are handed out dynamically: the caller's
// schedule (attention_bwd_schedule.mlir over the query sequences) lists the
// (sequence, q tile) pairs that hold queries, longest sequence first, every
// pair for each head; a sequence's tiles are taken last first (under causal
// the costliest), and the producer takes the next unit from a counter
// (jfa.atomic_fetch_add) as it starts one, so a CTA that drew short units
// takes more (bench/NOTES.md, run 57).
//
// Warp specialization (the consumers' loop is @forward_consumer in
// kernels/lib/forward_consumer_sm90.mlir, shared with the D = 64
// specialization attention_fwd_sm90_q192): a producer warpgroup streams Q (once per unit,
// through a 2-stage ring so the next unit's loads overlap this one's end)
// and a 2-stage K/V ring with TMA; two consumer warpgroups (one task, 64 q rows
// each) run S = Q K^T with wgmma from shared memory, the online softmax in
// base 2 with the scale folded in, and O += P V with P fed from registers.
// Head dims 64 and 128 are one kernel: a row of D bf16 is D/64 chunks of 64
// columns (128 bytes, one 128-byte swizzle span), loaded and multiplied
// chunk by chunk. Rows and columns past the sequence's end are masked in
// the last k tile only (where the causal diagonal also lies), and on a
// block-sparse mask's grid the keys below the key floor in the first
// (@queue_unit). A unit whose 128 q rows all lie in its sequence writes O
// by TMA stores from its own Q stage (bench/NOTES.md, runs 78-81: the
// per-thread global stores cost a short sequence up to 18%); a unit
// with rows to clip uses row-clipped stores (from the row floor) so that it
// never writes another sequence's rows.
// The keys of a unit, the work queue and the load task, shared with the
// other target.
jfa.import "../lib/band_schedule.mlir"
jfa.import "../lib/work_queue.mlir"
jfa.import "../lib/forward_producer.mlir"
// The key mask and the online-softmax step, shared with the other target.
jfa.import "../lib/online_softmax.mlir"
// The consumer warpgroups, shared with attention_fwd_sm90_q192.
jfa.import "../lib/forward_consumer_sm90.mlir"
// The block-sparse mask's walk of the key tiles.
jfa.import "../lib/block_mask.mlir"

jfa.kernel @attention_fwd_sm90(%q: !jfa.tma<128x64xbf16, swizzle 128>,
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
                               %o_out: !jfa.tma<128x64xbf16, swizzle 128>) warps(12) {
  // Compiled for each head dim (64 or 128) and mask: jfac -P head_dim=64
  // -P causal=1 -P general=1; the branches on them fold away. Without
  // window, %window_left and %window_right are not read.
  %head_dim = jfa.param "head_dim" = 128 : i32
  %is_causal = jfa.param "causal" = false
  // 0: plain attention; 1: the general variant (window, grouped-query and
  // cross-attention); 2, 3: the general variant with GDPA's silu or
  // gelu_tanh in place of softmax; 4, 5, 6: those three block-sparse
  // (%block_bits, kernels/lib/block_mask.mlir; read only then).
  %general_kind = jfa.param "general" = 0 : i32
  // Q (unit n's in stage n mod 2), K, V: stage s, chunk c in slot 2s + c.
  %q_ring = jfa.local_alloc : !jfa.smem<4 x 128x64xbf16, swizzle 128>
  %k_ring = jfa.local_alloc : !jfa.smem<4 x 128x64xbf16, swizzle 128>
  %v_ring = jfa.local_alloc : !jfa.smem<4 x 128x64xbf16, swizzle 128>
  // The work queue's ring (@fetch_unit, @take_unit): 384 readers.
  %next_buf = jfa.local_alloc : !jfa.smem<2 x 1xi32>
  // Block-sparse: the load task's hand-off (@hand_over, block_mask.mlir):
  // slots 0 and 1 a unit's steps by Q's stage, 2 and 3 a step's tile and
  // whether it is listed (@tile_word) by the K/V ring's stage. Only the load task searches
  // the bitmap. %handed: the consumers read what the load task wrote
  // exactly when it writes it (@forward_producer's %hand_off and %sparse).
  // The dense variants drop it (jfa-specialize: nothing uses it there).
  %walk_buf = jfa.local_alloc : !jfa.smem<4 x 128xi32>
  %hand_off = arith.constant true
  %next_full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  %next_empty = jfa.alloc_barriers arrive_count(384) : !jfa.mbarriers<2>
  // full: the producer's expect plus the TMA bytes; empty: the 256 consumer
  // threads, once they no longer read the slot.
  %q_full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  %q_empty = jfa.alloc_barriers arrive_count(256) : !jfa.mbarriers<2>
  %k_full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  %k_empty = jfa.alloc_barriers arrive_count(256) : !jfa.mbarriers<2>
  %v_full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  %v_empty = jfa.alloc_barriers arrive_count(256) : !jfa.mbarriers<2>

  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %false = arith.constant false
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
    // Consumers: warps 0-7, 128 q rows (64 per warpgroup).
    jfa.task warps(8) registers(240) {
      jfa.call @forward_consumer(%q_ring, %k_ring, %v_ring,
                                 %q_full, %q_empty, %k_full, %k_empty, %v_full, %v_empty,
                                 %next_buf, %next_full, %next_empty, %walk_buf,
                                 %o, %o_out, %lse, %offsets, %offsets_k, %schedule,
                                 %units, %heads, %tokens, %o_stride, %q_tiles, %scale_log2, %window_left, %window_right,
                                 %block_bits, %block_words, %block_head_stride,
                                 %head_dim, %is_causal, %general, %sparse, %handed, %activation_eff, %is_softmax, %exp_share,
                                 %c128, %false)
          : (!jfa.smem<4 x 128x64xbf16, swizzle 128>, !jfa.smem<4 x 128x64xbf16, swizzle 128>, !jfa.smem<4 x 128x64xbf16, swizzle 128>,
             !jfa.mbarriers<2>, !jfa.mbarriers<2>, !jfa.mbarriers<2>, !jfa.mbarriers<2>, !jfa.mbarriers<2>, !jfa.mbarriers<2>,
             !jfa.smem<2 x 1xi32>, !jfa.mbarriers<2>, !jfa.mbarriers<2>, !jfa.smem<4 x 128xi32>,
             !jfa.ptr<bf16>, !jfa.tma<128x64xbf16, swizzle 128>, !jfa.ptr<f32>, !jfa.ptr<i32>, !jfa.ptr<i32>, !jfa.ptr<i32>,
             i32, i32, i32, i32, i32, f32, i32, i32,
             !jfa.ptr<i32>, i32, i32,
             i32, i1, i1, i1, i1, i32, i1, i32,
             i32, i1) -> ()
    }

    // Producer: warps 8-11; one thread issues the copies. 24 registers: the
    // CTA starts with 168 a thread (384 threads), and the consumers' 2 x 240
    // leave 24 of the 504 per lane of a warpgroup (setmaxnreg.inc only takes
    // what a setmaxnreg.dec gave back). The block-sparse walk spills there.
    jfa.task default registers(24) {
    jfa.call @forward_producer(%units, %heads, %q_tiles, %schedule, %next_buf, %next_full, %next_empty,
                               %offsets, %offsets_k, %is_causal, %general,
                               %window_left, %window_right, %kv_group_eff,
                               %head_dim, %q, %k, %v,
                               %q_ring, %k_ring, %v_ring,
                               %q_full, %q_empty, %k_full, %k_empty, %v_full, %v_empty,
                               %sparse, %block_bits, %block_words, %block_head_stride,
                               %hand_off, %walk_buf)
        : (i32, i32, i32, !jfa.ptr<i32>, !jfa.smem<2 x 1xi32>, !jfa.mbarriers<2>, !jfa.mbarriers<2>, !jfa.ptr<i32>, !jfa.ptr<i32>, i1, i1, i32, i32, i32, i32, !jfa.tma<128x64xbf16, swizzle 128>, !jfa.tma<128x64xbf16, swizzle 128>, !jfa.tma<128x64xbf16, swizzle 128>,
           !jfa.smem<4 x 128x64xbf16, swizzle 128>, !jfa.smem<4 x 128x64xbf16, swizzle 128>, !jfa.smem<4 x 128x64xbf16, swizzle 128>,
           !jfa.mbarriers<2>, !jfa.mbarriers<2>, !jfa.mbarriers<2>, !jfa.mbarriers<2>, !jfa.mbarriers<2>, !jfa.mbarriers<2>, i1, !jfa.ptr<i32>, i32, i32, i1, !jfa.smem<4 x 128xi32>) -> ()
    }
  }
}
