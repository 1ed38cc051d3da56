"""jfa.load: a cubin and its metadata as a Python module of callable kernels.

    mod = jfa.load("scale_add.cubin")            # + scale_add.cubin.meta
    mod.scale_add((cols_tiles, row_tiles), x, y, out, rows, cols, 2.0)
    mod.scale_add.signature()   # 'scale_add(%x: tma<64x64xf32>, ..., %alpha: f32)'

Loading reads and checks the metadata only (no GPU, no runtime library):
the cubin is loaded into a device's context (through libjfart's
jfa_module_load_file) the first time a kernel of it is launched there.
A call checks every argument against the metadata (_kernel_args.py: count,
kind, dtype, device, TMA layout and alignment, scalar ranges, grid limits),
then launches with jfa_launch, which builds the TMA descriptors from the
tensors and the metadata's boxes, as the C++ runtime does for its own
kernels. Tensors are torch tensors (or anything with dtype, device, shape,
stride() and data_ptr()); scalars are Python ints and floats.
"""
import ctypes
import os
import sys
import threading

from . import _kernel_args as A
from . import _lib, _metadata

_KINDS = {"i32": _lib.ARG_I32, "i64": _lib.ARG_I64, "f32": _lib.ARG_F32, "f64": _lib.ARG_F64}


def _current_stream(device):
    """torch's current stream on `device` (a CUstream as an int) when torch is
    imported, else 0 (the legacy default stream)."""
    torch = sys.modules.get("torch")
    if torch is None or device is None:
        return 0
    return _lib.current_stream(torch, device)


def _current_device():
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available():
        return torch.cuda.current_device()
    return 0


def _stream_handle(stream, device):
    if stream is None:
        return _current_stream(device)
    handle = getattr(stream, "cuda_stream", stream)  # a torch.cuda.Stream, or an int
    if isinstance(handle, bool) or not isinstance(handle, int):
        raise TypeError(f"stream must be None, a torch.cuda.Stream or a CUstream (an int), "
                        f"got {type(stream).__name__}")
    return handle


# Element type names as C strings that live as long as the module.
_ELEMENT_TYPES = {t: ctypes.create_string_buffer(t.encode()) for t in A.ELEMENT_BYTES}
_ELEMENT_TYPE_ADDRS = {t: ctypes.addressof(b) for t, b in _ELEMENT_TYPES.items()}


def pack(checked):
    """A ctypes array of jfa_arg for checked arguments (_kernel_args.check_args),
    and what it points to (keep both alive during the launch)."""
    array = (_lib.Arg * len(checked))()
    dims = []
    for c in checked:
        if isinstance(c, A.Tensor) and c.kind == "tma":
            dims += c.shape
            dims += c.strides
    buf = (ctypes.c_uint64 * len(dims))(*dims) if dims else None
    at = ctypes.addressof(buf) if dims else 0
    for a, c in zip(array, checked):
        if isinstance(c, A.Scalar):
            a.kind = _KINDS[c.kind]
            setattr(a.value, c.kind, c.value)
        elif c.kind == "ptr":
            a.kind = _lib.ARG_PTR
            a.value.ptr = c.data_ptr
        else:
            rank = len(c.shape)
            a.kind = _lib.ARG_TENSOR
            t = a.value.tensor_raw
            t.data = c.data_ptr
            t.element_type = _ELEMENT_TYPE_ADDRS[c.element_type]
            t.rank = rank
            t.shape = at
            t.strides = at + 8 * rank
            at += 16 * rank
    return array, buf


class Kernel:
    """One kernel of a loaded module: call it as kernel(grid, *args, stream=None)."""

    def __init__(self, module, spec):
        self._module = module
        self.spec = spec
        self.name = spec.name

    def signature(self):
        return self.spec.signature()

    def __repr__(self):
        s = self.spec
        return (f"<jfa kernel {s.signature()} [{s.arch}, {s.threads} threads, "
                f"{s.shared_bytes} bytes of shared memory]>")

    def check(self, grid, *args):
        """The checks of a call, without launching (needs no GPU): returns
        ((x, y, z), checked arguments, device index or None)."""
        grid = A.check_grid(self.spec, grid)
        checked, device = A.check_args(self.spec, args)
        return grid, checked, device

    def __call__(self, grid, *args, stream=None):
        """Checks the arguments, then launches on `stream` (None: torch's
        current stream of the tensors' device, or the default stream);
        asynchronous like any CUDA launch. The grid is an int or a tuple
        of up to 3 ints; the block is the kernel's (metadata: threads)."""
        grid, checked, device = self.check(grid, *args)
        if device is None:
            device = _current_device()
        handle = _stream_handle(stream, device)
        array, keep = pack(checked)
        _lib.launch(device, self._module._handle(device), self.name, grid, array, handle)
        del keep


class Module:
    """A cubin with its kernels (attributes named after them)."""

    def __init__(self, cubin_path, metadata_path=None):
        self.path = os.path.abspath(cubin_path)
        self.metadata_path = os.path.abspath(metadata_path or cubin_path + ".meta")
        if not os.path.isfile(self.path):
            raise FileNotFoundError(f"jfa.load: no cubin at {cubin_path}")
        entries = _metadata.read(self.metadata_path)
        if not entries:
            raise _metadata.MetadataError(f"{self.metadata_path}: lists no kernels")
        self.kernels = {}
        for e in entries:
            self.kernels[e["name"]] = Kernel(self, A.KernelSpec(e, self.metadata_path))
        self.arch = entries[0]["arch"]
        self._handles = {}
        self._lock = threading.Lock()

    def _handle(self, device):
        h = self._handles.get(device)
        if h is None:
            with self._lock:
                h = self._handles.get(device)
                if h is None:
                    h = _lib.module_load_file(device, self.path, self.metadata_path)
                    self._handles[device] = h
        return h

    def __getattr__(self, name):
        kernels = self.__dict__.get("kernels")
        if kernels is not None and name in kernels:
            return kernels[name]
        raise AttributeError(f"{os.path.basename(self.__dict__.get('path', '?'))} has no "
                             f"kernel '{name}' (it has: "
                             f"{', '.join(sorted(kernels or ())) or 'none'})")

    def __getitem__(self, name):
        try:
            return self.kernels[name]
        except KeyError:
            raise KeyError(f"{os.path.basename(self.path)} has no kernel '{name}' (it has: "
                           f"{', '.join(sorted(self.kernels))})") from None

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self.kernels))

    def __repr__(self):
        return f"<jfa module {self.path} [{self.arch}]: {', '.join(self.kernels)}>"


def load(cubin_path, metadata_path=None):
    """Loads a cubin compiled by jfac and its metadata (default
    `<cubin_path>.meta`). Returns a Module whose attributes are the kernels:
    mod.my_kernel(grid, *args, stream=None). Raises FileNotFoundError for a
    missing cubin and jfa.MetadataError (a ValueError) for missing or bad
    metadata; the GPU is first touched at the first launch."""
    return Module(os.fspath(cubin_path), metadata_path and os.fspath(metadata_path))
