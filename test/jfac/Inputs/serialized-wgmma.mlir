// The first software-pipelined attention kernel: its P V accumulators in
// flight pass through the scf.if of the first iteration (no P V yet), so
// ptxas serializes every wgmma. Kept as the input of serialized-wgmma.test.
// jfa-targets: sm_90a
// Jagged (variable-length) flash attention forward for sm_90a, FA3-style:
//
//   o[t, h] = softmax(scale * q[t, h] . k[s, h]^T) . v[s, h]   over the keys
//   s of t's sequence (s <= t under causal), lse[h, t] = the log-sum-exp.
//
// The contract (tensors, parameters, launch) is kernels/jagged_attention/
// README.md. A work unit is (sequence, head, 128-row q tile). The grid is
// persistent: CTA i takes units i, i + G, i + 2G, ... of an order that puts
// the highest q-tile indices first, so the tiles of the long sequences start
// first and no long sequence runs alone at the end; units past the end of
// their sequence are skipped.
//
// Warp specialization: a producer warpgroup streams Q (once per unit) and a
// 2-stage K/V ring with TMA; two consumer warpgroups (one task, 64 q rows
// each) run S = Q K^T with wgmma from shared memory, the online softmax in
// base 2 with the scale folded in, and O += P V with P fed from registers.
// Head dims 64 and 128 are one kernel: a row of D bf16 is D/64 chunks of 64
// columns (128 bytes, one 128-byte swizzle span), loaded and multiplied
// chunk by chunk. Rows and columns past the sequence's end are masked in
// the last k tile only (where the causal diagonal also lies); O is stored
// with row-clipped stores so a unit never writes another sequence's rows.
jfa.kernel @attention_fwd_sm90(%q: !jfa.tma<128x64xbf16, swizzle 128>,
                               %k: !jfa.tma<128x64xbf16, swizzle 128>,
                               %v: !jfa.tma<128x64xbf16, swizzle 128>,
                               %o: !jfa.ptr<bf16>, %lse: !jfa.ptr<f32>,
                               %offsets: !jfa.ptr<i32>,
                               %batch: i32, %heads: i32, %head_dim: i32,
                               %tokens: i32, %o_stride: i32, %q_tiles: i32,
                               %causal: i32, %scale_log2: f32) warps(12) {
  // Q: chunk c of the unit's rows in slot c. K, V: stage s, chunk c in slot
  // 2s + c.
  %q_buf = jfa.local_alloc : !jfa.smem<2 x 128x64xbf16, swizzle 128>
  %k_ring = jfa.local_alloc : !jfa.smem<4 x 128x64xbf16, swizzle 128>
  %v_ring = jfa.local_alloc : !jfa.smem<4 x 128x64xbf16, swizzle 128>
  // full: the producer's expect plus the TMA bytes; empty: the 256 consumer
  // threads, once they no longer read the slot.
  %q_full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %q_empty = jfa.alloc_barriers arrive_count(256) : !jfa.mbarriers<1>
  %k_full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  %k_empty = jfa.alloc_barriers arrive_count(256) : !jfa.mbarriers<2>
  %v_full = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<2>
  %v_empty = jfa.alloc_barriers arrive_count(256) : !jfa.mbarriers<2>

  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c64 = arith.constant 64 : i32
  %c127 = arith.constant 127 : i32
  %c128 = arith.constant 128 : i32
  %pid = jfa.program_id x
  %grid = jfa.num_programs x
  %seqs_heads = arith.muli %batch, %heads : i32
  %units = arith.muli %q_tiles, %seqs_heads : i32
  %wide = arith.constant true
  %is_causal = arith.cmpi ne, %causal, %c0 : i32
  %true = arith.constant true
  %q_slot0 = jfa.slot %q_buf[%c0] : !jfa.smem<2 x 128x64xbf16, swizzle 128>, i32
  %q_slot1 = jfa.slot %q_buf[%c1] : !jfa.smem<2 x 128x64xbf16, swizzle 128>, i32
  %q_full0 = jfa.barrier %q_full[%c0] : !jfa.mbarriers<1>, i32
  %q_empty0 = jfa.barrier %q_empty[%c0] : !jfa.mbarriers<1>, i32

  jfa.async_tasks {
    // Consumers: warps 0-7, 128 q rows (64 per warpgroup).
    jfa.task warps(8) registers(240) {
      %neg_inf_rows = arith.constant dense<0xFF800000> : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
      %zero_rows = arith.constant dense<0.0> : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
      %one_rows = arith.constant dense<1.0> : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
      %ln2 = arith.constant dense<0.693147181> : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
      %zero_s = arith.constant dense<0.0> : tensor<128x128xf32, #jfa.wgmma_acc>
      %zero_o = arith.constant dense<0.0> : tensor<128x64xf32, #jfa.wgmma_acc>
      %neg_inf = arith.constant dense<0xFF800000> : tensor<128x128xf32, #jfa.wgmma_acc>
      %scale = tensor.splat %scale_log2 : tensor<128x128xf32, #jfa.wgmma_acc>
      %scale_rows = tensor.splat %scale_log2 : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
      %tile_col = jfa.iota cols : tensor<128x128xi32, #jfa.wgmma_acc>
      %tile_row = jfa.iota rows : tensor<128x128xi32, #jfa.wgmma_acc>
      %zero_p = arith.constant dense<0.0> : tensor<128x128xbf16, #jfa.wgmma_acc>
      // Warpgroup 0 issues first: warpgroup 1 hands it the first turn.
      %thread = jfa.task_thread_id
      %first_wg = arith.cmpi ult, %thread, %c128 : i32
      scf.if %first_wg {
      } else {
        jfa.named_barrier_arrive id(8) threads(256)
      }

      %counts:2 = scf.for %u = %pid to %units step %grid
          iter_args(%unit_n = %c0, %kv_n = %c0) -> (i32, i32) : i32 {
        // Unit u: level (q tiles from the last), sequence, head.
        %level = arith.divui %u, %seqs_heads : i32
        %sh = arith.remui %u, %seqs_heads : i32
        %b = arith.divui %sh, %heads : i32
        %h = arith.remui %sh, %heads : i32
        %last_tile = arith.subi %q_tiles, %c1 : i32
        %tile = arith.subi %last_tile, %level : i32
        %b1 = arith.addi %b, %c1 : i32
        %start = jfa.load %offsets[%b] : !jfa.ptr<i32> -> i32
        %end = jfa.load %offsets[%b1] : !jfa.ptr<i32> -> i32
        %len = arith.subi %end, %start : i32
        %q0 = arith.muli %tile, %c128 : i32
        %live = arith.cmpi slt, %q0, %len : i32
        %next:2 = scf.if %live -> (i32, i32) {
          // Keys [0, kv_len): all of the sequence, or up to the tile's last
          // row under causal.
          %q_end = arith.addi %q0, %c128 : i32
          %causal_end = arith.minsi %len, %q_end : i32
          %kv_len = arith.select %is_causal, %causal_end, %len : i32
          %kv_up = arith.addi %kv_len, %c127 : i32
          %kv_tiles = arith.divui %kv_up, %c128 : i32
          %last_kv = arith.subi %kv_tiles, %c1 : i32
          %q_phase = arith.andi %unit_n, %c1 : i32
          jfa.barrier_wait %q_full0, %q_phase

          // Software pipelined as FA3: iteration j issues S_j = Q K_j^T and
          // O += P_(j-1) V_(j-1) together, and runs the softmax of S_j while
          // the P V product is in flight. The two warpgroups take turns to
          // issue (named barriers 8 and 9), so that one's softmax overlaps
          // the other's MMAs.
          %acc:5 = scf.for %j = %c0 to %kv_tiles step %c1
              iter_args(%m = %neg_inf_rows, %l = %zero_rows, %o_lo = %zero_o, %o_hi = %zero_o, %p_prev = %zero_p)
              -> (tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<128x64xf32, #jfa.wgmma_acc>, tensor<128x64xf32, #jfa.wgmma_acc>, tensor<128x128xbf16, #jfa.wgmma_acc>) : i32 {
            %n = arith.addi %kv_n, %j : i32
            %n_prev = arith.subi %n, %c1 : i32
            %stage, %phase = jfa.ring_position %n stages(2) : i32
            %pstage, %pphase = jfa.ring_position %n_prev stages(2) : i32
            %has_prev = arith.cmpi ugt, %j, %c0 : i32
            %chunk0 = arith.muli %stage, %c2 : i32
            %chunk1 = arith.addi %chunk0, %c1 : i32
            %k_lo = jfa.slot %k_ring[%chunk0] : !jfa.smem<4 x 128x64xbf16, swizzle 128>, i32
            %k_hi = jfa.slot %k_ring[%chunk1] : !jfa.smem<4 x 128x64xbf16, swizzle 128>, i32
            %k_full_s = jfa.barrier %k_full[%stage] : !jfa.mbarriers<2>, i32
            %v_full_p = jfa.barrier %v_full[%pstage] : !jfa.mbarriers<2>, i32
            jfa.barrier_wait %k_full_s, %phase
            scf.if %has_prev {
              jfa.barrier_wait %v_full_p, %pphase
            }
            scf.if %first_wg {
              jfa.named_barrier_sync id(8) threads(256)
            } else {
              jfa.named_barrier_sync id(9) threads(256)
            }
            // S = Q K^T, over D in chunks of 64.
            %s_lo = jfa.async_dot %q_slot0, %k_lo, %zero_s : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, tensor<128x128xf32, #jfa.wgmma_acc>
            %s_all = scf.if %wide -> tensor<128x128xf32, #jfa.wgmma_acc> {
              %s2 = jfa.async_dot %q_slot1, %k_hi, %s_lo : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>, tensor<128x128xf32, #jfa.wgmma_acc>
              scf.yield %s2 : tensor<128x128xf32, #jfa.wgmma_acc>
            } else {
              scf.yield %s_lo : tensor<128x128xf32, #jfa.wgmma_acc>
            }
            // O += P V for the previous tile, P from registers, V N-major.
            %pv:2 = scf.if %has_prev -> (tensor<128x64xf32, #jfa.wgmma_acc>, tensor<128x64xf32, #jfa.wgmma_acc>) {
              %prev_c0 = arith.muli %pstage, %c2 : i32
              %prev_c1 = arith.addi %prev_c0, %c1 : i32
              %prev_vlo = jfa.slot %v_ring[%prev_c0] : !jfa.smem<4 x 128x64xbf16, swizzle 128>, i32
              %prev_vhi = jfa.slot %v_ring[%prev_c1] : !jfa.smem<4 x 128x64xbf16, swizzle 128>, i32
              %prev_vlo_t = jfa.transpose %prev_vlo : !jfa.slot<128x64xbf16, swizzle 128>
              %prev_vhi_t = jfa.transpose %prev_vhi : !jfa.slot<128x64xbf16, swizzle 128>
              %prev_lo = jfa.async_dot %p_prev, %prev_vlo_t, %o_lo : tensor<128x128xbf16, #jfa.wgmma_acc>, !jfa.slot<64x128xbf16, swizzle 128, transposed>, tensor<128x64xf32, #jfa.wgmma_acc>
              %prev_hi = scf.if %wide -> tensor<128x64xf32, #jfa.wgmma_acc> {
                %d = jfa.async_dot %p_prev, %prev_vhi_t, %o_hi : tensor<128x128xbf16, #jfa.wgmma_acc>, !jfa.slot<64x128xbf16, swizzle 128, transposed>, tensor<128x64xf32, #jfa.wgmma_acc>
                scf.yield %d : tensor<128x64xf32, #jfa.wgmma_acc>
              } else {
                scf.yield %o_hi : tensor<128x64xf32, #jfa.wgmma_acc>
              }
              scf.yield %prev_lo, %prev_hi : tensor<128x64xf32, #jfa.wgmma_acc>, tensor<128x64xf32, #jfa.wgmma_acc>
            } else {
              scf.yield %o_lo, %o_hi : tensor<128x64xf32, #jfa.wgmma_acc>, tensor<128x64xf32, #jfa.wgmma_acc>
            }
            scf.if %first_wg {
              jfa.named_barrier_arrive id(9) threads(256)
            } else {
              jfa.named_barrier_arrive id(8) threads(256)
            }
            // S is done once at most the P V groups (1 or 2) are pending.
            %s_raw = scf.if %wide -> tensor<128x128xf32, #jfa.wgmma_acc> {
              %w = jfa.async_dot_wait pending(2) (%s_all) : tensor<128x128xf32, #jfa.wgmma_acc>
              scf.yield %w : tensor<128x128xf32, #jfa.wgmma_acc>
            } else {
              %w = jfa.async_dot_wait pending(1) (%s_all) : tensor<128x128xf32, #jfa.wgmma_acc>
              scf.yield %w : tensor<128x128xf32, #jfa.wgmma_acc>
            }
            %k_empty_s = jfa.barrier %k_empty[%stage] : !jfa.mbarriers<2>, i32
            jfa.barrier_arrive %k_empty_s

            // The last k tile holds the sequence's end and the causal
            // diagonal: mask keys past the end, and past the row if causal.
            %is_last = arith.cmpi eq, %j, %last_kv : i32
            %s = scf.if %is_last -> tensor<128x128xf32, #jfa.wgmma_acc> {
              %k0 = arith.muli %j, %c128 : i32
              %k0_t = tensor.splat %k0 : tensor<128x128xi32, #jfa.wgmma_acc>
              %q0_t = tensor.splat %q0 : tensor<128x128xi32, #jfa.wgmma_acc>
              %len_t = tensor.splat %len : tensor<128x128xi32, #jfa.wgmma_acc>
              %key = arith.addi %tile_col, %k0_t : tensor<128x128xi32, #jfa.wgmma_acc>
              %query = arith.addi %tile_row, %q0_t : tensor<128x128xi32, #jfa.wgmma_acc>
              %in_seq = arith.cmpi slt, %key, %len_t : tensor<128x128xi32, #jfa.wgmma_acc>
              %before = arith.cmpi sle, %key, %query : tensor<128x128xi32, #jfa.wgmma_acc>
              %not_causal = arith.xori %is_causal, %true : i1
              %not_causal_t = tensor.splat %not_causal : tensor<128x128xi1, #jfa.wgmma_acc>
              %seen = arith.ori %before, %not_causal_t : tensor<128x128xi1, #jfa.wgmma_acc>
              %keep = arith.andi %in_seq, %seen : tensor<128x128xi1, #jfa.wgmma_acc>
              %masked = arith.select %keep, %s_raw, %neg_inf : tensor<128x128xi1, #jfa.wgmma_acc>, tensor<128x128xf32, #jfa.wgmma_acc>
              scf.yield %masked : tensor<128x128xf32, #jfa.wgmma_acc>
            } else {
              scf.yield %s_raw : tensor<128x128xf32, #jfa.wgmma_acc>
            }

            // Online softmax in base 2: m is the running max of scale*S*log2(e).
            %s_max = jfa.reduce_rows max %s : tensor<128x128xf32, #jfa.wgmma_acc> -> tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
            %s_max2 = arith.mulf %s_max, %scale_rows : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
            %m_new = arith.maximumf %m, %s_max2 : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
            %neg_m = arith.negf %m_new : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
            %neg_m_t = jfa.broadcast_rows %neg_m : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>> -> tensor<128x128xf32, #jfa.wgmma_acc>
            %x = math.fma %s, %scale, %neg_m_t : tensor<128x128xf32, #jfa.wgmma_acc>
            %p = math.exp2 %x : tensor<128x128xf32, #jfa.wgmma_acc>
            %m_drop = arith.subf %m, %m_new : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
            %corr = math.exp2 %m_drop : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
            %p_sum = jfa.reduce_rows sum %p : tensor<128x128xf32, #jfa.wgmma_acc> -> tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
            %l_old = arith.mulf %l, %corr : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
            %l_new = arith.addf %l_old, %p_sum : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
            %p16 = arith.truncf %p : tensor<128x128xf32, #jfa.wgmma_acc> to tensor<128x128xbf16, #jfa.wgmma_acc>

            // P V of the previous tile has landed: free V's slot, rescale O.
            %o_lo_d, %o_hi_d = jfa.async_dot_wait pending(0) (%pv#0, %pv#1) : tensor<128x64xf32, #jfa.wgmma_acc>, tensor<128x64xf32, #jfa.wgmma_acc>
            scf.if %has_prev {
              %v_empty_p = jfa.barrier %v_empty[%pstage] : !jfa.mbarriers<2>, i32
              jfa.barrier_arrive %v_empty_p
            }
            %corr_o = jfa.broadcast_rows %corr : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>> -> tensor<128x64xf32, #jfa.wgmma_acc>
            %o_lo_c = arith.mulf %o_lo_d, %corr_o : tensor<128x64xf32, #jfa.wgmma_acc>
            %o_hi_c = arith.mulf %o_hi_d, %corr_o : tensor<128x64xf32, #jfa.wgmma_acc>
            scf.yield %m_new, %l_new, %o_lo_c, %o_hi_c, %p16 : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, tensor<128x64xf32, #jfa.wgmma_acc>, tensor<128x64xf32, #jfa.wgmma_acc>, tensor<128x128xbf16, #jfa.wgmma_acc>
          }

          // The last tile's P V.
          %kv_end = arith.addi %kv_n, %kv_tiles : i32
          %n_last = arith.subi %kv_end, %c1 : i32
          %lstage, %lphase = jfa.ring_position %n_last stages(2) : i32
          %v_full_l = jfa.barrier %v_full[%lstage] : !jfa.mbarriers<2>, i32
          jfa.barrier_wait %v_full_l, %lphase
          scf.if %first_wg {
            jfa.named_barrier_sync id(8) threads(256)
          } else {
            jfa.named_barrier_sync id(9) threads(256)
          }
          %last_c0 = arith.muli %lstage, %c2 : i32
          %last_c1 = arith.addi %last_c0, %c1 : i32
          %last_vlo = jfa.slot %v_ring[%last_c0] : !jfa.smem<4 x 128x64xbf16, swizzle 128>, i32
          %last_vhi = jfa.slot %v_ring[%last_c1] : !jfa.smem<4 x 128x64xbf16, swizzle 128>, i32
          %last_vlo_t = jfa.transpose %last_vlo : !jfa.slot<128x64xbf16, swizzle 128>
          %last_vhi_t = jfa.transpose %last_vhi : !jfa.slot<128x64xbf16, swizzle 128>
          %last_lo = jfa.async_dot %acc#4, %last_vlo_t, %acc#2 : tensor<128x128xbf16, #jfa.wgmma_acc>, !jfa.slot<64x128xbf16, swizzle 128, transposed>, tensor<128x64xf32, #jfa.wgmma_acc>
          %last_hi = scf.if %wide -> tensor<128x64xf32, #jfa.wgmma_acc> {
            %d = jfa.async_dot %acc#4, %last_vhi_t, %acc#3 : tensor<128x128xbf16, #jfa.wgmma_acc>, !jfa.slot<64x128xbf16, swizzle 128, transposed>, tensor<128x64xf32, #jfa.wgmma_acc>
            scf.yield %d : tensor<128x64xf32, #jfa.wgmma_acc>
          } else {
            scf.yield %acc#3 : tensor<128x64xf32, #jfa.wgmma_acc>
          }
          scf.if %first_wg {
            jfa.named_barrier_arrive id(9) threads(256)
          } else {
            jfa.named_barrier_arrive id(8) threads(256)
          }
          %o_lo_f, %o_hi_f = jfa.async_dot_wait pending(0) (%last_lo, %last_hi) : tensor<128x64xf32, #jfa.wgmma_acc>, tensor<128x64xf32, #jfa.wgmma_acc>
          %v_empty_l = jfa.barrier %v_empty[%lstage] : !jfa.mbarriers<2>, i32
          jfa.barrier_arrive %v_empty_l
          jfa.barrier_arrive %q_empty0

          // o = O / l, rows of this sequence only; lse = ln(l) + m ln 2.
          %inv_l = arith.divf %one_rows, %acc#1 : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
          %inv_l_t = jfa.broadcast_rows %inv_l : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>> -> tensor<128x64xf32, #jfa.wgmma_acc>
          %row0 = arith.addi %start, %q0 : i32
          %rows_left = arith.subi %len, %q0 : i32
          %row_base = arith.muli %row0, %o_stride : i32
          %head_base = arith.muli %h, %head_dim : i32
          %o_base = arith.addi %row_base, %head_base : i32
          %out_lo = arith.mulf %o_lo_f, %inv_l_t : tensor<128x64xf32, #jfa.wgmma_acc>
          %out_lo16 = arith.truncf %out_lo : tensor<128x64xf32, #jfa.wgmma_acc> to tensor<128x64xbf16, #jfa.wgmma_acc>
          jfa.store_tile %out_lo16, %o[%o_base] stride(%o_stride) rows(%rows_left)
              : tensor<128x64xbf16, #jfa.wgmma_acc>, !jfa.ptr<bf16>
          scf.if %wide {
            %out_hi = arith.mulf %o_hi_f, %inv_l_t : tensor<128x64xf32, #jfa.wgmma_acc>
            %out_hi16 = arith.truncf %out_hi : tensor<128x64xf32, #jfa.wgmma_acc> to tensor<128x64xbf16, #jfa.wgmma_acc>
            %o_base_hi = arith.addi %o_base, %c64 : i32
            jfa.store_tile %out_hi16, %o[%o_base_hi] stride(%o_stride) rows(%rows_left)
                : tensor<128x64xbf16, #jfa.wgmma_acc>, !jfa.ptr<bf16>
          }
          %log2_l = math.log2 %acc#1 fastmath<afn> : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
          %lse2 = arith.addf %acc#0, %log2_l : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
          %lse_v = arith.mulf %lse2, %ln2 : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>
          %lse_head = arith.muli %h, %tokens : i32
          %lse_off = arith.addi %lse_head, %row0 : i32
          jfa.store_rows %lse_v, %lse[%lse_off] rows(%rows_left)
              : tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>, !jfa.ptr<f32>

          %unit_next = arith.addi %unit_n, %c1 : i32
          %kv_next = arith.addi %kv_n, %kv_tiles : i32
          scf.yield %unit_next, %kv_next : i32, i32
        } else {
          scf.yield %unit_n, %kv_n : i32, i32
        }
        scf.yield %next#0, %next#1 : i32, i32
      }
    }

    // Producer: warps 8-11; one thread issues the copies.
    jfa.task default registers(24) {
      %counts:2 = scf.for %u = %pid to %units step %grid
          iter_args(%unit_n = %c0, %kv_n = %c0) -> (i32, i32) : i32 {
        %level = arith.divui %u, %seqs_heads : i32
        %sh = arith.remui %u, %seqs_heads : i32
        %b = arith.divui %sh, %heads : i32
        %h = arith.remui %sh, %heads : i32
        %last_tile = arith.subi %q_tiles, %c1 : i32
        %tile = arith.subi %last_tile, %level : i32
        %b1 = arith.addi %b, %c1 : i32
        %start = jfa.load %offsets[%b] : !jfa.ptr<i32> -> i32
        %end = jfa.load %offsets[%b1] : !jfa.ptr<i32> -> i32
        %len = arith.subi %end, %start : i32
        %q0 = arith.muli %tile, %c128 : i32
        %live = arith.cmpi slt, %q0, %len : i32
        %next:2 = scf.if %live -> (i32, i32) {
          %q_end = arith.addi %q0, %c128 : i32
          %causal_end = arith.minsi %len, %q_end : i32
          %kv_len = arith.select %is_causal, %causal_end, %len : i32
          %kv_up = arith.addi %kv_len, %c127 : i32
          %kv_tiles = arith.divui %kv_up, %c128 : i32
          %col0 = arith.muli %h, %head_dim : i32
          %col1 = arith.addi %col0, %c64 : i32
          %q_row = arith.addi %start, %q0 : i32

          // Q, once the consumers are done with the previous unit's.
          %q_phase = arith.andi %unit_n, %c1 : i32
          %q_free = arith.xori %q_phase, %c1 : i32
          jfa.barrier_wait %q_empty0, %q_free
          scf.if %wide {
            jfa.barrier_expect %q_full0, bytes(32768)
            jfa.tma_load %q[%q_row, %col0], %q_slot0, %q_full0 : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
            jfa.tma_load %q[%q_row, %col1], %q_slot1, %q_full0 : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
          } else {
            jfa.barrier_expect %q_full0, bytes(16384)
            jfa.tma_load %q[%q_row, %col0], %q_slot0, %q_full0 : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
          }

          // K and V tiles through the ring.
          scf.for %j = %c0 to %kv_tiles step %c1 : i32 {
            %n = arith.addi %kv_n, %j : i32
            %stage, %phase = jfa.ring_position %n stages(2) : i32
            %free = arith.xori %phase, %c1 : i32
            %chunk0 = arith.muli %stage, %c2 : i32
            %chunk1 = arith.addi %chunk0, %c1 : i32
            %kv_row0 = arith.muli %j, %c128 : i32
            %kv_row = arith.addi %start, %kv_row0 : i32
            %k_lo = jfa.slot %k_ring[%chunk0] : !jfa.smem<4 x 128x64xbf16, swizzle 128>, i32
            %k_hi = jfa.slot %k_ring[%chunk1] : !jfa.smem<4 x 128x64xbf16, swizzle 128>, i32
            %v_lo = jfa.slot %v_ring[%chunk0] : !jfa.smem<4 x 128x64xbf16, swizzle 128>, i32
            %v_hi = jfa.slot %v_ring[%chunk1] : !jfa.smem<4 x 128x64xbf16, swizzle 128>, i32
            %k_empty_s = jfa.barrier %k_empty[%stage] : !jfa.mbarriers<2>, i32
            %k_full_s = jfa.barrier %k_full[%stage] : !jfa.mbarriers<2>, i32
            %v_empty_s = jfa.barrier %v_empty[%stage] : !jfa.mbarriers<2>, i32
            %v_full_s = jfa.barrier %v_full[%stage] : !jfa.mbarriers<2>, i32
            jfa.barrier_wait %k_empty_s, %free
            scf.if %wide {
              jfa.barrier_expect %k_full_s, bytes(32768)
              jfa.tma_load %k[%kv_row, %col0], %k_lo, %k_full_s : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
              jfa.tma_load %k[%kv_row, %col1], %k_hi, %k_full_s : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
            } else {
              jfa.barrier_expect %k_full_s, bytes(16384)
              jfa.tma_load %k[%kv_row, %col0], %k_lo, %k_full_s : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
            }
            jfa.barrier_wait %v_empty_s, %free
            scf.if %wide {
              jfa.barrier_expect %v_full_s, bytes(32768)
              jfa.tma_load %v[%kv_row, %col0], %v_lo, %v_full_s : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
              jfa.tma_load %v[%kv_row, %col1], %v_hi, %v_full_s : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
            } else {
              jfa.barrier_expect %v_full_s, bytes(16384)
              jfa.tma_load %v[%kv_row, %col0], %v_lo, %v_full_s : !jfa.tma<128x64xbf16, swizzle 128>, !jfa.slot<128x64xbf16, swizzle 128>
            }
          }
          %unit_next = arith.addi %unit_n, %c1 : i32
          %kv_next = arith.addi %kv_n, %kv_tiles : i32
          scf.yield %unit_next, %kv_next : i32, i32
        } else {
          scf.yield %unit_n, %kv_n : i32, i32
        }
        scf.yield %next#0, %next#1 : i32, i32
      }
    }
  }
}
