"""What the GPU tests share: the pass/fail tally, jagged batches, error-path
checks and the seeded start of a run (attention_test.py,
attention_bwd_test.py), and the bit-exact check of the slot round trips
(blocked_slots_test.py, matrix_slots_test.py). Imported as a sibling module (the tests run as scripts from
this folder's path)."""
import argparse
import random

import torch

import jfa


class Results:
    def __init__(self):
        self.failures = 0
        self.cases = 0

    def report(self, ok, line):
        self.cases += 1
        self.failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {line}", flush=True)

    def summary(self, seed):
        """Prints the verdict; the process's exit status."""
        print(f"{'PASS' if self.failures == 0 else 'FAIL'}: "
              f"{self.cases - self.failures}/{self.cases} cases passed (seed {seed})")
        return 1 if self.failures else 0


def plus_mismatches(x, ys, pluses):
    """The round trips' check: each output ys[i] must be bf16(x + pluses[i])
    bit for bit. Returns a line per output that is not (empty: all are)."""
    lines = []
    for y, plus in zip(ys, pluses, strict=True):
        want = (x.float() + plus).to(torch.bfloat16)
        bad = (y.view(torch.int16) != want.view(torch.int16)).nonzero()
        if len(bad):
            r, c = bad[0].tolist()
            lines.append(f"FAIL x + {plus}: {len(bad)} of {y.numel()} elements differ; first "
                         f"at ({r}, {c}): got {y[r, c].item()}, want {want[r, c].item()}")
    return lines


def make_offsets(lengths, device="cuda"):
    offs = [0]
    for n in lengths:
        offs.append(offs[-1] + n)
    return torch.tensor(offs, dtype=torch.int32, device=device)


def describe(lengths):
    b = len(lengths)
    if b <= 8:
        return f"lengths {lengths}"
    return (f"B={b} lengths[min {min(lengths)} max {max(lengths)} "
            f"empty {sum(1 for n in lengths if n == 0)}]")


def random_lengths(rng, b, lo, hi, p_empty=0.1):
    return [0 if rng.random() < p_empty else rng.randint(lo, hi) for _ in range(b)]


def expect_error(res, name, exc_type, fn, *needles):
    """fn() must raise exc_type whose message contains every needle (an
    error raised by the launched work itself counts: the device is
    synchronized before 'nothing raised')."""
    try:
        fn()
        torch.cuda.synchronize()
    except exc_type as e:
        msg = str(e)
        missing = [n for n in needles if n.lower() not in msg.lower()]
        ok = bool(msg) and not missing
        res.report(ok, f"error path {name}: {exc_type.__name__}: {msg}"
                   f"{'' if ok else f' (message lacks {missing})'}")
        return
    except Exception as e:  # noqa: BLE001 - reported as a failure
        res.report(False, f"error path {name}: expected {exc_type.__name__}, got "
                   f"{type(e).__name__}: {e}")
        return
    res.report(False, f"error path {name}: expected {exc_type.__name__}, nothing raised")


def start(doc, sanitize_help, flags=()):
    """Parses --quick, --sanitize, --seed, --only and the test's own boolean `flags`
    ((name, help) pairs, at most one of them given: each selects a part of
    the matrix, none runs it all) and prints the run's header: (args, seed,
    rng, CUDA generator, Results)."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="a smaller matrix")
    ap.add_argument("--sanitize", action="store_true", help=sanitize_help)
    ap.add_argument("--seed", type=int, default=None, help="repeat a run's random data")
    ap.add_argument("--only", metavar="TEXT", default=None,
                    help="run only the cases whose name contains TEXT (and the error paths)")
    parts = ap.add_mutually_exclusive_group()
    for name, help_text in flags:
        parts.add_argument(name, action="store_true", help=help_text)
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
    print(f"seed {seed} (repeat with --seed {seed}); jfa {jfa.__version__}, "
          f"library {jfa.library_path()}, kernels {jfa.kernel_dir() or 'embedded'}; "
          f"{torch.cuda.get_device_name()}, torch {torch.__version__}", flush=True)
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    return args, seed, random.Random(seed), gen, Results()


# Block-sparse attention (jagged_attention's block_mask): masks over the
# packed token axes in blocks of 128 tokens.
BLOCK = 128


def random_block_mask(gen, heads, tokens, tokens_k, density):
    """bool [heads, ceil(T / 128), ceil(T_k / 128)] on the GPU, each block
    listed with probability density."""
    shape = (heads, max(1, -(-tokens // BLOCK)), max(1, -(-tokens_k // BLOCK)))
    return torch.rand(shape, generator=gen, device="cuda") < density


def block_mask_form(blocks, form):
    """The mask as jagged_attention takes it: "bool" the tensor itself,
    "lists" (kv_num_blocks, kv_indices) int32 with the listed blocks first
    and junk after them, "flex" a FlexAttention BlockMask (None when this
    torch has none)."""
    if form == "bool":
        return blocks
    num = blocks.sum(dim=-1, dtype=torch.int32)
    order = torch.sort((~blocks).to(torch.uint8), dim=-1, stable=True).indices.to(torch.int32)
    # Past kv_num_blocks the entries are not read: make them nonsense.
    junk = torch.arange(order.shape[-1], device=order.device)[None, None, :] >= num[..., None]
    idx = torch.where(junk, torch.full_like(order, -7), order)
    if form == "lists":
        return num, idx
    try:
        from torch.nn.attention.flex_attention import BlockMask
        return BlockMask.from_kv_blocks(num[None], idx[None].clamp_min(0), BLOCK_SIZE=BLOCK)
    except Exception:  # noqa: BLE001 - no FlexAttention in this torch
        return None


def block_visible(blocks, h0, h1, s, n, sk, m):
    """[h1 - h0 (1 for a shared mask), n, m] bool: the (query, key) pairs of
    heads h0..h1-1 the block mask lists, for a sequence of n queries from
    packed row s and m keys from sk."""
    rows = torch.arange(s, s + n, device=blocks.device) // BLOCK
    cols = torch.arange(sk, sk + m, device=blocks.device) // BLOCK
    sel = blocks if blocks.shape[0] == 1 else blocks[h0:h1]
    return sel[:, rows][:, :, cols]


def add_block_mask(options, gen, block_mask, tokens, tokens_k):
    """A case's random block-sparse mask: block_mask (mask heads, density,
    form) or None. Puts the form jagged_attention takes in options; returns
    (the bool blocks for the reference, or None; why the case is skipped, or
    None)."""
    if block_mask is None:
        return None, None
    heads_m, density, form = block_mask
    blocks = random_block_mask(gen, heads_m, tokens, tokens_k, density)
    mask = block_mask_form(blocks, form)
    if mask is None:
        return blocks, "skipped (no FlexAttention BlockMask in this torch)"
    options["block_mask"] = mask
    return blocks, None


def pairs_mask(seq_mask, blocks, h0, h1, s, n, sk, m):
    """A sequence's [n, m] mask, intersected with the block mask's pairs of
    heads h0..h1-1 when there is one ([heads or 1, n, m])."""
    if blocks is None:
        return seq_mask
    return seq_mask & block_visible(blocks, h0, h1, s, n, sk, m)
