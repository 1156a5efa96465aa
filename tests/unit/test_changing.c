/*
 * test_changing.c - the bytes of a verified ETDump change under its readers
 * (issue 25, item 7): a private mapping shows the file's current bytes in
 * the pages it never wrote, so another process rewriting a dump in place
 * changes what an open inspector reads after it was verified.  Here the
 * dump is a heap block of exactly its length (ASan reports a read one byte
 * outside it): it is opened and verified, its runs are read once through
 * the event cursor (so that layouts are cached), then random bytes are
 * written into it and every reader of the raw runs goes over it again -
 * the cursor, et_etdump_event_verified, the runs, allocator names, debug
 * values, the verifier's second decode.  Each must stay inside the buffer
 * (other values or an error, never a read outside); every string's bytes
 * are read to check their extents.  TAP output.
 *
 * Environment: ET_BUILD (fixtures/sample.etdp), ET_SHARED (corpus/etdump;
 * skipped when absent).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/etdump.h"
#include "tap.h"

static volatile uint64_t sink;

static uint64_t rng;
static uint32_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

/* Every byte of s (a read outside the buffer is ASan's to report). */
static uint64_t touch(et_str s)
{
    uint64_t h = s.n;
    if (s.p)
        for (uint32_t i = 0; i < s.n; i++)
            h = h * 31 + (unsigned char)s.p[i];
    return h;
}

static uint64_t touch_event(const et_raw_event *e)
{
    /* the strings whatever the kind (a reader may look at a name the kind
     * leaves out); the scalars the kind has */
    uint64_t h = touch(e->name) + touch(e->delegate_debug_id_str) + touch(e->metadata);
    if (e->kind == ET_EV_PROFILE)
        h += e->start_time + e->end_time + (uint64_t)e->instruction_id;
    else if (e->kind == ET_EV_DEBUG)
        h += e->value_pos + (uint64_t)e->instruction_id;
    return h;
}

/* Every reader of the raw runs over d, whatever its bytes are now. */
static uint64_t read_all(et_etdump *d, et_raw_event *scratch, size_t scratch_n)
{
    uint64_t h = 0;
    for (uint32_t i = 0; i < et_etdump_num_runs(d); i++) {
        et_run r;
        et_etdump_run(d, i, &r);
        h += touch(r.name);
        for (uint32_t a = 0; a < r.allocators.count; a++)
            h += touch(et_etdump_allocator_name(d, &r, a));
        et_event_cursor c;
        et_event_cursor_init(&c, d, i, &r);
        for (uint32_t k = 0; k < r.events.count; k++) {
            et_raw_event e, f;
            et_event_cursor_get(&c, k, &e);
            et_etdump_event_verified(d, i, &r, k, &f);
            h += touch_event(&e) + touch_event(&f);
            if (e.kind == ET_EV_DEBUG && e.value_pos) {
                et_raw_value v;
                et_etdump_value(d, e.value_pos, &v);
                for (uint32_t s = 0; s < v.sizes.count; s++)
                    h += (uint64_t)et_etdump_i64_at(d, &v.sizes, s);
            }
        }
        /* the verifier's second decode: a clean error or the events */
        if (r.events.count <= scratch_n) {
            et_error err;
            et_error_clear(&err);
            if (et_etdump_verify_run(d, i, scratch, &err) != 0)
                h += strlen(err.msg);
        }
    }
    return h;
}

/* Open `path`, then `rounds` rewrites of `nbytes` random bytes each. */
static void changing(const char *path, const char *label, int rounds, int nbytes)
{
    tap_bytes f = tap_read_file(path);
    if (!f.p) {
        skip_n(1, "cannot read the dump");
        return;
    }
    uint8_t *buf = malloc(f.n);
    if (!buf) {
        free(f.p);
        skip_n(1, "out of memory");
        return;
    }
    size_t scratch_n = 1 << 16;
    et_raw_event *scratch = malloc(scratch_n * sizeof *scratch);
    int opened = 0;
    for (int round = 0; round < rounds && scratch; round++) {
        memcpy(buf, f.p, f.n);
        et_etdump d;
        et_error err;
        if (et_etdump_open(&d, buf, f.n, &err) != 0 || et_etdump_verify_all(&d, &err) != 0) {
            diag("%s: %s", label, err.msg);
            break;
        }
        opened++;
        sink += read_all(&d, scratch, scratch_n); /* caches the layouts */
        rng = (uint64_t)round * 0x9E3779B97F4A7C15u + 1;
        for (int k = 0; k < nbytes; k++)
            buf[next_rand() % f.n] = (uint8_t)next_rand();
        sink += read_all(&d, scratch, scratch_n);
        et_etdump_close(&d);
    }
    ok(opened == rounds, "%s: %d rewrites of %d random bytes after verification: every "
       "reader of the raw runs stays inside the buffer", label, opened, nbytes);
    free(scratch);
    free(buf);
    free(f.p);
}

int main(void)
{
    const char *build = getenv("ET_BUILD") ? getenv("ET_BUILD") : "build";
    const char *shared = getenv("ET_SHARED") ? getenv("ET_SHARED") : "../shared";
    char path[4096];
    snprintf(path, sizeof path, "%s/fixtures/sample.etdp", build);
    changing(path, "sample.etdp", 300, 40);
    static const char *const corpus[] = {"small", "multiblock", "debug", "alloc", "cycles",
                                         "real_bundled_debug", "medium"};
    for (size_t i = 0; i < sizeof corpus / sizeof *corpus; i++) {
        snprintf(path, sizeof path, "%s/corpus/etdump/%s.etdp", shared, corpus[i]);
        FILE *fp = fopen(path, "rb");
        if (!fp) {
            skip_n(1, "corpus not found");
            continue;
        }
        fclose(fp);
        char label[64];
        snprintf(label, sizeof label, "%s.etdp", corpus[i]);
        changing(path, label, strcmp(corpus[i], "medium") == 0 ? 8 : 100, 200);
    }
    return done_testing();
}
