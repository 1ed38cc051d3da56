// The sum of P partial 64x64 f32 tiles, rounded to bf16, in one launch:
//
//   acc += x[p] for every p;  out = bf16(acc)
//   x: [P * 64, 64] f32, acc: [64, 64] f32 (zeroed), out: [64, 64] bf16,
//   counter: one i32 (zeroed)
//
// One CTA per partial tile. Each adds its tile into the workspace with TMA's
// reduce-add, and the last CTA to finish, by the counter's old value, reads
// the workspace back and writes the rounded sum: a split reduction whose
// last contributor finishes it, without a second launch (what the attention
// backward's dQ conversion would take: bench/NOTES.md, issue 17's plan).
//
// The handover between CTAs, each step for a reason:
// - the adder waits for its reduce-add to have written global memory
//   (`tma_store_wait ... writes`; the plain form only frees the slot);
// - orders those writes, made through the async proxy, before its own
//   later accesses (`fence_async_global`), and releases them at GPU scope
//   (`fence_gpu`) before it adds to the counter;
// - the CTA that gets P - 1 back acquires (`fence_gpu`) and, since it reads
//   the sums with TMA, orders the async proxy after that
//   (`fence_async_global`) before the load.
// One thread issues the copies and the atomic (the task's first), so the
// thread that waited for the writes is the one that releases them, and the
// one that acquires reads the sums (by TMA); the others learn the counter's
// value through the `counted` barrier and read only shared memory, after
// `summed`. Threads that read the sums with their own loads would need a
// `jfa.task_barrier` after the issuing thread's acquire.
jfa.kernel @sum_partials(%x: !jfa.tma<64x64xf32>, %acc: !jfa.tma<64x64xf32>,
                         %counter: !jfa.ptr<i32>, %out: !jfa.ptr<bf16>) warps(4) {
  %tile = jfa.local_alloc : !jfa.smem<1 x 64x64xf32>
  %seen = jfa.local_alloc : !jfa.smem<1 x 1xi32>
  %loaded = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %counted = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %summed = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>

  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %pid = jfa.program_id x
  %ctas = jfa.num_programs x
  %slot = jfa.slot %tile[%c0] : !jfa.smem<1 x 64x64xf32>, i32
  %seen_slot = jfa.slot %seen[%c0] : !jfa.smem<1 x 1xi32>, i32
  %load_bar = jfa.barrier %loaded[%c0] : !jfa.mbarriers<1>, i32
  %count_bar = jfa.barrier %counted[%c0] : !jfa.mbarriers<1>, i32
  %sum_bar = jfa.barrier %summed[%c0] : !jfa.mbarriers<1>, i32

  // This CTA's partial tile, added into the workspace (TMA reads the slot
  // TMA wrote: no thread touches it, no shared-memory fence).
  %row = arith.muli %pid, %c64 : i32
  jfa.barrier_expect %load_bar, bytes(16384)
  jfa.tma_load %x[%row, %c0], %slot, %load_bar : !jfa.tma<64x64xf32>, !jfa.slot<64x64xf32>
  jfa.barrier_wait %load_bar, %c0
  jfa.tma_store %slot, %acc[%c0, %c0] add : !jfa.slot<64x64xf32>, !jfa.tma<64x64xf32>
  jfa.tma_store_wait pending(0) writes
  jfa.fence_async_global
  jfa.fence_gpu
  jfa.atomic_fetch_add %counter[%c0], %c1 into %seen_slot arrive %count_bar
      : !jfa.ptr<i32>, !jfa.slot<1xi32>
  jfa.barrier_wait %count_bar, %c0
  %before = jfa.load_scalar %seen_slot[%c0] : !jfa.slot<1xi32> -> i32

  // The last to add: every other CTA's sum has landed.
  %last_before = arith.subi %ctas, %c1 : i32
  %last = arith.cmpi eq, %before, %last_before : i32
  scf.if %last {
    jfa.fence_gpu
    jfa.fence_async_global
    jfa.barrier_expect %sum_bar, bytes(16384)
    jfa.tma_load %acc[%c0, %c0], %slot, %sum_bar : !jfa.tma<64x64xf32>, !jfa.slot<64x64xf32>
    jfa.barrier_wait %sum_bar, %c0
    %sum = jfa.local_load %slot : !jfa.slot<64x64xf32> -> tensor<64x64xf32>
    %rounded = arith.truncf %sum : tensor<64x64xf32> to tensor<64x64xbf16>
    jfa.store_tile %rounded, %out[%c0] stride(%c64) rows(%c64)
        : tensor<64x64xbf16>, !jfa.ptr<bf16>
  }
}
