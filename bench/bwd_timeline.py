"""Where a jagged attention backward spends its time: each kernel and memset
of one jfa.attention_backward call, against the call's wall time on the GPU.

    PYTHONPATH=dist/jfa/python python3 bench/bwd_timeline.py [--shapes eq4k,unif1k-causal,...]

For each shape: the median over 20 calls (CUDA events, after warm-up) of the
whole call, and torch.profiler's device time per kernel over 10 calls
(per call). "gaps" is the call's time not covered by any listed kernel:
launch latency between the pipeline's stages and host time the GPU waited
for. Shapes (D = 128 unless named): eq1k / eq4k / eq16k (32K tokens, H 16,
causal, equal lengths: issue 17's cuDNN points), unif1k-causal (32K tokens
of lengths uniform in [1, 1024]), tail8k-full, gqa-kv1 (unif4k causal,
H 16 over one k/v head: issue 20's MQA shape).
"""
import argparse
import random
import statistics
import time

import torch

import jfa


def batch(name, rng):
    """(lengths, heads, h_kv, causal) of a named shape."""
    if name.startswith("eq"):
        s = {"eq1k": 1024, "eq4k": 4096, "eq16k": 16384}[name]
        return [s] * (32768 // s), 16, 16, True
    lens = []
    hi = {"unif1k-causal": 1024, "tail8k-full": 8192, "gqa-kv1": 4096}[name]
    while sum(lens) < 32768:
        if name == "tail8k-full":
            lens.append(min(hi, int(rng.paretovariate(1.2) * 256)))
        else:
            lens.append(rng.randint(1, hi))
    return lens, 16, (1 if name == "gqa-kv1" else 16), name != "tail8k-full"


def median_event_us(call, before=None, runs=20):
    """The median over `runs` of call()'s time on the GPU (CUDA events
    around it, waited for), in us; before() runs ahead of each, untimed."""
    times = []
    for _ in range(runs):
        if before is not None:
            before()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        call()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) * 1e3)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", default="eq1k,eq4k,eq16k,unif1k-causal,tail8k-full,gqa-kv1")
    args = ap.parse_args()
    rng = random.Random(11)
    for name in args.shapes.split(","):
        lens, h, h_kv, causal = batch(name, rng)
        offsets = torch.tensor([0] + list(torch.tensor(lens).cumsum(0)), dtype=torch.int32,
                               device="cuda")
        t, d = int(offsets[-1]), 128
        q, do = (torch.randn(t, h, d, device="cuda", dtype=torch.bfloat16) for _ in range(2))
        k, v = (torch.randn(t, h_kv, d, device="cuda", dtype=torch.bfloat16) for _ in range(2))
        o, lse = jfa.jagged_attention(q, k, v, offsets, max(lens), causal=causal)

        def call():
            return jfa.attention_backward(do, q, k, v, o, lse, offsets, max(lens),
                                          causal=causal, check_offsets=False)
        for _ in range(5):
            call()
        torch.cuda.synchronize()
        whole = median_event_us(call)
        # Host time of a call (no synchronization): before its first launch
        # the GPU waits for it, when nothing else is queued.
        host = []
        for _ in range(20):
            t0 = time.perf_counter()
            call()
            host.append((time.perf_counter() - t0) * 1e6)
            torch.cuda.synchronize()
        # The same call with the whole GPU queue ahead of it: a long
        # kernel first, so the host's time hides behind it.
        big = torch.empty(1 << 28, dtype=torch.uint8, device="cuda")

        def queue_work():
            big.zero_()
            big.zero_()
        ahead = median_event_us(call, before=queue_work)
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
            for _ in range(10):
                call()
            torch.cuda.synchronize()
        rows = []
        for ev in prof.key_averages():
            dev = getattr(ev, "device_time_total", None) or getattr(ev, "cuda_time_total", 0)
            if dev > 0 and ev.count >= 10:
                rows.append((dev / 10, ev.key[:60], ev.count // 10))
        rows.sort(reverse=True)
        covered = sum(r[0] for r in rows)
        print(f"## {name}: T={t} H={h} H_kv={h_kv} causal={causal} sequences={len(lens)}")
        print(f"whole call (events, median of 20): {whole:.1f} us; host time of a call "
              f"{statistics.median(host):.1f} us; queued behind other work "
              f"(events, median of 20): {ahead:.1f} us")
        for us, key, n in rows:
            print(f"  {us:9.1f} us  {100 * us / whole:5.1f}%  x{n}  {key}")
        print(f"  {whole - covered:9.1f} us  {100 * (whole - covered) / whole:5.1f}%  gaps")
        # The copy bandwidth the delta pass is held to (issue 17: >= 85% of
        # it on delta's bytes): a device copy of o and do's bytes.
        src = torch.empty(2 * o.numel(), dtype=torch.bfloat16, device="cuda")
        dst = torch.empty_like(src)
        for _ in range(3):
            dst.copy_(src)
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(20):
            dst.copy_(src)
        b.record()
        b.synchronize()
        copy_us = a.elapsed_time(b) * 1e3 / 20
        nbytes = src.numel() * 2
        delta = [r for r in rows if "attention_bwd_delta" in r[1]]
        print(f"  copy of o and do ({nbytes / 1e6:.0f} MB read + written): {copy_us:.1f} us, "
              f"{2 * nbytes / copy_us / 1e6:.2f} TB/s"
              + (f"; delta reads them at {nbytes / delta[0][0] / 1e6:.2f} TB/s "
                 f"({100 * (nbytes / delta[0][0]) / (2 * nbytes / copy_us):.0f}% of the copy's)"
                 if delta else ""))


if __name__ == "__main__":
    main()
