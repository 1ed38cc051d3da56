set -u
LOG=$OUT/log.txt
exec > >(tee -a "$LOG") 2>&1
export PYTHONUNBUFFERED=1
H=$PWD/dist/head/python
for v in noadd; do rm -rf /tmp/v_$v; cp -r dist/head/kernels /tmp/v_$v; cp dist/var/$v/* /tmp/v_$v/; done
SH=unif1k-d128-full,unif4k-d128-full,eq4k-d128-full,unif4k-d64-full,eq4k-d128-causal
for v in base noadd base noadd; do d=/tmp/v_$v; [[ $v == base ]] && d=$PWD/dist/head/kernels
  echo "#### bwd $v"; env PYTHONPATH=$H JFA_KERNEL_DIR=$d timeout 60 python3 bench/attention_bench.py --backward --only-ours --no-check --shapes $SH 2>&1 | grep "^|" | tail -6; done
M=lts__t_sectors_op_red.sum,lts__t_requests_op_red.sum,lts__t_sectors.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_tex_op_red.sum,lts__average_t_sector_red_hit_rate.pct
for shp in eq4k eq4k-full; do for v in base noadd; do d=/tmp/v_$v; [[ $v == base ]] && d=$PWD/dist/head/kernels
  echo "#### ncu $shp $v"; env PYTHONPATH=$H JFA_KERNEL_DIR=$d timeout 90 ncu --metrics $M -k regex:attention_bwd_sm90 --launch-skip 1 -c 1 python3 bench/bwd_profile.py --shape $shp 2>&1 | grep -E "lts__|dram__|gpu__time|sm__pipe" ; done; done
echo "#### racecheck"
env PYTHONPATH=$H timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 python3 test/gpu/attention_bwd_test.py --sanitize --plain 2>&1 | grep -E "PASS|FAIL|SUMMARY|hazard|rror" | tail -8; echo "racecheck rc=${PIPESTATUS[0]}"
