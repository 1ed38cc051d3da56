// A library of device helpers (no kernel), imported from
// kernels/jagged_attention/ with `jfa.import "../lib/forward_consumer_sm90.mlir"`:
// the sm_90a forwards' consumer warpgroups, written once for the two
// kernels that run them: attention_fwd_sm90 (two warpgroups over 128-row q
// tiles, every head dim and variant) and attention_fwd_sm90_q192 (three
// over 192-row ones, D = 64).
jfa.import "band_schedule.mlir"
jfa.import "work_queue.mlir"
jfa.import "forward_producer.mlir"
jfa.import "online_softmax.mlir"
jfa.import "block_mask.mlir"

// The consumer warpgroups take turns issuing their MMAs (FA3's ping-pong),
// 1, 2, ..., 0: warpgroup g waits at named barrier 8 + g and hands the turn
// to g + 1 (mod the count) at 8 + (g + 1) (%is0: g is 0). With two
// warpgroups (%three false, a compile-time constant) the branches fold to
// the pair 8 and 9.
jfa.func @take_turn(%is0: i1, %wg: i32, %three: i1) {
  %c2 = arith.constant 2 : i32
  %is2 = arith.cmpi eq, %wg, %c2 : i32
  %third = arith.andi %three, %is2 : i1
  scf.if %is0 {
    jfa.named_barrier_sync id(8) threads(256)
  } else {
    scf.if %third {
      jfa.named_barrier_sync id(10) threads(256)
    } else {
      jfa.named_barrier_sync id(9) threads(256)
    }
  }
  jfa.return
}

jfa.func @pass_turn(%is0: i1, %wg: i32, %three: i1) {
  %c1 = arith.constant 1 : i32
  %is1 = arith.cmpi eq, %wg, %c1 : i32
  %to_third = arith.andi %three, %is1 : i1
  scf.if %is0 {
    jfa.named_barrier_arrive id(9) threads(256)
  } else {
    scf.if %to_third {
      jfa.named_barrier_arrive id(10) threads(256)
    } else {
      jfa.named_barrier_arrive id(8) threads(256)
    }
  }
  jfa.return
}

// Before O's TMA stores from the Q stage: warpgroup 0 (the last to finish
// a unit) waits for every consumer's writes of O, the others arrive and go
// on (named barrier 10 with two warpgroups, 11 with three).
jfa.func @meet_for_store(%first_wg: i1, %three: i1) {
  scf.if %three {
    scf.if %first_wg {
      jfa.named_barrier_sync id(11) threads(384)
    } else {
      jfa.named_barrier_arrive id(11) threads(384)
    }
  } else {
    scf.if %first_wg {
      jfa.named_barrier_sync id(10) threads(256)
    } else {
      jfa.named_barrier_arrive id(10) threads(256)
    }
  }
  jfa.return
}

// The consumer warpgroups of the sm_90a forward: each takes 64 q rows of a
// unit's q tile (%q_rows: 192 rows and three warpgroups under %three, else
// 128 and two; compile-time constants). Units from the load task's fetches
// (@take_next_unit); per unit, FA3's schedule over its key tiles: S = Q K^T
// by wgmma from shared memory, the online softmax (@attention_step), O += P V
// with P from registers; the epilogue writes o and lse. Written for the
// three-warpgroup tile and naming 192 its rows parameter: the two-warpgroup
// kernel binds it to 128 (the K and V tiles, 128 rows either way, are not
// rewritten). The argument names are the kernels' (attention_fwd_sm90.mlir
// says what each is).
jfa.func @forward_consumer(%q_ring: !jfa.smem<4 x 192x64xbf16, swizzle 128>,
                            %k_ring: !jfa.smem<4 x 128x64xbf16, swizzle 128>,
                            %v_ring: !jfa.smem<4 x 128x64xbf16, swizzle 128>,
                            %q_full: !jfa.mbarriers<2>,
                            %q_empty: !jfa.mbarriers<2>,
                            %k_full: !jfa.mbarriers<2>,
                            %k_empty: !jfa.mbarriers<2>,
                            %v_full: !jfa.mbarriers<2>,
                            %v_empty: !jfa.mbarriers<2>,
                            %next_buf: !jfa.smem<2 x 1xi32>,
                            %next_full: !jfa.mbarriers<2>,
                            %next_empty: !jfa.mbarriers<2>,
                            %walk_buf: !jfa.smem<4 x 128xi32>,
                            %o: !jfa.ptr<bf16>,
                            %o_out: !jfa.tma<192x64xbf16, swizzle 128>,
                            %lse: !jfa.ptr<f32>,
                            %offsets: !jfa.ptr<i32>,
                            %offsets_k: !jfa.ptr<i32>,
                            %schedule: !jfa.ptr<i32>,
                            %units: i32,
                            %heads: i32,
                            %tokens: i32,
                            %o_stride: i32,
                            %q_tiles: i32,
                            %scale_log2: f32,
                            %window_left: i32,
                            %window_right: i32,
                            %block_bits: !jfa.ptr<i32>,
                            %block_words: i32,
                            %block_head_stride: i32,
                            %head_dim: i32,
                            %is_causal: i1,
                            %general: i1,
                            %sparse: i1,
                            %handed: i1,
                            %activation_eff: i32,
                            %is_softmax: i1,
                            %exp_share: i32,
                            %q_rows: i32,
                            %three: i1)
    attributes {rows_parameter = 192} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c128 = arith.constant 128 : i32
  %false = arith.constant false
  %wide = arith.cmpi eq, %head_dim, %c128 : i32
  %neg_inf_rows = arith.constant dense<0xFF800000> : tensor<192xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %zero_rows = arith.constant dense<0.0> : tensor<192xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %one_rows = arith.constant dense<1.0> : tensor<192xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %ln2 = arith.constant dense<0.693147181> : tensor<192xf32, #jfa.rows_of<#jfa.wgmma_acc>>
  %zero_s = arith.constant dense<0.0> : tensor<192x128xf32, #jfa.wgmma_acc>
  %zero_o = arith.constant dense<0.0> : tensor<192x64xf32, #jfa.wgmma_acc>
  // The turns go 1, (2,) 0 (warpgroup 0 hands warpgroup 1 the first):
  // warpgroup 0 then finishes each unit last, and its first thread,
  // which issues the TMA stores of O, waits only for the writes of the
  // warpgroups that are already done.
  %thread = jfa.task_thread_id
  %first_wg = arith.cmpi ult, %thread, %c128 : i32
  %wg = arith.divui %thread, %c128 : i32
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
      %d:9 = jfa.call @decode_unit(%u, %units, %heads, %q_tiles, %q_rows, %offsets, %offsets_k, %schedule, %general, %sparse)
          : (i32, i32, i32, i32, i32, !jfa.ptr<i32>, !jfa.ptr<i32>, !jfa.ptr<i32>, i1, i1) -> (i32, i32, i32, i32, i1, i32, i32, i32, i32)
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
    %lo_off, %hi_off, %mask_below, %mask_above, %block_base, %walk_steps, %walk_first, %end_tile = jfa.call @unit_walk(%h, %start, %len, %q0, %q_rows, %live, %start_k, %len_k, %key_floor, %is_causal, %general, %window_left, %window_right, %false, %block_bits, %block_words, %block_head_stride)
        : (i32, i32, i32, i32, i32, i1, i32, i32, i32, i1, i1, i32, i32, i1, !jfa.ptr<i32>, i32, i32) -> (i32, i32, i32, i32, i32, i32, i32, i32)
    %taken_next = arith.addi %taken, %c1 : i32
    %next:11 = scf.if %live -> (i32, i32, i32, i32, i32, i32, i1, i32, i32, i32, i32) {

      // FA3's schedule: the warpgroups take turns to issue their MMAs
      // (@take_turn, @pass_turn), so that one's softmax overlaps the
      // others' MMAs, and each overlaps its own P V with the next tile's
      // softmax. The last k tile holds the sequence's end and the
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
          : (i32, !jfa.smem<4 x 192x64xbf16, swizzle 128>, !jfa.mbarriers<2>, !jfa.mbarriers<2>) -> (!jfa.slot<192x64xbf16, swizzle 128>, !jfa.slot<192x64xbf16, swizzle 128>, !jfa.mbarrier, !jfa.mbarrier, i32, i32)
      jfa.barrier_wait %q_full0, %q_phase
      %steps = jfa.call @handed_value(%handed, %walk_buf, %q_stage0, %walk_steps)
          : (i1, !jfa.smem<4 x 128xi32>, i32, i32) -> i32
      %last_kv = arith.subi %steps, %c1 : i32
      // The previous unit's TMA stores of O have read its Q stage (their
      // issuing thread waits here, before warpgroup 0 hands the stage
      // back below).
      jfa.tma_store_wait pending(0)
      jfa.call @take_turn(%first_wg, %wg, %three) : (i1, i32, i1) -> ()
      // Warpgroup 0's part of the previous unit's Q-stage release: that
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
      %first_slo = jfa.async_dot %q_slot0, %first_klo, %zero_s : !jfa.slot<192x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, tensor<192x128xf32, #jfa.wgmma_acc>
      // D = 128: the second 64-column chunk of Q and K (the branches on
      // %wide fold away when the kernel is compiled: no MMA in flight
      // crosses a branch, which would make ptxas serialize every wgmma).
      %first_s = scf.if %wide -> tensor<192x128xf32, #jfa.wgmma_acc> {
        %first_k1 = arith.addi %first_k0, %c1 : i32
        %first_khi = jfa.slot %k_ring[%first_k1] : !jfa.smem<4 x 128x64xbf16, swizzle 128>, i32
        %s_hi = jfa.async_dot %q_slot1, %first_khi, %first_slo : !jfa.slot<192x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, tensor<192x128xf32, #jfa.wgmma_acc>
        scf.yield %s_hi : tensor<192x128xf32, #jfa.wgmma_acc>
      } else {
        scf.yield %first_slo : tensor<192x128xf32, #jfa.wgmma_acc>
      }
      jfa.call @pass_turn(%first_wg, %wg, %three) : (i1, i32, i1) -> ()
      %s0_raw = jfa.async_dot_wait pending(0) (%first_s) : tensor<192x128xf32, #jfa.wgmma_acc>
      %k_empty0 = jfa.barrier %k_empty[%stage0] : !jfa.mbarriers<2>, i32
      jfa.barrier_arrive %k_empty0
      %first_k = arith.muli %first_step, %c128 : i32
      %first_cut = jfa.call @tile_masked(%first_k, %mask_below, %mask_above) : (i32, i32, i32) -> i1
      %first_keys_end, %first_unlisted = jfa.call @step_keys_end(%sparse, %first_listed, %first_k, %len_k)
          : (i1, i32, i32, i32) -> (i32, i1)
      %first_masked = arith.ori %first_cut, %first_unlisted : i1
      %p0, %m0, %l0, %corr0 = jfa.call @attention_step(%s0_raw, %neg_inf_rows, %zero_rows, %scale_log2, %activation_eff, %first_masked, %q0, %first_k, %first_keys_end, %lo_off, %hi_off, %key_floor, %general, %exp_share)
          : (tensor<192x128xf32, #jfa.wgmma_acc>, tensor<192xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<192xf32, #jfa.rows_of<#jfa.wgmma_acc>>, f32, i32, i1, i32, i32, i32, i32, i32, i32, i1, i32)
          -> (tensor<192x128xf32, #jfa.wgmma_acc>, tensor<192xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<192xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<192xf32, #jfa.rows_of<#jfa.wgmma_acc>>)
      %p0_16 = arith.truncf %p0 : tensor<192x128xf32, #jfa.wgmma_acc> to tensor<192x128xbf16, #jfa.wgmma_acc>

      // j >= 1: issue S_j and P_(j-1) V_(j-1) in one turn, then the softmax of
      // S_j while P V runs.
      %acc:6 = scf.for %j = %c1 to %steps step %c1
          iter_args(%m = %m0, %l = %l0, %o_lo = %zero_o, %o_hi = %zero_o, %p_prev = %p0_16, %prev_tile = %first_step)
          -> (tensor<192xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<192xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<192x64xf32, #jfa.wgmma_acc>, tensor<192x64xf32, #jfa.wgmma_acc>, tensor<192x128xbf16, #jfa.wgmma_acc>, i32) : i32 {
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
        jfa.call @take_turn(%first_wg, %wg, %three) : (i1, i32, i1) -> ()
        %cur_k0 = arith.muli %stage, %c2 : i32
        %cur_klo = jfa.slot %k_ring[%cur_k0] : !jfa.smem<4 x 128x64xbf16, swizzle 128>, i32
        %cur_slo = jfa.async_dot %q_slot0, %cur_klo, %zero_s : !jfa.slot<192x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, tensor<192x128xf32, #jfa.wgmma_acc>
        %cur_s = scf.if %wide -> tensor<192x128xf32, #jfa.wgmma_acc> {
          %cur_k1 = arith.addi %cur_k0, %c1 : i32
          %cur_khi = jfa.slot %k_ring[%cur_k1] : !jfa.smem<4 x 128x64xbf16, swizzle 128>, i32
          %s_hi = jfa.async_dot %q_slot1, %cur_khi, %cur_slo : !jfa.slot<192x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, tensor<192x128xf32, #jfa.wgmma_acc>
          scf.yield %s_hi : tensor<192x128xf32, #jfa.wgmma_acc>
        } else {
          scf.yield %cur_slo : tensor<192x128xf32, #jfa.wgmma_acc>
        }
        %prev_v0 = arith.muli %pstage, %c2 : i32
        %prev_vlo = jfa.slot %v_ring[%prev_v0] : !jfa.smem<4 x 128x64xbf16, swizzle 128>, i32
        %prev_vlo_t = jfa.transpose %prev_vlo : !jfa.slot<128x64xbf16, swizzle 128>
        %prev_olo = jfa.async_dot %p_prev, %prev_vlo_t, %o_lo : tensor<192x128xbf16, #jfa.wgmma_acc>, !jfa.slot<64x128xbf16, swizzle 128, transposed>, tensor<192x64xf32, #jfa.wgmma_acc>
        %prev_ohi = scf.if %wide -> tensor<192x64xf32, #jfa.wgmma_acc> {
          %prev_v1 = arith.addi %prev_v0, %c1 : i32
          %prev_vhi = jfa.slot %v_ring[%prev_v1] : !jfa.smem<4 x 128x64xbf16, swizzle 128>, i32
          %prev_vhi_t = jfa.transpose %prev_vhi : !jfa.slot<128x64xbf16, swizzle 128>
          %o_hi_n = jfa.async_dot %p_prev, %prev_vhi_t, %o_hi : tensor<192x128xbf16, #jfa.wgmma_acc>, !jfa.slot<64x128xbf16, swizzle 128, transposed>, tensor<192x64xf32, #jfa.wgmma_acc>
          scf.yield %o_hi_n : tensor<192x64xf32, #jfa.wgmma_acc>
        } else {
          scf.yield %o_hi : tensor<192x64xf32, #jfa.wgmma_acc>
        }
        jfa.call @pass_turn(%first_wg, %wg, %three) : (i1, i32, i1) -> ()
        // S_j is done once only the D/64 P V groups are pending.
        %s_raw = scf.if %wide -> tensor<192x128xf32, #jfa.wgmma_acc> {
          %w = jfa.async_dot_wait pending(2) (%cur_s) : tensor<192x128xf32, #jfa.wgmma_acc>
          scf.yield %w : tensor<192x128xf32, #jfa.wgmma_acc>
        } else {
          %w = jfa.async_dot_wait pending(1) (%cur_s) : tensor<192x128xf32, #jfa.wgmma_acc>
          scf.yield %w : tensor<192x128xf32, #jfa.wgmma_acc>
        }
        %k_empty_s = jfa.barrier %k_empty[%stage] : !jfa.mbarriers<2>, i32
        jfa.barrier_arrive %k_empty_s
        %k0 = arith.muli %k_tile, %c128 : i32
        %tile_cut = jfa.call @tile_masked(%k0, %mask_below, %mask_above) : (i32, i32, i32) -> i1
        %keys_end, %unlisted = jfa.call @step_keys_end(%sparse, %k_listed, %k0, %len_k)
            : (i1, i32, i32, i32) -> (i32, i1)
        %tile_masked = arith.ori %tile_cut, %unlisted : i1
        %p, %m_new, %l_new, %corr = jfa.call @attention_step(%s_raw, %m, %l, %scale_log2, %activation_eff, %tile_masked, %q0, %k0, %keys_end, %lo_off, %hi_off, %key_floor, %general, %exp_share)
            : (tensor<192x128xf32, #jfa.wgmma_acc>, tensor<192xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<192xf32, #jfa.rows_of<#jfa.wgmma_acc>>, f32, i32, i1, i32, i32, i32, i32, i32, i32, i1, i32)
            -> (tensor<192x128xf32, #jfa.wgmma_acc>, tensor<192xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<192xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<192xf32, #jfa.rows_of<#jfa.wgmma_acc>>)
        %p16 = arith.truncf %p : tensor<192x128xf32, #jfa.wgmma_acc> to tensor<192x128xbf16, #jfa.wgmma_acc>

        // P_(j-1) V_(j-1) has landed: free V's slot and rescale O.
        %o_d:2 = scf.if %wide -> (tensor<192x64xf32, #jfa.wgmma_acc>, tensor<192x64xf32, #jfa.wgmma_acc>) {
          %w:2 = jfa.async_dot_wait pending(0) (%prev_olo, %prev_ohi) : tensor<192x64xf32, #jfa.wgmma_acc>, tensor<192x64xf32, #jfa.wgmma_acc>
          scf.yield %w#0, %w#1 : tensor<192x64xf32, #jfa.wgmma_acc>, tensor<192x64xf32, #jfa.wgmma_acc>
        } else {
          %w = jfa.async_dot_wait pending(0) (%prev_olo) : tensor<192x64xf32, #jfa.wgmma_acc>
          scf.yield %w, %o_hi : tensor<192x64xf32, #jfa.wgmma_acc>, tensor<192x64xf32, #jfa.wgmma_acc>
        }
        %v_empty_p = jfa.barrier %v_empty[%pstage] : !jfa.mbarriers<2>, i32
        jfa.barrier_arrive %v_empty_p
        %corr_o = jfa.broadcast_rows %corr : tensor<192xf32, #jfa.rows_of<#jfa.wgmma_acc>> -> tensor<192x64xf32, #jfa.wgmma_acc>
        %o_lo_c = arith.mulf %o_d#0, %corr_o : tensor<192x64xf32, #jfa.wgmma_acc>
        %o_hi_c = scf.if %wide -> tensor<192x64xf32, #jfa.wgmma_acc> {
          %c = arith.mulf %o_d#1, %corr_o : tensor<192x64xf32, #jfa.wgmma_acc>
          scf.yield %c : tensor<192x64xf32, #jfa.wgmma_acc>
        } else {
          scf.yield %o_hi : tensor<192x64xf32, #jfa.wgmma_acc>
        }
        scf.yield %m_new, %l_new, %o_lo_c, %o_hi_c, %p16, %k_tile : tensor<192xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<192xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<192x64xf32, #jfa.wgmma_acc>, tensor<192x64xf32, #jfa.wgmma_acc>, tensor<192x128xbf16, #jfa.wgmma_acc>, i32
      }

      // The last tile's P V.
      %kv_end = arith.addi %kv_n, %steps : i32
      %n_last = arith.subi %kv_end, %c1 : i32
      %lstage, %lphase = jfa.ring_position %n_last stages(2) : i32
      %v_full_l = jfa.barrier %v_full[%lstage] : !jfa.mbarriers<2>, i32
      jfa.barrier_wait %v_full_l, %lphase
      jfa.call @take_turn(%first_wg, %wg, %three) : (i1, i32, i1) -> ()
      %last_v0 = arith.muli %lstage, %c2 : i32
      %last_vlo = jfa.slot %v_ring[%last_v0] : !jfa.smem<4 x 128x64xbf16, swizzle 128>, i32
      %last_vlo_t = jfa.transpose %last_vlo : !jfa.slot<128x64xbf16, swizzle 128>
      %last_olo = jfa.async_dot %acc#4, %last_vlo_t, %acc#2 : tensor<192x128xbf16, #jfa.wgmma_acc>, !jfa.slot<64x128xbf16, swizzle 128, transposed>, tensor<192x64xf32, #jfa.wgmma_acc>
      %last_ohi = scf.if %wide -> tensor<192x64xf32, #jfa.wgmma_acc> {
        %last_v1 = arith.addi %last_v0, %c1 : i32
        %last_vhi = jfa.slot %v_ring[%last_v1] : !jfa.smem<4 x 128x64xbf16, swizzle 128>, i32
        %last_vhi_t = jfa.transpose %last_vhi : !jfa.slot<128x64xbf16, swizzle 128>
        %o_hi_n = jfa.async_dot %acc#4, %last_vhi_t, %acc#3 : tensor<192x128xbf16, #jfa.wgmma_acc>, !jfa.slot<64x128xbf16, swizzle 128, transposed>, tensor<192x64xf32, #jfa.wgmma_acc>
        scf.yield %o_hi_n : tensor<192x64xf32, #jfa.wgmma_acc>
      } else {
        scf.yield %acc#3 : tensor<192x64xf32, #jfa.wgmma_acc>
      }
      jfa.call @pass_turn(%first_wg, %wg, %three) : (i1, i32, i1) -> ()
      // The next unit's decode, while the last P V and the epilogue run:
      // the schedule's load stalls this warpgroup while the tensor cores
      // work, the offsets' loads land during the epilogue.
      %nx:9 = jfa.call @peek_and_decode(%taken_next, %units, %heads, %q_tiles, %q_rows, %offsets, %offsets_k, %schedule, %general, %sparse, %next_buf, %next_full)
          : (i32, i32, i32, i32, i32, !jfa.ptr<i32>, !jfa.ptr<i32>, !jfa.ptr<i32>, i1, i1, !jfa.smem<2 x 1xi32>, !jfa.mbarriers<2>) -> (i32, i32, i32, i32, i1, i32, i32, i32, i32)
      %o_f:2 = scf.if %wide -> (tensor<192x64xf32, #jfa.wgmma_acc>, tensor<192x64xf32, #jfa.wgmma_acc>) {
        %w:2 = jfa.async_dot_wait pending(0) (%last_olo, %last_ohi) : tensor<192x64xf32, #jfa.wgmma_acc>, tensor<192x64xf32, #jfa.wgmma_acc>
        scf.yield %w#0, %w#1 : tensor<192x64xf32, #jfa.wgmma_acc>, tensor<192x64xf32, #jfa.wgmma_acc>
      } else {
        %w = jfa.async_dot_wait pending(0) (%last_olo) : tensor<192x64xf32, #jfa.wgmma_acc>
        scf.yield %w, %last_ohi : tensor<192x64xf32, #jfa.wgmma_acc>, tensor<192x64xf32, #jfa.wgmma_acc>
      }
      %v_empty_l = jfa.barrier %v_empty[%lstage] : !jfa.mbarriers<2>, i32
      jfa.barrier_arrive %v_empty_l

      // o = O / l, rows of this sequence only; lse = ln(l) + m ln 2. A
      // row that saw no key (l = 0) gets o = 0 and lse = -inf.
      %l_inv = arith.divf %one_rows, %acc#1 : tensor<192xf32, #jfa.rows_of<#jfa.wgmma_acc>>
      %no_keys = arith.cmpf oeq, %acc#1, %zero_rows : tensor<192xf32, #jfa.rows_of<#jfa.wgmma_acc>>
      %softmax_norm = arith.select %no_keys, %zero_rows, %l_inv : tensor<192xi1, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<192xf32, #jfa.rows_of<#jfa.wgmma_acc>>
      // GDPA's output is not normalized.
      %inv_l = arith.select %is_softmax, %softmax_norm, %one_rows : tensor<192xf32, #jfa.rows_of<#jfa.wgmma_acc>>
      %inv_l_t = jfa.broadcast_rows %inv_l : tensor<192xf32, #jfa.rows_of<#jfa.wgmma_acc>> -> tensor<192x64xf32, #jfa.wgmma_acc>
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
      %out_lo = arith.mulf %o_f#0, %inv_l_t : tensor<192x64xf32, #jfa.wgmma_acc>
      %out_lo16 = arith.truncf %out_lo : tensor<192x64xf32, #jfa.wgmma_acc> to tensor<192x64xbf16, #jfa.wgmma_acc>
      %out_hi16 = scf.if %wide -> tensor<192x64xbf16, #jfa.wgmma_acc> {
        %out_hi = arith.mulf %o_f#1, %inv_l_t : tensor<192x64xf32, #jfa.wgmma_acc>
        %t = arith.truncf %out_hi : tensor<192x64xf32, #jfa.wgmma_acc> to tensor<192x64xbf16, #jfa.wgmma_acc>
        scf.yield %t : tensor<192x64xbf16, #jfa.wgmma_acc>
      } else {
        scf.yield %out_lo16 : tensor<192x64xbf16, #jfa.wgmma_acc>
      }
      // A tile whose q_rows rows all lie in the sequence goes out by TMA;
      // one with rows past the end (or below a block-sparse row floor)
      // by row-clipped stores.
      %whole_tile = jfa.call @o_tile_whole(%rows_left, %first_row, %q_rows) : (i32, i32, i32) -> i1
      scf.if %whole_tile {
        // O into the unit's Q stage: each warpgroup's last S has read
        // its own 64 rows of it, the only rows it writes.
        jfa.call @stage_o(%out_lo16, %out_hi16, %q_slot0, %q_slot1, %wide)
            : (tensor<192x64xbf16, #jfa.wgmma_acc>, tensor<192x64xbf16, #jfa.wgmma_acc>, !jfa.slot<192x64xbf16, swizzle 128>, !jfa.slot<192x64xbf16, swizzle 128>, i1) -> ()
        // The others (ahead) arrive and go on; warpgroup 0 waits for
        // all the writes, and its first thread stores.
        jfa.call @meet_for_store(%first_wg, %three) : (i1, i1) -> ()
        jfa.call @tma_store_o(%q_slot0, %q_slot1, %o_out, %row0, %head_base, %wide)
            : (!jfa.slot<192x64xbf16, swizzle 128>, !jfa.slot<192x64xbf16, swizzle 128>, !jfa.tma<192x64xbf16, swizzle 128>, i32, i32, i1) -> ()
      } else {
        jfa.call @store_o_rows(%out_lo16, %out_hi16, %o, %o_base, %o_stride, %rows_left, %first_row, %wide)
            : (tensor<192x64xbf16, #jfa.wgmma_acc>, tensor<192x64xbf16, #jfa.wgmma_acc>, !jfa.ptr<bf16>, i32, i32, i32, i32, i1) -> ()
      }
      // The other warpgroups' part of the unit's Q-stage release: their
      // last S has read the stage and their rows of O are stored (by
      // TMA: in the stage before @meet_for_store). Warpgroup 0's part
      // follows at the next unit's first turn.
      scf.if %first_wg {
      } else {
        jfa.barrier_arrive %q_empty0
      }
      // lse: softmax only (GDPA has none; lse is not written).
      scf.if %is_softmax {
        %log2_l = math.log2 %acc#1 fastmath<afn> : tensor<192xf32, #jfa.rows_of<#jfa.wgmma_acc>>
        %lse2 = arith.addf %acc#0, %log2_l : tensor<192xf32, #jfa.rows_of<#jfa.wgmma_acc>>
        %lse_v = arith.mulf %lse2, %ln2 : tensor<192xf32, #jfa.rows_of<#jfa.wgmma_acc>>
        %lse_head = arith.muli %h, %tokens : i32
        %lse_off = arith.addi %lse_head, %row0 : i32
        jfa.store_rows %lse_v, %lse[%lse_off] rows(%rows_left) from(%first_row)
            : tensor<192xf32, #jfa.rows_of<#jfa.wgmma_acc>>, !jfa.ptr<f32>
      }

      %unit_next = arith.addi %unit_n, %c1 : i32
      %kv_next = arith.addi %kv_n, %steps : i32
      scf.yield %unit_next, %kv_next, %nx#0, %nx#1, %nx#2, %nx#3, %nx#4, %nx#5, %nx#6, %nx#7, %nx#8 : i32, i32, i32, i32, i32, i32, i1, i32, i32, i32, i32
    } else {
      %nx:9 = jfa.call @peek_and_decode(%taken_next, %units, %heads, %q_tiles, %q_rows, %offsets, %offsets_k, %schedule, %general, %sparse, %next_buf, %next_full)
          : (i32, i32, i32, i32, i32, !jfa.ptr<i32>, !jfa.ptr<i32>, !jfa.ptr<i32>, i1, i1, !jfa.smem<2 x 1xi32>, !jfa.mbarriers<2>) -> (i32, i32, i32, i32, i1, i32, i32, i32, i32)
      scf.yield %unit_n, %kv_n, %nx#0, %nx#1, %nx#2, %nx#3, %nx#4, %nx#5, %nx#6, %nx#7, %nx#8 : i32, i32, i32, i32, i32, i32, i1, i32, i32, i32, i32
    }
    scf.yield %taken_next, %next#0, %next#1, %next#2, %next#3, %next#4, %next#5, %next#6, %next#7, %next#8, %next#9, %next#10 : i32, i32, i32, i32, i32, i32, i32, i1, i32, i32, i32, i32
  }
  jfa.return
}
