#!/usr/bin/env python3
"""The tcgen05 oracle's Triton side: make the reference (docs/TCGEN05_ORACLE.md).

The probe kernels are test/oracle/triton_probes.py (Gluon, Triton 3.6): one
per tcgen05 configuration JFA's kernels use, plus neighbours the DSL allows.
They compile for sm_100a on any machine with Triton (no Blackwell GPU
needed). Two steps:

  python3 scripts/tcgen05_oracle.py device-command [values]
      prints a shell command that carries triton_probes.py inside itself
      (zlib + base85, under the device tool's 2000 characters: the GPU
      machine receives the lead's checkout, not this worktree) and runs it;
      the probes write $OUT/o.json (Triton's version, its PTX and TTGIR per
      probe, every error). With `values`, the same for the second probe,
      test/oracle/triton_probes_values.py (the register <-> tensor-memory
      column mapping), which writes $OUT/io.json. On a machine that has this
      checkout and Triton, `OUT=dir python3 test/oracle/triton_probes.py`
      (and triton_probes_values.py) does the same.

  python3 scripts/tcgen05_oracle.py import-pair pair.json
      adds the CTA-pair configurations test/oracle/triton_probe_pair.py
      wrote (OUT=dir python3 test/oracle/triton_probe_pair.py on the GPU
      machine) to the reference, where Triton emitted a cta_group::2 MMA.

  python3 scripts/tcgen05_oracle.py import o.json io.json
      reads the encodings out of each probe's PTX (scripts/tcgen05_ptx.py)
      and writes the checked-in reference: test/oracle/tcgen05_triton.json
      (Triton's version, each configuration, the probe source, the
      encodings) and test/oracle/triton/<id>.ptx (Triton's PTX, the
      evidence).

test/oracle/compare.py (the lit test test/oracle/tcgen05-oracle.test)
compares jfac's PTX for the same configurations against the reference.
"""
import base64
import json
import pathlib
import re
import sys
import zlib

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import tcgen05_ptx  # noqa: E402

PROBES_PY = ROOT / "test" / "oracle" / "triton_probes.py"
VALUES_PY = ROOT / "test" / "oracle" / "triton_probes_values.py"
REFERENCE = ROOT / "test" / "oracle" / "tcgen05_triton.json"
PTX_DIR = ROOT / "test" / "oracle" / "triton"

# The probes in the order of triton_probes.py's M (MMAs) then U (tensor
# memory). For an MMA, A is M x K and B is N x K (A * B^T, the DSL's
# convention); "K-major"/"M-major"/"N-major" name the contiguous dimension.
PROBES = [
    dict(id="ss_bf16_m128_n256_k64_sw128", kind="mma",
         what="bf16, A 128x64 K-major (smem, 128B swizzle), B 256x64 K-major (128B), N = 256",
         used_by=["kernels/gemm/gemm_sm100.mlir"]),
    dict(id="ss_bf16_m128_n128_k64_sw128", kind="mma",
         what="bf16, A 128x64 K-major, B 128x64 K-major, 128B swizzles, N = 128",
         used_by=["attention_fwd_sm100.mlir: S = Q K^T",
                  "attention_bwd_sm100.mlir: S = Q K^T, dP = dO V^T"]),
    dict(id="ts_bf16_m128_n64_k128_bmn_sw128", kind="mma",
         what="bf16, A 128x128 in tensor memory (packed), B N-major (a 128x64 K x N tile, 128B), N = 64",
         used_by=["attention_fwd_sm100.mlir: O += P V"]),
    dict(id="ts_bf16_m128_n64_k64_sw128", kind="mma",
         what="bf16, A 128x64 in tensor memory (packed), B 64x64 K-major (128B), N = 64",
         used_by=["kernels/examples/tmem_a_dot_sm100.mlir"]),
    dict(id="ss_bf16_m128_n64_k128_amn_bmn_sw128", kind="mma",
         what="bf16, A M-major (a 128x128 K x M tile, 128B), B N-major (a 128x64 K x N tile, 128B), N = 64",
         used_by=["attention_bwd_sm100.mlir: dV += P^T dO, dK += dS^T Q"]),
    dict(id="ss_bf16_m128_n64_k128_ablocked_bmn_sw128", kind="mma",
         what="bf16, A 128x128 K-major (two 64-column blocks, 128B), B N-major (128x64 K x N, 128B), N = 64",
         used_by=["attention_bwd_sm100.mlir: dQ = dS K"]),
    dict(id="ss_f16_m128_n128_k64_sw128", kind="mma",
         what="f16, A 128x64 K-major, B 128x64 K-major, 128B swizzles, N = 128",
         used_by=[]),
    dict(id="ss_bf16_m128_n64_k32_sw64", kind="mma",
         what="bf16, A 128x32 K-major, B 64x32 K-major, 64B swizzles, N = 64",
         used_by=[]),
    dict(id="ss_bf16_m128_n64_k16_sw32", kind="mma",
         what="bf16, A 128x16 K-major, B 64x16 K-major, 32B swizzles, N = 64",
         used_by=[]),
    dict(id="ss_bf16_m128_n32_k64_bmn_sw64", kind="mma",
         what="bf16, A 128x64 K-major (128B), B N-major (a 64x32 K x N tile, 64B swizzle), N = 32",
         used_by=[]),
    dict(id="ss_e4m3_m128_n256_k128_sw128", kind="mma",
         what="e4m3 (kind::f8f6f4), A 128x128 K-major, B 256x128 K-major, 128B swizzles, N = 256",
         used_by=["kernels/gemm/gemm_fp8_sm100.mlir"]),
    dict(id="tmem_f32_128x64_st_ld", kind="tmem",
         what="128x64 f32 stored to tensor memory and loaded back (32x32b)",
         used_by=["tmem_roundtrip_sm100.mlir", "attention_fwd_sm100.mlir: O rescale"]),
    dict(id="tmem_f32_128x128_ld", kind="tmem",
         what="128x128 f32 loaded from tensor memory (32x32b)",
         used_by=["attention_fwd_sm100.mlir, attention_bwd_sm100.mlir: S, dP"]),
    dict(id="tmem_f32_128x256_ld_col64", kind="tmem",
         what="64 columns at column 64 of a 128x256 f32 allocation (a slice), loaded (32x32b)",
         used_by=["gemm_sm100.mlir: epilogue", "attention kernels: tmem_slice halves of O, dQ, dK, dV"]),
    dict(id="tmem_bf16_128x128_st", kind="tmem",
         what="128x128 bf16 stored to tensor memory two per column (and loaded back)",
         used_by=["attention_fwd_sm100.mlir: P"]),
    dict(id="tmem_bf16_128x64_st", kind="tmem",
         what="128x64 bf16 stored to tensor memory two per column (and loaded back)",
         used_by=["tmem_a_dot_sm100.mlir: A"]),
]

# The probes of triton_probes_values.py, in order: a tile whose element
# (r, c) is c, stored to tensor memory (the register <-> column mapping).
PROBES_VALUES = [
    dict(id=f"tmem_values_{dt}_128x{n}", kind="values",
         what=f"128x{n} {dt}, element (r, c) = c, stored to tensor memory (32x32b): "
              "the column each register carries" + (", and the half of it" if dt == "bf16" else ""),
         used_by=used)
    for dt, n, used in (("bf16", 128, ["attention_fwd_sm100.mlir: P"]),
                        ("bf16", 64, ["tmem_a_dot_sm100.mlir: A"]),
                        ("f32", 64, ["tmem_roundtrip_sm100.mlir", "attention_fwd_sm100.mlir: O rescale"]),
                        ("f32", 128, []))
]


def _source(path):
    return "".join(line for line in path.read_text().splitlines(True)
                   if not line.startswith("#"))


def device_command(which="encodings"):
    path, script = (VALUES_PY, "/tmp/q") if which == "values" else (PROBES_PY, "/tmp/p")
    payload = base64.b85encode(zlib.compress(_source(path).encode(), 9)).decode()
    assert "'" not in payload
    cmd = (f"python3 -c 'import zlib,base64 as b;open(\"{script}\",\"wb\").write("
           "zlib.decompress(b.b85decode(open(0).read().strip())))'<<'E'\n"
           + payload + f"\nE\npython3 {script}")
    if len(cmd) > 2000:
        sys.exit(f"the command is {len(cmd)} characters, over the device tool's 2000")
    return cmd


def _layouts(ttgir):
    """The layout attributes Triton chose (#shared / #tmem / #blocked ...)."""
    return [line.strip() for line in ttgir.splitlines() if re.match(r"^#\w+\d* = #", line)]


def import_run(path, values_path):
    run = json.loads(pathlib.Path(path).read_text())
    values = json.loads(pathlib.Path(values_path).read_text())
    if "p" not in run or len(run["p"]) != len(PROBES):
        sys.exit(f"{path}: expected {len(PROBES)} probes")
    if "p" not in values or len(values["p"]) != len(PROBES_VALUES):
        sys.exit(f"{values_path}: expected {len(PROBES_VALUES)} probes")
    if values["v"] != run["v"]:
        sys.exit(f"the two runs used Triton {run['v']} and {values['v']}")
    PTX_DIR.mkdir(parents=True, exist_ok=True)
    ref = {
        "about": "tcgen05 encodings Triton emits for sm_100a, read from its PTX by "
                 "scripts/tcgen05_ptx.py; made by scripts/tcgen05_oracle.py; "
                 "checked by test/oracle/compare.py (docs/TCGEN05_ORACLE.md)",
        "triton_version": run["v"],
        "target": "cuda sm_100 (GPUTarget('cuda', 100, 32)), num_warps 4",
        "probe_source": ["test/oracle/triton_probes.py", "test/oracle/triton_probes_values.py"],
        "probe_source_text": [_source(PROBES_PY), _source(VALUES_PY)],
        "configs": [],
    }
    for meta, probe in list(zip(PROBES, run["p"])) + list(zip(PROBES_VALUES, values["p"])):
        entry = dict(meta)
        entry["probe_index"] = probe["id"]
        if not probe.get("ok"):
            entry["error"] = probe.get("e")
            ref["configs"].append(entry)
            continue
        ptx_name = f"{meta['id']}.ptx"
        (PTX_DIR / ptx_name).write_text(probe["ptx"])
        entry["ptx"] = f"test/oracle/triton/{ptx_name}"
        entry["triton_layouts"] = _layouts(probe.get("ttgir", ""))
        entry["encodings"] = tcgen05_ptx.analyze(probe["ptx"])
        ref["configs"].append(entry)
    REFERENCE.write_text(json.dumps(ref, indent=1) + "\n")
    print(f"wrote {REFERENCE} and {len(ref['configs'])} PTX files under {PTX_DIR}")


# The CTA-pair probes of test/oracle/triton_probe_pair.py (ids as there).
PROBES_PAIR = {
    "ss_bf16_m256_n256_k64_sw128_pair": dict(
        what="bf16, M = 256 over a CTA pair (tcgen05.mma.cta_group::2): each CTA's A "
             "128x64 and B 128x64 K-major (128B), N = 256",
        used_by=["kernels/gemm/gemm_pair_sm100.mlir"]),
    "ss_bf16_m256_n128_k64_sw128_pair": dict(
        what="bf16, M = 256 over a CTA pair: each CTA's A 128x64 and B 64x64 K-major "
             "(128B), N = 128",
        used_by=[]),
}


def import_pair(path):
    """Adds the pair probe's configurations (pair.json, written by
    test/oracle/triton_probe_pair.py on the GPU machine) to the reference.
    A configuration for which Triton emitted no cta_group::2 MMA is not
    added (it would compare nothing): the reason is printed instead."""
    run = json.loads(pathlib.Path(path).read_text())
    ref = json.loads(REFERENCE.read_text())
    if run["v"] != ref["triton_version"]:
        sys.exit(f"the pair probe ran Triton {run['v']}, the reference {ref['triton_version']}")
    ref["configs"] = [c for c in ref["configs"] if c["id"] not in PROBES_PAIR]
    for probe in run["p"]:
        cid = probe["id"]
        if not probe.get("ok"):
            print(f"{cid}: Triton failed: {probe.get('e', '')[-300:]}")
            continue
        if "2" not in probe.get("cta_groups", []):
            print(f"{cid}: Triton emitted cta_group {probe.get('cta_groups')}, no two-CTA MMA")
            continue
        ptx_name = f"{cid}.ptx"
        (PTX_DIR / ptx_name).write_text(probe["ptx"])
        entry = dict(id=cid, kind="mma", **PROBES_PAIR[cid])
        entry["probe"] = "test/oracle/triton_probe_pair.py"
        entry["ptx"] = f"test/oracle/triton/{ptx_name}"
        entry["triton_layouts"] = _layouts(probe.get("ttgir", ""))
        entry["encodings"] = tcgen05_ptx.analyze(probe["ptx"])
        ref["configs"].append(entry)
        print(f"{cid}: added ({len(entry['encodings']['mma'])} tcgen05.mma)")
    REFERENCE.write_text(json.dumps(ref, indent=1) + "\n")


def main():
    if len(sys.argv) in (2, 3) and sys.argv[1] == "device-command":
        print(device_command(*sys.argv[2:]))
    elif len(sys.argv) == 4 and sys.argv[1] == "import":
        import_run(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "import-pair":
        import_pair(sys.argv[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
