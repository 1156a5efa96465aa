/*
 * test_rawframe.c - the raw-event table (src/core/table/fromrun.h) on the
 * fixtures built by flatc from the JSON files of tests/fixtures: one row per raw
 * event, the block each run was merged into, durations as the model
 * converts them (the 32-bit wrap-around corrected, delegated events
 * converted then subtracted), missing cells where a kind has no such
 * field, and names interned once.  Expected values are worked out by hand
 * from the fixtures' JSON.
 *
 * Environment: ET_BUILD (the build directory; fixtures in ET_BUILD/fixtures).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "table/fromrun.h"
#include "tap.h"

static char fixture_dir[4096];

static et_inspector *open_fixture(const char *name, et_time_scale target)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s.etdp", fixture_dir, name);
    et_inspector_options o;
    et_inspector_options_init(&o);
    o.etdump_path = path;
    o.target_time_scale = target;
    et_error err;
    et_inspector *insp = et_inspector_open(&o, &err);
    if (!insp)
        diag("%s: %s", name, err.msg);
    return insp;
}

/* Cells of column c at row i. */
#define I64(c, i) et_col_i64(t.cols[ET_RAW_##c], (i))
#define F64(c, i) et_col_f64(t.cols[ET_RAW_##c], (i))
#define HAS(c, i) et_col_present(t.cols[ET_RAW_##c], (i))

/* The text of string column c at row i ("<absent>" when absent). */
static const char *str_at(const et_rawtable *t, int c, size_t i)
{
    if (!et_col_present(t->cols[c], i))
        return "<absent>";
    size_t len;
    return et_strpool_get(t->pool, et_col_str(t->cols[c], i), &len);
}

static void test_wrap(void)
{
    et_inspector *insp = open_fixture("wrap", ET_TS_NS);
    if (!ok(insp != NULL, "wrap opens"))
        return;
    et_rawtable t;
    et_error err;
    if (!ok(et_rawtable_build(insp, &t, &err) == 0, "wrap: built")) {
        et_inspector_free(insp);
        return;
    }
    is_int((long long)t.n, 4, "wrap: 4 rows");
    /* ns -> ns: durations are ticks; 2^32 - start + end when wrapped */
    ok(F64(DURATION, 0) == 496.0, "wrap: op 2^32 - 4294967000 + 200 = 496 (got %g)", F64(DURATION, 0));
    ok(F64(DURATION, 1) == 512.0, "wrap: delegated wrapped event gives the exact ticks 512 (got %g)",
       F64(DURATION, 1));
    ok(F64(DURATION, 2) == 0.0, "wrap: start == end gives 0");
    ok(F64(DURATION, 3) == 2296.0, "wrap: Method::execute 2296 (got %g)", F64(DURATION, 3));
    is_int(I64(START, 0), 4294967000LL, "wrap: start ticks raw");
    is_int(I64(END, 0), 200, "wrap: end ticks raw");
    is_int(I64(CHAIN, 3), -1, "wrap: chain_index -1 kept signed");
    ok(HAS(DID_INT, 1) && I64(DID_INT, 1) == 7, "wrap: delegate_debug_id_int 7");
    ok(!HAS(DID_INT, 0), "wrap: no delegate id on op");
    ok(!HAS(NAME, 1), "wrap: the delegated event has no name");
    is_str(str_at(&t, ET_RAW_NAME, 3), "Method::execute", "wrap: name of row 4");
    is_int(I64(RUN, 3), 1, "wrap: run 1");
    is_int(I64(BLOCK, 3), 1, "wrap: block 1");
    et_rawtable_free(&t);
    et_inspector_free(insp);
}

static void test_groups(void)
{
    et_inspector *insp = open_fixture("groups", ET_TS_MS);
    if (!ok(insp != NULL, "groups opens"))
        return;
    et_rawtable t;
    et_error err;
    if (!ok(et_rawtable_build(insp, &t, &err) == 0, "groups: built")) {
        et_inspector_free(insp);
        return;
    }
    is_int((long long)t.n, 4, "groups: 4 rows");
    long long runs[4] = {1, 2, 2, 3}, blocks[4] = {1, 2, 2, 1};
    int good = 1;
    for (size_t i = 0; i < 4 && t.n == 4; i++)
        good &= I64(RUN, i) == runs[i] && I64(BLOCK, i) == blocks[i];
    ok(good, "groups: runs 1 2 2 3 merge into blocks 1 2 2 1 (§3.5)");
    /* ms: ticks / 1e6 */
    ok(F64(DURATION, 2) == 4.0 / 1e6, "groups: op 4 ns = 4e-6 ms");
    is_int((long long)et_strpool_count(t.pool), 5, "groups: the four kinds and one name ('op') in the pool");
    et_rawtable_free(&t);
    et_inspector_free(insp);
}

static void test_alloc(void)
{
    et_inspector *insp = open_fixture("alloc_small", ET_TS_MS);
    if (!ok(insp != NULL, "alloc_small opens"))
        return;
    et_rawtable t;
    et_error err;
    if (!ok(et_rawtable_build(insp, &t, &err) == 0, "alloc_small: built")) {
        et_inspector_free(insp);
        return;
    }
    is_int((long long)t.n, 8, "alloc_small: 3 + 2 + 3 + 0 rows");
    is_str(str_at(&t, ET_RAW_KIND, 0), "allocation", "alloc_small: row 1 is an allocation");
    ok(!HAS(START, 0) && !HAS(END, 0) && !HAS(INSTRUCTION, 0) && !HAS(CHAIN, 0) && !HAS(DID_INT, 0) && !HAS(NAME, 0) && !HAS(DID_STR, 0),
       "alloc_small: an allocation has no ticks, ids or name");
    ok(isnan(F64(DURATION, 0)), "alloc_small: an allocation's duration is NaN");
    is_str(str_at(&t, ET_RAW_KIND, 2), "profile", "alloc_small: row 3 is a profile event");
    ok(HAS(START, 2) && F64(DURATION, 2) == 20.0 / 1e6, "alloc_small: Method::init 20 ns");
    et_rawtable_free(&t);
    et_inspector_free(insp);
}

static void test_appendix_c(void)
{
    et_inspector *insp = open_fixture("appendix_c", ET_TS_MS);
    if (!ok(insp != NULL, "appendix_c opens"))
        return;
    et_rawtable t;
    et_error err;
    if (!ok(et_rawtable_build(insp, &t, &err) == 0, "appendix_c: built")) {
        et_inspector_free(insp);
        return;
    }
    is_int((long long)t.n, 7, "appendix_c: 7 rows");
    is_str(str_at(&t, ET_RAW_DID_STR, 0), "Convolution #1",
           "appendix_c: delegate_debug_id_str");
    /* the model's §3.7 rule for delegated events, to the last bit */
    ok(F64(DURATION, 0) == 200.0 / 1e6 - 100.0 / 1e6, "appendix_c: conv(end) - conv(start)");
    ok(F64(DURATION, 0) == insp->blocks[0].events[0].perf_data.raw[0],
       "appendix_c: the model's sample, bit for bit");
    is_str(str_at(&t, ET_RAW_KIND, 2), "debug", "appendix_c: row 3 a debug event");
    ok(HAS(INSTRUCTION, 2) && !HAS(START, 2) && isnan(F64(DURATION, 2)) && I64(INSTRUCTION, 2) == 1,
       "appendix_c: a debug event has ids, no ticks");
    is_str(str_at(&t, ET_RAW_NAME, 4), "DELEGATE_CALL", "appendix_c: DELEGATE_CALL");
    ok(F64(DURATION, 4) == insp->blocks[0].events[2].perf_data.raw[0],
       "appendix_c: DELEGATE_CALL equals the model's sample");
    et_rawtable_free(&t);
    et_inspector_free(insp);
}

/* The model deferred (as Lua opens it): et_inspector_ready_blocks builds
 * the blocks the block column reads and leaves the samples and statistics
 * pending; et_inspector_ready completes them afterwards. */
static void test_ready_blocks(void)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/groups.etdp", fixture_dir);
    et_inspector_options o;
    et_inspector_options_init(&o);
    o.etdump_path = path;
    o.defer_model = o.defer_stats = true;
    et_error err;
    et_inspector *insp = et_inspector_open(&o, &err);
    if (!ok(insp && et_inspector_model_pending(insp), "groups, defer_model: model pending at open"))
        goto out;
    ok(et_inspector_ready_blocks(insp, &err) == 0 && !et_inspector_model_pending(insp) &&
           insp->n_blocks == 2,
       "et_inspector_ready_blocks builds the two blocks");
    ok(et_inspector_stats_pending(insp) && et_inspector_samples_pending(insp),
       "... leaving the samples and statistics pending");
    ok(et_inspector_ready_blocks(insp, &err) == 0 && et_inspector_samples_pending(insp),
       "... a second call changes nothing");
    et_rawtable t;
    if (ok(et_rawtable_build(insp, &t, &err) == 0 && t.n == 4, "the raw table over those blocks")) {
        ok(I64(BLOCK, 0) == 1 && I64(BLOCK, 1) == 2 && I64(BLOCK, 2) == 2 && I64(BLOCK, 3) == 1,
           "... runs 1 2 2 3 in blocks 1 2 2 1");
        ok(et_inspector_ready(insp, &err) == 0 && !et_inspector_stats_pending(insp) &&
               !et_inspector_samples_pending(insp),
           "et_inspector_ready completes the samples and statistics");
        const et_perf_data *pd = &insp->blocks[0].events[0].perf_data;
        ok(pd->raw && pd->n == 2 && F64(DURATION, 0) == pd->raw[0] && F64(DURATION, 3) == pd->raw[1],
           "... the samples are the raw table's durations, bit for bit");
        et_rawtable_free(&t);
    }
out:
    et_inspector_free(insp);
}

/* A zeroed table frees; freeing twice is harmless. */
static void test_free(void)
{
    et_rawtable t;
    memset(&t, 0, sizeof t);
    et_rawtable_free(&t);
    et_rawtable_free(&t);
    ok(t.n == 0 && t.cols[ET_RAW_RUN] == NULL && t.pool == NULL, "a zeroed table frees");
}

int main(void)
{
    const char *b = getenv("ET_BUILD");
    snprintf(fixture_dir, sizeof fixture_dir, "%s/fixtures", b ? b : "build");
    char probe[4200];
    snprintf(probe, sizeof probe, "%s/wrap.etdp", fixture_dir);
    FILE *f = fopen(probe, "rb");
    if (!f) {
        skip_all("fixtures not built (make fixtures)");
        return 0;
    }
    fclose(f);
    test_wrap();
    test_groups();
    test_alloc();
    test_appendix_c();
    test_ready_blocks();
    test_free();
    return done_testing();
}
