"""The target list exists once: dialects/JFA/Targets.def.

    one_list.py REPO ALLOWLIST

1. jfac's description (`jfac targets`: the C++ table, Targets.def through
   the preprocessor) equals python/jfa/_targets.py (Targets.def through
   cmake/JFATargets.cmake, the reader the runtime's build uses) in every
   field. (test/targets/in-sync.test checks that _targets.py is what the
   generator writes today.)
2. No code outside the description names a target or a target's kernel in a
   literal of its own: a string literal that is exactly a target name
   ("sm_90a") or a per-target kernel name ("attention_fwd_sm90") in C++ or
   Python, or such a word on a code line of CMake or shell, in compiler/,
   dialects/, lib/, tools/, runtime/, python/, scripts/, cmake/ (tests,
   kernels, benchmarks and docs name the targets they are about). A file in
   ALLOWLIST ("PATH  reason" lines) may; a listed file that no longer does
   is an error too, so the list only shrinks.
"""
import io
import pathlib
import re
import subprocess
import sys
import tokenize

repo, allowlist = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
sys.path.insert(0, str(repo / "python"))
from jfa import _targets  # noqa: E402

failures = []

# 1. C++ == Python.
out = subprocess.run(["jfac", "targets"], capture_output=True, text=True, check=True).stdout
lines = out.splitlines()
want = []
for t in _targets.TARGETS:
    order = ["wgmma", "tcgen05", "tma", "setmaxnreg", "clc"]
    unknown = set(t.features) - set(order)
    if unknown:
        failures.append(f"_targets.py: {t.name} has unknown features {sorted(unknown)}")
    features = ",".join(f for f in order if f in t.features)
    want.append(f"{t.name} kernel_suffix={t.kernel_suffix} "
                f"capability={t.capability[0]}.{t.capability[1]} ptx={t.ptx_version} "
                f"features={features} max_shared_bytes={t.max_shared_bytes} "
                f"registers_per_sm={t.registers_per_sm} "
                f"max_registers_per_thread={t.max_registers_per_thread} "
                f"tmem_columns={t.tmem_columns}")
want.append(f"default {_targets.DEFAULT}")
if lines != want:
    failures.append("`jfac targets` (C++) and python/jfa/_targets.py differ:\n  jfac:   "
                    + "\n          ".join(lines) + "\n  python: " + "\n          ".join(want))

# 2. No second list.
name = r"sm_\d+[a-z]?"
kernel = r"[A-Za-z0-9_]+_sm\d+[a-z]?"
literal = re.compile(rf"^(?:{name}|{kernel})$")
word = re.compile(rf"(?<![\w./*-])(?:{name}|{kernel})(?![\w*])")
c_string = re.compile(r'"((?:[^"\\]|\\.)*)"')
roots = ["compiler", "dialects", "lib", "tools", "runtime", "python", "scripts", "cmake"]
description = {"dialects/JFA/Targets.def", "python/jfa/_targets.py"}


def python_hits(text):
    hits = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.STRING:
            body = re.sub(r"^[rbuRBUfF]*('''|\"\"\"|'|\")", "", tok.string)
            body = re.sub(r"('''|\"\"\"|'|\")$", "", body)
            if literal.match(body):
                hits.append((tok.start[0], tok.string))
    return hits


def c_hits(text):
    hits = []
    in_block = False
    for number, line in enumerate(text.splitlines(), 1):
        code = line.strip()
        if in_block:
            if "*/" in code:
                in_block = False
            continue
        if code.startswith("/*") and "*/" not in code:
            in_block = True
            continue
        if code.startswith(("//", "/*", "*")):
            continue
        code = code.split("//")[0]
        hits += [(number, m.group(0)) for m in c_string.finditer(code) if literal.match(m.group(1))]
    return hits


def script_hits(text):
    hits = []
    for number, line in enumerate(text.splitlines(), 1):
        code = line.split("#")[0] if not line.lstrip().startswith("#!") else ""
        hits += [(number, m.group(0)) for m in word.finditer(code)]
    return hits


found = {}
for root in roots:
    for path in sorted((repo / root).rglob("*")):
        rel = path.relative_to(repo).as_posix()
        if not path.is_file() or rel in description or "__pycache__" in rel:
            continue
        suffix = path.suffix
        if suffix == ".py":
            hits = python_hits(path.read_text())
        elif suffix in (".cpp", ".h", ".hpp", ".c", ".def", ".td", ".inc"):
            hits = c_hits(path.read_text())
        elif suffix in (".cmake", ".sh", ".in") or path.name == "CMakeLists.txt":
            hits = script_hits(path.read_text())
        else:
            continue
        if hits:
            found[rel] = hits

allowed = {}
for line in allowlist.read_text().splitlines():
    if line.strip() and not line.startswith("#"):
        path, _, reason = line.partition("  ")
        allowed[path.strip()] = reason.strip()
for rel, hits in found.items():
    if rel not in allowed:
        where = "; ".join(f"line {n}: {h}" for n, h in hits[:5])
        failures.append(f"{rel} names targets itself ({where}): take them from the "
                        "description (C++: JFA/TargetDescription.h; Python: jfa._targets; "
                        "CMake: cmake/JFATargets.cmake)")
for rel in allowed:
    if rel not in found:
        failures.append(f"{allowlist.name}: {rel} no longer names a target: delete its line")

if failures:
    sys.exit("\n".join(f"FAILED: {f}" for f in failures))
print(f"one target list: jfac and jfa._targets agree on {len(_targets.TARGETS)} targets; "
      f"{len(allowed)} allowlisted files name targets")
