"""Compares the cluster instructions jfac emits with Triton's
(docs/TCGEN05_ORACLE.md, "Cluster instructions").

    compare_cluster.py JFAC REFERENCE.json KERNELS_DIR [--strict]
    compare_cluster.py --self-test

REFERENCE.json is what test/oracle/cluster_probes.py wrote on the GPU machine
(cluster_triton.json). Compiles kernels/gemm/gemm_multicast_sm90.mlir for
sm_90a, gemm_multicast_sm100.mlir and gemm_persistent_sm100.mlir for sm_100a,
and a small cluster kernel with cluster launch control (the multicast
try_cancel) for sm_100a, with `JFAC compile K --arch A --emit=ptx -o F`;
reads their cluster instructions with cluster_ptx.py (mnemonic with every
qualifier, operand kinds) and checks each form against Triton's forms of the
same family for the same architecture, after the rewrites in EQUIVALENT
(applied to both sides). One line per form:

  OK          a Triton form is the same (naming the equivalences used)
  MISMATCH    Triton emits this family, but none of its forms is ours
  UNCOVERED   Triton (this version) emitted no instruction of the family:
              nothing to compare (a failure only with --strict)

Exits 1 on a mismatch, a jfac failure, or (--strict) an uncovered form.
"""
import json
import pathlib
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import cluster_ptx  # noqa: E402

KERNELS = [("gemm/gemm_multicast_sm90.mlir", "sm_90a"),
           ("gemm/gemm_multicast_sm100.mlir", "sm_100a"),
           ("gemm/gemm_persistent_sm100.mlir", "sm_100a")]

# The multicast try_cancel (.multicast::cluster::all) appears only in a cluster
# kernel with cluster launch control, which kernels/ does not have yet.
CANCEL_CLUSTER = """
jfa.kernel @cancel_cluster(%out: !jfa.ptr<i32>) warps(4) cluster(2, 1, 1) {
  %responses = jfa.local_alloc : !jfa.smem<1 x 4xi32>
  %bars = jfa.alloc_barriers arrive_count(1) : !jfa.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %none = arith.constant -1 : i32
  %r = jfa.slot %responses[%c0] : !jfa.smem<1 x 4xi32>, i32
  %b = jfa.barrier %bars[%c0] : !jfa.mbarriers<1>, i32
  jfa.barrier_expect %b, bytes(16)
  jfa.try_cancel %r, %b : !jfa.slot<4xi32>
  jfa.barrier_wait %b, %c0
  %taken, %x, %y, %z = jfa.query_cancel %r : !jfa.slot<4xi32>
  %next = arith.select %taken, %x, %none : i32
  jfa.store %next, %out[%c0] : i32, !jfa.ptr<i32>
}
"""

# name -> (reason, rewrite of a form). Each rewrite maps a form to a canonical
# one; both sides are rewritten, and a name is reported when it changed
# either side of the match.
EQUIVALENT = {
    "aligned": ("`.aligned` on barrier.cluster only promises that every thread of the warp executes "
                "the same instruction (convergence at the call site); the barrier is the same",
                lambda f: re.sub(r"^(barrier\.cluster\.\S*?)\.aligned\b", r"\1", f)),
    "default-sem": ("barrier.cluster.arrive is .release and barrier.cluster.wait .acquire when no "
                    ".sem is written (PTX ISA, barrier.cluster)",
                    lambda f: re.sub(r"^barrier\.cluster\.arrive\.release\b", "barrier.cluster.arrive",
                                     re.sub(r"^barrier\.cluster\.wait\.acquire\b", "barrier.cluster.wait", f))),
    "mapa-width": ("mapa.shared::cluster.u32 and .u64 compute the same peer address, in a 32- or "
                   "64-bit register",
                   lambda f: re.sub(r"^mapa\.shared::cluster\.u(32|64) r(32|64), r(32|64)",
                                    "mapa.shared::cluster.uN rN, rN", f)),
    "arrive-count-one": ("an mbarrier.arrive with the count 1 is the arrive without a count (the "
                         "count defaults to 1)",
                         lambda f: re.sub(r"^(mbarrier\.arrive\S*) (.*), count=1$", r"\1 \2", f)),
    "address-operand": ("a shared-memory address in a 32- or 64-bit register, or a symbol plus an "
                        "offset, is the same kind of operand (PTX allows either width for shared "
                        "state spaces; which object it names is not compared)",
                        lambda f: re.sub(r"\[(r32|r64|sym)(\+imm)?(?=[\],])", "[addr", f)),
    "commit-state-space": ("tcgen05.commit with `.shared::cluster` and a shared::cta address names "
                           "the same barrier as the generic-addressed form (as in the tcgen05 oracle)",
                           lambda f: f.replace(".mbarrier::arrive::one.shared::cluster.",
                                               ".mbarrier::arrive::one.") if f.startswith("tcgen05.commit") else f),
    "clc-state-space": ("clusterlaunchcontrol.try_cancel with `.shared::cta` and shared::cta "
                        "addresses is the generic-addressed form on the same objects",
                        lambda f: f.replace("try_cancel.async.shared::cta.", "try_cancel.async.")),
}


def canon(form):
    used = set()
    for name, (_, fn) in EQUIVALENT.items():
        new = fn(form)
        if new != form:
            used.add(name)
            form = new
    return form, used


def reference_forms(ref):
    """arch -> family -> {form}, from the probes that compiled."""
    out = {}
    for p in ref.get("probes", []):
        if not p.get("ok"):
            continue
        for fam, form in p.get("forms", []):
            out.setdefault(p["arch"], {}).setdefault(fam, set()).add(form)
    return out


def compare(ours, ref_forms):
    """ours: {(arch, family, form): [kernel names]}. Returns (lines, failed, uncovered)."""
    lines, failed, uncovered = [], 0, 0
    for (arch, fam, form), where in sorted(ours.items()):
        theirs = ref_forms.get(arch, {}).get(fam, set())
        src = f"[{', '.join(sorted(set(where)))}]"
        if not theirs:
            uncovered += 1
            lines.append(f"UNCOVERED {arch} {form}  {src} (Triton emitted no {fam} for {arch})")
            continue
        c, used = canon(form)
        match = [(t, canon(t)) for t in sorted(theirs)]
        hit = [(t, u) for t, (ct, u) in match if ct == c]
        if hit:
            t, u = hit[0]
            eq = sorted(used | u) if t != form else []
            lines.append(f"OK {arch} {form}" + (f"  (equivalent: {', '.join(eq)})" if eq else "") + f"  {src}")
        else:
            failed += 1
            lines.append(f"MISMATCH {arch} {form}  {src}")
            for t in sorted(theirs):
                lines.append(f"  Triton: {t}")
    return lines, failed, uncovered


def our_forms(jfac, kernels_dir):
    ours, errors = {}, []
    with tempfile.TemporaryDirectory() as tmp:
        extra = pathlib.Path(tmp) / "cancel_cluster.mlir"
        extra.write_text(CANCEL_CLUSTER)
        jobs = [(kernels_dir / k, a, pathlib.Path(k).stem) for k, a in KERNELS]
        jobs.append((extra, "sm_100a", "cancel_cluster (embedded)"))
        for path, arch, name in jobs:
            out = pathlib.Path(tmp) / (path.stem + "." + arch + ".ptx")
            res = subprocess.run([jfac, "compile", str(path), "--arch", arch, "--emit=ptx", "-o", str(out)],
                                 capture_output=True, text=True)
            if res.returncode != 0:
                errors.append(f"FAIL {name} {arch}: jfac failed:\n{res.stderr}")
                continue
            for fam, form, _ in cluster_ptx.extract(out.read_text()):
                ours.setdefault((arch, fam, form), []).append(name)
    return ours, errors


def report(lines, failed, uncovered, version, strict):
    for line in lines:
        print(line)
    used = set()
    for line in lines:
        m = re.search(r"\(equivalent: ([^)]*)\)", line)
        if m:
            used |= set(m.group(1).split(", "))
    for name in sorted(used):
        print(f"equivalent {name}: {EQUIVALENT[name][0]}")
    n = sum(1 for x in lines if not x.startswith("  "))
    print(f"Triton {version}: {n - failed - uncovered} of {n} cluster instruction forms match, "
          f"{failed} differ, {uncovered} uncovered")
    return 1 if failed or (strict and uncovered) else 0


# ----------------------------------------------------------------- self-test
SELF_OURS = """
.reg .pred %p<4>;
.reg .b16 %rs<3>;
.reg .b32 %r<80>;
.reg .b64 %rd<40>;
fence.mbarrier_init.release.cluster;
barrier.cluster.arrive.relaxed.aligned;
barrier.cluster.wait.aligned;
mapa.shared::cluster.u64 \t%rd35, %rd33, %r3;
mov.b32 \t%r69, 1;
@%p1 mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%rd35], %r69;
mov.b16 \t%rs1, 3;
cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%rd5], [%rd2, {%r274, %r7}], [%rd6], %rs1;
tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 \t[%rd18+229408], %rs1;
barrier.cluster.arrive;
barrier.cluster.wait;
{
.reg .b128 %clc_handle;
clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p3, %clc_handle;
}
"""
SELF_TRITON = """
.reg .pred %p<9>;
.reg .b16 %rs<5>;
.reg .b32 %r<90>;
.reg .b64 %rd<20>;
.reg .b128 %rq<3>;
@%p2 fence.mbarrier_init.release.cluster;
barrier.cluster.arrive.relaxed.aligned;
barrier.cluster.wait.aligned;
barrier.cluster.arrive.aligned;
mapa.shared::cluster.u32 %r5, %r4, %r3;
@%p1 mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r5];
@%p1 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%r7], [%rd5, {%r8, %r9}], [%r6], %rs2;
tcgen05.commit.cta_group::1.mbarrier::arrive::one.multicast::cluster.b64 [%rd9], %rs3;
clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p4, %rq1;
"""
SELF_EXPECT_FORMS = {
    "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [r64], count=1",
    "mapa.shared::cluster.u64 r64, r64, r32",
    "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster "
    "[r64], [r64, {r32, r32}], [r64], r16",
    "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [r64+imm], r16",
    "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 pred, r128",
    "barrier.cluster.arrive",
}


def self_test():
    ok = True

    def check(cond, what):
        nonlocal ok
        print(("pass " if cond else "FAIL ") + what)
        ok &= bool(cond)

    ours = {("sm_100a", f, n): ["self"] for f, n, _ in cluster_ptx.extract(SELF_OURS)}
    forms = {n for _, _, n in ours}
    for f in sorted(SELF_EXPECT_FORMS):
        check(f in forms, f"normalizes to: {f}")
    def compare_to(triton_ptx):
        """Ours against a reference probe of this PTX text; its lines printed."""
        ref = {"probes": [{"arch": "sm_100a", "ok": 1,
                           "forms": [[f, n] for f, n, _ in cluster_ptx.extract(triton_ptx)]}]}
        lines, failed, unc = compare(ours, reference_forms(ref))
        for line in lines:
            print("  | " + line)
        return lines, failed, unc

    lines, failed, unc = compare_to(SELF_TRITON)
    check(failed == 0, "the embedded reference matches every form (0 mismatches)")
    check(unc == 0, "no form is uncovered")
    for name in ("aligned", "mapa-width", "arrive-count-one", "address-operand", "commit-state-space"):
        check(any(name in x for x in lines if x.startswith("OK")), f"equivalence {name} used")
    # Planted faults: Triton's multicast copy takes a 32-bit mask, its arrive
    # has the count 2, and it has no query_cancel at all.
    bad = SELF_TRITON.replace("[%r6], %rs2", "[%r6], %r10").replace(
        "_, [%r5];", "_, [%r5], 2;").replace(
        "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p4, %rq1;", "")
    lines, failed, unc = compare_to(bad)
    check(failed == 2, "planted: exactly 2 mismatches")
    check(any(x.startswith("MISMATCH sm_100a cp.async.bulk.tensor") for x in lines), "planted: mask width")
    check(any(x.startswith("MISMATCH sm_100a mbarrier.arrive") for x in lines), "planted: arrive count")
    check(unc == 1 and any(x.startswith("UNCOVERED sm_100a clusterlaunchcontrol.query_cancel") for x in lines),
          "planted: query_cancel uncovered")
    check(report(lines, failed, unc, "self-test", strict=False) == 1, "exit status 1 on a mismatch")
    print("self-test " + ("OK" if ok else "FAILED"))
    return 0 if ok else 1


def main():
    args = [a for a in sys.argv[1:] if a != "--strict"]
    if args and args[0] == "--self-test":
        sys.exit(self_test())
    if len(args) != 3:
        sys.exit(__doc__)
    jfac, reference, kernels = args[0], pathlib.Path(args[1]), pathlib.Path(args[2])
    ref = json.loads(reference.read_text())
    ours, errors = our_forms(jfac, kernels)
    for e in errors:
        print(e)
    lines, failed, unc = compare(ours, reference_forms(ref))
    rc = report(lines, failed, unc, ref.get("triton_version", "?"), "--strict" in sys.argv)
    sys.exit(1 if errors else rc)


if __name__ == "__main__":
    main()
