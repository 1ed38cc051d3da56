"""The benches' GPU timing, shared by bench/attention_bench.py and
bench/gemm_bench.py (torch is imported on first use, so that a bench's
--help works without it)."""
import statistics

_flush = None  # the L2-evicting buffer, allocated once


def queued_median_ms(fn, reps):
    """Median time of fn in ms over `reps` runs, each between two CUDA events
    after a 256 MB write that evicts the L2 cache and keeps the GPU busy while
    the host launches fn, with no synchronization between runs: the events
    time fn's GPU work from a cold L2, and the host's launch work is hidden
    unless it is longer than the write (about 0.1 ms). The caller warms fn up
    first."""
    import torch

    global _flush
    if _flush is None:
        _flush = torch.empty(64 << 20, dtype=torch.int32, device="cuda")
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
              for _ in range(reps)]
    for s, e in events:
        _flush.zero_()
        s.record()
        fn()
        e.record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in events)
