#!/usr/bin/env bash
# Run 100 (bench/NOTES.md), not run yet: what the backward's per-step dQ
# add costs (nowait / noadd, timing only), dQ added from registers (red):
# its gradients and its time against main's, and ncu's stall samples per
# line on eq4k. Before: scripts/build-package.sh dist/head (main) and
# bench/logs/run100-variants.sh; then run with carry dist/head, dist/var
# and this script's folder (bench/ is tracked, so it travels).
source bench/logs/lib.sh
call_start
f=attention_bwd_sm90_sm_90a.head_dim=128.causal=1.general=0.cubin
for v in head nowait noadd red; do d=dist/var/$v; [[ $v == head ]] && d=dist/head/kernels
  echo "SASS $v: HGMMA $(cuobjdump -sass $d/$f | grep -c HGMMA) bulk-waits $(cuobjdump -sass $d/$f | grep -c 'SYNCS.ARRIVES\|UTMACMDFLUSH\|DEPBAR')"; done
cuobjdump -sass dist/var/red/$f > $OUT/red128.sass; cuobjdump -sass dist/head/kernels/$f > $OUT/head128.sass
H=$PWD/dist/head/python
for v in nowait noadd red; do rm -rf /tmp/v_$v; cp -r dist/head/kernels /tmp/v_$v; cp dist/var/$v/* /tmp/v_$v/; done
SH=unif1k-d128-causal,eq1k-d128-causal,eq4k-d128-causal,unif1k-d64-causal
TAILN=14 job 110 "bwd test red plain quick" env PYTHONPATH=$H JFA_KERNEL_DIR=/tmp/v_red python3 test/gpu/attention_bwd_test.py --plain --quick
for v in base red nowait noadd base red; do
  d=/tmp/v_$v; [[ $v == base ]] && d=$PWD/dist/head/kernels
  TAILN=6 job 40 "bwd $v" env PYTHONPATH=$H JFA_KERNEL_DIR=$d python3 bench/attention_bench.py --backward --only-ours --no-check --shapes $SH
done
job 150 "ncu eq4k" env PYTHONPATH=$H ncu --section SourceCounters --section WarpStateStats -k regex:attention_bwd_sm90 --launch-skip 1 -c 1 -o /tmp/r python3 bench/bwd_profile.py --shape eq4k
TAILN=300 job 60 "ncu csv" bash -c "ncu -i /tmp/r.ncu-rep --page source --csv --print-source sass > /tmp/r.csv; gzip -c /tmp/r.csv > $OUT/r_eq4k.csv.gz; python3 bench/ncu_top_stalls.py /tmp/r.csv 40 8"
TAILN=80 job 30 "ncu details" ncu -i /tmp/r.ncu-rep --page details
