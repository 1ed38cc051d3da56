"""The Triton side of the cluster-instruction oracle (docs/TCGEN05_ORACLE.md,
"Cluster instructions"). Run ON THE GPU MACHINE (Triton 3.6, PyTorch; no GPU
of the target's kind is needed, nothing is launched):

    python3 test/oracle/cluster_probes.py OUT_DIR

Compiles small Gluon (and Triton / TTGIR) kernels that use each cluster
feature for sm_100a (GPUTarget("cuda", 100, 32)) and, where it applies, sm_90a
(GPUTarget("cuda", 90, 32)), and writes OUT_DIR/cluster_triton.json: Triton's
version, what its Gluon modules export (dir() and the signatures of the
functions the probes call), and per probe the variant that compiled, every
error of the variants that did not, and the cluster instructions of its PTX
normalized by test/oracle/cluster_ptx.py (mnemonic with all qualifiers, kinds
of operands), with the raw lines; OUT_DIR/ptx/<probe>.ptx holds the PTX.

Gluon's cluster API changed a lot after 3.6 (multicast TMA / tcgen05 commit,
cluster barriers, remote arrivals and CLC arrived on main from Dec 2025 on),
so every probe tries several spellings, each in try/except: one run tells
what this Triton offers. A probe none of whose variants compiles is recorded
with ok=0 and the errors; the run itself always completes.
"""
import inspect
import json
import os
import pathlib
import sys
import tempfile
import traceback

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import cluster_ptx  # noqa: E402

import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402

OUT = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("OUT", "."))
(OUT / "ptx").mkdir(parents=True, exist_ok=True)
R = {"triton_version": triton.__version__, "api": {}, "signatures": {}, "probes": []}


def _save():
    (OUT / "cluster_triton.json").write_text(json.dumps(R, indent=1))


def _mod(path):
    try:
        return __import__(path, fromlist=["_"])
    except Exception as e:  # noqa: BLE001
        R["api"][path] = f"import failed: {e!r}"
        return None


GL_PATH = "triton.experimental.gluon"
gluon = _mod(GL_PATH)
gl = _mod(GL_PATH + ".language")
hopper = _mod(GL_PATH + ".language.nvidia.hopper")
blackwell = _mod(GL_PATH + ".language.nvidia.blackwell")
MODULES = {}
for name in ("language.nvidia.hopper", "language.nvidia.hopper.tma", "language.nvidia.hopper.mbarrier",
             "language.nvidia.hopper.cluster", "language.nvidia.blackwell", "language.nvidia.blackwell.tma",
             "language.nvidia.blackwell.clc", "language.nvidia.ampere.mbarrier"):
    m = _mod(f"{GL_PATH}.{name}")
    if m is not None:
        MODULES[name] = m
        R["api"][f"{GL_PATH}.{name}"] = sorted(x for x in dir(m) if not x.startswith("__"))
for name, m in MODULES.items():
    for fn in ("async_copy_global_to_shared", "tcgen05_commit", "tcgen05_mma", "arrive", "expect", "wait",
               "barrier", "try_cancel", "load_result", "is_canceled", "get_first_ctaid", "make_tensor_descriptor"):
        f = getattr(m, fn, None)
        if f is None:
            continue
        f = getattr(f, "__wrapped__", f)
        try:
            R["signatures"][f"{name}.{fn}"] = str(inspect.signature(f))
        except Exception as e:  # noqa: BLE001
            R["signatures"][f"{name}.{fn}"] = repr(e)
for lay in ("NVMMASharedLayout", "BlockedLayout", "SwizzledSharedLayout"):
    c = getattr(gl, lay, None) if gl else None
    if c is not None:
        try:
            R["signatures"][f"language.{lay}"] = str(inspect.signature(c))
        except Exception as e:  # noqa: BLE001
            R["signatures"][f"language.{lay}"] = repr(e)
_save()

ARCH = {"sm_90a": 90, "sm_100a": 100}


def compile_gluon(fn, arch, sig, constexprs, num_ctas=1, num_warps=4):
    src = gluon._runtime.GluonASTSource(fn, {p: sig.get(p, "constexpr") for p in fn.arg_names},
                                        constexprs=constexprs)
    opts = {"num_warps": num_warps}
    if num_ctas > 1:
        opts["num_ctas"] = num_ctas
    return triton.compile(src, target=GPUTarget("cuda", ARCH[arch], 32), options=opts)


def compile_triton(fn, arch, sig, constexprs, num_ctas=1, num_warps=4):
    src = triton.compiler.ASTSource(fn, {p: sig.get(p, "constexpr") for p in fn.arg_names},
                                    constexprs=constexprs)
    opts = {"num_warps": num_warps, "num_ctas": num_ctas}
    return triton.compile(src, target=GPUTarget("cuda", ARCH[arch], 32), options=opts)


def compile_ttgir(text, arch):
    with tempfile.NamedTemporaryFile("w", suffix=".ttgir", delete=False) as f:
        f.write(text.replace("@CC@", str(ARCH[arch])))
    return triton.compile(f.name, target=GPUTarget("cuda", ARCH[arch], 32))


def probe(pid, arch, what, variants):
    """variants: [(description, thunk returning a CompiledKernel)]; the first
    that compiles is kept."""
    p = {"id": pid, "arch": arch, "what": what, "ok": 0, "errors": []}
    for desc, thunk in variants:
        try:
            k = thunk()
            ptx = k.asm["ptx"]
        except Exception:  # noqa: BLE001
            p["errors"].append({"variant": desc, "error": traceback.format_exc()[-2000:]})
            continue
        (OUT / "ptx" / f"{pid}.{arch}.ptx").write_text(ptx)
        ttgir = k.asm.get("ttgir", "")
        found = cluster_ptx.extract(ptx, families_only=False)
        p.update(ok=1, variant=desc,
                 forms=sorted({(f, n) for f, n, _ in found if f}),
                 lines=sorted({raw for f, _, raw in found if f}),
                 context=sorted({raw for f, _, raw in found if not f})[:200],
                 ttgir_cluster=[x.strip() for x in ttgir.splitlines()
                                if any(s in x for s in ("cluster", "multicast", "clc", "num-ctas", "CGA", "cga"))][:100])
        break
    print(f"{pid} {arch}: ok={p['ok']} {p.get('variant', '')} "
          f"{'' if p['ok'] else p['errors'][-1]['error'].strip().splitlines()[-1] if p['errors'] else ''}",
          flush=True)
    R["probes"].append(p)
    _save()


# ---------------------------------------------------------------- Gluon kernels
if gluon is not None and gl is not None and hopper is not None:
    C = gl.constexpr
    tma = hopper.tma
    mbarrier = hopper.mbarrier

    @gluon.jit
    def _noop():
        pass

    def _cluster_mod():
        return MODULES.get("language.nvidia.hopper.cluster") or getattr(hopper, "cluster", None)

    @gluon.jit
    def k_tma(a_ptr, L: C, V: C):
        # A 128x64 bf16 box of a 256x64 tensor, loaded by TMA into every CTA of
        # the cluster (V picks the API spelling).
        desc = tma.make_tensor_descriptor(a_ptr, shape=[256, 64], strides=[64, 1], block_shape=[128, 64],
                                          layout=L)
        s = gl.allocate_shared_memory(gl.bfloat16, [128, 64], L)
        bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
        mbarrier.init(bar, count=1)
        mbarrier.expect(bar, 16384)
        if V == 0:
            tma.async_copy_global_to_shared(desc, [0, 0], bar, s, multicast=True)
        elif V == 1:
            tma.async_copy_global_to_shared(desc, [0, 0], bar, s)
        mbarrier.wait(bar, 0)

    def nvmma(kind):
        if kind == "plain":
            return gl.NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16, rank=2)
        if kind == "cga-broadcast":  # main after Dec 2025: a CGA basis of 0 = both CTAs hold the tile
            return gl.NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16, rank=2,
                                        cga_layout=[[0, 0]])
        if kind == "ctas-per-cga":  # the older CTALayout fields
            return gl.NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16, rank=2,
                                        ctas_per_cga=[2, 1], cta_split_num=[1, 1], cta_order=[1, 0])
        raise ValueError(kind)

    for arch in ("sm_90a", "sm_100a"):
        probe("tma_multicast", arch, "a TMA load of one box into both CTAs of a cluster of 2 "
              "(cp.async.bulk.tensor...multicast::cluster)",
              [(f"num_ctas=2, layout {lk}, {'multicast=True' if v == 0 else 'no kwarg'}",
                (lambda lk=lk, v=v, arch=arch: compile_gluon(k_tma, arch, {"a_ptr": "*bf16"},
                                                             {"L": nvmma(lk), "V": v}, num_ctas=2)))
               for lk, v in (("cga-broadcast", 0), ("plain", 0), ("ctas-per-cga", 0), ("cga-broadcast", 1),
                             ("ctas-per-cga", 1))])

    @gluon.jit
    def k_arrive_remote(V: C):
        bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
        mbarrier.init(bar, count=2)
        if V == 0:
            mbarrier.arrive(bar, count=1, from_cta=0)
        elif V == 1:
            mbarrier.arrive(bar, count=1, cta=1)
        elif V == 2:
            mbarrier.arrive(bar, count=1, remote_cta=1)
        mbarrier.wait(bar, 0)

    for arch in ("sm_90a", "sm_100a"):
        probe("mbarrier_arrive_remote", arch, "an arrival on a peer CTA's mbarrier "
              "(mapa + mbarrier.arrive.release.cluster.shared::cluster)",
              [(desc, (lambda v=v, arch=arch: compile_gluon(k_arrive_remote, arch, {}, {"V": v}, num_ctas=2)))
               for v, desc in ((0, "arrive(from_cta=0), num_ctas=2"), (1, "arrive(cta=1), num_ctas=2"),
                               (2, "arrive(remote_cta=1), num_ctas=2"), (3, "plain arrive, num_ctas=2"))])

    @gluon.jit
    def k_cluster_barrier(V: C):
        cl = hopper.cluster
        if V == 0:
            cl.arrive(relaxed=True)
            cl.wait()
            cl.arrive()
            cl.wait()
        else:
            cl.barrier(relaxed=True)
            cl.barrier()

    for arch in ("sm_90a", "sm_100a"):
        variants = [(f"hopper.cluster.{'arrive/wait' if v == 0 else 'barrier'}, num_ctas={n}",
                     (lambda v=v, n=n, arch=arch: compile_gluon(k_cluster_barrier, arch, {}, {"V": v}, num_ctas=n)))
                    for v in (0, 1) for n in (2, 1)]
        probe("cluster_barrier", arch, "barrier.cluster.arrive(.relaxed)(.aligned) / barrier.cluster.wait", variants)

    def _fence_names():
        out = []
        for mname, m in MODULES.items():
            for x in dir(m):
                if "fence" in x.lower() and ("init" in x.lower() or "cluster" in x.lower()):
                    out.append((mname, x))
        return out

    @gluon.jit
    def k_fence(F: C):
        bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
        mbarrier.init(bar, count=1)
        F()
        mbarrier.arrive(bar)
        mbarrier.wait(bar, 0)

    for arch in ("sm_90a", "sm_100a"):
        variants = [(f"{mname}.{x}(), num_ctas={n}",
                     (lambda mname=mname, x=x, n=n, arch=arch:
                      compile_gluon(k_fence, arch, {}, {"F": getattr(MODULES[mname], x)}, num_ctas=n)))
                    for mname, x in _fence_names() for n in (2, 1)]
        variants.append(("mbarrier.init alone, num_ctas=2 (a fence Triton may add itself)",
                         lambda arch=arch: compile_gluon(k_fence, arch, {}, {"F": _noop}, num_ctas=2)))
        probe("fence_mbarrier_init", arch, "fence.mbarrier_init.release.cluster", variants)

if gluon is not None and blackwell is not None:
    bw = blackwell
    clc = MODULES.get("language.nvidia.blackwell.clc") or getattr(blackwell, "clc", None)

    @gluon.jit
    def k_commit(L: C, T: C, V: C):
        a = gl.allocate_shared_memory(gl.bfloat16, [128, 64], L)
        b = gl.allocate_shared_memory(gl.bfloat16, [128, 64], L)
        acc = bw.allocate_tensor_memory(gl.float32, [128, 128], T)
        bar = gl.allocate_shared_memory(gl.int64, [1], bw.mbarrier.MBarrierLayout())
        bw.mbarrier.init(bar, count=1)
        if V == 0:
            bw.tcgen05_mma(a, b.permute((1, 0)), acc, use_acc=False, multicast=True)
            bw.tcgen05_commit(bar, descs=[a, b])
        elif V == 1:
            bw.tcgen05_mma(a, b.permute((1, 0)), acc, use_acc=False)
            bw.tcgen05_commit(bar, descs=[a, b])
        elif V == 2:
            bw.tcgen05_mma(a, b.permute((1, 0)), acc, use_acc=False)
            bw.tcgen05_commit(bar, multicast=True)
        else:
            bw.tcgen05_mma(a, b.permute((1, 0)), acc, use_acc=False)
            bw.tcgen05_commit(bar)
        bw.mbarrier.wait(bar, 0)

    def tmem(n):
        try:
            return bw.TensorMemoryLayout(block=(128, n), col_stride=1)
        except TypeError:
            return bw.TensorMemoryLayout(block=(128, n), unpacked=True)

    probe("tcgen05_commit_multicast", "sm_100a", "tcgen05.commit ... .multicast::cluster (an MMA whose "
          "operand is shared by the cluster, num_ctas=2)",
          [(f"layout {lk}, V={v}",
            (lambda lk=lk, v=v: compile_gluon(k_commit, "sm_100a", {}, {"L": nvmma(lk), "T": tmem(128), "V": v},
                                              num_ctas=2)))
           for lk, v in (("cga-broadcast", 0), ("cga-broadcast", 1), ("plain", 1), ("plain", 2),
                         ("ctas-per-cga", 1), ("ctas-per-cga", 3))])

    @gluon.jit
    def k_clc(out, MC: C, V: C):
        res = gl.allocate_shared_memory(gl.int64, [2], gl.SwizzledSharedLayout(1, 1, 1, [0]))
        bar = gl.allocate_shared_memory(gl.int64, [1], bw.mbarrier.MBarrierLayout())
        bw.mbarrier.init(bar, count=1)
        bw.mbarrier.expect(bar, 16)
        if V == 0:
            clc.try_cancel(res, bar, multicast=MC)
        else:
            clc.try_cancel(res, bar)
        bw.mbarrier.wait(bar, 0)
        if V == 0 or V == 1:
            r = clc.load_result(res)
            ok = r.is_canceled()
            x = r.program_id(0)
        else:
            ok = clc.is_canceled(res)
            x = clc.get_first_ctaid(res, 0)
        gl.store(out, gl.where(ok, x, -1))

    variants = []
    for n, mc in ((1, False), (2, True), (2, False)):
        for v in (0, 1, 2):
            if v != 0 and mc:
                continue
            variants.append((f"num_ctas={n}, V={v}, multicast={mc}",
                             (lambda n=n, mc=mc, v=v: compile_gluon(k_clc, "sm_100a", {"out": "*i32"},
                                                                    {"MC": mc, "V": v}, num_ctas=n))))
    probe("clc", "sm_100a", "clusterlaunchcontrol.try_cancel (.multicast::cluster::all) + query_cancel "
          "is_canceled / get_first_ctaid::x", [v for v in variants if "num_ctas=1" in v[0]])
    probe("clc_multicast", "sm_100a", "clusterlaunchcontrol.try_cancel in a cluster of 2 (multicast response)",
          [v for v in variants if "num_ctas=2" in v[0]])


# ----------------------------------------------- TTGIR: ops Triton 3.6 has below Gluon
TTGIR_CLUSTER = """
module attributes {"ttg.num-ctas" = 2 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:@CC@", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @cluster_sync() attributes {noinline = false} {
    ttng.cluster_arrive {relaxed = true}
    ttng.cluster_wait
    ttng.cluster_arrive {relaxed = false}
    ttng.cluster_wait
    tt.return
  }
}
"""
for arch in ("sm_90a", "sm_100a"):
    probe("ttgir_cluster_sync", arch, "ttng.cluster_arrive {relaxed} / ttng.cluster_wait written as TTGIR "
          "(the ops under Gluon's cluster API)",
          [("ttgir num-ctas=2", lambda arch=arch: compile_ttgir(TTGIR_CLUSTER, arch)),
           ("ttgir num-ctas=1", lambda arch=arch: compile_ttgir(TTGIR_CLUSTER.replace(
               '"ttg.num-ctas" = 2', '"ttg.num-ctas" = 1'), arch))])

# ------------------------------------ plain Triton with num_ctas=2: what it adds itself
import triton.language as tl  # noqa: E402


@triton.jit
def t_matmul(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, D: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    if D:
        ad = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
        bd = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
        for k in range(0, K, BK):
            a = ad.load([pm * BM, k])
            b = bd.load([pn * BN, k])
            acc = tl.dot(a, b.T, acc)
    else:
        rm = pm * BM + tl.arange(0, BM)
        rn = pn * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        for k in range(0, K, BK):
            a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
            b = tl.load(b_ptr + rn[:, None] * K + (k + rk)[None, :])
            acc = tl.dot(a, b.T, acc)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


for arch in ("sm_90a", "sm_100a"):
    sig = {"a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*fp32", "M": "i32", "N": "i32", "K": "i32"}
    probe("triton_matmul_num_ctas2", arch, "a plain Triton matmul with num_ctas=2 (whatever cluster "
          "instructions Triton inserts by itself)",
          [(f"tl.dot, {'tensor descriptors' if d else 'pointers'}, BM={bm}, num_ctas=2",
            (lambda d=d, bm=bm, arch=arch: compile_triton(t_matmul, arch, sig,
                                                          {"BM": bm, "BN": 128, "BK": 64, "D": d},
                                                          num_ctas=2, num_warps=4 if bm == 128 else 8)))
           for d in (1, 0) for bm in (256, 128)])

print(json.dumps({p["id"] + "." + p["arch"]: p["ok"] for p in R["probes"]}))
print(f"wrote {OUT / 'cluster_triton.json'}")
