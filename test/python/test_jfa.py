"""CPU-only tests of the jfa Python package: no torch, no GPU needed.

    python3 test/python/test_jfa.py          (or: python3 -m unittest discover -s test/python)

- `import jfa` works without torch; jagged_attention then raises a clear ImportError.
- the pure-Python argument checks (jfa._validate) accept and refuse what the
  kernel contract (kernels/jagged_attention/README.md) says, with messages
  that name the argument, issue 20's options (window, GQA, offsets_k, the
  GDPA activation; block_mask) included, also through
  jfa.jagged_attention and jfa.attention_backward with a stand-in torch;
- the GDPA activation's wiring with a stand-in torch: no lse (None out of
  jagged_attention, None into attention_backward, NULL to the runtime), the
  activation's name in the runtime's struct, the custom ops' fake
  implementations and autograd formula;
- the ctypes mirror of jfa_attention_forward_args matches the C header
  runtime/include/jfa/attention.h field for field;
- the library and kernel folder lookup; and, when a libjfart.so with the
  attention API is built, jfa_attention_create's failure on a folder without
  kernels comes back as a RuntimeError with the runtime's message.
"""
import ctypes
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "python"))

import jfa  # noqa: E402
from jfa import _lib, _metadata, _schedule as S, _validate as V  # noqa: E402


def metadata_text(kernel="k", arch="sm_90a", **changes):
    """JSON metadata as jfac writes it, for one kernel; `changes` replace or
    (with value None) remove the kernel's fields."""
    k = {"name": kernel, "arch": arch, "threads": 384, "cluster": [1, 1, 1],
         "shared_bytes": 200000, "debug_barriers": False,
         "arguments": [{"kind": "tma", "element_type": "bf16", "box": [128, 64],
                        "swizzle": 128},
                       {"kind": "ptr", "element_type": "f32"}, {"kind": "i32"}]}
    for key, v in changes.items():
        if v is None:
            k.pop(key)
        else:
            k[key] = v
    return json.dumps({"format": "jfa-metadata", "version": 2, "kernels": [k]}, indent=2)


class ImportWithoutTorch(unittest.TestCase):
    def test_import_and_clear_error(self):
        # A child process in which 'import torch' fails, whether or not torch is installed.
        code = ("import sys; sys.modules['torch'] = None\n"
                "import jfa\n"
                "assert jfa.__version__\n"
                "try:\n"
                "    jfa.jagged_attention(None, None, None, None, 1)\n"
                "except ImportError as e:\n"
                "    assert 'PyTorch' in str(e), e\n"
                "    print('ok')\n"
                "try:\n"
                "    jfa.attention_backward(None, None, None, None, None, None, None, 1)\n"
                "except ImportError as e:\n"
                "    assert 'PyTorch' in str(e), e\n"
                "    print('ok')\n")
        env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "python"))
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stdout.split(), ["ok", "ok"])

    def test_public_names(self):
        self.assertTrue(jfa.__doc__)
        self.assertRegex(jfa.__version__, r"^\d+\.\d+\.\d+")
        for name in ("jagged_attention", "attention_backward", "library_path", "kernel_dir"):
            self.assertTrue(callable(getattr(jfa, name)))


class AttentionShapes(unittest.TestCase):
    """The forward's shapes (check_attention_shapes): k and v may have fewer
    heads (GQA / MQA) and, with offsets_k, other tokens."""

    def test_good(self):
        f = V.check_attention_shapes
        self.assertEqual(f((10, 4, 64), (10, 4, 64), (10, 4, 64), (3,)), (10, 4, 64, 2, 10, 4))
        self.assertEqual(f((10, 8, 128), (10, 2, 128), (10, 2, 128), (3,)),
                         (10, 8, 128, 2, 10, 2))
        self.assertEqual(f((10, 8, 64), (10, 1, 64), (10, 1, 64), (3,)), (10, 8, 64, 2, 10, 1))
        self.assertEqual(f((10, 4, 64), (25, 2, 64), (25, 2, 64), (3,), (3,)),
                         (10, 4, 64, 2, 25, 2))
        self.assertEqual(f((10, 4, 64), (0, 4, 64), (0, 4, 64), (3,), (3,)),
                         (10, 4, 64, 2, 0, 4))
        self.assertEqual(f((0, 1, 128), (7, 1, 128), (7, 1, 128), (2,), (2,)),
                         (0, 1, 128, 1, 7, 1))
        self.assertEqual(f((0, 1, 128), (0, 1, 128), (0, 1, 128), (1,)), (0, 1, 128, 0, 0, 1))

    def bad(self, *shapes, needle):
        with self.assertRaises(ValueError) as cm:
            V.check_attention_shapes(*shapes)
        self.assertIn(needle, str(cm.exception))

    def test_bad(self):
        q = (10, 8, 64)
        self.bad((10, 512), q, q, (3,), needle="q must be 3-d")
        self.bad(q, (10, 512), q, (3,), needle="k must be 3-d")
        self.bad(q, (10, 2, 64), (10, 4, 64), (3,),
                 needle="v must have the shape of k [10, 2, 64], got [10, 4, 64]")
        self.bad(q, (10, 8, 128), (10, 8, 128), (3,),
                 needle="k and v must have q's head dim D = 64 (k.shape[2]), got 128")
        self.bad(q, (10, 3, 64), (10, 3, 64), (3,),
                 needle="q's H = 8 heads (q.shape[1]) must be a multiple of k's and v's "
                        "H_kv = 3 heads (k.shape[1])")
        self.bad(q, (10, 16, 64), (10, 16, 64), (3,), needle="H_kv = 16")
        self.bad(q, (10, 0, 64), (10, 0, 64), (3,), needle="H_kv = 0 (k.shape[1])")
        self.bad(q, (9, 8, 64), (9, 8, 64), (3,),
                 needle="k and v must have q's T = 10 tokens (k.shape[0]) for self-attention, "
                        "got 9; for keys of other lengths pass offsets_k and max_seqlen_k")
        self.bad(q, (9, 8, 64), (9, 8, 64), (3,), (4,),
                 needle="offsets_k must have the shape of offsets [3]")
        self.bad(q, (9, 8, 64), (9, 8, 64), (3,), (1, 3),
                 needle="offsets_k must have the shape of offsets")
        self.bad(q, (2**31, 8, 64), (2**31, 8, 64), (3,), (3,), needle="T_k = 2147483648")
        self.bad((10, 8, 96), (10, 8, 96), (10, 8, 96), (3,), needle="D = 96")
        self.bad((10, 0, 64), (10, 0, 64), (10, 0, 64), (3,), needle="H = 0 (q.shape[1])")
        self.bad(q, q, q, (1, 3), needle="offsets must be 1-d")
        self.bad(q, q, q, (0,), needle="at least one")
        self.bad((2**31, 1, 64), (2**31, 1, 64), (2**31, 1, 64), (2,), needle="int32")


class KeyOptions(unittest.TestCase):
    def test_max_seqlen_k(self):
        self.assertEqual(V.check_key_options(False, None, 10), 0)
        self.assertEqual(V.check_key_options(True, 7, 10), 7)
        self.assertEqual(V.check_key_options(True, 0, 0), 0)
        with self.assertRaisesRegex(ValueError, "max_seqlen_k is required with offsets_k"):
            V.check_key_options(True, None, 10)
        with self.assertRaisesRegex(ValueError, "max_seqlen_k = 7 is given but offsets_k is not"):
            V.check_key_options(False, 7, 10)
        with self.assertRaisesRegex(TypeError, "max_seqlen_k must be an int, got float"):
            V.check_key_options(True, 7.0, 10)
        with self.assertRaisesRegex(ValueError, "max_seqlen_k must be non-negative, got -1"):
            V.check_key_options(True, -1, 10)
        with self.assertRaisesRegex(ValueError, "max_seqlen_k = 0 but there are 10 keys"):
            V.check_key_options(True, 0, 10)

    def test_sizes(self):
        V.check_sizes(14, 3, 5, keys=True)
        V.check_sizes(0, 3, 0, keys=True)
        with self.assertRaisesRegex(ValueError, "offsets_k has no sequence .B = 0. but there "
                                                "are 14 keys"):
            V.check_sizes(14, 0, 5, keys=True)
        with self.assertRaisesRegex(ValueError, "max_seqlen_k = 4 is too small: B \\* "
                                                "max_seqlen_k = 12 < T_k = 14 keys"):
            V.check_sizes(14, 3, 4, keys=True)


class Window(unittest.TestCase):
    def test_good(self):
        self.assertEqual(V.check_window(None, False), (-1, -1))
        self.assertEqual(V.check_window((128, 0), True), (128, 0))
        self.assertEqual(V.check_window([-1, 0], False), (-1, 0))
        self.assertEqual(V.check_window((0, 0), False), (0, 0))
        self.assertEqual(V.check_window((300, 5), False), (300, 5))
        self.assertEqual(V.check_window((100, -1), True), (100, -1))
        self.assertEqual(V.check_window((2**31 - 1, 0), False), (2**31 - 1, 0))

    def test_bad(self):
        for bad, exc, needle in (
                (128, TypeError, "window must be None or a (left, right) pair of ints"),
                ("ab", TypeError, "window must be None or a (left, right) pair"),
                ((1, 2, 3), ValueError, "window must be a (left, right) pair, got 3 values"),
                ((1,), ValueError, "got 1 values"),
                ((1.0, 2), TypeError, "window[0] (left) must be an int, got float"),
                ((1, True), TypeError, "window[1] (right) must be an int, got bool"),
                ((-2, 0), ValueError, "window[0] (left) must be -1 (unbounded) or >= 0, got -2"),
                ((0, -5), ValueError, "window[1] (right) must be -1 (unbounded) or >= 0, got -5")):
            with self.subTest(window=bad):
                with self.assertRaises(exc) as cm:
                    V.check_window(bad, False)
                self.assertIn(needle, str(cm.exception))
        with self.assertRaises(ValueError) as cm:
            V.check_window((10, 5), True)
        self.assertEqual(str(cm.exception),
                         "causal=True and window=(10, 5) conflict: causal already means a right "
                         "bound of 0 (no key after the diagonal); pass window=(10, 0) or (10, -1) "
                         "with causal=True, or window=(10, 5) with causal=False")

    def test_huge_bounds_clamp(self):
        # Past every sequence a bound masks nothing: clamped to 2^31 - 1, it
        # fits the runtime's field and the op's int (2**70 raised
        # struct.error in the packing before).
        self.assertEqual(V.check_window((2**70, 2**40), False), (2**31 - 1, 2**31 - 1))
        self.assertEqual(V.check_window((5, 2**31), False), (5, 2**31 - 1))


class BlockMaskSize(unittest.TestCase):
    def test_words_fit_int32(self):
        V.check_block_mask_size(16, 8192, 8192)  # 1M tokens, 16 heads: 2^25 words
        with self.assertRaisesRegex(ValueError, "block_mask: its 2147483648 words of bits"):
            V.check_block_mask_size(2**16, 2**10, 2**10)


class Activation(unittest.TestCase):
    def test_good(self):
        for name in ("softmax", "silu", "gelu_tanh"):
            self.assertEqual(V.check_activation(name), name)
        self.assertEqual(V.GDPA_ACTIVATIONS, ("silu", "gelu_tanh"))

    def test_bad(self):
        for bad in ("relu", "gelu", "SILU", "", "softmax "):
            with self.subTest(activation=bad):
                with self.assertRaises(ValueError) as cm:
                    V.check_activation(bad)
                self.assertEqual(str(cm.exception),
                                 f"activation={bad!r} is not supported: 'softmax' (the "
                                 f"default), or GDPA's 'silu' or 'gelu_tanh'")
        for bad in (None, 2, b"silu"):
            with self.subTest(activation=bad):
                with self.assertRaisesRegex(TypeError, "activation must be a str .'softmax', "
                                                       "'silu' or 'gelu_tanh'., got " +
                                            type(bad).__name__):
                    V.check_activation(bad)

    def test_runtime_names(self):
        # The names the C struct carries (NULL for softmax: a zero-initialized
        # struct's value).
        self.assertEqual(_lib.ACTIVATION_ADDRESS["softmax"], 0)
        for name in ("silu", "gelu_tanh"):
            self.assertEqual(ctypes.string_at(_lib.ACTIVATION_ADDRESS[name]), name.encode())
        self.assertEqual(sorted(_lib.ACTIVATION_ADDRESS), sorted(V.ACTIVATIONS))


# A stand-in for torch: enough of it for jagged_attention's checks, so that
# the call's wiring of the options (which check, in which order, before any
# kernel) is tested without torch. The custom ops cannot register with it
# (no torch.library): jagged_attention must not need them before it raises.
# A call that passes every check reaches the offsets' host copy (tolist),
# which raises AssertionError here.
FAKE_TORCH_MODULE = r"""
import sys, types
torch = types.ModuleType("torch")
torch.__version__ = "0.fake"
class dtype:
    def __init__(self, name): self.name = name
    def __repr__(self): return "torch." + self.name
torch.bfloat16, torch.int32, torch.float32 = dtype("bfloat16"), dtype("int32"), dtype("float32")
torch.int64, torch.bool = dtype("int64"), dtype("bool")
class device:
    def __init__(self, type): self.type = type
    def __eq__(self, other): return self.type == other.type
    def __repr__(self): return self.type
class Tensor:
    def __init__(self, shape, dt, requires_grad=False, dev="cuda", ptr=0x100000):
        self.shape, self.dtype, self.requires_grad = tuple(shape), dt, requires_grad
        self.device, self.ptr = device(dev), ptr
    def stride(self):
        out, n = [], 1
        for d in reversed(self.shape):
            out.append(n); n *= d
        return tuple(reversed(out))
    def data_ptr(self): return self.ptr
    def dim(self): return len(self.shape)
    def element_size(self): return 2 if self.dtype is torch.bfloat16 else 4
    def tolist(self): raise AssertionError("the offsets were read (a host copy)")
torch.Tensor = Tensor
torch.is_grad_enabled = lambda: True
torch.compiler = types.SimpleNamespace(is_compiling=lambda: False)
torch.cuda = types.SimpleNamespace(is_current_stream_capturing=lambda: False)
sys.modules["torch"] = torch
import jfa
T, bf, i32 = Tensor, torch.bfloat16, torch.int32
"""

FAKE_TORCH = FAKE_TORCH_MODULE + r"""
def attempt(name, **kw):
    q = T((10, 8, 64), bf, kw.pop("grad", False), ptr=0x100000)
    k = T(kw.pop("k_shape", (10, 8, 64)), bf, ptr=0x200000)
    v = T(k.shape, bf, ptr=0x300000)
    offs = T((3,), i32, ptr=0x400000)
    try:
        jfa.jagged_attention(q, k, v, offs, 8, **kw)
    except Exception as e:
        print(name, type(e).__name__, str(e).replace("\n", " "), sep="|")
    else:
        print(name, "no error", sep="|")

attempt("block_mask", block_mask=object())
attempt("block_mask heads", block_mask=(T((3, 1), i32), T((3, 1, 2), i32)))
attempt("block_mask q blocks", block_mask=(T((1, 4), i32), T((1, 4, 2), i32)))
attempt("block_mask dtype", block_mask=(T((1, 1), torch.float32), T((1, 1, 2), i32)))
attempt("block_mask batch", block_mask=(T((2, 1, 1), i32), T((2, 1, 1, 2), i32)))
attempt("block_mask device", block_mask=(T((1, 1), i32, dev="cpu"), T((1, 1, 2), i32)))
attempt("block_mask bool dtype", block_mask=T((1, 1, 1), i32))
attempt("block_mask bool shape", block_mask=T((8, 1, 3), torch.bool))
class FlexMask:
    kv_num_blocks, kv_indices, BLOCK_SIZE = T((1, 1, 1), i32), T((1, 1, 1, 1), i32), (64, 64)
attempt("block_mask block size", block_mask=FlexMask())
attempt("activation", activation="gelu_tanh")
attempt("activation grad", activation="silu", grad=True)
attempt("activation all options grad", activation="silu", window=(4, 0), causal=True,
        k_shape=(12, 2, 64), offsets_k=T((3,), i32, ptr=0x500000), max_seqlen_k=12, grad=True)
attempt("activation relu", activation="relu")
attempt("activation type", activation=3)
attempt("activation with lse", activation="gelu_tanh", lse=T((8, 10), torch.float32,
                                                             ptr=0x600000))
attempt("window grad", window=(128, 0), causal=True, grad=True)
attempt("all options grad", window=(4, 0), causal=True, k_shape=(12, 2, 64),
        offsets_k=T((3,), i32, ptr=0x500000), max_seqlen_k=12, grad=True)
attempt("window nograd", window=(128, 5), causal=True)
attempt("window type", window=5)
attempt("gqa grad", k_shape=(10, 2, 64), grad=True)
attempt("gqa shape", k_shape=(10, 3, 64))
attempt("cross grad", k_shape=(12, 8, 64), offsets_k=T((3,), i32, ptr=0x500000),
        max_seqlen_k=12, grad=True)
attempt("cross no max", k_shape=(12, 8, 64), offsets_k=T((3,), i32, ptr=0x500000))
attempt("cross max only", max_seqlen_k=12)
attempt("cross offsets_k dtype", k_shape=(12, 8, 64),
        offsets_k=T((3,), torch.float32, ptr=0x500000), max_seqlen_k=12)
attempt("cross offsets_k device", k_shape=(12, 8, 64),
        offsets_k=T((3,), i32, dev="cpu", ptr=0x500000), max_seqlen_k=12)
attempt("cross max too small", k_shape=(12, 8, 64), offsets_k=T((3,), i32, ptr=0x500000),
        max_seqlen_k=5)
attempt("self k tokens", k_shape=(12, 8, 64))
attempt("lse over offsets_k", k_shape=(12, 8, 64), offsets_k=T((3,), i32, ptr=0x500000),
        max_seqlen_k=12, lse=T((8, 10), torch.float32, ptr=0x500000), check_offsets=False)
"""


class OptionsThroughTheCall(unittest.TestCase):
    """jfa.jagged_attention's own order with issue 20's options: each wrong
    or unsupported option raises before anything is launched or copied."""

    def test_errors(self):
        env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "python"))
        out = subprocess.run([sys.executable, "-c", FAKE_TORCH], env=env, capture_output=True,
                             text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        got = dict(line.split("|", 1) for line in out.stdout.splitlines())
        want = {
            "block_mask": "TypeError|block_mask must be a FlexAttention BlockMask, a "
                          "(kv_num_blocks, kv_indices) pair of int32 tensors or a bool tensor "
                          "[Hm, QB, KB], got object",
            "block_mask heads": "ValueError|block_mask: kv_num_blocks has 3 heads; it must have "
                                "1 (one mask for every head) or num_heads = 8 (one per q head)",
            "block_mask q blocks": "ValueError|block_mask: kv_num_blocks must be [Hm, QB] = "
                                   "[1, 1] and kv_indices [Hm, QB, C] (QB = ceil(T / 128) query "
                                   "blocks), got [1, 4] and [1, 4, 2]",
            "block_mask dtype": "TypeError|block_mask: kv_num_blocks must be int32 (or int64), "
                                "got torch.float32",
            "block_mask batch": "ValueError|block_mask: kv_num_blocks has batch size 2; jagged "
                                "sequences are packed into one (batch 1 over the T packed "
                                "tokens)",
            "block_mask device": "ValueError|block_mask: kv_num_blocks must be on q's device "
                                 "cuda, got cpu",
            "block_mask bool dtype": "TypeError|block_mask: a tensor block mask must be bool "
                                     "[Hm, QB, KB] (True: listed), got torch.int32",
            "block_mask bool shape": "ValueError|block_mask: the bool mask must be [Hm, QB, KB] "
                                     "= [Hm, 1, 1] (blocks of 128 of the T = 10 queries and T_k "
                                     "= 10 keys), got [8, 1, 3]",
            "block_mask block size": "ValueError|block_mask: the BlockMask's BLOCK_SIZE is (64, "
                                     "64); the kernels' blocks are (128, 128) "
                                     "(create_block_mask(..., BLOCK_SIZE=128))",
            # GDPA: every check passes, up to the offsets' host copy.
            "activation": "AssertionError|the offsets were read",
            "activation grad": "AssertionError|the offsets were read",
            "activation all options grad": "AssertionError|the offsets were read",
            "activation relu": "ValueError|activation='relu' is not supported: 'softmax' (the "
                               "default), or GDPA's 'silu' or 'gelu_tanh'",
            "activation type": "TypeError|activation must be a str ('softmax', 'silu' or "
                               "'gelu_tanh'), got int",
            "activation with lse": "ValueError|lse must be None with activation='gelu_tanh': "
                                   "a GDPA activation has no log-sum-exp",
            # Gradients with the options: every check passes (the backward
            # takes them), up to the offsets' host copy.
            "window grad": "AssertionError|the offsets were read",
            "all options grad": "AssertionError|the offsets were read",
            "window nograd": "ValueError|causal=True and window=(128, 5) conflict",
            "window type": "TypeError|window must be None or a (left, right) pair",
            "gqa grad": "AssertionError|the offsets were read",
            "gqa shape": "ValueError|q's H = 8 heads (q.shape[1]) must be a multiple of k's "
                         "and v's H_kv = 3 heads",
            "cross grad": "AssertionError|the offsets were read",
            "cross no max": "ValueError|max_seqlen_k is required with offsets_k",
            "cross max only": "ValueError|max_seqlen_k = 12 is given but offsets_k is not",
            "cross offsets_k dtype": "TypeError|offsets_k must be torch.int32, got "
                                     "torch.float32",
            "cross offsets_k device": "ValueError|offsets_k must be on q's device cuda, got cpu",
            "cross max too small": "ValueError|max_seqlen_k = 5 is too small: B * "
                                   "max_seqlen_k = 10 < T_k = 12 keys",
            "self k tokens": "ValueError|k and v must have q's T = 10 tokens (k.shape[0]) for "
                             "self-attention, got 12",
            "lse over offsets_k": "ValueError|lse overlaps the input offsets_k in memory",
        }
        self.assertEqual(sorted(got), sorted(want))
        for name, start in want.items():
            with self.subTest(case=name):
                self.assertTrue(got[name].startswith(start), got[name])


FAKE_TORCH_BACKWARD = FAKE_TORCH_MODULE + r"""
torch.cuda.current_device = lambda: 0
torch.cuda.get_device_capability = lambda device: (9, 0)
device.index = None
f32 = torch.float32
OFFSETS_K = 0x500000

def attempt(name, **kw):
    q = T((10, 8, 64), bf, ptr=0x100000)
    k = T(kw.pop("k_shape", (10, 8, 64)), bf, ptr=0x200000)
    v = T(k.shape, bf, ptr=0x300000)
    offs = T((3,), i32, ptr=0x400000)
    do = T(q.shape, bf, ptr=0x600000)
    o = T(q.shape, bf, ptr=0x700000)
    lse = kw.pop("lse", T((8, 10), f32, ptr=0x800000))
    try:
        jfa.attention_backward(do, q, k, v, o, lse, offs, 8, **kw)
    except Exception as e:
        print(name, type(e).__name__, str(e).replace("\n", " "), sep="|")
    else:
        print(name, "no error", sep="|")

def cross(**kw):
    return dict(dict(k_shape=(12, 2, 64), offsets_k=T((3,), i32, ptr=OFFSETS_K),
                     max_seqlen_k=12), **kw)

attempt("plain")
attempt("all options", **cross(window=(4, 0), causal=True))
attempt("gqa window", k_shape=(10, 2, 64), window=(-1, 3))
attempt("given gradients", **cross(dq=T((10, 8, 64), bf, ptr=0x900000),
                                   dk=T((12, 2, 64), bf, ptr=0xa00000),
                                   dv=T((12, 2, 64), bf, ptr=0xb00000)))
attempt("dk shape of q", **cross(dk=T((10, 8, 64), bf, ptr=0xa00000)))
attempt("dq shape of k", **cross(dq=T((12, 2, 64), bf, ptr=0x900000)))
attempt("dv on the cpu", **cross(dv=T((12, 2, 64), bf, dev="cpu", ptr=0xb00000)))
attempt("dk over offsets_k", **cross(dk=T((12, 2, 64), bf, ptr=OFFSETS_K)))
attempt("gqa shape", k_shape=(10, 3, 64))
attempt("self k tokens", k_shape=(12, 8, 64))
attempt("cross no max", **cross(max_seqlen_k=None))
attempt("cross max only", max_seqlen_k=12)
attempt("cross max too small", **cross(max_seqlen_k=5))
attempt("offsets_k dtype", **cross(offsets_k=T((3,), f32, ptr=OFFSETS_K)))
attempt("offsets_k device", **cross(offsets_k=T((3,), i32, dev="cpu", ptr=OFFSETS_K)))
attempt("offsets_k shape", **cross(offsets_k=T((4,), i32, ptr=OFFSETS_K)))
attempt("window causal", **cross(window=(4, 3), causal=True))
attempt("window left", **cross(window=(-2, 0)))
attempt("window type", window=5)
attempt("lse over keys", **cross(lse=T((8, 12), f32, ptr=0x800000)))
attempt("gdpa without lse", activation="silu", lse=None)
attempt("gdpa, all options", **cross(window=(4, 0), causal=True, activation="gelu_tanh",
                                     lse=None))
attempt("gdpa with lse", activation="silu")
attempt("softmax without lse", lse=None)
attempt("activation relu", activation="relu", lse=None)
attempt("activation type", activation=None)
"""


class BackwardOptionsThroughTheCall(unittest.TestCase):
    """jfa.attention_backward takes the forward's options (window,
    offsets_k, max_seqlen_k; k and v of H_kv heads): dk and dv have k's
    shape, and each wrong option raises, naming it, before anything is
    launched or copied (a good call gets to the offsets' host copy)."""

    def test_errors(self):
        env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "python"))
        out = subprocess.run([sys.executable, "-c", FAKE_TORCH_BACKWARD], env=env,
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        got = dict(line.split("|", 1) for line in out.stdout.splitlines())
        passes = "AssertionError|the offsets were read"
        want = {
            "plain": passes,
            "all options": passes,
            "gqa window": passes,
            "given gradients": passes,
            "dk shape of q": "ValueError|dk must have the shape of k [12, 2, 64], got "
                             "[10, 8, 64]",
            "dq shape of k": "ValueError|dq must have the shape of q [10, 8, 64], got "
                             "[12, 2, 64]",
            "dv on the cpu": "ValueError|dv must be on q's device cuda, got cpu",
            "dk over offsets_k": "ValueError|dk overlaps the input offsets_k in memory",
            "gqa shape": "ValueError|q's H = 8 heads (q.shape[1]) must be a multiple of k's "
                         "and v's H_kv = 3 heads",
            "self k tokens": "ValueError|k and v must have q's T = 10 tokens (k.shape[0]) for "
                             "self-attention, got 12",
            "cross no max": "ValueError|max_seqlen_k is required with offsets_k",
            "cross max only": "ValueError|max_seqlen_k = 12 is given but offsets_k is not",
            "cross max too small": "ValueError|max_seqlen_k = 5 is too small: B * "
                                   "max_seqlen_k = 10 < T_k = 12 keys",
            "offsets_k dtype": "TypeError|offsets_k must be torch.int32, got torch.float32",
            "offsets_k device": "ValueError|offsets_k must be on q's device cuda, got cpu",
            "offsets_k shape": "ValueError|offsets_k must have the shape of offsets [3]",
            "window causal": "ValueError|causal=True and window=(4, 3) conflict",
            "window left": "ValueError|window[0] (left) must be -1 (unbounded) or >= 0, got -2",
            "window type": "TypeError|window must be None or a (left, right) pair",
            "lse over keys": "ValueError|lse must be [H, T] = [8, 10]",
            "gdpa without lse": passes,
            "gdpa, all options": passes,
            "gdpa with lse": "ValueError|lse must be None with activation='silu': a GDPA "
                             "activation has no log-sum-exp",
            "softmax without lse": "TypeError|lse must be a torch.Tensor (jagged_attention's "
                                   "lse, f32 [H, T]), got None; lse=None goes with a GDPA "
                                   "activation only",
            "activation relu": "ValueError|activation='relu' is not supported",
            "activation type": "TypeError|activation must be a str",
        }
        self.assertEqual(sorted(got), sorted(want))
        for name, start in want.items():
            with self.subTest(case=name):
                self.assertTrue(got[name].startswith(start), got[name])


# The GDPA activation's wiring, with a stand-in torch that also allocates
# (torch.empty, new_empty), runs autograd.Function.apply's forward and defines
# custom ops (torch.library.custom_op records them): the runtime's struct is
# captured where _lib would call the library, so what each layer hands the
# next is checked without a GPU. Each line: name|what was seen.
FAKE_TORCH_GDPA = FAKE_TORCH_MODULE + r"""
import ctypes, inspect
from jfa import _api, _backward, _block_mask, _forward, _lib, _ops
f32 = torch.float32
torch.uint8 = dtype("uint8")
def new_empty(self, shape, dtype=None):
    return Tensor(shape, dtype or self.dtype, dev=self.device.type, ptr=0x7000000)
Tensor.new_empty = new_empty
Tensor.contiguous = lambda self: self
Tensor.is_contiguous = lambda self: True
Tensor.get_device = lambda self: 0
Tensor.copy_ = lambda self, other: self
torch.empty = lambda shape, dtype=None, device=None: Tensor(
    (shape,) if isinstance(shape, int) else shape, dtype,
    dev=device.type if device is not None else "cuda", ptr=0x7000000)
torch._C = types.SimpleNamespace(_cuda_getCurrentRawStream=lambda device: 0)
torch.cuda.current_device = lambda: 0
torch.cuda.get_device_capability = lambda device: (9, 0)
device.index = None

class Function:
    @classmethod
    def apply(cls, *args):
        ctx = types.SimpleNamespace(mark_non_differentiable=lambda *t: None)
        ctx.save_for_backward = lambda *t: setattr(ctx, "saved_tensors", t)
        out = cls.forward(ctx, *args)
        Function.last = (cls, ctx)
        return out
torch.autograd = types.SimpleNamespace(
    Function=Function, function=types.SimpleNamespace(once_differentiable=lambda f: f))

ops = {}
class Op:
    def __init__(self, fn): self.fn = fn
    def __call__(self, *a): return self.fn(*a)
    def register_fake(self, f): self.fake = f; return f
    def register_autograd(self, backward, setup_context):
        self.backward, self.setup_context = backward, setup_context
def custom_op(name, mutates_args):
    def wrap(fn):
        ops[name] = Op(fn)
        return ops[name]
    return wrap
torch.library = types.SimpleNamespace(custom_op=custom_op)

seen = {}
def forward_call(device, args, stream):
    seen["fwd"] = (args.lse, args.activation, args.total_tokens, args.block_mask_bits,
                   args.block_mask_heads)
def backward_call(device, args, stream):
    seen["bwd"] = (args.lse, args.activation, args.num_kv_heads, args.use_window,
                   args.block_mask_bits, args.block_mask_heads, args.workspace,
                   args.workspace_bytes)
_lib.forward = forward_call
_lib.backward = backward_call
_lib.backward_workspace_size = lambda args: 4096
_backward._require_kernels = lambda arch: None

q = T((10, 8, 64), bf, ptr=0x100000)
k = T((12, 2, 64), bf, ptr=0x200000)
v = T((12, 2, 64), bf, ptr=0x300000)
offs = T((3,), i32, ptr=0x400000)
offs_k = T((3,), i32, ptr=0x500000)
opts = dict(offsets_k=offs_k, max_seqlen_k=12, window=(4, 0), causal=True,
            check_offsets=False)

def report(name, what):
    print(name, what, sep="|")

def shape(t):
    return None if t is None else list(t.shape)

for act in ("softmax", "silu", "gelu_tanh"):
    # No grad: the plain path (run_kernel straight to the runtime).
    q.requires_grad = False
    o, lse = jfa.jagged_attention(q, k, v, offs, 8, activation=act, **opts)
    report(f"forward {act}", f"o {shape(o)} lse {shape(lse)} runtime lse "
           f"{'set' if seen['fwd'][0] else 'NULL'} activation {seen['fwd'][1]}")
    # Gradients: eager autograd (torch.autograd.Function) with the option.
    q.requires_grad = True
    seen.clear()
    o, lse = jfa.jagged_attention(q, k, v, offs, 8, activation=act, **opts)
    cls, ctx = Function.last
    saved_lse = ctx.saved_tensors[5]
    report(f"autograd {act}", f"o {shape(o)} lse {shape(lse)} saved lse {shape(saved_lse)} "
           f"runtime lse {'set' if seen['fwd'][0] else 'NULL'} activation {seen['fwd'][1]}")
    grads = cls.backward(ctx, T(q.shape, bf, ptr=0x900000), None)
    n_inputs = len(inspect.signature(cls.forward).parameters) - 1
    report(f"autograd backward {act}",
           f"{len(grads)} grads for {n_inputs} inputs, dq {shape(grads[0])} dk "
           f"{shape(grads[1])}; runtime lse {'set' if seen['bwd'][0] else 'NULL'} "
           f"activation {seen['bwd'][1]} kv heads {seen['bwd'][2]} window {seen['bwd'][3]}; "
           f"workspace {'set' if seen['bwd'][6] else 'NULL'} of {seen['bwd'][7]} bytes")
q.requires_grad = False

# A block-sparse mask (built: _block_mask.Bits, which the builder passes on)
# reaches the runtime's struct on the plain path and through autograd.
bits = _block_mask.Bits(T((8, 1, 1), i32, ptr=0xa00000), 8)
jfa.jagged_attention(q, k, v, offs, 8, block_mask=bits, **opts)
report("block forward", f"bits {seen['fwd'][3]:#x} heads {seen['fwd'][4]}")
q.requires_grad = True
jfa.jagged_attention(q, k, v, offs, 8, block_mask=bits, **opts)
cls, ctx = Function.last
cls.backward(ctx, T(q.shape, bf, ptr=0x900000), None)
report("block autograd", f"forward bits {seen['fwd'][3]:#x} heads {seen['fwd'][4]}; "
       f"backward bits {seen['bwd'][4]:#x} heads {seen['bwd'][5]}")
q.requires_grad = False

# The custom ops (torch.compile's path): the schema takes activation; the fake
# implementation's lse is [0] under GDPA; the autograd formula hands the
# backward op the activation and returns a gradient slot per input.
_ops._define(torch)
fwd, bwd = ops["jfa::jagged_attention"], ops["jfa::jagged_attention_backward"]
report("op parameters", " ".join(inspect.signature(fwd.fn).parameters))
report("backward op parameters", " ".join(inspect.signature(bwd.fn).parameters))
for act in ("softmax", "silu"):
    block = (T((8, 1, 1), i32, ptr=0xb00000), 8) if act == "silu" else (None, 0)
    args = (q, k, v, offs, 8, True, 0.125, offs_k, 12, 4, 0, act) + block
    o, lse = fwd.fake(*args)
    report(f"op fake {act}", f"o {shape(o)} lse {shape(lse)} {lse.dtype}")
    o, lse = fwd(*args)
    report(f"op {act}", f"o {shape(o)} lse {shape(lse)} runtime activation "
           f"{seen['fwd'][1]}")
    ctx = types.SimpleNamespace(mark_non_differentiable=lambda *t: None)
    ctx.save_for_backward = lambda *t: setattr(ctx, "saved_tensors", t)
    fwd.setup_context(ctx, args, (o, lse))
    got = {}
    def backward_op(*a):
        got["args"] = a
        return bwd(*a)
    torch.ops = types.SimpleNamespace(jfa=types.SimpleNamespace(
        jagged_attention_backward=backward_op))
    grads = fwd.backward(ctx, T(q.shape, bf, ptr=0x900000), None)
    dq, dk, dv = bwd.fake(*got["args"])
    report(f"op backward {act}", f"{len(grads)} grads for {len(args)} inputs, activation "
           f"{got['args'][-3]}, runtime lse {'set' if seen['bwd'][0] else 'NULL'} "
           f"activation {seen['bwd'][1]}; fake dq {shape(dq)} dk {shape(dk)}; block bits "
           f"{seen['fwd'][3]:#x}/{seen['bwd'][4]:#x} heads {seen['fwd'][4]}/{seen['bwd'][5]}")
"""


class GdpaWiring(unittest.TestCase):
    """activation reaches the runtime's struct through every path (the plain
    call, eager autograd, the custom ops and their fake implementations); no
    lse under GDPA: jagged_attention returns None, the autograd formula and
    attention_backward pass NULL to the runtime."""

    def test_wiring(self):
        env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "python"))
        out = subprocess.run([sys.executable, "-c", FAKE_TORCH_GDPA], env=env,
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        got = dict(line.split("|", 1) for line in out.stdout.splitlines())
        want = {}
        for act in ("softmax", "silu", "gelu_tanh"):
            gdpa = act != "softmax"
            lse = "None" if gdpa else "[8, 10]"
            runtime_lse = "NULL" if gdpa else "set"
            name = "None" if not gdpa else f"b'{act}'"
            want[f"forward {act}"] = (f"o [10, 8, 64] lse {lse} runtime lse {runtime_lse} "
                                      f"activation {name}")
            want[f"autograd {act}"] = (f"o [10, 8, 64] lse {lse} saved lse "
                                       f"{'[0]' if gdpa else '[8, 10]'} runtime lse "
                                       f"{runtime_lse} activation {name}")
            want[f"autograd backward {act}"] = (
                f"14 grads for 14 inputs, dq [10, 8, 64] dk [12, 2, 64]; runtime lse "
                f"{runtime_lse} activation {name} kv heads 2 window 1; workspace set of "
                f"4096 bytes")
        want["op parameters"] = ("q k v offsets max_seqlen causal softmax_scale offsets_k "
                                 "max_seqlen_k window_left window_right activation block_bits "
                                 "block_mask_heads")
        want["backward op parameters"] = (
            "grad_out q k v o lse offsets max_seqlen causal softmax_scale offsets_k "
            "max_seqlen_k window_left window_right activation block_bits block_mask_heads")
        want["block forward"] = "bits 0xa00000 heads 8"
        want["block autograd"] = ("forward bits 0xa00000 heads 8; backward bits 0xa00000 "
                                  "heads 8")
        for act, lse, name, runtime_lse in (("softmax", "[8, 10]", "None", "set"),
                                            ("silu", "[0]", "b'silu'", "NULL")):
            want[f"op fake {act}"] = f"o [10, 8, 64] lse {lse} torch.float32"
            want[f"op {act}"] = f"o [10, 8, 64] lse {lse} runtime activation {name}"
            block = "0xb00000/0xb00000 heads 8/8" if act == "silu" else "0x0/0x0 heads 0/0"
            want[f"op backward {act}"] = (f"14 grads for 14 inputs, activation {act}, runtime "
                                          f"lse {runtime_lse} activation {name}; fake dq "
                                          f"[10, 8, 64] dk [12, 2, 64]; block bits {block}")
        self.assertEqual(got, want)


def runtime_library():
    """libjfart.so with the attention API ($JFA_LIBRARY or the build's), or None."""
    try:
        lib = ctypes.CDLL(_lib.library_path())
    except OSError:
        return None
    return lib if hasattr(lib, "jfa_attention_forward") else None


# ctest sets JFA_REQUIRE_LIBRARY (and JFA_LIBRARY to the build's libjfart.so):
# there, a missing library fails these tests instead of skipping them.
REQUIRE_LIBRARY = bool(os.environ.get("JFA_REQUIRE_LIBRARY"))


@unittest.skipUnless(REQUIRE_LIBRARY or runtime_library(), "no libjfart.so (the offsets "
                     "check is the runtime's: build jfart_shared, or set JFA_LIBRARY)")
class Offsets(unittest.TestCase):
    """The package checks offsets with the runtime's check (jfa_check_offsets),
    the one the C API's check_offsets runs: ValueError naming the entry."""

    def test_good(self):
        for offsets, t, max_seqlen in (([0, 5, 5, 14], 14, 9), ([0], 0, 0), ([0, 0, 0], 0, 0),
                                       ([0, 16500], 16500, 20000)):
            _lib.check_offsets(offsets, t, max_seqlen)

    def bad(self, offsets, t, max_seqlen, *needles):
        with self.assertRaises(ValueError) as cm:
            _lib.check_offsets(offsets, t, max_seqlen)
        for n in needles:
            self.assertIn(n, str(cm.exception))

    def test_bad(self):
        self.bad([1, 6, 15], 14, 9, "offsets[0] must be 0, got 1")
        self.bad([0, 6, 3, 14], 14, 11, "non-decreasing", "offsets[2] = 3", "offsets[1] = 6")
        self.bad([0, 5, 5, 13], 14, 9, "offsets[3]", "T = 14")
        self.bad([0, 5, 5, 15], 14, 10, "T = 14")
        self.bad([0, 5, 5, 14], 14, 8, "max_seqlen = 8", "sequence 2", "has 9 tokens")
        self.bad([], 0, 0, "at least one")

    def test_keys(self):
        _lib.check_offsets([0, 0, 7, 7], 7, 7, keys=True)
        for offsets, t, m, needle in (
                ([1, 6, 15], 14, 9, "offsets_k[0] must be 0, got 1"),
                ([0, 5, 5, 13], 14, 9, "offsets_k[3] (offsets_k[batch]) must equal "
                                       "total_tokens_k T_k = 14, got 13"),
                ([0, 5, 5, 14], 14, 8, "sequence 2 (offsets_k[3] - offsets_k[2]) has 9 keys, "
                                       "more than max_seqlen_k = 8")):
            with self.assertRaises(ValueError) as cm:
                _lib.check_offsets(offsets, t, m, keys=True)
            self.assertEqual(str(cm.exception), needle)


class Sizes(unittest.TestCase):
    def test_sizes(self):
        V.check_sizes(0, 0, 0)
        V.check_sizes(14, 3, 5)
        with self.assertRaisesRegex(ValueError, "no sequence"):
            V.check_sizes(14, 0, 5)
        with self.assertRaisesRegex(ValueError, "B \\* max_seqlen = 12 < T = 14"):
            V.check_sizes(14, 3, 4)


class Scalars(unittest.TestCase):
    def test_max_seqlen(self):
        self.assertEqual(V.check_max_seqlen(7, 10), 7)
        self.assertEqual(V.check_max_seqlen(0, 0), 0)
        for bad, exc in ((7.0, TypeError), ("7", TypeError), (True, TypeError),
                         (-1, ValueError), (None, TypeError)):
            with self.assertRaises(exc, msg=repr(bad)) as cm:
                V.check_max_seqlen(bad, 10)
            self.assertIn("max_seqlen", str(cm.exception))
        with self.assertRaisesRegex(ValueError, "max_seqlen"):
            V.check_max_seqlen(0, 10)

    def test_softmax_scale(self):
        self.assertAlmostEqual(V.check_softmax_scale(None, 64), 0.125)
        self.assertAlmostEqual(V.check_softmax_scale(None, 128), 128 ** -0.5)
        self.assertAlmostEqual(V.check_softmax_scale(0.3, 128), 0.3)
        for bad in (0.0, -0.5, float("nan"), float("inf")):
            with self.assertRaisesRegex(ValueError, "softmax_scale", msg=repr(bad)):
                V.check_softmax_scale(bad, 64)
        for bad in ("0.3", True, [0.3]):
            with self.assertRaisesRegex(TypeError, "softmax_scale", msg=repr(bad)):
                V.check_softmax_scale(bad, 64)


class BackwardSizes(unittest.TestCase):
    def test_k_tiles(self):
        self.assertEqual(V.backward_k_tiles(0, 0), 1)
        self.assertEqual(V.backward_k_tiles(1, 10), 1)
        self.assertEqual(V.backward_k_tiles(128, 1000), 1)
        self.assertEqual(V.backward_k_tiles(129, 1000), 2)
        self.assertEqual(V.backward_k_tiles(20000, 300), 3)  # bounded by T
        # On a block mask's grid a sequence may span one tile more.
        self.assertEqual(V.backward_k_tiles(128, 1000, block_aligned=True), 2)
        self.assertEqual(V.backward_k_tiles(1, 10, block_aligned=True), 1)
        self.assertEqual(V.backward_k_tiles(20000, 300, block_aligned=True), 4)

    def test_limits(self):
        V.check_backward_sizes(0, 1, 64, 0, 1)
        V.check_backward_sizes((2**31 - 1) // (16 * 128), 16, 128, 1000, 8)
        with self.assertRaisesRegex(ValueError, r"T \* H \* D = .*int32"):
            V.check_backward_sizes(2**17, 128, 128, 1, 1024)
        with self.assertRaisesRegex(ValueError, "work units"):
            V.check_backward_sizes(1000, 1, 64, 2**20, 2**12)

    def test_keys(self):
        """dk and dv span T_k * H_kv * D; the units are B * H_kv * k_tiles
        (k_tiles over the key sequences)."""
        V.check_backward_sizes(1000, 8, 128, 3, 8, total_keys=2**31 // 256 - 1, kv_heads=2)
        with self.assertRaisesRegex(ValueError, r"T_k \* H_kv \* D = 8388608 \* 2 \* 128 = "
                                                r"2147483648 elements \(dk, dv\)"):
            V.check_backward_sizes(1000, 8, 128, 3, 8, total_keys=2**31 // 256, kv_heads=2)
        V.check_backward_sizes(1000, 8, 64, 2**20, 2**10, kv_heads=1)  # 2^30 units
        with self.assertRaisesRegex(ValueError, r"B \* H \* ceil\(max_seqlen / 128\) = "
                                                r"8589934592 work units"):
            V.check_backward_sizes(1000, 8, 64, 2**20, 2**10)
        with self.assertRaisesRegex(ValueError, r"B \* H_kv \* ceil\(max_seqlen_k / 128\) = "
                                                r"2147483648 work units .*tighter max_seqlen_k"):
            V.check_backward_sizes(1000, 8, 64, 2**20, 2**11, total_keys=5, kv_heads=1)


class BackwardSchedule(unittest.TestCase):
    """The backward's work list (jfa._schedule): live pairs only, longest
    sequence first, each sequence's key tiles in order."""

    def test_order(self):
        # Lengths 100, 500, 0, 129 with 4 key tiles: pairs are b * 4 + kt.
        got = S.schedule_list([100, 500, 0, 129], 4)
        self.assertEqual(got[0], 1 + 4 + 0 + 2)
        self.assertEqual(got[1], 0)  # the counter the kernel fetches units from
        self.assertEqual(got[2:9], [4, 5, 6, 7, 12, 13, 0])
        self.assertEqual(sorted(got[2:]), list(range(16)))  # a permutation

    def test_ties_keep_batch_order(self):
        self.assertEqual(S.schedule_list([256, 256], 2), [4, 0, 0, 1, 2, 3])

    def test_edges(self):
        self.assertEqual(S.schedule_list([1], 1), [1, 0, 0])
        self.assertEqual(S.schedule_list([0, 0], 1), [0, 0, 0, 1])
        self.assertEqual(S.schedule_list([128], 2), [1, 0, 0, 1])  # tile 1 empty
        # 192-row tiles (the sm_90a D = 64 forward's q tiles): 385 rows make
        # 3, 192 one, 0 none.
        self.assertEqual(S.schedule_list([192, 385, 0], 3, tile_rows=192),
                         [4, 0, 3, 4, 5, 0, 1, 2, 6, 7, 8])


class ImportGraph(unittest.TestCase):
    """python/jfa's modules import one another without a cycle, counting the
    imports inside functions: each layer only uses those below it."""

    def test_acyclic(self):
        import ast
        pkg = os.path.dirname(jfa.__file__)
        graph = {}
        for name in os.listdir(pkg):
            if not name.endswith(".py") or name == "__init__.py":
                continue
            tree = ast.parse(open(os.path.join(pkg, name)).read())
            deps = set()
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and node.level == 1:
                    if node.module:
                        deps.add(node.module)
                    else:
                        deps.update(a.name for a in node.names)
            graph[name[:-3]] = deps
        state = {}

        def visit(m, path):
            if state.get(m) == "done":
                return
            if state.get(m) == "open":
                self.fail("import cycle: " + " -> ".join(path + [m]))
            state[m] = "open"
            for d in sorted(graph.get(m, ())):
                visit(d, path + [m])
            state[m] = "done"
        for m in sorted(graph):
            visit(m, [])


class BackwardFor(unittest.TestCase):
    """The backward's target per compute capability comes from the target
    description. Which of its kernels a folder holds, the variant a call
    takes and the arguments bound by name are the runtime's
    (test/runtime/AttentionBackwardTest.cpp)."""

    def test_targets(self):
        from jfa import _backward
        self.assertEqual(_backward.backward_for((10, 0)), ("sm_100a", "attention_bwd_sm100"))
        self.assertEqual(_backward.backward_for((9, 0)), ("sm_90a", "attention_bwd_sm90"))
        self.assertIsNone(_backward.backward_for((8, 0)))


class Metadata(unittest.TestCase):
    """jfa._metadata reads what jfac writes and names the file and the field
    of what it refuses (the runtime's reader says the same; RuntimeTest.cpp)."""

    def error(self, text):
        with self.assertRaises(_metadata.MetadataError) as cm:
            _metadata.parse(text, "k.meta")
        return str(cm.exception)

    def test_good(self):
        (k,) = _metadata.parse(metadata_text(params={"head_dim": 64, "causal": True},
                                             variant="d64_causal"))
        self.assertEqual((k["name"], k["threads"], k["arguments"][0]["box"]),
                         ("k", 384, [128, 64]))
        self.assertEqual(k["params"], {"head_dim": 64, "causal": True})

    def test_errors(self):
        cases = [
            ("", "k.meta: the metadata is empty"),
            ("jfa-metadata 1\nkernel k\nend\n", "k.meta: metadata in the old line format"),
            (metadata_text()[:-20], "k.meta: not valid JSON"),
            ("[]", "k.meta: the metadata: expected an object, got array"),
            (metadata_text().replace('"version": 2', '"version": 3'),
             "k.meta: version: metadata version 3 is not supported (this reads version 2)"),
            (metadata_text().replace('"version": 2', '"version": 2.0'),
             "k.meta: version: metadata version 2.0 is not supported"),
            (metadata_text().replace('"jfa-metadata"', '"other"'),
             'k.meta: format: expected "jfa-metadata", got "other"'),
            (metadata_text(threads=None), "k.meta: kernels[0].threads is missing"),
            (metadata_text(threads="384"),
             'k.meta: kernels[0].threads: expected a non-negative integer, got string "384"'),
            (metadata_text(threads=0), "k.meta: kernels[0].threads: must be in [1, 1024], got 0"),
            (metadata_text(cluster=[1, 1]), "kernels[0].cluster: expected 3 dimensions, got 2"),
            (metadata_text(arguments=[{"kind": "q7"}]),
             'k.meta: kernels[0].arguments[0].kind: unknown parameter kind "q7"'),
            (metadata_text(arguments=[{"kind": "tma", "element_type": "bf16", "box": [64]}]),
             "k.meta: kernels[0].arguments[0].swizzle is missing"),
            (metadata_text(arguments=[{"kind": "ptr"}]),
             "k.meta: kernels[0].arguments[0].element_type is missing"),
            (metadata_text(arguments=[{"kind": "tma", "element_type": "bf16", "box": [64, -1],
                                       "swizzle": 0}]),
             "kernels[0].arguments[0].box[1]: expected a non-negative integer, got number -1"),
            (metadata_text(params={"d": [64]}),
             "kernels[0].params.d: expected a number, a boolean or a string, got array"),
        ]
        for text, needle in cases:
            with self.subTest(needle=needle):
                self.assertIn(needle, self.error(text))

    def test_file(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "k.cubin.meta")
            with self.assertRaisesRegex(_metadata.MetadataError, "cannot read metadata"):
                _metadata.read(path)
            with open(path, "w") as f:
                f.write(metadata_text(threads=None))
            with self.assertRaisesRegex(_metadata.MetadataError,
                                        re.escape(f"{path}: kernels[0].threads is missing")):
                _metadata.read(path)


class ArgMatchesHeader(unittest.TestCase):
    """jfa_arg (runtime.h) as the ctypes mirror in _lib lays it out."""
    HEADER = os.path.join(REPO, "runtime", "include", "jfa", "runtime.h")

    @unittest.skipUnless(os.path.isfile(HEADER), "runtime/include/jfa/runtime.h not there")
    def test_kinds(self):
        with open(self.HEADER) as f:
            text = f.read()
        kinds = dict((m.group(1), int(m.group(2)))
                     for m in re.finditer(r"JFA_ARG_([A-Z0-9]+)\s*=\s*(\d+)", text))
        self.assertEqual(kinds, {"TENSOR": _lib.ARG_TENSOR, "PTR": _lib.ARG_PTR,
                                 "I32": _lib.ARG_I32, "I64": _lib.ARG_I64,
                                 "F32": _lib.ARG_F32, "F64": _lib.ARG_F64})

    def test_layout(self):
        # x86-64 / aarch64 LP64: kind (int) then an 8-byte aligned union whose
        # largest member is the tensor struct (5 fields, 40 bytes).
        self.assertEqual(ctypes.sizeof(_lib.ArgTensor), 40)
        self.assertEqual(_lib.ArgTensor.rank.offset, 16)
        self.assertEqual(_lib.ArgTensor.shape.offset, 24)
        self.assertEqual(_lib.Arg.value.offset, 8)
        self.assertEqual(ctypes.sizeof(_lib.Arg), 48)


class Layout(unittest.TestCase):
    def test_inputs(self):
        t, h, d = 100, 4, 64
        self.assertTrue(V.input_layout_ok((t, h, d), (h * d, d, 1), 0x1000))
        # A view of a packed qkv [T, 3, H, D]: token stride 3 * H * D.
        self.assertTrue(V.input_layout_ok((t, h, d), (3 * h * d, d, 1), 0x1000 + 2 * h * d))
        self.assertFalse(V.input_layout_ok((t, h, d), (h * d, d, 1), 0x1002))  # misaligned
        self.assertFalse(V.input_layout_ok((t, h, d), (d, t * d, 1), 0x1000))  # [H, T, D] transposed
        self.assertFalse(V.input_layout_ok((t, h, d), (h * d + 4, d, 1), 0x1000))  # stride % 8
        self.assertFalse(V.input_layout_ok((t, h, d), (h * d * 2, 2 * d, 2), 0x1000))  # dim stride
        # Sizes of 1 make their stride irrelevant.
        self.assertTrue(V.input_layout_ok((1, 1, d), (7, 3, 1), 0x1000))
        self.assertEqual(V.input_strides((1, 1, d), (7, 3, 1)), (d, d, 1))
        self.assertEqual(V.input_strides((t, h, d), (3 * h * d, d, 1)), (3 * h * d, d, 1))

    def test_outputs(self):
        t, h, d = 10, 2, 128
        self.assertEqual(V.check_output_o((t, h, d), (h * d + 64, d, 1), 0x2000, (t, h, d)),
                         (h * d + 64, d, 1))
        with self.assertRaisesRegex(ValueError, "o must have the shape"):
            V.check_output_o((t, h, 64), (h * 64, 64, 1), 0x2000, (t, h, d))
        with self.assertRaisesRegex(ValueError, "o's layout"):
            V.check_output_o((t, h, d), (h * d + 1, d, 1), 0x2000, (t, h, d))
        V.check_output_lse((h, t), (t, 1), (h, t))
        V.check_output_lse((h, 0), (1, 1), (h, 0))  # what torch gives an empty [H, 0]
        self.assertEqual(V.check_output_o((0, h, d), (h * d, d, 1), 0, (0, h, d)), (h * d, d, 1))
        with self.assertRaisesRegex(ValueError, "lse must be contiguous"):
            V.check_output_lse((h, t), (1, h), (h, t))
        with self.assertRaisesRegex(ValueError, "lse must be"):
            V.check_output_lse((t, h), (h, 1), (h, t))


C_TYPES = {"CUdeviceptr": ctypes.c_uint64, "int64_t": ctypes.c_int64, "int": ctypes.c_int,
           "float": ctypes.c_float, "const char *": ctypes.c_char_p, "size_t": ctypes.c_size_t}


def header_fields(path, struct="jfa_attention_forward_args"):
    """(name, ctype, array length) of a struct of the header."""
    with open(path) as f:
        text = f.read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    m = re.search(r"typedef\s+struct\s*\{([^{}]*)\}\s*" + struct + r"\s*;", text, re.S)
    if not m:
        raise AssertionError(f"no {struct} in {path}")
    fields = []
    for decl in m.group(1).split(";"):
        decl = " ".join(decl.split())
        if not decl:
            continue
        dm = re.match(r"(const char \*|[A-Za-z_][A-Za-z0-9_]*)\s*(.*)", decl)
        ctype, names = dm.group(1).strip(), dm.group(2)
        if ctype == "const":
            raise AssertionError(f"unexpected declaration {decl!r}")
        for name in names.split(","):
            name = name.strip().lstrip("*").strip()
            am = re.match(r"([A-Za-z_][A-Za-z0-9_]*)\s*(?:\[(\d+)\])?$", name)
            fields.append((am.group(1), ctype, int(am.group(2)) if am.group(2) else None))
    return fields


class ForwardArgsMatchesHeader(unittest.TestCase):
    HEADER = os.path.join(REPO, "runtime", "include", "jfa", "attention.h")

    @unittest.skipUnless(os.path.isfile(HEADER), "runtime/include/jfa/attention.h not there")
    def test_fields(self):
        self.check("jfa_attention_forward_args", _lib.ForwardArgs)

    @unittest.skipUnless(os.path.isfile(HEADER), "runtime/include/jfa/attention.h not there")
    def test_backward_fields(self):
        self.check("jfa_attention_backward_args", _lib.BackwardArgs)

    def check(self, struct, cls):
        fields = header_fields(self.HEADER, struct)
        ours = cls._fields_
        self.assertEqual([f[0] for f in fields], [f[0] for f in ours])
        for (name, ctype, length), (_, ct) in zip(fields, ours):
            want = C_TYPES[ctype] * length if length else C_TYPES[ctype]
            self.assertEqual(ctypes.sizeof(ct), ctypes.sizeof(want), name)
            if length:
                self.assertEqual(ct._type_, C_TYPES[ctype], name)
                self.assertEqual(ct._length_, length, name)
            else:
                self.assertIs(ct, want, name)


class Lookup(unittest.TestCase):
    def setUp(self):
        self.saved = {k: os.environ.get(k) for k in ("JFA_LIBRARY", "JFA_KERNEL_DIR")}
        self.saved_lib, self.saved_handle = _lib._lib, _lib._handle

    def tearDown(self):
        for k, v in self.saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        _lib._lib, _lib._handle = self.saved_lib, self.saved_handle

    def test_env(self):
        with tempfile.TemporaryDirectory() as d:
            lib = os.path.join(d, "libjfart.so")
            open(lib, "w").close()
            os.environ["JFA_LIBRARY"] = lib
            self.assertEqual(jfa.library_path(), lib)
            os.environ["JFA_LIBRARY"] = os.path.join(d, "missing.so")
            with self.assertRaisesRegex(OSError, "JFA_LIBRARY"):
                jfa.library_path()
            os.environ["JFA_KERNEL_DIR"] = d
            self.assertEqual(jfa.kernel_dir(), d)
            os.environ["JFA_KERNEL_DIR"] = os.path.join(d, "missing")
            with self.assertRaisesRegex(OSError, "JFA_KERNEL_DIR"):
                jfa.kernel_dir()

    def test_package_layout(self):
        """A package folder <d>/python/jfa, <d>/lib/libjfart.so, <d>/kernels/*.cubin."""
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "lib"))
            os.makedirs(os.path.join(d, "kernels"))
            os.makedirs(os.path.join(d, "python"))
            open(os.path.join(d, "lib", "libjfart.so"), "w").close()
            import shutil
            shutil.copytree(os.path.join(REPO, "python", "jfa"), os.path.join(d, "python", "jfa"),
                            ignore=shutil.ignore_patterns("__pycache__"))
            code = "import jfa; print(jfa.library_path()); print(jfa.kernel_dir())"
            env = {k: v for k, v in os.environ.items() if not k.startswith("JFA_")}
            env["PYTHONPATH"] = os.path.join(d, "python")
            run = lambda: subprocess.run([sys.executable, "-c", code], env=env,  # noqa: E731
                                         capture_output=True, text=True, timeout=60)
            out = run()
            self.assertEqual(out.returncode, 0, out.stderr)
            real = os.path.realpath(d)
            lines = [os.path.realpath(x) if x != "None" else x for x in out.stdout.split()]
            self.assertEqual(lines, [os.path.join(real, "lib", "libjfart.so"), "None"])
            open(os.path.join(d, "kernels", "attention_fwd_sm90_sm_90a.cubin"), "w").close()
            out = run()
            self.assertEqual(os.path.realpath(out.stdout.split()[1]),
                             os.path.join(real, "kernels"))




@unittest.skipUnless(REQUIRE_LIBRARY or runtime_library(), "no libjfart.so with the "
                     "attention API (build jfart_shared, or set JFA_LIBRARY)")
class RuntimeChecksThroughCtypes(unittest.TestCase):
    """The runtime checks the arguments before it touches the driver, so with
    no GPU each bad field comes back with a message naming it: this proves
    that the ctypes structure puts every field where the C code reads it."""

    @classmethod
    def setUpClass(cls):
        if runtime_library() is None:
            try:
                where = _lib.library_path()
            except OSError as e:
                where = str(e)
            raise AssertionError(f"JFA_REQUIRE_LIBRARY is set but there is no libjfart.so with "
                                 f"the attention API to load ({where})")

    def test_backward_args_reach_the_runtime(self):
        """The packed backward arguments land where the C code reads them:
        the workspace size of test/runtime/AttentionBackwardTest.cpp's
        arguments (T = 1000, H = 4, D = 128, B = 3, max_seqlen = 500), and a
        field error named by the runtime."""
        s = (512, 128, 1)
        fields = [0x1000000 + i * 0x100000 for i in range(5)] + list(s) * 5
        fields += [0x1500000, 0x1600000, 0x1700000, 0x1800000, 0x1900000] + list(s) * 3
        tail = [_lib.BF16_ADDRESS, _lib.I32_ADDRESS, 1000, 4, 128, 3, 500, 0, 0.0, 0]
        plain = [0] * 10  # issue 20's options, off (activation NULL: softmax; no block mask)
        args = _lib.packed_backward_args(*fields, 0x2000000, 16 << 20, *tail, *plain)
        self.assertEqual(_lib.backward_workspace_size(args), 2064384)
        bad = _lib.packed_backward_args(*fields[:5], *list(s) * 4, 512, 128, 2,
                                        *fields[20:], 0x2000000, 16 << 20, *tail, *plain)
        h = ctypes.c_void_p()
        self.assertEqual(_lib.lib().jfa_attention_create(None, ctypes.byref(h)), 0)
        try:
            self.assertEqual(_lib.lib().jfa_attention_backward(h, ctypes.byref(bad), None), -1)
            self.assertEqual(_lib.last_error(), "o_strides[2] (the dim stride) must be 1, got 2")
        finally:
            _lib.lib().jfa_attention_destroy(h)

    def test_backward_options_reach_the_runtime(self):
        """Issue 20's fields of the backward's struct land where the C code
        reads them: the workspace of a cross-attention (T_k = 100000 keys,
        max_seqlen_k 50000, H_kv = 2: the schedule over 3 * 391 key tiles, dq's
        accumulator [T, H * D] whatever dk's stride; 2 k/v heads split each
        one's q heads over 2 units, so dk's and dv's f32 sums, 100000 * 256 *
        4 B each), and each field set
        wrong comes back named."""
        kv = (256, 128, 1)
        s = (512, 128, 1)

        def args(**changes):
            f = dict(offsets_k=0x1a00000, total_tokens_k=100000, max_seqlen_k=50000,
                     num_kv_heads=2, use_window=1, window_left=100, window_right=20,
                     causal=0, dk_stride=256, activation=0, lse=0x1500000,
                     block_mask_bits=0, block_mask_heads=0)
            f.update(changes)
            strides = list(s) * 2 + list(kv) * 2 + list(s)  # dout, q, k, v, o
            fields = [0x1000000 + i * 0x100000 for i in range(5)] + strides
            fields += [f["lse"], 0x1600000, 0x1700000, 0x1800000, 0x1900000]
            fields += list(s) + [f["dk_stride"], 128, 1] * 2
            tail = [_lib.BF16_ADDRESS, _lib.I32_ADDRESS, 1000, 4, 128, 3, 500, f["causal"],
                    0.0, 0]
            options = [f[n] for n in ("offsets_k", "total_tokens_k", "max_seqlen_k",
                                      "num_kv_heads", "use_window", "window_left",
                                      "window_right", "activation", "block_mask_bits",
                                      "block_mask_heads")]
            return _lib.packed_backward_args(*fields, 0x8000000, 64 << 20, *tail, *options)

        relu = ctypes.create_string_buffer(b"relu")
        sums = 2 * 102400000
        self.assertEqual(_lib.backward_workspace_size(args()), 2048000 + 16128 + 4864 + sums)
        self.assertEqual(_lib.backward_workspace_size(args(dk_stride=1024)),
                         2048000 + 16128 + 4864 + sums)
        # Four k/v heads of 4: no split, no sums.
        self.assertEqual(_lib.backward_workspace_size(args(num_kv_heads=4, dk_stride=512)),
                         2048000 + 16128 + 4864)
        for name in ("silu", "gelu_tanh"):  # GDPA: no lse needed
            self.assertEqual(_lib.backward_workspace_size(
                args(activation=_lib.ACTIVATION_ADDRESS[name], lse=0)),
                2048000 + 16128 + 4864 + sums)
        h = ctypes.c_void_p()
        self.assertEqual(_lib.lib().jfa_attention_create(None, ctypes.byref(h)), 0)
        try:
            for changes, needle in (
                    (dict(offsets_k=0x1a00002), "offsets_k must be 4-byte aligned"),
                    (dict(total_tokens_k=-1), "total_tokens_k must be >= 0, got -1"),
                    (dict(max_seqlen_k=30), "total_tokens_k 100000 is more than batch * "
                                            "max_seqlen_k = 90"),
                    (dict(num_kv_heads=3), "num_heads 4 is not a multiple of num_kv_heads 3"),
                    (dict(dk_stride=128), "dk_strides[0] (the token stride) must be at least "
                                          "num_kv_heads * head_dim = 256, got 128"),
                    (dict(window_left=-2), "window_left must be -1 (unbounded) or >= 0"),
                    (dict(window_right=-7), "window_right must be -1 (unbounded) or >= 0"),
                    (dict(causal=1), "causal and window_right = 20 conflict"),
                    (dict(offsets_k=0), "total_tokens_k is 100000 but offsets_k is 0"),
                    (dict(lse=0), "lse is a null address"),
                    (dict(activation=ctypes.addressof(relu)),
                     "activation 'relu' is not supported"),
                    # The block mask's two fields, after the activation.
                    (dict(block_mask_heads=3, block_mask_bits=0x2a00000),
                     "block_mask_heads 3 is neither 0 (no block mask), 1 (one mask for every "
                     "head) nor num_heads 4"),
                    (dict(block_mask_heads=1, block_mask_bits=0x2a00002),
                     "block_mask_bits must be 4-byte aligned"),
                    (dict(block_mask_bits=0x2a00000),
                     "block_mask_bits is set but block_mask_heads is 0")):
                with self.subTest(**{k: str(v) for k, v in changes.items()}):
                    a = args(**changes)
                    self.assertEqual(_lib.lib().jfa_attention_backward(h, ctypes.byref(a),
                                                                       None), -1)
                    self.assertIn(needle, _lib.last_error())
            # use_window 0: the window fields are not read (nothing to write
            # either: no queries and no keys, so no device is needed).
            a = args(use_window=0, window_left=-9, total_tokens_k=0)
            a.total_tokens = 0
            self.assertEqual(_lib.lib().jfa_attention_backward(h, ctypes.byref(a), None), 0,
                             _lib.last_error())
            # GDPA: lse 0 passes the checks (no device is needed for this call).
            a = args(activation=_lib.ACTIVATION_ADDRESS["silu"], lse=0, total_tokens_k=0)
            a.total_tokens = 0
            self.assertEqual(_lib.lib().jfa_attention_backward(h, ctypes.byref(a), None), 0,
                             _lib.last_error())
        finally:
            _lib.lib().jfa_attention_destroy(h)

    def test_library_is_the_required_one(self):
        want = os.environ.get("JFA_LIBRARY")
        if REQUIRE_LIBRARY and want:
            self.assertEqual(os.path.realpath(_lib.library_path()), os.path.realpath(want))
        self.assertTrue(_lib.lib().jfa_runtime_version().decode()[0].isdigit())

    def setUp(self):
        self.saved = os.environ.get("JFA_KERNEL_DIR")
        self.saved_lib, self.saved_handle = _lib._lib, _lib._handle
        os.environ.pop("JFA_KERNEL_DIR", None)
        _lib._lib, _lib._handle = None, None

    def tearDown(self):
        if self.saved is not None:
            os.environ["JFA_KERNEL_DIR"] = self.saved
        _lib._lib, _lib._handle = self.saved_lib, self.saved_handle

    @staticmethod
    def args(**changes):
        t, h, d = 100, 2, 64
        a = _lib.ForwardArgs()
        a.q, a.k, a.v, a.o = 0x10000, 0x20000, 0x30000, 0x40000
        for f in ("q_strides", "k_strides", "v_strides", "o_strides"):
            getattr(a, f)[:] = (h * d, d, 1)
        a.lse, a.offsets = 0x50000, 0x60000
        a.dtype, a.offsets_dtype = b"bf16", b"i32"
        a.total_tokens, a.num_heads, a.head_dim, a.batch, a.max_seqlen = t, h, d, 3, 50
        a.causal, a.softmax_scale, a.check_offsets = 1, 0.0, 0
        for k, v in changes.items():
            if isinstance(v, tuple):
                getattr(a, k)[:] = v
            else:
                setattr(a, k, v)
        return a

    def test_each_field(self):
        cases = [
            (dict(head_dim=96), "head_dim 96"),
            (dict(softmax_scale=-1.0), "softmax_scale"),
            (dict(dtype=b"f16"), "dtype 'f16'"),
            (dict(offsets_dtype=b"i64"), "offsets_dtype 'i64'"),
            (dict(q_strides=(128, 64, 2)), "q_strides[2]"),
            (dict(k_strides=(128, 32, 1)), "k_strides[1]"),
            (dict(v_strides=(130, 64, 1)), "v_strides[0]"),
            (dict(o_strides=(120, 64, 1)), "o_strides[0]"),
            (dict(q=0x10008), "q must be 16-byte aligned"),
            (dict(k=0x20008), "k must be 16-byte aligned"),
            (dict(v=0), "v is a null address"),
            (dict(o=0x40004), "o must be 16-byte aligned"),
            (dict(lse=0x50002), "lse must be 4-byte aligned"),
            (dict(offsets=0), "offsets is a null address"),
            (dict(batch=1), "batch * max_seqlen = 50"),
            (dict(max_seqlen=0), "max_seqlen is 0"),
            (dict(num_heads=-1), "num_heads"),
            (dict(total_tokens=2**31), "total_tokens"),
        ]
        for changes, needle in cases:
            with self.subTest(**{k: str(v) for k, v in changes.items()}):
                with self.assertRaises(RuntimeError) as cm:
                    _lib.forward(0, self.args(**changes), 0)
                self.assertIn("jfa_attention_forward failed", str(cm.exception))
                self.assertIn(needle, str(cm.exception))

    def test_nothing_to_do(self):
        # No tokens: checked, then nothing to launch (the device is not touched).
        _lib.forward(0, self.args(total_tokens=0, q=0, k=0, v=0, o=0, lse=0), 0)

    def test_struct_size(self):
        self.assertEqual(_lib.lib().jfa_attention_forward_args_size(),
                         ctypes.sizeof(_lib.ForwardArgs))
        self.assertEqual(_lib.lib().jfa_attention_backward_args_size(),
                         ctypes.sizeof(_lib.BackwardArgs))

    def test_each_option_field(self):
        """Issue 20's fields land where the C code reads them: a cross-attention
        call (T_k = 120 keys, max 60) with H_kv = 1 k/v head and a window."""
        cross = dict(offsets_k=0x70000, total_tokens_k=120, max_seqlen_k=60, num_kv_heads=1,
                     k_strides=(64, 64, 1), v_strides=(64, 64, 1), causal=0, use_window=1,
                     window_left=16, window_right=4)
        cases = [
            (dict(offsets_k=0x70002), "offsets_k must be 4-byte aligned"),
            (dict(total_tokens_k=-1), "total_tokens_k must be >= 0, got -1"),
            (dict(max_seqlen_k=30), "total_tokens_k 120 is more than batch * max_seqlen_k = 90"),
            (dict(num_kv_heads=3, k_strides=(192, 64, 1), v_strides=(192, 64, 1)),
             "num_heads 2 is not a multiple of num_kv_heads 3"),
            (dict(v_strides=(32, 64, 1)), "v_strides[0] (the token stride) must be at least "
                                          "num_kv_heads * head_dim = 64"),
            (dict(window_left=-2), "window_left must be -1 (unbounded) or >= 0, got -2"),
            (dict(window_right=-7), "window_right must be -1 (unbounded) or >= 0, got -7"),
            (dict(causal=1), "causal and window_right = 4 conflict"),
            (dict(offsets_k=0), "total_tokens_k is 120 but offsets_k is 0"),
        ]
        for changes, needle in cases:
            with self.subTest(**{k: str(v) for k, v in changes.items()}):
                with self.assertRaises(RuntimeError) as cm:
                    _lib.forward(0, self.args(**dict(cross, **changes)), 0)
                self.assertIn(needle, str(cm.exception))
        # use_window 0: the window fields are not read.
        _lib.forward(0, self.args(**dict(cross, use_window=0, window_left=-9, total_tokens=0,
                                         q=0, o=0, lse=0)), 0)

    def test_activation_field(self):
        """The activation field lands where the C code reads it: a name the
        runtime does not know comes back named; NULL (softmax) needs lse,
        GDPA's names do not."""
        with self.assertRaises(RuntimeError) as cm:
            _lib.forward(0, self.args(activation=b"relu"), 0)
        self.assertIn("activation 'relu' is not supported", str(cm.exception))
        with self.assertRaises(RuntimeError) as cm:
            _lib.forward(0, self.args(lse=0), 0)
        self.assertIn("lse is a null address", str(cm.exception))
        for name in ("silu", "gelu_tanh"):
            args = _lib.packed_forward_args(*self.packed(lse=0, total_tokens=0),
                                            _lib.ACTIVATION_ADDRESS[name], 0, 0)
            self.assertEqual(args.activation, name.encode())
            _lib.forward(0, args, 0)  # checked, nothing to compute: no device
            try:
                ctypes.CDLL("libcuda.so.1")
                continue  # a driver: the call below would launch (bogus addresses)
            except OSError:
                pass
            # Past every check, the device is the next thing missing.
            with self.assertRaises(RuntimeError) as cm:
                _lib.forward(0, self.args(activation=name.encode(), lse=0), 0)
            self.assertIn("no CUDA driver", str(cm.exception))

    @staticmethod
    def packed(**changes):
        """args()'s fields as packed_forward_args takes them, but the
        activation and the block mask (the last three fields)."""
        a = RuntimeChecksThroughCtypes.args(**changes)
        values = []
        for name, t in _lib.ForwardArgs._fields_[:-3]:
            v = getattr(a, name)
            if issubclass(t, ctypes.Array):
                values += list(v)
            elif t is ctypes.c_char_p:
                values.append({b"bf16": _lib.BF16_ADDRESS, b"i32": _lib.I32_ADDRESS}[v])
            else:
                values.append(v)
        return values

    def test_module_api_failures_are_reported(self):
        with self.assertRaises(RuntimeError) as cm:
            _lib.module_load_file(0, "/nonexistent/attention_bwd_sm90_sm_90a.cubin")
        self.assertIn("jfa_module_load_file", str(cm.exception))
        self.assertIn("/nonexistent/attention_bwd_sm90_sm_90a.cubin", str(cm.exception))
        args = (_lib.Arg * 1)()
        with self.assertRaises(RuntimeError) as cm:
            _lib.launch(0, None, "attention_bwd_delta", (1, 1, 1), args, 0)
        self.assertIn("module and kernel must not be NULL", str(cm.exception))

    def test_create_failure_is_reported(self):
        with tempfile.TemporaryDirectory() as d:
            os.environ["JFA_KERNEL_DIR"] = d
            with self.assertRaises(RuntimeError) as cm:
                _lib.handle()
            self.assertIn("jfa_attention_create", str(cm.exception))
            self.assertIn(d, str(cm.exception))


if __name__ == "__main__":
    unittest.main(verbosity=2)
