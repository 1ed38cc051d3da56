"""The attention benches' batches, with no torch: the dense shapes of
bench/attention_bench.py (all_shapes: name, head dim, heads, causal, and a
function of a random.Random giving the sequence lengths; shape i of the list
draws its batch from random.Random(1000 + i)) and their length laws, also
read by bench/schedule_sim.py; and the checkout's commit, which the benches
record with their results."""
import math
import os
import subprocess

TOKENS_UNIFORM = 32768
TOKENS_TAIL = 65536


def lengths_uniform(rng, hi, total):
    out = []
    while sum(out) < total:
        out.append(rng.randint(1, hi))
    out[-1] -= sum(out) - total
    return [n for n in out if n > 0]


def lengths_tail(rng, cap, total):
    """Log-normal lengths (median ~400, a long tail), capped."""
    out = []
    while sum(out) < total:
        out.append(max(1, min(cap, int(math.exp(rng.gauss(6.0, 1.5))))))
    out[-1] -= sum(out) - total
    return [n for n in out if n > 0]


def all_shapes():
    shapes = []
    for d, h in ((128, 16), (64, 32)):
        for kind, hi in (("unif1k", 1024), ("unif4k", 4096)):
            for causal in (False, True):
                shapes.append((f"{kind}-d{d}-{'causal' if causal else 'full'}", d, h, causal,
                               lambda rng, hi=hi: lengths_uniform(rng, hi, TOKENS_UNIFORM)))
        for causal in (False, True):
            shapes.append((f"tail8k-d{d}-{'causal' if causal else 'full'}", d, h, causal,
                           lambda rng: lengths_tail(rng, 8192, TOKENS_TAIL)))
    for s in (1024, 4096, 16384):
        shapes.append((f"eq{s // 1024}k-d128-causal", 128, 16, True,
                       lambda rng, s=s: [s] * (32768 // s)))
    return shapes



def git_commit():
    """The checkout's commit (short), or None where there is no git checkout."""
    try:
        out = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], capture_output=True,
                             text=True, timeout=10, cwd=os.path.dirname(os.path.abspath(__file__)))
        return (out.stdout.strip() or None) if out.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None
