"""The forward's runtime call (jfa_attention_forward through _lib), shared by
jfa.jagged_attention (_api) and the custom op's implementation (_ops)."""
from . import _lib, _torch, _validate


def forward_new(q, k, v, offsets, max_seqlen, causal, softmax_scale):
    """The custom op's real implementation: fresh o and lse (no offsets check;
    jagged_attention checked the rest)."""
    torch = _torch.import_torch()
    t_, h, d, _ = _validate.check_shapes(q.shape, k.shape, v.shape, offsets.shape)
    o = torch.empty((t_, h, d), dtype=torch.bfloat16, device=q.device)
    lse = torch.empty((h, t_), dtype=torch.float32, device=q.device)
    if t_ > 0:
        run_kernel(q, k, v, o, lse, offsets, min(int(max_seqlen), t_), bool(causal),
                    float(softmax_scale), False)
    return o, lse


def run_kernel(q, k, v, o, lse, offsets, max_seqlen, causal, scale, check_offsets):
    """The runtime call alone (no Python checks of the offsets): q, k, v, o, lse,
    offsets as torch CUDA tensors, shapes already checked. check_offsets asks the
    runtime to check them (the GPU test uses this to test the runtime's checks)."""
    torch = _torch.import_torch()
    (q, qs), (k, ks), (v, vs) = (_torch.kernel_view(torch, t) for t in (q, k, v))
    offsets = offsets.contiguous()
    t_, h, d = q.shape
    os_ = _validate.input_strides((t_, h, d), o.stride())
    args = _lib.packed_forward_args(
        q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr(), *qs, *ks, *vs, *os_,
        lse.data_ptr(), offsets.data_ptr(), _lib.BF16_ADDRESS, _lib.I32_ADDRESS,
        t_, h, d, offsets.shape[0] - 1, max_seqlen, 1 if causal else 0, scale,
        1 if check_offsets else 0)
    device = q.get_device()
    # The stream of `device` needs no device switch (a `with
    # torch.cuda.device` costs more host time than the launch).
    _lib.forward(device, args, _lib.current_stream(torch, device))
