"""Torch-side helpers of the attention entry points (_api, _forward,
_backward): importing torch, argument checks that need tensors, and the
kernels' view of an input. No jfa module but _validate is imported here, so
the entry points do not import one another."""
from . import _validate

_torch = None


def import_torch(what="jfa.jagged_attention"):
    """torch, imported once (ImportError naming what needs it)."""
    global _torch
    if _torch is None:
        try:
            import torch
        except ImportError as e:
            raise ImportError(f"{what} needs PyTorch (with CUDA): "
                              f"'import torch' failed: {e}") from e
        _torch = torch
    return _torch


def is_compiling(torch):
    """Whether torch.compile (Dynamo) is tracing the caller."""
    compiler = getattr(torch, "compiler", None)
    fn = getattr(compiler, "is_compiling", None)
    return bool(fn()) if fn is not None else False


def check_tensor(torch, name, t, dtype):
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
    if t.dtype != dtype:
        raise TypeError(f"{name} must be {dtype}, got {t.dtype}")


def memory(t):
    """What _validate.check_no_alias needs of a tensor."""
    return tuple(t.shape), tuple(t.stride()), t.data_ptr(), t.element_size()


def check_no_alias(outputs, inputs):
    """outputs, inputs: [(name, tensor or None)]; the given outputs must not
    overlap the inputs or each other (ValueError naming both)."""
    outs = [(n, memory(t)) for n, t in outputs if t is not None]
    if outs:
        _validate.check_no_alias(outs, [(n, memory(t)) for n, t in inputs if t is not None])


def kernel_input(torch, t):
    """t itself when the kernel can read it in place, else a packed copy."""
    if _validate.input_layout_ok(tuple(t.shape), tuple(t.stride()), t.data_ptr()):
        return t
    packed = torch.empty(t.shape, dtype=t.dtype, device=t.device)
    packed.copy_(t)
    return packed


def kernel_view(torch, t):
    """(t or its packed copy, its runtime strides): t itself when the kernel
    can read it in place. Shape and strides are read once (each read of a
    tensor attribute is host time on every call)."""
    shape, strides = tuple(t.shape), t.stride()
    if not _validate.input_layout_ok(shape, strides, t.data_ptr()):
        t = kernel_input(torch, t)
        strides = t.stride()
    return t, _validate.input_strides(shape, strides)
