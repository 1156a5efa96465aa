/*
 * cmp_ref_json - compare etinspect's --json output with the reference
 * Inspector's ref/NAME.json (../shared/corpus/ref).
 *
 *   cmp_ref_json OURS.json REF.json [--wrap N FACTOR]
 *
 * For every block and event (in order) it compares: block name and event
 * count; event name, perf_data (raw and p10/p50/p90/avg/min/max, relative
 * tolerance 1e-12), start_time, delegate_debug_identifier, is_delegated_op,
 * _instruction_id and raw_delegate_debug_metadatas_hex.
 *
 * With --wrap N FACTOR, raw samples may differ from the reference only as
 * etinspect's 32-bit wrap-around correction predicts (docs/differences.md),
 * and exactly N samples must do so.  FACTOR is the time-scale factor
 * (1000000 for ns -> ms).  From the reference's value and the start time S
 * the end time E is recovered, and etinspect's value must equal
 * (2^32 - S + E) / FACTOR:
 *   non-delegated: reference = (4294967295 - S + E) / FACTOR
 *   delegated:     reference = (4294967295 - S / FACTOR) + E / FACTOR
 * Statistics of events with a corrected sample are then not compared.
 *
 * Prints one line per difference; exit 0 when they agree, 1 otherwise,
 * 2 on usage or unreadable input.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
static long wrapped;

static void fail(const char *where, const char *what)
{
    printf("DIFF %s: %s\n", where, what);
    failures++;
}

static int close_enough(double a, double b)
{
    if (a == b)
        return 1;
    double scale = fmax(fabs(a), fabs(b));
    return fabs(a - b) <= 1e-12 * scale;
}

static void cmp_exact(const char *where, const char *field, json_t *a, json_t *b)
{
    if (!json_equal(a, b)) {
        char *sa = json_dumps(a, JSON_COMPACT | JSON_ENCODE_ANY);
        char *sb = json_dumps(b, JSON_COMPACT | JSON_ENCODE_ANY);
        char msg[512];
        snprintf(msg, sizeof msg, "%s: ours %.200s, reference %.200s", field, sa ? sa : "?",
                 sb ? sb : "?");
        fail(where, msg);
        free(sa);
        free(sb);
    }
}

/* Is `ours` the corrected value of reference sample `ref` started at `s`? */
static int is_wrap_correction(double ours, double ref, double s, int delegated, double f)
{
    double e, want;
    if (delegated)
        e = (ref - 4294967295.0 + s / f) * f;
    else
        e = ref * f - 4294967295.0 + s;
    e = round(e);
    if (e < 0 || e >= s)
        return 0; /* not a wrap-around */
    want = (4294967296.0 - s + e) / f;
    return fabs(ours - want) <= 1e-9 * fmax(fabs(want), 1e-300);
}

static void cmp_event(const char *where, json_t *o, json_t *r, int wrap_mode, double factor)
{
    static const char *const exact[] = {"name", "start_time", "delegate_debug_identifier",
                                        "is_delegated_op", "_instruction_id",
                                        "raw_delegate_debug_metadatas_hex"};
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
        cmp_exact(where, exact[i], json_object_get(o, exact[i]), json_object_get(r, exact[i]));
    json_t *po = json_object_get(o, "perf_data"), *pr = json_object_get(r, "perf_data");
    if (json_is_null(po) || json_is_null(pr)) {
        cmp_exact(where, "perf_data", po, pr);
        return;
    }
    json_t *ro = json_object_get(po, "raw"), *rr = json_object_get(pr, "raw");
    json_t *st = json_object_get(r, "start_time");
    int delegated = json_is_true(json_object_get(r, "is_delegated_op"));
    if (json_array_size(ro) != json_array_size(rr)) {
        fail(where, "perf_data.raw: different number of samples");
        return;
    }
    int corrected = 0;
    for (size_t k = 0; k < json_array_size(ro); k++) {
        double a = json_number_value(json_array_get(ro, k));
        double b = json_number_value(json_array_get(rr, k));
        if (close_enough(a, b))
            continue;
        double s = json_number_value(json_array_get(st, k));
        if (wrap_mode && is_wrap_correction(a, b, s, delegated, factor)) {
            printf("WRAP %s run %zu: ours %.17g, reference %.17g (start %.0f)\n", where, k, a, b,
                   s);
            wrapped++;
            corrected = 1;
            continue;
        }
        char msg[256];
        snprintf(msg, sizeof msg, "perf_data.raw[%zu]: ours %.17g, reference %.17g", k, a, b);
        fail(where, msg);
    }
    if (corrected)
        return;
    static const char *const stats[] = {"p10", "p50", "p90", "avg", "min", "max"};
    for (size_t i = 0; i < 6; i++) {
        double a = json_number_value(json_object_get(po, stats[i]));
        double b = json_number_value(json_object_get(pr, stats[i]));
        if (!close_enough(a, b)) {
            char msg[256];
            snprintf(msg, sizeof msg, "perf_data.%s: ours %.17g, reference %.17g", stats[i], a, b);
            fail(where, msg);
        }
    }
}

int main(int argc, char **argv)
{
    int wrap_mode = 0;
    long want_wrapped = 0;
    double factor = 1;
    if (argc == 6 && strcmp(argv[3], "--wrap") == 0) {
        wrap_mode = 1;
        want_wrapped = atol(argv[4]);
        factor = atof(argv[5]);
    } else if (argc != 3) {
        fprintf(stderr, "usage: cmp_ref_json OURS.json REF.json [--wrap N FACTOR]\n");
        return 2;
    }
    json_error_t je;
    json_t *ours = json_load_file(argv[1], 0, &je);
    if (!ours) {
        fprintf(stderr, "%s: line %d column %d: %s\n", argv[1], je.line, je.column, je.text);
        return 2;
    }
    json_t *ref = json_load_file(argv[2], 0, &je);
    if (!ref) {
        fprintf(stderr, "%s: line %d column %d: %s\n", argv[2], je.line, je.column, je.text);
        json_decref(ours);
        return 2;
    }
    json_t *bo = json_object_get(ours, "event_blocks"), *br = json_object_get(ref, "event_blocks");
    if (!json_is_array(br)) {
        fprintf(stderr, "%s: no event_blocks (the reference failed on this file)\n", argv[2]);
        json_decref(ours);
        json_decref(ref);
        return 2;
    }
    if (json_array_size(bo) != json_array_size(br))
        fail("event_blocks", "different number of blocks");
    long events = 0;
    for (size_t b = 0; b < json_array_size(bo) && b < json_array_size(br); b++) {
        json_t *xo = json_array_get(bo, b), *xr = json_array_get(br, b);
        char where[128];
        snprintf(where, sizeof where, "block %zu", b);
        cmp_exact(where, "name", json_object_get(xo, "name"), json_object_get(xr, "name"));
        cmp_exact(where, "bundled_input_index", json_object_get(xo, "bundled_input_index"),
                  json_object_get(xr, "bundled_input_index"));
        json_t *eo = json_object_get(xo, "events"), *er = json_object_get(xr, "events");
        if (json_array_size(eo) != json_array_size(er))
            fail(where, "different number of events");
        for (size_t e = 0; e < json_array_size(eo) && e < json_array_size(er); e++) {
            snprintf(where, sizeof where, "block %zu event %zu", b, e);
            cmp_event(where, json_array_get(eo, e), json_array_get(er, e), wrap_mode, factor);
            events++;
        }
    }
    if (wrap_mode && wrapped != want_wrapped) {
        char msg[128];
        snprintf(msg, sizeof msg, "%ld samples carry the wrap-around correction, expected %ld",
                 wrapped, want_wrapped);
        fail("wrap-around", msg);
    }
    printf("%ld events compared, %d differences%s\n", events, failures,
           wrap_mode ? ", wrap-around corrections checked" : "");
    json_decref(ours);
    json_decref(ref);
    return failures ? 1 : 0;
}
