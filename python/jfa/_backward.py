"""attention_backward: the gradients of jagged_attention (every target of
jfa._targets that has its backward kernel: sm_90a and sm_100a; torch is
imported on first use).

Two kernels from the package's kernel folder (kernels/jagged_attention/),
launched one after the other on the caller's stream through the runtime's
generic module API (jfa_module_load_file / jfa_launch; the runtime takes the
threads and shared memory from each cubin's .meta):

  attention_bwd_delta  (attention_bwd_delta_<arch>.cubin)
      delta[h, t] = sum_d o[t, h, d] * do[t, h, d], f32 [H, T];
      grid ceil(T / 128) x H.
  attention_bwd_<suffix>  (<name>_<arch>.<variant>.cubin; the target's kernel
      suffix: attention_bwd_sm90 for sm_90a, attention_bwd_sm100 for sm_100a)
      dk, dv (bf16 [T, H, D], written) and dq into an f32 [T, H*D]
      workspace that it adds to atomically (zeroed before, converted to
      bf16 after); a persistent 1-d grid of min(#SMs, B * H * k_tiles) CTAs.
      The two take the same arguments but for the workspace: a TMA tensor
      for sm90 (its reduce-add), a pointer for sm100, as each kernel's
      metadata says (dq_kind). The head dim and the
      mask are compile-time parameters: one cubin per (head_dim, causal),
      chosen by the `params` its metadata records (variant_table).

sm_100a (B200) rests on jfa-interp, ptxas and the SASS: no B200 was at
hand to run it (see kernels/jagged_attention/README.md).

The modules are loaded once per CUDA device (into its primary context, the
one PyTorch uses) and kept for the life of the process.
"""
import ctypes
import glob
import math
import os
import threading

from . import _lib, _metadata, _schedule, _targets, _validate
from ._api import _check_no_alias, _check_tensor, _import_torch

DELTA_KERNEL = "attention_bwd_delta"
DQ_ARGUMENT = 6  # the dq workspace among the backward kernel's parameters


def backward_for(capability):
    """(target name, backward kernel) for a device of compute capability
    (major, minor), from the target description (jfa._targets): the kernel
    is attention_bwd_<the target's kernel suffix>. None for a device no
    target runs on."""
    target = _targets.by_capability(capability)
    if target is None:
        return None
    return target.name, f"attention_bwd_{target.kernel_suffix}"


def dq_kind(cubin, kernel):
    """How `kernel` takes the dq workspace: "tma" (a TMA tensor, reduce-add)
    or "ptr" (a pointer, atomic adds), as the metadata beside `cubin` says."""
    args = _metadata.kernel(cubin + ".meta", kernel).get("arguments", [])
    kind = args[DQ_ARGUMENT].get("kind") if len(args) > DQ_ARGUMENT else None
    if kind not in ("tma", "ptr"):
        raise RuntimeError(f"jfa.attention_backward: {cubin}.meta: parameter {DQ_ARGUMENT} "
                           f"of {kernel} (dq) is {kind!r}, not a TMA tensor or a pointer")
    return kind

DELTA_ROWS = 128  # token rows per CTA of attention_bwd_delta
LOG2E = 1.0 / math.log(2.0)

_lock = threading.Lock()
_modules = {}  # CUDA device ordinal -> {cubin path: jfa_module_t}
_variants = {}  # (kernel folder, arch, kernel, head_dim, causal) -> (cubin_paths, dq_kind)


def variant_table(kdir, kernel, arch):
    """[(params, cubin path)]: every compiled variant of `kernel` for `arch` in
    the folder `kdir`, read from the metadata beside each cubin (the values of
    its compile-time parameters, `params`; {} for a kernel without any). File
    names are only looked at to find the candidates (<kernel>_<arch>*.cubin):
    the metadata decides. Raises MetadataError for a .meta that is missing,
    unreadable or of another version."""
    table = []
    pattern = os.path.join(glob.escape(kdir), f"{kernel}_{arch}*.cubin")
    for cubin in sorted(glob.glob(pattern)):
        entry = _metadata.kernel(cubin + ".meta", kernel)
        if entry["arch"] == arch:
            table.append((entry.get("params", {}), cubin))
    return table


def _same_value(given, compiled):
    """Whether a call's option equals a variant's compiled value (True == 1)."""
    if isinstance(compiled, (bool, int)) and isinstance(given, (bool, int)):
        return int(given) == int(compiled)
    return given == compiled


def pick_variant(table, options):
    """The cubin of `table` (variant_table) compiled for `options` ({name:
    value} of the call): every parameter of the variant must equal the
    call's; among those, the one fixing the most parameters. None if none."""
    fits = [(params, cubin) for params, cubin in table
            if all(name in options and _same_value(options[name], value)
                   for name, value in params.items())]
    return max(fits, key=lambda f: len(f[0]))[1] if fits else None


def _describe(params):
    return " ".join(f"{n}={int(v) if isinstance(v, bool) else v}"
                    for n, v in sorted(params.items())) or "(no parameters)"


def cubin_paths(arch, bwd_kernel, options=None):
    """{kernel name: cubin path} of the backward's kernels for `arch` in the
    kernel folder, the backward's variant chosen for `options` (its
    compile-time parameters: {"head_dim": 128, "causal": False} by default);
    raises RuntimeError naming what is missing (the backward's cubins are not
    embedded in libjfart.so: they come from a folder)."""
    if options is None:
        options = {"head_dim": 128, "causal": False}
    how = ("build the package with scripts/build-package.sh (it compiles "
           "kernels/jagged_attention/*.mlir into <package>/kernels, one cubin per "
           "variant), or set $JFA_KERNEL_DIR to a folder holding them")
    delta_name = f"{DELTA_KERNEL}_{arch}.cubin"
    bwd_names = f"{bwd_kernel}_{arch}*.cubin"
    try:
        kdir = _lib.kernel_dir()
    except OSError as e:
        raise RuntimeError(f"jfa.attention_backward: {e}; {how}") from None
    if kdir is None:
        raise RuntimeError("jfa.attention_backward: no kernel folder (the backward's cubins "
                           f"{delta_name}, {bwd_names} are not embedded in the library); {how}")
    delta = os.path.join(kdir, delta_name)
    missing = [os.path.basename(p) for p in (delta, delta + ".meta") if not os.path.isfile(p)]
    try:
        table = variant_table(kdir, bwd_kernel, arch)
        # The metadata is checked here, before any GPU work: an old or foreign
        # .meta is named with the field at fault.
        if not missing:
            _metadata.kernel(delta + ".meta", DELTA_KERNEL)
    except _metadata.MetadataError as e:
        raise RuntimeError(f"jfa.attention_backward: {e}") from None
    if not table:
        missing.append(bwd_names)
    if missing:
        raise RuntimeError(f"jfa.attention_backward: the kernel folder {kdir} lacks "
                           f"{', '.join(missing)}; {how}")
    cubin = pick_variant(table, options)
    if cubin is None:
        have = "; ".join(_describe(params) for params, _ in table)
        raise RuntimeError(f"jfa.attention_backward: the kernel folder {kdir} has no {bwd_kernel} "
                           f"for {arch} compiled for {_describe(options)} (it has: {have}); {how}")
    return {DELTA_KERNEL: delta, bwd_kernel: cubin}


def _modules_for(device, paths):
    """{kernel name: module} of `paths` (cubin_paths) on CUDA device `device`,
    each loaded on first use and kept."""
    with _lock:
        loaded = _modules.setdefault(device, {})
        for path in paths.values():
            if path not in loaded:
                loaded[path] = _lib.module_load_file(device, path)
        return {k: loaded[p] for k, p in paths.items()}


def _torch_f32():
    import torch
    return torch.float32


class _Args:
    """A jfa_arg array being filled in parameter order; keeps what it points to alive."""

    def __init__(self, n):
        self.array = (_lib.Arg * n)()
        self.n = 0
        self._keep = []

    def _next(self, kind):
        a = self.array[self.n]
        self.n += 1
        a.kind = kind
        return a

    def tensor_2d(self, t):
        """A contiguous [T, H, D] (bf16) or [T, H*D] (f32) torch tensor as the
        TMA tensor [T, H*D]."""
        rows = t.shape[0]
        cols = t.shape[1] * t.shape[2] if t.dim() == 3 else t.shape[1]
        shape = (ctypes.c_uint64 * 2)(rows, cols)
        strides = (ctypes.c_uint64 * 2)(cols, 1)
        dtype = b"f32" if t.dtype == _torch_f32() else b"bf16"
        self._keep += [shape, strides, dtype]
        a = self._next(_lib.ARG_TENSOR)
        a.value.tensor = _lib.ArgTensor(t.data_ptr(), dtype, 2,
                                        ctypes.cast(shape, ctypes.POINTER(ctypes.c_uint64)),
                                        ctypes.cast(strides, ctypes.POINTER(ctypes.c_uint64)))

    def ptr(self, t):
        self._next(_lib.ARG_PTR).value.ptr = t.data_ptr()

    def i32(self, v):
        v = int(v)
        if not -2**31 <= v < 2**31:
            raise ValueError(f"kernel argument {self.n} = {v} does not fit in int32")
        self._next(_lib.ARG_I32).value.i32 = v

    def f32(self, v):
        self._next(_lib.ARG_F32).value.f32 = float(v)

    def done(self):
        assert self.n == len(self.array), (self.n, len(self.array))
        return self.array


def _device_index(torch, device):
    return device.index if device.index is not None else torch.cuda.current_device()


def _device_capability(torch, device):
    """(major, minor) of CUDA device `device` (an ordinal); a function of its own
    so that the GPU test can pretend to be on another device."""
    return tuple(torch.cuda.get_device_capability(device))


def _tma_input(torch, t):
    """t as a contiguous, 16-byte aligned tensor (TMA rules): t itself or a copy."""
    t = t.contiguous()
    if t.numel() and t.data_ptr() % _validate.ALIGNMENT_BYTES:
        t = t.clone()
    return t


def _writable_in_place(t):
    """Whether the kernel can store into a caller's dk / dv directly: contiguous
    [T, H, D] (the kernel's row stride is H*D), 16-byte aligned."""
    return t.is_contiguous() and t.data_ptr() % _validate.ALIGNMENT_BYTES == 0


def attention_backward(do, q, k, v, o, lse, offsets, max_seqlen, causal=False,
                       softmax_scale=None, *, dq=None, dk=None, dv=None, check_offsets=True):
    """Jagged attention, backward: the gradients (dq, dk, dv) of
    jagged_attention's o for the upstream gradient do.

    q, k, v, offsets, max_seqlen, causal, softmax_scale: as given to
    jagged_attention (same rules); o, lse: what it returned (o bf16
    [T, H, D], lse f32 [H, T], natural-log log-sum-exp). do: bf16 [T, H, D].
    Any layout of q, k, v, o, do and lse is accepted (packed copies are made
    when needed).

    Returns (dq, dk, dv), bf16 [T, H, D] (contiguous when allocated here).
    dq, dk, dv may be given (bf16 [T, H, D] on q's device): they are filled
    and returned; a contiguous, 16-byte aligned dk / dv is written by the
    kernel directly, any other through a copy. dq is always computed in an
    fp32 workspace (the kernel adds partial sums into it atomically, so dq's
    last bits may differ from run to run) and converted.

    check_offsets: as in jagged_attention (a host copy of the offsets, which
    synchronizes; skipped while a CUDA graph is being captured); without it
    wrong offsets give undefined results. Nothing else synchronizes with the
    host (the work schedule is built on the device), so forward and backward
    can be captured in one CUDA graph.

    The targets of jfa._targets have backward kernels (sm_90a, compute
    capability 9.0: H100, H200; sm_100a, 10.0: B200, not run on hardware
    yet): other devices raise NotImplementedError. The kernels come from
    the package's kernel folder (see jfa.kernel_dir()); without them
    RuntimeError says how to get them. Launches on
    torch.cuda.current_stream(q.device). Wrong types or dtypes raise
    TypeError, wrong shapes, devices, offsets or sizes ValueError.
    """
    torch = _import_torch()
    for name, t in (("do", do), ("q", q), ("k", k), ("v", v), ("o", o)):
        _check_tensor(torch, name, t, torch.bfloat16)
    _check_tensor(torch, "lse", lse, torch.float32)
    _check_tensor(torch, "offsets", offsets, torch.int32)
    t_, h, d, b = _validate.check_shapes(q.shape, k.shape, v.shape, offsets.shape)
    want = (t_, h, d)
    for name, t in (("do", do), ("o", o)):
        if tuple(t.shape) != want:
            raise ValueError(f"{name} must have the shape of q {list(want)}, got {list(t.shape)}")
    if tuple(lse.shape) != (h, t_):
        raise ValueError(f"lse must be [H, T] = {[h, t_]} (as jagged_attention returns it), "
                         f"got {list(lse.shape)}")
    if q.device.type != "cuda":
        raise ValueError(f"q must be a CUDA tensor, got device {q.device}")
    for name, t in (("k", k), ("v", v), ("do", do), ("o", o), ("lse", lse),
                    ("offsets", offsets)):
        if t.device != q.device:
            raise ValueError(f"{name} must be on q's device {q.device}, got {t.device}")
    for name, t in (("dq", dq), ("dk", dk), ("dv", dv)):
        if t is None:
            continue
        _check_tensor(torch, name, t, torch.bfloat16)
        if tuple(t.shape) != want:
            raise ValueError(f"{name} must have the shape of q {list(want)}, got {list(t.shape)}")
        if t.device != q.device:
            raise ValueError(f"{name} must be on q's device {q.device}, got {t.device}")
    _check_no_alias([("dq", dq), ("dk", dk), ("dv", dv)],
                    [("do", do), ("q", q), ("k", k), ("v", v), ("o", o), ("lse", lse),
                     ("offsets", offsets)])
    max_seqlen = _validate.check_max_seqlen(max_seqlen, t_)
    _validate.check_sizes(t_, b, max_seqlen)
    scale = _validate.check_softmax_scale(softmax_scale, d)
    k_tiles = _validate.backward_k_tiles(max_seqlen, t_)
    _validate.check_backward_sizes(t_, h, d, b, k_tiles)
    device = _device_index(torch, q.device)
    cap = _device_capability(torch, device)
    backward = backward_for(cap)
    if backward is None:
        raise NotImplementedError(
            f"jfa.attention_backward runs on {' and '.join(_targets.NAMES)} devices only "
            f"(compute capability {_targets.describe()}); CUDA device {device} "
            f"({torch.cuda.get_device_name(device)}) has compute capability "
            f"{cap[0]}.{cap[1]}.")
    arch, bwd_kernel = backward
    if check_offsets and not torch.cuda.is_current_stream_capturing():
        _validate.check_offsets(offsets.tolist(), t_, max_seqlen)

    if t_ == 0:
        def empty():
            return torch.empty(want, dtype=torch.bfloat16, device=q.device)
        return (dq if dq is not None else empty(), dk if dk is not None else empty(),
                dv if dv is not None else empty())

    with torch.cuda.device(device):
        stream = torch.cuda.current_stream(device).cuda_stream
        # The variant compiled for this head dim and mask (looked up once).
        key = (_lib.kernel_dir(), arch, bwd_kernel, d, bool(causal))
        found = _variants.get(key)
        if found is None:
            paths = cubin_paths(arch, bwd_kernel, {"head_dim": d, "causal": bool(causal)})
            found = _variants[key] = (paths, dq_kind(paths[bwd_kernel], bwd_kernel))
        paths, dq_arg = found
        mods = _modules_for(device, paths)
        q2, k2, v2, o2, do2 = (_tma_input(torch, t) for t in (q, k, v, o, do))
        lse2 = lse.contiguous()
        offsets2 = offsets.contiguous()

        # 1. delta = rowsum(o * do), [H, T].
        delta = torch.empty((h, t_), dtype=torch.float32, device=q.device)
        a = _Args(5)
        a.tensor_2d(o2)
        a.tensor_2d(do2)
        a.ptr(delta)
        a.i32(t_)
        a.i32(d)
        _lib.launch(device, mods[DELTA_KERNEL], DELTA_KERNEL,
                    (-(-t_ // DELTA_ROWS), h, 1), a.done(), stream)

        # 2. dk, dv written; dq added into a zeroed fp32 workspace.
        dq_accum = torch.zeros((t_, h * d), dtype=torch.float32, device=q.device)
        dk_out = dk if dk is not None and _writable_in_place(dk) else \
            torch.empty(want, dtype=torch.bfloat16, device=q.device)
        dv_out = dv if dv is not None and _writable_in_place(dv) else \
            torch.empty(want, dtype=torch.bfloat16, device=q.device)
        sms = torch.cuda.get_device_properties(device).multi_processor_count
        grid = max(1, min(sms, b * h * k_tiles))
        a = _Args(18)
        for t in (q2, k2, v2, do2):
            a.tensor_2d(t)
        a.ptr(dk_out)
        a.ptr(dv_out)
        if dq_arg == "tma":
            a.tensor_2d(dq_accum)  # TMA reduce-add target
        else:
            a.ptr(dq_accum)
        # The live units, longest sequence first (python/jfa/_schedule.py), built
        # on the device.
        schedule = _schedule.backward_schedule(torch, offsets2, b, k_tiles)
        for t in (lse2, delta, offsets2, schedule):
            a.ptr(t)
        for x in (b, h, t_, h * d, k_tiles):
            a.i32(x)
        a.f32(scale * LOG2E)
        a.f32(scale)
        _lib.launch(device, mods[bwd_kernel], bwd_kernel, (grid, 1, 1), a.done(), stream)

        if dk is None:
            dk = dk_out
        elif dk_out is not dk:
            dk.copy_(dk_out)
        if dv is None:
            dv = dv_out
        elif dv_out is not dv:
            dv.copy_(dv_out)
        dq_f32 = dq_accum.view(t_, h, d)
        if dq is None:
            dq = dq_f32.to(torch.bfloat16)
        else:
            dq.copy_(dq_f32)
    return dq, dk, dv
