"""Reads the tcgen05 encodings out of a PTX file, whoever wrote it.

Used on both sides of the tcgen05 oracle (docs/TCGEN05_ORACLE.md):
scripts/tcgen05_oracle.py runs it on the PTX Triton writes for sm_100a (on
the GPU machine, where Triton is), test/oracle/compare.py on the PTX jfac
writes for the same configurations. Pure Python 3, no dependencies.

The constants that matter (the 32-bit instruction descriptor, the 64-bit
shared-memory matrix descriptors, tensor-memory addresses) are seldom
literal: compilers build them with mov/or/shl/add from constants and
addresses. So this module interprets the PTX: each operand of a tcgen05
instruction is evaluated through the definitions above it (the last one
before the use, in text order, honouring predicated definitions), with
concrete values for what is not known at compile time: a thread index
(`tid`), every kernel parameter (`param`: 0, or 1 where 0 divides by
zero), 0 for shared-memory symbols and for every load (so a tensor-memory
base read back after tcgen05.alloc is 0, and an address is its offset).
Evaluating twice with two parameter values tells a flag that follows a
kernel argument ("dynamic") from a constant. It follows straight-line code
and the first trip of a loop (a value that reaches a use only around a back
edge, from a block placed below, takes the first definition below): the
probe kernels, and the fields that do not depend on where a buffer is in
the real kernels.
"""
import re

__all__ = ["Program", "Unknown", "analyze", "decode_idesc", "decode_smem_desc"]


class Unknown(Exception):
    """A value the interpreter cannot know (an unsupported instruction)."""


class _AroundALoop(Unknown):
    """A register that depends on itself around a loop (Program._reg)."""

    def __init__(self, reg, message):
        super().__init__(message)
        self.reg = reg


_TYPE_RE = re.compile(r"^(b|u|s|f)(8|16|32|64|128)$")
_INT_RE = re.compile(r"^-?(0[xX][0-9a-fA-F]+|\d+)U?$")
_SPECIAL = {"%tid.x", "%tid.y", "%tid.z", "%ctaid.x", "%ctaid.y", "%ctaid.z",
            "%laneid", "%warpid", "%ntid.x", "%ntid.y", "%ntid.z",
            "%nctaid.x", "%nctaid.y", "%nctaid.z", "%cluster_ctarank",
            "%cluster_nctarank", "%clusterid.x", "%cluster_ctaid.x"}
# Opcode roots whose first operand is a destination.
_DEST_ROOTS = {"mov", "add", "sub", "mul", "mad", "shl", "shr", "and", "or",
               "xor", "not", "cvt", "cvta", "selp", "setp", "set", "ld", "ldu",
               "shfl", "bfe", "bfi", "prmt", "min", "max", "div", "rem", "neg",
               "abs", "shf", "elect", "mapa", "atom", "activemask", "popc",
               "clz", "brev", "lop3", "fma", "ex2", "rcp", "sqrt", "vote",
               "match", "redux", "getctarank", "isspacep", "ldmatrix", "mul24",
               "mad24", "sad", "copysign", "testp", "tanh", "lg2", "sin", "cos",
               "applypriority", "createpolicy", "cvt.pack", "dp4a", "dp2a"}


def _strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def _split_top(s, sep=","):
    parts, depth, cur = [], 0, []
    for ch in s:
        if ch in "{[(":
            depth += 1
        elif ch in "}])":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur).strip())
    return parts


class Stmt:
    __slots__ = ("index", "guard", "opcode", "parts", "operands", "dests", "text")

    def __init__(self, index, guard, opcode, operands, text):
        self.index, self.guard, self.opcode = index, guard, opcode
        self.parts = opcode.split(".")
        self.operands = operands
        self.text = text
        self.dests = []
        root = self.parts[0]
        if operands and not operands[0].startswith("[") and (
                root in _DEST_ROOTS or opcode.startswith("tcgen05.ld")
                or (root == "mbarrier" and ("wait" in opcode or "arrive" in opcode))):
            self.dests = _dest_names(operands[0])

    def type_width(self, which=-1):
        types = [p for p in self.parts if _TYPE_RE.match(p) or p == "pred"]
        if not types:
            return 32
        t = types[which]
        return 1 if t == "pred" else int(_TYPE_RE.match(t).group(2))

    def signed(self, which=-1):
        types = [p for p in self.parts if _TYPE_RE.match(p) or p == "pred"]
        return bool(types) and types[which].startswith("s")


def _dest_names(op):
    op = op.strip()
    if op.startswith("{"):
        return [x.strip() for x in op[1:-1].split(",")]
    return [x.strip() for x in op.split("|")]


def _parse(text):
    stmts = []
    # Directives that end at the line, not at ';' (.loc, .file, .reqntid,
    # the kernel's header and parameter list), go first.
    lines = []
    for line in _strip_comments(text).splitlines():
        t = line.strip()
        if (t.startswith(".") and not t.endswith(";")) or t == ")":
            continue
        lines.append(line)
    for chunk in "\n".join(lines).split(";"):
        s = chunk.strip()
        while True:
            before = s
            s = s.lstrip("{})").strip()
            m = re.match(r"^[$\w.]+:(?!:)", s)  # a label (not a '::' qualifier)
            if m:
                s = s[m.end():].strip()
            if s == before:
                break
        if not s or s.startswith("."):
            continue
        guard = None
        m = re.match(r"^@(!?)(%?[\w$.]+)\s+", s)
        if m:
            guard = (m.group(1) == "!", m.group(2))
            s = s[m.end():]
        m = re.match(r"^([\w.:]+)\s*(.*)$", s, flags=re.S)
        if not m:
            continue
        opcode, rest = m.group(1), " ".join(m.group(2).split())
        stmts.append(Stmt(len(stmts), guard, opcode, _split_top(rest), s))
    return stmts


def _mask(v, width):
    return v & ((1 << width) - 1)


def _to_signed(v, width):
    v = _mask(v, width)
    return v - (1 << width) if v >> (width - 1) else v


class Program:
    """A PTX text, parsed, with an evaluator of registers at a statement."""

    def __init__(self, text):
        self.stmts = _parse(text)
        self.defs = {}
        for st in self.stmts:
            for d in st.dests:
                self.defs.setdefault(d, []).append(st.index)
        self._memo = {}
        self._active = set()

    # -- evaluation ---------------------------------------------------------
    def value(self, operand, at, env):
        """The value of `operand` read by statement `at` under `env`
        ({'tid': int, 'param': int})."""
        op = operand.strip()
        if op.startswith("!"):
            return 1 - self.value(op[1:], at, env)
        if _INT_RE.match(op):
            return int(op.rstrip("U"), 0)
        if re.match(r"^0[dDfF][0-9a-fA-F]+$", op):
            raise Unknown(f"float immediate {op}")
        if op in _SPECIAL:
            tid = env.get("tid", 0)
            return {"%tid.x": tid, "%laneid": tid % 32, "%warpid": tid // 32,
                    "%ntid.x": env.get("threads", 128)}.get(op, 0 if "ctaid" in op or "cluster" in op or ".y" in op or ".z" in op else 1)
        if op.startswith("{"):
            raise Unknown(f"vector operand {op}")
        m = re.match(r"^([%\w$.]+)\s*\+\s*(-?\w+)$", op)
        if m and m.group(1) not in self.defs:
            return self.value(m.group(1), at, env) + int(m.group(2), 0)
        if op in self.defs:
            return self._reg(op, at, env)
        if re.match(r"^[A-Za-z_$][\w$]*$", op):
            # A symbol: a shared-memory window (address 0) or a parameter.
            if re.search(r"_param_\d+$", op):
                return env.get("param", 0)
            return env.get("symbol", 0)
        raise Unknown(f"operand {op}")

    def _reg(self, reg, at, env):
        key = (reg, at, tuple(sorted(env.items())))
        if key in self._memo:
            return self._memo[key]
        if key in self._active:
            raise _AroundALoop(reg, f"{reg} depends on itself around a loop")
        self._active.add(key)
        try:
            try:
                return self._reg_def(reg, at, env, key)
            except _AroundALoop as e:
                if e.reg != reg:
                    raise
                # A value carried around a loop (a ring counter): its value
                # on entry, from its first definition in program order. The
                # fields compared (all but an address) are the same on
                # every trip; a second cycle gives up (Unknown).
                return self._entry_value(reg, env, key)
        finally:
            self._active.discard(key)

    def _entry_value(self, reg, env, key):
        for i in sorted(self.defs.get(reg, [])):
            st = self.stmts[i]
            if st.guard is not None:
                continue
            v = self._exec(st, reg, env)
            self._memo[key] = v
            return v
        raise Unknown(f"{reg} depends on itself around a loop and has no unguarded definition")

    def _reg_def(self, reg, at, env, key):
        defs = self.defs.get(reg, [])
        # The last definition above the use; a value that reaches the use
        # around a loop's back edge from a block placed below it has none
        # above: then the first one below.
        idxs = [i for i in defs if i < at] or [i for i in reversed(defs) if i > at]
        while idxs:
            st = self.stmts[idxs[-1]]
            if st.guard is not None:
                neg, p = st.guard
                try:
                    g = self.value(p, st.index, env)
                except Unknown:
                    g = 1
                if bool(g) == neg:  # not executed
                    idxs.pop()
                    continue
            v = self._exec(st, reg, env)
            self._memo[key] = v
            return v
        raise Unknown(f"{reg} has no definition before statement {at}")

    def _exec(self, st, reg, env):
        ops, root, p = st.operands, st.parts[0], st.parts
        val = lambda i: self.value(ops[i], st.index, env)  # noqa: E731
        w = st.type_width()
        if root == "mov":
            if ops[0].startswith("{"):  # unpack a wide register
                names = _dest_names(ops[0])
                k = names.index(reg)
                part = w // len(names)
                return _mask(val(1) >> (part * k), part)
            if ops[1].startswith("{"):
                names = _dest_names(ops[1])
                part = w // len(names)
                v = 0
                for k, n in enumerate(names):
                    v |= _mask(self.value(n, st.index, env), part) << (part * k)
                return v
            return _mask(val(1), w)
        if root == "ld":
            addr = ops[1].strip("[]").split("+")[0].strip()
            if "param" in p or re.search(r"_param_\d+$", addr):
                return env.get("param", 0)
            return 0
        if root == "cvta":
            return val(1)
        if root == "cvt":
            if any(x in p for x in ("f32", "f64", "f16", "bf16", "rn", "rz", "rm", "rp")) and not all(
                    _TYPE_RE.match(x) and x[0] in "bus" for x in p[-2:]):
                raise Unknown(f"float conversion {st.opcode}")
            wd, ws = st.type_width(-2), st.type_width(-1)
            v = val(1)
            v = _to_signed(v, ws) if st.signed(-1) else _mask(v, ws)
            return _mask(v, wd)
        if root in ("add", "sub", "mul", "mad", "div", "rem", "min", "max", "and", "or",
                    "xor", "shl", "shr", "not", "neg", "abs", "popc", "mul24", "mad24"):
            if any(x in p for x in ("f32", "f64", "f16", "bf16", "f16x2", "bf16x2")):
                raise Unknown(f"float arithmetic {st.opcode}")
            a = val(1)
            if root in ("not", "neg", "abs", "popc"):
                return _mask({"not": ~a, "neg": -a,
                              "abs": abs(_to_signed(a, w)),
                              "popc": bin(_mask(a, w)).count("1")}[root], w)
            b = val(2)
            sg = st.signed()
            if sg:
                a, b = _to_signed(a, w), _to_signed(b, w)
            else:
                a, b = _mask(a, w), _mask(b, w)
            if root == "add":
                return _mask(a + b, w)
            if root == "sub":
                return _mask(a - b, w)
            if root in ("mul", "mul24"):
                r = a * b
                if "hi" in p:
                    return _mask(r >> w, w)
                return _mask(r, 2 * w if "wide" in p else w)
            if root in ("mad", "mad24"):
                c = val(3)
                r = a * b
                if "wide" in p:
                    return _mask(r + c, 2 * w)
                if "hi" in p:
                    return _mask((r >> w) + c, w)
                return _mask(r + c, w)
            if root == "div":
                if b == 0:
                    raise Unknown("division by zero")
                return _mask(int(a / b) if sg else a // b, w)
            if root == "rem":
                if b == 0:
                    raise Unknown("remainder by zero")
                return _mask(a - b * int(a / b) if sg else a % b, w)
            if root == "min":
                return _mask(min(a, b), w)
            if root == "max":
                return _mask(max(a, b), w)
            if root == "and":
                return 1 if w == 1 and (a & b) else _mask(a & b, w)
            if root == "or":
                return _mask(a | b, w)
            if root == "xor":
                return _mask(a ^ b, w)
            if root == "shl":
                return _mask(a << _mask(b, 32), w) if _mask(b, 32) < w else 0
            if root == "shr":
                sh = _mask(b, 32)
                if sg:
                    return _mask(a >> min(sh, w - 1), w)
                return _mask(a, w) >> sh if sh < w else 0
        if root == "shf":
            lo, hi, sh = _mask(val(1), 32), _mask(val(2), 32), _mask(val(3), 32)
            sh = min(sh, 32) if "clamp" in p else sh % 32
            both = (hi << 32) | lo
            if "l" in p:
                return _mask((both << sh) >> 32, 32)
            return _mask(both >> sh, 32)
        if root == "bfe":
            a, pos, ln = val(1), _mask(val(2), 32) & 0xFF, _mask(val(3), 32) & 0xFF
            r = (_mask(a, w) >> pos) & ((1 << ln) - 1) if ln else 0
            if st.signed() and ln and (r >> (ln - 1)) & 1:
                r -= 1 << ln
            return _mask(r, w)
        if root == "bfi":
            f, b, pos, ln = val(1), val(2), _mask(val(3), 32) & 0xFF, _mask(val(4), 32) & 0xFF
            m = ((1 << ln) - 1) << pos
            return _mask((b & ~m) | ((f << pos) & m), w)
        if root == "prmt":
            a, b, c = _mask(val(1), 32), _mask(val(2), 32), _mask(val(3), 32)
            if len(p) > 2 and p[2] in ("f4e", "b4e", "rc8", "ecl", "ecr", "rc16"):
                raise Unknown(f"prmt mode {st.opcode}")
            src = (b << 32) | a
            r = 0
            for k in range(4):
                sel = (c >> (4 * k)) & 0xF
                byte = (src >> (8 * (sel & 7))) & 0xFF
                if sel & 8:
                    byte = 0xFF if byte & 0x80 else 0
                r |= byte << (8 * k)
            return r
        if root == "selp":
            return _mask(val(1) if val(3) else val(2), w)
        if root in ("setp", "set"):
            cmp = p[1]
            tw = st.type_width()
            a, b = val(1), val(2)
            if st.signed():
                a, b = _to_signed(a, tw), _to_signed(b, tw)
            else:
                a, b = _mask(a, tw), _mask(b, tw)
            r = {"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b, "gt": a > b,
                 "ge": a >= b, "lo": a < b, "ls": a <= b, "hi": a > b, "hs": a >= b}.get(cmp)
            if r is None:
                raise Unknown(f"comparison {st.opcode}")
            if len(ops) > 3 and any(x in p for x in ("and", "or", "xor")):
                c = self.value(ops[3], st.index, env)
                r = (r and c) if "and" in p else (r or c) if "or" in p else (bool(r) != bool(c))
            names = st.dests
            return int(bool(r)) if reg == names[0] else int(not r)
        if root == "elect":
            lane = env.get("tid", 0) % 32
            names = st.dests
            leader = lane == 0
            return int(leader) if reg == names[-1] and len(names) > 1 else 0
        if root == "shfl":
            # Probe code shuffles warp-uniform values (the warp index).
            return val(1)
        if root == "activemask":
            return 0xFFFFFFFF
        raise Unknown(f"unsupported {st.opcode}")


# -- decoders -----------------------------------------------------------------

def decode_idesc(v):
    """The fields of a tcgen05.mma kind::f16 instruction descriptor."""
    return {
        "sparsity_selector": v & 3, "sparsity": (v >> 2) & 1,
        "saturate": (v >> 3) & 1, "d_type": (v >> 4) & 3, "bit6": (v >> 6) & 1,
        "a_type": (v >> 7) & 7, "b_type": (v >> 10) & 7,
        "negate_a": (v >> 13) & 1, "negate_b": (v >> 14) & 1,
        "transpose_a": (v >> 15) & 1, "transpose_b": (v >> 16) & 1,
        "n_shr3": (v >> 17) & 0x3F, "bit23": (v >> 23) & 1,
        "m_shr4": (v >> 24) & 0x1F, "bit29": (v >> 29) & 1,
        "max_shift": (v >> 30) & 3,
    }


def decode_smem_desc(v):
    """The fields of an sm_100 shared-memory matrix descriptor."""
    return {
        "start_shr4": v & 0x3FFF, "bits14_15": (v >> 14) & 3,
        "lbo_shr4": (v >> 16) & 0x3FFF, "bits30_31": (v >> 30) & 3,
        "sbo_shr4": (v >> 32) & 0x3FFF, "fixed_46_48": (v >> 46) & 7,
        "base_offset": (v >> 49) & 7, "lbo_mode": (v >> 52) & 1,
        "bits53_60": (v >> 53) & 0xFF, "swizzle": (v >> 61) & 7,
    }


SWIZZLE_NAMES = {0: "none", 1: "128B_base32B", 2: "128B", 4: "64B", 6: "32B"}


# -- extraction -----------------------------------------------------------------

def _try(fn):
    try:
        return fn()
    except Unknown as e:
        return {"unknown": str(e)}
    except (RecursionError, ValueError, IndexError) as e:
        return {"unknown": f"{type(e).__name__}: {e}"}


def _first(fn):
    """fn(0), or fn(1) where that is unknown (a division by a parameter)."""
    try:
        return fn(0)
    except Unknown:
        return fn(1)


def _addr_operand(op):
    op = op.strip()
    assert op.startswith("["), op
    inner = op[1:-1].strip()
    m = re.match(r"^(.*?)\s*\+\s*(-?\w+)$", inner)
    if m:
        return m.group(1).strip(), int(m.group(2), 0)
    return inner, 0


def analyze(text, threads=128):
    """Everything tcgen05 in one PTX text, in text order (see the module
    docstring for what is evaluated how)."""
    prog = Program(text)
    out = {"mma": [], "ld": [], "st": [], "alloc": [], "dealloc": [],
           "relinquish": [], "commit": [], "fence": [], "wait": [], "other": []}
    env0 = {"tid": 0, "param": 0, "threads": threads}
    env1 = {"tid": 0, "param": 1, "threads": threads}

    def ev1(op, st, env):
        if op.startswith("["):
            base, off = _addr_operand(op)
            return prog.value(base, st.index, env) + off
        return prog.value(op, st.index, env)

    def ev(op, st, env=None):
        """`op` with the parameters 0, or, where that fails (a division by a
        parameter), 1."""
        if env is not None:
            return ev1(op, st, env)
        try:
            return ev1(op, st, env0)
        except Unknown:
            return ev1(op, st, env1)

    for st in prog.stmts:
        if not st.opcode.startswith("tcgen05."):
            continue
        kind = st.parts[1]
        rec = {"opcode": st.opcode, "guarded": st.guard is not None}
        ops = st.operands
        if kind == "mma":
            rec["operands"] = len(ops)
            rec["d_taddr"] = _try(lambda: ev(ops[0], st))
            a_in_tmem = ops[1].startswith("[")
            rec["a_in_tmem"] = a_in_tmem
            if a_in_tmem:
                rec["a_taddr"] = _try(lambda: ev(ops[1], st))
            else:
                rec["a_desc"] = _try(lambda: ev(ops[1], st))
            rec["b_desc"] = _try(lambda: ev(ops[2], st))
            rec["idesc"] = _try(lambda: ev(ops[3], st))
            # [d], a, b, idesc, (disable-output-lane vector,) enable-input-d
            en = ops[5] if len(ops) > 5 and ops[4].startswith("{") else ops[4]
            rec["disable_output_lane"] = ops[4].startswith("{")
            e0 = _try(lambda: ev(en, st, env0))
            e1 = _try(lambda: ev(en, st, env1))
            if isinstance(e0, int) and isinstance(e1, int):
                rec["enable_input_d"] = bool(e0) if e0 == e1 else "dynamic"
            else:
                rec["enable_input_d"] = {"unknown": str(e0)}
            out["mma"].append(rec)
        elif kind in ("ld", "st"):
            shape = next((x for x in st.parts if re.match(r"^\d+x\d+b$", x)), None)
            num = next((x for x in st.parts if re.match(r"^x\d+$", x)), None)
            rec.update(shape=shape, num=num,
                       pack=next((x for x in st.parts if x in ("pack::16b", "unpack::16b")), None))
            vec = ops[0] if kind == "ld" else ops[1]
            addr = ops[1] if kind == "ld" else ops[0]
            rec["registers"] = len(_dest_names(vec))
            if kind == "st":
                # What each register holds where it is a constant (a tile
                # whose values fold), else None.
                vals = []
                for r in _dest_names(vec):
                    v = _try(lambda: ev(r, st))
                    vals.append(v if isinstance(v, int) else None)
                rec["values"] = vals
            addrs = {}
            for tid in (0, 1, 31, 32, 64, 96):
                a = _try(lambda: _first(lambda p: ev(addr, st, {"tid": tid, "param": p,
                                                                "threads": threads})))
                addrs[str(tid)] = a
            rec["taddr_by_tid"] = addrs
            out[kind].append(rec)
        elif kind == "alloc":
            rec["ncols"] = _try(lambda: ev(ops[1], st))
            out["alloc"].append(rec)
        elif kind == "dealloc":
            rec["ncols"] = _try(lambda: ev(ops[1], st))
            out["dealloc"].append(rec)
        elif kind.startswith("relinquish"):
            out["relinquish"].append(rec)
        elif kind == "commit":
            out["commit"].append(rec)
        elif kind.startswith("fence"):
            out["fence"].append(rec)
        elif kind.startswith("wait"):
            out["wait"].append(rec)
        else:
            out["other"].append(rec)
    for rec in out["mma"]:
        for key in ("a_desc", "b_desc"):
            if isinstance(rec.get(key), int):
                rec[key + "_fields"] = decode_smem_desc(rec[key])
                rec[key + "_hex"] = hex(rec[key])
        if isinstance(rec.get("idesc"), int):
            rec["idesc_fields"] = decode_idesc(rec["idesc"])
            rec["idesc_hex"] = hex(rec["idesc"])
    return out


if __name__ == "__main__":
    import json
    import sys
    print(json.dumps(analyze(open(sys.argv[1]).read()), indent=1))
