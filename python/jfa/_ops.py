"""The torch.library custom ops behind jagged_attention's autograd and
torch.compile support (registered once, when jfa first imports torch):

    jfa::jagged_attention(Tensor q, Tensor k, Tensor v, Tensor offsets,
                          SymInt max_seqlen, bool causal, float softmax_scale,
                          Tensor? offsets_k, SymInt max_seqlen_k,
                          SymInt window_left, SymInt window_right,
                          str activation, Tensor? block_bits,
                          SymInt block_mask_heads)
        -> (Tensor o, Tensor lse)
    jfa::jagged_attention_backward(Tensor grad_out, Tensor q, Tensor k, Tensor v,
                                   Tensor o, Tensor lse, Tensor offsets,
                                   SymInt max_seqlen, bool causal,
                                   float softmax_scale, Tensor? offsets_k,
                                   SymInt max_seqlen_k, SymInt window_left,
                                   SymInt window_right, str activation,
                                   Tensor? block_bits, SymInt block_mask_heads)
        -> (Tensor dq, Tensor dk, Tensor dv)

Both have fake (meta) implementations, so torch.compile traces through them
without running a kernel; the forward's autograd formula calls the backward
op with the forward's options. Both take issue 20's options (offsets_k None:
self-attention, with max_seqlen_k 0; k and v may have fewer heads than q;
the window (-1, -1) for none; activation "softmax", "silu" or "gelu_tanh";
block_bits None and block_mask_heads 0 without a block-sparse mask, else
the mask's bitmap as python/jfa/_block_mask.py builds it):
o, lse and dq follow q, dk and dv follow k and v. Under a GDPA activation
there is no lse: the forward op's lse is an empty f32 tensor (shape [0]; an
op's Tensor output cannot be None), which jagged_attention returns as None
and the backward op takes and ignores. Eager autograd (no torch.compile)
uses eager_function(torch) instead, a torch.autograd.Function around the
same two implementations: torch.library's custom-op dispatch costs about
0.6 ms of host time per forward + backward on the H200 (bench/NOTES.md run
43), which Dynamo needs and eager code does not. lse is not differentiable
(marked so): a loss that depends on lse gets no gradient through it. The
ops do not check their arguments' values (no offsets check): call them
through jfa.jagged_attention, which does.
"""
import threading

from . import _backward, _block_mask, _forward

_lock = threading.Lock()
_registered = False
_error = None  # why registration failed (an old PyTorch), or None
_eager = None  # the torch.autograd.Function of eager_function


def register(torch):
    """Registers the ops once; returns whether they are registered. A failure
    (PyTorch without torch.library.custom_op, i.e. < 2.4) is kept and reported
    by require()."""
    global _registered, _error
    if _registered or _error is not None:
        return _registered
    with _lock:
        if not _registered and _error is None:
            try:
                _define(torch)
                _registered = True
            except Exception as e:  # noqa: BLE001 - reported when the ops are needed
                _error = f"{type(e).__name__}: {e}"
    return _registered


def _backward_call(do, q, k, v, o, lse, offsets, max_seqlen, causal, softmax_scale,
                   offsets_k, max_seqlen_k, window_left, window_right, activation,
                   block_bits, block_mask_heads):
    """jfa.attention_backward with the forward's options as the ops carry
    them (offsets_k None: self-attention, max_seqlen_k then unused; under a
    GDPA activation lse is the forward op's empty stand-in, passed as None);
    the forward's caller checked the offsets (or was told not to)."""
    cross = offsets_k is not None
    return _backward.attention_backward(
        do, q, k, v, o, None if activation != "softmax" else lse, offsets, max_seqlen,
        causal, softmax_scale, window=(int(window_left), int(window_right)),
        offsets_k=offsets_k, max_seqlen_k=int(max_seqlen_k) if cross else None,
        activation=activation, check_offsets=False,
        block_mask=None if block_bits is None else _block_mask.Bits(block_bits,
                                                                    int(block_mask_heads)))


def eager_function(torch):
    """The torch.autograd.Function behind jagged_attention's eager autograd:
    apply(q, k, v, offsets, max_seqlen, causal, softmax_scale, offsets_k,
    max_seqlen_k, window_left, window_right, activation, block_bits,
    block_mask_heads) -> (o, lse), lse
    non-differentiable (an empty tensor under GDPA), backward through
    jfa.attention_backward with the same options."""
    global _eager
    if _eager is None:
        class JaggedAttention(torch.autograd.Function):
            @staticmethod
            def forward(ctx, q, k, v, offsets, max_seqlen, causal, softmax_scale, offsets_k,
                        max_seqlen_k, window_left, window_right, activation, block_bits,
                        block_mask_heads):
                o, lse = _forward.forward_new(q, k, v, offsets, max_seqlen, causal,
                                              softmax_scale, offsets_k, max_seqlen_k,
                                              window_left, window_right, activation,
                                              block_bits, block_mask_heads)
                ctx.save_for_backward(q, k, v, offsets, o, lse, offsets_k, block_bits)
                ctx.block_mask_heads = block_mask_heads
                ctx.max_seqlen, ctx.causal, ctx.softmax_scale = max_seqlen, causal, softmax_scale
                ctx.max_seqlen_k, ctx.window = max_seqlen_k, (window_left, window_right)
                ctx.activation = activation
                ctx.mark_non_differentiable(lse)
                return o, lse

            @staticmethod
            @torch.autograd.function.once_differentiable
            def backward(ctx, do, dlse):
                q, k, v, offsets, o, lse, offsets_k, block_bits = ctx.saved_tensors
                dq, dk, dv = _backward_call(do, q, k, v, o, lse, offsets, ctx.max_seqlen,
                                            ctx.causal, ctx.softmax_scale, offsets_k,
                                            ctx.max_seqlen_k, *ctx.window, ctx.activation,
                                            block_bits, ctx.block_mask_heads)
                return (dq, dk, dv) + (None,) * 11

        _eager = JaggedAttention
    return _eager


def require(torch, why):
    """Raises RuntimeError when the ops could not be registered."""
    if not register(torch):
        raise RuntimeError(f"jfa.jagged_attention: {why} needs the custom op "
                           f"jfa::jagged_attention, which could not be registered with this PyTorch "
                           f"({torch.__version__}; torch.library.custom_op needs >= 2.4): "
                           f"{_error}")


def _define(torch):
    from typing import Optional, Tuple

    from torch import Tensor


    @torch.library.custom_op("jfa::jagged_attention", mutates_args=())
    def jagged_attention_op(q: Tensor, k: Tensor, v: Tensor, offsets: Tensor, max_seqlen: int,
                            causal: bool, softmax_scale: float, offsets_k: Optional[Tensor],
                            max_seqlen_k: int, window_left: int, window_right: int,
                            activation: str, block_bits: Optional[Tensor],
                            block_mask_heads: int) -> Tuple[Tensor, Tensor]:
        return _forward.forward_new(q, k, v, offsets, max_seqlen, causal, softmax_scale,
                                    offsets_k, max_seqlen_k, window_left, window_right,
                                    activation, block_bits, block_mask_heads)

    @jagged_attention_op.register_fake
    def _(q, k, v, offsets, max_seqlen, causal, softmax_scale, offsets_k, max_seqlen_k,
          window_left, window_right, activation, block_bits, block_mask_heads):
        # o and lse follow q whatever k and v are (fewer heads, other tokens);
        # GDPA's lse is an empty stand-in (forward_new).
        t, h, d = q.shape
        return (q.new_empty((t, h, d), dtype=torch.bfloat16),
                q.new_empty((0,) if activation != "softmax" else (h, t), dtype=torch.float32))

    @torch.library.custom_op("jfa::jagged_attention_backward", mutates_args=())
    def jagged_attention_backward_op(grad_out: Tensor, q: Tensor, k: Tensor, v: Tensor,
                                     o: Tensor, lse: Tensor, offsets: Tensor, max_seqlen: int,
                                     causal: bool, softmax_scale: float,
                                     offsets_k: Optional[Tensor], max_seqlen_k: int,
                                     window_left: int, window_right: int, activation: str,
                                     block_bits: Optional[Tensor], block_mask_heads: int
                                     ) -> Tuple[Tensor, Tensor, Tensor]:
        return _backward_call(grad_out, q, k, v, o, lse, offsets, max_seqlen, causal,
                              softmax_scale, offsets_k, max_seqlen_k, window_left, window_right,
                              activation, block_bits, block_mask_heads)

    @jagged_attention_backward_op.register_fake
    def _(grad_out, q, k, v, o, lse, offsets, max_seqlen, causal, softmax_scale, offsets_k,
          max_seqlen_k, window_left, window_right, activation, block_bits, block_mask_heads):
        # dq follows q; dk and dv follow k and v (fewer heads, other tokens).
        return (q.new_empty(tuple(q.shape), dtype=torch.bfloat16),
                k.new_empty(tuple(k.shape), dtype=torch.bfloat16),
                v.new_empty(tuple(v.shape), dtype=torch.bfloat16))

    def setup_context(ctx, inputs, output):
        (q, k, v, offsets, max_seqlen, causal, softmax_scale, offsets_k, max_seqlen_k,
         window_left, window_right, activation, block_bits, block_mask_heads) = inputs
        o, lse = output
        ctx.save_for_backward(q, k, v, offsets, o, lse, offsets_k, block_bits)
        ctx.block_mask_heads = block_mask_heads
        ctx.max_seqlen = max_seqlen
        ctx.causal = causal
        ctx.softmax_scale = softmax_scale
        ctx.max_seqlen_k = max_seqlen_k
        ctx.window = (window_left, window_right)
        ctx.activation = activation
        ctx.mark_non_differentiable(lse)

    def backward(ctx, do, dlse):
        # dlse: lse is non-differentiable, so it is ignored (zeros or None).
        q, k, v, offsets, o, lse, offsets_k, block_bits = ctx.saved_tensors
        none = (None,) * 11
        if do is None:
            return (None, None, None) + none
        dq, dk, dv = torch.ops.jfa.jagged_attention_backward(
            do, q, k, v, o, lse, offsets, ctx.max_seqlen, ctx.causal, ctx.softmax_scale,
            offsets_k, ctx.max_seqlen_k, ctx.window[0], ctx.window[1], ctx.activation,
            block_bits, ctx.block_mask_heads)
        return (dq, dk, dv) + none

    jagged_attention_op.register_autograd(backward, setup_context=setup_context)
