"""Reads cluster instructions out of PTX, Triton's or jfac's, in a form that
compares structurally (docs/TCGEN05_ORACLE.md, "Cluster instructions").

A form is the instruction's mnemonic with all its qualifiers, then the kind of
each operand: a register by its declared type (`%rd7` in `.reg .b64 %rd<9>`
is r64, `%p3` pred, a named `.reg .b128 %clc_handle` r128), an immediate
`imm`, the sink `_`, a memory operand `[...]` with the kinds inside it (a
symbol, e.g. `[jfa_smem+16]`, is `sym`). The count of an mbarrier.arrive is
`count=N` when it is an immediate or a register last set by `mov` to one.
Predicate guards (`@%p1`) are dropped. Used by test/oracle/cluster_probes.py
(on the GPU machine) and test/oracle/compare_cluster.py (here); plain Python,
no dependencies.
"""
import re

# Families of cluster instructions: (name, test on the mnemonic). A line
# belongs to the first family whose test accepts its mnemonic; compare_cluster
# compares a form of ours only with Triton's forms of the same family.
FAMILIES = [
    ("tma-load-multicast", lambda m: m.startswith("cp.async.bulk.tensor.") and ".multicast::cluster" in m),
    ("mapa", lambda m: m.startswith("mapa.")),
    ("mbarrier-arrive-cluster", lambda m: m.startswith("mbarrier.arrive") and ".shared::cluster" in m),
    ("tcgen05-commit-multicast", lambda m: m.startswith("tcgen05.commit") and ".multicast::cluster" in m),
    ("barrier-cluster-arrive", lambda m: m.startswith("barrier.cluster.arrive")),
    ("barrier-cluster-wait", lambda m: m.startswith("barrier.cluster.wait")),
    ("fence-mbarrier-init", lambda m: m.startswith("fence.mbarrier_init")),
    ("clc-try-cancel", lambda m: m.startswith("clusterlaunchcontrol.try_cancel")),
    ("clc-query-is-canceled", lambda m: m.startswith("clusterlaunchcontrol.query_cancel.is_canceled")),
    ("clc-query-ctaid", lambda m: m.startswith("clusterlaunchcontrol.query_cancel.get_first_ctaid")),
]

# Lines worth keeping from Triton's PTX as evidence, beyond the families
# (context: how it addresses peers, what it multicasts, its cluster ids).
CONTEXT = re.compile(r"(cp\.async\.bulk|mbarrier\.|tcgen05\.commit|mapa|barrier\.cluster|fence\.|"
                     r"clusterlaunchcontrol|cluster_ctarank|clusterid|cluster_nctarank|cvta\.to\.shared::cluster|"
                     r"\.reqnctapercluster|\.explicitcluster|\.maxclusterrank|ld\.shared::cluster|st\.shared::cluster)")


def family(mnemonic):
    for name, test in FAMILIES:
        if test(mnemonic):
            return name
    return None


_DECL = re.compile(r"\.reg\s+\.(\w+)\s+(%?[A-Za-z_$][\w$]*)(<\d+>)?")
_MOV_CONST = re.compile(r"^\s*mov\.[busf]\d+\s+(%\w+)\s*,\s*(-?(?:0[xX][0-9a-fA-F]+|\d+))\s*;")


def _type_kind(t):
    if t == "pred":
        return "pred"
    m = re.fullmatch(r"[bus](\d+)", t)
    if m:
        return "r" + m.group(1)
    return t  # f32, f64, ...


def register_kinds(ptx):
    """Register name (or name prefix, for `%r<9>` declarations) -> kind."""
    kinds = {}
    for m in _DECL.finditer(ptx):
        kinds[m.group(2)] = _type_kind(m.group(1))
    return kinds


def _reg_kind(tok, kinds):
    if tok in kinds:
        return kinds[tok]
    base = re.sub(r"\d+$", "", tok)
    if base in kinds:
        return kinds[base]
    return "reg?"


def _split_operands(s):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def _operand_kind(op, kinds):
    op = op.strip()
    if op.startswith("[") and op.endswith("]"):
        return "[" + ", ".join(_operand_kind(x, kinds) for x in _split_operands(op[1:-1])) + "]"
    if op.startswith("{") and op.endswith("}"):
        return "{" + ", ".join(_operand_kind(x, kinds) for x in _split_operands(op[1:-1])) + "}"
    if op == "_":
        return "_"
    m = re.fullmatch(r"(%?[A-Za-z_$][\w$]*)\s*\+\s*-?\w+", op)
    if m:  # register or symbol plus an offset
        base = m.group(1)
        return (_reg_kind(base, kinds) if base.startswith("%") else "sym") + "+imm"
    if op.startswith("%") or re.fullmatch(r"[A-Za-z_$][\w$]*", op) and op in kinds:
        return _reg_kind(op, kinds)
    if re.fullmatch(r"-?(0[xX][0-9a-fA-F]+|\d+)[uU]?|0[fFdD][0-9a-fA-F]+", op):
        return "imm"
    return "sym"


def _int(s):
    return int(s, 16) if s.lower().startswith(("0x", "-0x")) else int(s)


def instructions(ptx):
    """Every instruction line (without comments, guards and the `;`), with
    the constant each register was last set to by a mov (for counts)."""
    consts = {}
    for raw in ptx.splitlines():
        line = raw.split("//")[0].strip()
        if not line or line.startswith((".", "{", "}")) or line.endswith(":"):
            continue
        m = _MOV_CONST.match(line)
        if m:
            consts[m.group(1)] = _int(m.group(2))
        for stmt in line.split(";"):
            stmt = stmt.strip()
            if not stmt:
                continue
            stmt = re.sub(r"^@!?%?\w+\s+", "", stmt)
            yield stmt, dict(consts)


def normalize(stmt, kinds, consts=None):
    """The form of one instruction: 'mnemonic kind, kind, ...'."""
    consts = consts or {}
    parts = stmt.split(None, 1)
    mnemonic = parts[0]
    ops = _split_operands(parts[1]) if len(parts) > 1 else []
    out = []
    for i, op in enumerate(ops):
        k = _operand_kind(op, kinds)
        if (mnemonic.startswith("mbarrier.arrive") and i == len(ops) - 1 and i >= 2
                and not op.startswith("[")):
            # the count of an arrive: its value where it is known
            v = _int(op) if re.fullmatch(r"-?\d+|0[xX][0-9a-fA-F]+", op) else consts.get(op)
            k = f"count={v}" if v is not None else k
        out.append(k)
    return (mnemonic + " " + ", ".join(out)).strip()


def extract(ptx, families_only=True):
    """[(family, form, raw line)] for the cluster instructions in ptx; with
    families_only=False also the context lines (family None)."""
    kinds = register_kinds(ptx)
    res = []
    for stmt, consts in instructions(ptx):
        mnemonic = stmt.split(None, 1)[0]
        fam = family(mnemonic)
        if fam is None and (families_only or not CONTEXT.search(stmt)):
            continue
        res.append((fam, normalize(stmt, kinds, consts), stmt))
    return res
