#!/usr/bin/env python3
"""Top SASS lines by stall samples from ncu's source view, and the samples
by opcode (bench/NOTES.md run 67):

    ncu --section SourceCounters -k regex:NAME -c 1 -o /tmp/r python3 ...
    ncu -i /tmp/r.ncu-rep --page source --csv --print-source sass > /tmp/r.csv
    python3 bench/ncu_top_stalls.py /tmp/r.csv [N [C]]

With C, the C SASS lines before each of the 8 top lines are printed too
(which barrier a spinning branch waits on: its SYNCS.PHASECHK's address).
"""
import csv, sys
rows = list(csv.reader(open(sys.argv[1], errors="replace")))
# Find the header row (has 'Source' and a stall-sampling column).
hi = next(i for i, r in enumerate(rows) if any("Source" == c.strip() for c in r))
head = rows[hi]
print("columns:", head[:40])
def col(name_part):
    for i, c in enumerate(head):
        if name_part in c:
            return i
    return None
src = head.index("Source") if "Source" in head else col("Source")
stall = col("Warp Stall Sampling (All")
notiss = col("Warp Stall Sampling (Not")
addr = col("Address")
data = []
for r in rows[hi + 1:]:
    if len(r) <= max(src, stall):
        continue
    try:
        v = float(r[stall].replace(",", "") or 0)
    except ValueError:
        continue
    data.append((v, r))
total = sum(v for v, _ in data)
print(f"total stall samples {total:.0f} over {len(data)} SASS lines")
ranked = sorted(data, key=lambda x: -x[0])
for v, r in ranked[:int(sys.argv[2]) if len(sys.argv) > 2 else 45]:
    print(f"{v:8.0f} {100*v/total:5.1f}%  {r[addr] if addr is not None else ''}  {r[src].strip()}")
# The lines before the top ones (address order).
context = int(sys.argv[3]) if len(sys.argv) > 3 else 0
if context:
    order = [r for _, r in data]
    index = {id(r): i for i, r in enumerate(order)}
    for v, r in ranked[:8]:
        i = index[id(r)]
        print(f"--- before {r[addr] if addr is not None else ''} ({v:.0f} samples):")
        for q in order[max(0, i - context):i + 1]:
            print(f"      {q[addr] if addr is not None else ''}  {q[src].strip()}")
# Samples by opcode class.
by = {}
for v, r in data:
    op = r[src].strip().split()
    op = [o for o in op if not o.startswith("@")]
    k = op[0].split(".")[0] if op else "?"
    by[k] = by.get(k, 0) + v
print("by opcode:", ", ".join(f"{k} {100*v/total:.1f}%" for k, v in sorted(by.items(), key=lambda x: -x[1])[:20]))
