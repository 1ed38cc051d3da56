"""The forward's runtime call (jfa_attention_forward through _lib), shared by
jfa.jagged_attention (_api) and the custom op's implementation (_ops)."""
from . import _lib, _torch, _validate


def forward_new(q, k, v, offsets, max_seqlen, causal, softmax_scale, offsets_k=None,
                max_seqlen_k=0, window_left=-1, window_right=-1, activation="softmax",
                block_bits=None, block_heads=0):
    """The custom op's real implementation: fresh o and lse (no offsets check;
    jagged_attention checked the rest). offsets_k None: self-attention. Under
    a GDPA activation ("silu", "gelu_tanh") there is no lse: the second
    result is an empty f32 tensor (shape [0]; a custom op returns tensors,
    jagged_attention makes it None). block_bits, block_heads: the
    block-sparse mask's bitmap and heads (_block_mask), None and 0 without."""
    torch = _torch.import_torch()
    t_, h, d, _, t_k, _ = _validate.check_attention_shapes(
        q.shape, k.shape, v.shape, offsets.shape,
        None if offsets_k is None else offsets_k.shape)
    gdpa = activation != "softmax"
    o = torch.empty((t_, h, d), dtype=torch.bfloat16, device=q.device)
    lse = torch.empty((0,) if gdpa else (h, t_), dtype=torch.float32, device=q.device)
    if t_ > 0:
        run_kernel(q, k, v, o, None if gdpa else lse, offsets, min(int(max_seqlen), t_),
                   bool(causal), float(softmax_scale), False, offsets_k=offsets_k,
                   max_seqlen_k=min(int(max_seqlen_k), t_k),
                   window=(int(window_left), int(window_right)), activation=activation,
                   block_bits=block_bits, block_heads=int(block_heads))
    return o, lse


def run_kernel(q, k, v, o, lse, offsets, max_seqlen, causal, scale, check_offsets, *,
               offsets_k=None, max_seqlen_k=0, window=(-1, -1), activation="softmax",
               block_bits=None, block_heads=0):
    """The runtime call alone (no Python checks of the offsets): q, k, v, o, lse,
    offsets (and offsets_k) as torch CUDA tensors, shapes already checked.
    check_offsets asks the runtime to check them (the GPU test uses this to
    test the runtime's checks). offsets_k None: self-attention (max_seqlen_k
    unused); k's heads may be fewer than q's (grouped-query attention);
    window: (left, right), (-1, -1) for none; activation: "softmax", or
    "silu" / "gelu_tanh" (GDPA: no lse is written, lse may be None);
    block_bits, block_heads: a block-sparse mask (_block_mask.Bits' fields),
    None and 0 for none."""
    torch = _torch.import_torch()
    (q, qs), (k, ks), (v, vs) = (_torch.kernel_view(torch, t) for t in (q, k, v))
    offsets = offsets.contiguous()
    t_, h, d = q.shape
    h_kv = k.shape[1]
    os_ = _validate.input_strides((t_, h, d), o.stride())
    if offsets_k is None:
        # Self-attention: the fields of issue 20 stay 0 (the plain forward).
        keys = (0, 0, 0)
    else:
        offsets_k = offsets_k.contiguous()
        keys = (offsets_k.data_ptr(), k.shape[0], max_seqlen_k)
    left, right = window
    use_window = 0 if (left, right) == (-1, -1) else 1
    args = _lib.packed_forward_args(
        q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr(), *qs, *ks, *vs, *os_,
        0 if lse is None else lse.data_ptr(), offsets.data_ptr(), _lib.BF16_ADDRESS,
        _lib.I32_ADDRESS, t_, h, d, offsets.shape[0] - 1, max_seqlen, 1 if causal else 0,
        scale, 1 if check_offsets else 0, *keys, 0 if h_kv == h else h_kv, use_window, left,
        right, _lib.ACTIVATION_ADDRESS[activation],
        0 if block_bits is None else block_bits.data_ptr(), block_heads if block_bits is not None
        else 0)
    device = q.get_device()
    # The stream of `device` needs no device switch (a `with
    # torch.cuda.device` costs more host time than the launch).
    _lib.forward(device, args, _lib.current_stream(torch, device))
