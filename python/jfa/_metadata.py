"""The metadata jfac writes beside each cubin (<cubin>.meta): JSON, version 2
(docs/METADATA.md), read with `json` and checked as the runtime checks it.

    kernels = read("attention_bwd_sm90_sm_90a.cubin.meta")
    kernels[0]["name"], kernels[0]["threads"], kernels[0]["arguments"][0]["kind"]

Every error is a MetadataError (a ValueError) naming the file and the field:
"k.cubin.meta: kernels[0].arguments[2].kind: unknown parameter kind "q7"".
"""
import json

FORMAT = "jfa-metadata"
VERSION = 2  # compiler/Metadata.cpp and the runtime's kMetadataVersion
KINDS = ("tma", "ptr", "i32", "i64", "f32", "f64")
ELEMENT_TYPES = ("f64", "i64", "f32", "i32", "f16", "bf16", "i16", "i8", "f8E4M3FN",
                 "f8E5M2")


class MetadataError(ValueError):
    pass


def _describe(v):
    if isinstance(v, bool):
        return f"boolean {json.dumps(v)}"
    if isinstance(v, (int, float)):
        return f"number {json.dumps(v)}"
    if isinstance(v, str):
        return f"string {json.dumps(v)}"
    if v is None:
        return "null"
    return "object" if isinstance(v, dict) else "array"


class _Reader:
    def __init__(self, source):
        self.source = source

    def fail(self, message):
        raise MetadataError(f"{self.source}: {message}")

    def field(self, obj, path, key):
        if key not in obj:
            self.fail(f"{path + '.' if path else ''}{key} is missing")
        return obj[key]

    def check(self, v, path, what, ok):
        if not ok(v):
            self.fail(f"{path}: expected {what}, got {_describe(v)}")
        return v

    def obj(self, v, path):
        return self.check(v, path, "an object", lambda x: isinstance(x, dict))

    def arr(self, v, path):
        return self.check(v, path, "an array", lambda x: isinstance(x, list))

    def string(self, v, path):
        return self.check(v, path, "a string", lambda x: isinstance(x, str))

    def integer(self, v, path, lo, hi):
        self.check(v, path, "a non-negative integer",
                   lambda x: isinstance(x, int) and not isinstance(x, bool) and x >= 0)
        if not lo <= v <= hi:
            self.fail(f"{path}: must be in [{lo}, {hi}], got {v}")
        return v

    def argument(self, a, path):
        self.obj(a, path)
        kind = self.string(self.field(a, path, "kind"), f"{path}.kind")
        if kind not in KINDS:
            self.fail(f'{path}.kind: unknown parameter kind "{kind}" (known: {", ".join(KINDS)})')
        if "name" in a:
            self.string(a["name"], f"{path}.name")
        if kind in ("tma", "ptr"):
            et = self.string(self.field(a, path, "element_type"), f"{path}.element_type")
            if et not in ELEMENT_TYPES:
                self.fail(f'{path}.element_type: unknown element type "{et}"')
        if kind == "tma":
            box = self.arr(self.field(a, path, "box"), f"{path}.box")
            if not 1 <= len(box) <= 5:
                self.fail(f"{path}.box: a TMA box has 1 to 5 dimensions, got {len(box)}")
            for i, d in enumerate(box):
                self.integer(d, f"{path}.box[{i}]", 1, 256)
            sw = self.integer(self.field(a, path, "swizzle"), f"{path}.swizzle", 0, 128)
            if sw not in (0, 32, 64, 128):
                self.fail(f"{path}.swizzle: swizzle must be 0 (none), 32, 64 or 128, got {sw}")

    def kernel(self, k, path):
        self.obj(k, path)
        if not self.string(self.field(k, path, "name"), f"{path}.name"):
            self.fail(f"{path}.name: a kernel needs a name")
        self.string(self.field(k, path, "arch"), f"{path}.arch")
        self.integer(self.field(k, path, "threads"), f"{path}.threads", 1, 1024)
        cluster = self.arr(self.field(k, path, "cluster"), f"{path}.cluster")
        if len(cluster) != 3:
            self.fail(f"{path}.cluster: expected 3 dimensions, got {len(cluster)}")
        for i, d in enumerate(cluster):
            self.integer(d, f"{path}.cluster[{i}]", 1, 1024)
        self.integer(self.field(k, path, "shared_bytes"), f"{path}.shared_bytes", 0, 2**32 - 1)
        if "debug_barriers" in k:
            self.check(k["debug_barriers"], f"{path}.debug_barriers", "true or false",
                       lambda x: isinstance(x, bool))
        args = self.arr(self.field(k, path, "arguments"), f"{path}.arguments")
        for i, a in enumerate(args):
            self.argument(a, f"{path}.arguments[{i}]")
        if "params" in k:
            for name, v in self.obj(k["params"], f"{path}.params").items():
                self.check(v, f"{path}.params.{name}", "a number, a boolean or a string",
                           lambda x: isinstance(x, (int, float, str, bool)))
        if "variant" in k:
            self.string(k["variant"], f"{path}.variant")

    def read(self, text):
        if not text.strip():
            self.fail("the metadata is empty")
        if text.lstrip().startswith("jfa-metadata"):
            self.fail("metadata in the old line format ('jfa-metadata 1') of an earlier jfac; "
                      f"this reads JSON metadata version {VERSION}: rebuild the cubin with this "
                      "jfac (`jfac compile <kernel.mlir> -o <cubin>` writes <cubin>.meta beside "
                      "it; scripts/build-package.sh rebuilds the package's kernels)")
        try:
            doc = json.loads(text)
        except ValueError as e:
            self.fail(f"not valid JSON ({e})")
        self.obj(doc, "the metadata")
        fmt = self.string(self.field(doc, "", "format"), "format")
        if fmt != FORMAT:
            self.fail(f'format: expected "{FORMAT}", got "{fmt}"')
        version = self.field(doc, "", "version")
        if isinstance(version, bool) or not isinstance(version, int) or version != VERSION:
            self.fail(f"version: metadata version {json.dumps(version)} is not supported "
                      f"(this reads version {VERSION}); rebuild the cubin with the jfac that "
                      "matches this package")
        kernels = self.arr(self.field(doc, "", "kernels"), "kernels")
        for i, k in enumerate(kernels):
            self.kernel(k, f"kernels[{i}]")
        return kernels


def parse(text, source="metadata"):
    """The kernels (a list of dicts, as in the file) of metadata `text`;
    raises MetadataError naming `source` and the field."""
    return _Reader(source).read(text)


def read(path):
    """The kernels of the metadata file `path` (see parse)."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise MetadataError(f"cannot read metadata '{path}': {e}") from None
    return parse(text, path)


def kernel(path, name):
    """The entry of kernel `name` in the metadata file `path`."""
    for k in read(path):
        if k["name"] == name:
            return k
    raise MetadataError(f"{path}: no kernel named '{name}'")
