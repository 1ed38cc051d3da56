#!/usr/bin/env python3
"""Writes a .npy file without numpy (for the interpreter's lit tests):

    make_npy.py PATH DTYPE SHAPE [FILL | V1,V2,...]

DTYPE is f4, f8, i4, i8 or u2 (bf16 words); SHAPE like 64x64; the array is
filled with FILL (default 1) or the listed values.
"""
import struct
import sys

path, dtype, shape = sys.argv[1], sys.argv[2], sys.argv[3]
dims = [int(d) for d in shape.split("x")]
count = 1
for d in dims:
    count *= d
fill = sys.argv[4] if len(sys.argv) > 4 else "1"
values = [float(v) for v in fill.split(",")]
if len(values) == 1:
    values = values * count
if len(values) != count:
    sys.exit(f"make_npy.py: {len(values)} values for {count} elements")
fmt = {"f4": "f", "f8": "d", "i4": "i", "i8": "q", "u2": "H"}[dtype]
if fmt in "iqH":
    values = [int(v) for v in values]
shape_text = "(" + ", ".join(map(str, dims)) + (",)" if len(dims) == 1 else ")")
header = "{'descr': '<%s', 'fortran_order': False, 'shape': %s, }" % (dtype, shape_text)
header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
with open(path, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    f.write(struct.pack("<%d%s" % (count, fmt), *values))
