# Sourced by the bench/logs call and variant scripts.

# job LIMIT NAME CMD...: runs CMD under LIMIT seconds, or less where less of
# BUDGET (seconds since START) is left; prints its last TAILN lines
# (warnings dropped) between "#### NAME" markers with its exit status.
START=${START:-$(date +%s)}
BUDGET=${BUDGET:-560}
job() { local t=$1 name=$2; shift 2
  local left=$((BUDGET - ($(date +%s) - START)))
  if (( left < 20 )); then echo "#### $name SKIPPED (budget)"; return; fi
  (( t > left )) && t=$left
  echo "#### $name (limit ${t}s, at $(( $(date +%s) - START ))s)"
  timeout "$t" "$@" 2>&1 | grep -v -i "warning" | tail -n ${TAILN:-40}
  echo "#### $name rc=${PIPESTATUS[0]}"; }

# compile_plain SOURCE OUTDIR: the sm_90a backward SOURCE's plain variants
# (general 0) at D = 128 and 64, causal and full, into OUTDIR under the
# names the runtime looks up. Needs build/bin/jfac.
compile_plain() { local src=$1 out=$2 d c
  mkdir -p "$out"
  for d in 128 64; do for c in 1 0; do
    build/bin/jfac compile "$src" -I kernels/jagged_attention --arch sm_90a \
      -P head_dim=$d -P causal=$c -P general=0 --quiet \
      -o "$out/attention_bwd_sm90_sm_90a.head_dim=$d.causal=$c.general=0.cubin"
  done; done; }

# call_start: a call script's start on the GPU machine: its output also to
# $OUT/log.txt, the GPU named, Python unbuffered (so the log keeps up).
call_start() {
  set -u
  exec > >(tee -a "$OUT/log.txt") 2>&1
  nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
  export PYTHONUNBUFFERED=1
}
