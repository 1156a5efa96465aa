#!/usr/bin/env python3
"""make-seeds.py - write the .npy seed files of tests/npy/ (standard library
only: the format is written byte by byte as numpy/lib/format.py does).

Usage: python3 tests/npy/make-seeds.py [DIR]      (default: tests/npy)
"""
import math
import os
import struct
import sys


def npy(major, descr, fortran, shape, data):
    dims = "()" if not shape else "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"
    head = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, dims)
    pre = 10 if major == 1 else 12
    hl = len(head) + 1
    hl += (64 - (pre + hl) % 64) % 64
    text = (head + " " * (hl - len(head) - 1) + "\n").encode("latin-1")
    size = struct.pack("<H", hl) if major == 1 else struct.pack("<I", hl)
    return b"\x93NUMPY" + bytes([major, 0]) + size + text + data


SEEDS = {
    "f4_2x3.npy": npy(1, "<f4", False, (2, 3), struct.pack("<6f", 0.5, 1.5, -2.5, 3.25, 0, 1e30)),
    "f8_be_v2.npy": npy(2, ">f8", False, (3,), struct.pack(">3d", math.pi, -2.0, math.inf)),
    "i8_fortran_v3.npy": npy(3, "<i8", True, (2, 3), struct.pack("<6q", 1, 4, 2, 5, 3, 6)),
    "b1.npy": npy(1, "|b1", False, (4,), bytes([1, 0, 1, 1])),
    "f2_scalar.npy": npy(1, "<f2", False, (), struct.pack("<H", 0x3C00)),
    "f4_empty.npy": npy(1, "<f4", False, (0, 4), b""),
    "u8_big.npy": npy(1, "<u8", False, (2,), struct.pack("<2Q", 2**64 - 1, 7)),
    "f4_nan.npy": npy(1, "<f4", False, (2, 2), struct.pack("<4f", math.nan, 1, math.inf, -math.inf)),
    "i2_be_fortran.npy": npy(1, ">i2", True, (2, 2, 1), struct.pack(">4h", -1, 2, -3, 4)),
    "u1_3d.npy": npy(1, "|u1", False, (2, 1, 3), bytes(range(6))),
}

if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    for name, data in SEEDS.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
