#!/usr/bin/env python3
"""Regenerate the fuzz_compare seeds (format: tests/fuzz/fuzz_compare.c).

Run from this directory: python3 make-seeds.py (the .bin files are committed;
this script only documents and regenerates them)."""
import struct


def spec(st, dims, strides=None, offset=0, scalar=False):
    """One tensor header: scalar type, flags, ndim, sizes (+ strides), offset."""
    fl = (1 if strides is not None else 0) | (2 if scalar else 0)
    b = struct.pack('<BBB', st, fl, len(dims))
    for i, d in enumerate(dims):
        b += struct.pack('<I', d)
        if strides is not None:
            b += struct.pack('<i', strides[i])
    return b + struct.pack('<I', offset)


F, I, H, BF, D, B = 6, 3, 5, 15, 7, 11
SEEDS = {
    'equal_f32': spec(F, [2, 3]) + spec(F, [2, 3]) + struct.pack('<6f', 1, 2, 3, 4, 5, 6),
    'row_broadcast': spec(F, [2, 3]) + spec(F, [3]) + struct.pack('<6f', 1, 2, 3, 4, 5, 6),
    'outer_over_budget': spec(F, [1024, 1], [0, 0]) + spec(F, [1, 2048], [0, 0]) + struct.pack('<f', 1.5),
    'stride0_huge': spec(F, [0xffffffff], [0]) + spec(F, [1]) + struct.pack('<f', 2.0),
    'stride0_in_budget': spec(F, [1000, 2], [0, 1]) + spec(F, [2]) + struct.pack('<2f', 1, 2),
    'scalar_vs_int': spec(I, [4]) + spec(0, [], None, 100007, True) + struct.pack('<4i', 1, 2, 3, 4),
    'overlap': spec(I, [3, 3], [1, 1], 0) + spec(I, [3, 3]) + bytes(40),
    'half_bf16': spec(H, [4]) + spec(BF, [4], [1], 8) + bytes(16),
    'transposed_f64': spec(D, [2, 3], [1, 2]) + spec(D, [3, 2]) + struct.pack('<6d', 1, 2, 3, 4, 5, 6),
    'bool_empty': spec(B, [0, 4]) + spec(B, [4]) + bytes(4),
    'offset_past_end': spec(F, [2], None, 1000) + spec(F, [2]) + bytes(8),
    'cosine_shapes': spec(F, [2, 2]) + spec(F, [4]) + struct.pack('<4f', 1, 0, 0, 1),
}

if __name__ == '__main__':
    for name, data in SEEDS.items():
        with open(name + '.bin', 'wb') as f:
            f.write(data)
