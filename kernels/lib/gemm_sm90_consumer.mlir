// A library of device helpers (no kernel), imported with
// `jfa.import "../lib/gemm_sm90_consumer.mlir"`: the consumer task of the
// sm_90a GEMMs (gemm_sm90.mlir, gemm_multicast_sm90.mlir).

// Two consumer warpgroups, 64 rows of the 128x256 tile each: m64n256k16
// wgmmas over the 3-stage ring, one k-step in flight; a stage goes back to
// the producer once the wgmmas reading it have completed. With %multicast
// the stage is also written by the peer CTA's multicast copy, so it goes
// back to the peer's producer too (`on cta %peer`); a constant flag folds
// away. Then the epilogue: bf16 in registers, staged in %c_tile, stored
// with TMA at (%row0, %col0), which clips the edges.
jfa.func @gemm_consumer(%k_tiles: i32, %row0: i32, %col0: i32,
                        %a_ring: !jfa.smem<3 x 128x64xbf16, swizzle 128>,
                        %b_ring: !jfa.smem<3 x 256x64xbf16, swizzle 128>,
                        %c_tile: !jfa.smem<1 x 128x256xbf16>,
                        %full: !jfa.mbarriers<3>, %empty: !jfa.mbarriers<3>,
                        %c: !jfa.tma<128x256xbf16>,
                        %multicast: i1, %peer: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<128x256xf32, #jfa.wgmma_acc>
  %acc = scf.for %kt = %c0 to %k_tiles step %c1
      iter_args(%acc_in = %zero) -> (tensor<128x256xf32, #jfa.wgmma_acc>) : i32 {
    %s, %phase = jfa.ring_position %kt stages(3) : i32
    %full_s = jfa.barrier %full[%s] : !jfa.mbarriers<3>, i32
    jfa.barrier_wait %full_s, %phase
    %a_s = jfa.slot %a_ring[%s] : !jfa.smem<3 x 128x64xbf16, swizzle 128>, i32
    %b_s = jfa.slot %b_ring[%s] : !jfa.smem<3 x 256x64xbf16, swizzle 128>, i32
    %d = jfa.async_dot %a_s, %b_s, %acc_in
        : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<256x64xbf16, swizzle 128>,
          tensor<128x256xf32, #jfa.wgmma_acc>
    // At most this k-step's wgmmas are still running: the previous stage
    // has been read and goes back to the producer(s).
    %d1 = jfa.async_dot_wait pending(1) (%d) : tensor<128x256xf32, #jfa.wgmma_acc>
    %has_prev = arith.cmpi ugt, %kt, %c0 : i32
    scf.if %has_prev {
      %prev = arith.subi %kt, %c1 : i32
      %ps, %pphase = jfa.ring_position %prev stages(3) : i32
      %empty_p = jfa.barrier %empty[%ps] : !jfa.mbarriers<3>, i32
      jfa.barrier_arrive %empty_p
      scf.if %multicast {
        jfa.barrier_arrive %empty_p on cta %peer
      }
    }
    scf.yield %d1 : tensor<128x256xf32, #jfa.wgmma_acc>
  }
  %done = jfa.async_dot_wait pending(0) (%acc) : tensor<128x256xf32, #jfa.wgmma_acc>
  %out = arith.truncf %done : tensor<128x256xf32, #jfa.wgmma_acc> to tensor<128x256xbf16, #jfa.wgmma_acc>
  %c_s = jfa.slot %c_tile[%c0] : !jfa.smem<1 x 128x256xbf16>, i32
  jfa.local_store %out, %c_s : tensor<128x256xbf16, #jfa.wgmma_acc> -> !jfa.slot<128x256xbf16>
  jfa.fence_async_shared
  jfa.task_barrier
  jfa.tma_store %c_s, %c[%row0, %col0] : !jfa.slot<128x256xbf16>, !jfa.tma<128x256xbf16>
  jfa.return
}
