"""CPU-only tests of jfa.load / jfa.compile and the attention ops' alias
check: no torch, no GPU.

    JFAC=build/bin/jfac python3 test/python/test_load.py

- every argument check of a kernel call (jfa._kernel_args) with stand-in
  tensors (duck-typed like torch.Tensor): count, kind, dtype, device, TMA
  rank, strides and alignment, scalar ranges, grid limits; each message
  names the kernel and the argument;
- jfa.load reads the metadata beside a cubin (no GPU until a launch);
- the ctypes packing of checked arguments (what jfa_launch receives);
- jfa.compile with the real jfac ($JFAC; ctest passes the build's): a second
  call hits the cache, an edited source, parameter or import recompiles,
  a jfac error is a CompileError with jfac's diagnostics. Without $JFAC
  (outside ctest) these tests skip unless JFA_REQUIRE_JFAC is set;
- jfa._validate.overlaps / check_no_alias (o=q is an error naming both).
"""
import ctypes
import json
import os
import shutil
import sys
import tempfile
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "python"))

import jfa  # noqa: E402
from jfa import _compile, _lib, _module, _validate as V  # noqa: E402
from jfa import _kernel_args as A  # noqa: E402


class Dtype:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return "torch." + self.name


class Device:
    def __init__(self, type_, index=None):
        self.type, self.index = type_, index


class FakeTensor:
    """Enough of torch.Tensor for the checks: dtype, device, shape, stride(),
    data_ptr()."""
    SIZES = {"float32": 4, "bfloat16": 2, "float16": 2, "int32": 4, "float64": 8,
             "int64": 8, "int8": 1}

    def __init__(self, shape, dtype="float32", device="cuda", index=0, strides=None,
                 ptr=0x7f0000000000):
        self.shape = tuple(shape)
        self.dtype = Dtype(dtype)
        self.device = Device(device, index if device == "cuda" else None)
        if strides is None:
            strides, n = [], 1
            for d in reversed(self.shape):
                strides.insert(0, n)
                n *= d
        self._strides = tuple(strides)
        self._ptr = ptr

    def stride(self):
        return self._strides

    def data_ptr(self):
        return self._ptr

    def element_size(self):
        return self.SIZES[self.dtype.name]


def entry(name="scale_add", arguments=None, cluster=(1, 1, 1)):
    if arguments is None:
        arguments = [
            {"kind": "tma", "element_type": "f32", "box": [64, 64], "swizzle": 0, "name": "x"},
            {"kind": "tma", "element_type": "bf16", "box": [64, 64], "swizzle": 128, "name": "y"},
            {"kind": "ptr", "element_type": "f32", "name": "out"},
            {"kind": "i32", "name": "rows"},
            {"kind": "i64", "name": "n"},
            {"kind": "f32", "name": "alpha"},
            {"kind": "f64"},
        ]
    return {"name": name, "arch": "sm_90a", "threads": 128, "cluster": list(cluster),
            "shared_bytes": 1024, "arguments": arguments}


def good_args():
    return [FakeTensor((100, 36)), FakeTensor((100, 64), "bfloat16"),
            FakeTensor((7,)), 100, 2**40, 2.0, 0.5]


class KernelArgs(unittest.TestCase):
    def setUp(self):
        self.spec = A.KernelSpec(entry())

    def error(self, exc, args=None, grid=1, **changes):
        args = good_args() if args is None else args
        for i, v in changes.items():
            args[int(i[1:])] = v
        with self.assertRaises(exc) as cm:
            A.check_grid(self.spec, grid)
            A.check_args(self.spec, args)
        return str(cm.exception)

    def test_good(self):
        checked, device = A.check_args(self.spec, good_args())
        self.assertEqual(device, 0)
        self.assertEqual(checked[0], A.Tensor("tma", "f32", (100, 36), (36, 1), 0x7f0000000000))
        self.assertEqual(checked[2].kind, "ptr")
        self.assertEqual(checked[3:], [A.Scalar("i32", 100), A.Scalar("i64", 2**40),
                                       A.Scalar("f32", 2.0), A.Scalar("f64", 0.5)])
        self.assertEqual(self.spec.signature(),
                         "scale_add(%x: tma<64x64xf32>, %y: tma<64x64xbf16>, %out: ptr<f32>, "
                         "%rows: i32, %n: i64, %alpha: f32, #6: f64)")

    def test_count(self):
        msg = self.error(TypeError, good_args()[:-1])
        self.assertIn("scale_add: takes 7 arguments (%x: tma<64x64xf32>", msg)
        self.assertIn("got 6", msg)

    def test_dtype(self):
        msg = self.error(TypeError, a1=FakeTensor((100, 64), "float32"))
        self.assertEqual(msg, "scale_add: argument 1 (%y): expected a bfloat16 CUDA tensor, "
                              "got float32")
        msg = self.error(TypeError, a2=FakeTensor((7,), "float16"))
        self.assertEqual(msg, "scale_add: argument 2 (%out): expected a float32 CUDA tensor, "
                              "got float16")

    def test_not_a_tensor(self):
        msg = self.error(TypeError, a0=3)
        self.assertEqual(msg, "scale_add: argument 0 (%x): expected a float32 CUDA tensor (for "
                              "its TMA descriptor), got int")
        msg = self.error(TypeError, a3=FakeTensor((1,), "int32"))
        self.assertIn("argument 3 (%rows): expected an int (i32 scalar), got a tensor", msg)

    def test_device(self):
        msg = self.error(ValueError, a0=FakeTensor((100, 36), device="cpu"))
        self.assertIn("argument 0 (%x): expected a float32 CUDA tensor, got a tensor on cpu", msg)
        msg = self.error(ValueError, a1=FakeTensor((100, 64), "bfloat16", index=1))
        self.assertIn("argument 1 (%y): is on cuda:1 but the earlier tensor arguments are on "
                      "cuda:0", msg)
        _, device = A.check_args(self.spec, [FakeTensor((100, 36), index=3),
                                             FakeTensor((100, 64), "bfloat16", index=3),
                                             FakeTensor((7,), index=3), 1, 1, 1.0, 1.0])
        self.assertEqual(device, 3)

    def test_tma_layout(self):
        msg = self.error(ValueError, a0=FakeTensor((100, 36, 2)))
        self.assertIn("argument 0 (%x): expected a rank-2 tensor (the TMA box is 64x64), got "
                      "shape [100, 36, 2]", msg)
        msg = self.error(ValueError, a0=FakeTensor((100, 35)))  # 140-byte rows
        self.assertIn("argument 0 (%x): TMA needs every stride but the innermost to be a "
                      "positive multiple of 16 bytes; dimension 0 has a stride of 35 elements "
                      "(140 bytes", msg)
        msg = self.error(ValueError, a0=FakeTensor((36, 100), strides=(1, 36)))  # a .T view
        self.assertIn("innermost dimension contiguous (stride 1), got strides [1, 36]; "
                      "pass .contiguous()", msg)
        msg = self.error(ValueError, a0=FakeTensor((0, 36)))
        self.assertIn("dimensions must be in [1, 2^32]; dimension 0 of shape [0, 36] is 0", msg)
        msg = self.error(ValueError, a0=FakeTensor((100, 36), ptr=0x7f0000000004))
        self.assertIn("argument 0 (%x): TMA needs a 16-byte aligned address, got 0x7f0000000004",
                      msg)
        msg = self.error(ValueError, a0=FakeTensor((100, 36), ptr=0))
        self.assertIn("null tensor address", msg)
        msg = self.error(ValueError, a0=FakeTensor((100, 36), strides=(0, 1)))  # expanded
        self.assertIn("positive multiple of 16 bytes", msg)

    def test_tma_strides_passed_on(self):
        # A padded row stride is kept; a size-1 dimension's stride is made legal.
        (x, y, *_), _ = A.check_args(self.spec, [FakeTensor((100, 36), strides=(40, 1)),
                                                 FakeTensor((1, 3), "bfloat16", strides=(3, 1)),
                                                 FakeTensor((7,)), 1, 1, 1.0, 1.0])
        self.assertEqual(x.strides, (40, 1))
        self.assertEqual(y.strides, (8, 1))  # 3 bf16 = 6 bytes -> 16 bytes

    def test_ptr_alignment(self):
        msg = self.error(ValueError, a2=FakeTensor((7,), ptr=0x1002))
        self.assertIn("argument 2 (%out): address 0x1002 is not aligned to its 4-byte elements",
                      msg)

    def test_scalars(self):
        self.assertIn("argument 3 (%rows): 2147483648 does not fit in i32 "
                      "([-2147483648, 2147483647])", self.error(ValueError, a3=2**31))
        self.assertIn("does not fit in i32", self.error(ValueError, a3=-2**31 - 1))
        self.assertIn("argument 3 (%rows): expected an int (i32), got float",
                      self.error(TypeError, a3=1.0))
        self.assertIn("expected an int (i32), got bool", self.error(TypeError, a3=True))
        self.assertIn("argument 4 (%n): 9223372036854775808 does not fit in i64",
                      self.error(ValueError, a4=2**63))
        self.assertIn("argument 5 (%alpha): expected a float (f32), got str",
                      self.error(TypeError, a5="2"))
        self.assertIn("argument 5 (%alpha): 1e+39 is out of f32's range",
                      self.error(ValueError, a5=1e39))
        self.assertIn("argument 6: expected a float (f64), got NoneType",
                      self.error(TypeError, a6=None))
        checked, _ = A.check_args(self.spec, good_args()[:5] + [3, float("inf")])
        self.assertEqual(checked[5:], [A.Scalar("f32", 3.0), A.Scalar("f64", float("inf"))])

    def test_grid(self):
        self.assertEqual(A.check_grid(self.spec, 5), (5, 1, 1))
        self.assertEqual(A.check_grid(self.spec, (5, 2)), (5, 2, 1))
        self.assertEqual(A.check_grid(self.spec, [2**31 - 1, 65535, 65535]),
                         (2**31 - 1, 65535, 65535))
        for grid, exc, needle in [
                ((0,), ValueError, "grid x = 0 must be in [1, 2147483647]"),
                ((1, 65536), ValueError, "grid y = 65536 must be in [1, 65535]"),
                ((1, 1, 1, 1), ValueError, "grid must have 1 to 3 dimensions, got 4"),
                ((), ValueError, "grid must have 1 to 3 dimensions, got 0"),
                (2**31, ValueError, "grid x = 2147483648"),
                ((1.5,), TypeError, "grid x must be an int, got float"),
                ("12", TypeError, "grid x must be an int, got str"),
                (None, TypeError, "grid must be an int or a tuple of 1 to 3 ints, got NoneType"),
                (True, TypeError, "got bool")]:
            with self.subTest(grid=grid):
                with self.assertRaises(exc) as cm:
                    A.check_grid(self.spec, grid)
                self.assertIn(needle, str(cm.exception))
                self.assertTrue(str(cm.exception).startswith("scale_add: "))
        spec = A.KernelSpec(entry(cluster=(2, 1, 1)))
        with self.assertRaisesRegex(ValueError, "grid x = 3 is not a multiple of the kernel's "
                                                "cluster dimension 2"):
            A.check_grid(spec, 3)

    def test_no_names_in_old_metadata(self):
        args = [dict(a) for a in entry()["arguments"]]
        for a in args:
            a.pop("name", None)
        spec = A.KernelSpec(entry(arguments=args))
        with self.assertRaises(TypeError) as cm:
            A.check_args(spec, good_args()[:1] + [FakeTensor((1, 8))] + good_args()[2:])
        self.assertEqual(str(cm.exception), "scale_add: argument 1: expected a bfloat16 CUDA "
                                            "tensor, got float32")


class Packing(unittest.TestCase):
    def test_pack(self):
        spec = A.KernelSpec(entry())
        checked, _ = A.check_args(spec, good_args())
        array, keep = _module.pack(checked)
        self.assertEqual(len(array), 7)
        self.assertEqual([a.kind for a in array],
                         [_lib.ARG_TENSOR, _lib.ARG_TENSOR, _lib.ARG_PTR, _lib.ARG_I32,
                          _lib.ARG_I64, _lib.ARG_F32, _lib.ARG_F64])
        t = array[1].value.tensor
        self.assertEqual((t.data, t.element_type, t.rank), (0x7f0000000000, b"bf16", 2))
        self.assertEqual([t.shape[0], t.shape[1]], [100, 64])
        self.assertEqual([t.strides[0], t.strides[1]], [64, 1])
        self.assertEqual(array[2].value.ptr, 0x7f0000000000)
        self.assertEqual(array[3].value.i32, 100)
        self.assertEqual(array[4].value.i64, 2**40)
        self.assertEqual(array[5].value.f32, 2.0)
        self.assertEqual(array[6].value.f64, 0.5)
        self.assertTrue(keep)


class Load(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.cubin = os.path.join(self.dir, "k.cubin")
        with open(self.cubin, "wb") as f:
            f.write(b"\x7fELF fake")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def write_meta(self, kernels):
        with open(self.cubin + ".meta", "w") as f:
            json.dump({"format": "jfa-metadata", "version": 2, "kernels": kernels}, f)

    def test_load_without_gpu(self):
        self.write_meta([entry(), entry("other", [{"kind": "i32", "name": "n"}])])
        mod = jfa.load(self.cubin)
        self.assertEqual(sorted(mod.kernels), ["other", "scale_add"])
        self.assertIs(mod.scale_add, mod["scale_add"])
        self.assertIn("scale_add", dir(mod))
        self.assertIn("%alpha: f32", repr(mod.scale_add))
        grid, checked, device = mod.scale_add.check((4, 2), *good_args())
        self.assertEqual((grid, len(checked), device), ((4, 2, 1), 7, 0))
        with self.assertRaisesRegex(AttributeError, r"k.cubin has no kernel 'nope' \(it has: "
                                                    r"other, scale_add\)"):
            mod.nope
        with self.assertRaisesRegex(TypeError, "other: takes 1 arguments"):
            mod.other(1)

    def test_load_errors(self):
        with self.assertRaisesRegex(FileNotFoundError, "no cubin at"):
            jfa.load(os.path.join(self.dir, "missing.cubin"))
        with self.assertRaisesRegex(jfa.MetadataError, "cannot read metadata"):
            jfa.load(self.cubin)
        self.write_meta([entry(arguments=[{"kind": "i32", "name": 3}])])
        with self.assertRaisesRegex(jfa.MetadataError,
                                    r"kernels\[0\].arguments\[0\].name: expected a string"):
            jfa.load(self.cubin)


def _has_driver():
    try:
        ctypes.CDLL("libcuda.so.1")
        return True
    except OSError:
        return False


class LaunchWithoutGpu(unittest.TestCase):
    """A checked call reaches libjfart (JFA_LIBRARY, set by ctest), whose
    error comes back as a RuntimeError naming the cubin."""

    @unittest.skipIf(_has_driver(), "a CUDA driver is installed")
    def test_runtime_error_is_reported(self):
        try:
            _lib.lib()
        except OSError as e:
            if os.environ.get("JFA_REQUIRE_LIBRARY"):
                raise
            self.skipTest(f"no libjfart.so: {e}")
        with tempfile.TemporaryDirectory() as d:
            cubin = os.path.join(d, "k.cubin")
            with open(cubin, "wb") as f:
                f.write(b"\x7fELF fake")
            with open(cubin + ".meta", "w") as f:
                json.dump({"format": "jfa-metadata", "version": 2, "kernels": [entry()]}, f)
            mod = jfa.load(cubin)
            with self.assertRaises(RuntimeError) as cm:
                mod.scale_add((2, 1), *good_args())
            self.assertIn(f"jfa_module_load_file({cubin}) failed", str(cm.exception))
            self.assertIn("no CUDA driver", str(cm.exception))
            # A bad argument is caught before the runtime is asked.
            with self.assertRaisesRegex(TypeError, "argument 1 \\(%y\\)"):
                mod.scale_add(2, *([good_args()[0]] * 2 + good_args()[2:]))


def _jfac():
    jfac = os.environ.get("JFAC")
    return jfac if jfac and os.path.isfile(jfac) else None


REQUIRE_JFAC = bool(os.environ.get("JFA_REQUIRE_JFAC"))
TUTORIAL = os.path.join(REPO, "docs", "tutorial", "scale_add.mlir")


def _write_import_pair(lib_path, user_dir):
    """Writes a library with @negate at lib_path and, in user_dir, user.mlir
    importing "lib.mlir" and calling it; returns user.mlir's path."""
    with open(lib_path, "w") as f:
        f.write("jfa.func @negate(%x: i32) -> i32 {\n"
                "  %c0 = arith.constant 0 : i32\n"
                "  %y = arith.subi %c0, %x : i32\n"
                "  jfa.return %y : i32\n}\n")
    user = os.path.join(user_dir, "user.mlir")
    with open(user, "w") as f:
        f.write('jfa.import "lib.mlir"\n'
                "jfa.kernel @user(%n: i32) warps(1) {\n"
                "  %x = jfa.call @negate(%n) : (i32) -> i32\n}\n")
    return user


@unittest.skipUnless(_jfac() or REQUIRE_JFAC, "no $JFAC (ctest passes the build's jfac)")
class Compile(unittest.TestCase):
    def setUp(self):
        if REQUIRE_JFAC and not _jfac():
            self.fail(f"JFA_REQUIRE_JFAC is set but JFAC={os.environ.get('JFAC')} is not a file")
        self.dir = tempfile.mkdtemp()
        self.saved = os.environ.get("JFA_CACHE_DIR")
        os.environ["JFA_CACHE_DIR"] = os.path.join(self.dir, "cache")
        self.src = os.path.join(self.dir, "src")
        shutil.copytree(os.path.dirname(TUTORIAL), self.src)
        self.kernel = os.path.join(self.src, "scale_add.mlir")

    def tearDown(self):
        if self.saved is None:
            os.environ.pop("JFA_CACHE_DIR", None)
        else:
            os.environ["JFA_CACHE_DIR"] = self.saved
        shutil.rmtree(self.dir)

    def test_find_jfac(self):
        self.assertEqual(jfa.find_jfac(), os.path.abspath(os.environ["JFAC"]))

    def test_cache(self):
        path, hit = _compile.compile_to_cache(self.kernel, "sm_90a")
        self.assertFalse(hit)
        self.assertTrue(path.startswith(os.environ["JFA_CACHE_DIR"]))
        self.assertTrue(path.endswith("scale_add_sm_90a.cubin"))
        again, hit = _compile.compile_to_cache(self.kernel, "sm_90a")
        self.assertEqual((again, hit), (path, True))
        # Another parameter, another target: new entries.
        relu, hit = _compile.compile_to_cache(self.kernel, "sm_90a", {"relu": True})
        self.assertFalse(hit)
        self.assertNotEqual(relu, path)
        self.assertTrue(_compile.compile_to_cache(self.kernel, "sm_90a", {"relu": True})[1])
        self.assertFalse(_compile.compile_to_cache(self.kernel, "sm_100a")[1])
        # An edited source recompiles.
        with open(self.kernel, "a") as f:
            f.write("// an edit\n")
        edited, hit = _compile.compile_to_cache(self.kernel, "sm_90a")
        self.assertFalse(hit)
        self.assertNotEqual(edited, path)

    def test_compile_loads(self):
        mod = jfa.compile(self.kernel, arch="sm_90a", params={"relu": False})
        k = mod.scale_add
        self.assertEqual(k.spec.arch, "sm_90a")
        self.assertEqual([p.name for p in k.spec.params], ["x", "y", "out", "rows", "cols",
                                                           "alpha"])
        self.assertEqual(k.spec.compile_params, {"relu": False})
        out = os.path.join(self.dir, "out")
        mod = jfa.compile(self.kernel, arch="sm_90a", out_dir=out)
        self.assertEqual(mod.path, os.path.join(out, "scale_add_sm_90a.cubin"))
        self.assertTrue(os.path.isfile(mod.path + ".meta"))

    def test_imports_are_part_of_the_key(self):
        lib = os.path.join(self.src, "lib.mlir")
        user = _write_import_pair(lib, self.src)
        path, hit = _compile.compile_to_cache(user, "sm_90a")
        self.assertFalse(hit)
        self.assertTrue(_compile.compile_to_cache(user, "sm_90a")[1])
        with open(lib, "a") as f:
            f.write("// edited\n")
        again, hit = _compile.compile_to_cache(user, "sm_90a")
        self.assertFalse(hit, "an edited import must recompile")
        self.assertEqual(again, path)
        self.assertTrue(_compile.compile_to_cache(user, "sm_90a")[1])

    def test_import_found_through_include_dir(self):
        inc = os.path.join(self.dir, "inc")
        os.makedirs(inc)
        user = _write_import_pair(os.path.join(inc, "lib.mlir"), self.src)
        with self.assertRaises(jfa.CompileError) as cm:
            _compile.compile_to_cache(user, "sm_90a")
        self.assertIn('cannot find the imported file "lib.mlir"', cm.exception.diagnostics)
        self.assertFalse(_compile.compile_to_cache(user, "sm_90a", include_dirs=[inc])[1])
        self.assertTrue(_compile.compile_to_cache(user, "sm_90a", include_dirs=[inc])[1])
        # A lib.mlir beside the source now shadows the -I one: recompile.
        shutil.copyfile(os.path.join(inc, "lib.mlir"), os.path.join(self.src, "lib.mlir"))
        self.assertFalse(_compile.compile_to_cache(user, "sm_90a", include_dirs=[inc])[1])

    def test_errors(self):
        with open(self.kernel, "a") as f:
            f.write("jfa.kernel @bad(%x: i32) warps(4) {\n  %y = arith.addi %x, %nope : i32\n}\n")
        with self.assertRaises(jfa.CompileError) as cm:
            jfa.compile(self.kernel, arch="sm_90a")
        e = cm.exception
        self.assertIn("scale_add.mlir:", e.diagnostics)
        self.assertIn("error", e.diagnostics)
        self.assertIn(e.diagnostics, str(e))
        self.assertNotEqual(e.returncode, 0)
        self.assertEqual(e.command[0], os.path.abspath(os.environ["JFAC"]))
        with self.assertRaises(jfa.CompileError) as cm:
            jfa.compile(TUTORIAL, arch="sm_90a", params={"nope": 1})
        self.assertIn("no kernel declares a parameter 'nope'", cm.exception.diagnostics)
        with self.assertRaisesRegex(ValueError, "arch must be a target name"):
            jfa.compile(TUTORIAL, arch="hopper")
        with self.assertRaisesRegex(FileNotFoundError, "cannot read"):
            jfa.compile(os.path.join(self.dir, "missing.mlir"), arch="sm_90a")

    def test_arch_none_without_gpu(self):
        try:
            import torch
            if torch.cuda.is_available():
                self.skipTest("a GPU is here")
        except ImportError:
            pass
        with self.assertRaisesRegex(ValueError, "pass arch='sm_90a'"):
            jfa.compile(TUTORIAL)


class CompileWithoutJfac(unittest.TestCase):
    def test_shadows(self):
        self.assertEqual(_compile._shadows("/i2/sub/x.mlir", "/src", ["/i1", "/i2"]),
                         ["/src/sub/x.mlir", "/i1/sub/x.mlir"])
        self.assertEqual(_compile._shadows("/src/x.mlir", "/src", ["/i1"]), [])

    def test_params(self):
        self.assertEqual(_compile.param_args({"relu": True, "n": 64, "s": 0.5, "t": "bf16"}),
                         ["-P", "n=64", "-P", "relu=1", "-P", "s=0.5", "-P", "t=bf16"])
        with self.assertRaisesRegex(ValueError, "not an identifier"):
            _compile.param_args({"a b": 1})
        with self.assertRaisesRegex(TypeError, "parameter n must be"):
            _compile.param_args({"n": [1]})

    def test_missing_jfac(self):
        saved = os.environ.get("JFAC")
        try:
            os.environ["JFAC"] = "/nonexistent/jfac"
            with self.assertRaisesRegex(FileNotFoundError, "JFAC=/nonexistent/jfac"):
                jfa.find_jfac()
        finally:
            if saved is None:
                os.environ.pop("JFAC")
            else:
                os.environ["JFAC"] = saved

    def test_cache_dir(self):
        saved = os.environ.get("JFA_CACHE_DIR")
        try:
            os.environ["JFA_CACHE_DIR"] = "/tmp/x"
            self.assertEqual(jfa.cache_dir(), "/tmp/x")
            os.environ.pop("JFA_CACHE_DIR")
            self.assertTrue(jfa.cache_dir().endswith("jfa"))
        finally:
            if saved is not None:
                os.environ["JFA_CACHE_DIR"] = saved


def mem(shape, strides=None, ptr=0x10000, size=2):
    t = FakeTensor(shape, strides=strides, ptr=ptr)
    return tuple(t.shape), t.stride(), ptr, size


class Aliasing(unittest.TestCase):
    def test_overlaps(self):
        q = mem((100, 2, 64))
        self.assertTrue(V.overlaps(q, q))
        self.assertTrue(V.overlaps(q, mem((1, 1, 8), ptr=0x10000 + 100 * 128 * 2 - 2)))
        self.assertFalse(V.overlaps(q, mem((1, 1, 8), ptr=0x10000 + 100 * 128 * 2)))
        self.assertFalse(V.overlaps(q, mem((0, 2, 64))))
        # Views of an interleaved [T, 2, H, D] buffer: disjoint.
        st = (2 * 2 * 64, 64, 1)
        a = mem((100, 2, 64), st, 0x10000)
        b = mem((100, 2, 64), st, 0x10000 + 2 * 64 * 2)
        self.assertFalse(V.overlaps(a, b))
        self.assertTrue(V.overlaps(a, mem((100, 2, 64), st, 0x10000 + 2 * 64 * 2 - 2)))

    def test_check_no_alias(self):
        q = mem((100, 2, 64))
        k = mem((100, 2, 64), ptr=0x100000)
        with self.assertRaises(ValueError) as cm:
            V.check_no_alias([("o", q)], [("q", q), ("k", k)])
        self.assertIn("o overlaps the input q", str(cm.exception))
        with self.assertRaisesRegex(ValueError, "lse overlaps the output o"):
            V.check_no_alias([("o", mem((100, 2, 64), ptr=0x200000)),
                              ("lse", mem((2, 100), ptr=0x200000 + 64, size=4))],
                             [("q", q), ("k", k)])
        V.check_no_alias([("o", mem((100, 2, 64), ptr=0x200000))], [("q", q), ("k", k)])
        # Interleaved views: their spans meet (the quick test) but no byte
        # is shared (the exact one); one element further on, they share.
        st = (2 * 2 * 64, 64, 1)
        a = mem((100, 2, 64), st, 0x10000)
        V.check_no_alias([("dq", mem((100, 2, 64), st, 0x10000 + 2 * 64 * 2))], [("q", a)])
        with self.assertRaisesRegex(ValueError, "dq overlaps the input q"):
            V.check_no_alias([("dq", mem((100, 2, 64), st, 0x10000 + 2 * 64 * 2 - 2))],
                             [("q", a)])

    def test_attention_entry_points(self):
        """What jagged_attention and attention_backward call on their tensors
        (no torch needed: anything with shape, stride(), data_ptr() and
        element_size())."""
        from jfa import _torch
        q = FakeTensor((128, 2, 64), "bfloat16", ptr=0x100000)
        k = FakeTensor((128, 2, 64), "bfloat16", ptr=0x200000)
        with self.assertRaisesRegex(ValueError, "^o overlaps the input q in memory"):
            _torch.check_no_alias([("o", q), ("lse", None)], [("q", q), ("k", k)])
        # lse inside k's memory.
        lse = FakeTensor((2, 128), "float32", ptr=0x200000 + 1024)
        with self.assertRaisesRegex(ValueError, "^lse overlaps the input k"):
            _torch.check_no_alias([("o", None), ("lse", lse)], [("q", q), ("k", k)])
        with self.assertRaisesRegex(ValueError, "^dv overlaps the output dk"):
            _torch.check_no_alias([("dq", None), ("dk", FakeTensor((128, 2, 64), "bfloat16")),
                                   ("dv", FakeTensor((128, 2, 64), "bfloat16"))],
                                  [("q", q), ("k", k)])
        _torch.check_no_alias([("o", None), ("lse", None)], [("q", q), ("k", k)])
        _torch.check_no_alias([("o", FakeTensor((128, 2, 64), "bfloat16", ptr=0x300000))],
                             [("q", q), ("k", k)])


if __name__ == "__main__":
    unittest.main(verbosity=2)
