"""Compares jfac's tcgen05 encodings with Triton's (docs/TCGEN05_ORACLE.md).

    compare.py JFAC REFERENCE.json INPUTS_DIR
    compare.py --cover JFAC REFERENCE.json KERNELS_DIR
    compare.py --mutate REFERENCE.json OUT.json

For every configuration in the reference (test/oracle/tcgen05_triton.json,
made from Triton 3.6's PTX by scripts/tcgen05_oracle.py), compiles the DSL
kernel INPUTS_DIR/<id>.mlir for sm_100a to PTX and reads its encodings with
scripts/tcgen05_ptx.py, then compares field by field:

  MMA: the number of tcgen05.mma (k steps), the whole 32-bit instruction
  descriptor, where A comes from, every field of both shared-memory
  descriptors but the start address, the start address's advance per k
  step, A's tensor-memory column per k step, the enable-input-d flag per k
  step (the kernel's argument first, then 1), the accumulator's lane field,
  the commit's completion mechanism.
  Tensor memory: the ld/st shape, packing, the lane each warp reaches,
  the columns covered, the columns each allocation asks for, the dealloc;
  for a stored tile of known values (element (r, c) = c), the bits of every
  tcgen05.st register: the column it carries and, for bf16, which half.

--cover checks that every tcgen05 instruction jfac emits for the real
kernels (every declared variant) has the encoding of one of Triton's in the
reference (all fields but where the operands sit); --mutate writes a
reference with six planted errors, for the test that the comparison fails.

A difference is a failure unless it is one of the equivalences listed in
EQUIVALENT (each explained in docs/TCGEN05_ORACLE.md): then it is printed
as "equivalent". Prints one line per configuration and a summary; exits 1
on any mismatch.
"""
import json
import pathlib
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "scripts"))
import tcgen05_ptx  # noqa: E402

# Differences that are not errors, with the reason (docs/TCGEN05_ORACLE.md).
EQUIVALENT = {
    "lbo-unused": "the leading-dimension byte offset is not read for this operand "
                  "(K-major swizzled, or MN-major within one swizzle atom): "
                  "Triton writes 0, jfac 1 (CUTLASS's convention)",
    "collector-a-discard": "`.collector::a::discard` is the default collector usage; "
                           "jfac spells it out (NVVM's tcgen05.mma prints it), Triton leaves it implied",
    "commit-state-space": "Triton commits to a generic-addressed mbarrier (`.b64` with the "
                          "zero-extended shared::cta address); jfac names the state space "
                          "(`.shared::cluster.b64` with the shared::cta address, which lies "
                          "in the shared::cluster window): the same barrier",
    "ld-split": "a tile moved in more or fewer tcgen05.ld/st instructions (another .xN) "
                "covering the same lanes and columns",
}

FIELDS = ["lbo_shr4", "sbo_shr4", "fixed_46_48", "base_offset", "lbo_mode",
          "swizzle", "bits14_15", "bits30_31", "bits53_60"]


class Report:
    def __init__(self, cid):
        self.cid, self.errors, self.equivalent = cid, [], set()

    def check(self, what, ours, theirs, equivalence=None):
        if ours == theirs:
            return True
        if equivalence:
            self.equivalent.add(equivalence)
            return True
        self.errors.append(f"{what}: jfac {ours!r}, Triton {theirs!r}")
        return False


def _lbo_unused(idesc_fields, operand, desc_fields, extent_bytes):
    """Whether the LBO of `operand` ('a' or 'b') is not read: K-major with a
    swizzle, or MN-major spanning one swizzle atom along M/N."""
    swizzle_bytes = {2: 128, 4: 64, 6: 32}.get(desc_fields["swizzle"])
    if swizzle_bytes is None:
        return False
    transposed = idesc_fields["transpose_a" if operand == "a" else "transpose_b"]
    return not transposed or extent_bytes <= swizzle_bytes


def _elem_bytes(opcode):
    """Bytes of an operand element of a tcgen05.mma: kind::f8f6f4 is 8-bit
    here (e4m3/e5m2), kind::f16 16-bit."""
    return 1 if "kind::f8f6f4" in opcode else 2


def _opcode_base(op, rep):
    if ".collector::a::discard" in op:
        rep.equivalent.add("collector-a-discard")
        op = op.replace(".collector::a::discard", "")
    return op


def compare_mma(rep, ours, ref):
    om, tm = ours["mma"], ref["mma"]
    if not rep.check("number of tcgen05.mma", len(om), len(tm)):
        return
    tid = tm[0]["idesc_fields"]
    m, n = tid["m_shr4"] << 4, tid["n_shr3"] << 3
    elem_bytes = _elem_bytes(tm[0]["opcode"])
    for k, (o, t) in enumerate(zip(om, tm)):
        rep.check(f"k{k} opcode", _opcode_base(o["opcode"], rep), _opcode_base(t["opcode"], rep))
        if not rep.check(f"k{k} idesc", o.get("idesc_hex"), t.get("idesc_hex")):
            rep.errors.append(f"  jfac idesc fields {o.get('idesc_fields')}")
            rep.errors.append(f"  Triton idesc fields {t.get('idesc_fields')}")
        rep.check(f"k{k} enable-input-d", o["enable_input_d"], t["enable_input_d"])
        for name, d in (("d", o["d_taddr"]), ("d(Triton)", t["d_taddr"])):
            if not isinstance(d, int) or d >> 16:
                rep.errors.append(f"k{k} {name} tensor-memory address {d!r} is not lane 0")
        if not rep.check(f"k{k} A from tensor memory", o["a_in_tmem"], t["a_in_tmem"]):
            return
        operands = [("b", n)] if o["a_in_tmem"] else [("a", m), ("b", n)]
        for op, extent in operands:
            of, tf = o.get(f"{op}_desc_fields"), t.get(f"{op}_desc_fields")
            if of is None or tf is None:
                rep.errors.append(f"k{k} {op} descriptor not evaluated: jfac {o.get(op + '_desc')!r}, "
                                  f"Triton {t.get(op + '_desc')!r}")
                continue
            for f in FIELDS:
                eq = None
                if f == "lbo_shr4" and _lbo_unused(tid, op, tf, extent * elem_bytes):
                    eq = "lbo-unused"
                rep.check(f"k{k} {op}-descriptor {f}", of[f], tf[f], eq)
            # The start address advances by the same amount per k step.
            o0, t0 = om[0][f"{op}_desc_fields"], tm[0][f"{op}_desc_fields"]
            rep.check(f"k{k} {op}-descriptor start advance (16 B units)",
                      of["start_shr4"] - o0["start_shr4"], tf["start_shr4"] - t0["start_shr4"])
        if o["a_in_tmem"]:
            oa, ta = o.get("a_taddr"), t.get("a_taddr")
            if not (isinstance(oa, int) and isinstance(ta, int)):
                rep.errors.append(f"k{k} A tensor-memory address not evaluated: {oa!r} {ta!r}")
                continue
            rep.check(f"k{k} A lane field", oa >> 16, ta >> 16)
            rep.check(f"k{k} A column advance", oa - om[0]["a_taddr"], ta - tm[0]["a_taddr"])
    oc = [_commit(c["opcode"], rep) for c in ours["commit"]]
    tc = [_commit(c["opcode"], rep) for c in ref["commit"]]
    rep.check("tcgen05.commit", sorted(set(oc)), sorted(set(tc)))


def _commit(op, rep):
    if ".shared::cluster" in op:
        rep.equivalent.add("commit-state-space")
        op = op.replace(".shared::cluster", "")
    return op


def _accesses(recs):
    """Per ld/st: (shape, pack, lanes of warps 0..3, column range)."""
    out = set()
    cols = {}
    for r in recs:
        a = r["taddr_by_tid"]
        if not all(isinstance(a[t], int) for t in ("0", "1", "31", "32", "64", "96")):
            out.add(("unevaluated", repr(a)))
            continue
        lanes = tuple(a[t] >> 16 for t in ("0", "32", "64", "96"))
        same_warp = a["0"] == a["1"] == a["31"]
        col = a["0"] & 0xFFFF
        key = (r["shape"], r["pack"], lanes, same_warp)
        cols.setdefault(key, set()).update(range(col, col + r["registers"]))
        out.add(key + (r["num"],))
    return out, {k: (min(v), max(v) + 1, len(v)) for k, v in cols.items()}


def compare_tmem(rep, ours, ref):
    for kind in ("ld", "st"):
        if not rep.check(f"tcgen05.{kind} present", bool(ours[kind]), bool(ref[kind])):
            continue
        oa, ocols = _accesses(ours[kind])
        ta, tcols = _accesses(ref[kind])
        if oa != ta:
            strip = lambda s: {x[:-1] for x in s}  # noqa: E731
            rep.check(f"tcgen05.{kind} shape/pack/lanes", sorted(strip(oa)), sorted(strip(ta)),
                      "ld-split" if strip(oa) == strip(ta) else None)
        rep.check(f"tcgen05.{kind} columns [first, end, count]", ocols, tcols)
    rep.check("tcgen05.alloc columns", [a["ncols"] for a in ours["alloc"]],
              [a["ncols"] for a in ref["alloc"]])
    rep.check("tcgen05.dealloc columns", [a["ncols"] for a in ours["dealloc"]],
              [a["ncols"] for a in ref["dealloc"]])
    rep.check("tcgen05.relinquish_alloc_permit", len(ours["relinquish"]) > 0,
              len(ref["relinquish"]) > 0)


def compare_values(rep, ours, ref):
    """A tile of known values stored to tensor memory: the same access, and
    every tcgen05.st register holds the same bits (the column it carries,
    and for 16-bit elements which half of it holds which column)."""
    compare_tmem(rep, ours, ref)
    os_, ts = ours["st"], ref["st"]
    if rep.check("number of tcgen05.st", len(os_), len(ts)):
        for i, (o, t) in enumerate(zip(os_, ts)):
            if None in t["values"]:
                rep.errors.append(f"st{i}: Triton's registers are not all constants")
            for r, (ov, tv) in enumerate(zip(o["values"], t["values"])):
                if not rep.check(f"st{i} register {r}",
                                 None if ov is None else hex(ov), None if tv is None else hex(tv)):
                    break


def _mma_key(m):
    """What an MMA instruction's encoding is, but where its operands sit:
    the kind (the same descriptor means e4m3 under kind::f8f6f4 and f16
    under kind::f16), the instruction descriptor, where A comes from, the
    descriptor fields but the start address (and an LBO that is not read)."""
    idf = m.get("idesc_fields")
    if idf is None:
        return ("unevaluated", repr(m.get("idesc")))
    size = _elem_bytes(m["opcode"])
    extents = {"a": (idf["m_shr4"] << 4) * size, "b": (idf["n_shr3"] << 3) * size}
    kind = next((p for p in m["opcode"].split(".") if p.startswith("kind::")), None)
    key = [kind, m["idesc_hex"], m["a_in_tmem"]]
    for op in ("b",) if m["a_in_tmem"] else ("a", "b"):
        f = m.get(f"{op}_desc_fields")
        if f is None:
            key.append(("unevaluated", repr(m.get(f"{op}_desc"))))
            continue
        f = {k: v for k, v in f.items() if k != "start_shr4"}
        if _lbo_unused(idf, op, f, extents[op]):
            f["lbo_shr4"] = "unused"
        key.append(tuple(sorted(f.items())))
    return tuple(key)


def _ldst_key(kind, r):
    a = r["taddr_by_tid"]
    if not all(isinstance(a[t], int) for t in ("0", "1", "31", "32", "64", "96")):
        return ("unevaluated", kind, repr(a))
    return (kind, r["shape"], r["num"], r["pack"],
            tuple(a[t] >> 16 for t in ("0", "32", "64", "96")), a["0"] == a["1"] == a["31"])


def _pending(reference):
    """The encodings the oracle has no Triton probe for yet, by kernel:
    test/oracle/pending.txt beside the reference, lines `kernel opcode-part
    reason` (e.g. `gemm/gemm_pair_sm100.mlir cta_group::2 ...`). Such an
    encoding is reported, not failed; every other one still fails."""
    path = reference.parent / "pending.txt"
    out = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                kernel, part, reason = line.split(None, 2)
                out[(kernel, part)] = reason
    return out


def cover(jfac, reference, kernels_dir):
    """Every tcgen05.mma / ld / st that jfac emits for the kernels in
    kernels_dir (every declared variant) must be an encoding the oracle
    compared: the same key as one of Triton's in the reference, or one
    test/oracle/pending.txt lists (reported as pending, with its reason)."""
    pending = _pending(reference)
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "scripts"))
    import kernel_variants
    ref = json.loads(reference.read_text())
    known = set()
    for cfg in ref["configs"]:
        enc = cfg.get("encodings", {})
        known |= {_mma_key(m) for m in enc.get("mma", [])}
        known |= {_ldst_key(k, r) for k in ("ld", "st") for r in enc.get(k, [])}
    failed = 0
    for kernel in sorted(kernels_dir.rglob("*.mlir")):
        # Every kernel that compiles for sm_100a (its tcgen05 ops may sit in
        # helpers it imports from kernels/lib/); those without any are
        # skipped below.
        first = kernel.read_text().split("\n", 1)[0]
        if kernel.is_relative_to(kernels_dir / "lib") or (
                first.startswith("// jfa-targets:") and "sm_100a" not in first):
            continue
        counts = {"mma": 0, "ld": 0, "st": 0}
        missing, waiting = set(), set()
        for variant in kernel_variants.variants(kernel):
            params = [f"-P{n}={v}" for n, v in variant]
            res = subprocess.run([jfac, "compile", str(kernel), "--arch", "sm_100a", *params,
                                  "--emit=ptx", "-o", "-"], capture_output=True, text=True)
            if res.returncode != 0:
                print(f"FAIL {kernel.name} {params}: jfac failed:\n{res.stderr}")
                failed += 1
                continue
            enc = tcgen05_ptx.analyze(res.stdout)
            keys = [("mma", _mma_key(m)) for m in enc["mma"]]
            keys += [(k, _ldst_key(k, r)) for k in ("ld", "st") for r in enc[k]]
            rel = str(kernel.relative_to(kernels_dir))
            opcodes = [m["opcode"] for m in enc["mma"]] + [""] * (len(keys) - len(enc["mma"]))
            for (kind, key), opcode in zip(keys, opcodes):
                counts[kind] += 1
                if key in known:
                    continue
                why = next((r for (k, part), r in pending.items()
                            if k == rel and part in opcode), None)
                if why:
                    waiting.add((kind, key, why))
                else:
                    missing.add((kind, key, " ".join(params)))
        rel = kernel.relative_to(kernels_dir)
        for kind, key, why in sorted(waiting, key=repr):
            print(f"PENDING {rel}: {kind} {key}: {why}")
        if not any(counts.values()) and not missing:
            continue
        if missing:
            failed += 1
            print(f"FAIL {rel}: encodings the oracle has not compared with Triton's "
                  f"(add a probe and an Inputs/ twin, docs/TCGEN05_ORACLE.md):")
            for kind, key, params in sorted(missing, key=repr):
                print(f"  {kind} {params}: {key}")
        else:
            print(f"covered {rel}: {counts['mma']} tcgen05.mma, {counts['ld']} tcgen05.ld, "
                  f"{counts['st']} tcgen05.st")
    sys.exit(1 if failed else 0)


def mutate(src, dst):
    """A reference with six deliberate errors (for the test that the
    comparison fails when it should): a transpose bit of an instruction
    descriptor, an SBO, a swizzle mode, a k-step advance of A in tensor
    memory, the column of a tensor-memory load, the halves of a packed bf16
    register."""
    ref = json.loads(pathlib.Path(src).read_text())
    by_id = {c["id"]: c["encodings"] for c in ref["configs"]}

    def redecode(m):
        for key in ("a_desc", "b_desc"):
            if isinstance(m.get(key), int):
                m[key + "_fields"] = tcgen05_ptx.decode_smem_desc(m[key])
                m[key + "_hex"] = hex(m[key])
        m["idesc_fields"] = tcgen05_ptx.decode_idesc(m["idesc"])
        m["idesc_hex"] = hex(m["idesc"])
    for m in by_id["ss_bf16_m128_n256_k64_sw128"]["mma"]:
        m["idesc"] ^= 1 << 16
        redecode(m)
    for m in by_id["ss_bf16_m128_n128_k64_sw128"]["mma"]:
        m["b_desc"] += 1 << 32
        redecode(m)
    for m in by_id["ss_bf16_m128_n64_k32_sw64"]["mma"]:
        m["a_desc"] ^= 6 << 61
        redecode(m)
    for k, m in enumerate(by_id["ts_bf16_m128_n64_k128_bmn_sw128"]["mma"]):
        m["a_taddr"] += k * 8
    for m in by_id["tmem_f32_128x256_ld_col64"]["ld"]:
        m["taddr_by_tid"] = {t: a + 64 for t, a in m["taddr_by_tid"].items()}
    v = by_id["tmem_values_bf16_128x128"]["st"][0]["values"]
    v[0] = ((v[0] & 0xFFFF) << 16) | (v[0] >> 16)
    pathlib.Path(dst).write_text(json.dumps(ref))


def main():
    if sys.argv[1] == "--mutate":
        return mutate(sys.argv[2], sys.argv[3])
    if sys.argv[1] == "--cover":
        return cover(sys.argv[2], pathlib.Path(sys.argv[3]), pathlib.Path(sys.argv[4]))
    jfac, reference, inputs = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
    ref = json.loads(reference.read_text())
    failed = compared = 0
    used = set()
    for cfg in ref["configs"]:
        cid = cfg["id"]
        rep = Report(cid)
        if "encodings" not in cfg:
            print(f"FAIL {cid}: the reference has no Triton encodings ({cfg.get('error')})")
            failed += 1
            continue
        kernel = inputs / f"{cid}.mlir"
        res = subprocess.run([jfac, "compile", str(kernel), "--arch", "sm_100a", "--emit=ptx",
                              "-o", "-"], capture_output=True, text=True)
        if res.returncode != 0:
            print(f"FAIL {cid}: jfac failed:\n{res.stderr}")
            failed += 1
            continue
        ours = tcgen05_ptx.analyze(res.stdout)
        {"mma": compare_mma, "tmem": compare_tmem,
         "values": compare_values}[cfg["kind"]](rep, ours, cfg["encodings"])
        compared += 1
        used |= rep.equivalent
        if rep.errors:
            failed += 1
            print(f"FAIL {cid} ({cfg['what']}):")
            for e in rep.errors:
                print(f"  {e}")
        else:
            eq = f" (equivalent: {', '.join(sorted(rep.equivalent))})" if rep.equivalent else ""
            print(f"OK {cid}{eq}")
    for name in sorted(used):
        print(f"equivalent {name}: {EQUIVALENT[name]}")
    print(f"Triton {ref['triton_version']}: {compared - failed if compared >= failed else 0} of "
          f"{len(ref['configs'])} configurations match, {failed} differ")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
