#!/usr/bin/env python3
"""Regenerate the fuzz_mapfile seeds (format: tests/fuzz/fuzz_mapfile.c).

Run from this directory after `make` (it reads build/fixtures); the .bin
files are committed, this script documents and regenerates them."""
import struct

ROOT = '../../../..'
SRC = {
    'etdump': ROOT + '/build/fixtures/sample.etdp',
    'bpte': ROOT + '/tests/bundled/distinct.bpte',
    'npy': ROOT + '/tests/npy/f4_2x3.npy',
    'debug': ROOT + '/tests/fixtures/tensors.bin',
    'legacy': ROOT + '/tests/legacy/main.bin',
    'etrecord': ROOT + '/build/fixtures/sample.etrecord',
}
# name: (mode, growth, limit, source)
SEEDS = {
    'map_plain': (0, 0, 0, 'etdump'),
    'map_limit_refused': (0, 0, 200, 'etdump'),
    'map_populate_grown': (0, 3, 1, 'etdump'),
    'map_sparse_768m': (0, 130, 0, 'etdump'),
    'etdump': (1, 0, 0, 'etdump'),
    'etdump_sparse_2g5': (1, 129, 0, 'etdump'),
    'bundled': (2, 0, 0, 'bpte'),
    'bundled_sparse_18g': (2, 200, 0, 'bpte'),
    'npy': (3, 0, 0, 'npy'),
    'npy_grown': (3, 10, 0, 'npy'),
    'debug_buffer': (4, 0, 0, 'debug'),
    'debug_buffer_sparse_5g': (4, 147, 0, 'debug'),
    'legacy': (5, 0, 0, 'legacy'),
    'legacy_sparse_3g': (5, 139, 0, 'legacy'),
    'etrecord': (6, 0, 0, 'etrecord'),
    'etrecord_sparse_1g': (6, 131, 0, 'etrecord'),
}

if __name__ == '__main__':
    for name, (mode, growth, limit, src) in SEEDS.items():
        with open(SRC[src], 'rb') as f:
            body = f.read()
        with open(name + '.bin', 'wb') as f:
            f.write(struct.pack('<BBQ', mode, growth, limit) + body)
