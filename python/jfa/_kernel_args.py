"""The checks of jfa.load's kernel calls, without torch, a GPU or the runtime.

A kernel's parameters come from its metadata (_metadata.py); a call's
arguments are checked against them here as the C++ runtime checks them
(runtime/src/Runtime.cpp, validateArgs), and more: the tensor's dtype against
the parameter's element type, its device, the TMA's strides and alignment,
the integer range of i32 / i64 scalars, the grid's limits. Tensors are seen
through a small adapter (TensorInfo) built by duck typing from anything with
`dtype`, `device`, `shape`, `stride()` and `data_ptr()` (a torch.Tensor), so
the rules are tested on any machine with stand-in objects (test/python/).

    spec = KernelSpec(metadata_entry)
    grid = check_grid(spec, (132,))
    args, device = check_args(spec, [x, y, 100, 36, 2.0])
    # args: [Tensor(...), Tensor(...), Scalar("i32", 100), ...]

Every error is a TypeError (a value of the wrong kind: not a tensor, wrong
dtype, a float for an int) or a ValueError (wrong count, device, layout,
alignment, range) whose message names the kernel and the argument:
"my_kernel: argument 3 (%k): expected a bfloat16 CUDA tensor, got float32".
"""
import math
import operator
import struct
from collections import namedtuple

# torch dtype (as str(dtype)) -> metadata element type.
TORCH_DTYPES = {
    "torch.float64": "f64", "torch.float32": "f32", "torch.float16": "f16",
    "torch.bfloat16": "bf16", "torch.int64": "i64", "torch.int32": "i32",
    "torch.int16": "i16", "torch.int8": "i8", "torch.float8_e4m3fn": "f8E4M3FN",
    "torch.float8_e5m2": "f8E5M2",
}
# metadata element type -> the dtype's name in messages.
DTYPE_NAMES = {v: k[len("torch."):] for k, v in TORCH_DTYPES.items()}
ELEMENT_BYTES = {"f64": 8, "i64": 8, "f32": 4, "i32": 4, "f16": 2, "bf16": 2, "i16": 2,
                 "i8": 1, "f8E4M3FN": 1, "f8E5M2": 1}

ALIGNMENT_BYTES = 16  # TMA: base address and every stride but the innermost
MAX_TMA_DIM = 2**32  # each dimension of a TMA tensor is in [1, 2^32]
MAX_TMA_STRIDE_BYTES = 2**40  # cuTensorMapEncodeTiled: strides < 2^40 bytes
MAX_GRID = (2**31 - 1, 65535, 65535)
INT_RANGES = {"i32": (-2**31, 2**31 - 1), "i64": (-2**63, 2**63 - 1)}
F32_MAX = struct.unpack("<f", b"\xff\xff\x7f\x7f")[0]

# A tensor as the checks see it. dtype: the metadata element type, or None
# when the tensor's dtype has none (dtype_name says what it is).
TensorInfo = namedtuple("TensorInfo", "dtype dtype_name device_type device_index shape "
                                      "strides data_ptr")
# A checked argument: a tensor for a "tma" or "ptr" parameter, or a scalar.
Tensor = namedtuple("Tensor", "kind element_type shape strides data_ptr")
Scalar = namedtuple("Scalar", "kind value")


_dtype_cache = {}  # dtype object -> (element type or None, name)


def _dtype(dtype):
    try:
        return _dtype_cache[dtype]
    except (KeyError, TypeError):
        pass
    name = str(dtype)
    out = (TORCH_DTYPES.get(name), name[len("torch."):] if name.startswith("torch.") else name)
    try:
        _dtype_cache[dtype] = out
    except TypeError:  # unhashable
        pass
    return out


def tensor_info(obj):
    """A TensorInfo of a tensor-like object (duck typed on what a
    torch.Tensor has: dtype, device, shape, stride(), data_ptr()), or None
    when `obj` is not one."""
    try:
        dtype, device, shape = obj.dtype, obj.device, obj.shape
        stride, data_ptr = obj.stride, obj.data_ptr
    except AttributeError:
        return None
    if not callable(data_ptr) or not callable(stride):
        return None
    et, name = _dtype(dtype)
    return TensorInfo(et, name, getattr(device, "type", str(device)),
                      getattr(device, "index", None), tuple(shape), tuple(stride()),
                      data_ptr())


def _type_name(v):
    return "bool" if isinstance(v, bool) else type(v).__name__


class ParamSpec:
    """One parameter of a kernel, from a metadata "arguments" entry."""
    __slots__ = ("index", "kind", "element_type", "box", "swizzle", "name")

    def __init__(self, index, entry):
        self.index = index
        self.kind = entry["kind"]
        self.element_type = entry.get("element_type")
        self.box = tuple(entry.get("box", ()))
        self.swizzle = entry.get("swizzle", 0)
        self.name = entry.get("name")

    def label(self):
        """`argument 3 (%k)`, or `argument 3` when the metadata has no name."""
        return f"argument {self.index}" + (f" (%{self.name})" if self.name else "")

    def describe(self):
        """How the parameter is written in a signature: `%x: tma<64x64xf32>`."""
        name = f"%{self.name}" if self.name else f"#{self.index}"
        if self.kind == "tma":
            return f"{name}: tma<{'x'.join(map(str, self.box))}x{self.element_type}>"
        if self.kind == "ptr":
            return f"{name}: ptr<{self.element_type}>"
        return f"{name}: {self.kind}"


class KernelSpec:
    """A kernel's launch contract, from its metadata entry (_metadata.read)."""

    def __init__(self, entry, source="metadata"):
        self.name = entry["name"]
        self.arch = entry["arch"]
        self.threads = entry["threads"]
        self.cluster = tuple(entry["cluster"])
        self.shared_bytes = entry["shared_bytes"]
        self.params = [ParamSpec(i, a) for i, a in enumerate(entry["arguments"])]
        self.compile_params = dict(entry.get("params", {}))
        self.source = source

    def signature(self):
        return f"{self.name}({', '.join(p.describe() for p in self.params)})"


def _fail(spec, param, message, exc=ValueError):
    raise exc(f"{spec.name}: {param.label()}: {message}")


def check_grid(spec, grid):
    """The launch grid (x, y, z): an int or a sequence of 1 to 3 positive
    ints within CUDA's limits, each a multiple of the kernel's cluster."""
    if isinstance(grid, bool):
        raise TypeError(f"{spec.name}: grid must be an int or a tuple of 1 to 3 ints, "
                        "got bool")
    try:
        dims = (operator.index(grid),)
    except TypeError:
        try:
            dims = tuple(grid)
        except TypeError:
            raise TypeError(f"{spec.name}: grid must be an int or a tuple of 1 to 3 ints, "
                            f"got {_type_name(grid)}") from None
    if not 1 <= len(dims) <= 3:
        raise ValueError(f"{spec.name}: grid must have 1 to 3 dimensions, got {len(dims)}")
    out = []
    for axis, d in zip("xyz", dims):
        if isinstance(d, bool):
            raise TypeError(f"{spec.name}: grid {axis} must be an int, got bool")
        try:
            d = operator.index(d)
        except TypeError:
            raise TypeError(f"{spec.name}: grid {axis} must be an int, "
                            f"got {_type_name(d)}") from None
        out.append(d)
    out += [1] * (3 - len(out))
    for i, (axis, d) in enumerate(zip("xyz", out)):
        if not 1 <= d <= MAX_GRID[i]:
            raise ValueError(f"{spec.name}: grid {axis} = {d} must be in [1, {MAX_GRID[i]}]")
        if d % spec.cluster[i]:
            raise ValueError(f"{spec.name}: grid {axis} = {d} is not a multiple of the "
                             f"kernel's cluster dimension {spec.cluster[i]} (cluster "
                             f"{'x'.join(map(str, spec.cluster))})")
    return tuple(out)


def _expected_tensor(param):
    return f"a {DTYPE_NAMES.get(param.element_type, param.element_type)} CUDA tensor"


class _ShapeText:
    """A shape as "[a, b]", formatted only when a message needs it."""
    __slots__ = ("shape",)

    def __init__(self, shape):
        self.shape = shape

    def __format__(self, spec):
        return "[" + ", ".join(map(str, self.shape)) + "]"


def _check_tensor(spec, param, arg, device):
    """A Tensor of `arg` for a tma / ptr parameter; `device` is the CUDA
    device index the earlier tensors are on (None: not yet known). Returns
    (Tensor, device index)."""
    info = arg if isinstance(arg, TensorInfo) else tensor_info(arg)
    if info is None:
        what = "for its TMA descriptor" if param.kind == "tma" else "for a pointer"
        _fail(spec, param, f"expected {_expected_tensor(param)} ({what}), got "
                           f"{_type_name(arg)}", TypeError)
    if info.dtype != param.element_type:
        _fail(spec, param, f"expected {_expected_tensor(param)}, got {info.dtype_name}",
              TypeError)
    if info.device_type != "cuda":
        _fail(spec, param, f"expected {_expected_tensor(param)}, got a tensor on "
                           f"{info.device_type}")
    index = info.device_index
    if device is not None and index is not None and index != device:
        _fail(spec, param, f"is on cuda:{index} but the earlier tensor arguments are on "
                           f"cuda:{device}; every tensor of a launch must be on one device")
    if device is None:
        device = index
    bytes_ = ELEMENT_BYTES[param.element_type]
    if param.kind == "ptr":
        if info.data_ptr % bytes_:
            _fail(spec, param, f"address {info.data_ptr:#x} is not aligned to its "
                               f"{bytes_}-byte elements")
        return Tensor("ptr", param.element_type, info.shape, info.strides,
                      info.data_ptr), device
    rank = len(param.box)
    shape_s = _ShapeText(info.shape)
    if len(info.shape) != rank:
        _fail(spec, param, f"expected a rank-{rank} tensor (the TMA box is "
                           f"{'x'.join(map(str, param.box))}), got shape {shape_s}")
    for i, d in enumerate(info.shape):
        if not 1 <= d <= MAX_TMA_DIM:
            _fail(spec, param, f"TMA tensor dimensions must be in [1, 2^32]; dimension {i} "
                               f"of shape {shape_s} is {d}")
    strides = info.strides
    if len(strides) != rank:
        _fail(spec, param, f"{len(strides)} strides for a rank-{rank} tensor")
    if rank and info.shape[-1] > 1 and strides[-1] != 1:
        _fail(spec, param, f"TMA needs the innermost dimension contiguous (stride 1), got "
                           f"strides {list(strides)}; pass .contiguous()")
    for i in range(rank - 1):
        if info.shape[i] == 1:
            continue  # never stepped over
        sb = strides[i] * bytes_
        if strides[i] <= 0 or sb % ALIGNMENT_BYTES:
            _fail(spec, param, f"TMA needs every stride but the innermost to be a positive "
                               f"multiple of {ALIGNMENT_BYTES} bytes; dimension {i} has a "
                               f"stride of {strides[i]} elements ({sb} bytes; strides "
                               f"{list(strides)}, shape {shape_s})")
        if sb >= MAX_TMA_STRIDE_BYTES:
            _fail(spec, param, f"dimension {i}'s stride of {sb} bytes is over TMA's limit "
                               f"of 2^40 bytes")
    if info.data_ptr == 0:
        _fail(spec, param, "null tensor address")
    if info.data_ptr % ALIGNMENT_BYTES:
        _fail(spec, param, f"TMA needs a {ALIGNMENT_BYTES}-byte aligned address, got "
                           f"{info.data_ptr:#x} (a view at an offset? pass .clone())")
    # The strides the runtime gets: a size-1 dimension is never stepped over,
    # so its stride (any value in torch) becomes one that meets TMA's rules.
    canon = list(strides)
    for i in range(rank - 1, -1, -1):
        if info.shape[i] > 1:
            continue
        if i == rank - 1:
            canon[i] = 1
        else:
            span = canon[i + 1] * info.shape[i + 1] * bytes_
            canon[i] = -(-span // ALIGNMENT_BYTES) * ALIGNMENT_BYTES // bytes_
    canon = tuple(canon)
    return Tensor("tma", param.element_type, info.shape, canon, info.data_ptr), device


def _check_scalar(spec, param, arg):
    kind = param.kind
    # The common cases first: a Python int for an integer, a float for a float.
    t = type(arg)
    if t is int and kind in INT_RANGES:
        lo, hi = INT_RANGES[kind]
        if lo <= arg <= hi:
            return Scalar(kind, arg)
    elif t is float and kind == "f64":
        return Scalar(kind, arg)
    if tensor_info(arg) is not None:
        py = "an int" if kind in INT_RANGES else "a float"
        _fail(spec, param, f"expected {py} ({kind} scalar), got a tensor", TypeError)
    if kind in INT_RANGES:
        if isinstance(arg, bool):
            _fail(spec, param, f"expected an int ({kind}), got bool", TypeError)
        try:
            value = operator.index(arg)
        except TypeError:
            _fail(spec, param, f"expected an int ({kind}), got {_type_name(arg)}", TypeError)
        lo, hi = INT_RANGES[kind]
        if not lo <= value <= hi:
            _fail(spec, param, f"{value} does not fit in {kind} ([{lo}, {hi}])")
        return Scalar(kind, value)
    if isinstance(arg, (bool, str, bytes)) or not hasattr(type(arg), "__float__"):
        _fail(spec, param, f"expected a float ({kind}), got {_type_name(arg)}", TypeError)
    value = float(arg)
    if kind == "f32" and math.isfinite(value) and abs(value) > F32_MAX:
        _fail(spec, param, f"{value} is out of f32's range (largest {F32_MAX:.6g}); pass "
                           "inf explicitly if that is meant")
    return Scalar(kind, value)


def check_args(spec, args):
    """Checks a call's arguments against the kernel's parameters; returns
    ([Tensor | Scalar, ...], CUDA device index of the tensors or None)."""
    args = list(args)
    if len(args) != len(spec.params):
        raise TypeError(f"{spec.name}: takes {len(spec.params)} arguments "
                        f"({', '.join(p.describe() for p in spec.params)}), got {len(args)}")
    out = []
    device = None
    for param, arg in zip(spec.params, args):
        if param.kind in ("tma", "ptr"):
            t, device = _check_tensor(spec, param, arg, device)
            out.append(t)
        else:
            out.append(_check_scalar(spec, param, arg))
    return out, device

