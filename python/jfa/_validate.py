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


def check_max_seqlen(max_seqlen, total_tokens, keys=False):
    """max_seqlen must be an integer, >= 1 when there are tokens; returns it as int.
    keys: it is max_seqlen_k, the bound of the key sequences (cross-attention)."""
    name, unit = ("max_seqlen_k", "keys") if keys else ("max_seqlen", "tokens")
    if isinstance(max_seqlen, bool):
        raise TypeError(f"{name} must be an int, got bool")
    try:
        value = operator.index(max_seqlen)
    except TypeError:
        raise TypeError(f"{name} must be an int, got {type(max_seqlen).__name__}") from None
    if value < 0:
        raise ValueError(f"{name} must be non-negative, got {value}")
    if total_tokens > 0 and value < 1:
        raise ValueError(f"{name} = {value} but there are {total_tokens} {unit}: "
                         f"{name} must be at least the longest sequence's length")
    return value


def check_sizes(total_tokens, batch, max_seqlen, keys=False):
    """What the sizes alone say (no look at the offsets' values). keys: the
    key sequences' (offsets_k, T_k, max_seqlen_k)."""
    offsets, name, t, unit = (("offsets_k", "max_seqlen_k", "T_k", "keys") if keys else
                              ("offsets", "max_seqlen", "T", "tokens"))
    if total_tokens > 0 and batch == 0:
        raise ValueError(f"{offsets} has no sequence (B = 0) but there are {total_tokens} {unit}")
    if batch * max_seqlen < total_tokens:
        raise ValueError(f"{name} = {max_seqlen} is too small: B * {name} = "
                         f"{batch * max_seqlen} < {t} = {total_tokens} {unit}")


def check_attention_shapes(q_shape, k_shape, v_shape, offsets_shape, offsets_k_shape=None):
    """The forward's shapes: q [T, H, D]; k and v [T_k, H_kv, D] with H a
    multiple of H_kv (grouped-query attention) and T_k = T unless
    offsets_k_shape is given (cross-attention: offsets_k [B + 1], the shape
    of offsets). Returns (T, H, D, B, T_k, H_kv)."""
    q_shape, k_shape, v_shape, offsets_shape = (tuple(s) for s in
                                                (q_shape, k_shape, v_shape, offsets_shape))
    for name, shape in (("q", q_shape), ("k", k_shape), ("v", v_shape)):
        if len(shape) != 3:
            raise ValueError(f"{name} must be 3-d [T, H, D] (tokens, heads, head dim), "
                             f"got {len(shape)}-d shape {_shape_str(shape)}")
    if v_shape != k_shape:
        raise ValueError(f"v must have the shape of k {_shape_str(k_shape)}, "
                         f"got {_shape_str(v_shape)}")
    t, h, d = q_shape
    t_k, h_kv, d_k = k_shape
    if d not in SUPPORTED_HEAD_DIMS:
        raise ValueError(f"head dim D = {d} (q.shape[2]) is not supported; "
                         f"supported: {', '.join(map(str, SUPPORTED_HEAD_DIMS))}")
    if d_k != d:
        raise ValueError(f"k and v must have q's head dim D = {d} (k.shape[2]), got {d_k}")
    if h < 1:
        raise ValueError(f"the number of heads H = {h} (q.shape[1]) must be at least 1")
    if h_kv < 1:
        raise ValueError(f"the number of k/v heads H_kv = {h_kv} (k.shape[1]) must be at "
                         f"least 1")
    if h % h_kv != 0:
        raise ValueError(f"q's H = {h} heads (q.shape[1]) must be a multiple of k's and v's "
                         f"H_kv = {h_kv} heads (k.shape[1]) (grouped-query attention: q head h "
                         f"reads k/v head h // (H // H_kv))")
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
    if offsets_k_shape is None:
        if t_k != t:
            raise ValueError(f"k and v must have q's T = {t} tokens (k.shape[0]) for "
                             f"self-attention, got {t_k}; for keys of other lengths pass "
                             f"offsets_k and max_seqlen_k (cross-attention)")
    else:
        offsets_k_shape = tuple(offsets_k_shape)
        if offsets_k_shape != offsets_shape:
            raise ValueError(f"offsets_k must have the shape of offsets {_shape_str(offsets_shape)} "
                             f"([B + 1]: one key sequence per query sequence), got "
                             f"{_shape_str(offsets_k_shape)}")
        if t_k > INT32_MAX:
            raise ValueError(f"T_k = {t_k} keys (k.shape[0]) exceeds the kernel's int32 limit "
                             f"({INT32_MAX})")
    return t, h, d, b, t_k, h_kv


def check_key_options(has_offsets_k, max_seqlen_k, total_keys):
    """max_seqlen_k goes with offsets_k (required with it, refused without);
    returns it as an int (0 without offsets_k)."""
    if not has_offsets_k:
        if max_seqlen_k is not None:
            raise ValueError(f"max_seqlen_k = {max_seqlen_k!r} is given but offsets_k is not: "
                             f"without offsets_k the keys are the queries' tokens "
                             f"(self-attention, bounded by max_seqlen)")
        return 0
    if max_seqlen_k is None:
        raise ValueError("max_seqlen_k is required with offsets_k: an int >= the longest key "
                         "sequence (offsets_k[b+1] - offsets_k[b])")
    return check_max_seqlen(max_seqlen_k, total_keys, keys=True)


# Window bounds at or past this mask nothing (no sequence is that long).
WINDOW_MAX = 2**31 - 1


def check_window(window, causal):
    """window: None or FlashAttention's window_size (left, right), -1 for
    unbounded on that side; returns it as a tuple of two ints ((-1, -1) for
    None). Query i of a sequence sees key j only if i + shift - left <= j <=
    i + shift + right (shift = len_k - len_q). causal with right > 0 is
    refused: causal already means right = 0."""
    if window is None:
        return (-1, -1)
    if not isinstance(window, (tuple, list)):
        raise TypeError(f"window must be None or a (left, right) pair of ints (FlashAttention's "
                        f"window_size; -1 = unbounded), got {type(window).__name__}")
    if len(window) != 2:
        raise ValueError(f"window must be a (left, right) pair, got {len(window)} values")
    out = []
    for i, (side, value) in enumerate(zip(("left", "right"), window)):
        if isinstance(value, bool):
            raise TypeError(f"window[{i}] ({side}) must be an int, got bool")
        try:
            value = operator.index(value)
        except TypeError:
            raise TypeError(f"window[{i}] ({side}) must be an int, "
                            f"got {type(value).__name__}") from None
        if value < -1:
            raise ValueError(f"window[{i}] ({side}) must be -1 (unbounded) or >= 0, got {value}")
        # A bound past every sequence masks nothing: clamped, it means the
        # same and fits the runtime's 64-bit field and the op's int.
        out.append(min(value, WINDOW_MAX))
    left, right = out
    if causal and right > 0:
        raise ValueError(f"causal=True and window=({left}, {right}) conflict: causal already "
                         f"means a right bound of 0 (no key after the diagonal); pass "
                         f"window=({left}, 0) or ({left}, -1) with causal=True, or "
                         f"window=({left}, {right}) with causal=False")
    return left, right


# jagged_attention's activation: softmax, or GDPA's (generalized dot-product
# attention: o = sum_j act(scale * q.k_j) v_j over the keys a query sees,
# not normalized, no lse).
ACTIVATIONS = ("softmax", "silu", "gelu_tanh")
GDPA_ACTIVATIONS = ("silu", "gelu_tanh")


def check_block_mask_size(heads, q_blocks, kv_blocks):
    """A block mask of `heads` rows of q_blocks x kv_blocks blocks: its words
    (heads * q_blocks * ceil(kv_blocks / 32)) must fit the kernels' 32-bit
    indices; ValueError otherwise."""
    words = heads * q_blocks * max(1, (kv_blocks + 31) // 32)
    if words > 2**31 - 1:
        raise ValueError(f"block_mask: its {words} words of bits (heads * ceil(T / 128) * "
                         f"ceil(ceil(T_k / 128) / 32)) do not fit the kernels' 32-bit indices")


def check_activation(activation):
    """activation: "softmax" (the default) or a GDPA activation, "silu" or
    "gelu_tanh"; returns it. TypeError for a non-str, ValueError naming the
    accepted values otherwise."""
    if not isinstance(activation, str):
        raise TypeError(f"activation must be a str ('softmax', 'silu' or 'gelu_tanh'), "
                        f"got {type(activation).__name__}")
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation={activation!r} is not supported: 'softmax' (the default), "
                         f"or GDPA's 'silu' or 'gelu_tanh'")
    return activation


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


def backward_k_tiles(max_seqlen, total_tokens, block_aligned=False):
    """k_tiles of the backward kernel: 128-key tiles of the longest key
    sequence (max_seqlen and T of the keys: the queries' for self-attention,
    max_seqlen_k and T_k for cross-attention; bounded by T: no sequence is
    longer), at least 1. block_aligned (a block mask): the tiles lie on the
    mask's 128-token grid, where a sequence may span one more (as the
    runtime counts them)."""
    n = min(max_seqlen, total_tokens)
    if block_aligned:
        n += BACKWARD_KEY_TILE - 1
    return max(1, -(-n // BACKWARD_KEY_TILE))


def check_backward_sizes(total_tokens, heads, head_dim, batch, k_tiles, total_keys=None,
                         kv_heads=None, block_aligned=False):
    """What the backward kernels compute in int32: element offsets into the
    packed gradients, dq [T, H*D] and dk, dv [T_k, H_kv*D] (token * row +
    column), and the number of work units B * H_kv * k_tiles (k_tiles over
    the key sequences). total_keys: T_k of a cross-attention (None:
    self-attention, T_k = T); kv_heads: H_kv (None: H); block_aligned: k_tiles
    counts the tiles on a block mask's grid (backward_k_tiles)."""
    longest = "max_seqlen" if total_keys is None else "max_seqlen_k"
    total_keys = total_tokens if total_keys is None else total_keys
    kv_heads = heads if kv_heads is None else kv_heads
    elements = total_tokens * heads * head_dim
    if elements > INT32_MAX:
        raise ValueError(f"T * H * D = {total_tokens} * {heads} * {head_dim} = {elements} "
                         f"elements exceeds the backward kernel's int32 offsets ({INT32_MAX}); "
                         f"split the batch")
    key_elements = total_keys * kv_heads * head_dim
    if key_elements > INT32_MAX:
        raise ValueError(f"T_k * H_kv * D = {total_keys} * {kv_heads} * {head_dim} = "
                         f"{key_elements} elements (dk, dv) exceeds the backward kernel's int32 "
                         f"offsets ({INT32_MAX}); split the batch")
    if heads > GRID_Y_MAX:
        raise ValueError(f"H = {heads} heads is more than the backward takes (at most "
                         f"{GRID_Y_MAX}: a grid dimension)")
    units = batch * kv_heads * k_tiles
    if units > INT32_MAX:
        what = "H" if kv_heads == heads else "H_kv"
        spanned = f"({longest} + {BACKWARD_KEY_TILE - 1})" if block_aligned else longest
        raise ValueError(f"B * {what} * ceil({spanned} / {BACKWARD_KEY_TILE}) = {units} work "
                         f"units exceeds the backward kernel's int32 limit; use a tighter "
                         f"{longest}")


def _span(shape, strides, data_ptr, element_bytes):
    """The bytes [lo, hi) a tensor may touch; None when it is empty."""
    lo = hi = 0
    for d, st in zip(shape, strides):
        if d == 0:
            return None
        if st < 0:
            lo += (d - 1) * st
        else:
            hi += (d - 1) * st
    return data_ptr + lo * element_bytes, data_ptr + (hi + 1) * element_bytes


def _rows(shape, strides, data_ptr, element_bytes):
    """A tensor's memory as (start, row bytes, row stride in bytes, rows):
    rows of its outermost dimension when the inner dimensions are packed,
    else one row spanning it all. None when it is empty."""
    shape, strides = tuple(shape), tuple(strides)
    span = _span(shape, strides, data_ptr, element_bytes)
    if span is None:
        return None
    lo, hi = span
    if not shape:
        return data_ptr, element_bytes, element_bytes, 1
    if any(s < 0 for s in strides):  # not made by torch; be conservative
        return lo, hi - lo, 1, 1
    dense = 1
    packed = True
    for d, s in zip(reversed(shape[1:]), reversed(strides[1:])):
        if d > 1 and s != dense:
            packed = False
        dense *= d
    if packed and shape[0] > 1 and strides[0] * element_bytes >= dense * element_bytes:
        return data_ptr, dense * element_bytes, strides[0] * element_bytes, shape[0]
    return data_ptr, hi - lo, hi - lo, 1


def overlaps(a, b):
    """Whether two tensors, each (shape, strides, data_ptr, element_bytes),
    may share a byte. Exact for tensors made of packed rows at one stride
    (an interleaved buffer's views: buf[:, 0] and buf[:, 1] do not overlap),
    conservative (the spans overlap) otherwise."""
    return _rows_overlap(_rows(*a), _rows(*b))


def _rows_overlap(ra, rb):
    """overlaps() of two tensors' _rows."""
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
    # Each tensor's byte span once; only spans that meet (rarely: separate
    # allocations do not) need the exact check (a call checks every pair:
    # host time on every call).
    spans = {id(t): _span(*t) for _, t in list(inputs) + list(outputs)}
    for i, (name, t) in enumerate(outputs):
        st = spans[id(t)]
        for other, u in list(inputs) + list(outputs[:i]):
            su = spans[id(u)]
            if st is None or su is None or st[1] <= su[0] or su[1] <= st[0]:
                continue
            if overlaps(t, u):
                kind = "input" if any(other == n for n, _ in inputs) else "output"
                raise ValueError(f"{name} overlaps the {kind} {other} in memory ({name} at "
                                 f"{t[2]:#x}, {other} at {u[2]:#x}); an output must not alias "
                                 f"an input or another output: pass a separate tensor")
