#!/usr/bin/env python3
"""Checks jfa-interp against the hardware: the sm_90a GEMM and attention
forward kernels run on the same inputs in the interpreter (here) and on the
H200 (there), and the outputs are compared bit by bit.

  here:  hw_crosscheck.py prepare DIR --interp build/bin/jfa-interp
         (writes DIR/<case>/ inputs and the interpreter's outputs; also
          compile DIR/gemm_sm90.cubin with jfac)
  there: hw_crosscheck.py gpu DIR OUTDIR --lib LIB --gemm-cubin CUBIN --tn-cubin CUBIN
                                 --delta-cubin CUBIN
         (torch + the jfa package on PYTHONPATH; needs no numpy)
  here:  hw_crosscheck.py compare DIR OUTDIR
"""
import argparse
import math
import os
import struct
import subprocess
import sys

CASES = {
    "gemm_200x296x136": ("gemm", dict(m=200, n=296, k=136)),
    "gemm_512x768x1024": ("gemm", dict(m=512, n=768, k=1024)),
    # M-major A and N-major B (examples/matmul_sm90.mlir, a_operand=1), f32 out.
    "matmul_tn_200x136x264": ("matmul_tn", dict(m=200, n=136, k=264)),
    # The attention backward's row term (jagged_attention/attention_bwd_delta).
    "delta_t877_h2_d128": ("delta", dict(tokens=877, heads=2, head_dim=128)),
}
for d in (64, 128):
    for causal in (0, 1):
        CASES[f"attention_d{d}_{'causal' if causal else 'full'}"] = (
            "attention", dict(lengths=[0, 1, 63, 64, 65, 127, 128, 129, 300, 0],
                              heads=2, head_dim=d, causal=causal, scale=1 / math.sqrt(d)))


# ---- .npy without numpy (the GPU side) -------------------------------------

def read_npy_raw(path):
    with open(path, "rb") as f:
        data = f.read()
    (hlen,) = struct.unpack("<H", data[8:10])
    header = eval(data[10:10 + hlen].decode())  # a dict literal numpy wrote
    return header["descr"], header["shape"], data[10 + hlen:]


def write_npy_raw(path, descr, shape, payload):
    shape_text = "(" + ", ".join(map(str, shape)) + (",)" if len(shape) == 1 else ")")
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape_text)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(payload)


def gpu(opts):
    import torch
    sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                 "python"))
    os.environ["JFA_LIBRARY"] = os.path.abspath(opts.lib)
    import jfa

    def load(path, dtype):
        descr, shape, payload = read_npy_raw(path)
        t = torch.frombuffer(bytearray(payload), dtype=dtype).reshape(shape)
        return t.cuda()

    def save(path, t):
        t = t.detach().cpu().contiguous()
        descr = {torch.bfloat16: "<u2", torch.float32: "<f4"}[t.dtype]
        payload = bytes(t.view(torch.uint8).reshape(-1).tolist())
        write_npy_raw(path, descr, list(t.shape), payload)

    gemm = jfa.load(opts.gemm_cubin)
    tn = jfa.load(opts.tn_cubin)
    delta_mod = jfa.load(opts.delta_cubin)
    for name, (kind, p) in CASES.items():
        src = os.path.join(opts.dir, name)
        dst = os.path.join(opts.out, name)
        os.makedirs(dst, exist_ok=True)
        if kind == "gemm":
            a = load(os.path.join(src, "a.npy"), torch.bfloat16)
            b = load(os.path.join(src, "b.npy"), torch.bfloat16)
            c = torch.full((p["m"], p["n"]), float("nan"), device="cuda", dtype=torch.bfloat16)
            grid = math.ceil(p["m"] / 128) * math.ceil(p["n"] / 256)
            gemm.gemm_sm90(grid, a, b, c, p["m"], p["n"], p["k"])
            torch.cuda.synchronize()
            save(os.path.join(dst, "c.npy"), c)
        elif kind == "matmul_tn":
            a = load(os.path.join(src, "a.npy"), torch.bfloat16)
            b = load(os.path.join(src, "b.npy"), torch.bfloat16)
            c = torch.full((p["m"], p["n"]), float("nan"), device="cuda", dtype=torch.float32)
            grid = math.ceil(p["m"] / 64) * math.ceil(p["n"] / 64)
            tn.matmul_sm90(grid, a, b, c, p["m"], p["n"], p["k"])
            torch.cuda.synchronize()
            save(os.path.join(dst, "c.npy"), c)
            # The hardware against an fp64 reference as well: the new
            # transpose-A path is checked here, not only the interpreter.
            ref = a.double().T @ b.double()
            err = ((c.double() - ref).abs().max() / ref.abs().max()).item()
            print(f"gpu: matmul_tn max error / max |ref| = {err:.3g}")
            if not err < 1e-5:
                raise SystemExit("gpu: matmul_sm90 (a_operand=1) is wrong on the hardware")
        elif kind == "delta":
            t, h, d = p["tokens"], p["heads"], p["head_dim"]
            o = load(os.path.join(src, "o.npy"), torch.bfloat16)
            do = load(os.path.join(src, "do.npy"), torch.bfloat16)
            delta = torch.full((h, t), float("nan"), device="cuda", dtype=torch.float32)
            delta_mod.attention_bwd_delta((math.ceil(t / 128), h), o, do, delta, t, d)
            torch.cuda.synchronize()
            save(os.path.join(dst, "c.npy"), delta)
            ref = (o.double() * do.double()).view(t, h, d).sum(dim=2).T
            err = (delta.double() - ref).abs().max().item()
            print(f"gpu: delta max |error| = {err:.3g}")
            if not err < 1e-3:
                raise SystemExit("gpu: attention_bwd_delta is wrong on the hardware")
        else:
            heads, d = p["heads"], p["head_dim"]
            q = load(os.path.join(src, "q.npy"), torch.bfloat16)
            k = load(os.path.join(src, "k.npy"), torch.bfloat16)
            v = load(os.path.join(src, "v.npy"), torch.bfloat16)
            offsets = load(os.path.join(src, "offsets.npy"), torch.int32)
            tokens = q.shape[0]
            o, lse = jfa.jagged_attention(q.view(tokens, heads, d), k.view(tokens, heads, d),
                                          v.view(tokens, heads, d), offsets,
                                          max(p["lengths"]), causal=bool(p["causal"]),
                                          softmax_scale=p["scale"])
            torch.cuda.synchronize()
            save(os.path.join(dst, "o.npy"), o.reshape(tokens, heads * d))
            save(os.path.join(dst, "lse.npy"), lse)
        print("gpu: ran", name)


# ---- here: inputs, the interpreter's outputs, the comparison --------------

def prepare(opts):
    import numpy as np
    sys.path.insert(0, os.path.dirname(__file__))
    from kernels import schedule_list, jagged_batch, to_bf16
    rng = np.random.default_rng(opts.seed)
    kernels = os.path.join(os.path.dirname(__file__), "..", "..", "kernels")
    for name, (kind, p) in CASES.items():
        d = os.path.join(opts.dir, name)
        os.makedirs(d, exist_ok=True)
        save = lambda n, a: (np.save(os.path.join(d, n + ".npy"), a), os.path.join(d, n + ".npy"))[1]
        interp = lambda n, a: save("interp_" + n, a)
        if kind == "gemm":
            m, n, k = p["m"], p["n"], p["k"]
            a = save("a", to_bf16(rng.standard_normal((m, k))))
            b = save("b", to_bf16(rng.standard_normal((n, k))))
            c = interp("c", np.full((m, n), 0x7FC0, dtype=np.uint16))
            grid = math.ceil(m / 128) * math.ceil(n / 256)
            cmd = [opts.interp, os.path.join(kernels, "gemm/gemm_sm90.mlir"), "--arch", "sm_90a",
                   "--grid", str(grid), a, b, c, f"i32:{m}", f"i32:{n}", f"i32:{k}"]
        elif kind == "matmul_tn":
            m, n, k = p["m"], p["n"], p["k"]
            a = save("a", to_bf16(rng.standard_normal((k, m))))
            b = save("b", to_bf16(rng.standard_normal((k, n))))
            c = interp("c", np.full((m, n), np.nan, dtype=np.float32))
            grid = math.ceil(m / 64) * math.ceil(n / 64)
            cmd = [opts.interp, os.path.join(kernels, "examples/matmul_sm90.mlir"), "--arch",
                   "sm_90a", "-Pa_operand=1", "--grid", str(grid), a, b, c, f"i32:{m}",
                   f"i32:{n}", f"i32:{k}"]
        elif kind == "delta":
            t, h, hd = p["tokens"], p["heads"], p["head_dim"]
            o = save("o", to_bf16(rng.standard_normal((t, h * hd))))
            do = save("do", to_bf16(rng.standard_normal((t, h * hd))))
            c = interp("c", np.full((h, t), np.nan, dtype=np.float32))
            cmd = [opts.interp, os.path.join(kernels, "jagged_attention/attention_bwd_delta.mlir"),
                   "--arch", "sm_90a", "--grid", f"{math.ceil(t / 128)},{h}", o, do, c,
                   f"i32:{t}", f"i32:{hd}"]
        else:
            heads, hd = p["heads"], p["head_dim"]
            lengths, tokens, offsets, _ = jagged_batch(p["lengths"], heads, hd)
            q = save("q", to_bf16(rng.standard_normal((tokens, heads * hd))))
            k = save("k", to_bf16(rng.standard_normal((tokens, heads * hd))))
            v = save("v", to_bf16(rng.standard_normal((tokens, heads * hd))))
            off = save("offsets", offsets)
            o = interp("o", np.full((tokens, heads * hd), 0x7FC0, dtype=np.uint16))
            lse = interp("lse", np.full((heads, tokens), np.nan, dtype=np.float32))
            # The same scale_log2 the runtime passes (f32 of scale * log2(e)).
            scale_log2 = float(np.float32(p["scale"] * math.log2(math.e)))
            cmd = [opts.interp, os.path.join(kernels, "jagged_attention/attention_fwd_sm90.mlir"),
                   "--arch", "sm_90a", "--grid", "3",
                   f"-Phead_dim={hd}", f"-Pcausal={p['causal']}", "-Pgeneral=0",
                   q, k, v, o, lse, off,
                   f"i32:{len(lengths)}", f"i32:{heads}", f"i32:{tokens}",
                   f"i32:{heads * hd}", f"i32:{math.ceil(max(lengths) / 128)}",
                   f"f32:{scale_log2!r}", off, "i32:1", "i32:-1", "i32:-1",
                   # No block mask (its bitmap is not read); the work queue's
                   # schedule over the query sequences, as the runtime's.
                   off, "i32:0", "i32:0",
                   save("schedule", np.array(schedule_list(
                       list(lengths), math.ceil(max(lengths) / 128), tile_rows=128),
                       dtype=np.int32)),
                   o]  # o again, as the whole-tile stores' TMA tensor
        subprocess.run(cmd, check=True)
        print("prepare:", name)


def compare(opts):
    import numpy as np
    rows = []
    for name, (kind, p) in CASES.items():
        outs = ["o", "lse"] if kind == "attention" else ["c"]
        for out in outs:
            mine = np.load(os.path.join(opts.dir, name, f"interp_{out}.npy"))
            hw = np.load(os.path.join(opts.out, name, f"{out}.npy"))
            if mine.dtype == np.uint16:
                a = mine.astype(np.int32)
                b = hw.astype(np.int32)
                # bf16 words: distance in units in the last place.
                ulps = np.abs(np.where(a >= 0x8000, 0x8000 - a, a) -
                              np.where(b >= 0x8000, 0x8000 - b, b))
                fa = (a.astype(np.uint32) << 16).view(np.float32)
                fb = (b.astype(np.uint32) << 16).view(np.float32)
            else:
                fa, fb = mine, hw
                ia = mine.view(np.int32).astype(np.int64)
                ib = hw.view(np.int32).astype(np.int64)
                ulps = np.abs(np.where(ia < 0, -(ia & 0x7FFFFFFF), ia) -
                              np.where(ib < 0, -(ib & 0x7FFFFFFF), ib))
            same = float(np.mean(np.all(mine.reshape(mine.size, -1).view(np.uint8) ==
                                        hw.reshape(hw.size, -1).view(np.uint8), axis=1)))
            diff = np.abs(fa.astype(np.float64) - fb.astype(np.float64))
            # One unit in the last place of the larger of the two values.
            big = np.maximum(np.abs(fa), np.abs(fb)).astype(np.float32)
            ulp = np.spacing(big).astype(np.float64) * (65536 if mine.dtype == np.uint16 else 1)
            bound = opts.max_ulps * ulp + ATOL[out]
            rows.append(dict(case=name, output=out, elements=int(mine.size),
                             bit_identical=same, max_ulps=float(np.nanmax(diff / ulp)),
                             max_abs_diff=float(np.nanmax(diff)),
                             within=bool(np.all(diff <= bound)),
                             nonfinite=int((~np.isfinite(fa)).sum() + (~np.isfinite(fb)).sum())))
    print(f"{'case':24} {'out':4} {'elements':>9} {'bit-identical':>14} {'max |diff|':>11} "
          f"{'max |diff|/ulp':>15}")
    for r in rows:
        print(f"{r['case']:24} {r['output']:4} {r['elements']:9d} {100 * r['bit_identical']:13.2f}% "
              f"{r['max_abs_diff']:11.3g} {r['max_ulps']:15.1f}"
              + ("  NON-FINITE" if r["nonfinite"] else "")
              + ("" if r["within"] else "  OUT OF BOUND"))
    bad = [r for r in rows if r["nonfinite"] or not r["within"]]
    print(f"bound: |interp - hw| <= {opts.max_ulps} ulp(max(|interp|, |hw|)) + atol "
          f"(atol: {ATOL})")
    if bad:
        print(f"FAIL: {len(bad)} outputs out of bound or not finite")
        return 1
    print("PASS: every output within the bound")
    return 0


# Absolute slack where the ulp of the result says little. o: the GPU's
# ex2.approx and the interpreter's exact exp2 can round a probability p to
# neighbouring bf16 values before P*V, which moves o by about p*|v|/256
# (seen up to 5.5e-4 on values of 6e-3). lse: an fp32 sum of max and log of
# the row sum, near zero for short rows (seen up to 1.4e-6). c: fp32 sums
# of K products, which the tensor cores and the interpreter (one rounding per
# 16 of K) round at different points: near-cancelling sums differ by the
# partial sums' rounding (seen 1.4e-5 for K = 1024), and ties of the bf16
# output rounding go either way (one ulp).
ATOL = {"c": 1e-4, "o": 1e-3, "lse": 4e-6}


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("dir")
    p.add_argument("--interp", default="jfa-interp")
    p.add_argument("--seed", type=int, default=None)
    g = sub.add_parser("gpu")
    g.add_argument("dir")
    g.add_argument("out")
    g.add_argument("--lib", required=True)
    g.add_argument("--gemm-cubin", required=True)
    g.add_argument("--tn-cubin", required=True, help="examples/matmul_sm90.mlir compiled with -P a_operand=1")
    g.add_argument("--delta-cubin", required=True,
                   help="jagged_attention/attention_bwd_delta.mlir compiled for sm_90a")
    c = sub.add_parser("compare")
    c.add_argument("dir")
    c.add_argument("out")
    c.add_argument("--max-ulps", type=float, default=2)
    opts = parser.parse_args()
    return {"prepare": prepare, "gpu": gpu, "compare": compare}[opts.cmd](opts) or 0


if __name__ == "__main__":
    sys.exit(main())
