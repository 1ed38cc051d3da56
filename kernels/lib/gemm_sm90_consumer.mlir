// A library of device helpers (no kernel), imported with
// `jfa.import "../lib/gemm_sm90_consumer.mlir"`: the consumer task of the
// sm_90a GEMMs (gemm_sm90.mlir, gemm_multicast_sm90.mlir,
// gemm_persistent_sm90.mlir, gemm_persistent_multicast_sm90.mlir;
// gemm_fp8_sm90.mlir takes @gemm_store_blocks,
// gemm_persistent_multicast_fp8_sm90.mlir the mainloop on fp8 operands).

// Two consumer warpgroups, 64 rows of the 128x256 tile each: m64n256k16
// wgmmas over the ring (written for 3 stages; the stage parameter takes
// the caller's count: gemm_persistent_sm90 runs 4; and for bf16: the
// element parameter takes the caller's, gemm_persistent_multicast_fp8_sm90
// runs 128x128 e4m3 tiles, m64n256k32), one k-step in flight;
// a stage goes back to the producer once the wgmmas reading it have
// completed. The tile's k steps
// are the ring's steps [%step0, %step0 + %k_tiles) (a persistent kernel's
// ring runs on across tiles). With %multicast the stage is also written by
// the peer CTA's multicast copy, so it goes back to the peer's producer too
// (`on cta %peer`); with %release_last the last stage goes back once the
// product is complete (a persistent kernel's producer reuses it for the
// next tile; a one-tile kernel need not). Constant flags fold away.
jfa.func @gemm_mainloop(%k_tiles: i32, %step0: i32,
                        %a_ring: !jfa.smem<3 x 128x64xbf16, swizzle 128>,
                        %b_ring: !jfa.smem<3 x 256x64xbf16, swizzle 128>,
                        %full: !jfa.mbarriers<3>, %empty: !jfa.mbarriers<3>,
                        %multicast: i1, %peer: i32, %release_last: i1)
    -> tensor<128x256xf32, #jfa.wgmma_acc>
    attributes {stage_parameter = 3, element_parameter = bf16} {
  %c0 = arith.constant 0 : i32
  %zero = arith.constant dense<0.0> : tensor<128x256xf32, #jfa.wgmma_acc>
  %acc = jfa.call @gemm_mainloop_from(%c0, %zero, %k_tiles, %step0, %a_ring, %b_ring, %full, %empty, %multicast, %peer, %release_last)
      : (i32, tensor<128x256xf32, #jfa.wgmma_acc>, i32, i32, !jfa.smem<3 x 128x64xbf16, swizzle 128>,
         !jfa.smem<3 x 256x64xbf16, swizzle 128>, !jfa.mbarriers<3>, !jfa.mbarriers<3>, i1, i32, i1)
      -> tensor<128x256xf32, #jfa.wgmma_acc>
  jfa.return %acc : tensor<128x256xf32, #jfa.wgmma_acc>
}

// The first k-step's product, issued and not waited for: the ring's step
// %step0 (a persistent kernel issues it before it stores the last tile, so
// the tensor cores run while the epilogue does; @gemm_mainloop_from
// continues from k-step 1).
jfa.func @gemm_first_step(%step0: i32,
                          %a_ring: !jfa.smem<3 x 128x64xbf16, swizzle 128>,
                          %b_ring: !jfa.smem<3 x 256x64xbf16, swizzle 128>,
                          %full: !jfa.mbarriers<3>)
    -> tensor<128x256xf32, #jfa.wgmma_acc>
    attributes {stage_parameter = 3, element_parameter = bf16} {
  %zero = arith.constant dense<0.0> : tensor<128x256xf32, #jfa.wgmma_acc>
  %s, %phase = jfa.ring_position %step0 stages(3) : i32
  %full_s = jfa.barrier %full[%s] : !jfa.mbarriers<3>, i32
  jfa.barrier_wait %full_s, %phase
  %a_s = jfa.slot %a_ring[%s] : !jfa.smem<3 x 128x64xbf16, swizzle 128>, i32
  %b_s = jfa.slot %b_ring[%s] : !jfa.smem<3 x 256x64xbf16, swizzle 128>, i32
  %d = jfa.async_dot %a_s, %b_s, %zero
      : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.slot<256x64xbf16, swizzle 128>,
        tensor<128x256xf32, #jfa.wgmma_acc>
  jfa.return %d : tensor<128x256xf32, #jfa.wgmma_acc>
}

// @gemm_mainloop from k-step %kt0 with the accumulator %acc0 (k-steps
// before %kt0 issued, possibly still running: their stages are released
// here as the loop goes on).
jfa.func @gemm_mainloop_from(%kt0: i32, %acc0: tensor<128x256xf32, #jfa.wgmma_acc>,
                             %k_tiles: i32, %step0: i32,
                             %a_ring: !jfa.smem<3 x 128x64xbf16, swizzle 128>,
                             %b_ring: !jfa.smem<3 x 256x64xbf16, swizzle 128>,
                             %full: !jfa.mbarriers<3>, %empty: !jfa.mbarriers<3>,
                             %multicast: i1, %peer: i32, %release_last: i1)
    -> tensor<128x256xf32, #jfa.wgmma_acc>
    attributes {stage_parameter = 3, element_parameter = bf16} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc = scf.for %kt = %kt0 to %k_tiles step %c1
      iter_args(%acc_in = %acc0) -> (tensor<128x256xf32, #jfa.wgmma_acc>) : i32 {
    %step = arith.addi %step0, %kt : i32
    %s, %phase = jfa.ring_position %step stages(3) : i32
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
      %prev = arith.subi %step, %c1 : i32
      jfa.call @gemm_release(%prev, %empty, %multicast, %peer) : (i32, !jfa.mbarriers<3>, i1, i32) -> ()
    }
    scf.yield %d1 : tensor<128x256xf32, #jfa.wgmma_acc>
  }
  %done = jfa.async_dot_wait pending(0) (%acc) : tensor<128x256xf32, #jfa.wgmma_acc>
  %any = arith.cmpi ugt, %k_tiles, %c0 : i32
  %release = arith.andi %release_last, %any : i1
  scf.if %release {
    %last0 = arith.addi %step0, %k_tiles : i32
    %last = arith.subi %last0, %c1 : i32
    jfa.call @gemm_release(%last, %empty, %multicast, %peer) : (i32, !jfa.mbarriers<3>, i1, i32) -> ()
  }
  jfa.return %done : tensor<128x256xf32, #jfa.wgmma_acc>
}

// Ring step %step's stage goes back to its producer(s).
jfa.func @gemm_release(%step: i32, %empty: !jfa.mbarriers<3>, %multicast: i1, %peer: i32)
    attributes {stage_parameter = 3} {
  %s, %phase = jfa.ring_position %step stages(3) : i32
  %empty_s = jfa.barrier %empty[%s] : !jfa.mbarriers<3>, i32
  jfa.barrier_arrive %empty_s
  scf.if %multicast {
    // The stage was only read (by the tensor cores, done at the wgmma
    // wait): a CTA-scope release, without the cluster-scope fence that made
    // the consumers stall on memory barriers (bench/NOTES.md, run 78).
    jfa.barrier_arrive %empty_s on cta %peer release(cta)
  }
  jfa.return
}

// The epilogue: bf16 in registers, staged in %c_tile, stored with TMA at
// (%row0, %col0), which clips the edges. The staging tile is four 64-column
// blocks in the 128-byte swizzle, stored as four 128x64 boxes: with rows of
// 512 bytes unswizzled, the 8 rows a warp writes at once fell on the same
// four banks (8-way conflicts on every store). With %reused, an earlier
// tile's store may still be reading %c_tile: it is waited for first.
jfa.func @gemm_store(%acc: tensor<128x256xf32, #jfa.wgmma_acc>, %row0: i32, %col0: i32,
                     %c_tile: !jfa.smem<1 x 128x256xbf16, swizzle 128>,
                     %c: !jfa.tma<128x64xbf16, swizzle 128>, %reused: i1) {
  %c0 = arith.constant 0 : i32
  %out = arith.truncf %acc : tensor<128x256xf32, #jfa.wgmma_acc> to tensor<128x256xbf16, #jfa.wgmma_acc>
  scf.if %reused {
    jfa.tma_store_wait pending(0)
    jfa.task_barrier
  }
  %c_s = jfa.slot %c_tile[%c0] : !jfa.smem<1 x 128x256xbf16, swizzle 128>, i32
  jfa.local_store %out, %c_s : tensor<128x256xbf16, #jfa.wgmma_acc> -> !jfa.slot<128x256xbf16, swizzle 128>
  jfa.fence_async_shared
  jfa.task_barrier
  jfa.call @gemm_store_blocks(%c_s, %row0, %col0, %c)
      : (!jfa.slot<128x256xbf16, swizzle 128>, i32, i32, !jfa.tma<128x64xbf16, swizzle 128>) -> ()
  jfa.return
}

// A staged 128x256 tile's four 64-column blocks to C at (%row0, %col0).
jfa.func @gemm_store_blocks(%c_s: !jfa.slot<128x256xbf16, swizzle 128>, %row0: i32,
                            %col0: i32, %c: !jfa.tma<128x64xbf16, swizzle 128>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %c64 = arith.constant 64 : i32
  scf.for %i = %c0 to %c4 step %c1 : i32 {
    %block = jfa.column_block %c_s[%i] : !jfa.slot<128x256xbf16, swizzle 128> -> !jfa.slot<128x64xbf16, swizzle 128>
    %dx = arith.muli %i, %c64 : i32
    %col = arith.addi %col0, %dx : i32
    jfa.tma_store %block, %c[%row0, %col] : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.tma<128x64xbf16, swizzle 128>
  }
  jfa.return
}

// @gemm_store of a bf16 tile through a 128x128 staging tile (32 KiB, two
// 64-column blocks in the 128-byte swizzle): the left half, its TMA stores'
// reads waited for, then the right half. A persistent kernel so keeps 32
// KiB for a 4th ring stage; its next tile's loads, and its first k-step's
// product, run on meanwhile (the caller converts to bf16 first: half the
// registers stay live beside that product).
jfa.func @gemm_store_halves(%out: tensor<128x256xbf16, #jfa.wgmma_acc>, %row0: i32,
                            %col0: i32, %c_tile: !jfa.smem<1 x 128x128xbf16, swizzle 128>,
                            %c: !jfa.tma<128x64xbf16, swizzle 128>, %reused: i1) {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %left = tensor.extract_slice %out[0, 0] [128, 128] [1, 1] : tensor<128x256xbf16, #jfa.wgmma_acc> to tensor<128x128xbf16, #jfa.wgmma_acc>
  %right = tensor.extract_slice %out[0, 128] [128, 128] [1, 1] : tensor<128x256xbf16, #jfa.wgmma_acc> to tensor<128x128xbf16, #jfa.wgmma_acc>
  %c_s = jfa.slot %c_tile[%c0] : !jfa.smem<1 x 128x128xbf16, swizzle 128>, i32
  %col1 = arith.addi %col0, %c128 : i32
  scf.if %reused {
    jfa.tma_store_wait pending(0)
    jfa.task_barrier
  }
  jfa.call @gemm_store_half(%left, %c_s, %row0, %col0, %c)
      : (tensor<128x128xbf16, #jfa.wgmma_acc>, !jfa.slot<128x128xbf16, swizzle 128>, i32, i32,
         !jfa.tma<128x64xbf16, swizzle 128>) -> ()
  jfa.tma_store_wait pending(0)
  jfa.task_barrier
  jfa.call @gemm_store_half(%right, %c_s, %row0, %col1, %c)
      : (tensor<128x128xbf16, #jfa.wgmma_acc>, !jfa.slot<128x128xbf16, swizzle 128>, i32, i32,
         !jfa.tma<128x64xbf16, swizzle 128>) -> ()
  jfa.return
}

// One 128x128 half of C: staged in %c_s, then its two 64-column blocks to C
// at (%row0, %col0).
jfa.func @gemm_store_half(%half: tensor<128x128xbf16, #jfa.wgmma_acc>,
                          %c_s: !jfa.slot<128x128xbf16, swizzle 128>, %row0: i32,
                          %col0: i32, %c: !jfa.tma<128x64xbf16, swizzle 128>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  jfa.local_store %half, %c_s : tensor<128x128xbf16, #jfa.wgmma_acc> -> !jfa.slot<128x128xbf16, swizzle 128>
  jfa.fence_async_shared
  jfa.task_barrier
  %b0 = jfa.column_block %c_s[%c0] : !jfa.slot<128x128xbf16, swizzle 128> -> !jfa.slot<128x64xbf16, swizzle 128>
  %b1 = jfa.column_block %c_s[%c1] : !jfa.slot<128x128xbf16, swizzle 128> -> !jfa.slot<128x64xbf16, swizzle 128>
  %col1 = arith.addi %col0, %c64 : i32
  jfa.tma_store %b0, %c[%row0, %col0] : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.tma<128x64xbf16, swizzle 128>
  jfa.tma_store %b1, %c[%row0, %col1] : !jfa.slot<128x64xbf16, swizzle 128>, !jfa.tma<128x64xbf16, swizzle 128>
  jfa.return
}

// One tile: @gemm_mainloop over the ring from step 0, then @gemm_store.
jfa.func @gemm_consumer(%k_tiles: i32, %row0: i32, %col0: i32,
                        %a_ring: !jfa.smem<3 x 128x64xbf16, swizzle 128>,
                        %b_ring: !jfa.smem<3 x 256x64xbf16, swizzle 128>,
                        %c_tile: !jfa.smem<1 x 128x256xbf16, swizzle 128>,
                        %full: !jfa.mbarriers<3>, %empty: !jfa.mbarriers<3>,
                        %c: !jfa.tma<128x64xbf16, swizzle 128>,
                        %multicast: i1, %peer: i32) {
  %c0 = arith.constant 0 : i32
  %no = arith.constant false
  %acc = jfa.call @gemm_mainloop(%k_tiles, %c0, %a_ring, %b_ring, %full, %empty, %multicast, %peer, %no)
      : (i32, i32, !jfa.smem<3 x 128x64xbf16, swizzle 128>, !jfa.smem<3 x 256x64xbf16, swizzle 128>,
         !jfa.mbarriers<3>, !jfa.mbarriers<3>, i1, i32, i1) -> tensor<128x256xf32, #jfa.wgmma_acc>
  jfa.call @gemm_store(%acc, %row0, %col0, %c_tile, %c, %no)
      : (tensor<128x256xf32, #jfa.wgmma_acc>, i32, i32, !jfa.smem<1 x 128x256xbf16, swizzle 128>,
         !jfa.tma<128x64xbf16, swizzle 128>, i1) -> ()
  jfa.return
}
