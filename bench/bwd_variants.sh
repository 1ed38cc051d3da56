#!/usr/bin/env bash
# On the GPU machine: backward kernel variants side by side (same process
# order, same shapes), their ncu counters on issue 17's profile point, their
# SASS spill instructions, and the quick correctness matrix.
#   bench/bwd_variants.sh VARIANT...   (each a folder dist/var/VARIANT of cubins)
# SHAPES (comma list, "all" for every shape), ROUNDS (the variants timed in
# turn this many times, default 1), NO_NCU and NO_TEST skip those steps.
# Logs go to $OUT/bwd_variants.tgz (or /tmp/bwd_variants).
set -u
export PYTHONPATH=${PYTHONPATH:-dist/jfa/python} PYTHONUNBUFFERED=1
logs=/tmp/bwd_variants; rm -rf $logs; mkdir -p $logs
shapes=${SHAPES:-unif4k-d128-full,unif4k-d64-full,eq4k-d128-causal,unif1k-d128-causal}
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
for v in "$@"; do
  # One cubin per compiled (head_dim, causal) variant.
  for c in dist/var/$v/attention_bwd_sm90_sm_90a*.cubin; do
    tag=$v$(basename "$c" .cubin | sed 's/^attention_bwd_sm90_sm_90a//')
    cuobjdump -sass "$c" > "$logs/sass_$tag.txt"
    echo "$tag SASS: STL $(grep -c 'STL' "$logs/sass_$tag.txt") LDL $(grep -c 'LDL' "$logs/sass_$tag.txt") STS $(grep -c 'STS' "$logs/sass_$tag.txt")"
  done
done
shape_args=(--shapes "$shapes")
[[ $shapes == all ]] && shape_args=()
for round in $(seq 1 "${ROUNDS:-1}"); do
  for v in "$@"; do
    echo "== bench $v (round $round)"
    JFA_KERNEL_DIR=dist/var/$v timeout 240 python3 bench/attention_bench.py --backward --only-ours \
      --no-check "${shape_args[@]}" > $logs/bench_${v}_$round.log 2>&1
    echo "rc=$?"; grep -E "^\|" $logs/bench_${v}_$round.log | tail -n +3
  done
done
m=l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum,l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum,gpu__time_duration.sum,smsp__inst_executed.sum
if [[ -z ${NO_NCU:-} ]]; then
  for v in "$@"; do
    JFA_KERNEL_DIR=dist/var/$v timeout 120 ncu --clock-control none --metrics $m \
      -k regex:attention_bwd_sm90 -c 1 --launch-skip 1 python3 bench/bwd_profile.py > $logs/ncu_$v.log 2>&1
    echo "== ncu $v rc=$?"; grep -E "bank|local|duration|inst_exec" $logs/ncu_$v.log
  done
fi
if [[ -z ${NO_TEST:-} ]]; then
  for v in "$@"; do
    JFA_KERNEL_DIR=dist/var/$v timeout 240 python3 test/gpu/attention_bwd_test.py --quick > $logs/test_$v.log 2>&1
    echo "== test $v rc=$?"; tail -2 $logs/test_$v.log
  done
fi
[[ -n ${OUT:-} ]] && tar czf $OUT/bwd_variants.tgz -C $logs .
