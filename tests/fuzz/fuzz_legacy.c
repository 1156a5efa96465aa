/*
 * fuzz_legacy.c - libFuzzer target for the legacy profiler reader (spec
 * §9), the model built from it and its two reports.
 *
 * Each input is copied into a heap block of exactly its size (so that
 * AddressSanitizer sees a read one byte past the end), then read with
 * et_legacy_read in two time scales (ns: divided and rounded; cycles:
 * integers), built into an inspector with et_inspector_open
 * (profile_results_data), and printed as the legacy tables and the legacy
 * JSON into /dev/null.  Invariants, checked with __builtin_trap(): a
 * refused input leaves an error message; the model refuses exactly the
 * inputs the reader refuses; an accepted dump's blocks account for every
 * block of the file.
 *
 * Build and run: make fuzz (FUZZ_SECONDS=N), see scripts/fuzz.sh.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/legacy.h"
#include "model/model.h"
#include "output/docjson.h"
#include "output/legacy_tables.h"

/* The libFuzzer entry point (declared for -Wmissing-prototypes). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull;

/* Run one input through the reader, the model and the reports (see the
 * top of the file).  Returns 0 (libFuzzer's convention). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!devnull && !(devnull = fopen("/dev/null", "w")))
        return 0;
    uint8_t *p = malloc(size ? size : 1);
    if (!p)
        return 0;
    if (size)
        memcpy(p, data, size);
    static const et_time_scale scales[2] = {ET_TS_NS, ET_TS_CYCLES};
    for (int k = 0; k < 2; k++) {
        et_error err;
        et_error_clear(&err);
        et_legacy *lg = et_legacy_read(p, size, "fuzz", scales[k], &err);
        if (!lg && !err.msg[0])
            __builtin_trap();
        if (lg) {
            size_t n = 0;
            for (size_t b = 0; b < lg->n_blocks; b++)
                n += lg->blocks[b].n_iterations;
            if (n != lg->n_raw_blocks)
                __builtin_trap();
        }
        et_inspector_options o;
        et_inspector_options_init(&o);
        o.profile_results_data = p;
        o.profile_results_size = size;
        o.source_time_scale = scales[k];
        et_error err2;
        et_error_clear(&err2);
        et_inspector *insp = et_inspector_open(&o, &err2);
        if ((insp != NULL) != (lg != NULL) || (!insp && !err2.msg[0]))
            __builtin_trap();
        if (insp) {
            if (et_report_write_legacy_tables(insp, devnull, k & 1) != 0 ||
                et_report_write_legacy_json(insp, devnull) != 0)
                __builtin_trap();
            et_inspector_free(insp);
        }
        et_legacy_free(lg);
    }
    free(p);
    return 0;
}
