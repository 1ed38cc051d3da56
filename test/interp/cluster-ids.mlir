// A grid of clusters: each CTA writes its program ids, its cluster rank and
// its cluster ids to out[linear program id][0..5]. Ranks run x fastest
// within the cluster; a cluster id is the program id divided by the
// cluster's extent. Clusters (2, 1, 1) over a grid of (4, 2), and (2, 2, 1)
// over (4, 4).
// RUN: %python %S/Inputs/make_npy.py %t.a.npy i4 8x6 -1
// RUN: jfa-interp %s --arch sm_90a --kernel pairs --grid 4,2 %t.a.npy
// RUN: %python %S/Inputs/check_cluster_ids.py %t.a.npy 4,2 2,1 | FileCheck %s --check-prefix=PAIRS
// PAIRS: cluster ids ok: 8 CTAs, ranks 0 1 0 1 0 1 0 1
// RUN: %python %S/Inputs/make_npy.py %t.b.npy i4 16x6 -1
// RUN: jfa-interp %s --arch sm_100a --kernel quads --grid 4,4 %t.b.npy
// RUN: %python %S/Inputs/check_cluster_ids.py %t.b.npy 4,4 2,2 | FileCheck %s --check-prefix=QUADS
// QUADS: cluster ids ok: 16 CTAs, ranks 0 1 0 1 2 3 2 3 0 1 0 1 2 3 2 3
//
// A grid that is not a whole number of clusters fails to launch.
// RUN: not jfa-interp %s --arch sm_90a --kernel quads --grid 4,3 %t.b.npy 2>&1 | FileCheck %s --check-prefix=GRID
// GRID: error: jfa-interp: the grid (4, 3, 1) is not a whole number of the kernel's clusters (2, 2, 1): each grid dimension must be a multiple of the cluster's

jfa.kernel @pairs(%out: !jfa.ptr<i32>) warps(4) cluster(2, 1, 1) {
  %c6 = arith.constant 6 : i32
  %px = jfa.program_id x
  %py = jfa.program_id y
  %nx = jfa.num_programs x
  %row = arith.muli %py, %nx : i32
  %linear = arith.addi %row, %px : i32
  %base = arith.muli %linear, %c6 : i32
  %rank = jfa.cluster_rank
  %cx = jfa.cluster_id x
  %cy = jfa.cluster_id y
  %cz = jfa.cluster_id z
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c4 = arith.constant 4 : i32
  %c5 = arith.constant 5 : i32
  %i1 = arith.addi %base, %c1 : i32
  %i2 = arith.addi %base, %c2 : i32
  %i3 = arith.addi %base, %c3 : i32
  %i4 = arith.addi %base, %c4 : i32
  %i5 = arith.addi %base, %c5 : i32
  jfa.store %px, %out[%base] : i32, !jfa.ptr<i32>
  jfa.store %py, %out[%i1] : i32, !jfa.ptr<i32>
  jfa.store %rank, %out[%i2] : i32, !jfa.ptr<i32>
  jfa.store %cx, %out[%i3] : i32, !jfa.ptr<i32>
  jfa.store %cy, %out[%i4] : i32, !jfa.ptr<i32>
  jfa.store %cz, %out[%i5] : i32, !jfa.ptr<i32>
}

jfa.kernel @quads(%out: !jfa.ptr<i32>) warps(4) cluster(2, 2, 1) {
  %c6 = arith.constant 6 : i32
  %px = jfa.program_id x
  %py = jfa.program_id y
  %nx = jfa.num_programs x
  %row = arith.muli %py, %nx : i32
  %linear = arith.addi %row, %px : i32
  %base = arith.muli %linear, %c6 : i32
  %rank = jfa.cluster_rank
  %cx = jfa.cluster_id x
  %cy = jfa.cluster_id y
  %cz = jfa.cluster_id z
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c4 = arith.constant 4 : i32
  %c5 = arith.constant 5 : i32
  %i1 = arith.addi %base, %c1 : i32
  %i2 = arith.addi %base, %c2 : i32
  %i3 = arith.addi %base, %c3 : i32
  %i4 = arith.addi %base, %c4 : i32
  %i5 = arith.addi %base, %c5 : i32
  jfa.store %px, %out[%base] : i32, !jfa.ptr<i32>
  jfa.store %py, %out[%i1] : i32, !jfa.ptr<i32>
  jfa.store %rank, %out[%i2] : i32, !jfa.ptr<i32>
  jfa.store %cx, %out[%i3] : i32, !jfa.ptr<i32>
  jfa.store %cy, %out[%i4] : i32, !jfa.ptr<i32>
  jfa.store %cz, %out[%i5] : i32, !jfa.ptr<i32>
}
