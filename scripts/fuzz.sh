#!/usr/bin/env bash
# Runs the libFuzzer targets (issue 24; docs/FUZZING.md), bounded:
#
#   scripts/fuzz.sh                     # 120 s per target (the bounded run)
#   FUZZ_SECONDS=3600 JOBS=2 scripts/fuzz.sh   # a long run
#
# Builds them first (scripts/sanitize-build.sh's build, $BUILD_DIR, default
# build-asan). Seeds: every kernel in kernels/ and every .mlir in test/
# (split at `// -----`) for the front end; a few .npy files and scalar
# texts for jfa-interp's argument loading. The corpus grows in
# $FUZZ_DIR (default build-asan/fuzz); a crash is written there as
# crash-<hash>: add it to a lit test (see docs/FUZZING.md) once fixed.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build-asan}
seconds=${FUZZ_SECONDS:-120}
dir=${FUZZ_DIR:-$build/fuzz}
mkdir -p "$build"
SANITIZE_BUILD_ONLY=1 BUILD_DIR=$build ./scripts/sanitize-build.sh > "$build/fuzz-build.log" 2>&1 \
  || { tail -20 "$build/fuzz-build.log"; exit 1; }

mkdir -p "$dir/seed-frontend" "$dir/seed-interp" "$dir/corpus-frontend" \
  "$dir/corpus-interp" "$dir/artifacts"
/usr/bin/python3 - "$dir" <<'PY'
import glob, hashlib, os, re, struct, sys
out = sys.argv[1]
n = 0
def expand_imports(path, text, seen):
    # The fuzzer parses a seed as "fuzz.mlir", with no folder for a
    # relative jfa.import to be found in: the imported helpers are pasted in
    # (each file once), so the kernel behind them is fuzzed, not the error.
    def paste(m):
        target = os.path.normpath(os.path.join(os.path.dirname(path), m.group(1)))
        if not os.path.isfile(target):
            return m.group(0)
        if target in seen:
            return ""
        seen.add(target)
        return expand_imports(target, open(target, encoding="utf-8").read(), seen)
    return re.sub(r'^jfa\.import "([^"]*)"[ \t]*$', paste, text, flags=re.M)
for path in sorted(glob.glob("kernels/**/*.mlir", recursive=True) +
                   glob.glob("test/**/*.mlir", recursive=True)):
    text = open(path, encoding="utf-8", errors="replace").read()
    text = expand_imports(path, text, {os.path.normpath(path)})
    for chunk in text.split("\n// -----\n"):
        if "jfa." not in chunk or len(chunk) > 60000:
            continue
        name = hashlib.sha1(chunk.encode()).hexdigest()[:16]
        open(os.path.join(out, "seed-frontend", name), "w").write(chunk)
        n += 1
def npy(descr, shape, data, order="False"):
    h = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, order, shape)
    h += " " * ((64 - (10 + len(h) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode() + data
seeds = [npy("<f4", "(8, 8)", b"\0" * 256), npy("<f4", "(16, 8)", b"\1" * 512),
         npy("<i4", "(8, 8)", b"\0" * 256), npy("|u1", "(64,)", b"\0" * 64),
         npy("<f4", "(8, 8)", b"\0" * 256, "True"), npy("<f8", "(4, 8)", b"\0" * 256)]
scalars = [b"7\x000.5\x00-3", b"2147483647\x00inf\x009007199254740992",
           b"-2147483648\x001e-40\x00-1", b"010\x00nan\x000"]
for i, s in enumerate(seeds):
    for j, sc in enumerate(scalars):
        open(os.path.join(out, "seed-interp", f"{i}-{j}"), "wb").write(s + b"\0JFA\0" + sc)
print(f"fuzz: {n} front-end seeds, {len(seeds) * len(scalars)} argument seeds")
PY
# allow_user_poisoning=0: see scripts/sanitize-build.sh (uninstrumented
# libMLIR and the inlined BumpPtrAllocator disagree about poisoned slabs).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:allow_user_poisoning=0}
rc=0
for t in frontend interp; do
  bin=$build/bin/jfa-fuzz-$t; [[ $t == interp ]] && bin=$build/bin/jfa-fuzz-interp-args
  echo "== $t: $seconds s"
  parallel=()
  if (( ${JOBS:-1} > 1 )); then parallel=(-fork="$JOBS"); fi
  "$bin" "$dir/corpus-$t" "$dir/seed-$t" -max_total_time="$seconds" -timeout=30 \
    -rss_limit_mb=4096 -max_len=65536 "${parallel[@]}" \
    -artifact_prefix="$dir/artifacts/" -print_final_stats=1 \
    > "$dir/$t.log" 2>&1 || rc=1
  grep -E "^#[0-9]+.*(DONE|pulse|INITED)|stat::number_of_executed_units|stat::new_units_added|ERROR|SUMMARY" \
    "$dir/$t.log" | tail -6 || true
done
ls "$dir/artifacts"
exit $rc
