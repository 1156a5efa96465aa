/*
 * test_model.c - the event model (spec §3-§4) on small fixtures built by
 * flatc from the JSON files in tests/fixtures.  Every expected value below is worked
 * out by hand from the fixture and the spec section named beside it.
 *
 * Environment: ET_BUILD (the build directory; fixtures in ET_BUILD/fixtures).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "base/stats.h"
#include "tap.h"

static char fixture_dir[4096];

/* Open fixture NAME (ns -> ms unless the options say otherwise). */
static et_inspector *open_fixture(const char *name, et_inspector_options *o, et_error *err)
{
    static char path[4200];
    snprintf(path, sizeof path, "%s/%s.etdp", fixture_dir, name);
    et_inspector_options def;
    if (!o) {
        et_inspector_options_init(&def);
        o = &def;
    }
    o->etdump_path = path;
    return et_inspector_open(o, err);
}

static int name_is(const et_event *e, const char *want)
{
    et_str n = et_event_name(e);
    return n.n == strlen(want) && memcmp(n.p, want, n.n) == 0;
}

static int block_is(const et_block *b, const char *want)
{
    return b->name.n == strlen(want) && memcmp(b->name.p, want, b->name.n) == 0;
}

static int has_warning(const et_inspector *insp, const char *needle)
{
    for (size_t i = 0; i < insp->warnings.n; i++)
        if (strstr(insp->warnings.items[i], needle))
            return 1;
    return 0;
}

/* Spec Appendix C: delegate events named by their identifiers, delegate-call
 * arguments as DELEGATE_CALL's debug data, program output as run_output. */
static void test_appendix_c(void)
{
    et_error err;
    et_inspector *insp = open_fixture("appendix_c", NULL, &err);
    if (!ok(insp != NULL, "appendix_c opens")) {
        diag("%s", err.msg);
        return;
    }
    is_int((long long)insp->n_blocks, 1, "appendix_c: one block");
    const et_block *b = &insp->blocks[0];
    is_int((long long)b->n_events, 4, "appendix_c: four events");
    ok(name_is(&b->events[0], "Convolution #1") && name_is(&b->events[1], "ReLU #1") &&
           name_is(&b->events[2], "DELEGATE_CALL") && name_is(&b->events[3], "Method::execute"),
       "appendix_c: event order and names (§3.6: delegated events named by identifier)");
    ok(b->events[0].is_delegated_op && b->events[0].delegate_debug_identifier_kind == ET_DID_STR,
       "appendix_c: 'Convolution #1' is delegated with a string identifier");
    ok(!b->events[2].is_delegated_op && b->events[2].delegate_debug_identifier_kind == ET_DID_NONE,
       "appendix_c: DELEGATE_CALL is not delegated");
    /* §3.7: delegated durations convert each timestamp, then subtract */
    ok(b->events[0].perf_data.raw[0] == 200.0 / 1e6 - 100.0 / 1e6,
       "appendix_c: delegated duration is conv(end) - conv(start)");
    ok(b->events[2].perf_data.raw[0] == 170.0 / 1e6, "appendix_c: DELEGATE_CALL 170 ns");
    ok(b->events[3].perf_data.raw[0] == 250.0 / 1e6, "appendix_c: Method::execute 250 ns");
    is_int(b->events[2].has_debug_data ? (long long)b->events[2].debug_count[0] : -1, 2,
           "appendix_c: DELEGATE_CALL carries the two delegate-call arguments");
    ok(!b->events[3].has_debug_data, "appendix_c: Method::execute has no debug data");
    is_int(b->run_output_count[0], 1, "appendix_c: one program output in run_output");
    is_int(b->events[0].instruction_id, 1, "appendix_c: instruction id of a delegate event");
    is_int(b->events[3].instruction_id, 0, "appendix_c: Method::execute instruction id 0");
    is_int(b->events[0].start_time[0], 100, "appendix_c: raw start time kept unconverted");
    ok(has_warning(insp, "no debug buffer"), "appendix_c: warns that tensor values are absent");
    et_inspector_free(insp);
}

/* event_blocks_test.test_gen_from_etdump: runs with equal signatures merge
 * even when not adjacent (§3.3). */
static void test_groups(void)
{
    et_error err;
    et_inspector *insp = open_fixture("groups", NULL, &err);
    if (!ok(insp != NULL, "groups opens")) {
        diag("%s", err.msg);
        return;
    }
    is_int((long long)insp->n_blocks, 2, "groups: two blocks");
    const et_block *a = &insp->blocks[0], *b = &insp->blocks[1];
    ok(block_is(a, "signature_a") && block_is(b, "signature_b"),
       "groups: blocks in first-appearance order");
    is_int((long long)a->n_runs, 2, "groups: signature_a merges runs 0 and 2");
    ok(a->runs[0] == 0 && a->runs[1] == 2, "groups: signature_a's runs are RunData 0 and 2");
    is_int((long long)a->n_events, 1, "groups: signature_a has one event");
    is_int((long long)a->events[0].perf_data.n, 2, "groups: ... with two samples");
    ok(name_is(&a->events[0], "100") && a->events[0].delegate_debug_identifier_kind == ET_DID_INT &&
           a->events[0].delegate_debug_id_int == 100,
       "groups: integer delegate id 100 names the event '100'");
    ok(a->events[0].perf_data.raw[0] == 1.0 / 1e6 - 0.0 / 1e6 &&
           a->events[0].perf_data.raw[1] == 4.0 / 1e6 - 2.0 / 1e6,
       "groups: samples in run order");
    is_int((long long)b->n_events, 2, "groups: signature_b has two events");
    is_int((long long)b->events[0].perf_data.n, 1, "groups: ... with one sample each");
    ok(name_is(&b->events[1], "op"), "groups: second event of signature_b is 'op'");
    is_int(a->bundled_input_index, -1, "groups: bundled_input_index -1 when unset");
    ok(a->events[0].raw_delegate_debug_metadatas == NULL,
       "groups: empty metadata everywhere -> no raw metadata list (§3.4)");
    et_inspector_free(insp);
}

/* event_blocks_test.test_gen_from_etdump_debug_events_only. */
static void test_debug_only(void)
{
    et_error err;
    et_inspector *insp = open_fixture("debug_only", NULL, &err);
    if (!ok(insp != NULL, "debug_only opens")) {
        diag("%s", err.msg);
        return;
    }
    const et_block *b = &insp->blocks[0];
    is_int((long long)b->n_events, 2, "debug_only: two events");
    ok(name_is(&b->events[0], "debug_id") && b->events[0].is_delegated_op,
       "debug_only: a delegated debug event is named by its string id");
    ok(name_is(&b->events[1], "test_debug_event_only") && !b->events[1].is_delegated_op,
       "debug_only: a non-delegated debug event keeps its name");
    ok(!b->events[0].has_perf_data && !b->events[0].start_time,
       "debug_only: no perf data and no start times");
    et_inspector_free(insp);
}

/* §3.2 QUIRK kept: the last occurrence of a repeated instruction survives. */
static void test_repeat(void)
{
    et_error err;
    et_inspector *insp = open_fixture("repeat", NULL, &err);
    if (!ok(insp != NULL, "repeat opens")) {
        diag("%s", err.msg);
        return;
    }
    const et_block *b = &insp->blocks[0];
    is_int((long long)b->n_events, 3, "repeat: three events");
    ok(b->events[0].perf_data.raw[0] == 40.0 / 1e6, "repeat: native_call_add.out is the last (40 ns)");
    ok(b->events[1].perf_data.raw[0] == 44.0 / 1e6, "repeat: OPERATOR_CALL is the last (44 ns)");
    is_int(b->events[0].start_time[0], 30, "repeat: start time of the last occurrence");
    ok(has_warning(insp, "only the last occurrence"), "repeat: warns about repeated events");
    et_inspector_free(insp);

    /* the model deferred: its warnings come with it */
    et_inspector_options o;
    et_inspector_options_init(&o);
    o.defer_stats = o.defer_model = true;
    insp = open_fixture("repeat", &o, &err);
    if (ok(insp && et_inspector_model_pending(insp) && !has_warning(insp, "only the last occurrence"),
           "repeat, defer_model: no warning about the model at open")) {
        ok(et_inspector_ready(insp, &err) == 0 && has_warning(insp, "only the last occurrence") &&
               insp->blocks[0].events[0].perf_data.raw[0] == 40.0 / 1e6,
           "... et_inspector_ready builds it and gives the warning");
    }
    et_inspector_free(insp);
}

/* Allocation events do not fail the load (§10.2); allocator ids are 1-based. */
static void test_alloc(void)
{
    et_error err;
    et_inspector *insp = open_fixture("alloc_small", NULL, &err);
    if (!ok(insp != NULL, "alloc_small opens (the reference fails)")) {
        diag("%s", err.msg);
        return;
    }
    is_int((long long)insp->n_blocks, 2, "alloc_small: Default and Execute (no block without events)");
    const et_block *d = &insp->blocks[0], *x = &insp->blocks[1];
    ok(block_is(d, "Default") && block_is(x, "Execute"), "alloc_small: block names");
    is_int((long long)d->n_events, 1, "alloc_small: allocation events are not profiling events");
    is_int((long long)d->n_allocators, 2, "alloc_small: Default has two allocators");
    ok(d->allocators[1].n == 4 && memcmp(d->allocators[1].p, "temp", 4) == 0,
       "alloc_small: allocator 2 is 'temp'");
    is_int(d->allocation_count[0], 2, "alloc_small: two allocations in Default");
    ok(d->allocations[0].allocator_id == 1 && d->allocations[0].allocation_size == 4096 &&
           d->allocations[1].allocator_id == 2 && d->allocations[1].allocation_size == 0,
       "alloc_small: Default allocations 1:4096 and 2:0 (size absent reads 0)");
    is_int((long long)x->n_runs, 2, "alloc_small: Execute runs merge though allocations differ");
    ok(x->allocation_count[0] == 1 && x->allocation_count[1] == 2 &&
           x->allocations[x->allocation_first[1]].allocation_size == 512,
       "alloc_small: allocations kept per run");
    ok(x->events[0].perf_data.raw[0] == 100.0 / 1e6 && x->events[0].perf_data.raw[1] == 120.0 / 1e6,
       "alloc_small: Method::execute samples");
    ok(has_warning(insp, "allocator that their run does not have"),
       "alloc_small: warns about allocator id 7");
    et_inspector_free(insp);
}

/* §3.1: a run without an events vector is skipped; an empty one is a block. */
static void test_empty_runs(void)
{
    et_error err;
    et_inspector *insp = open_fixture("empty_runs", NULL, &err);
    if (!ok(insp != NULL, "empty_runs opens")) {
        diag("%s", err.msg);
        return;
    }
    is_int((long long)insp->n_blocks, 2, "empty_runs: two blocks");
    ok(block_is(&insp->blocks[0], "Empty") && insp->blocks[0].n_events == 0,
       "empty_runs: the empty events vector gives a block with no events");
    ok(block_is(&insp->blocks[1], "Execute") && insp->blocks[1].runs[0] == 2,
       "empty_runs: the run without events makes no block");
    ok(insp->blocks[1].events[0].perf_data.raw[0] == 1.0, "empty_runs: 1,000,000 ns = 1 ms");
    et_inspector_free(insp);
}

/* §3.7 with etinspect's correction: the true modular difference. */
static void test_wrap(void)
{
    et_error err;
    et_inspector *insp = open_fixture("wrap", NULL, &err);
    if (!ok(insp != NULL, "wrap opens")) {
        diag("%s", err.msg);
        return;
    }
    const et_block *b = &insp->blocks[0];
    ok(b->events[0].perf_data.raw[0] == 496.0 / 1e6,
       "wrap: 2^32 - 4294967000 + 200 = 496 ticks (reference: 495)");
    ok(b->events[1].perf_data.raw[0] == 512.0 / 1e6 && name_is(&b->events[1], "7"),
       "wrap: delegated 0xFFFFFF00 -> 0x100 is 512 ticks (reference mixes units)");
    ok(b->events[2].perf_data.raw[0] == 0.0, "wrap: start == end is 0");
    ok(b->events[3].perf_data.raw[0] == 2296.0 / 1e6, "wrap: Method::execute 2296 ticks");
    et_inspector_free(insp);

    et_inspector_options o;
    et_inspector_options_init(&o);
    o.source_time_scale = ET_TS_CYCLES;
    o.target_time_scale = ET_TS_CYCLES;
    insp = open_fixture("wrap", &o, &err);
    ok(insp && insp->blocks[0].events[1].perf_data.raw[0] == 512.0,
       "wrap: cycles -> cycles, delegated wrap is 512 cycles");
    et_inspector_free(insp);

    insp = open_fixture("bad_time", NULL, &err);
    ok(insp == NULL && err.kind == ET_ERR_VALUE && strstr(err.msg, "ends before it starts") &&
           strstr(err.msg, "bad_time.etdp"),
       "bad_time: end < start beyond 32 bits is an error naming the file");
    et_inspector_free(insp);

    /* the model deferred: an event that ends before it starts is the
     * build's to judge, so the model is built at open, where its error
     * is raised (never at a later read) */
    et_inspector_options_init(&o);
    o.defer_stats = o.defer_model = true;
    insp = open_fixture("bad_time", &o, &err);
    ok(insp == NULL && err.kind == ET_ERR_VALUE && strstr(err.msg, "ends before it starts"),
       "bad_time, defer_model: the same error at open");
    et_inspector_free(insp);
    et_inspector_options_init(&o);
    o.defer_stats = o.defer_model = true;
    insp = open_fixture("wrap", &o, &err);
    ok(insp && !et_inspector_model_pending(insp) && insp->n_blocks == 1 && et_inspector_ready(insp, &err) == 0 &&
           insp->blocks[0].events[0].perf_data.raw[0] == 496.0 / 1e6,
       "wrap, defer_model: wrap-arounds are built at open (496 ticks)");
    et_inspector_free(insp);
}

/* Differing debug data across merged runs: accepted with a warning. */
static void test_debug_differs(void)
{
    et_error err;
    et_inspector *insp = open_fixture("debug_differs", NULL, &err);
    if (!ok(insp != NULL, "debug_differs opens (the reference raises AssertionError)")) {
        diag("%s", err.msg);
        return;
    }
    const et_block *b = &insp->blocks[0];
    is_int((long long)b->n_runs, 2, "debug_differs: both runs in one block");
    ok(b->events[0].debug_count[0] == 1 && b->events[0].debug_count[1] == 1 &&
           b->events[0].debug_first[0] != b->events[0].debug_first[1],
       "debug_differs: every run's debug entries are kept");
    ok(has_warning(insp, "different debug data"), "debug_differs: one warning");
    is_int((long long)insp->warnings.n, 1, "debug_differs: exactly one warning");
    et_inspector_free(insp);
}

/* §4: statistics over 10 runs of 1..10 ms (shuffled). */

/* A time-scale converter that counts its calls (and converts nothing:
 * returning non-zero keeps the default). */
static int converter_calls;
static int count_converter(void *ud, const char *name, size_t name_len, uint64_t ticks, double *out)
{
    (void)name, (void)name_len, (void)ticks, (void)out;
    ++*(int *)ud;
    return -1;
}

static void test_stats(void)
{
    et_error err;
    et_inspector *insp = open_fixture("stats10", NULL, &err);
    if (!ok(insp != NULL, "stats10 opens")) {
        diag("%s", err.msg);
        return;
    }
    const et_perf_data *pd = &insp->blocks[0].events[0].perf_data;
    is_int((long long)pd->n, 10, "stats10: 10 samples");
    ok(pd->raw[0] == 7.0 && pd->raw[9] == 5.0, "stats10: raw in run order");
    ok(pd->p50 == 5.5 && pd->avg == 5.5, "stats10: p50 and avg 5.5");
    ok(fabs(pd->p10 - 1.9) < 1e-12 && fabs(pd->p90 - 9.1) < 1e-12,
       "stats10: p10 1.9 and p90 9.1 (linear interpolation)");
    ok(pd->min == 1.0 && pd->max == 10.0, "stats10: min 1, max 10");
    et_inspector_free(insp);

    /* statistics deferred: pending until et_inspector_ready, then the same */
    et_inspector_options o;
    et_inspector_options_init(&o);
    o.defer_stats = true;
    insp = open_fixture("stats10", &o, &err);
    if (ok(insp != NULL && et_inspector_stats_pending(insp), "stats10, defer_stats: statistics pending after opening")) {
        pd = &insp->blocks[0].events[0].perf_data;
        ok(et_inspector_samples_pending(insp) && pd->p50 == 0.0,
           "... the samples too (not filled yet: not read here), p50 not computed yet");
        ok(et_inspector_ready(insp, &err) == 0 && !et_inspector_stats_pending(insp) && !et_inspector_samples_pending(insp),
           "et_inspector_ready fills and computes them");
        ok(pd->raw[0] == 7.0 && pd->raw[9] == 5.0, "... the samples as the eager build has them");
        ok(pd->p50 == 5.5 && pd->avg == 5.5 && fabs(pd->p10 - 1.9) < 1e-12 &&
               fabs(pd->p90 - 9.1) < 1e-12 && pd->min == 1.0 && pd->max == 10.0,
           "... as the eager build does (p50 5.5, p10 1.9, p90 9.1, min 1, max 10)");
        ok(et_inspector_ready(insp, &err) == 0 && pd->p50 == 5.5, "a second call changes nothing");
    }
    et_inspector_free(insp);

    /* deferred with a converter: the converter is called while the model is
     * built, never later, so the samples are filled then; only the
     * statistics wait */
    et_inspector_options_init(&o);
    o.defer_stats = true;
    o.converter = count_converter;
    o.converter_ud = &converter_calls;
    converter_calls = 0;
    insp = open_fixture("stats10", &o, &err);
    if (ok(insp != NULL && et_inspector_stats_pending(insp) && !et_inspector_samples_pending(insp),
           "stats10, defer_stats and a converter: samples filled at opening, statistics pending")) {
        pd = &insp->blocks[0].events[0].perf_data;
        int calls = converter_calls;
        ok(pd->raw[0] == 7.0 && et_inspector_ready(insp, &err) == 0 && pd->p50 == 5.5 &&
               converter_calls == calls,
           "... et_inspector_ready computes the statistics without calling the converter again");
    }
    et_inspector_free(insp);

    /* the whole model deferred (as Lua opens it): the dump verified, no
     * block until et_inspector_ready, then the eager build's */
    et_inspector_options_init(&o);
    o.defer_stats = o.defer_model = true;
    insp = open_fixture("stats10", &o, &err);
    if (ok(insp != NULL && et_inspector_model_pending(insp) && et_inspector_stats_pending(insp) && insp->n_blocks == 0 &&
               !insp->blocks,
           "stats10, defer_model: no block after opening")) {
        ok(insp->dump.num_profile_events == 10, "... the dump verified: its 10 profile events counted");
        ok(et_inspector_ready(insp, &err) == 0 && !et_inspector_model_pending(insp) && !et_inspector_stats_pending(insp) &&
               insp->n_blocks == 1,
           "et_inspector_ready builds the model");
        pd = &insp->blocks[0].events[0].perf_data;
        ok(pd->n == 10 && pd->raw[0] == 7.0 && pd->raw[9] == 5.0 && pd->p50 == 5.5 &&
               fabs(pd->p10 - 1.9) < 1e-12 && pd->max == 10.0,
           "... with the eager build's samples and statistics");
        ok(insp->blocks[0].reference_case == -1 && insp->bundled_suite == -1,
           "... and its reference outputs (none)");
        ok(et_inspector_ready(insp, &err) == 0 && insp->n_blocks == 1, "a second call changes nothing");
    }
    et_inspector_free(insp);

    /* a converter calls the host while the model is built: built at open */
    et_inspector_options_init(&o);
    o.defer_stats = o.defer_model = true;
    o.converter = count_converter;
    o.converter_ud = &converter_calls;
    insp = open_fixture("stats10", &o, &err);
    ok(insp && !et_inspector_model_pending(insp) && insp->n_blocks == 1,
       "stats10, defer_model and a converter: the model is built at open");
    et_inspector_free(insp);

    /* percentile helpers directly */
    double one[1] = {3.5};
    ok(et_percentile_sorted(one, 1, 90) == 3.5, "percentile of one sample is that sample");
    double x[5] = {5, 1, 4, 2, 3}, qs[3] = {0, 25, 100}, out[3];
    et_percentiles(x, 5, qs, 3, out);
    ok(out[0] == 1 && out[1] == 2 && out[2] == 5, "percentiles 0/25/100 of 1..5");
    double big[200];
    for (int i = 0; i < 200; i++)
        big[i] = (double)((i * 7919) % 200);
    double q3[3] = {10, 50, 90}, o3[3];
    et_percentiles(big, 200, q3, 3, o3);
    /* sorted values are 0..199; h = 199 q / 100 */
    ok(fabs(o3[0] - 19.9) < 1e-9 && o3[1] == 99.5 && fabs(o3[2] - 179.1) < 1e-9,
       "selection-based percentiles of 200 values");
    double s[3] = {1e16, 1.0, -1e16};
    ok(et_numpy_sum(s, 3) == 0.0, "numpy sum adds left to right below 8 values");
    double std4[4] = {2, 4, 4, 6};
    ok(fabs(et_numpy_std(std4, 4) - sqrt(2.0)) < 1e-15, "population standard deviation");
}

/* Options: cycles rule and exactly-one-input rule (§1.3). */
static void test_options(void)
{
    et_error err;
    et_inspector_options o;
    et_inspector_options_init(&o);
    o.source_time_scale = ET_TS_CYCLES;
    et_inspector *insp = open_fixture("sample", &o, &err);
    ok(insp == NULL && err.kind == ET_ERR_USAGE &&
           strstr(err.msg, "both the source and target time scale have to be in cycles"),
       "cycles mixed with ms is refused");
    et_inspector_options_init(&o);
    insp = et_inspector_open(&o, &err);
    ok(insp == NULL && err.kind == ET_ERR_USAGE &&
           strstr(err.msg, "exactly one of etdump_path or etdump_data"),
       "neither etdump_path nor etdump_data is refused");
    et_inspector_options_init(&o);
    o.target_time_scale = ET_TS_US;
    insp = open_fixture("stats10", &o, &err);
    ok(insp && insp->blocks[0].events[0].perf_data.raw[0] == 7000.0, "ns -> us divides by 1000");
    et_inspector_free(insp);
    ok(et_time_scale_factor(ET_TS_MS, ET_TS_NS) == 1.0 / 1000000.0, "ms -> ns factor is 1e-6");
}

int main(void)
{
    const char *b = getenv("ET_BUILD");
    snprintf(fixture_dir, sizeof fixture_dir, "%s/fixtures", b ? b : "build");
    test_appendix_c();
    test_groups();
    test_debug_only();
    test_repeat();
    test_alloc();
    test_empty_runs();
    test_wrap();
    test_debug_differs();
    test_stats();
    test_options();
    return done_testing();
}
