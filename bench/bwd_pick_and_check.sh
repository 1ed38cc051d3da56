#!/usr/bin/env bash
# On the GPU machine: times backward variants (dist/var/<v>) on a few shapes,
# picks the fastest (sum of TFLOP/s), then runs for it the whole backward
# table with peers (bench/attention_bench.py --backward) and the whole GPU
# correctness matrix (test/gpu/attention_bwd_test.py).
#   bench/bwd_pick_and_check.sh VARIANT...
set -u
export PYTHONPATH=${PYTHONPATH:-dist/jfa/python} PYTHONUNBUFFERED=1
logs=/tmp/bwd_pick; rm -rf $logs; mkdir -p $logs
shapes=${SHAPES:-unif4k-d128-full,unif4k-d64-full,eq4k-d128-causal,unif1k-d128-causal}
best=; best_sum=0
for v in "$@"; do
  JFA_KERNEL_DIR=dist/var/$v timeout 150 python3 bench/attention_bench.py --backward --only-ours \
    --no-check --shapes "$shapes" > $logs/bench_$v.log 2>&1
  sum=$(grep -E "^\| [a-z]" $logs/bench_$v.log | awk -F'|' '{s += $6} END {print s + 0}')
  echo "== $v: sum of TFLOP/s $sum"; grep -E "^\| [a-z]" $logs/bench_$v.log | awk -F'|' '{print $2, $6}'
  if awk "BEGIN {exit !($sum > $best_sum)}"; then best=$v; best_sum=$sum; fi
done
echo "== picked $best"
JFA_KERNEL_DIR=dist/var/$best timeout 330 python3 bench/attention_bench.py --backward \
  > $logs/table_$best.log 2>&1
echo "table rc=$?"; grep -E "^\|" $logs/table_$best.log
JFA_KERNEL_DIR=dist/var/$best timeout 200 python3 test/gpu/attention_bwd_test.py > $logs/test_$best.log 2>&1
echo "test rc=$?"; grep -E "FAIL|PASS:|training" $logs/test_$best.log | tail -4
[[ -n ${OUT:-} ]] && tar czf $OUT/bwd_pick.tgz -C $logs .
