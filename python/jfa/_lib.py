"""ctypes binding of the runtime's attention C API (libjfart.so); no torch here.

    int jfa_attention_create(const char *kernel_dir, jfa_attention_t *out);
    void jfa_attention_destroy(jfa_attention_t);
    int jfa_attention_forward(jfa_attention_t, const jfa_attention_forward_args *,
                              CUstream);
    int jfa_attention_backward_workspace_size(const jfa_attention_backward_args *,
                                              size_t *bytes);
    int jfa_attention_backward(jfa_attention_t, const jfa_attention_backward_args *,
                               CUstream);
    int jfa_check_offsets(const int32_t *offsets, size_t count, int64_t total_tokens,
                          int64_t max_seqlen);
    int jfa_check_offsets_k(const int32_t *offsets_k, size_t count,
                            int64_t total_tokens_k, int64_t max_seqlen_k);
    size_t jfa_attention_forward_args_size(void);   (checked against ForwardArgs)
    size_t jfa_attention_backward_args_size(void);  (checked against BackwardArgs)
    const char *jfa_last_error(void);

and the generic module API of runtime.h (jfa.load's kernels):

    int jfa_module_load_file(const char *cubin_path, const char *metadata_path,
                             jfa_module_t *module);
    int jfa_launch(jfa_module_t, const char *kernel, unsigned grid_x,
                   unsigned grid_y, unsigned grid_z, const jfa_arg *args,
                   int num_args, CUstream stream);

The library is found through $JFA_LIBRARY, else next to the package
(<folder>/lib/libjfart.so, where the package is <folder>/python/jfa), else in
a source checkout's build (build/runtime/, .gpu/). The kernels come from
$JFA_KERNEL_DIR, else <folder>/kernels when it holds cubins, else the cubins
embedded in the library (kernel_dir NULL).
"""
import ctypes
import glob
import os
import struct
import threading

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
# python/jfa -> the folder holding python/, lib/ and kernels/.
ROOT = os.path.dirname(os.path.dirname(_PACKAGE_DIR))


# The fields both argument structs end with, in the C order: the element
# types, the sizes, the mask and scale, then issue 20's options (0: off).
_SIZES_AND_OPTIONS = [
    ("dtype", ctypes.c_char_p),
    ("offsets_dtype", ctypes.c_char_p),
    ("total_tokens", ctypes.c_int64),
    ("num_heads", ctypes.c_int64),
    ("head_dim", ctypes.c_int64),
    ("batch", ctypes.c_int64),
    ("max_seqlen", ctypes.c_int64),
    ("causal", ctypes.c_int),
    ("softmax_scale", ctypes.c_float),
    ("check_offsets", ctypes.c_int),
    ("offsets_k", ctypes.c_uint64),  # CUdeviceptr
    ("total_tokens_k", ctypes.c_int64),
    ("max_seqlen_k", ctypes.c_int64),
    ("num_kv_heads", ctypes.c_int64),
    ("use_window", ctypes.c_int),
    ("window_left", ctypes.c_int64),
    ("window_right", ctypes.c_int64),
    ("activation", ctypes.c_char_p),  # NULL: softmax (ACTIVATION_ADDRESS)
    ("block_mask_bits", ctypes.c_uint64),  # CUdeviceptr; 0: no block mask
    ("block_mask_heads", ctypes.c_int64),
]


class ForwardArgs(ctypes.Structure):
    """jfa_attention_forward_args, field for field (the order is the C order)."""
    _fields_ = [
        ("q", ctypes.c_uint64),  # CUdeviceptr
        ("k", ctypes.c_uint64),
        ("v", ctypes.c_uint64),
        ("o", ctypes.c_uint64),
        ("q_strides", ctypes.c_int64 * 3),
        ("k_strides", ctypes.c_int64 * 3),
        ("v_strides", ctypes.c_int64 * 3),
        ("o_strides", ctypes.c_int64 * 3),
        ("lse", ctypes.c_uint64),
        ("offsets", ctypes.c_uint64),
    ] + _SIZES_AND_OPTIONS


class BackwardArgs(ctypes.Structure):
    """jfa_attention_backward_args, field for field (the order is the C order)."""
    _fields_ = [(name, ctypes.c_uint64) for name in ("dout", "q", "k", "v", "o")] + [
        (name + "_strides", ctypes.c_int64 * 3) for name in ("dout", "q", "k", "v", "o")] + [
        ("lse", ctypes.c_uint64),
        ("offsets", ctypes.c_uint64),
        ("dq", ctypes.c_uint64),
        ("dk", ctypes.c_uint64),
        ("dv", ctypes.c_uint64),
        ("dq_strides", ctypes.c_int64 * 3),
        ("dk_strides", ctypes.c_int64 * 3),
        ("dv_strides", ctypes.c_int64 * 3),
        ("workspace", ctypes.c_uint64),
        ("workspace_bytes", ctypes.c_size_t),
    ] + _SIZES_AND_OPTIONS


def _packer(cls):
    """A struct.Struct laying out `cls`'s fields as the C compiler does, checked
    against ctypes once: filling the argument structure with one pack_into
    costs a fraction of ~30 ctypes field assignments (bench/host_overhead.py)."""
    # By ctypes' own type codes: c_uint64 and c_size_t are one class on
    # 64-bit Linux, their codes say what they are.
    codes = {"Q": "Q", "L": "Q", "q": "q", "l": "q", "i": "i", "f": "f", "z": "P"}
    fmt = "@"
    for _, t in cls._fields_:
        elem = t._type_ if issubclass(t, ctypes.Array) else t
        code = codes[elem._type_]
        fmt += f"{t._length_}{code}" if issubclass(t, ctypes.Array) else code
    packer = struct.Struct(fmt)
    # Same bytes as ctypes' own layout for distinct values in every field.
    probe, values = cls(), []
    for i, (name, t) in enumerate(cls._fields_):
        if issubclass(t, ctypes.Array):
            getattr(probe, name)[:] = [i * 10 + j for j in range(t._length_)]
            values += [i * 10 + j for j in range(t._length_)]
        elif t is ctypes.c_char_p:
            setattr(probe, name, None)
            values.append(0)
        else:
            setattr(probe, name, i + 1)
            values.append(i + 1)
    mine = bytearray(ctypes.sizeof(cls))
    packer.pack_into(mine, 0, *values)
    if packer.size > ctypes.sizeof(cls) or bytes(mine) != bytes(probe):
        raise AssertionError(f"jfa: {cls.__name__}'s struct layout does not match ctypes'")
    return packer


class _Packed(threading.local):
    """Per thread, one argument structure of each kind, refilled per call."""

    def __init__(self):
        self.structs = {}


_packers = {}  # ctypes Structure class -> its struct.Struct (_packer)
_packed = _Packed()
# The dtype strings the argument structures point to; they live as long as the module.
BF16 = ctypes.create_string_buffer(b"bf16")
I32 = ctypes.create_string_buffer(b"i32")
BF16_ADDRESS = ctypes.addressof(BF16)
I32_ADDRESS = ctypes.addressof(I32)
# The activation field per activation: NULL (0) for softmax, as a
# zero-initialized C struct has it; GDPA's names otherwise.
_ACTIVATION_NAMES = {name: ctypes.create_string_buffer(name.encode())
                     for name in ("silu", "gelu_tanh")}
ACTIVATION_ADDRESS = {"softmax": 0,
                      **{name: ctypes.addressof(b) for name, b in _ACTIVATION_NAMES.items()}}


def _packed_args(cls, values):
    """The thread's `cls` structure filled with `values` (the fields in order,
    the stride arrays flattened, dtype strings as BF16_ADDRESS / I32_ADDRESS,
    the activation as ACTIVATION_ADDRESS[name])."""
    packer = _packers.get(cls)
    if packer is None:
        packer = _packers[cls] = _packer(cls)
    args = _packed.structs.get(cls)
    if args is None:
        args = _packed.structs[cls] = cls()
    packer.pack_into(args, 0, *values)
    return args


def packed_forward_args(*values):
    """The thread's ForwardArgs filled with `values` (see _packed_args)."""
    return _packed_args(ForwardArgs, values)


def packed_backward_args(*values):
    """The thread's BackwardArgs filled with `values` (see _packed_args)."""
    return _packed_args(BackwardArgs, values)


class ArgTensor(ctypes.Structure):
    """The tensor member of jfa_arg's value union (runtime.h)."""
    _fields_ = [("data", ctypes.c_uint64),  # CUdeviceptr
                ("element_type", ctypes.c_char_p),
                ("rank", ctypes.c_int),
                ("shape", ctypes.POINTER(ctypes.c_uint64)),
                ("strides", ctypes.POINTER(ctypes.c_uint64))]


class ArgTensorRaw(ctypes.Structure):
    """ArgTensor with the pointers as plain addresses (c_void_p takes an int):
    the same layout, cheaper to fill (jfa.load's launches)."""
    _fields_ = [("data", ctypes.c_uint64), ("element_type", ctypes.c_void_p),
                ("rank", ctypes.c_int), ("shape", ctypes.c_void_p),
                ("strides", ctypes.c_void_p)]


class ArgValue(ctypes.Union):
    _fields_ = [("tensor", ArgTensor), ("ptr", ctypes.c_uint64), ("i32", ctypes.c_int32),
                ("i64", ctypes.c_int64), ("f32", ctypes.c_float), ("f64", ctypes.c_double),
                ("tensor_raw", ArgTensorRaw)]


class Arg(ctypes.Structure):
    """jfa_arg: a kind (jfa_arg_kind) and a value."""
    _fields_ = [("kind", ctypes.c_int), ("value", ArgValue)]


# jfa_arg_kind, in the header's order.
ARG_TENSOR, ARG_PTR, ARG_I32, ARG_I64, ARG_F32, ARG_F64 = range(6)


def library_path():
    """The libjfart.so that would be loaded (raises OSError when there is none)."""
    env = os.environ.get("JFA_LIBRARY")
    if env:
        if not os.path.isfile(env):
            raise OSError(f"JFA_LIBRARY={env} does not exist")
        return env
    candidates = [os.path.join(ROOT, "lib", "libjfart.so"),
                  os.path.join(ROOT, "build", "runtime", "libjfart.so"),
                  os.path.join(ROOT, ".gpu", "libjfart.so")]
    for c in candidates:
        if os.path.isfile(c):
            return c
    raise OSError("libjfart.so not found; looked in " + ", ".join(candidates) +
                  " (build the package with scripts/build-package.sh, or set JFA_LIBRARY)")


_package_kernels = []  # [the package's kernel folder or None], looked up once


def kernel_dir():
    """The folder of cubins handed to jfa_attention_create, or None (embedded)."""
    env = os.environ.get("JFA_KERNEL_DIR")
    if env:
        if not os.path.isdir(env):
            raise OSError(f"JFA_KERNEL_DIR={env} is not a folder")
        return env
    if not _package_kernels:  # a glob per call would cost more than the launch
        d = os.path.join(ROOT, "kernels")
        _package_kernels.append(d if glob.glob(os.path.join(d, "*.cubin")) else None)
    return _package_kernels[0]


_lock = threading.RLock()
_lib = None
_cuda = None
_handle = None  # jfa_attention_t, one per process
_primary = {}  # CUDA device ordinal -> its retained primary context
_checked = threading.local()  # .context: (CUcontext, device) seen to match


def lib():
    """Loads libjfart.so once and declares the signatures."""
    global _lib
    with _lock:
        if _lib is None:
            path = library_path()
            handle = ctypes.CDLL(path)
            handle.jfa_last_error.restype = ctypes.c_char_p
            handle.jfa_last_error.argtypes = []
            handle.jfa_synchronize.restype = ctypes.c_int
            handle.jfa_synchronize.argtypes = []
            if hasattr(handle, "jfa_runtime_version"):
                handle.jfa_runtime_version.restype = ctypes.c_char_p
                handle.jfa_runtime_version.argtypes = []
            try:
                handle.jfa_attention_create.restype = ctypes.c_int
                handle.jfa_attention_create.argtypes = [ctypes.c_char_p,
                                                        ctypes.POINTER(ctypes.c_void_p)]
                handle.jfa_attention_destroy.restype = None
                handle.jfa_attention_destroy.argtypes = [ctypes.c_void_p]
                handle.jfa_attention_forward.restype = ctypes.c_int
                handle.jfa_attention_forward.argtypes = [ctypes.c_void_p,
                                                         ctypes.POINTER(ForwardArgs),
                                                         ctypes.c_void_p]
                handle.jfa_attention_backward_workspace_size.restype = ctypes.c_int
                handle.jfa_attention_backward_workspace_size.argtypes = [
                    ctypes.POINTER(BackwardArgs), ctypes.POINTER(ctypes.c_size_t)]
                handle.jfa_attention_backward.restype = ctypes.c_int
                handle.jfa_attention_backward.argtypes = [ctypes.c_void_p,
                                                          ctypes.POINTER(BackwardArgs),
                                                          ctypes.c_void_p]
                handle.jfa_check_offsets.restype = ctypes.c_int
                handle.jfa_check_offsets.argtypes = [ctypes.POINTER(ctypes.c_int32),
                                                     ctypes.c_size_t, ctypes.c_int64,
                                                     ctypes.c_int64]
                handle.jfa_check_offsets_k.restype = ctypes.c_int
                handle.jfa_check_offsets_k.argtypes = handle.jfa_check_offsets.argtypes
                handle.jfa_attention_forward_args_size.restype = ctypes.c_size_t
                handle.jfa_attention_forward_args_size.argtypes = []
                handle.jfa_attention_backward_args_size.restype = ctypes.c_size_t
                handle.jfa_attention_backward_args_size.argtypes = []
                handle.jfa_attention_has_backward.restype = ctypes.c_int
                handle.jfa_attention_has_backward.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
                handle.jfa_module_load_file.restype = ctypes.c_int
                handle.jfa_module_load_file.argtypes = [ctypes.c_char_p, ctypes.c_char_p,
                                                        ctypes.POINTER(ctypes.c_void_p)]
                handle.jfa_launch.restype = ctypes.c_int
                handle.jfa_launch.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                              ctypes.c_uint, ctypes.c_uint, ctypes.c_uint,
                                              ctypes.POINTER(Arg), ctypes.c_int,
                                              ctypes.c_void_p]
            except AttributeError as e:
                raise OSError(f"{path} has no attention API ({e}); rebuild the runtime") from None
            # A library of another version reads another struct: refuse it
            # rather than pass options it would not see.
            for name, cls in (("forward", ForwardArgs), ("backward", BackwardArgs)):
                size = getattr(handle, f"jfa_attention_{name}_args_size")()
                if size != ctypes.sizeof(cls):
                    raise OSError(f"{path} reads a jfa_attention_{name}_args of {size} bytes, "
                                  f"this package passes {ctypes.sizeof(cls)}: the library and "
                                  f"the package are of different versions; rebuild the runtime "
                                  f"(scripts/build-package.sh)")
            _lib = handle
    return _lib


def last_error():
    msg = lib().jfa_last_error()
    return msg.decode(errors="replace") if msg else "(no message)"


def _driver():
    global _cuda
    if _cuda is None:
        cuda = ctypes.CDLL("libcuda.so.1")
        for name in ("cuCtxGetCurrent", "cuCtxGetDevice", "cuDeviceGet",
                     "cuDevicePrimaryCtxRetain", "cuCtxSetCurrent"):
            getattr(cuda, name).restype = ctypes.c_int
        _cuda = cuda
    return _cuda


def ensure_context(device):
    """Makes a context of CUDA device `device` (an ordinal) current on this
    thread, the device's primary context (the one PyTorch uses) when the
    thread has none or one of another device. The runtime launches in the
    current context. Without a driver it does nothing: the runtime says so."""
    try:
        cuda = _driver()
    except OSError:
        return
    ctx = ctypes.c_void_p()
    if cuda.cuCtxGetCurrent(ctypes.byref(ctx)) == 0 and ctx.value:
        # The common case in one call: the context this thread last checked.
        if getattr(_checked, "context", None) == (ctx.value, device):
            return
        dev = ctypes.c_int()
        want = ctypes.c_int()
        if (cuda.cuCtxGetDevice(ctypes.byref(dev)) == 0 and
                cuda.cuDeviceGet(ctypes.byref(want), device) == 0 and dev.value == want.value):
            _checked.context = (ctx.value, device)
            return
    with _lock:
        prim = _primary.get(device)
        if prim is None:
            dev = ctypes.c_int()
            prim = ctypes.c_void_p()
            rc = cuda.cuDeviceGet(ctypes.byref(dev), device)
            if rc == 0:
                rc = cuda.cuDevicePrimaryCtxRetain(ctypes.byref(prim), dev)
            if rc != 0:
                raise RuntimeError(f"jfa: cannot get the primary context of CUDA device "
                                   f"{device} (CUresult {rc})")
            _primary[device] = prim
    rc = cuda.cuCtxSetCurrent(prim)
    if rc != 0:
        raise RuntimeError(f"jfa: cuCtxSetCurrent failed for CUDA device {device} (CUresult {rc})")


def handle():
    """The process's attention handle, created on first use. It serves every
    device: the runtime loads the cubins onto a context the first time it
    runs there."""
    global _handle
    if _handle is not None:
        return _handle
    library = lib()
    with _lock:
        if _handle is None:
            kdir = kernel_dir()
            out = ctypes.c_void_p()
            if library.jfa_attention_create(kdir.encode() if kdir else None,
                                            ctypes.byref(out)) != 0:
                where = f"kernels from {kdir}" if kdir else "the embedded kernels"
                raise RuntimeError(f"jfa_attention_create ({where}) failed: {last_error()}")
            _handle = out
    return _handle


def forward(device, args, stream):
    """jfa_attention_forward on CUDA device `device` with a filled ForwardArgs;
    stream is a CUstream (int) or 0. Raises RuntimeError with jfa_last_error()."""
    ensure_context(device)
    h = handle()
    if lib().jfa_attention_forward(h, ctypes.byref(args), ctypes.c_void_p(stream or None)) != 0:
        raise RuntimeError(f"jfa_attention_forward failed: {last_error()}")


def backward_workspace_size(args):
    """jfa_attention_backward_workspace_size: the bytes of workspace a
    BackwardArgs' sizes need. Raises RuntimeError."""
    out = ctypes.c_size_t()
    if lib().jfa_attention_backward_workspace_size(ctypes.byref(args), ctypes.byref(out)) != 0:
        raise RuntimeError(f"jfa_attention_backward_workspace_size failed: {last_error()}")
    return out.value


def backward(device, args, stream):
    """jfa_attention_backward on CUDA device `device` with a filled
    BackwardArgs; stream is a CUstream (int) or 0. Raises RuntimeError with
    jfa_last_error()."""
    ensure_context(device)
    h = handle()
    if lib().jfa_attention_backward(h, ctypes.byref(args), ctypes.c_void_p(stream or None)) != 0:
        raise RuntimeError(f"jfa_attention_backward failed: {last_error()}")


def check_offsets(offsets, total_tokens, max_seqlen, keys=False):
    """The runtime's check of offsets (a list of ints, [B + 1]): ValueError
    naming the first bad entry (offsets[0] == 0, non-decreasing, offsets[B]
    == T, no sequence longer than max_seqlen). keys: they are a
    cross-attention's offsets_k, checked against T_k and max_seqlen_k (the
    message names those)."""
    values = (ctypes.c_int32 * len(offsets))(*offsets)
    check = lib().jfa_check_offsets_k if keys else lib().jfa_check_offsets
    if check(values, len(offsets), total_tokens, max_seqlen) != 0:
        raise ValueError(last_error())


def has_backward(arch):
    """(True, "") when the attention handle has the backward's kernels for
    arch, else (False, why)."""
    rc = lib().jfa_attention_has_backward(handle(), arch.encode())
    if rc < 0:
        raise RuntimeError(f"jfa_attention_has_backward failed: {last_error()}")
    return (True, "") if rc == 1 else (False, last_error())


def module_load_file(device, cubin_path, metadata_path=None):
    """jfa_module_load_file(cubin_path, metadata_path or NULL: <cubin>.meta)
    onto CUDA device `device`'s context (made current first); returns the
    jfa_module_t (a c_void_p), which lives as long as the process. Raises
    RuntimeError."""
    ensure_context(device)
    out = ctypes.c_void_p()
    meta = metadata_path.encode() if metadata_path else None
    if lib().jfa_module_load_file(cubin_path.encode(), meta, ctypes.byref(out)) != 0:
        raise RuntimeError(f"jfa_module_load_file({cubin_path}) failed: {last_error()}")
    return out


def launch(device, module, kernel, grid, args, stream):
    """jfa_launch of `kernel` (a str) from `module` on CUDA device `device`.
    grid: (x, y, z); args: a ctypes array of Arg (whatever it points to must
    stay alive during the call); stream: a CUstream (int) or 0. Raises
    RuntimeError with jfa_last_error()."""
    ensure_context(device)
    gx, gy, gz = grid
    if lib().jfa_launch(module, kernel.encode(), gx, gy, gz, args, len(args),
                        ctypes.c_void_p(stream or None)) != 0:
        raise RuntimeError(f"jfa_launch({kernel}, grid {gx}x{gy}x{gz}) failed: {last_error()}")


def current_stream(torch, device):
    """torch's current CUstream on CUDA device `device` (an ordinal), as an
    int: torch's raw accessor where it has one (a tenth of the host time of
    torch.cuda.current_stream, which builds a Stream object)."""
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is not None:
        return raw(device)
    return torch.cuda.current_stream(device).cuda_stream


def synchronize():
    """jfa_synchronize: waits for the current context's work; raises
    RuntimeError with the runtime's message (which explains the trap of a
    kernel built with --debug-barriers)."""
    if lib().jfa_synchronize() != 0:
        raise RuntimeError(f"jfa.synchronize: {last_error()}")
