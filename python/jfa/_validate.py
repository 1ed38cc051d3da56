"""Argument checks of jagged_attention that need neither torch nor a GPU.

Shapes, strides and offsets are plain Python tuples and lists here, so the
rules can be tested on any machine (test/python/). Every check raises
ValueError (or TypeError for a value of the wrong kind) with a message that
names the argument.
"""
import math
import operator

SUPPORTED_HEAD_DIMS = (64, 128)
INT32_MAX = 2**31 - 1
# TMA rules the kernel relies on for q, k, v (kernels/jagged_attention/README.md).
TOKEN_STRIDE_MULTIPLE = 8  # elements: 16 bytes of bf16
ALIGNMENT_BYTES = 16
BF16_BYTES = 2


def _shape_str(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def check_shapes(q_shape, k_shape, v_shape, offsets_shape):
    """Checks the ranks and sizes; returns (T, H, D, B)."""
    q_shape, k_shape, v_shape, offsets_shape = (tuple(s) for s in
                                                (q_shape, k_shape, v_shape, offsets_shape))
    for name, shape in (("q", q_shape), ("k", k_shape), ("v", v_shape)):
        if len(shape) != 3:
            raise ValueError(f"{name} must be 3-d [T, H, D] (tokens, heads, head dim), "
                             f"got {len(shape)}-d shape {_shape_str(shape)}")
    for name, shape in (("k", k_shape), ("v", v_shape)):
        if shape != q_shape:
            raise ValueError(f"{name} must have the shape of q {_shape_str(q_shape)}, "
                             f"got {_shape_str(shape)}")
    t, h, d = q_shape
    if d not in SUPPORTED_HEAD_DIMS:
        raise ValueError(f"head dim D = {d} (q.shape[2]) is not supported; "
                         f"supported: {', '.join(map(str, SUPPORTED_HEAD_DIMS))}")
    if h < 1:
        raise ValueError(f"the number of heads H = {h} (q.shape[1]) must be at least 1")
    if t > INT32_MAX:
        raise ValueError(f"T = {t} tokens (q.shape[0]) exceeds the kernel's int32 limit "
                         f"({INT32_MAX})")
    if len(offsets_shape) != 1:
        raise ValueError(f"offsets must be 1-d [B + 1], got {len(offsets_shape)}-d shape "
                         f"{_shape_str(offsets_shape)}")
    if offsets_shape[0] < 1:
        raise ValueError("offsets must have at least one element ([B + 1], offsets[0] = 0)")
    b = offsets_shape[0] - 1
    if b > INT32_MAX:
        raise ValueError(f"B = {b} sequences exceeds the kernel's int32 limit")
    return t, h, d, b


def check_max_seqlen(max_seqlen, total_tokens):
    """max_seqlen must be an integer, >= 1 when there are tokens; returns it as int."""
    if isinstance(max_seqlen, bool):
        raise TypeError("max_seqlen must be an int, got bool")
    try:
        value = operator.index(max_seqlen)
    except TypeError:
        raise TypeError(f"max_seqlen must be an int, got {type(max_seqlen).__name__}") from None
    if value < 0:
        raise ValueError(f"max_seqlen must be non-negative, got {value}")
    if total_tokens > 0 and value < 1:
        raise ValueError(f"max_seqlen = {value} but there are {total_tokens} tokens: "
                         f"max_seqlen must be at least the longest sequence's length")
    return value


def check_sizes(total_tokens, batch, max_seqlen):
    """What the sizes alone say (no look at the offsets' values)."""
    if total_tokens > 0 and batch == 0:
        raise ValueError(f"offsets has no sequence (B = 0) but there are {total_tokens} tokens")
    if batch * max_seqlen < total_tokens:
        raise ValueError(f"max_seqlen = {max_seqlen} is too small: B * max_seqlen = "
                         f"{batch * max_seqlen} < T = {total_tokens} tokens")


def check_softmax_scale(softmax_scale, head_dim):
    """None means 1/sqrt(D); returns the float scale passed to the kernel."""
    if softmax_scale is None:
        return 1.0 / math.sqrt(head_dim)
    if isinstance(softmax_scale, (bool, str, bytes)) or not hasattr(type(softmax_scale),
                                                                     "__float__"):
        raise TypeError(f"softmax_scale must be a float or None, "
                        f"got {type(softmax_scale).__name__}")
    value = float(softmax_scale)
    if not math.isfinite(value) or value <= 0.0:
        raise ValueError(f"softmax_scale must be positive and finite, got {value}")
    return value


def input_layout_ok(shape, strides, data_ptr):
    """Whether a bf16 [T, H, D] input (q, k or v) can be handed to the kernel as is:
    unit dim stride, head stride D, token stride a multiple of 8 elements and at
    least H * D, 16-byte aligned base. Otherwise the caller makes a packed copy."""
    t, h, d = shape
    st, sh, sd = strides
    if t == 0 or h == 0:
        return True  # nothing is read
    if d > 1 and sd != 1:
        return False
    if h > 1 and sh != d:
        return False
    if t > 1 and (st % TOKEN_STRIDE_MULTIPLE != 0 or st < h * d):
        return False
    return data_ptr % ALIGNMENT_BYTES == 0


def input_strides(shape, strides):
    """The strides passed to the runtime for a tensor input_layout_ok accepted:
    the sizes that do not matter (a single token, head or dim) get the packed
    value, so the runtime sees the canonical layout."""
    t, h, d = shape
    st, sh, sd = strides
    return (st if t > 1 else h * d, sh if h > 1 else d, sd if d > 1 else 1)


def check_output_o(shape, strides, data_ptr, expected_shape):
    """A caller-supplied o: bf16 [T, H, D], unit dim stride, head stride D, token
    stride >= H * D and a multiple of 8, 16-byte aligned (it is written in place,
    so it is never copied)."""
    shape = tuple(shape)
    if shape != tuple(expected_shape):
        raise ValueError(f"o must have the shape of q {_shape_str(expected_shape)}, "
                         f"got {_shape_str(shape)}")
    if not input_layout_ok(shape, strides, data_ptr):
        t, h, d = shape
        raise ValueError(f"o's layout is not supported: strides {_shape_str(strides)}, base "
                         f"address {data_ptr:#x}; o needs dim stride 1, head stride D = {d}, "
                         f"token stride a multiple of {TOKEN_STRIDE_MULTIPLE} and >= H * D = "
                         f"{h * d}, and a {ALIGNMENT_BYTES}-byte aligned base")
    st = input_strides(shape, strides)
    if st[0] > INT32_MAX:
        raise ValueError(f"o's token stride {st[0]} exceeds the kernel's int32 limit")
    return st


def check_output_lse(shape, strides, expected_shape):
    """A caller-supplied lse: f32 [H, T], contiguous."""
    shape = tuple(shape)
    if shape != tuple(expected_shape):
        raise ValueError(f"lse must be [H, T] = {_shape_str(expected_shape)}, "
                         f"got {_shape_str(shape)}")
    h, t = shape
    sh, st = strides
    if h == 0 or t == 0:
        return
    if (t > 1 and st != 1) or (h > 1 and sh != t):
        raise ValueError(f"lse must be contiguous [H, T], got strides {_shape_str(strides)}")


BACKWARD_KEY_TILE = 128  # keys per work unit of attention_bwd_sm90


GRID_Y_MAX = 65535  # the backward's delta kernel has one grid row per head


def backward_k_tiles(max_seqlen, total_tokens):
    """k_tiles of the backward kernel: 128-key tiles of the longest sequence
    (bounded by T: no sequence is longer), at least 1."""
    n = min(max_seqlen, total_tokens)
    return max(1, -(-n // BACKWARD_KEY_TILE))


def check_backward_sizes(total_tokens, heads, head_dim, batch, k_tiles):
    """What the backward kernels compute in int32: element offsets into the
    packed [T, H*D] gradients (token * H*D + column) and the number of work
    units B * H * k_tiles."""
    elements = total_tokens * heads * head_dim
    if elements > INT32_MAX:
        raise ValueError(f"T * H * D = {total_tokens} * {heads} * {head_dim} = {elements} "
                         f"elements exceeds the backward kernel's int32 offsets ({INT32_MAX}); "
                         f"split the batch")
    if heads > GRID_Y_MAX:
        raise ValueError(f"H = {heads} heads is more than the backward takes (at most "
                         f"{GRID_Y_MAX}: a grid dimension)")
    units = batch * heads * k_tiles
    if units > INT32_MAX:
        raise ValueError(f"B * H * ceil(max_seqlen / {BACKWARD_KEY_TILE}) = {units} work units "
                         f"exceeds the backward kernel's int32 limit; use a tighter max_seqlen")


def _rows(shape, strides, data_ptr, element_bytes):
    """A tensor's memory as (start, row bytes, row stride in bytes, rows):
    rows of its outermost dimension when the inner dimensions are packed,
    else one row spanning it all. None when it is empty."""
    shape, strides = tuple(shape), tuple(strides)
    if any(d == 0 for d in shape):
        return None
    if not shape:
        return data_ptr, element_bytes, element_bytes, 1
    if any(s < 0 for s in strides):  # not made by torch; be conservative
        lo = sum((d - 1) * s for d, s in zip(shape, strides) if s < 0)
        hi = sum((d - 1) * s for d, s in zip(shape, strides) if s > 0)
        return data_ptr + lo * element_bytes, (hi - lo + 1) * element_bytes, 1, 1
    dense = 1
    packed = True
    for d, s in zip(reversed(shape[1:]), reversed(strides[1:])):
        if d > 1 and s != dense:
            packed = False
        dense *= d
    if packed and shape[0] > 1 and strides[0] * element_bytes >= dense * element_bytes:
        return data_ptr, dense * element_bytes, strides[0] * element_bytes, shape[0]
    span = sum((d - 1) * s for d, s in zip(shape, strides)) + 1
    return data_ptr, span * element_bytes, span * element_bytes, 1


def overlaps(a, b):
    """Whether two tensors, each (shape, strides, data_ptr, element_bytes),
    may share a byte. Exact for tensors made of packed rows at one stride
    (an interleaved buffer's views: buf[:, 0] and buf[:, 1] do not overlap),
    conservative (the spans overlap) otherwise."""
    ra, rb = _rows(*a), _rows(*b)
    if ra is None or rb is None:
        return False
    pa, la, sa, na = ra
    pb, lb, sb, nb = rb
    if na > 1 and nb > 1 and sa == sb:
        # Rows i of a and j of b meet when delta - la < (i - j) * s < delta + lb.
        delta, s = pb - pa, sa
        k_lo = (delta - la) // s + 1
        k_hi = -((-(delta + lb)) // s) - 1
        return max(k_lo, -(nb - 1)) <= min(k_hi, na - 1)
    end_a = pa + (na - 1) * sa + la
    end_b = pb + (nb - 1) * sb + lb
    return pa < end_b and pb < end_a


def check_no_alias(outputs, inputs):
    """outputs, inputs: [(name, (shape, strides, data_ptr, element_bytes))].
    Raises ValueError naming both when an output overlaps an input or
    another output (the kernels read the inputs while they write the
    outputs: an alias gives wrong results)."""
    for i, (name, t) in enumerate(outputs):
        for other, u in list(inputs) + list(outputs[:i]):
            if overlaps(t, u):
                kind = "input" if any(other == n for n, _ in inputs) else "output"
                raise ValueError(f"{name} overlaps the {kind} {other} in memory ({name} at "
                                 f"{t[2]:#x}, {other} at {u[2]:#x}); an output must not alias "
                                 f"an input or another output: pass a separate tensor")
