#!/usr/bin/env python3
"""gen_repr_digests.py - expected digests of Python's repr() for the unit
test tests/unit/test_repr.c (which needs no Python at run time).

The doubles come from splitmix64 (seed 1) in four kinds, in turn: random
bit patterns (non-finite ones folded into finite), durations (ticks / 1e6),
short decimals (m / 10^j) and scaled integers (m * 2^e); signs random.
Every block of 10,000 values is digested: FNV-1a 64 of the repr strings,
each followed by a newline.  Output: one line per block, "%016x".

    python3 tests/tools/gen_repr_digests.py 100 > tests/data/repr_digests.txt
    python3 tests/tools/gen_repr_digests.py 100 --values 5   # print values of block 5
"""
import math
import struct
import sys

M64 = (1 << 64) - 1
BLOCK = 10000


class SplitMix:
    def __init__(self, seed):
        self.s = seed

    def next(self):
        self.s = (self.s + 0x9E3779B97F4A7C15) & M64
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        return z ^ (z >> 31)


def value(rng, i):
    kind = i % 4
    if kind == 0:
        bits = rng.next()
        if (bits >> 52) & 0x7FF == 0x7FF:
            bits &= ~(1 << 62)
        return struct.unpack("<d", struct.pack("<Q", bits))[0]
    if kind == 1:
        return (rng.next() % 1000000000) / 1e6
    neg = rng.next() & 1
    if kind == 2:
        k = 1 + rng.next() % 17
        j = rng.next() % 21
        x = (rng.next() % (10 ** k)) / float(10 ** j)
    else:
        e = int(rng.next() % 121) - 60
        x = math.ldexp(float(rng.next() >> 11), e)
    return -x if neg else x


def main():
    blocks = int(sys.argv[1])
    show = int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[2] == "--values" else -1
    rng = SplitMix(1)
    for b in range(blocks):
        h = 0xCBF29CE484222325
        for k in range(BLOCK):
            x = value(rng, b * BLOCK + k)
            s = repr(x)
            if b == show:
                print(struct.unpack("<Q", struct.pack("<d", x))[0], s)
            for c in (s + "\n").encode():
                h = ((h ^ c) * 0x100000001B3) & M64
        if show < 0:
            print("%016x" % h)


main()
