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
// Warp specialization: a producer warpgroup streams Q (once per unit,
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
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c64 = arith.constant 64 : i32
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
      %neg_inf_rows = arith.constant dense<0xFF800000> : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
      %zero_rows = arith.constant dense<0.0> : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
      %one_rows = arith.constant dense<1.0> : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
      %ln2 = arith.constant dense<0.693147181> : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
      %zero_s = arith.constant dense<0.0> : tensor<128x128xf32, #jfa.wgmma_acc>
      %zero_o = arith.constant dense<0.0> : tensor<128x64xf32, #jfa.wgmma_acc>
      // Warpgroup 1 issues first (warpgroup 0 hands it the first turn):
      // warpgroup 0 then finishes each unit last, and its first thread,
      // which issues the TMA stores of O, waits only for the writes of the
      // warpgroup that is already done.
      %thread = jfa.task_thread_id
      %first_wg = arith.cmpi ult, %thread, %c128 : i32
      scf.if %first_wg {
        jfa.named_barrier_arrive id(9) threads(256)
      }

      // Units from the load task's fetches; the first past the last ends
      // the loop. Each is decoded one step early (@peek_and_decode, under
      // the previous unit's last P V, which with the epilogue hides the
      // decode's global loads), the first one here.
      %counts:12 = scf.while (%taken = %c0, %unit_n = %c0, %kv_n = %c0, %h_a = %c0, %start_a = %c0, %len_a = %c0, %q0_a = %c0, %live_a = %false, %start_k_a = %c0, %len_k_a = %c0, %row_floor_a = %c0, %key_floor_a = %c0)
          : (i32, i32, i32, i32, i32, i32, i32, i1, i32, i32, i32, i32) -> (i32, i32, i32, i32, i32, i32, i32, i1, i32, i32, i32, i32) {
        %u, %more = jfa.call @take_next_unit(%taken, %units, %next_buf, %next_full, %next_empty)
            : (i32, i32, !jfa.smem<2 x 1xi32>, !jfa.mbarriers<2>, !jfa.mbarriers<2>) -> (i32, i1)
        %at_first = arith.cmpi eq, %taken, %c0 : i32
        %cur:9 = scf.if %at_first -> (i32, i32, i32, i32, i1, i32, i32, i32, i32) {
          %d:9 = jfa.call @decode_unit(%u, %units, %heads, %q_tiles, %offsets, %offsets_k, %schedule, %general, %sparse)
              : (i32, i32, i32, i32, !jfa.ptr<i32>, !jfa.ptr<i32>, !jfa.ptr<i32>, i1, i1) -> (i32, i32, i32, i32, i1, i32, i32, i32, i32)
          scf.yield %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7, %d#8 : i32, i32, i32, i32, i1, i32, i32, i32, i32
        } else {
          scf.yield %h_a, %start_a, %len_a, %q0_a, %live_a, %start_k_a, %len_k_a, %row_floor_a, %key_floor_a : i32, i32, i32, i32, i1, i32, i32, i32, i32
        }
        scf.condition(%more) %taken, %unit_n, %kv_n, %cur#0, %cur#1, %cur#2, %cur#3, %cur#4, %cur#5, %cur#6, %cur#7, %cur#8 : i32, i32, i32, i32, i32, i32, i32, i1, i32, i32, i32, i32
      } do {
      ^bb0(%taken: i32, %unit_n: i32, %kv_n: i32, %h: i32, %start: i32, %len: i32, %q0: i32, %live: i1, %start_k: i32, %len_k: i32, %row_floor: i32, %key_floor: i32):
        // Block-sparse: the load task walks the bitmap and hands over the
        // steps and tiles (@handed_value, @handed_tile); the walk here is
        // the dense one.
        %lo_off, %hi_off, %mask_below, %mask_above, %block_base, %walk_steps, %walk_first, %end_tile = jfa.call @unit_walk(%h, %start, %len, %q0, %live, %start_k, %len_k, %key_floor, %is_causal, %general, %window_left, %window_right, %false, %block_bits, %block_words, %block_head_stride)
            : (i32, i32, i32, i32, i1, i32, i32, i32, i1, i1, i32, i32, i1, !jfa.ptr<i32>, i32, i32) -> (i32, i32, i32, i32, i32, i32, i32, i32)
        %taken_next = arith.addi %taken, %c1 : i32
        %next:11 = scf.if %live -> (i32, i32, i32, i32, i32, i32, i1, i32, i32, i32, i32) {

          // FA3's schedule: the two warpgroups take turns to issue their
          // MMAs (named barriers 8 and 9), so that one's softmax overlaps
          // the other's MMAs, and each overlaps its own P V with the next
          // tile's softmax. The last k tile holds the sequence's end and the
          // causal diagonal: only there are keys masked. The loop is written
          // once for both head dims: D = 128's second 64-column chunk of
          // each operand sits in `scf.if %wide` branches, which fold away at
          // compile time (head_dim is a jfa.param).
          // j = 0: S_0 and its softmax (no P V yet).
          %stage0, %phase0 = jfa.ring_position %kv_n stages(2) : i32
          %k_full0 = jfa.barrier %k_full[%stage0] : !jfa.mbarriers<2>, i32
          jfa.barrier_wait %k_full0, %phase0
          %first_at = arith.addi %stage0, %c2 : i32
          %first_step, %first_listed = jfa.call @handed_tile(%handed, %walk_buf, %first_at, %c0, %walk_first)
              : (i1, !jfa.smem<4 x 128xi32>, i32, i32, i32) -> (i32, i32)
          // The unit's Q, from stage unit_n mod 2 of Q's ring.
          %q_slot0, %q_slot1, %q_full0, %q_empty0, %q_phase, %q_stage0 = jfa.call @q_stage(%unit_n, %q_ring, %q_full, %q_empty)
              : (i32, !jfa.smem<4 x 128x64xbf16, swizzle 128>, !jfa.mbarriers<2>, !jfa.mbarriers<2>) -> (!jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, !jfa.mbarrier, !jfa.mbarrier, i32, i32)
          jfa.barrier_wait %q_full0, %q_phase
          %steps = jfa.call @handed_value(%handed, %walk_buf, %q_stage0, %walk_steps)
              : (i1, !jfa.smem<4 x 128xi32>, i32, i32) -> i32
          %last_kv = arith.subi %steps, %c1 : i32
          // The previous unit's TMA stores of O have read its Q stage (their
          // issuing thread waits here, before warpgroup 0 hands the stage
          // back below).
          jfa.tma_store_wait pending(0)
          scf.if %first_wg {
            jfa.named_barrier_sync id(8) threads(256)
          } else {
            jfa.named_barrier_sync id(9) threads(256)
          }
          // Warpgroup 0's half of the previous unit's Q-stage release: that
          // unit's stores of O have read the stage (their issuing thread
          // waited before this turn, and warpgroup 0 passed barrier 8 with
          // it).
          %had_unit = arith.cmpi ugt, %unit_n, %c0 : i32
          scf.if %had_unit {
            scf.if %first_wg {
              %prev_unit = arith.subi %unit_n, %c1 : i32
              %prev_stage, %prev_phase = jfa.ring_position %prev_unit stages(2) : i32
              %q_empty_prev = jfa.barrier %q_empty[%prev_stage] : !jfa.mbarriers<2>, i32
              jfa.barrier_arrive %q_empty_prev
            }
          }
          %first_k0 = arith.muli %stage0, %c2 : i32
          %first_klo = jfa.slot %k_ring[%first_k0] : !jfa.smem<4 x 128x64xbf16, swizzle 128>, i32
          %first_slo = jfa.async_dot %q_slot0, %first_klo, %zero_s : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, tensor<128x128xf32, #jfa.wgmma_acc>
          // D = 128: the second 64-column chunk of Q and K (the branches on
          // %wide fold away when the kernel is compiled: no MMA in flight
          // crosses a branch, which would make ptxas serialize every wgmma).
          %first_s = scf.if %wide -> tensor<128x128xf32, #jfa.wgmma_acc> {
            %first_k1 = arith.addi %first_k0, %c1 : i32
            %first_khi = jfa.slot %k_ring[%first_k1] : !jfa.smem<4 x 128x64xbf16, swizzle 128>, i32
            %s_hi = jfa.async_dot %q_slot1, %first_khi, %first_slo : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, tensor<128x128xf32, #jfa.wgmma_acc>
            scf.yield %s_hi : tensor<128x128xf32, #jfa.wgmma_acc>
          } else {
            scf.yield %first_slo : tensor<128x128xf32, #jfa.wgmma_acc>
          }
          scf.if %first_wg {
            jfa.named_barrier_arrive id(9) threads(256)
          } else {
            jfa.named_barrier_arrive id(8) threads(256)
          }
          %s0_raw = jfa.async_dot_wait pending(0) (%first_s) : tensor<128x128xf32, #jfa.wgmma_acc>
          %k_empty0 = jfa.barrier %k_empty[%stage0] : !jfa.mbarriers<2>, i32
          jfa.barrier_arrive %k_empty0
          %first_k = arith.muli %first_step, %c128 : i32
          %first_cut = jfa.call @tile_masked(%first_k, %mask_below, %mask_above) : (i32, i32, i32) -> i1
          %first_keys_end, %first_unlisted = jfa.call @step_keys_end(%sparse, %first_listed, %first_k, %len_k)
              : (i1, i32, i32, i32) -> (i32, i1)
          %first_masked = arith.ori %first_cut, %first_unlisted : i1
          %p0, %m0, %l0, %corr0 = jfa.call @attention_step(%s0_raw, %neg_inf_rows, %zero_rows, %scale_log2, %activation_eff, %first_masked, %q0, %first_k, %first_keys_end, %lo_off, %hi_off, %key_floor, %general, %exp_share)
              : (tensor<128x128xf32, #jfa.wgmma_acc>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, f32, i32, i1, i32, i32, i32, i32, i32, i32, i1, i32)
              -> (tensor<128x128xf32, #jfa.wgmma_acc>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>)
          %p0_16 = arith.truncf %p0 : tensor<128x128xf32, #jfa.wgmma_acc> to tensor<128x128xbf16, #jfa.wgmma_acc>

          // j >= 1: issue S_j and P_(j-1) V_(j-1) in one turn, then the softmax of
          // S_j while P V runs.
          %acc:6 = scf.for %j = %c1 to %steps step %c1
              iter_args(%m = %m0, %l = %l0, %o_lo = %zero_o, %o_hi = %zero_o, %p_prev = %p0_16, %prev_tile = %first_step)
              -> (tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<128x64xf32, #jfa.wgmma_acc>, tensor<128x64xf32, #jfa.wgmma_acc>, tensor<128x128xbf16, #jfa.wgmma_acc>, i32) : i32 {
            %n = arith.addi %kv_n, %j : i32
            %n_prev = arith.subi %n, %c1 : i32
            %stage, %phase = jfa.ring_position %n stages(2) : i32
            %pstage, %pphase = jfa.ring_position %n_prev stages(2) : i32
            %k_full_s = jfa.barrier %k_full[%stage] : !jfa.mbarriers<2>, i32
            %v_full_p = jfa.barrier %v_full[%pstage] : !jfa.mbarriers<2>, i32
            jfa.barrier_wait %k_full_s, %phase
            %next_walk = arith.addi %prev_tile, %c1 : i32
            %k_at = arith.addi %stage, %c2 : i32
            %k_tile, %k_listed = jfa.call @handed_tile(%handed, %walk_buf, %k_at, %c0, %next_walk)
                : (i1, !jfa.smem<4 x 128xi32>, i32, i32, i32) -> (i32, i32)
            jfa.barrier_wait %v_full_p, %pphase
            scf.if %first_wg {
              jfa.named_barrier_sync id(8) threads(256)
            } else {
              jfa.named_barrier_sync id(9) threads(256)
            }
            %cur_k0 = arith.muli %stage, %c2 : i32
            %cur_klo = jfa.slot %k_ring[%cur_k0] : !jfa.smem<4 x 128x64xbf16, swizzle 128>, i32
            %cur_slo = jfa.async_dot %q_slot0, %cur_klo, %zero_s : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, tensor<128x128xf32, #jfa.wgmma_acc>
            %cur_s = scf.if %wide -> tensor<128x128xf32, #jfa.wgmma_acc> {
              %cur_k1 = arith.addi %cur_k0, %c1 : i32
              %cur_khi = jfa.slot %k_ring[%cur_k1] : !jfa.smem<4 x 128x64xbf16, swizzle 128>, i32
              %s_hi = jfa.async_dot %q_slot1, %cur_khi, %cur_slo : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, tensor<128x128xf32, #jfa.wgmma_acc>
              scf.yield %s_hi : tensor<128x128xf32, #jfa.wgmma_acc>
            } else {
              scf.yield %cur_slo : tensor<128x128xf32, #jfa.wgmma_acc>
            }
            %prev_v0 = arith.muli %pstage, %c2 : i32
            %prev_vlo = jfa.slot %v_ring[%prev_v0] : !jfa.smem<4 x 128x64xbf16, swizzle 128>, i32
            %prev_vlo_t = jfa.transpose %prev_vlo : !jfa.slot<128x64xbf16, swizzle 128>
            %prev_olo = jfa.async_dot %p_prev, %prev_vlo_t, %o_lo : tensor<128x128xbf16, #jfa.wgmma_acc>, !jfa.slot<64x128xbf16, swizzle 128, transposed>, tensor<128x64xf32, #jfa.wgmma_acc>
            %prev_ohi = scf.if %wide -> tensor<128x64xf32, #jfa.wgmma_acc> {
              %prev_v1 = arith.addi %prev_v0, %c1 : i32
              %prev_vhi = jfa.slot %v_ring[%prev_v1] : !jfa.smem<4 x 128x64xbf16, swizzle 128>, i32
              %prev_vhi_t = jfa.transpose %prev_vhi : !jfa.slot<128x64xbf16, swizzle 128>
              %o_hi_n = jfa.async_dot %p_prev, %prev_vhi_t, %o_hi : tensor<128x128xbf16, #jfa.wgmma_acc>, !jfa.slot<64x128xbf16, swizzle 128, transposed>, tensor<128x64xf32, #jfa.wgmma_acc>
              scf.yield %o_hi_n : tensor<128x64xf32, #jfa.wgmma_acc>
            } else {
              scf.yield %o_hi : tensor<128x64xf32, #jfa.wgmma_acc>
            }
            scf.if %first_wg {
              jfa.named_barrier_arrive id(9) threads(256)
            } else {
              jfa.named_barrier_arrive id(8) threads(256)
            }
            // S_j is done once only the D/64 P V groups are pending.
            %s_raw = scf.if %wide -> tensor<128x128xf32, #jfa.wgmma_acc> {
              %w = jfa.async_dot_wait pending(2) (%cur_s) : tensor<128x128xf32, #jfa.wgmma_acc>
              scf.yield %w : tensor<128x128xf32, #jfa.wgmma_acc>
            } else {
              %w = jfa.async_dot_wait pending(1) (%cur_s) : tensor<128x128xf32, #jfa.wgmma_acc>
              scf.yield %w : tensor<128x128xf32, #jfa.wgmma_acc>
            }
            %k_empty_s = jfa.barrier %k_empty[%stage] : !jfa.mbarriers<2>, i32
            jfa.barrier_arrive %k_empty_s
            %k0 = arith.muli %k_tile, %c128 : i32
            %tile_cut = jfa.call @tile_masked(%k0, %mask_below, %mask_above) : (i32, i32, i32) -> i1
            %keys_end, %unlisted = jfa.call @step_keys_end(%sparse, %k_listed, %k0, %len_k)
                : (i1, i32, i32, i32) -> (i32, i1)
            %tile_masked = arith.ori %tile_cut, %unlisted : i1
            %p, %m_new, %l_new, %corr = jfa.call @attention_step(%s_raw, %m, %l, %scale_log2, %activation_eff, %tile_masked, %q0, %k0, %keys_end, %lo_off, %hi_off, %key_floor, %general, %exp_share)
                : (tensor<128x128xf32, #jfa.wgmma_acc>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, f32, i32, i1, i32, i32, i32, i32, i32, i32, i1, i32)
                -> (tensor<128x128xf32, #jfa.wgmma_acc>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>)
            %p16 = arith.truncf %p : tensor<128x128xf32, #jfa.wgmma_acc> to tensor<128x128xbf16, #jfa.wgmma_acc>

            // P_(j-1) V_(j-1) has landed: free V's slot and rescale O.
            %o_d:2 = scf.if %wide -> (tensor<128x64xf32, #jfa.wgmma_acc>, tensor<128x64xf32, #jfa.wgmma_acc>) {
              %w:2 = jfa.async_dot_wait pending(0) (%prev_olo, %prev_ohi) : tensor<128x64xf32, #jfa.wgmma_acc>, tensor<128x64xf32, #jfa.wgmma_acc>
              scf.yield %w#0, %w#1 : tensor<128x64xf32, #jfa.wgmma_acc>, tensor<128x64xf32, #jfa.wgmma_acc>
            } else {
              %w = jfa.async_dot_wait pending(0) (%prev_olo) : tensor<128x64xf32, #jfa.wgmma_acc>
              scf.yield %w, %o_hi : tensor<128x64xf32, #jfa.wgmma_acc>, tensor<128x64xf32, #jfa.wgmma_acc>
            }
            %v_empty_p = jfa.barrier %v_empty[%pstage] : !jfa.mbarriers<2>, i32
            jfa.barrier_arrive %v_empty_p
            %corr_o = jfa.broadcast_rows %corr : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>> -> tensor<128x64xf32, #jfa.wgmma_acc>
            %o_lo_c = arith.mulf %o_d#0, %corr_o : tensor<128x64xf32, #jfa.wgmma_acc>
            %o_hi_c = scf.if %wide -> tensor<128x64xf32, #jfa.wgmma_acc> {
              %c = arith.mulf %o_d#1, %corr_o : tensor<128x64xf32, #jfa.wgmma_acc>
              scf.yield %c : tensor<128x64xf32, #jfa.wgmma_acc>
            } else {
              scf.yield %o_hi : tensor<128x64xf32, #jfa.wgmma_acc>
            }
            scf.yield %m_new, %l_new, %o_lo_c, %o_hi_c, %p16, %k_tile : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<128x64xf32, #jfa.wgmma_acc>, tensor<128x64xf32, #jfa.wgmma_acc>, tensor<128x128xbf16, #jfa.wgmma_acc>, i32
          }

          // The last tile's P V.
          %kv_end = arith.addi %kv_n, %steps : i32
          %n_last = arith.subi %kv_end, %c1 : i32
          %lstage, %lphase = jfa.ring_position %n_last stages(2) : i32
          %v_full_l = jfa.barrier %v_full[%lstage] : !jfa.mbarriers<2>, i32
          jfa.barrier_wait %v_full_l, %lphase
          scf.if %first_wg {
            jfa.named_barrier_sync id(8) threads(256)
          } else {
            jfa.named_barrier_sync id(9) threads(256)
          }
          %last_v0 = arith.muli %lstage, %c2 : i32
          %last_vlo = jfa.slot %v_ring[%last_v0] : !jfa.smem<4 x 128x64xbf16, swizzle 128>, i32
          %last_vlo_t = jfa.transpose %last_vlo : !jfa.slot<128x64xbf16, swizzle 128>
          %last_olo = jfa.async_dot %acc#4, %last_vlo_t, %acc#2 : tensor<128x128xbf16, #jfa.wgmma_acc>, !jfa.slot<64x128xbf16, swizzle 128, transposed>, tensor<128x64xf32, #jfa.wgmma_acc>
          %last_ohi = scf.if %wide -> tensor<128x64xf32, #jfa.wgmma_acc> {
            %last_v1 = arith.addi %last_v0, %c1 : i32
            %last_vhi = jfa.slot %v_ring[%last_v1] : !jfa.smem<4 x 128x64xbf16, swizzle 128>, i32
            %last_vhi_t = jfa.transpose %last_vhi : !jfa.slot<128x64xbf16, swizzle 128>
            %o_hi_n = jfa.async_dot %acc#4, %last_vhi_t, %acc#3 : tensor<128x128xbf16, #jfa.wgmma_acc>, !jfa.slot<64x128xbf16, swizzle 128, transposed>, tensor<128x64xf32, #jfa.wgmma_acc>
            scf.yield %o_hi_n : tensor<128x64xf32, #jfa.wgmma_acc>
          } else {
            scf.yield %acc#3 : tensor<128x64xf32, #jfa.wgmma_acc>
          }
          scf.if %first_wg {
            jfa.named_barrier_arrive id(9) threads(256)
          } else {
            jfa.named_barrier_arrive id(8) threads(256)
          }
          // The next unit's decode, while the last P V and the epilogue run:
          // the schedule's load stalls this warpgroup while the tensor cores
          // work, the offsets' loads land during the epilogue.
          %nx:9 = jfa.call @peek_and_decode(%taken_next, %units, %heads, %q_tiles, %offsets, %offsets_k, %schedule, %general, %sparse, %next_buf, %next_full)
              : (i32, i32, i32, i32, !jfa.ptr<i32>, !jfa.ptr<i32>, !jfa.ptr<i32>, i1, i1, !jfa.smem<2 x 1xi32>, !jfa.mbarriers<2>) -> (i32, i32, i32, i32, i1, i32, i32, i32, i32)
          %o_f:2 = scf.if %wide -> (tensor<128x64xf32, #jfa.wgmma_acc>, tensor<128x64xf32, #jfa.wgmma_acc>) {
            %w:2 = jfa.async_dot_wait pending(0) (%last_olo, %last_ohi) : tensor<128x64xf32, #jfa.wgmma_acc>, tensor<128x64xf32, #jfa.wgmma_acc>
            scf.yield %w#0, %w#1 : tensor<128x64xf32, #jfa.wgmma_acc>, tensor<128x64xf32, #jfa.wgmma_acc>
          } else {
            %w = jfa.async_dot_wait pending(0) (%last_olo) : tensor<128x64xf32, #jfa.wgmma_acc>
            scf.yield %w, %last_ohi : tensor<128x64xf32, #jfa.wgmma_acc>, tensor<128x64xf32, #jfa.wgmma_acc>
          }
          %v_empty_l = jfa.barrier %v_empty[%lstage] : !jfa.mbarriers<2>, i32
          jfa.barrier_arrive %v_empty_l

          // o = O / l, rows of this sequence only; lse = ln(l) + m ln 2. A
          // row that saw no key (l = 0) gets o = 0 and lse = -inf.
          %l_inv = arith.divf %one_rows, %acc#1 : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
          %no_keys = arith.cmpf oeq, %acc#1, %zero_rows : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
          %softmax_norm = arith.select %no_keys, %zero_rows, %l_inv : tensor<128xi1, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
          // GDPA's output is not normalized.
          %inv_l = arith.select %is_softmax, %softmax_norm, %one_rows : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
          %inv_l_t = jfa.broadcast_rows %inv_l : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>> -> tensor<128x64xf32, #jfa.wgmma_acc>
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
          %out_lo = arith.mulf %o_f#0, %inv_l_t : tensor<128x64xf32, #jfa.wgmma_acc>
          %out_lo16 = arith.truncf %out_lo : tensor<128x64xf32, #jfa.wgmma_acc> to tensor<128x64xbf16, #jfa.wgmma_acc>
          %out_hi16 = scf.if %wide -> tensor<128x64xbf16, #jfa.wgmma_acc> {
            %out_hi = arith.mulf %o_f#1, %inv_l_t : tensor<128x64xf32, #jfa.wgmma_acc>
            %t = arith.truncf %out_hi : tensor<128x64xf32, #jfa.wgmma_acc> to tensor<128x64xbf16, #jfa.wgmma_acc>
            scf.yield %t : tensor<128x64xbf16, #jfa.wgmma_acc>
          } else {
            scf.yield %out_lo16 : tensor<128x64xbf16, #jfa.wgmma_acc>
          }
          // A tile whose 128 rows all lie in the sequence goes out by TMA;
          // one with rows past the end (or below a block-sparse row floor)
          // by row-clipped stores.
          %whole_tile = jfa.call @o_tile_whole(%rows_left, %first_row) : (i32, i32) -> i1
          scf.if %whole_tile {
            // O into the unit's Q stage: each warpgroup's last S has read
            // its own 64 rows of it, the only rows it writes.
            jfa.call @stage_o(%out_lo16, %out_hi16, %q_slot0, %q_slot1, %wide)
                : (tensor<128x64xbf16, #jfa.wgmma_acc>, tensor<128x64xbf16, #jfa.wgmma_acc>, !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, i1) -> ()
            // Warpgroup 1 (ahead) arrives and goes on; warpgroup 0 waits
            // for all 256 writes, and its first thread stores.
            scf.if %first_wg {
              jfa.named_barrier_sync id(10) threads(256)
            } else {
              jfa.named_barrier_arrive id(10) threads(256)
            }
            jfa.call @tma_store_o(%q_slot0, %q_slot1, %o_out, %row0, %head_base, %wide)
                : (!jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, !jfa.tma<128x64xbf16, swizzle 128>, i32, i32, i1) -> ()
          } else {
            jfa.call @store_o_rows(%out_lo16, %out_hi16, %o, %o_base, %o_stride, %rows_left, %first_row, %wide)
                : (tensor<128x64xbf16, #jfa.wgmma_acc>, tensor<128x64xbf16, #jfa.wgmma_acc>, !jfa.ptr<bf16>, i32, i32, i32, i32, i1) -> ()
          }
          // Warpgroup 1's half of the unit's Q-stage release: its last S
          // has read the stage and its rows of O are stored (by TMA: in the
          // stage before barrier 10). Warpgroup 0's half follows at the next
          // unit's first turn.
          scf.if %first_wg {
          } else {
            jfa.barrier_arrive %q_empty0
          }
          // lse: softmax only (GDPA has none; lse is not written).
          scf.if %is_softmax {
            %log2_l = math.log2 %acc#1 fastmath<afn> : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
            %lse2 = arith.addf %acc#0, %log2_l : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
            %lse_v = arith.mulf %lse2, %ln2 : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
            %lse_head = arith.muli %h, %tokens : i32
            %lse_off = arith.addi %lse_head, %row0 : i32
            jfa.store_rows %lse_v, %lse[%lse_off] rows(%rows_left) from(%first_row)
                : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, !jfa.ptr<f32>
          }

          %unit_next = arith.addi %unit_n, %c1 : i32
          %kv_next = arith.addi %kv_n, %steps : i32
          scf.yield %unit_next, %kv_next, %nx#0, %nx#1, %nx#2, %nx#3, %nx#4, %nx#5, %nx#6, %nx#7, %nx#8 : i32, i32, i32, i32, i32, i32, i1, i32, i32, i32, i32
        } else {
          %nx:9 = jfa.call @peek_and_decode(%taken_next, %units, %heads, %q_tiles, %offsets, %offsets_k, %schedule, %general, %sparse, %next_buf, %next_full)
              : (i32, i32, i32, i32, !jfa.ptr<i32>, !jfa.ptr<i32>, !jfa.ptr<i32>, i1, i1, !jfa.smem<2 x 1xi32>, !jfa.mbarriers<2>) -> (i32, i32, i32, i32, i1, i32, i32, i32, i32)
          scf.yield %unit_n, %kv_n, %nx#0, %nx#1, %nx#2, %nx#3, %nx#4, %nx#5, %nx#6, %nx#7, %nx#8 : i32, i32, i32, i32, i32, i32, i1, i32, i32, i32, i32
        }
        scf.yield %taken_next, %next#0, %next#1, %next#2, %next#3, %next#4, %next#5, %next#6, %next#7, %next#8, %next#9, %next#10 : i32, i32, i32, i32, i32, i32, i32, i1, i32, i32, i32, i32
      }
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
