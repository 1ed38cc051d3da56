#!/usr/bin/env bash
# Run 101 (bench/NOTES.md, session 31), not run yet: the GDPA gradient in
# the sigmoid form (b096df8) against the tanh form (dist/var/gelu_old) on
# the gelu_tanh backward; its gradients through the GPU matrix; and the
# sanitizer runs of the backward still owed (session 29's skipped steps).
# Before: scripts/build-package.sh dist/head (main) and
# bench/logs/run101-variants.sh; run with carry dist/head and dist/var.
source bench/logs/lib.sh
call_start
H=$PWD/dist/head/python
rm -rf /tmp/v_old && cp -r dist/head/kernels /tmp/v_old && cp dist/var/gelu_old/* /tmp/v_old/
TAILN=20 job 150 "bwd test variants (gdpa) head" env PYTHONPATH=$H python3 test/gpu/attention_bwd_test.py --variants --quick --only gelu
for v in head old head old; do
  d=$PWD/dist/head/kernels; [[ $v == old ]] && d=/tmp/v_old
  TAILN=12 job 60 "gelu bwd $v" env PYTHONPATH=$H JFA_KERNEL_DIR=$d python3 bench/attention_bench.py --variants --backward --only-ours --no-check --shapes gdpa-gelu
done
TAILN=20 job 150 "memcheck bwd" env PYTHONPATH=$H compute-sanitizer --tool memcheck python3 test/gpu/attention_bwd_test.py --sanitize --plain
TAILN=20 job 150 "racecheck bwd" env PYTHONPATH=$H compute-sanitizer --tool racecheck python3 test/gpu/attention_bwd_test.py --sanitize --plain
