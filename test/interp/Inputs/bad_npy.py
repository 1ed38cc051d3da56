#!/usr/bin/env python3
"""Writes .npy files whose headers lie (for bad-input.test), into DIR:

    bad_npy.py DIR

Each file holds a [64, 64] float32 array's bytes (or fewer) under a header
that misstates something.
"""
import os
import struct
import sys

out = sys.argv[1]
data = b"\0" * (64 * 64 * 4)


def npy(name, header, payload=data, magic=b"\x93NUMPY\x01\x00", length=None):
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    n = len(header) if length is None else length
    with open(os.path.join(out, name), "wb") as f:
        f.write(magic + struct.pack("<H", n) + header.encode() + payload)


ok = "{'descr': '<f4', 'fortran_order': False, 'shape': (64, 64), }"
npy("good.npy", ok)
npy("short.npy", ok, payload=data[:100])                 # fewer bytes
npy("long.npy", ok, payload=data + b"\0" * 16)           # more bytes
npy("shape.npy", ok.replace("(64, 64)", "(64, 65)"))      # shape too large
npy("negative.npy", ok.replace("(64, 64)", "(-64, 64)"))
npy("spaces.npy", ok.replace("(64, 64)", "(64 64)"))
npy("huge.npy", ok.replace("(64, 64)", "(99999999999999999999, 64)"))
npy("dtype.npy", ok.replace("<f4", "<f3"))
npy("bigendian.npy", ok.replace("<f4", ">f4"))
npy("object.npy", ok.replace("<f4", "|O"))
npy("fortran.npy", ok.replace("False", "True"))
npy("order.npy", ok.replace("False", "Maybe"))
npy("nofields.npy", "{'descr': '<f4', }")
npy("headerlen.npy", ok, length=60000)                  # header past the end
npy("version.npy", ok, magic=b"\x93NUMPY\x09\x00")
with open(os.path.join(out, "magic.npy"), "wb") as f:
    f.write(b"PK\x03\x04 this is a zip file, not a .npy file")
open(os.path.join(out, "empty.npy"), "wb").close()
