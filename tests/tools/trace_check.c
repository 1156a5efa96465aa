/*
 * trace_check.c - validate a Chrome Trace Event JSON file (docs/trace.md,
 * src/core/output/trace.h) the way the tests need it:
 *
 *   trace_check [-q] TRACE.json...
 *
 * Checks: the file is well-formed JSON; it is an object with a
 * "traceEvents" array (or is such an array); "displayTimeUnit", when
 * present, is "ms" or "ns"; every event is an object with a string "ph"
 * among X, C and M and the fields that phase needs -
 *   X: name (string), ph, ts, dur (numbers), pid, tid (integers);
 *   C: name, ph, ts, pid, args (an object of numbers);
 *   M: name, ph, pid, args (an object); process_name / thread_name need
 *      args.name (a string), *_sort_index args.sort_index (an integer),
 *      thread_* a tid;
 * ts and dur finite and >= 0; every pid with an X or C event has a
 * process_name and every (pid, tid) with an X event a thread_name; X
 * slices nest on each (pid, tid) (sorted by ts then longest first, each
 * inside the innermost open slice or after it: no partial overlap), with
 * times compared in integer nanoseconds (llround(us * 1000), as Perfetto
 * reads them); counter series never decrease along ts per (pid, name,
 * series).
 *
 * Prints one line per file to stdout ("FILE: ok: N events (X x, C c, M m)")
 * unless -q; problems to stderr (at most 20 per file), "trace_check: FILE:
 * event I: ...".  Exit status 0 when every file passes, 1 otherwise, 2 on
 * usage errors.
 */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MESSAGES 20

typedef struct xslice {
    int64_t pid, tid, ts, end;
    size_t index;
    const char *name;
} xslice;

typedef struct csample {
    int64_t pid, ts;
    const char *name, *series;
    double value;
    size_t index;
} csample;

typedef struct named {
    int64_t pid, tid; /* tid -1: a process */
} named;

static const char *g_file;
static int g_errors;

static void problem(size_t index, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void problem(size_t index, const char *fmt, ...)
{
    if (++g_errors > MAX_MESSAGES)
        return;
    va_list ap;
    va_start(ap, fmt);
    if (index == SIZE_MAX)
        fprintf(stderr, "trace_check: %s: ", g_file);
    else
        fprintf(stderr, "trace_check: %s: event %zu: ", g_file, index);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static bool get_int(json_t *v, int64_t *out)
{
    if (json_is_integer(v)) {
        *out = (int64_t)json_integer_value(v);
        return true;
    }
    return false;
}

/* A time in us (number, finite, >= 0) as integer ns. */
static bool get_time(json_t *ev, const char *key, size_t index, int64_t *ns)
{
    json_t *v = json_object_get(ev, key);
    if (!json_is_number(v)) {
        problem(index, "'%s' missing or not a number", key);
        return false;
    }
    double x = json_number_value(v);
    if (!isfinite(x) || x < 0) {
        problem(index, "'%s' is %g: not finite and >= 0", key, x);
        return false;
    }
    *ns = (int64_t)llround(x * 1000.0);
    return true;
}

static int cmp_x(const void *a, const void *b)
{
    const xslice *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    if (x->end != y->end)
        return x->end > y->end ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static int cmp_c(const void *a, const void *b)
{
    const csample *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    int c = strcmp(x->name, y->name);
    if (!c)
        c = strcmp(x->series, y->series);
    if (c)
        return c;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static bool is_named(const named *n, size_t count, int64_t pid, int64_t tid)
{
    for (size_t i = 0; i < count; i++)
        if (n[i].pid == pid && n[i].tid == tid)
            return true;
    return false;
}

/* Grow *p (elements of `size`) to hold n + 1. */
static void *room(void *p, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return p;
    size_t c = *cap ? *cap * 2 : 64;
    void *q = realloc(p, c * size);
    if (!q) {
        fprintf(stderr, "trace_check: out of memory\n");
        exit(2);
    }
    *cap = c;
    return q;
}

static int check_file(const char *path, bool quiet)
{
    g_file = path;
    g_errors = 0;
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr);
    if (!root) {
        fprintf(stderr, "trace_check: %s: not JSON: line %d, column %d: %s\n", path, jerr.line,
                jerr.column, jerr.text);
        return 1;
    }
    json_t *events = root;
    if (json_is_object(root)) {
        events = json_object_get(root, "traceEvents");
        json_t *unit = json_object_get(root, "displayTimeUnit");
        if (unit && (!json_is_string(unit) || (strcmp(json_string_value(unit), "ms") != 0 &&
                                               strcmp(json_string_value(unit), "ns") != 0)))
            problem(SIZE_MAX, "displayTimeUnit is not \"ms\" or \"ns\"");
    }
    if (!json_is_array(events)) {
        problem(SIZE_MAX, "no traceEvents array");
        json_decref(root);
        return 1;
    }
    size_t n = json_array_size(events);
    xslice *xs = NULL;
    csample *cs = NULL;
    named *names = NULL;
    size_t nx = 0, nc = 0, nm = 0, capx = 0, capc = 0, capn = 0;
    size_t count[3] = {0, 0, 0}; /* X, C, M events */
    for (size_t i = 0; i < n; i++) {
        json_t *ev = json_array_get(events, i);
        if (!json_is_object(ev)) {
            problem(i, "not an object");
            continue;
        }
        json_t *ph = json_object_get(ev, "ph");
        const char *p = json_string_value(ph);
        if (!p || strlen(p) != 1 || !strchr("XCM", p[0])) {
            problem(i, "'ph' missing or not one of X, C, M");
            continue;
        }
        const char *name = json_string_value(json_object_get(ev, "name"));
        if (!name) {
            problem(i, "'name' missing or not a string");
            continue;
        }
        count[p[0] == 'X' ? 0 : p[0] == 'C' ? 1 : 2]++;
        int64_t pid, tid = -1, ts = 0, dur = 0;
        if (!get_int(json_object_get(ev, "pid"), &pid)) {
            problem(i, "'pid' missing or not an integer");
            continue;
        }
        json_t *tidv = json_object_get(ev, "tid");
        if (tidv && !get_int(tidv, &tid)) {
            problem(i, "'tid' is not an integer");
            continue;
        }
        json_t *args = json_object_get(ev, "args");
        if (p[0] == 'X') {
            if (!tidv) {
                problem(i, "'tid' missing");
                continue;
            }
            if (!get_time(ev, "ts", i, &ts) || !get_time(ev, "dur", i, &dur))
                continue;
            xs = room(xs, &capx, nx, sizeof *xs);
            xs[nx++] = (xslice){pid, tid, ts, ts + dur, i, name};
        } else if (p[0] == 'C') {
            if (!get_time(ev, "ts", i, &ts))
                continue;
            if (!json_is_object(args) || json_object_size(args) == 0) {
                problem(i, "counter without args");
                continue;
            }
            const char *key;
            json_t *val;
            json_object_foreach(args, key, val) {
                if (!json_is_number(val) || !isfinite(json_number_value(val))) {
                    problem(i, "counter series '%s' is not a finite number", key);
                    continue;
                }
                cs = room(cs, &capc, nc, sizeof *cs);
                cs[nc++] = (csample){pid, ts, name, key, json_number_value(val), i};
            }
        } else {
            if (!json_is_object(args)) {
                problem(i, "metadata without args");
                continue;
            }
            bool thread = strncmp(name, "thread_", 7) == 0;
            if (thread && !tidv) {
                problem(i, "'%s' without tid", name);
                continue;
            }
            if (strcmp(name, "process_name") == 0 || strcmp(name, "thread_name") == 0) {
                if (!json_is_string(json_object_get(args, "name"))) {
                    problem(i, "'%s' without a string args.name", name);
                    continue;
                }
                names = room(names, &capn, nm, sizeof *names);
                names[nm++] = (named){pid, thread ? tid : -1};
            } else if (strcmp(name, "process_sort_index") == 0 ||
                       strcmp(name, "thread_sort_index") == 0) {
                int64_t k;
                if (!get_int(json_object_get(args, "sort_index"), &k))
                    problem(i, "'%s' without an integer args.sort_index", name);
            }
        }
    }
    /* names */
    for (size_t i = 0; i < nx; i++) {
        if (!is_named(names, nm, xs[i].pid, -1))
            problem(xs[i].index, "pid %lld has no process_name", (long long)xs[i].pid);
        else if (!is_named(names, nm, xs[i].pid, xs[i].tid))
            problem(xs[i].index, "pid %lld tid %lld has no thread_name", (long long)xs[i].pid,
                    (long long)xs[i].tid);
    }
    for (size_t i = 0; i < nc; i++)
        if (!is_named(names, nm, cs[i].pid, -1))
            problem(cs[i].index, "pid %lld has no process_name", (long long)cs[i].pid);
    /* nesting */
    qsort(xs, nx, sizeof *xs, cmp_x);
    size_t *stack = malloc((nx ? nx : 1) * sizeof *stack), depth = 0;
    if (!stack) {
        fprintf(stderr, "trace_check: out of memory\n");
        exit(2);
    }
    for (size_t i = 0; i < nx; i++) {
        if (i && (xs[i].pid != xs[i - 1].pid || xs[i].tid != xs[i - 1].tid))
            depth = 0;
        while (depth && xs[stack[depth - 1]].end <= xs[i].ts)
            depth--;
        if (depth && xs[i].end > xs[stack[depth - 1]].end) {
            const xslice *o = &xs[stack[depth - 1]];
            problem(xs[i].index, "'%s' [%lld, %lld] ns overlaps '%s' (event %zu) [%lld, %lld] ns "
                    "on pid %lld tid %lld without nesting", xs[i].name, (long long)xs[i].ts,
                    (long long)xs[i].end, o->name, o->index, (long long)o->ts, (long long)o->end,
                    (long long)xs[i].pid, (long long)xs[i].tid);
            continue;
        }
        stack[depth++] = i;
    }
    free(stack);
    /* counters */
    qsort(cs, nc, sizeof *cs, cmp_c);
    for (size_t i = 1; i < nc; i++) {
        const csample *a = &cs[i - 1], *b = &cs[i];
        if (a->pid == b->pid && !strcmp(a->name, b->name) && !strcmp(a->series, b->series) &&
            b->value < a->value)
            problem(b->index, "counter '%s' series '%s' of pid %lld decreases from %.17g to "
                    "%.17g", b->name, b->series, (long long)b->pid, a->value, b->value);
    }
    if (g_errors > MAX_MESSAGES)
        fprintf(stderr, "trace_check: %s: %d more problems\n", path, g_errors - MAX_MESSAGES);
    if (!g_errors && !quiet)
        printf("%s: ok: %zu events (X %zu, C %zu, M %zu)\n", path, n, count[0], count[1],
               count[2]);
    free(xs);
    free(cs);
    free(names);
    json_decref(root);
    return g_errors ? 1 : 0;
}

int main(int argc, char **argv)
{
    bool quiet = false;
    int i = 1;
    if (i < argc && strcmp(argv[i], "-q") == 0)
        quiet = true, i++;
    if (i >= argc) {
        fprintf(stderr, "usage: trace_check [-q] TRACE.json...\n");
        return 2;
    }
    int rc = 0;
    for (; i < argc; i++)
        rc |= check_file(argv[i], quiet);
    return rc;
}
