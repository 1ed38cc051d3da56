#!/usr/bin/env python3
"""bench/plot.py: the SVG it draws from results rows (no GPU, no torch)."""
import json
import os
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
import plot  # noqa: E402


def row(kernel, shape, tflops, tag="t1", **peers):
    return json.dumps({"kernel": kernel, "tag": tag, "shape": shape, "tflops": tflops,
                       "peers_tflops": peers, "ours_over_best_peer":
                       round(tflops / max(peers.values()), 3) if peers else None})


class PlotTest(unittest.TestCase):
    LINES = [
        row("attention_fwd", "eq4k", 500.0, varlen=300.0, **{"sdpa-cudnn": 520.0}),
        row("attention_bwd", "eq4k", 380.0, varlen=280.0),
        json.dumps({"bench": "train_step", "backend": "jfa", "ms_per_step": 90.0}),
        row("attention_bwd", "eq4k", 405.0, tag="t2", varlen=282.0),  # latest wins
        "",
    ]

    def test_latest_row_per_shape_and_other_benches_skipped(self):
        latest = plot.latest_rows(self.LINES)
        self.assertEqual(sorted(latest), ["attention_bwd", "attention_fwd"])
        self.assertEqual(latest["attention_bwd"]["eq4k"]["tflops"], 405.0)
        self.assertEqual(plot.latest_rows(self.LINES, tag="t1")["attention_bwd"]["eq4k"]
                         ["tflops"], 380.0)

    def test_svg_is_well_formed_with_a_bar_per_measurement(self):
        root = ET.fromstring(plot.svg(plot.latest_rows(self.LINES)))
        titles = [t.text for t in root.iter("{http://www.w3.org/2000/svg}title")]
        self.assertEqual(titles, ["ours: 500.0", "varlen: 300.0", "sdpa-cudnn: 520.0",
                                  "ours: 405.0", "varlen: 282.0"])
        texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
        self.assertIn("0.96x", texts)  # ours / best peer of the forward
        self.assertIn("1.44x", texts)

    def test_bad_input_is_a_located_error(self):
        with self.assertRaisesRegex(ValueError, "line 2: not JSON"):
            plot.latest_rows([self.LINES[0], "{oops"])
        with self.assertRaisesRegex(ValueError, "line 1: an attention_fwd row needs"):
            plot.latest_rows([json.dumps({"kernel": "attention_fwd", "shape": "x"})])
        with self.assertRaisesRegex(ValueError, "no attention_fwd or attention_bwd rows"):
            plot.svg({})

    def test_command_line(self):
        with tempfile.TemporaryDirectory() as d:
            results, out = os.path.join(d, "r.jsonl"), os.path.join(d, "r.svg")
            with open(results, "w") as f:
                f.write("\n".join(self.LINES))
            self.assertEqual(plot.main(["--results", results, "--out", out]), 0)
            ET.parse(out)
            self.assertEqual(plot.main(["--results", os.path.join(d, "missing")]), 1)


if __name__ == "__main__":
    unittest.main()
