// jfa-targets: sm_100a
// jfa-variants: head_dim=64,128 causal=0,1 general=0,1,2,3,4,5,6
// Jagged (variable-length) flash attention forward for sm_100a, FA4-style,
// with the contract, work units, persistent schedule and variants (causal,
// sliding window, grouped-query and cross-attention) of
// attention_fwd_sm90.mlir (see kernels/jagged_attention/README.md).
//
// Warp specialization over tensor memory:
//   - the load warp streams Q (once per unit, through a 2-stage ring so the
//     next unit's loads overlap this one's end) and a 2-stage K/V ring (TMA);
//   - the MMA warp issues S = Q K^T into tensor memory (tcgen05.mma from
//     shared memory), and O += P V with P read from tensor memory and V from
//     shared memory (N-major, a transposed view), committing each result to
//     a barrier and each ring slot back to the load warp;
//   - the softmax warpgroup (one q row per thread, so row reductions are
//     thread-local) reads S, runs the online softmax in base 2 with the
//     scale folded in, rescales O in tensor memory, writes P (bf16) to
//     tensor memory and, at the end of a unit, writes o and lse with
//     TMA stores from the unit's Q stage (a tile whose 128 rows all lie in
//     the sequence) or row-clipped stores (from the row floor on a
//     block-sparse mask's grid, @queue_unit), then hands the Q stage back.
// Tensor memory: S (128 columns), P (128 bf16 = 64 columns), O (128).
// Needs a B200 to run: compiled, checked by ptxas and disassembled here.
// The keys of a unit, the work queue and the load task, shared with the
// other target.
jfa.import "../lib/band_schedule.mlir"
jfa.import "../lib/work_queue.mlir"
jfa.import "../lib/forward_producer.mlir"
// The key mask and the online-softmax step, shared with the other target.
jfa.import "../lib/online_softmax.mlir"
// The block-sparse mask's walk of the key tiles.
jfa.import "../lib/block_mask.mlir"

jfa.kernel @attention_fwd_sm100(%q: !jfa.tma<128x64xbf16, swizzle 128>,
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
                                %block_head_stride: i32,
                                %schedule: !jfa.ptr<i32>,
                                // The contract's o as a TMA tensor: whole
                                // q tiles of O go out through it.
                                %o_out: !jfa.tma<128x64xbf16, swizzle 128>) warps(6) {
  // Compiled for each head dim (64 or 128) and mask: jfac -P head_dim=64
  // -P causal=1; the branches on them fold away.
  %head_dim = jfa.param "head_dim" = 128 : i32
  %is_causal = jfa.param "causal" = false
  // 0: plain attention; 1: the general variant (window, grouped-query and
  // cross-attention); 2, 3: the general variant with GDPA's silu or
  // gelu_tanh in place of softmax; 4, 5, 6: those three block-sparse
  // (%block_bits, kernels/lib/block_mask.mlir; read only then).
  %general_kind = jfa.param "general" = 0 : i32
  // Of the 16 8-column groups of each P tile, how many exponentials the FMA
  // pipes compute instead of the special-function unit (jfa.exp2). None
  // until it is measured on a B200 (FlashAttention-4 moves a share there).
  %exp_share = arith.constant 0 : i32
  %q_ring = jfa.local_alloc : !jfa.smem<4 x 128x64xbf16, swizzle 128>
  %k_ring = jfa.local_alloc : !jfa.smem<4 x 128x64xbf16, swizzle 128>
  %v_ring = jfa.local_alloc : !jfa.smem<4 x 128x64xbf16, swizzle 128>
  // The work queue's ring (@fetch_unit, @take_unit): 192 readers.
  %next_buf = jfa.local_alloc : !jfa.smem<2 x 1xi32>
  // @forward_producer's hand-off slots, unused here (%hand_off false: the
  // softmax task walks the block mask itself; a step's slot could be
  // refilled once the MMA warp's commit frees the stage, before the softmax
  // task has read it). Nothing uses it once %hand_off folds, so it takes
  // no shared memory (jfa-specialize drops it).
  %walk_buf = jfa.local_alloc : !jfa.smem<4 x 128xi32>
  %next_full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  %next_empty = jfa.alloc_barriers arrive_count(192) : !jfa.mbarriers<2>
  // full: the load warp's expect plus the TMA bytes; k/v empty, s_ready,
  // o_ready: a tcgen05 commit; q_empty (once O's TMA stores have read the
  // stage) and p_ready: the 128 softmax threads.
  %q_full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  %q_empty = jfa.alloc_barriers arrive_count(128) : !jfa.mbarriers<2>
  %k_full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  %k_empty = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  %v_full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  %v_empty = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  %s_ready = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %p_ready = jfa.alloc_barriers arrive_count(128) : !jfa.mbarriers<1>
  %o_ready = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %s_tmem = jfa.tmem_alloc : !jfa.tmem<128x128xf32>
  %p_tmem = jfa.tmem_alloc : !jfa.tmem<128x128xbf16>
  %o_tmem = jfa.tmem_alloc : !jfa.tmem<128x128xf32>
  %o_lo_tmem = jfa.tmem_slice %o_tmem columns(0) : !jfa.tmem<128x128xf32> -> !jfa.tmem<128x64xf32>
  %o_hi_tmem = jfa.tmem_slice %o_tmem columns(64) : !jfa.tmem<128x128xf32> -> !jfa.tmem<128x64xf32>

  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %true = arith.constant true
  %false = arith.constant false
  // The variant's options (kernels/lib/band_schedule.mlir).
  %general, %kv_group_eff, %activation_eff, %is_softmax, %sparse = jfa.call @attention_variant(%general_kind, %kv_group)
      : (i32, i32) -> (i1, i32, i32, i1, i1)
  // The work queue (kernels/lib/work_queue.mlir): %schedule[0] pairs of
  // (sequence, q tile), each for every head.
  %pairs = jfa.load %schedule[%c0] : !jfa.ptr<i32> -> i32
  %units = arith.muli %pairs, %heads : i32
  %wide = arith.cmpi eq, %head_dim, %c128 : i32
  %s_ready0 = jfa.barrier %s_ready[%c0] : !jfa.mbarriers<1>, i32
  %p_ready0 = jfa.barrier %p_ready[%c0] : !jfa.mbarriers<1>, i32
  %o_ready0 = jfa.barrier %o_ready[%c0] : !jfa.mbarriers<1>, i32

  jfa.async_tasks {
    // Softmax warpgroup: warps 0-3, q row r in thread r (tensor-memory lane r).
    jfa.task warps(4) registers(248) {
      %neg_inf_rows = arith.constant dense<0xFF800000> : tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>
      %zero_rows = arith.constant dense<0.0> : tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>
      %one_rows = arith.constant dense<1.0> : tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>
      %ln2 = arith.constant dense<0.693147181> : tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>

      // Units from the load task's fetches; the first past the last ends
      // the loop.
      %counts:4 = scf.while (%taken = %c0, %unit_n = %c0, %kv_n = %c0)
          : (i32, i32, i32) -> (i32, i32, i32, i32) {
        %fetched, %more = jfa.call @take_next_unit(%taken, %units, %next_buf, %next_full, %next_empty)
            : (i32, i32, !jfa.smem<2 x 1xi32>, !jfa.mbarriers<2>, !jfa.mbarriers<2>) -> (i32, i1)
        scf.condition(%more) %fetched, %taken, %unit_n, %kv_n : i32, i32, i32, i32
      } do {
      ^bb0(%u: i32, %taken: i32, %unit_n: i32, %kv_n: i32):
        %h, %start, %len, %q0, %live, %start_k, %len_k, %row_floor, %key_floor, %lo_off, %hi_off, %mask_below, %mask_above, %block_base, %steps, %first_step, %end_tile = jfa.call @forward_unit(%u, %heads, %q_tiles, %c128, %offsets, %offsets_k, %schedule, %is_causal, %general, %window_left, %window_right, %sparse, %block_bits, %block_words, %block_head_stride)
            : (i32, i32, i32, i32, !jfa.ptr<i32>, !jfa.ptr<i32>, !jfa.ptr<i32>, i1, i1, i32, i32, i1, !jfa.ptr<i32>, i32, i32) -> (i32, i32, i32, i32, i1, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32)
        %next:2 = scf.if %live -> (i32, i32) {

          %acc:3 = scf.for %j = %c0 to %steps step %c1
              iter_args(%m = %neg_inf_rows, %l = %zero_rows, %k_tile = %first_step)
              -> (tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>, tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>, i32) : i32 {
            %n = arith.addi %kv_n, %j : i32
            // The tile's mask, and (block-sparse) the next tile, found while
            // S = Q K^T runs: none of it is live beside S's 128 registers
            // (with the search after the softmax, ptxas spilled 200 B at
            // D = 128).
            %k0 = arith.muli %k_tile, %c128 : i32
            %tile_cut = jfa.call @tile_masked(%k0, %mask_below, %mask_above) : (i32, i32, i32) -> i1
            %listed = jfa.call @step_listed(%sparse, %block_bits, %block_base, %block_words, %start, %len, %q0, %c128, %start_k, %len_k, %k0, %c128)
                : (i1, !jfa.ptr<i32>, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> i32
            %keys_end, %unlisted = jfa.call @step_keys_end(%sparse, %listed, %k0, %len_k)
                : (i1, i32, i32, i32) -> (i32, i1)
            %tile_masked = arith.ori %tile_cut, %unlisted : i1
            %after = arith.addi %k_tile, %c1 : i32
            %next_tile = jfa.call @next_tile(%sparse, %false, %after, %end_tile, %q0, %c128, %block_bits, %block_base, %block_words, %start, %len, %start_k, %len_k)
                : (i1, i1, i32, i32, i32, i32, !jfa.ptr<i32>, i32, i32, i32, i32, i32, i32) -> i32
            %n_phase = arith.andi %n, %c1 : i32
            jfa.barrier_wait %s_ready0, %n_phase
            %s_raw = jfa.tmem_load %s_tmem[%c0] : !jfa.tmem<128x128xf32> -> tensor<128x128xf32, #jfa.tmem_row>

            // The mask and the online softmax in base 2 (thread-local: a
            // thread owns its row), or a GDPA activation.
            %p, %m_new, %l_new, %corr = jfa.call @attention_step(%s_raw, %m, %l, %scale_log2, %activation_eff, %tile_masked, %q0, %k0, %keys_end, %lo_off, %hi_off, %key_floor, %general, %exp_share)
                : (tensor<128x128xf32, #jfa.tmem_row>, tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>, tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>, f32, i32, i1, i32, i32, i32, i32, i32, i32, i1, i32)
                -> (tensor<128x128xf32, #jfa.tmem_row>, tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>, tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>, tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>)
            %p16 = arith.truncf %p : tensor<128x128xf32, #jfa.tmem_row> to tensor<128x128xbf16, #jfa.tmem_row>

            // Once the previous P V is done: rescale O (softmax only: GDPA
            // does not normalize), then overwrite P.
            %has_prev = arith.cmpi ugt, %j, %c0 : i32
            scf.if %has_prev {
              %prev = arith.subi %n, %c1 : i32
              %prev_phase = arith.andi %prev, %c1 : i32
              jfa.barrier_wait %o_ready0, %prev_phase
            }
            %rescale = arith.andi %has_prev, %is_softmax : i1
            scf.if %rescale {
              %corr_o = jfa.broadcast_rows %corr : tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>> -> tensor<128x64xf32, #jfa.tmem_row>
              %o_lo = jfa.tmem_load %o_lo_tmem[%c0] : !jfa.tmem<128x64xf32> -> tensor<128x64xf32, #jfa.tmem_row>
              %o_lo_c = arith.mulf %o_lo, %corr_o : tensor<128x64xf32, #jfa.tmem_row>
              jfa.tmem_store %o_lo_c, %o_lo_tmem[%c0] : tensor<128x64xf32, #jfa.tmem_row> -> !jfa.tmem<128x64xf32>
              scf.if %wide {
                %o_hi = jfa.tmem_load %o_hi_tmem[%c0] : !jfa.tmem<128x64xf32> -> tensor<128x64xf32, #jfa.tmem_row>
                %o_hi_c = arith.mulf %o_hi, %corr_o : tensor<128x64xf32, #jfa.tmem_row>
                jfa.tmem_store %o_hi_c, %o_hi_tmem[%c0] : tensor<128x64xf32, #jfa.tmem_row> -> !jfa.tmem<128x64xf32>
              }
            }
            jfa.tmem_store %p16, %p_tmem[%c0] : tensor<128x128xbf16, #jfa.tmem_row> -> !jfa.tmem<128x128xbf16>
            jfa.barrier_arrive %p_ready0
            scf.yield %m_new, %l_new, %next_tile : tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>, tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>, i32
          }

          // The last P V done: o = O / l, rows of this sequence only;
          // lse = ln(l) + m ln 2.
          %kv_next = arith.addi %kv_n, %steps : i32
          %last_n = arith.subi %kv_next, %c1 : i32
          %last_phase = arith.andi %last_n, %c1 : i32
          jfa.barrier_wait %o_ready0, %last_phase
          // A row that saw no key (l = 0) gets o = 0 and lse = -inf.
          %l_inv = arith.divf %one_rows, %acc#1 : tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>
          %no_keys = arith.cmpf oeq, %acc#1, %zero_rows : tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>
          %softmax_norm = arith.select %no_keys, %zero_rows, %l_inv : tensor<128xi1, #jfa.rows_of<#jfa.tmem_row>>, tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>
          // GDPA's output is not normalized.
          %inv_l = arith.select %is_softmax, %softmax_norm, %one_rows : tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>
          %inv_l_t = jfa.broadcast_rows %inv_l : tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>> -> tensor<128x64xf32, #jfa.tmem_row>
          %row0 = arith.addi %start, %q0 : i32
          %rows_left = arith.subi %len, %q0 : i32
          // On a block-sparse mask's grid, the rows below the row floor are
          // the previous sequence's (@queue_unit): not written. (0 without
          // the grid: the bound folds away.)
          %floor_in_tile = arith.subi %row_floor, %q0 : i32
          %first_row = arith.select %sparse, %floor_in_tile, %c0 : i32
          %row_base = arith.muli %row0, %o_stride : i32
          %head_base = arith.muli %h, %head_dim : i32
          %o_base = arith.addi %row_base, %head_base : i32
          %o_lo = jfa.tmem_load %o_lo_tmem[%c0] : !jfa.tmem<128x64xf32> -> tensor<128x64xf32, #jfa.tmem_row>
          %out_lo = arith.mulf %o_lo, %inv_l_t : tensor<128x64xf32, #jfa.tmem_row>
          %out_lo16 = arith.truncf %out_lo : tensor<128x64xf32, #jfa.tmem_row> to tensor<128x64xbf16, #jfa.tmem_row>
          %out_hi16 = scf.if %wide -> tensor<128x64xbf16, #jfa.tmem_row> {
            %o_hi = jfa.tmem_load %o_hi_tmem[%c0] : !jfa.tmem<128x64xf32> -> tensor<128x64xf32, #jfa.tmem_row>
            %out_hi = arith.mulf %o_hi, %inv_l_t : tensor<128x64xf32, #jfa.tmem_row>
            %t = arith.truncf %out_hi : tensor<128x64xf32, #jfa.tmem_row> to tensor<128x64xbf16, #jfa.tmem_row>
            scf.yield %t : tensor<128x64xbf16, #jfa.tmem_row>
          } else {
            scf.yield %out_lo16 : tensor<128x64xbf16, #jfa.tmem_row>
          }
          // A tile whose 128 rows all lie in the sequence goes out by TMA
          // stores from the unit's Q stage, as on sm_90a (bench/NOTES.md,
          // runs 78-81): the last S, waited for above, has read it. One with
          // rows past the end (or below a block-sparse row floor) by
          // row-clipped stores.
          %q_slot0, %q_slot1, %q_full0, %q_empty0, %q_phase, %q_stage = jfa.call @q_stage(%unit_n, %q_ring, %q_full, %q_empty)
              : (i32, !jfa.smem<4 x 128x64xbf16, swizzle 128>, !jfa.mbarriers<2>, !jfa.mbarriers<2>) -> (!jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, !jfa.mbarrier, !jfa.mbarrier, i32, i32)
          %whole_tile = jfa.call @o_tile_whole(%rows_left, %first_row, %c128) : (i32, i32, i32) -> i1
          scf.if %whole_tile {
            jfa.call @stage_o(%out_lo16, %out_hi16, %q_slot0, %q_slot1, %wide)
                : (tensor<128x64xbf16, #jfa.tmem_row>, tensor<128x64xbf16, #jfa.tmem_row>, !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, i1) -> ()
            jfa.task_barrier
            jfa.call @tma_store_o(%q_slot0, %q_slot1, %o_out, %row0, %head_base, %wide)
                : (!jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, !jfa.tma<128x64xbf16, swizzle 128>, i32, i32, i1) -> ()
            // The stores read the stage before it goes back to the load
            // warp (below): the issuing thread waits, the others with it.
            jfa.tma_store_wait pending(0)
            jfa.task_barrier
          } else {
            jfa.call @store_o_rows(%out_lo16, %out_hi16, %o, %o_base, %o_stride, %rows_left, %first_row, %wide)
                : (tensor<128x64xbf16, #jfa.tmem_row>, tensor<128x64xbf16, #jfa.tmem_row>, !jfa.ptr<bf16>, i32, i32, i32, i32, i1) -> ()
          }
          // Q's stage goes back to the load warp, for the unit after next.
          jfa.barrier_arrive %q_empty0
          // lse: softmax only (GDPA has none; lse is not written).
          scf.if %is_softmax {
            %log2_l = math.log2 %acc#1 fastmath<afn> : tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>
            %lse2 = arith.addf %acc#0, %log2_l : tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>
            %lse_v = arith.mulf %lse2, %ln2 : tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>
            %lse_head = arith.muli %h, %tokens : i32
            %lse_off = arith.addi %lse_head, %row0 : i32
            jfa.store_rows %lse_v, %lse[%lse_off] rows(%rows_left) from(%first_row)
                : tensor<128xf32, #jfa.rows_of<#jfa.tmem_row>>, !jfa.ptr<f32>
          }
          %unit_next = arith.addi %unit_n, %c1 : i32
          scf.yield %unit_next, %kv_next : i32, i32
        } else {
          scf.yield %unit_n, %kv_n : i32, i32
        }
        %taken_next = arith.addi %taken, %c1 : i32
        scf.yield %taken_next, %next#0, %next#1 : i32, i32, i32
      }
    }

    // Load warp (warp 4): Q once per unit, then K and V through the ring.
    jfa.task warps(1) {
    jfa.call @forward_producer(%units, %heads, %q_tiles, %schedule, %next_buf, %next_full, %next_empty,
                               %offsets, %offsets_k, %is_causal, %general,
                               %window_left, %window_right, %kv_group_eff,
                               %head_dim, %q, %k, %v,
                               %q_ring, %k_ring, %v_ring,
                               %q_full, %q_empty, %k_full, %k_empty, %v_full, %v_empty,
                               %sparse, %block_bits, %block_words, %block_head_stride,
                               %false, %walk_buf)
        : (i32, i32, i32, !jfa.ptr<i32>, !jfa.smem<2 x 1xi32>, !jfa.mbarriers<2>, !jfa.mbarriers<2>, !jfa.ptr<i32>, !jfa.ptr<i32>, i1, i1, i32, i32, i32, i32, !jfa.tma<128x64xbf16, swizzle 128>, !jfa.tma<128x64xbf16, swizzle 128>, !jfa.tma<128x64xbf16, swizzle 128>,
           !jfa.smem<4 x 128x64xbf16, swizzle 128>, !jfa.smem<4 x 128x64xbf16, swizzle 128>, !jfa.smem<4 x 128x64xbf16, swizzle 128>,
           !jfa.mbarriers<2>, !jfa.mbarriers<2>, !jfa.mbarriers<2>, !jfa.mbarriers<2>, !jfa.mbarriers<2>, !jfa.mbarriers<2>, i1, !jfa.ptr<i32>, i32, i32, i1, !jfa.smem<4 x 128xi32>) -> ()
    }

    // MMA warp (warp 5): one thread issues the tcgen05 MMAs.
    jfa.task default {
      // Units from the load task's fetches; the first past the last ends
      // the loop.
      %counts:4 = scf.while (%taken = %c0, %unit_n = %c0, %kv_n = %c0)
          : (i32, i32, i32) -> (i32, i32, i32, i32) {
        %fetched, %more = jfa.call @take_next_unit(%taken, %units, %next_buf, %next_full, %next_empty)
            : (i32, i32, !jfa.smem<2 x 1xi32>, !jfa.mbarriers<2>, !jfa.mbarriers<2>) -> (i32, i1)
        scf.condition(%more) %fetched, %taken, %unit_n, %kv_n : i32, i32, i32, i32
      } do {
      ^bb0(%u: i32, %taken: i32, %unit_n: i32, %kv_n: i32):
        %h, %start, %len, %q0, %live, %start_k, %len_k, %row_floor, %key_floor, %lo_off, %hi_off, %mask_below, %mask_above, %block_base, %steps, %first_step, %end_tile = jfa.call @forward_unit(%u, %heads, %q_tiles, %c128, %offsets, %offsets_k, %schedule, %is_causal, %general, %window_left, %window_right, %sparse, %block_bits, %block_words, %block_head_stride)
            : (i32, i32, i32, i32, !jfa.ptr<i32>, !jfa.ptr<i32>, !jfa.ptr<i32>, i1, i1, i32, i32, i1, !jfa.ptr<i32>, i32, i32) -> (i32, i32, i32, i32, i1, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32)
        %next:2 = scf.if %live -> (i32, i32) {
          // The unit's Q, from stage unit_n mod 2 of Q's ring.
          %q_slot0, %q_slot1, %q_full0, %q_empty0, %q_phase, %q_stage = jfa.call @q_stage(%unit_n, %q_ring, %q_full, %q_empty)
              : (i32, !jfa.smem<4 x 128x64xbf16, swizzle 128>, !jfa.mbarriers<2>, !jfa.mbarriers<2>) -> (!jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, !jfa.mbarrier, !jfa.mbarrier, i32, i32)
          jfa.barrier_wait %q_full0, %q_phase
          scf.for %j = %c0 to %steps step %c1 : i32 {
            %n = arith.addi %kv_n, %j : i32
            %stage, %phase = jfa.ring_position %n stages(2) : i32
            %chunk0 = arith.muli %stage, %c2 : i32
            %chunk1 = arith.addi %chunk0, %c1 : i32
            %k_lo = jfa.slot %k_ring[%chunk0] : !jfa.smem<4 x 128x64xbf16, swizzle 128>, i32
            %k_hi = jfa.slot %k_ring[%chunk1] : !jfa.smem<4 x 128x64xbf16, swizzle 128>, i32
            %v_lo = jfa.slot %v_ring[%chunk0] : !jfa.smem<4 x 128x64xbf16, swizzle 128>, i32
            %v_hi = jfa.slot %v_ring[%chunk1] : !jfa.smem<4 x 128x64xbf16, swizzle 128>, i32

            // S = Q K^T over D in chunks of 64; the K slot goes back once read.
            %k_full_s = jfa.barrier %k_full[%stage] : !jfa.mbarriers<2>, i32
            jfa.barrier_wait %k_full_s, %phase
            jfa.tc_dot %q_slot0, %k_lo, %s_tmem, %false : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, !jfa.tmem<128x128xf32>
            scf.if %wide {
              jfa.tc_dot %q_slot1, %k_hi, %s_tmem, %true : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, !jfa.tmem<128x128xf32>
            }
            jfa.tc_commit %s_ready0
            %k_empty_s = jfa.barrier %k_empty[%stage] : !jfa.mbarriers<2>, i32
            jfa.tc_commit %k_empty_s

            // O += P V once the softmax has written P (and rescaled O).
            %n_phase = arith.andi %n, %c1 : i32
            jfa.barrier_wait %p_ready0, %n_phase
            %v_full_s = jfa.barrier %v_full[%stage] : !jfa.mbarriers<2>, i32
            jfa.barrier_wait %v_full_s, %phase
            %v_lo_t = jfa.transpose %v_lo : !jfa.slot<128x64xbf16, swizzle 128>
            %v_hi_t = jfa.transpose %v_hi : !jfa.slot<128x64xbf16, swizzle 128>
            %accumulate = arith.cmpi ugt, %j, %c0 : i32
            jfa.tc_dot %p_tmem, %v_lo_t, %o_lo_tmem, %accumulate : !jfa.tmem<128x128xbf16>, !jfa.slot<64x128xbf16, swizzle 128, transposed>, !jfa.tmem<128x64xf32>
            scf.if %wide {
              jfa.tc_dot %p_tmem, %v_hi_t, %o_hi_tmem, %accumulate : !jfa.tmem<128x128xbf16>, !jfa.slot<64x128xbf16, swizzle 128, transposed>, !jfa.tmem<128x64xf32>
            }
            jfa.tc_commit %o_ready0
            %v_empty_s = jfa.barrier %v_empty[%stage] : !jfa.mbarriers<2>, i32
            jfa.tc_commit %v_empty_s
          }
          %unit_next = arith.addi %unit_n, %c1 : i32
          %kv_next = arith.addi %kv_n, %steps : i32
          scf.yield %unit_next, %kv_next : i32, i32
        } else {
          scf.yield %unit_n, %kv_n : i32, i32
        }
        %taken_next = arith.addi %taken, %c1 : i32
        scf.yield %taken_next, %next#0, %next#1 : i32, i32, i32
      }
    }
  }
}
