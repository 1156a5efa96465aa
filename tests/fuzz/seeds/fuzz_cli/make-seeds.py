#!/usr/bin/env python3
"""Regenerate the fuzz_cli seeds: argument vectors, NUL-separated, over the
one-letter fixtures of tests/fuzz/fuzz_cli.c (a sample.etdp, b tensors.etdp,
c tensors.bin, d distinct.bpte, e sample.etrecord, f a legacy dump,
g stride0.etdp, h a 64-byte debug buffer).  The .argv files are committed."""

SEEDS = {
    'table': '--etdump_path a',
    'tsv_json': '--etdump_path a --tsv_path o.tsv --json o.json',
    'trace': '--etdump_path a --trace_path t.json --trace_runs 0-2 --trace_runs_apart',
    'trace_window': '--etdump_path a --trace_path t.json --trace_window 0:150',
    'sqlite': '--etdump_path a --sqlite_path db --sqlite_dump x',
    'html': '--etdump_path a --html_path r.html',
    'debug_memory': '--etdump_path b --debug_buffer_path c --json o.json --memory',
    'compare_stride0': '--etdump_path g --debug_buffer_path h --bundled_program_path d --compare_results -q',
    'compare_case': '--etdump_path a --bundled_program_path d --bundled_test_case 0 --compare_results',
    'etrecord': '--etdump_path a --etrecord_path e --etrecord_method forward -q',
    'legacy': '--profile_results_path f --time_scale cycles --tsv_path o --json j',
    'onto_input': '--etdump_path a --debug_buffer_path c --tsv_path c',
    'cycles': '--etdump_path a --source_time_scale cycles --target_time_scale cycles --trace_path t --cycles_hz 1e9',
    'help': '--help',
    'version': '--version',
    'full': '--etdump_path=a --html_path=/dev/full',
}

if __name__ == '__main__':
    for name, args in SEEDS.items():
        with open(name + '.argv', 'wb') as f:
            f.write(b'\0'.join(a.encode() for a in args.split(' ')))
