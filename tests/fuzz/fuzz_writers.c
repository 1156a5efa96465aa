/*
 * fuzz_writers.c - libFuzzer target: an ETDump through every C writer.
 *
 * Each input is an ETDump, copied into a heap block of exactly its size.
 * When the model accepts it (et_inspector_open, etdump_data, time scales
 * chosen by a hash of the input, as are the trace options), it goes
 * through every writer the command line has, into memory
 * (open_memstream):
 *   the table (et_report_frame for display; tabulate's grid), the TSV,
 *   the whole frame as TSV, the --json document, the memory table, the
 *   Chrome trace (runs together or apart, a run selection, a window,
 *   cycles_hz) and the SQLite export (into a scratch directory, twice: a
 *   new database, then the same dump added to it).
 * Invariants, checked with __builtin_trap(): a refused dump leaves a
 * message; the writers succeed on every accepted dump (apart from a trace
 * the options refuse, with a message); the JSON document and the trace
 * are JSON (yajl's parser accepts them: NUL escapes, also in keys, and
 * integers beyond int64 are JSON).
 *
 * Seeds: tests/fuzz/fuzz_writers.seeds; make fuzz / scripts/fuzz.sh.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yajl/yajl_parse.h>

#include "output/frame.h"
#include "model/model.h"
#include "output/docjson.h"
#include "output/memsummary.h"
#include "output/rows.h"
#include "output/sqlexport.h"
#include "output/trace.h"

/* The libFuzzer entry point (declared for -Wmissing-prototypes). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char scratch[] = "/tmp/fuzz_writers-XXXXXX";
static char db[sizeof scratch + 16];

/* A memory stream's text. */
typedef struct mem {
    FILE *fp;
    char *buf;
    size_t len;
} mem;

static int mem_open(mem *m)
{
    m->buf = NULL;
    m->len = 0;
    m->fp = open_memstream(&m->buf, &m->len);
    return m->fp ? 0 : -1;
}

static void mem_close(mem *m)
{
    if (m->fp)
        fclose(m->fp);
    m->fp = NULL;
}

/* The writers' JSON must be JSON: checked by yajl's parser with no
 * callbacks (syntax only: integers beyond int64, NUL bytes in keys and
 * strings are all JSON; jansson refuses a NUL in a key). */
static void must_be_json(const mem *m)
{
    yajl_handle h = yajl_alloc(NULL, NULL, NULL);
    if (!h)
        abort();
    yajl_status st = yajl_parse(h, (const unsigned char *)m->buf, m->len);
    if (st == yajl_status_ok)
        st = yajl_complete_parse(h);
    if (st != yajl_status_ok) {
        unsigned char *e = yajl_get_error(h, 1, (const unsigned char *)m->buf, m->len);
        fprintf(stderr, "fuzz_writers: not JSON: %s\n", e ? (const char *)e : "?");
        __builtin_trap();
    }
    yajl_free(h);
}

static uint64_t fnv(const uint8_t *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

/* The writers over an accepted inspector. */
static void write_all(const et_inspector *insp, uint64_t h)
{
    et_error err;
    mem m;
    for (int display = 0; display < 2; display++) {
        et_frame *f = et_report_frame(insp, true, display, &err);
        if (!f) {
            if (err.kind != ET_ERR_NOMEM)
                __builtin_trap();
            continue;
        }
        if (mem_open(&m) != 0)
            __builtin_trap();
        if (et_frame_write_tsv(f, m.fp) != 0)
            __builtin_trap();
        mem_close(&m);
        free(m.buf);
        if (display) {
            if (mem_open(&m) != 0 || et_frame_write_grid(f, m.fp) != 0)
                __builtin_trap();
            mem_close(&m);
            free(m.buf);
        }
        et_frame_free(f);
    }
    if (mem_open(&m) != 0 || et_report_write_json(insp, m.fp) != 0)
        __builtin_trap();
    mem_close(&m);
    must_be_json(&m);
    free(m.buf);

    et_frame *mf = et_report_memory_frame(insp, &err);
    if (mf) {
        if (mem_open(&m) != 0 || et_frame_write_grid(mf, m.fp) != 0)
            __builtin_trap();
        mem_close(&m);
        free(m.buf);
        et_frame_free(mf);
    } else if (!err.msg[0]) {
        __builtin_trap();
    }

    et_trace_options to;
    et_trace_options_init(&to);
    to.runs_apart = h & 1;
    if (h & 2)
        to.cycles_hz = (double)((h >> 8) % 4000000000u + 1);
    static const char *const runs[] = {NULL, "0", "0-2,5", "1-1", "0-99999", "3-1", "x"};
    to.runs = runs[(h >> 2) % 7];
    if (h & 32) {
        to.window_start_us = (double)((h >> 16) % 100000);
        to.window_end_us = to.window_start_us + (double)((h >> 32) % 100000);
    }
    if (mem_open(&m) != 0)
        __builtin_trap();
    et_error_clear(&err);
    int rc = et_trace_write(insp, &to, m.fp, &err);
    mem_close(&m);
    if (rc == 0)
        must_be_json(&m);
    else if (!err.msg[0] || err.kind == ET_ERR_IO)
        __builtin_trap();
    free(m.buf);

    /* the SQLite export: a new database, then the same dump again */
    for (int k = 0; k < 2; k++) {
        et_error_clear(&err);
        et_sqlite_dump_options so = {.name = k ? "again" : "dump"};
        if (et_sqlite_export(insp, db, &so, &err) != 0) {
            fprintf(stderr, "fuzz_writers: SQLite export failed: %s\n", err.msg);
            __builtin_trap();
        }
    }
    unlink(db);
}

/* At exit: the scratch directory goes. */
static void cleanup(void)
{
    unlink(db);
    rmdir(scratch);
}

/* One input (see the top of the file).  Returns 0. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!db[0]) {
        if (!mkdtemp(scratch))
            return 0;
        snprintf(db, sizeof db, "%s/out.db", scratch);
        atexit(cleanup);
    }
    uint8_t *p = malloc(size ? size : 1);
    if (!p)
        return 0;
    if (size)
        memcpy(p, data, size);
    uint64_t h = fnv(data, size);
    static const et_time_scale scales[] = {ET_TS_NS, ET_TS_US, ET_TS_MS, ET_TS_S, ET_TS_CYCLES};
    et_inspector_options o;
    et_inspector_options_init(&o);
    o.etdump_data = p;
    o.etdump_size = size;
    o.source_time_scale = scales[(h >> 40) % 5];
    o.target_time_scale = o.source_time_scale == ET_TS_CYCLES ? ET_TS_CYCLES
                                                              : scales[(h >> 44) % 4];
    et_error err;
    et_error_clear(&err);
    et_inspector *insp = et_inspector_open(&o, &err);
    if (insp) {
        write_all(insp, h);
        et_inspector_free(insp);
    } else if (!err.msg[0]) {
        __builtin_trap();
    }
    free(p);
    return 0;
}
