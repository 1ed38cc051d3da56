"""Block-sparse attention's mask (jagged_attention's block_mask): from the
forms a user has to the kernels' bitmap.

The mask is over the packed token axes in blocks of BLOCK = 128 tokens (the
kernels' tile): query t and key s may attend only if block (t // 128,
s // 128) is listed, on top of the jagged, causal and window masks; the
kernels skip the tiles with no listed block. Accepted forms:

- a FlexAttention BlockMask (torch.nn.attention.flex_attention) built over
  the packed sequence (batch 1, Q_LEN = T, KV_LEN = T_k) with BLOCK_SIZE
  128: its kv_num_blocks / kv_indices and, when present, full_kv_num_blocks
  / full_kv_indices, all listed. Its mask_mod is not applied: a listed block
  is attended whole (within the other masks), so a mask_mod that is not
  block-aligned gives another result than flex_attention;
- a pair (kv_num_blocks, kv_indices): int32 [Hm, QB] and [Hm, QB, C] (or
  with a leading batch dimension of 1, FlexAttention's layout): row (h, qb)
  lists the key blocks kv_indices[h, qb, :kv_num_blocks[h, qb]];
- a bool tensor [Hm, QB, KB] (or [1, Hm, QB, KB]): block (qb, kb) listed
  where True.

QB = ceil(T / 128) and KB = ceil(T_k / 128); Hm is 1 (one mask for every q
head) or H (one per q head). The kernels read a bitmap of int32 words
[Hm, QB, ceil(KB / 32)] (kernels/lib/block_mask.mlir), built here on the
device with torch ops.
"""
from . import _validate

BLOCK = 128


class Bits:
    """A built mask: bits (int32 [Hm, QB, W] on the device, contiguous) and
    Hm. jagged_attention hands it to the backward, which takes it as is."""

    __slots__ = ("bits", "heads")

    def __init__(self, bits, heads):
        self.bits, self.heads = bits, heads


def _blocks(n):
    return (n + BLOCK - 1) // BLOCK


def _drop_batch(torch, t, rank, what):
    """t without FlexAttention's leading batch dimension (which must be 1)."""
    if t.dim() == rank + 1:
        if t.shape[0] != 1:
            raise ValueError(f"block_mask: {what} has batch size {t.shape[0]}; jagged sequences "
                             f"are packed into one (batch 1 over the T packed tokens)")
        return t[0]
    if t.dim() != rank:
        raise ValueError(f"block_mask: {what} must have {rank} dimensions (or {rank + 1} with a "
                         f"leading batch of 1), got shape {list(t.shape)}")
    return t


def _check_heads(heads_m, heads, what):
    if heads_m not in (1, heads):
        raise ValueError(f"block_mask: {what} has {heads_m} heads; it must have 1 (one mask for "
                         f"every head) or num_heads = {heads} (one per q head)")


def _dense_from_lists(torch, num, idx, q_blocks, kv_blocks, heads, device, check, what,
                      where):
    """bool [Hm, QB, KB] from kv_num_blocks [Hm, QB] and kv_indices [Hm, QB, C]."""
    for name, t in (("kv_num_blocks", num), ("kv_indices", idx)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"block_mask: {what}{name} must be a torch.Tensor, got "
                            f"{type(t).__name__}")
        if t.dtype not in (torch.int32, torch.int64):
            raise TypeError(f"block_mask: {what}{name} must be int32 (or int64), got {t.dtype}")
        if t.device != device:
            raise ValueError(f"block_mask: {what}{name} must be on {where} {device}, got "
                             f"{t.device}")
    num = _drop_batch(torch, num, 2, what + "kv_num_blocks")
    idx = _drop_batch(torch, idx, 3, what + "kv_indices")
    heads_m = num.shape[0]
    _check_heads(heads_m, heads, what + "kv_num_blocks")
    if tuple(num.shape) != (heads_m, q_blocks) or tuple(idx.shape[:2]) != (heads_m, q_blocks):
        raise ValueError(f"block_mask: {what}kv_num_blocks must be [Hm, QB] = "
                         f"[{heads_m}, {q_blocks}] and kv_indices [Hm, QB, C] (QB = ceil(T / "
                         f"{BLOCK}) query blocks), got {list(num.shape)} and {list(idx.shape)}")
    capacity = idx.shape[2]
    num = num.long()
    idx = idx.long()
    position = torch.arange(capacity, device=device)
    valid = position[None, None, :] < num[:, :, None]
    in_range = (idx >= 0) & (idx < kv_blocks)
    if check:
        bad_num = (num < 0) | (num > capacity)
        if bool(bad_num.any()):
            h, qb = (int(x) for x in bad_num.nonzero()[0])
            raise ValueError(f"block_mask: {what}kv_num_blocks[{h}, {qb}] = {int(num[h, qb])} "
                             f"is outside [0, {capacity}] (kv_indices' last dimension)")
        bad = valid & ~in_range
        if bool(bad.any()):
            h, qb, i = (int(x) for x in bad.nonzero()[0])
            raise ValueError(f"block_mask: {what}kv_indices[{h}, {qb}, {i}] = {int(idx[h, qb, i])} "
                             f"is not a key block (0 <= index < ceil(T_k / {BLOCK}) = "
                             f"{kv_blocks})")
    # Unlisted positions (and, unchecked, out-of-range entries) go to a
    # spare column that is dropped.
    target = torch.where(valid & in_range, idx, torch.full_like(idx, kv_blocks))
    dense = torch.zeros((heads_m, q_blocks, kv_blocks + 1), dtype=torch.bool, device=device)
    dense.scatter_(2, target, True)
    return dense[:, :, :kv_blocks]


def _pack(torch, dense, device):
    """The kernels' int32 words [Hm, QB, W] of bool [Hm, QB, KB]: 4 bytes of
    temporary a block (the bits shifted in place, summed in int32: the
    bits are distinct, so the sum is their two's-complement word)."""
    heads_m, q_blocks, kv_blocks = dense.shape
    words = max(1, (kv_blocks + 31) // 32)
    padded = torch.zeros((heads_m, q_blocks, words * 32), dtype=torch.int32, device=device)
    padded[:, :, :kv_blocks] = dense
    shifts = torch.arange(32, dtype=torch.int32, device=device)
    bits = padded.view(heads_m, q_blocks, words, 32).bitwise_left_shift_(shifts)
    return bits.sum(dim=3, dtype=torch.int32).contiguous()


def build(torch, block_mask, heads, tokens, tokens_k, device, check, where="q's device"):
    """Bits for block_mask over T = tokens queries and T_k = tokens_k keys
    (H = heads q heads) on `device` (`where` names it in errors), or None for
    None. check: verify the lists' entries (copies a flag to the host:
    synchronizes). TypeError / ValueError name what is wrong."""
    if block_mask is None:
        return None
    q_blocks, kv_blocks = _blocks(tokens), _blocks(tokens_k)
    if isinstance(block_mask, Bits):
        # Built once for other calls: it must fit this one's sizes (the
        # kernels read it by them).
        _check_heads(block_mask.heads, heads, "the built mask")
        want = (block_mask.heads, q_blocks, max(1, (kv_blocks + 31) // 32))
        if tuple(block_mask.bits.shape) != want:
            raise ValueError(f"block_mask: the built mask is [Hm, QB, W] = "
                             f"{list(block_mask.bits.shape)}, but this call's T = {tokens} "
                             f"queries and T_k = {tokens_k} keys need {list(want)} (build it "
                             f"with jfa.build_block_mask for these sizes)")
        if block_mask.bits.device != device:
            raise ValueError(f"block_mask: the built mask is on {block_mask.bits.device}, "
                             f"not {where} {device}")
        return block_mask
    if isinstance(block_mask, torch.Tensor):
        if block_mask.dtype != torch.bool:
            raise TypeError(f"block_mask: a tensor block mask must be bool [Hm, QB, KB] (True: "
                            f"listed), got {block_mask.dtype}")
        if block_mask.device != device:
            raise ValueError(f"block_mask must be on {where} {device}, got "
                             f"{block_mask.device}")
        dense = _drop_batch(torch, block_mask, 3, "the bool mask")
        _check_heads(dense.shape[0], heads, "the bool mask")
        if tuple(dense.shape[1:]) != (q_blocks, kv_blocks):
            raise ValueError(f"block_mask: the bool mask must be [Hm, QB, KB] = [Hm, {q_blocks}, "
                             f"{kv_blocks}] (blocks of {BLOCK} of the T = {tokens} queries and "
                             f"T_k = {tokens_k} keys), got {list(dense.shape)}")
    elif isinstance(block_mask, tuple) and len(block_mask) == 2:
        dense = _dense_from_lists(torch, block_mask[0], block_mask[1], q_blocks, kv_blocks,
                                  heads, device, check, "", where)
    elif hasattr(block_mask, "kv_num_blocks") and hasattr(block_mask, "kv_indices"):
        size = getattr(block_mask, "BLOCK_SIZE", (BLOCK, BLOCK))
        size = tuple(size) if isinstance(size, (tuple, list)) else (size, size)
        if size != (BLOCK, BLOCK):
            raise ValueError(f"block_mask: the BlockMask's BLOCK_SIZE is {size}; the kernels' "
                             f"blocks are ({BLOCK}, {BLOCK}) (create_block_mask(..., "
                             f"BLOCK_SIZE={BLOCK}))")
        dense = _dense_from_lists(torch, block_mask.kv_num_blocks, block_mask.kv_indices,
                                  q_blocks, kv_blocks, heads, device, check, "", where)
        full_num = getattr(block_mask, "full_kv_num_blocks", None)
        if full_num is not None:
            full = _dense_from_lists(torch, full_num, block_mask.full_kv_indices, q_blocks,
                                     kv_blocks, heads, device, check, "full_", where)
            if full.shape[0] != dense.shape[0]:
                raise ValueError(f"block_mask: full_kv_num_blocks has {full.shape[0]} heads, "
                                 f"kv_num_blocks {dense.shape[0]}")
            dense = dense | full
    else:
        raise TypeError(f"block_mask must be a FlexAttention BlockMask, a (kv_num_blocks, "
                        f"kv_indices) pair of int32 tensors or a bool tensor [Hm, QB, KB], got "
                        f"{type(block_mask).__name__}")
    _validate.check_block_mask_size(dense.shape[0], q_blocks, kv_blocks)
    return Bits(_pack(torch, dense, device), int(dense.shape[0]))


def build_block_mask(block_mask, num_heads, total_tokens, total_tokens_k=None, device=None,
                     check=True):
    """The kernels' form of a block-sparse mask, built once: jagged_attention
    and attention_backward take the result as their block_mask and use it as
    it is (otherwise each call converts the mask again, a few small torch
    kernels). block_mask: as jagged_attention's (a FlexAttention BlockMask, a
    (kv_num_blocks, kv_indices) pair, a bool [Hm, QB, KB] tensor); num_heads:
    H, the q heads; total_tokens: T; total_tokens_k: T_k (None: T); device:
    where the mask's tensors are (None: theirs). check: verify the lists'
    entries (synchronizes)."""
    from ._torch import import_torch
    torch = import_torch("jfa.build_block_mask")
    if device is None:
        for t in (block_mask if isinstance(block_mask, tuple) else
                  (getattr(block_mask, "kv_num_blocks", block_mask),)):
            if isinstance(t, torch.Tensor):
                device = t.device
                break
    if device is None:
        raise TypeError("jfa.build_block_mask: pass device= (no tensor in block_mask)")
    device = torch.device(device)
    if device.type == "cuda" and device.index is None:
        device = torch.device("cuda", torch.cuda.current_device())
    tokens_k = total_tokens if total_tokens_k is None else total_tokens_k
    bits = build(torch, block_mask, int(num_heads), int(total_tokens), int(tokens_k),
                 device, check, where="the device")
    if bits is None:
        raise TypeError("jfa.build_block_mask: block_mask is None")
    return bits
