"""JFA: jagged (packed variable-length) flash attention on NVIDIA GPUs.

    import torch, jfa
    # q, k, v: bf16 [T, H, D] on the GPU; offsets: int32 [B + 1], offsets[0] = 0,
    # offsets[B] = T; sequence b is tokens offsets[b]:offsets[b+1].
    o, lse = jfa.jagged_attention(q, k, v, offsets, max_seqlen, causal=True)
    # o: bf16 [T, H, D]; lse: f32 [H, T]

The kernels are written in JFA's MLIR dialect and compiled by jfac (sm_90a:
Hopper, sm_100a: Blackwell); the runtime (libjfart.so, CUDA driver API only)
loads and launches them. The package finds the runtime at
<folder>/lib/libjfart.so (the package being <folder>/python/jfa) or through
$JFA_LIBRARY, and the cubins at <folder>/kernels (or $JFA_KERNEL_DIR), else
uses the ones embedded in the library. `import jfa` needs neither torch nor
a GPU; jagged_attention needs both.
"""
__version__ = "0.1.0"

from ._api import jagged_attention  # noqa: E402
from ._lib import kernel_dir, library_path  # noqa: E402

__all__ = ["jagged_attention", "kernel_dir", "library_path", "__version__"]
