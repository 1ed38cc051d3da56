#!/usr/bin/env python3
"""One variant shape of attention_bench.py --variants, ours only, one call at
a time: each call is followed by a synchronize and its time is printed, so a
call that hangs (or takes seconds) is the last line before the outer timeout.
Then, unless --no-check, the forward check against the fp32 reference on
fresh inputs (o and lse poisoned first).

  python3 bench/variant_probe.py sparse-25-causal/unif4k-d128 [--calls 5]
      [--mask-seed N] [--no-check] [--backward]

Run it under `timeout`: a hang is the finding. With JFA_KERNEL_DIR set the
package loads those cubins (e.g. built with jfac --debug-barriers, whose
waits report file:line and trap instead of hanging).
"""

import argparse
import faulthandler
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import attention_bench as ab  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("shape", help="variant/kind-dD, as --variants names them")
    ap.add_argument("--calls", type=int, default=5)
    ap.add_argument("--mask-seed", type=int, default=None,
                    help="draw the block mask from this seed instead of the bench's")
    ap.add_argument("--no-check", action="store_true")
    ap.add_argument("--backward", action="store_true")
    ap.add_argument("--heads", type=int, default=None, help="instead of the shape's H")
    ap.add_argument("--save", default=None,
                    help="save the lengths and the block mask (bool [Hm, QB, KB]) to this .npz")
    args = ap.parse_args()
    faulthandler.dump_traceback_later(600, exit=True)
    shapes = {s[0]: s for s in ab.all_variant_shapes()}
    if args.shape not in shapes:
        print(f"unknown shape {args.shape}; shapes: {', '.join(shapes)}")
        return 2
    position = {name: i for i, name in enumerate(shapes)}
    name, var, kind, d, h = shapes[args.shape]
    h = args.heads or h
    p = ab.VProblem(var, kind, d, h, seed=20000 + position[name])
    if args.mask_seed is not None and p.blocks is not None:
        g = torch.Generator(device="cuda")
        g.manual_seed(args.mask_seed)
        p.blocks = torch.rand(p.blocks.shape, generator=g, device="cuda") < var.density
        p.block_bits = ab.jfa.build_block_mask(p.blocks, h, p.t, p.t_k)
    print(f"{name}: {var.describe()}; B={p.b} T={p.t} Smax={p.smax} H={h} D={d}"
          f"{'' if p.blocks is None else f'; blocks {tuple(p.blocks.shape)} listed {int(p.blocks.sum())}'}",
          flush=True)
    if args.save:
        import numpy as np
        np.savez(args.save, lengths=np.array(p.lengths), lengths_k=np.array(p.lengths_k),
                 blocks=None if p.blocks is None else p.blocks.cpu().numpy())
    fn = (ab.vbwd_ours if args.backward else ab.vrun_ours)(p)
    torch.cuda.synchronize()
    print("first call (with checks) done", flush=True)
    for i in range(args.calls):
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        print(f"call {i}: {1e3 * (time.perf_counter() - t0):.3f} ms", flush=True)
    if not args.no_check and not args.backward:
        print("check: " + ab.vcheck_forward(p, seed=1), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
