#!/usr/bin/env python3
"""The Triton side of the tcgen05 oracle (docs/TCGEN05_ORACLE.md).

Run on a machine with Triton (the GPU machine: Triton 3.6; no Blackwell GPU
needed, Triton compiles for sm_100a anyway):

    python3 scripts/tcgen05_oracle.py --out DIR

For every tcgen05 configuration JFA's kernels use (and a few neighbours:
64/32-byte swizzles, f16) it builds the equivalent Gluon kernel (explicit
shared-memory swizzles, transposed views, tensor-memory layouts), compiles
it for sm_100a, and records Triton's PTX, TTGIR and the encodings
scripts/tcgen05_ptx.py reads out of the PTX: instruction descriptors,
shared-memory descriptors per k step, tcgen05.ld/st shapes and addresses,
alloc sizes, commit forms. Plain `tl.dot` kernels cross-check that Triton's
own pipeline picks the same encodings. Everything goes to DIR/oracle.json
(with the Triton version, the API Gluon offered, each probe's source and
every failure); test/oracle/import_triton.py turns it into the checked-in
reference test/oracle/tcgen05_triton.json.
"""
import argparse
import inspect
import json
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tcgen05_ptx  # noqa: E402

LOG = []


def log(*args):
    line = " ".join(str(a) for a in args)
    LOG.append(line)
    print(line, flush=True)


# Each MMA configuration: A is M x K, B is N x K (A * B^T, the DSL's
# convention). `a`: ("smem", rows, cols, swizzle, permuted) with the stored
# (rows x cols) tile and whether A is its transpose (M-major), or ("tmem",)
# for A in tensor memory. `b`: (rows, cols, swizzle, permuted): permuted
# means the stored tile is N x K (K-major B, Triton's B is K x N, so it reads
# the permuted view); not permuted means the stored tile is K x N (N-major B,
# the DSL's transposed view).
MMA_CONFIGS = [
    dict(id="ss_bf16_m128_n256_k64_sw128", dtype="bf16", M=128, N=256, K=64,
         a=("smem", 128, 64, 128, False), b=(256, 64, 128, True),
         used_by="kernels/gemm/gemm_sm100.mlir (A 128x64, B 256x64, both K-major)"),
    dict(id="ss_bf16_m128_n128_k64_sw128", dtype="bf16", M=128, N=128, K=64,
         a=("smem", 128, 64, 128, False), b=(128, 64, 128, True),
         used_by="attention_fwd_sm100 / attention_bwd_sm100: S = Q K^T, dP = dO V^T"),
    dict(id="ts_bf16_m128_n64_k128_bmn_sw128", dtype="bf16", M=128, N=64, K=128,
         a=("tmem",), b=(128, 64, 128, False),
         used_by="attention_fwd_sm100: O += P V (P in tensor memory, V N-major)"),
    dict(id="ts_bf16_m128_n64_k64_sw128", dtype="bf16", M=128, N=64, K=64,
         a=("tmem",), b=(64, 64, 128, True),
         used_by="kernels/examples/tmem_a_dot_sm100.mlir (A in tensor memory, B K-major)"),
    dict(id="ss_bf16_m128_n64_k128_amn_bmn_sw128", dtype="bf16", M=128, N=64, K=128,
         a=("smem", 128, 128, 128, True), b=(128, 64, 128, False),
         used_by="attention_bwd_sm100: dV += P^T dO, dK += dS^T Q (M-major A, N-major B)"),
    dict(id="ss_bf16_m128_n64_k128_ablocked_bmn_sw128", dtype="bf16", M=128, N=64, K=128,
         a=("smem", 128, 128, 128, False), b=(128, 64, 128, False),
         used_by="attention_bwd_sm100: dQ = dS K (K-major A of two column blocks, N-major B)"),
    dict(id="ss_f16_m128_n128_k64_sw128", dtype="f16", M=128, N=128, K=64,
         a=("smem", 128, 64, 128, False), b=(128, 64, 128, True),
         used_by="(f16 operands: the DSL allows them; no kernel uses them yet)"),
    dict(id="ss_bf16_m128_n64_k32_sw64", dtype="bf16", M=128, N=64, K=32,
         a=("smem", 128, 32, 64, False), b=(64, 32, 64, True),
         used_by="(64-byte swizzle, K-major: the DSL allows it; no kernel uses it yet)"),
    dict(id="ss_bf16_m128_n64_k16_sw32", dtype="bf16", M=128, N=64, K=16,
         a=("smem", 128, 16, 32, False), b=(64, 16, 32, True),
         used_by="(32-byte swizzle, K-major: the DSL allows it; no kernel uses it yet)"),
    dict(id="ss_bf16_m128_n32_k64_bmn_sw64", dtype="bf16", M=128, N=32, K=64,
         a=("smem", 128, 64, 128, False), b=(64, 32, 64, False),
         used_by="(N-major B in a 64-byte swizzle: the DSL allows it; no kernel uses it yet)"),
]

# Tensor-memory loads and stores: (id, dtype, N of the allocation, store?,
# load column, load width, used_by).
TMEM_CONFIGS = [
    dict(id="tmem_f32_128x64_st_ld", dtype="f32", N=64, store=True, col=0, width=64,
         used_by="tmem_roundtrip_sm100, attention O rescale (128x64 f32 store and load)"),
    dict(id="tmem_f32_128x128_ld", dtype="f32", N=128, store=False, col=0, width=128,
         used_by="attention S / dP loads (128x128 f32)"),
    dict(id="tmem_f32_128x256_ld_col64", dtype="f32", N=256, store=False, col=64, width=64,
         used_by="gemm_sm100 epilogue (64 columns of a 128x256 accumulator at a column offset)"),
    dict(id="tmem_bf16_128x128_st", dtype="bf16", N=128, store=True, col=None, width=None,
         used_by="attention_fwd_sm100: P stored as bf16, two per column"),
    dict(id="tmem_bf16_128x64_st", dtype="bf16", N=64, store=True, col=None, width=None,
         used_by="tmem_a_dot_sm100: A stored as bf16, two per column"),
]


def api_report(gl, bw):
    rep = {}
    for name, mod in (("gluon.language", gl), ("gluon.language.nvidia.blackwell", bw)):
        rep[name] = sorted(x for x in dir(mod) if not x.startswith("__"))
    sigs = {}
    for name in ("tcgen05_mma", "tcgen05_commit", "allocate_tensor_memory", "TensorMemoryLayout",
                 "get_tmem_reg_layout", "get_tmem_32x32b_reg_layout", "tensor_memory_descriptor"):
        obj = getattr(bw, name, None)
        if obj is None:
            continue
        try:
            sigs[name] = str(inspect.signature(obj))
        except (TypeError, ValueError) as e:
            sigs[name] = f"<{e}>"
    for name in ("NVMMASharedLayout", "allocate_shared_memory", "BlockedLayout"):
        obj = getattr(gl, name, None)
        if obj is not None:
            try:
                sigs["gl." + name] = str(inspect.signature(obj))
            except (TypeError, ValueError) as e:
                sigs["gl." + name] = f"<{e}>"
    rep["signatures"] = sigs
    return rep


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    result = {"started": time.strftime("%Y-%m-%d %H:%M:%S"), "probes": [], "errors": []}

    def save():
        result["log"] = LOG
        with open(os.path.join(args.out, "oracle.json"), "w") as f:
            json.dump(result, f, indent=1, default=str)

    import triton
    from triton.backends.compiler import GPUTarget
    result["triton_version"] = triton.__version__
    try:
        import torch
        result["torch_version"] = torch.__version__
    except Exception as e:  # noqa: BLE001
        result["torch_version"] = repr(e)
    log("triton", triton.__version__)
    target = GPUTarget("cuda", 100, 32)

    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon.language.nvidia import blackwell as bw
    try:
        from triton.experimental.gluon._runtime import GluonASTSource
    except ImportError:
        GluonASTSource = None
    result["api"] = api_report(gl, bw)
    log("blackwell exports:", result["api"]["gluon.language.nvidia.blackwell"])
    log("signatures:", json.dumps(result["api"]["signatures"], indent=1))
    save()

    mbarrier = bw.mbarrier
    tcgen05_mma, tcgen05_commit = bw.tcgen05_mma, bw.tcgen05_commit
    allocate_tensor_memory, TensorMemoryLayout = bw.allocate_tensor_memory, bw.TensorMemoryLayout

    DTYPES = {"bf16": gl.bfloat16, "f16": gl.float16, "f32": gl.float32}
    SIG = {"bf16": "*bf16", "f16": "*fp16", "f32": "*fp32"}
    BITS = {"bf16": 16, "f16": 16, "f32": 32}

    # ---- layouts, built with whichever API this Triton has ------------------
    def tmem_layouts(M, N, bits):
        """Candidate TensorMemoryLayouts (packed for 16-bit elements)."""
        out = []
        for name, kw in (("col_stride", dict(col_stride=1)), ("unpacked", dict(unpacked=(bits == 32)))):
            try:
                out.append((name, TensorMemoryLayout(block=(M, N), **kw)))
            except Exception as e:  # noqa: BLE001
                log("TensorMemoryLayout", kw, "failed:", repr(e)[:200])
        return out

    def reg_layouts(dtype, M, N, tmem_layout, num_warps=4):
        """Candidate register layouts for a 32x32b tensor-memory access of an
        M x N tile: Triton's helpers, then the equivalent BlockedLayout
        (thread t of the warpgroup holds row t)."""
        out = []
        f = getattr(bw, "get_tmem_reg_layout", None)
        if f is not None:
            for call in (lambda: f(dtype, [M, N], tmem_layout, num_warps),
                         lambda: f(dtype, (M, N), tmem_layout, num_warps, "32x32b")):
                try:
                    out.append(("get_tmem_reg_layout", call()))
                    break
                except Exception as e:  # noqa: BLE001
                    log("get_tmem_reg_layout failed:", repr(e)[:300])
        f = getattr(bw, "get_tmem_32x32b_reg_layout", None)
        if f is not None:
            try:
                out.append(("get_tmem_32x32b_reg_layout", f(M, N, [M, N], num_warps)))
            except Exception as e:  # noqa: BLE001
                log("get_tmem_32x32b_reg_layout failed:", repr(e)[:300])
        out.append(("BlockedLayout", gl.BlockedLayout([1, N], [32, 1], [num_warps, 1], [0, 1])))
        return out

    def nvmma(swizzle, bits):
        for make in (lambda: gl.NVMMASharedLayout(swizzle_byte_width=swizzle, element_bitwidth=bits, rank=2),
                     lambda: gl.NVMMASharedLayout(swizzle, bits, 2)):
            try:
                return make()
            except Exception as e:  # noqa: BLE001
                log("NVMMASharedLayout failed:", repr(e)[:200])
        raise RuntimeError("no NVMMASharedLayout")

    # ---- probe kernels --------------------------------------------------------
    @gluon.jit
    def mma_probe(out_ptr, flag,
                  DTYPE: gl.constexpr, M: gl.constexpr, N: gl.constexpr, K: gl.constexpr,
                  A_IN_TMEM: gl.constexpr, A_ROWS: gl.constexpr, A_COLS: gl.constexpr,
                  A_LAYOUT: gl.constexpr, A_PERMUTE: gl.constexpr,
                  A_TMEM_LAYOUT: gl.constexpr, A_REG_LAYOUT: gl.constexpr,
                  B_ROWS: gl.constexpr, B_COLS: gl.constexpr, B_LAYOUT: gl.constexpr,
                  B_PERMUTE: gl.constexpr,
                  ACC_TMEM_LAYOUT: gl.constexpr, ACC_REG_LAYOUT: gl.constexpr):
        bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
        mbarrier.init(bar, count=1)
        acc = allocate_tensor_memory(gl.float32, [M, N], ACC_TMEM_LAYOUT)
        b_smem = gl.allocate_shared_memory(DTYPE, [B_ROWS, B_COLS], B_LAYOUT)
        use = flag != 0
        if A_IN_TMEM:
            a_tmem = allocate_tensor_memory(DTYPE, [M, K], A_TMEM_LAYOUT)
            a_tmem.store(gl.full([M, K], 1.0, DTYPE, A_REG_LAYOUT))
            if B_PERMUTE:
                tcgen05_mma(a_tmem, b_smem.permute((1, 0)), acc, use_acc=use)
            else:
                tcgen05_mma(a_tmem, b_smem, acc, use_acc=use)
        else:
            a_smem = gl.allocate_shared_memory(DTYPE, [A_ROWS, A_COLS], A_LAYOUT)
            if A_PERMUTE:
                if B_PERMUTE:
                    tcgen05_mma(a_smem.permute((1, 0)), b_smem.permute((1, 0)), acc, use_acc=use)
                else:
                    tcgen05_mma(a_smem.permute((1, 0)), b_smem, acc, use_acc=use)
            else:
                if B_PERMUTE:
                    tcgen05_mma(a_smem, b_smem.permute((1, 0)), acc, use_acc=use)
                else:
                    tcgen05_mma(a_smem, b_smem, acc, use_acc=use)
        tcgen05_commit(bar)
        mbarrier.wait(bar, 0)
        r = acc.load(ACC_REG_LAYOUT)
        rows = gl.arange(0, M, gl.SliceLayout(1, ACC_REG_LAYOUT))
        cols = gl.arange(0, N, gl.SliceLayout(0, ACC_REG_LAYOUT))
        gl.store(out_ptr + rows[:, None] * N + cols[None, :], r)

    @gluon.jit
    def tmem_probe(out_ptr, DTYPE: gl.constexpr, M: gl.constexpr, N: gl.constexpr,
                   TMEM_LAYOUT: gl.constexpr, REG_LAYOUT: gl.constexpr, STORE: gl.constexpr,
                   LOAD: gl.constexpr, COL: gl.constexpr, WIDTH: gl.constexpr,
                   LOAD_LAYOUT: gl.constexpr):
        t = allocate_tensor_memory(DTYPE, [M, N], TMEM_LAYOUT)
        if STORE:
            t.store(gl.full([M, N], 1.0, DTYPE, REG_LAYOUT))
        if LOAD:
            if WIDTH == N:
                r = t.load(LOAD_LAYOUT)
            else:
                r = t.slice(COL, WIDTH).load(LOAD_LAYOUT)
            rows = gl.arange(0, M, gl.SliceLayout(1, LOAD_LAYOUT))
            cols = gl.arange(0, WIDTH, gl.SliceLayout(0, LOAD_LAYOUT))
            gl.store(out_ptr + rows[:, None] * WIDTH + cols[None, :], r)
        else:
            # Keep the store observable: read the tile back through registers.
            r = t.load(REG_LAYOUT)
            rows = gl.arange(0, M, gl.SliceLayout(1, REG_LAYOUT))
            cols = gl.arange(0, N, gl.SliceLayout(0, REG_LAYOUT))
            gl.store(out_ptr + rows[:, None] * N + cols[None, :], r)

    result["probe_sources"] = {"mma_probe": inspect.getsource(mma_probe.fn),
                               "tmem_probe": inspect.getsource(tmem_probe.fn)}

    def compile_gluon(fn, sig, consts, num_warps=4):
        params = list(fn.arg_names)
        signature = {p: sig.get(p, "constexpr") for p in params}
        errors = []
        if GluonASTSource is not None:
            try:
                src = GluonASTSource(fn, signature, constexprs=consts)
                return triton.compile(src, target=target, options={"num_warps": num_warps}), errors
            except Exception as e:  # noqa: BLE001
                errors.append("GluonASTSource: " + "".join(traceback.format_exception_only(type(e), e))[-3000:])
        try:
            src = triton.compiler.ASTSource(fn=fn, signature=signature, constexprs=consts)
            return triton.compile(src, target=target, options={"num_warps": num_warps}), errors
        except Exception as e:  # noqa: BLE001
            errors.append("ASTSource: " + "".join(traceback.format_exception_only(type(e), e))[-3000:])
        return None, errors

    def record(probe, compiled):
        ptx = compiled.asm["ptx"]
        probe["ptx"] = ptx
        probe["ttgir"] = compiled.asm.get("ttgir", "")
        try:
            probe["extracted"] = tcgen05_ptx.analyze(ptx)
        except Exception as e:  # noqa: BLE001
            probe["extracted"] = None
            probe["extract_error"] = traceback.format_exc()[-3000:]
        ex = probe.get("extracted") or {}
        for m in ex.get("mma", []):
            log("   mma idesc", m.get("idesc_hex"), "a", m.get("a_desc_hex", m.get("a_taddr")),
                "b", m.get("b_desc_hex"), "en", m.get("enable_input_d"))
        for k in ("ld", "st"):
            for m in ex.get(k, []):
                log("   ", k, m["shape"], m["num"], m["pack"], "regs", m["registers"],
                    "taddr", m["taddr_by_tid"])
        for m in ex.get("alloc", []):
            log("   alloc", m["ncols"], m["opcode"])
        for m in ex.get("commit", []):
            log("   commit", m["opcode"])

    # ---- MMA probes -------------------------------------------------------------
    for cfg in MMA_CONFIGS:
        t0 = time.time()
        probe = {"id": cfg["id"], "kind": "mma", "frontend": "gluon", "config": cfg, "attempts": []}
        result["probes"].append(probe)
        log("==", cfg["id"])
        dt, bits = DTYPES[cfg["dtype"]], BITS[cfg["dtype"]]
        M, N, K = cfg["M"], cfg["N"], cfg["K"]
        done = False
        try:
            acc_tl = tmem_layouts(M, N, 32)
            a_tl = tmem_layouts(M, K, bits) if cfg["a"][0] == "tmem" else [("none", None)]
            for (acc_name, acc_layout) in acc_tl:
                for (a_name, a_tmem_layout) in a_tl:
                    if a_tmem_layout is not None and acc_name != a_name:
                        continue
                    acc_regs = reg_layouts(gl.float32, M, N, acc_layout)
                    a_regs = (reg_layouts(dt, M, K, a_tmem_layout) if a_tmem_layout is not None
                              else [("none", None)])
                    for (acc_reg_name, acc_reg) in acc_regs:
                        # A's register layout from the same helper as the accumulator's.
                        a_reg_name, a_reg = next(((n, l) for n, l in a_regs if n == acc_reg_name), a_regs[-1])
                        for _once in (0,):
                            if cfg["a"][0] == "smem":
                                _, ar, ac, asw, aperm = cfg["a"]
                                a_layout = nvmma(asw, bits)
                            else:
                                ar, ac, a_layout, aperm = M, K, None, False
                            br, bc, bsw, bperm = cfg["b"]
                            consts = dict(DTYPE=dt, M=M, N=N, K=K, A_IN_TMEM=cfg["a"][0] == "tmem",
                                          A_ROWS=ar, A_COLS=ac, A_LAYOUT=a_layout, A_PERMUTE=aperm,
                                          A_TMEM_LAYOUT=a_tmem_layout, A_REG_LAYOUT=a_reg,
                                          B_ROWS=br, B_COLS=bc, B_LAYOUT=nvmma(bsw, bits), B_PERMUTE=bperm,
                                          ACC_TMEM_LAYOUT=acc_layout, ACC_REG_LAYOUT=acc_reg)
                            attempt = {"tmem_layout": acc_name, "acc_reg_layout": acc_reg_name,
                                       "a_reg_layout": a_reg_name,
                                       "constexprs": {k: repr(v) for k, v in consts.items()}}
                            probe["attempts"].append(attempt)
                            compiled, errs = compile_gluon(mma_probe, {"out_ptr": "*fp32", "flag": "i32"}, consts)
                            attempt["errors"] = errs
                            if compiled is None:
                                log("   attempt failed:", acc_name, acc_reg_name, a_reg_name, errs[-1][-600:])
                                continue
                            attempt["ok"] = True
                            record(probe, compiled)
                            done = True
                            break
                        if done:
                            break
                    if done:
                        break
                if done:
                    break

        except Exception:  # noqa: BLE001
            probe["exception"] = traceback.format_exc()[-3000:]
            log("   exception:", probe["exception"][-600:])
        probe["ok"] = done
        probe["seconds"] = round(time.time() - t0, 2)
        save()

    # ---- tensor-memory load/store probes ---------------------------------------
    for cfg in TMEM_CONFIGS:
        t0 = time.time()
        probe = {"id": cfg["id"], "kind": "tmem", "frontend": "gluon", "config": cfg, "attempts": []}
        result["probes"].append(probe)
        log("==", cfg["id"])
        dt, bits = DTYPES[cfg["dtype"]], BITS[cfg["dtype"]]
        M, N = 128, cfg["N"]
        done = False
        try:
            for (tl_name, tmem_layout) in tmem_layouts(M, N, bits):
                regs = reg_layouts(dt, M, N, tmem_layout)
                width = cfg["width"] or N
                loads = reg_layouts(dt, M, width, tmem_layout) if cfg["width"] else regs
                for (reg_name, reg) in regs:
                    load = next((l for n, l in loads if n == reg_name), loads[-1][1])
                    consts = dict(DTYPE=dt, M=M, N=N, TMEM_LAYOUT=tmem_layout, REG_LAYOUT=reg,
                                  STORE=cfg["store"], LOAD=cfg["width"] is not None,
                                  COL=cfg["col"] or 0, WIDTH=width, LOAD_LAYOUT=load)
                    attempt = {"tmem_layout": tl_name, "reg_layout": reg_name,
                               "constexprs": {k: repr(v) for k, v in consts.items()}}
                    probe["attempts"].append(attempt)
                    compiled, errs = compile_gluon(tmem_probe, {"out_ptr": SIG[cfg["dtype"]]}, consts)
                    attempt["errors"] = errs
                    if compiled is None:
                        log("   attempt failed:", tl_name, reg_name, errs[-1][-600:])
                        continue
                    attempt["ok"] = True
                    record(probe, compiled)
                    done = True
                    break
                if done:
                    break

        except Exception:  # noqa: BLE001
            probe["exception"] = traceback.format_exc()[-3000:]
            log("   exception:", probe["exception"][-600:])
        probe["ok"] = done
        probe["seconds"] = round(time.time() - t0, 2)
        save()

    # ---- plain tl.dot cross-checks ---------------------------------------------
    import triton.language as tl

    @triton.jit
    def dot_probe(a_ptr, b_ptr, c_ptr, flag, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                  B_NMAJOR: tl.constexpr, A_MMAJOR: tl.constexpr):
        rm = tl.arange(0, M)
        rn = tl.arange(0, N)
        rk = tl.arange(0, K)
        if A_MMAJOR:
            a = tl.trans(tl.load(a_ptr + rk[:, None] * M + rm[None, :]))
        else:
            a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
        if B_NMAJOR:
            b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
        else:
            b = tl.trans(tl.load(b_ptr + rn[:, None] * K + rk[None, :]))
        acc = tl.zeros([M, N], dtype=tl.float32)
        acc = tl.dot(a, b, acc)
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)

    result["probe_sources"]["dot_probe"] = inspect.getsource(dot_probe.fn)
    for (pid, M, N, K, bn, am) in (("dot_bf16_m128_n128_k64", 128, 128, 64, False, False),
                                   ("dot_bf16_m128_n64_k128_bmn", 128, 64, 128, True, False),
                                   ("dot_bf16_m128_n64_k128_amn_bmn", 128, 64, 128, True, True)):
        probe = {"id": pid, "kind": "mma", "frontend": "tl.dot",
                 "config": dict(M=M, N=N, K=K, B_NMAJOR=bn, A_MMAJOR=am), "attempts": []}
        result["probes"].append(probe)
        log("==", pid)
        t0 = time.time()
        try:
            src = triton.compiler.ASTSource(
                fn=dot_probe,
                signature={"a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*fp32", "flag": "i32",
                           "M": "constexpr", "N": "constexpr", "K": "constexpr",
                           "B_NMAJOR": "constexpr", "A_MMAJOR": "constexpr"},
                constexprs={"M": M, "N": N, "K": K, "B_NMAJOR": bn, "A_MMAJOR": am})
            compiled = triton.compile(src, target=target, options={"num_warps": 4, "num_stages": 1})
            record(probe, compiled)
            probe["ok"] = True
        except Exception as e:  # noqa: BLE001
            probe["ok"] = False
            probe["attempts"].append({"errors": ["".join(traceback.format_exception_only(type(e), e))[-3000:]]})
            log("   failed:", repr(e)[:600])
        probe["seconds"] = round(time.time() - t0, 2)
        save()

    result["finished"] = time.strftime("%Y-%m-%d %H:%M:%S")
    ok = sum(1 for p in result["probes"] if p.get("ok"))
    log(f"{ok}/{len(result['probes'])} probes compiled")
    save()


if __name__ == "__main__":
    main()
