"""Launch JFA kernels from Python through the runtime's C API (libjfart.so)."""
import ctypes
import os


class _Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_uint64), ("element_type", ctypes.c_char_p),
                ("rank", ctypes.c_int), ("shape", ctypes.POINTER(ctypes.c_uint64)),
                ("strides", ctypes.POINTER(ctypes.c_uint64))]


class _Value(ctypes.Union):
    _fields_ = [("tensor", _Tensor), ("ptr", ctypes.c_uint64), ("i32", ctypes.c_int32),
                ("i64", ctypes.c_int64), ("f32", ctypes.c_float), ("f64", ctypes.c_double)]


class _Arg(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("value", _Value)]


TENSOR, PTR, I32, I64, F32, F64 = range(6)
_DTYPES = {"torch.bfloat16": b"bf16", "torch.float16": b"f16", "torch.float32": b"f32"}


class Module:
    def __init__(self, lib_path, cubin_path):
        self.lib = ctypes.CDLL(lib_path)
        self.lib.jfa_last_error.restype = ctypes.c_char_p
        self.handle = ctypes.c_void_p()
        if self.lib.jfa_module_load_file(cubin_path.encode(), None,
                                         ctypes.byref(self.handle)) != 0:
            raise RuntimeError(self.lib.jfa_last_error().decode())
        self._keep = []

    def launch(self, kernel, grid, args, stream=0):
        """args: torch tensors (as TMA tensors) or ("ptr", address) / ("i32", v) / ("f32", v)."""
        packed = (_Arg * len(args))()
        keep = []
        for i, a in enumerate(args):
            if isinstance(a, tuple):
                kind, v = a
                packed[i].kind = {"ptr": PTR, "i32": I32, "i64": I64, "f32": F32}[kind]
                setattr(packed[i].value, kind, v)
                continue
            shape = (ctypes.c_uint64 * a.dim())(*a.shape)
            strides = (ctypes.c_uint64 * a.dim())(*a.stride())
            dtype = _DTYPES[str(a.dtype)]
            keep += [shape, strides, dtype]
            packed[i].kind = TENSOR
            packed[i].value.tensor = _Tensor(a.data_ptr(), dtype, a.dim(), shape, strides)
        gx, gy, gz = (tuple(grid) + (1, 1))[:3]
        rc = self.lib.jfa_launch(self.handle, kernel.encode(), gx, gy, gz, packed,
                                 len(args), ctypes.c_void_p(stream))
        if rc != 0:
            raise RuntimeError(self.lib.jfa_last_error().decode())
