"""attention_backward: the gradients of jagged_attention (every target of
jfa._targets that has its backward kernels: sm_90a and sm_100a; torch is
imported on first use).

One call of the runtime's jfa_attention_backward (runtime/include/jfa/
attention.h) on the caller's stream: it zeroes dq's f32 accumulator in a
workspace this module allocates with torch, then runs four kernels of the
package's kernel folder (kernels/jagged_attention/): the work schedule
(attention_bwd_schedule, over the key sequences), delta = rowsum(o * do)
(attention_bwd_delta; not for a GDPA activation), the backward kernel of
the device's target for the head dim, mask and options (attention_bwd_sm90
/ attention_bwd_sm100: dk, dv written, dq accumulated; the general variant
for a window, grouped-query k/v heads, cross-attention or a GDPA
activation, as the forward) and dq's conversion to bf16
(attention_bwd_dq_convert). The runtime picks the variant by the metadata
beside each cubin and binds the arguments by the parameter names that
metadata records. Without queries or without keys it runs no kernel and
zeroes the gradients that have rows.

sm_100a (B200) rests on jfa-interp, ptxas and the SASS: no B200 was at
hand to run it (see kernels/jagged_attention/README.md).
"""
import threading

from . import _block_mask, _lib, _targets, _validate
from ._torch import check_no_alias, check_tensor, import_torch, kernel_view

_lock = threading.Lock()
_available = {}  # (kernel folder, arch) -> (True, "") or (False, why)


def backward_for(capability):
    """(target name, backward kernel) for a device of compute capability
    (major, minor), from the target description (jfa._targets): the kernel
    is attention_bwd_<the target's kernel suffix>. None for a device no
    target runs on."""
    target = _targets.by_capability(capability)
    if target is None:
        return None
    return target.name, f"attention_bwd_{target.kernel_suffix}"


def _require_kernels(arch):
    """Raises RuntimeError saying what is missing when the runtime's handle
    lacks the backward's kernels for arch (asked once per folder and arch)."""
    try:
        kdir = _lib.kernel_dir()
    except OSError as e:
        kdir, found = None, (False, str(e))
    else:
        key = (kdir, arch)
        with _lock:
            found = _available.get(key)
        if found is None:
            found = _lib.has_backward(arch)
            with _lock:
                _available[key] = found
    if not found[0]:
        raise RuntimeError(
            f"jfa.attention_backward: {found[1]}; build the package with "
            "scripts/build-package.sh (it compiles kernels/jagged_attention/*.mlir into "
            "<package>/kernels, one cubin per variant), or set $JFA_KERNEL_DIR to a "
            "folder holding them")


def _device_index(torch, device):
    return device.index if device.index is not None else torch.cuda.current_device()


_capabilities = {}  # CUDA device ordinal -> (major, minor)


def _device_capability(torch, device):
    """(major, minor) of CUDA device `device` (an ordinal), asked once per
    device; a function of its own so that the GPU test can pretend to be on
    another device."""
    cap = _capabilities.get(device)
    if cap is None:
        cap = _capabilities[device] = tuple(torch.cuda.get_device_capability(device))
    return cap


def _writable_in_place(t):
    """Whether the kernels can store into a caller's dq / dk / dv directly:
    contiguous (dq [T, H, D]; dk and dv [T_k, H_kv, D], which then share the
    token stride H_kv*D), 16-byte aligned."""
    return t.is_contiguous() and t.data_ptr() % _validate.ALIGNMENT_BYTES == 0


def attention_backward(do, q, k, v, o, lse, offsets, max_seqlen, causal=False,
                       softmax_scale=None, *, window=None, offsets_k=None, max_seqlen_k=None,
                       activation="softmax", block_mask=None, dq=None, dk=None, dv=None,
                       check_offsets=True):
    """Jagged attention, backward: the gradients (dq, dk, dv) of
    jagged_attention's o for the upstream gradient do.

    q, k, v, offsets, max_seqlen, causal, softmax_scale and the options
    window, offsets_k, max_seqlen_k, activation, block_mask: as given to
    jagged_attention
    (same rules; k and v bf16 [T_k, H_kv, D]: grouped-query heads and, with
    offsets_k, other key sequences); o, lse: what it returned (o bf16
    [T, H, D], lse f32 [H, T], natural-log log-sum-exp, -inf for a query
    that saw no key). do: bf16 [T, H, D]. Any layout of q, k, v, o, do and
    lse is accepted (packed copies are made when needed). Under a GDPA
    activation ("silu", "gelu_tanh") there is no lse: pass None (what
    jagged_attention returned); the gradients are those of o = sum_j
    act(x_j) v_j, x_j = softmax_scale * q.k_j (dS = scale * dP * act'(x)),
    which need neither lse nor delta.

    Returns (dq, dk, dv): dq bf16 [T, H, D] like q, dk and dv bf16
    [T_k, H_kv, D] like k and v (contiguous when allocated here); under
    grouped-query attention dk and dv sum over the q heads that read each
    k/v head. A query that sees no key gets dq = 0, a key no query sees
    dk = dv = 0. dq, dk, dv may be given (of those shapes, on q's device):
    they are filled and returned; a contiguous, 16-byte aligned dk / dv is
    written by the kernel directly, any other through a copy. dq is always
    computed in an fp32 accumulator (the kernel adds partial sums into it
    atomically, so dq's last bits may differ from run to run) and converted;
    a contiguous, 16-byte aligned dq is written by the conversion directly.

    check_offsets: as in jagged_attention (a host copy of the offsets and
    offsets_k, which synchronizes; skipped while a CUDA graph is being
    captured); without it wrong offsets give undefined results. Nothing else
    synchronizes with the host (the work schedule is built on the device),
    so forward and backward can be captured in one CUDA graph.

    The targets of jfa._targets have backward kernels (sm_90a, compute
    capability 9.0: H100, H200; sm_100a, 10.0: B200, not run on hardware
    yet): other devices raise NotImplementedError. The kernels come from
    the package's kernel folder (see jfa.kernel_dir()); without them
    RuntimeError says how to get them. Launches on
    torch.cuda.current_stream(q.device). Wrong types or dtypes raise
    TypeError, wrong shapes, devices, options, offsets or sizes ValueError.
    """
    torch = import_torch("jfa.attention_backward")
    activation = _validate.check_activation(activation)
    gdpa = activation != "softmax"
    for name, t in (("do", do), ("q", q), ("k", k), ("v", v), ("o", o)):
        check_tensor(torch, name, t, torch.bfloat16)
    if gdpa:
        if lse is not None:
            raise ValueError(f"lse must be None with activation={activation!r}: a GDPA "
                             f"activation has no log-sum-exp (jagged_attention returns None "
                             f"for it)")
    elif lse is None:
        raise TypeError("lse must be a torch.Tensor (jagged_attention's lse, f32 [H, T]), got "
                        "None; lse=None goes with a GDPA activation only (activation='silu' "
                        "or 'gelu_tanh')")
    else:
        check_tensor(torch, "lse", lse, torch.float32)
    check_tensor(torch, "offsets", offsets, torch.int32)
    cross = offsets_k is not None
    if cross:
        check_tensor(torch, "offsets_k", offsets_k, torch.int32)
    t_, h, d, b, t_k, h_kv = _validate.check_attention_shapes(
        q.shape, k.shape, v.shape, offsets.shape, offsets_k.shape if cross else None)
    want = (t_, h, d)
    want_kv = (t_k, h_kv, d)
    for name, t in (("do", do), ("o", o)):
        if tuple(t.shape) != want:
            raise ValueError(f"{name} must have the shape of q {list(want)}, got {list(t.shape)}")
    if lse is not None and tuple(lse.shape) != (h, t_):
        raise ValueError(f"lse must be [H, T] = {[h, t_]} (as jagged_attention returns it), "
                         f"got {list(lse.shape)}")
    if q.device.type != "cuda":
        raise ValueError(f"q must be a CUDA tensor, got device {q.device}")
    for name, t in (("k", k), ("v", v), ("do", do), ("o", o), ("lse", lse),
                    ("offsets", offsets), ("offsets_k", offsets_k)):
        if t is not None and t.device != q.device:
            raise ValueError(f"{name} must be on q's device {q.device}, got {t.device}")
    for name, t, shape, like in (("dq", dq, want, "q"), ("dk", dk, want_kv, "k"),
                                 ("dv", dv, want_kv, "v")):
        if t is None:
            continue
        check_tensor(torch, name, t, torch.bfloat16)
        if tuple(t.shape) != shape:
            raise ValueError(f"{name} must have the shape of {like} {list(shape)}, "
                             f"got {list(t.shape)}")
        if t.device != q.device:
            raise ValueError(f"{name} must be on q's device {q.device}, got {t.device}")
    check_no_alias([("dq", dq), ("dk", dk), ("dv", dv)],
                    [("do", do), ("q", q), ("k", k), ("v", v), ("o", o), ("lse", lse),
                     ("offsets", offsets), ("offsets_k", offsets_k)])
    max_seqlen = _validate.check_max_seqlen(max_seqlen, t_)
    _validate.check_sizes(t_, b, max_seqlen)
    max_seqlen_k = _validate.check_key_options(cross, max_seqlen_k, t_k)
    if cross:
        _validate.check_sizes(t_k, b, max_seqlen_k, keys=True)
    left, right = _validate.check_window(window, causal)
    scale = _validate.check_softmax_scale(softmax_scale, d)
    k_tiles = _validate.backward_k_tiles(max_seqlen_k if cross else max_seqlen, t_k,
                                         block_aligned=block_mask is not None)
    _validate.check_backward_sizes(t_, h, d, b, k_tiles, total_keys=t_k if cross else None,
                                   kv_heads=h_kv, block_aligned=block_mask is not None)
    device = _device_index(torch, q.device)
    cap = _device_capability(torch, device)
    backward = backward_for(cap)
    if backward is None:
        raise NotImplementedError(
            f"jfa.attention_backward runs on {' and '.join(_targets.NAMES)} devices only "
            f"(compute capability {_targets.describe()}); CUDA device {device} "
            f"({torch.cuda.get_device_name(device)}) has compute capability "
            f"{cap[0]}.{cap[1]}.")
    arch = backward[0]
    capturing = torch.cuda.is_current_stream_capturing()
    if check_offsets and not capturing:
        _lib.check_offsets(offsets.tolist(), t_, max_seqlen)
        if cross:
            _lib.check_offsets(offsets_k.tolist(), t_k, max_seqlen_k, keys=True)
    mask = _block_mask.build(torch, block_mask, h, t_, t_k, q.device,
                             check_offsets and not capturing)

    if t_ == 0 and t_k == 0:
        def empty(shape):
            return torch.empty(shape, dtype=torch.bfloat16, device=q.device)
        return (dq if dq is not None else empty(want), dk if dk is not None else empty(want_kv),
                dv if dv is not None else empty(want_kv))

    # Without queries (dk = dv = 0) or without keys (dq = 0) the runtime
    # writes the zeros itself and runs no kernel.
    if t_ > 0 and t_k > 0:
        _require_kernels(arch)
    views = [kernel_view(torch, t) for t in (do, q, k, v, o)]
    lse2 = lse.contiguous() if lse is not None else None  # GDPA: no lse
    offsets2 = offsets.contiguous()
    offsets_k2 = offsets_k.contiguous() if cross else None  # alive until the launch

    def out(given, shape):
        if given is not None and _writable_in_place(given):
            return given
        return torch.empty(shape, dtype=torch.bfloat16, device=q.device)
    dq_out, dk_out, dv_out = out(dq, want), out(dk, want_kv), out(dv, want_kv)
    packed = (h * d, d, 1)  # the outputs' strides (contiguous)
    packed_kv = (h_kv * d, d, 1)
    fields = [t.data_ptr() for t, _ in views]
    for _, strides in views:
        fields += strides
    fields += [0 if lse2 is None else lse2.data_ptr(), offsets2.data_ptr(), dq_out.data_ptr(),
               dk_out.data_ptr(), dv_out.data_ptr(), *packed, *packed_kv, *packed_kv]
    # No sequence is longer than its tokens: tighter bounds, fewer empty tiles.
    # The offsets were checked above when asked.
    tail = [_lib.BF16_ADDRESS, _lib.I32_ADDRESS, t_, h, d, b, min(max_seqlen, t_),
            1 if causal else 0, scale, 0]
    # Issue 20's options as the forward got them; all 0 without them (the
    # plain backward; softmax's activation field is NULL).
    keys = (offsets_k2.data_ptr(), t_k, min(max_seqlen_k, t_k)) if cross else (0, 0, 0)
    options = [*keys, 0 if h_kv == h else h_kv,
               0 if (left, right) == (-1, -1) else 1, left, right,
               _lib.ACTIVATION_ADDRESS[activation],
               0 if mask is None else mask.bits.data_ptr(), 0 if mask is None else mask.heads]
    args = _lib.packed_backward_args(*fields, 0, 0, *tail, *options)
    size = _lib.backward_workspace_size(args)
    # From torch's caching allocator (stream-ordered, and the graph's pool
    # under capture): reused once the call's work on this stream is done.
    workspace = torch.empty(size, dtype=torch.uint8, device=q.device)
    # The same structure, packed once: only the workspace's two fields change.
    args.workspace, args.workspace_bytes = workspace.data_ptr(), size
    _lib.backward(device, args, _lib.current_stream(torch, device))
    results = []
    for given, made in ((dq, dq_out), (dk, dk_out), (dv, dv_out)):
        if given is None:
            given = made
        elif made is not given:
            given.copy_(made)
        results.append(given)
    dq, dk, dv = results
    return dq, dk, dv
