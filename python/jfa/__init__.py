"""JFA: jagged (packed variable-length) flash attention on NVIDIA GPUs, and
your own JFA kernels from PyTorch.

    mod = jfa.compile("my_kernel.mlir", arch="sm_90a", params={"relu": True})
    mod.my_kernel(grid, x, y, out, rows, cols, 2.0)   # torch tensors, ints, floats
    mod = jfa.load("my_kernel.cubin")                  # a cubin jfac wrote (+ .meta)

(docs/TUTORIAL.md; jfa.compile runs jfac and caches the cubin, jfa.load
checks every argument against the kernel's metadata and launches through
libjfart.)

    import torch, jfa
    # q, k, v: bf16 [T, H, D] on the GPU; offsets: int32 [B + 1], offsets[0] = 0,
    # offsets[B] = T; sequence b is tokens offsets[b]:offsets[b+1].
    o, lse = jfa.jagged_attention(q, k, v, offsets, max_seqlen, causal=True)
    # o: bf16 [T, H, D]; lse: f32 [H, T]
    # Options (issue 20), forward and backward: a sliding window
    # (FlashAttention's window_size), k and v with fewer heads (GQA / MQA),
    # and keys of other lengths (cross-attention: offsets_k, max_seqlen_k;
    # causal bottom-right):
    o, lse = jfa.jagged_attention(q, k, v, offsets, max_seqlen, window=(256, 0),
                                  offsets_k=offsets_k, max_seqlen_k=max_seqlen_k)
    o.float().sum().backward()      # q.grad, k.grad, v.grad (sm_90a, sm_100a)
    dq, dk, dv = jfa.attention_backward(do, q, k, v, o, lse, offsets, max_seqlen,
                                        window=(256, 0), offsets_k=offsets_k,
                                        max_seqlen_k=max_seqlen_k)  # directly
    # GDPA: silu or gelu_tanh in place of softmax (o = sum_j act(scale q.k_j) v_j,
    # not normalized), with any of the options; there is no lse (None):
    o, lse = jfa.jagged_attention(q, k, v, offsets, max_seqlen, causal=True,
                                  activation="silu")          # lse is None
    dq, dk, dv = jfa.attention_backward(do, q, k, v, o, None, offsets, max_seqlen,
                                        causal=True, activation="silu")
    # Block-sparse: the 128x128 blocks of the packed axes that may attend (a
    # FlexAttention BlockMask, (kv_num_blocks, kv_indices), or bool blocks),
    # built once for many calls with jfa.build_block_mask:
    o, lse = jfa.jagged_attention(q, k, v, offsets, max_seqlen, block_mask=block_mask)

jagged_attention is differentiable in o (lse is not: it is marked
non-differentiable) through the torch.library custom ops jfa::jagged_attention
and jfa::jagged_attention_backward, which also let torch.compile trace it
(fake implementations). The backward kernels exist for sm_90a (Hopper) and
sm_100a (Blackwell, not yet run on hardware); on other devices backward
raises NotImplementedError.

The kernels are written in JFA's MLIR dialect and compiled by jfac (sm_90a:
Hopper, sm_100a: Blackwell); the runtime (libjfart.so, CUDA driver API only)
loads and launches them. The package finds the runtime at
<folder>/lib/libjfart.so (the package being <folder>/python/jfa) or through
$JFA_LIBRARY, and the cubins at <folder>/kernels (or $JFA_KERNEL_DIR), else
uses the forward's ones embedded in the library (the backward's cubins must
be in the folder). `import jfa` needs neither torch nor a GPU;
jagged_attention and attention_backward need both. The custom ops are
registered when jfa first imports torch (at `import jfa` if torch is already
imported, else on first use).
"""
import sys as _sys

__version__ = "0.1.0"

from ._api import jagged_attention  # noqa: E402
from ._backward import attention_backward  # noqa: E402
from ._block_mask import build_block_mask  # noqa: E402
from ._compile import CompileError, cache_dir, compile, find_jfac  # noqa: E402,A004
from ._lib import kernel_dir, library_path, synchronize  # noqa: E402
from ._metadata import MetadataError  # noqa: E402
from ._module import Kernel, Module, load  # noqa: E402

__all__ = ["jagged_attention", "attention_backward", "build_block_mask", "load", "compile", "Module", "Kernel",
           "CompileError", "MetadataError", "find_jfac", "cache_dir", "kernel_dir",
           "library_path", "synchronize", "__version__"]

# torch already imported: register the custom ops now, so that torch.ops.jfa.*
# exist before the first call (and torch.compile never traces the registration).
if _sys.modules.get("torch") is not None:
    try:
        from ._api import _import_torch as _it
        _it()
        del _it
    except Exception:  # noqa: BLE001 - reported again on first use
        pass
