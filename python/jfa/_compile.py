"""jfa.compile: a kernel source through jfac into a cache, then jfa.load.

    mod = jfa.compile("scale_add.mlir", arch="sm_90a", params={"relu": True})

jfac is found through $JFAC, else the package's own (<folder>/bin/jfac, the
package being <folder>/python/jfa), else a source checkout's build
(build/bin/jfac), else PATH. The cubin and its metadata go to a cache
folder ($JFA_CACHE_DIR, else $XDG_CACHE_HOME/jfa, else ~/.cache/jfa),
one entry per key:

  - the source file's bytes,
  - the target (arch), the parameters (params) and the -I folders,
  - jfac's `--version` output (and the binary's size and time, so a rebuilt
    jfac that prints the same version still misses), and the same of the
    ptxas it runs (found as jfac finds it),
  - and, checked on every hit, the bytes of every file the kernel imports
    (the metadata's "imports", recorded in the entry's manifest): an edited
    import recompiles, and so does a file appearing where jfac would have
    found an -I import first (beside the source, an earlier -I folder).

So an entry never goes stale: anything that changes the cubin changes the
key or fails the manifest check. Entries are written to a temporary folder
and renamed into place, so concurrent compiles of one key are safe. A failed
compile raises CompileError, which carries jfac's diagnostics.
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile

from . import _lib, _targets
from ._module import load

CACHE_FORMAT = 1  # bump when the layout of an entry changes
_PARAM_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_versions = {}  # (jfac path, size, mtime) -> `jfac --version` output


class CompileError(RuntimeError):
    """jfac failed. `diagnostics` is what it printed (file:line:col: error:
    ...), `command` the command line, `returncode` its exit status."""

    def __init__(self, message, diagnostics="", command=(), returncode=None):
        super().__init__(message)
        self.diagnostics = diagnostics
        self.command = list(command)
        self.returncode = returncode


def find_jfac():
    """The jfac executable jfa.compile runs (raises FileNotFoundError saying
    where it looked)."""
    env = os.environ.get("JFAC")
    if env:
        if not (os.path.isfile(env) and os.access(env, os.X_OK)):
            raise FileNotFoundError(f"JFAC={env} is not an executable file")
        return os.path.abspath(env)  # jfac runs in the source's folder
    candidates = [os.path.join(_lib.ROOT, "bin", "jfac"),
                  os.path.join(_lib.ROOT, "build", "bin", "jfac")]
    for c in candidates:
        if os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    on_path = shutil.which("jfac")
    if on_path:
        return os.path.abspath(on_path)
    raise FileNotFoundError("jfa.compile: no jfac found; looked at $JFAC, "
                            + ", ".join(candidates) + " and PATH (build it with "
                            "`cmake --build build --target jfac`, or set JFAC; on a machine "
                            "without the compiler, compile elsewhere and use jfa.load)")


def jfac_version(jfac):
    """`jfac --version`'s output, plus the binary's size and time (cached)."""
    st = os.stat(jfac)
    key = (os.path.realpath(jfac), st.st_size, st.st_mtime_ns)
    v = _versions.get(key)
    if v is None:
        try:
            out = subprocess.run([jfac, "--version"], capture_output=True, text=True,
                                 timeout=60)
        except OSError as e:
            raise CompileError(f"jfa.compile: cannot run {jfac}: {e}") from None
        if out.returncode != 0:
            raise CompileError(f"jfa.compile: `{jfac} --version` failed "
                               f"(exit status {out.returncode}): {out.stderr.strip()}",
                               out.stderr, [jfac, "--version"], out.returncode)
        v = f"{out.stdout.strip()}\nsize={st.st_size} mtime_ns={st.st_mtime_ns}"
        _versions[key] = v
    return v


def find_ptxas():
    """The ptxas jfac will run (its own search: $CUDA_HOME, $CUDA_PATH,
    $CUDA_ROOT, /usr/local/cuda/bin, PATH), or None."""
    for var in ("CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"):
        root = os.environ.get(var)
        if root:
            path = os.path.join(root, "bin", "ptxas")
            if os.path.isfile(path) and os.access(path, os.X_OK):
                return path
    path = "/usr/local/cuda/bin/ptxas"
    if os.path.isfile(path) and os.access(path, os.X_OK):
        return path
    return shutil.which("ptxas")


def ptxas_version():
    """`ptxas --version` of the ptxas jfac runs, with its path, size and time
    (cached): a new CUDA toolkit makes new cubins."""
    path = find_ptxas()
    if path is None:
        return "no ptxas"  # jfac says so when it needs one
    st = os.stat(path)
    key = ("ptxas", os.path.realpath(path), st.st_size, st.st_mtime_ns)
    v = _versions.get(key)
    if v is None:
        try:
            out = subprocess.run([path, "--version"], capture_output=True, text=True,
                                 timeout=60).stdout.strip()
        except OSError as e:
            out = f"cannot run: {e}"
        v = f"{os.path.realpath(path)}\n{out}\nsize={st.st_size} mtime_ns={st.st_mtime_ns}"
        _versions[key] = v
    return v


def _shadows(path, source_dir, includes):
    """Where a file jfac found at `path` through an -I folder would have been
    found first had it existed (beside the source, earlier -I folders): it
    must stay absent for a cache entry to hold."""
    out = []
    for i, d in enumerate(includes):
        rel = os.path.relpath(path, d)
        if rel.startswith(os.pardir + os.sep) or rel == os.pardir:
            continue
        out += [os.path.join(c, rel) for c in [source_dir] + includes[:i]]
        break
    return [p for p in out if os.path.normpath(p) != os.path.normpath(path)]


def cache_dir():
    """The cache folder ($JFA_CACHE_DIR, $XDG_CACHE_HOME/jfa or ~/.cache/jfa)."""
    env = os.environ.get("JFA_CACHE_DIR")
    if env:
        return env
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "jfa")


def current_arch():
    """The jfac target of torch's current CUDA device; raises ValueError when
    there is none to ask (no torch, no GPU) or it has no target."""
    try:
        import torch
    except ImportError:
        torch = None
    if torch is None or not torch.cuda.is_available():
        why = "PyTorch is not installed" if torch is None else "no CUDA device is available"
        choices = " or ".join(f"arch='{t.name}' (compute capability "
                              f"{t.capability[0]}.{t.capability[1]})" for t in _targets.TARGETS)
        raise ValueError(f"jfa.compile: arch=None compiles for the current GPU, but {why}; "
                         f"pass {choices}")
    cap = tuple(torch.cuda.get_device_capability())
    target = _targets.by_capability(cap)
    if target is None:
        raise ValueError(f"jfa.compile: the current GPU ({torch.cuda.get_device_name()}) has "
                         f"compute capability {cap[0]}.{cap[1]}; jfac targets "
                         + ", ".join(f"{t.name} ({t.capability[0]}.{t.capability[1]})"
                                     for t in _targets.TARGETS))
    return target.name


def param_args(params):
    """-P name=value for each parameter (sorted), checking names and values."""
    out = []
    for name in sorted(params or {}):
        value = params[name]
        if not isinstance(name, str) or not _PARAM_NAME.match(name):
            raise ValueError(f"jfa.compile: parameter name {name!r} is not an identifier")
        if isinstance(value, bool):
            text = "1" if value else "0"
        elif isinstance(value, int):
            text = str(value)
        elif isinstance(value, float):
            text = repr(value)
        elif isinstance(value, str) and value and not any(c.isspace() for c in value):
            text = value
        else:
            raise TypeError(f"jfa.compile: parameter {name} must be a bool, an int, a float "
                            f"or a word, got {type(value).__name__} {value!r}")
        out += ["-P", f"{name}={text}"]
    return out


def _digest(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _manifest_ok(entry):
    """Whether a cache entry is complete and every file it imported is
    unchanged."""
    try:
        with open(os.path.join(entry, "manifest.json"), encoding="utf-8") as f:
            manifest = json.load(f)
        if manifest.get("format") != CACHE_FORMAT:
            return False
        for rec in manifest["imports"]:
            if not os.path.isfile(rec["path"]) or _digest(rec["path"]) != rec["sha256"]:
                return False
            if any(os.path.exists(p) for p in rec.get("shadows", ())):
                return False
        return all(os.path.isfile(os.path.join(entry, n))
                   for n in (manifest["cubin"], manifest["cubin"] + ".meta"))
    except (OSError, ValueError, KeyError, TypeError):
        return False


def compile_to_cache(source, arch, params=None, include_dirs=(), jfac=None, extra_args=()):
    """Compiles `source` (a .mlir path) unless the cache has it; returns
    (cubin path, hit: bool)."""
    source = os.path.abspath(os.fspath(source))
    try:
        with open(source, "rb") as f:
            text = f.read()
    except OSError as e:
        raise FileNotFoundError(f"jfa.compile: cannot read {source}: {e}") from None
    if arch not in _targets.NAMES:
        raise ValueError(f"jfa.compile: arch must be a target name "
                         f"({', '.join(_targets.NAMES)}), got {arch!r}")
    jfac = os.path.abspath(os.fspath(jfac)) if jfac else find_jfac()
    includes = [os.path.abspath(os.fspath(d)) for d in include_dirs]
    pargs = param_args(params)
    key_doc = json.dumps({"format": CACHE_FORMAT, "source": hashlib.sha256(text).hexdigest(),
                          "path": source, "arch": arch, "params": pargs, "includes": includes,
                          "extra": list(extra_args), "jfac": jfac_version(jfac),
                          "ptxas": ptxas_version()},
                         sort_keys=True)
    key = hashlib.sha256(key_doc.encode()).hexdigest()
    stem = os.path.splitext(os.path.basename(source))[0]
    cubin_name = f"{stem}_{arch}.cubin"
    root = cache_dir()
    entry = os.path.join(root, key[:2], key)
    if _manifest_ok(entry):
        return os.path.join(entry, cubin_name), True

    os.makedirs(os.path.dirname(entry), exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=f".{key[:16]}.", dir=os.path.dirname(entry))
    try:
        cubin = os.path.join(tmp, cubin_name)
        cmd = [jfac, "compile", source, "--arch", arch, "-o", cubin, "--quiet"] + pargs
        for d in includes:
            cmd += ["-I", d]
        cmd += list(extra_args)
        # jfac runs in the source's folder: the imports it records are then
        # relative to it (or absolute).
        cwd = os.path.dirname(source)
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, timeout=600)
        except OSError as e:
            raise CompileError(f"jfa.compile: cannot run {jfac}: {e}", "", cmd) from None
        if out.returncode != 0 or not os.path.isfile(cubin):
            diag = (out.stderr + out.stdout).strip()
            raise CompileError(f"jfa.compile: jfac failed on {source} (exit status "
                               f"{out.returncode}):\n{diag}", diag, cmd, out.returncode)
        with open(cubin + ".meta", encoding="utf-8") as f:
            meta = json.load(f)
        imports = []
        for p in meta.get("imports", []):
            path = os.path.normpath(os.path.join(cwd, p))
            imports.append({"path": path, "sha256": _digest(path),
                            "shadows": _shadows(path, cwd, includes)})
        with open(os.path.join(tmp, "manifest.json"), "w", encoding="utf-8") as f:
            json.dump({"format": CACHE_FORMAT, "source": source, "cubin": cubin_name,
                       "command": cmd, "key": json.loads(key_doc), "imports": imports},
                      f, indent=1)
        if os.path.isdir(entry):  # stale (an import changed) or incomplete
            shutil.rmtree(entry, ignore_errors=True)
        try:
            os.rename(tmp, entry)
        except OSError:
            if not _manifest_ok(entry):  # another process lost the race too
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return os.path.join(entry, cubin_name), False


def compile(source, arch=None, params=None, out_dir=None, *, include_dirs=(), jfac=None):
    """Compiles a kernel file with jfac (cached) and loads it (jfa.load).

    source: a .mlir file; arch: a target of jfa._targets, 'sm_90a' or
    'sm_100a' (None: the current GPU's, through PyTorch); params: {name: value} compile-time parameters
    (jfac -P; bools, ints, floats, words); include_dirs: folders for
    jfa.import (jfac -I); out_dir: also copy the cubin and its .meta there
    (<stem>_<arch>.cubin) and load that copy; jfac: the compiler to use
    (default: find_jfac()).

    Returns the loaded Module. Raises CompileError (a RuntimeError carrying
    jfac's diagnostics) when jfac fails, FileNotFoundError when there is no
    source or no jfac, ValueError for a bad arch or no GPU to take it from.
    """
    if arch is None:
        arch = current_arch()
    cubin, _ = compile_to_cache(source, arch, params, include_dirs, jfac)
    if out_dir is not None:
        os.makedirs(out_dir, exist_ok=True)
        dest = os.path.join(out_dir, os.path.basename(cubin))
        shutil.copyfile(cubin, dest)
        shutil.copyfile(cubin + ".meta", dest + ".meta")
        cubin = dest
    return load(cubin)

