"""jagged_attention: the torch-facing entry point (torch is imported on first use)."""
from . import _block_mask, _forward, _lib, _ops, _validate
from ._torch import check_no_alias, check_tensor, import_torch, is_compiling

_registered = None  # torch, once the custom ops are registered


def _import_torch():
    """torch, imported on first use; the custom ops (_ops.py) are registered then."""
    global _registered
    if _registered is None:
        torch = import_torch()
        if is_compiling(torch):
            # First use inside a function torch.compile traces: register eagerly
            # (a graph break) rather than trace the registration.
            torch.compiler.disable(_ops.register)(torch)
        else:
            _ops.register(torch)
        _registered = torch
    return _registered


def jagged_attention(q, k, v, offsets, max_seqlen, causal=False, softmax_scale=None,
                     check_offsets=True, *, window=None, offsets_k=None, max_seqlen_k=None,
                     block_mask=None, activation="softmax", o=None, lse=None):
    """Jagged (packed variable-length) attention, forward, differentiable.

    q: bf16 CUDA tensor [T, H, D], D in {64, 128}; k, v: bf16 [T_k, H_kv, D]
    (T_k = T and H_kv = H unless the options below say otherwise); sequence
    b is tokens offsets[b]:offsets[b+1] (offsets: int32 [B + 1] on the same
    device, offsets[0] = 0, non-decreasing, offsets[B] = T; empty sequences
    are allowed). max_seqlen >= the longest sequence. causal: query i of a
    sequence attends to its keys 0..i + len_k - len_q (bottom-right aligned
    as FlashAttention; keys 0..i for self-attention). softmax_scale: a
    positive float, None means 1/sqrt(D).

    Options (issue 20; the backward takes them too):
    - window: FlashAttention's window_size, a (left, right) pair of ints,
      -1 for unbounded on that side (None: (-1, -1)): query i sees key j
      only if i + shift - left <= j <= i + shift + right, shift = len_k -
      len_q. causal=True with right > 0 is refused (causal means right = 0).
    - grouped-query / multi-query attention: k and v with H_kv heads, H a
      multiple of H_kv; q head h reads k/v head h // (H // H_kv).
    - cross-attention: offsets_k, int32 [B + 1] like offsets, the key/value
      sequences of k and v (T_k = k.shape[0] tokens, offsets_k[B] = T_k),
      with max_seqlen_k >= the longest of them (required with offsets_k).
      A sequence may have 0 queries or 0 keys.
    - activation: "softmax" (the default), or a GDPA activation
      (generalized dot-product attention), "silu" or "gelu_tanh" (gelu's
      tanh approximation), in place of softmax: o = sum_j act(softmax_scale
      * q.k_j) v_j over the keys query i sees (the same mask: causal, the
      window, the key sequences), not normalized. There is no lse then: the
      second result is None (and lse may not be given). It combines with
      every option above and is differentiable (the backward takes the same
      activation: P = act(x), dS = scale * dP * act'(x)).
    - block_mask: block-sparse attention, a mask over the packed token axes
      in blocks of 128 tokens: query t and key s may attend only if block
      (t // 128, s // 128) is listed (on top of the other masks); tiles with
      no listed block are skipped, not computed. A FlexAttention BlockMask
      built over the packed sequence (batch 1, BLOCK_SIZE 128: its partial
      and full blocks are listed; its mask_mod is not applied, so a listed
      block is attended whole), a (kv_num_blocks, kv_indices) pair of int32
      tensors [Hm, QB] / [Hm, QB, C], or a bool tensor [Hm, QB, KB]; QB =
      ceil(T / 128), KB = ceil(T_k / 128), Hm = 1 (shared by the heads) or
      H. check_offsets also checks the lists' entries. Combines with every
      option above; differentiable.
    A query that sees no key (its window, its causal bound or its sequence
    holds none) gets o = 0 and lse = -inf.

    Returns (o, lse): o bf16 [T, H, D], lse f32 [H, T] (natural-log
    log-sum-exp of each row's scaled scores), or None under a GDPA
    activation. o and lse may be given (written in place): o with dim stride
    1, head stride D, token stride a multiple of 8 and >= H*D, 16-byte
    aligned; lse contiguous (not with a GDPA activation).

    check_offsets: check the offsets' (and offsets_k's) values and
    max_seqlen (max_seqlen_k) on the host first (copies them to the host:
    synchronizes). Without it, wrong offsets or a too small max_seqlen give
    undefined results. While the current stream is being captured into a
    CUDA graph (torch.cuda.graph) the check is skipped, since capture
    forbids the copy: the graph replays with whatever the offsets tensor
    then holds, so check the offsets eagerly (a call before the capture
    does) and keep them valid between replays.

    Autograd: when grad mode is on and q, k or v requires grad, the call goes
    through a torch.autograd.Function (under torch.compile: the custom op
    jfa::jagged_attention) whose backward is jfa.attention_backward (sm_90a
    and sm_100a devices; elsewhere backward() raises NotImplementedError). o is differentiable; lse is not (it is marked
    non-differentiable: a loss that uses lse gets no gradient through it).
    On this path a given o / lse is filled by a copy (any layout). The
    options reach the backward: k.grad and v.grad have k's and v's shape
    (grouped-query attention: each k/v head's gradient sums over its q
    heads); a query that sees no key gets q.grad = 0, a key no query sees
    k.grad = v.grad = 0.

    torch.compile: inside a compiled function the call is the custom op too
    (it has a fake implementation, so no graph break for the kernel; it
    takes every option); the checks that need real data are skipped there:
    the offsets' values are not checked (check_offsets is ignored; check
    them eagerly if in doubt) and a given o / lse is filled by a copy.

    Launches on torch.cuda.current_stream(q.device). Wrong argument types or
    dtypes raise TypeError, wrong shapes, devices, options or offsets
    ValueError, options not supported yet NotImplementedError, a failure in
    the runtime RuntimeError.
    """
    torch = _import_torch()
    activation = _validate.check_activation(activation)
    gdpa = activation != "softmax"
    if gdpa and lse is not None:
        raise ValueError(f"lse must be None with activation={activation!r}: a GDPA activation "
                         f"has no log-sum-exp (jagged_attention returns None for it)")
    for name, t in (("q", q), ("k", k), ("v", v)):
        check_tensor(torch, name, t, torch.bfloat16)
    check_tensor(torch, "offsets", offsets, torch.int32)
    if offsets_k is not None:
        check_tensor(torch, "offsets_k", offsets_k, torch.int32)
    t_, h, d, b, t_k, h_kv = _validate.check_attention_shapes(
        q.shape, k.shape, v.shape, offsets.shape,
        None if offsets_k is None else offsets_k.shape)
    if q.device.type != "cuda":
        raise ValueError(f"q must be a CUDA tensor, got device {q.device}")
    for name, t in (("k", k), ("v", v), ("offsets", offsets), ("offsets_k", offsets_k)):
        if t is not None and t.device != q.device:
            raise ValueError(f"{name} must be on q's device {q.device}, got {t.device}")
    max_seqlen = _validate.check_max_seqlen(max_seqlen, t_)
    _validate.check_sizes(t_, b, max_seqlen)
    cross = offsets_k is not None
    max_seqlen_k = _validate.check_key_options(cross, max_seqlen_k, t_k)
    if cross:
        _validate.check_sizes(t_k, b, max_seqlen_k, keys=True)
    window = _validate.check_window(window, causal)
    scale = _validate.check_softmax_scale(softmax_scale, d)
    compiling = is_compiling(torch)
    # The checks that copy to the host: asked for, and neither traced nor
    # captured into a CUDA graph.
    host_checks = (check_offsets and not compiling and
                   not torch.cuda.is_current_stream_capturing())
    # The kernels' bitmap, built on the device (its entries checked with the
    # offsets).
    mask = _block_mask.build(torch, block_mask, h, t_, t_k, q.device, host_checks)
    block_bits, block_heads = (None, 0) if mask is None else (mask.bits, mask.heads)
    needs_grad = torch.is_grad_enabled() and (q.requires_grad or k.requires_grad or
                                              v.requires_grad)
    use_op = compiling or needs_grad
    if o is not None:
        check_tensor(torch, "o", o, torch.bfloat16)
        if o.device != q.device:
            raise ValueError(f"o must be on q's device {q.device}, got {o.device}")
        if use_op:  # filled by a copy: any layout
            if tuple(o.shape) != (t_, h, d):
                raise ValueError(f"o must have the shape of q {[t_, h, d]}, got {list(o.shape)}")
        else:
            _validate.check_output_o(o.shape, o.stride(), o.data_ptr(), (t_, h, d))
    if lse is not None:
        check_tensor(torch, "lse", lse, torch.float32)
        if lse.device != q.device:
            raise ValueError(f"lse must be on q's device {q.device}, got {lse.device}")
        if use_op:
            if tuple(lse.shape) != (h, t_):
                raise ValueError(f"lse must be [H, T] = {[h, t_]}, got {list(lse.shape)}")
        else:
            _validate.check_output_lse(lse.shape, lse.stride(), (h, t_))
    check_no_alias([("o", o), ("lse", lse)],
                   [("q", q), ("k", k), ("v", v), ("offsets", offsets), ("offsets_k", offsets_k)])
    if host_checks:
        _lib.check_offsets(offsets.tolist(), t_, max_seqlen)
        if cross:
            _lib.check_offsets(offsets_k.tolist(), t_k, max_seqlen_k, keys=True)
    if use_op:
        if compiling:
            _ops.require(torch, "torch.compile")
            o_new, lse_new = torch.ops.jfa.jagged_attention(
                q, k, v, offsets, max_seqlen, bool(causal), scale, offsets_k, max_seqlen_k,
                window[0], window[1], activation, block_bits, block_heads)
        else:
            o_new, lse_new = _ops.eager_function(torch).apply(
                q, k, v, offsets, max_seqlen, bool(causal), scale, offsets_k, max_seqlen_k,
                window[0], window[1], activation, block_bits, block_heads)
        if o is not None:
            o.copy_(o_new)
            o_new = o
        if gdpa:
            return o_new, None  # the op's lse is an empty stand-in
        if lse is not None:
            lse.copy_(lse_new)
            lse_new = lse
        return o_new, lse_new
    if o is None:
        o = torch.empty((t_, h, d), dtype=torch.bfloat16, device=q.device)
    if lse is None and not gdpa:
        lse = torch.empty((h, t_), dtype=torch.float32, device=q.device)
    if t_ == 0:
        return o, lse
    # A sequence is never longer than T: a tighter bound means fewer empty tiles.
    # The offsets were checked above if asked: the runtime need not check them again.
    # Without the options (offsets_k None, window (-1, -1), H_kv = H) this is
    # the plain forward: their fields of the runtime's arguments stay 0.
    # Under GDPA lse is None: the runtime neither writes nor needs it.
    _forward.run_kernel(q, k, v, o, lse, offsets, min(max_seqlen, t_), bool(causal), scale,
                        False, offsets_k=offsets_k, max_seqlen_k=min(max_seqlen_k, t_k),
                        window=window, activation=activation, block_bits=block_bits,
                        block_heads=block_heads)
    return o, lse
