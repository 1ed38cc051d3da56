#!/usr/bin/env python3
"""--debug-barriers must never change results (issue 24): every sm_90a kernel
the GPU tests run, built without and with the flag, on the same inputs, must
write bit-identical outputs.

    python3 test/gpu/debug_identity_test.py LIBJFART NORMAL_DIR DEBUG_DIR

NORMAL_DIR and DEBUG_DIR hold <kernel>_sm_90a.cubin (+ .meta; a parameterized
kernel's variants as <kernel>_sm_90a.<param>=<value>....cubin) built by jfac
without and with --debug-barriers (scripts/gpu-debug-identity.sh builds both). Each case poisons its outputs identically, runs the normal
build twice and the debug build once, and compares the bytes. A kernel whose
normal build is not deterministic run to run (none is today) is reported as
such, and its debug output must then stay within the normal build's own
run-to-run spread. The attention kernels run through the jfa package, one
subprocess per build (JFA_KERNEL_DIR).
"""
import os
import subprocess
import sys
import tempfile

import torch

# The jfa package: PYTHONPATH's, else this checkout's.
sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))


def Module(lib, path):
    """A cubin loaded through the public API (jfa.load), launching through
    the runtime `lib` (a libjfart.so)."""
    os.environ["JFA_LIBRARY"] = os.path.abspath(lib)
    import jfa
    return jfa.load(path)


def launch(mod, kernel, grid, args):
    """mod.<kernel>(grid, *args) on torch's current stream; ("i32", v)
    scalars are given as v (the kernel's metadata has the type)."""
    mod[kernel](grid, *[a[1] if isinstance(a, tuple) else a for a in args])

HERE = os.path.dirname(os.path.abspath(__file__))
failures = 0
cases = 0


def as_bytes(t):
    return t.contiguous().view(torch.uint8)


def report(name, outs_a, outs_b, outs_d):
    """outs_*: lists of tensors (normal, normal again, debug)."""
    global failures, cases
    cases += 1
    same_ab = all(torch.equal(as_bytes(a), as_bytes(b)) for a, b in zip(outs_a, outs_b))
    same_ad = all(torch.equal(as_bytes(a), as_bytes(d)) for a, d in zip(outs_a, outs_d))
    nbytes = sum(a.numel() * a.element_size() for a in outs_a)
    if same_ab:
        if same_ad:
            print(f"ok   {name}: {nbytes} output bytes bit-identical with --debug-barriers",
                  flush=True)
            return
        diffs = []
        for i, (a, d) in enumerate(zip(outs_a, outs_d)):
            bad = (as_bytes(a) != as_bytes(d)).sum().item()
            if bad:
                err = (a.double() - d.double()).abs().nan_to_num(float("inf")).max().item()
                diffs.append(f"output {i}: {bad} bytes differ, max |diff| {err:.3g}")
        failures += 1
        print(f"FAIL {name}: --debug-barriers changes the results: {'; '.join(diffs)}",
              flush=True)
        return
    # The normal build differs from itself: compare against its own spread.
    spread = max((a.double() - b.double()).abs().max().item() for a, b in zip(outs_a, outs_b))
    dev = max((a.double() - d.double()).abs().max().item() for a, d in zip(outs_a, outs_d))
    ok = dev <= 2 * spread
    failures += not ok
    print(f"{'ok  ' if ok else 'FAIL'} {name}: the normal build is not deterministic "
          f"(run to run max |diff| {spread:.3g}); debug vs normal max |diff| {dev:.3g}",
          flush=True)


def case(lib, ndir, ddir, name, cubin, kernel, ins, outs_fn, scalars, grid):
    """ins: input tensors (first in the argument list), outs_fn() fresh
    poisoned outputs (after the inputs), then scalars. A kernel missing from
    the debug folder is skipped (a folder of one kernel's builds)."""
    if not os.path.exists(os.path.join(ddir, cubin)):
        return
    normal = Module(lib, os.path.join(ndir, cubin))
    debug = Module(lib, os.path.join(ddir, cubin))
    results = []
    for mod in (normal, normal, debug):
        outs = outs_fn()
        launch(mod, kernel, grid, list(ins) + list(outs) + list(scalars))
        torch.cuda.synchronize()
        results.append([o.clone() for o in outs])
    report(name, *results)


def nan(shape, dtype):
    return lambda: [torch.full(shape, float("nan"), device="cuda", dtype=dtype)]


def run_examples(lib, ndir, ddir):
    g = torch.Generator(device="cuda").manual_seed(24)

    def randn(*shape, dtype=torch.float32, scale=1.0):
        return (torch.randn(*shape, device="cuda", generator=g) * scale).to(dtype)

    # scale_ring: y = alpha * x through a 3-slot TMA ring.
    for rows, cols, grid in [(777, 264, 7), (4096, 4096, 132), (64, 64, 1)]:
        x = randn(rows, cols)
        case(lib, ndir, ddir, f"scale_ring {rows}x{cols} grid {grid}", "scale_ring_sm_90a.cubin",
             "scale_ring", [x], lambda: [torch.full_like(x, float("nan"))],
             [("i32", rows), ("i32", cols), ("f32", 0.75)], (grid,))

    # row_softmax: y and lse (a pointer) of [rows, 64] f32.
    for rows, cols, diag in [(64, 64, 1000), (100, 37, 1000), (4096, 50, 0), (130, 64, 5)]:
        x = randn(rows, 64, scale=3.0)
        lse_n = (rows + 63) // 64 * 64 + 64
        if not os.path.exists(os.path.join(ddir, "row_softmax_sm_90a.cubin")):
            break
        normal = Module(lib, os.path.join(ndir, "row_softmax_sm_90a.cubin"))
        debug = Module(lib, os.path.join(ddir, "row_softmax_sm_90a.cubin"))
        results = []
        for mod in (normal, normal, debug):
            y = torch.full_like(x, float("nan"))
            lse = torch.full((lse_n,), float("nan"), device="cuda")
            mod.row_softmax((rows + 63) // 64, x, y, lse, rows, cols, diag)
            torch.cuda.synchronize()
            results.append([y.clone(), lse.clone()])
        report(f"row_softmax rows={rows} cols={cols} diag={diag}", *results)

    # GEMM: C = A B^T, bf16.
    for m, n, k in [(4096, 4096, 4096), (777, 1000, 520), (129, 264, 72)]:
        a, b = randn(m, k, dtype=torch.bfloat16), randn(n, k, dtype=torch.bfloat16)
        grid = ((m + 127) // 128) * ((n + 255) // 256)
        case(lib, ndir, ddir, f"gemm_sm90 {m}x{n}x{k}", "gemm_sm90_sm_90a.cubin", "gemm_sm90",
             [a, b], nan((m, n), torch.bfloat16), [("i32", m), ("i32", n), ("i32", k)], (grid,))

    # The transposed-operand example, each variant (a_operand=0: A [M, K]
    # from shared memory, 1: A stored [K, M], 2: A from registers); B stored
    # [K, N]; f32 out.
    for a_operand in (0, 1, 2):
        cubin = f"matmul_sm90_sm_90a.a_operand={a_operand}.cubin"
        for m, n, k in [(128, 192, 256), (100, 72, 136), (1000, 512, 1000)]:
            if a_operand == 1:
                m = (m + 7) // 8 * 8  # A's rows (M of them) must be 16-byte multiples
                a = randn(k, m, dtype=torch.bfloat16)
            else:
                a = randn(m, k, dtype=torch.bfloat16)
            b = randn(k, n, dtype=torch.bfloat16)
            grid = ((m + 63) // 64) * ((n + 63) // 64)
            case(lib, ndir, ddir, f"matmul_sm90 a_operand={a_operand} {m}x{n}x{k}", cubin,
                 "matmul_sm90", [a, b], nan((m, n), torch.float32),
                 [("i32", m), ("i32", n), ("i32", k)], (grid,))

    # Blocked slots: two outputs.
    rows = 128 * 5
    x = randn(rows, 128, dtype=torch.bfloat16)
    case(lib, ndir, ddir, "blocked_roundtrip 640x128", "blocked_roundtrip_sm_90a.cubin",
         "blocked_roundtrip", [x],
         lambda: [torch.full_like(x, float("nan")), torch.full_like(x, float("nan"))],
         [], (rows // 128,))

    # The reproducer: row max and sum of exp2 (M = 328, grid 2), and
    # a larger M.
    for m, grid in [(328, 2), (5000, 16)]:
        x = randn(m, 128, dtype=torch.bfloat16, scale=2.0)
        case(lib, ndir, ddir, f"rowstats M={m} grid {grid}", "rowstats_sm90_sm_90a.cubin",
             "rowstats", [x], nan((m, 8), torch.float32), [("i32", m)], (grid,))


ATTENTION_CASES = [
    # (lengths, heads, head dim, causal)
    ([128, 0, 77, 300, 1], 4, 128, False),
    ([128, 0, 77, 300, 1], 4, 128, True),
    ([512, 33, 1000], 2, 64, False),
    ([512, 33, 1000], 2, 64, True),
]


def attention_child(out_path):
    """Runs in a subprocess (JFA_KERNEL_DIR picks the build): the attention
    forward and backward on seeded inputs; saves every output."""
    import jfa
    g = torch.Generator(device="cuda").manual_seed(2024)
    saved = {}
    for i, (lengths, h, d, causal) in enumerate(ATTENTION_CASES):
        t = sum(lengths)
        offs = [0]
        for n in lengths:
            offs.append(offs[-1] + n)
        offsets = torch.tensor(offs, dtype=torch.int32, device="cuda")
        q, k, v, do = (torch.randn(t, h, d, device="cuda", generator=g).to(torch.bfloat16)
                       for _ in range(4))
        o, lse = jfa.jagged_attention(q, k, v, offsets, max(lengths), causal=causal)
        dq, dk, dv = jfa.attention_backward(do, q, k, v, o, lse, offsets, max(lengths),
                                            causal=causal)
        torch.cuda.synchronize()
        saved[i] = [x.cpu() for x in (o, lse, dq, dk, dv)]
    torch.save(saved, out_path)


def run_attention(ndir, ddir, pkg_python):
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for tag, kdir in (("normal", ndir), ("normal2", ndir), ("debug", ddir)):
            path = os.path.join(tmp, tag + ".pt")
            env = dict(os.environ, JFA_KERNEL_DIR=os.path.abspath(kdir),
                       PYTHONPATH=pkg_python + os.pathsep + os.environ.get("PYTHONPATH", ""))
            r = subprocess.run([sys.executable, os.path.abspath(__file__), "--attention-child",
                                path], env=env, capture_output=True, text=True, timeout=240)
            if r.returncode != 0:
                global failures, cases
                failures += 1
                cases += 1
                print(f"FAIL attention ({tag} build): exit {r.returncode}\n{r.stdout}{r.stderr}",
                      flush=True)
                return
            paths.append(path)
        a, b, d = (torch.load(p) for p in paths)
        names = ["o", "lse", "dq", "dk", "dv"]
        for i, (lengths, h, dim, causal) in enumerate(ATTENTION_CASES):
            for j, name in enumerate(names):
                label = (f"attention {name} lengths {lengths} H={h} D={dim} "
                         f"{'causal' if causal else 'full'}")
                if name == "dq":
                    report_atomic(label, a[i][j], b[i][j], d[i][j])
                else:
                    report(label, [a[i][j]], [b[i][j]], [d[i][j]])


def report_atomic(name, a, b, d):
    """dq is summed by atomic adds in an order that changes from run to run
    (attention_backward's contract: its last bits may differ), so a
    bit-for-bit comparison proves nothing either way. Each build must stay
    within what reordering an f32 sum and rounding it to bf16 can change:
    one bf16 step of the value (2^-8 relative), plus, for values that are
    small because their terms cancel, 2^-10 of the tensor's largest value
    (the normal build differs from itself by as much near zero)."""
    global failures, cases
    cases += 1
    a, b, d = (x.double() for x in (a, b, d))
    scale = max(a.abs().max().item(), d.abs().max().item())
    bound = 2.0 ** -8 * torch.maximum(a.abs(), d.abs()) + 2.0 ** -10 * scale + 1e-30
    over = ((a - d).abs() > bound).sum().item()
    spread = (a - b).abs().max().item()
    dev = (a - d).abs().max().item()
    if over:
        failures += 1
    print(f"{'FAIL' if over else 'ok  '} {name}: summed by atomic adds (order varies by run): "
          f"normal vs normal max |diff| {spread:.3g}, debug vs normal {dev:.3g}, "
          f"{over} elements beyond one bf16 rounding step", flush=True)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--attention-child":
        attention_child(sys.argv[2])
        return 0
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    lib, ndir, ddir = sys.argv[1:4]
    pkg_python = sys.argv[4] if len(sys.argv) > 4 else ""
    print(f"debug-identity: {torch.cuda.get_device_name()}; normal {ndir}, debug {ddir}",
          flush=True)
    run_examples(lib, ndir, ddir)
    if pkg_python:
        run_attention(ndir, ddir, pkg_python)
    print(f"{'PASS' if failures == 0 else 'FAIL'}: {cases - failures}/{cases} cases "
          f"identical with and without --debug-barriers (bit for bit; dq within its "
          f"run-to-run summation-order tolerance)", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
