/*
 * test_trace.c - the timeline export (src/core/output/trace.h): run selections,
 * errors, and a few facts of the document written for the sample ETDump
 * and the fixtures (units, synthetic starts, counters, the metadata
 * callback, windows).  The end-to-end tests (tests/e2e/trace.t) compare
 * whole traces with golden files and check them with trace_check.
 *
 * Environment: ET_BUILD (fixtures in ET_BUILD/fixtures), ET_SRC (the
 * checkout: tests/legacy/main.bin).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "output/trace.h"

static char fixture_dir[4096];
static const char *src_dir = ".";

static et_inspector *open_fixture(const char *name, et_inspector_options *o, et_error *err)
{
    /* the inspector keeps the path (its etdump_label, the trace's
     * otherData.etdump): it must outlive the inspector */
    static char paths[16][4200];
    static unsigned next;
    char *path = paths[next++ % 16];
    snprintf(path, sizeof paths[0], "%s/%s.etdp", fixture_dir, name);
    o->etdump_path = path;
    return et_inspector_open(o, err);
}

/* The trace of `insp` with options `o` as a malloc'd string, or NULL with
 * `err` set. */
static char *trace_of(const et_inspector *insp, const et_trace_options *o, et_error *err)
{
    FILE *f = tmpfile();
    if (!f) {
        et_fail(err, ET_ERR_IO, "tmpfile");
        return NULL;
    }
    if (et_trace_write(insp, o, f, err) != 0) {
        fclose(f);
        return NULL;
    }
    long n = ftell(f);
    rewind(f);
    char *s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s)
        s[n] = '\0';
    fclose(f);
    return s;
}

static size_t count(const char *hay, const char *needle)
{
    size_t k = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p++)
        k++;
    return k;
}

static void test_parse_runs(void)
{
    unsigned char sel[10];
    et_error err;
    ok(et_trace_parse_runs(NULL, 10, sel, &err) == 0 && !memchr(sel, 0, 10), "NULL: every run");
    ok(et_trace_parse_runs(" ", 10, sel, &err) == 0 && !memchr(sel, 0, 10), "blank: every run");
    static const unsigned char want[10] = {1, 1, 1, 1, 0, 0, 0, 1, 0, 0};
    ok(et_trace_parse_runs("0-3,7", 10, sel, &err) == 0 && !memcmp(sel, want, 10), "0-3,7");
    static const unsigned char want2[10] = {0, 0, 1, 0, 1, 1, 0, 0, 0, 1};
    ok(et_trace_parse_runs(" 2 , 4 - 5,9,9", 10, sel, &err) == 0 && !memcmp(sel, want2, 10),
       "blanks around numbers, repeats");
    const char *bad[] = {"3-1", "a", "1,", ",1", "1--2", "-1", "1 2", "1;2", "0x3",
                         "1234567890123456789012"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char want_msg[200];
        snprintf(want_msg, sizeof want_msg, "runs: expected a list like 0-3,7, found '%s'", bad[i]);
        ok(et_trace_parse_runs(bad[i], 10, sel, &err) == -1 && err.kind == ET_ERR_USAGE &&
               strcmp(err.msg, want_msg) == 0,
           "'%s' is malformed", bad[i]);
    }
    ok(et_trace_parse_runs("8-10", 10, sel, &err) == -1 && err.kind == ET_ERR_USAGE &&
           strcmp(err.msg, "runs: run 10 is not in the dump (its runs are 0-9)") == 0,
       "a run beyond the dump");
    ok(et_trace_parse_runs("0", 0, sel, &err) == -1 &&
           strcmp(err.msg, "runs: run 0 is not in the dump (it has no runs)") == 0,
       "a dump without runs");
}

static int md_calls;

static char *metadata(void *ud, size_t block, size_t event, size_t run)
{
    (void)ud;
    md_calls++;
    char *s = malloc(64);
    if (s)
        snprintf(s, 64, "{\"b\":%zu,\"e\":%zu,\"r\":%zu}", block, event, run);
    return s;
}

static void test_sample(void)
{
    et_error err;
    et_inspector_options io;
    et_inspector_options_init(&io);
    et_inspector *insp = open_fixture("sample", &io, &err);
    if (!insp) {
        diag("%s", err.msg);
        skip_n(12, "build/fixtures/sample.etdp (make fixtures)");
        return;
    }
    et_trace_options o;
    et_trace_options_init(&o);
    char *t = trace_of(insp, &o, &err);
    ok(t != NULL, "sample: written");
    if (t) {
        ok(strncmp(t, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n", 39) == 0,
           "the document starts with displayTimeUnit and traceEvents");
        /* ts 0 is Program::load_method's start (500 ns); Method::init
         * starts at 1000 ns and lasts 0.04 ms */
        ok(strstr(t, "{\"name\":\"Method::init\",\"cat\":\"framework\",\"ph\":\"X\",\"ts\":0.5,"
                     "\"dur\":40,\"pid\":1,\"tid\":1001,\"args\":{\"run\":0,\"instruction_id\":0}}") !=
               NULL,
           "microseconds: Method::init at 0.5 us for 40 us, on pid 1's framework track");
        ok(count(t, "\"ph\":\"X\"") == 26, "26 slices");
        ok(strstr(t, "\"name\":\"delegate (overlap 1)\"") != NULL,
           "the overlapping delegated events of run 2 use an overlap track");
        ok(strstr(t, "\"slices\":26,\"counter_samples\":0,\"synthetic_starts\":0,"
                     "\"clamped_slices\":0,\"overlap_slices\":2,\"dropped_slices\":0}}\n") != NULL,
           "otherData counts");
        free(t);
    } else {
        diag("%s", err.msg);
        skip_n(5, "no trace");
    }
    md_calls = 0;
    o.metadata = metadata;
    o.runs = "2";
    t = trace_of(insp, &o, &err);
    ok(t && md_calls == 2 && strstr(t, "\"delegate_metadata\":{\"b\":1,\"e\":3,\"r\":1}"),
       "the metadata callback: delegated events only, block-run index, embedded as is");
    ok(t && count(t, "\"ph\":\"X\"") == 8 && count(t, "\"run\":2") == 8,
       "runs: only RunData 2");
    free(t);
    o.metadata = NULL;
    o.runs = NULL;
    o.window_start_us = 1e9;
    o.window_end_us = 2e9;
    t = trace_of(insp, &o, &err);
    ok(t && count(t, "\"ph\"") == 0 && strstr(t, "\"window_us\":[1000000000,2000000000]"),
       "a window after everything: no events at all, not even names");
    free(t);
    et_trace_options_init(&o);
    /* on the calling thread, and through the writer thread */
    static const char *const threads[2] = {"1", "2"};
    for (int k = 0; k < 2; k++) {
        setenv("ETINSPECT_THREADS", threads[k], 1);
        FILE *ro = fopen("/dev/null", "r");
        errno = 0;
        ok(ro && et_trace_write(insp, &o, ro, &err) == -1 && err.kind == ET_ERR_IO &&
               strcmp(err.msg, "cannot write the trace") == 0 && errno == EBADF,
           "a write error is ET_ERR_IO 'cannot write the trace', errno the write's (EBADF) "
           "(%s thread(s))", threads[k]);
        if (ro)
            fclose(ro);
    }
    unsetenv("ETINSPECT_THREADS");
    et_inspector_free(insp);

    et_inspector_options_init(&io);
    io.source_time_scale = io.target_time_scale = ET_TS_CYCLES;
    insp = open_fixture("sample", &io, &err);
    FILE *sink = fopen("/dev/null", "w");
    ok(insp && sink && et_trace_write(insp, &o, sink, &err) == -1 && err.kind == ET_ERR_USAGE &&
           strcmp(err.msg, "the source time scale is cycles: give the clock frequency "
                           "(cycles_hz / --cycles_hz) to place events in time") == 0,
       "cycles without cycles_hz");
    if (sink)
        fclose(sink);
    o.cycles_hz = 2e9;
    t = insp ? trace_of(insp, &o, &err) : NULL;
    ok(t && strstr(t, "\"name\":\"Method::init\",\"cat\":\"framework\",\"ph\":\"X\",\"ts\":0.25,"
                      "\"dur\":20,"),
       "cycles at 2 GHz: 500 cycles are 0.25 us");
    free(t);
    et_inspector_free(insp);
}

static void test_fixtures(void)
{
    et_error err;
    et_inspector_options io;
    et_trace_options o;
    et_trace_options_init(&o);
    et_inspector_options_init(&io);
    et_inspector *insp = open_fixture("delegates", &io, &err);
    char *t = insp ? trace_of(insp, &o, &err) : NULL;
    ok(t && strstr(t, "{\"name\":\"conv_node (us)\",\"cat\":\"delegate\",\"ph\":\"X\",\"ts\":0.05,"
                      "\"dur\":0.15,\"pid\":1,\"tid\":1013,\"args\":{\"run\":0,"
                      "\"synthetic_start\":true,"),
       "a zero start is laid out from its DELEGATE_CALL's start, on the synthetic track");
    ok(t && strstr(t, "\"name\":\"conv_node (bytes)\",\"cat\":\"delegate\",\"ph\":\"X\",\"ts\":3.2,"
                      "\"dur\":0.3,\"pid\":1,\"tid\":1013,\"args\":{\"run\":0,\"synthetic_start\":true,"
                      "\"logged_dur_us\":4.096,"),
       "... one after another, cut at the DELEGATE_CALL's end");
    free(t);
    et_inspector_free(insp);

    insp = open_fixture("alloc_small", &io, &err);
    t = insp ? trace_of(insp, &o, &err) : NULL;
    ok(t && strstr(t, "{\"name\":\"allocated bytes\",\"ph\":\"C\",\"ts\":0,\"pid\":1,\"args\":{"),
       "alloc_small: a counter sample at the run's start");
    ok(t && strstr(t, "\"allocator 7\":8}}"), "an allocator id the run does not have");
    free(t);
    et_inspector_free(insp);

    char path[4200];
    snprintf(path, sizeof path, "%s/tests/legacy/main.bin", src_dir);
    et_inspector_options_init(&io);
    io.profile_results_path = path;
    insp = et_inspector_open(&io, &err);
    FILE *sink = fopen("/dev/null", "w");
    ok(insp && sink && et_trace_write(insp, &o, sink, &err) == -1 && err.kind == ET_ERR_USAGE &&
           strstr(err.msg, "legacy profiler dump"),
       "a legacy profiler dump is refused");
    if (sink)
        fclose(sink);
    et_inspector_free(insp);
}

int main(void)
{
    const char *b = getenv("ET_BUILD");
    const char *s = getenv("ET_SRC");
    snprintf(fixture_dir, sizeof fixture_dir, "%s/fixtures", b ? b : "build");
    if (s)
        src_dir = s;
    test_parse_runs();
    test_sample();
    test_fixtures();
    return done_testing();
}
