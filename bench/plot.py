#!/usr/bin/env python3
"""Draws bench/results.jsonl as an SVG: for each kernel (forward, backward),
one group of bars per shape, ours beside each peer measured in the same run,
in TFLOP/s, with ours / best peer written at the end of the group.

    python3 bench/plot.py [--results bench/results.jsonl] [--out bench/results.svg]
                          [--tag TAG]

Each shape shows its latest row in the file (or the latest with --tag).
Needs only the standard library (the SVG is written by hand), so it runs on
the build machine as well as the GPU machine.
"""
import argparse
import json
import sys
from xml.sax.saxutils import escape

KERNELS = (("attention_fwd", "forward"), ("attention_bwd", "backward"))
PEERS = ("varlen", "sdpa-cudnn", "sdpa-flash", "flex")
COLORS = {"ours": "#d62728", "varlen": "#1f77b4", "sdpa-cudnn": "#2ca02c",
          "sdpa-flash": "#9467bd", "flex": "#ff7f0e"}
BAR, GAP, LABEL_W, PLOT_W, TITLE_H = 9, 10, 150, 520, 28


def latest_rows(lines, tag=None):
    """{kernel: {shape: row}}: the last row of each (kernel, shape) of the
    attention kernels, in file order (rows of other tags skipped when tag is
    given, rows of other benches always)."""
    latest = {}
    for n, line in enumerate(lines, 1):
        line = line.strip()
        if not line:
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            raise ValueError(f"results line {n}: not JSON ({e.msg})") from None
        if not isinstance(row, dict):
            raise ValueError(f"results line {n}: not a JSON object")
        if row.get("kernel") not in dict(KERNELS):
            continue  # another bench's row (bench/train_step.py's, older tables)
        if not isinstance(row.get("shape"), str) or \
                not isinstance(row.get("tflops"), (int, float)):
            raise ValueError(f"results line {n}: an {row['kernel']} row needs "
                             f"'shape' and 'tflops'")
        if tag is not None and row.get("tag") != tag:
            continue
        latest.setdefault(row.get("kernel", ""), {})[row["shape"]] = row
    return latest


def svg(latest):
    """The SVG text for the rows latest_rows gave."""
    sections = [(title, latest[k]) for k, title in KERNELS if latest.get(k)]
    if not sections:
        raise ValueError("no attention_fwd or attention_bwd rows to draw")
    top = max((r["tflops"] for _, rows in sections for r in rows.values()), default=1.0)
    for _, rows in sections:
        for r in rows.values():
            top = max([top] + [v for v in (r.get("peers_tflops") or {}).values()
                               if isinstance(v, (int, float))])
    scale = PLOT_W / top
    out, y = [], 0
    for title, rows in sections:
        out.append(f'<text x="4" y="{y + 18}" font-size="14" font-weight="bold">'
                   f'{escape(title)} (TFLOP/s, peers in the same run)</text>')
        y += TITLE_H
        for shape, row in rows.items():
            bars = [("ours", row["tflops"])]
            peers = row.get("peers_tflops") or {}
            bars += [(p, peers[p]) for p in PEERS if isinstance(peers.get(p), (int, float))]
            group_h = len(bars) * BAR
            out.append(f'<text x="{LABEL_W - 6}" y="{y + group_h / 2 + 4}" font-size="11" '
                       f'text-anchor="end">{escape(shape)}</text>')
            for i, (name, value) in enumerate(bars):
                w = max(1.0, value * scale)
                out.append(f'<rect x="{LABEL_W}" y="{y + i * BAR}" width="{w:.1f}" '
                           f'height="{BAR - 1}" fill="{COLORS[name]}">'
                           f'<title>{escape(name)}: {value:.1f}</title></rect>')
            ratio = row.get("ours_over_best_peer")
            if isinstance(ratio, (int, float)):
                out.append(f'<text x="{LABEL_W + row["tflops"] * scale + 4:.1f}" y="{y + BAR - 1}" '
                           f'font-size="10">{ratio:.2f}x</text>')
            y += group_h + GAP
        y += GAP
    legend_y = y
    for i, name in enumerate(("ours",) + PEERS):
        x = LABEL_W + i * 105
        out.append(f'<rect x="{x}" y="{legend_y}" width="10" height="10" fill="{COLORS[name]}"/>'
                   f'<text x="{x + 14}" y="{legend_y + 9}" font-size="11">{escape(name)}</text>')
    height = legend_y + 20
    width = LABEL_W + PLOT_W + 60
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'font-family="sans-serif">\n<rect width="100%" height="100%" fill="white"/>\n'
            + "\n".join(out) + "\n</svg>\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default="bench/results.jsonl")
    ap.add_argument("--out", default="bench/results.svg")
    ap.add_argument("--tag", default=None, help="only rows of this tag")
    args = ap.parse_args(argv)
    try:
        with open(args.results) as f:
            text = svg(latest_rows(f, args.tag))
    except (OSError, ValueError) as e:
        print(f"plot.py: {args.results}: {e}", file=sys.stderr)
        return 1
    with open(args.out, "w") as f:
        f.write(text)
    print(f"plot.py: wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
