"""The tcgen05 oracle's probe for CTA-pair products (cta_group::2): what
Triton 3.6 emits for a 256 x N x 64 bf16 product in a cluster of two CTAs,
to compare with jfac's `jfa.tc_dot ... pair` (kernels/gemm/gemm_pair_sm100.mlir).

Run on the GPU machine (Triton, no Blackwell needed): OUT=dir python3 this.
It compiles tl.dot tiles for GPUTarget("cuda", 100, 32) with num_ctas = 2,
and writes $OUT/pair.json: Triton's version and, per configuration, the PTX
(or the error), and which cta_group its tcgen05.mma used. Triton chooses
two-CTA MMAs itself (its accelerate-matmul pass, when the CTA layout splits M
over the pair); a configuration whose PTX has no cta_group::2 is recorded
as such, not guessed.
"""
import json
import os
import re
import traceback

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget


@triton.jit
def pair_dot(a_ptr, b_ptr, c_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # C = A B^T: A is BM x BK, B is BN x BK, both K-major (row-major).
    m = tl.arange(0, BM)
    n = tl.arange(0, BN)
    k = tl.arange(0, BK)
    a = tl.load(a_ptr + m[:, None] * BK + k[None, :])
    b = tl.load(b_ptr + n[:, None] * BK + k[None, :])
    c = tl.dot(a, tl.trans(b))
    tl.store(c_ptr + m[:, None] * BN + n[None, :], c)


CONFIGS = [dict(id="ss_bf16_m256_n256_k64_sw128_pair", BM=256, BN=256, BK=64),
           dict(id="ss_bf16_m256_n128_k64_sw128_pair", BM=256, BN=128, BK=64)]


def main():
    out = {"v": triton.__version__, "p": []}
    for cfg in CONFIGS:
        entry = dict(cfg)
        try:
            src = triton.compiler.ASTSource(
                fn=pair_dot,
                signature={"a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*fp32",
                           "BM": "constexpr", "BN": "constexpr", "BK": "constexpr"},
                constexprs={"BM": cfg["BM"], "BN": cfg["BN"], "BK": cfg["BK"]})
            k = triton.compile(src, target=GPUTarget("cuda", 100, 32),
                               options={"num_warps": 4, "num_ctas": 2})
            ptx = k.asm["ptx"]
            entry["ok"] = 1
            entry["ptx"] = ptx
            entry["ttgir"] = k.asm.get("ttgir", "")
            entry["cta_groups"] = sorted(set(re.findall(r"tcgen05\.mma\.cta_group::(\d)", ptx)))
        except Exception:  # noqa: BLE001 - the error is the result
            entry["ok"] = 0
            entry["e"] = traceback.format_exc()[-3000:]
        out["p"].append(entry)
        print(cfg["id"], "ok" if entry["ok"] else "error", entry.get("cta_groups"))
    with open(os.path.join(os.environ.get("OUT", "."), "pair.json"), "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main()
