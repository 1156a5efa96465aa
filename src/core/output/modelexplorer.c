/* modelexplorer.c - Model Explorer's graph and node-data files; see
 * modelexplorer.h and docs/model-explorer.md. */
#include "output/modelexplorer.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/strbuf.h"
#include "files/outfile.h"
#include "model/link.h"

const char *const et_mx_files[] = {"graph.json", "node_data_latency.json",
                                   "node_data_share.json", "node_data_delegated.json",
                                   "node_data_ratio.json", NULL};

enum { F_GRAPH, F_LATENCY, F_SHARE, F_DELEGATED, F_RATIO, F_COUNT };

/* ------------------------------------------------------------------ */
/* JSON pieces (strbuf.h) */

static void j_strz(et_strbuf *sb, const char *s) { et_sb_add_json_str(sb, s, strlen(s)); }

/* A finite number as Python's repr (callers leave out NaN and infinities). */
static void j_num(et_strbuf *sb, double v) { et_sb_add_repr(sb, v); }

/* ------------------------------------------------------------------ */
/* node ids and the data linked to nodes */

/* The GraphNode id of node i as a JSON string: its name; a later node
 * sharing the name of an earlier one (names read from the JSON are kept as
 * they are) gets "NAME#i", so that ids stay unique within the graph. */
static void node_id(et_strbuf *sb, const et_graph *g, size_t i)
{
    const et_graph_node *n = &g->nodes[i];
    if (et_graph_find(g, n->name) == n) {
        j_strz(sb, n->name);
        return;
    }
    et_strbuf t = {0};
    et_sb_adds(&t, n->name);
    et_sb_addc(&t, '#');
    et_sb_add_u64(&t, i);
    if (t.failed)
        sb->failed = true;
    else
        et_sb_add_json_str(sb, t.p, t.n);
    et_sb_free(&t);
}

/* What the events of one block say about the nodes of its graph. */
typedef struct mx_data {
    const et_graph *graph;
    const et_block *block;    /* the first block linked to the graph, or NULL */
    double *latency;          /* per node: sum of the linked events' p50 shares */
    bool *has;                /* per node: an event with perf data reaches it */
    bool *delegated;          /* per node: a delegated event or delegate call does */
    const char **backend;     /* per node: that event's backend name, or NULL */
    double execute_p50;       /* the block's Method::execute p50, NaN when none */
} mx_data;

static void mx_data_free(mx_data *d)
{
    free(d->latency);
    free(d->has);
    free(d->delegated);
    free(d->backend);
    memset(d, 0, sizeof *d);
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static bool name_is(const et_event *ev, const char *s)
{
    et_str n = et_event_name(ev);
    size_t len = strlen(s);
    return n.p && n.n == len && memcmp(n.p, s, len) == 0;
}

/* Fill `d` for graph `g` of `insp`.  Returns 0, or -1 with `err` set
 * (ET_ERR_NOMEM). */
static int mx_data_make(const et_inspector *insp, const et_graph *g, mx_data *d, et_error *err)
{
    memset(d, 0, sizeof *d);
    d->graph = g;
    d->execute_p50 = NAN;
    size_t n = g->n_nodes ? g->n_nodes : 1;
    d->latency = calloc(n, sizeof *d->latency);
    d->has = calloc(n, sizeof *d->has);
    d->delegated = calloc(n, sizeof *d->delegated);
    d->backend = calloc(n, sizeof *d->backend);
    if (!d->latency || !d->has || !d->delegated || !d->backend) {
        mx_data_free(d);
        return et_fail(err, ET_ERR_NOMEM, "out of memory");
    }
    /* the first block linked to g whose events reach nodes (a block of
     * framework events only, such as "Default" with Method::init, has
     * none) */
    for (size_t b = 0; b < insp->n_blocks && !d->block; b++) {
        const et_block *cand = &insp->blocks[b];
        for (size_t e = 0; cand->graph == g && e < cand->n_events && !d->block; e++)
            if (cand->events[e].node_count)
                d->block = cand;
    }
    if (!d->block)
        return 0;
    const et_block *blk = d->block;
    /* Nested events time the same operator twice: an OPERATOR_CALL holds
     * its kernel's native_call_* event, a delegate call its delegated
     * events.  The inner events count; an OPERATOR_CALL whose instruction
     * has another (kernel) event reaching nodes, and a delegate call whose
     * instruction has delegated events, do not. */
    size_t n_ev = blk->n_events ? blk->n_events : 1;
    size_t n_del = 0, n_ker = 0;
    int32_t *del = malloc(n_ev * sizeof *del), *ker = malloc(n_ev * sizeof *ker);
    if (!del || !ker) {
        free(del);
        free(ker);
        mx_data_free(d);
        return et_fail(err, ET_ERR_NOMEM, "out of memory");
    }
    for (size_t e = 0; e < blk->n_events; e++) {
        const et_event *ev = &blk->events[e];
        if (ev->is_delegated_op)
            del[n_del++] = ev->instruction_id;
        else if (ev->node_count && !ev->delegate_backend_name && !name_is(ev, "OPERATOR_CALL"))
            ker[n_ker++] = ev->instruction_id;
    }
    qsort(del, n_del, sizeof *del, cmp_i32);
    qsort(ker, n_ker, sizeof *ker, cmp_i32);
    for (size_t e = 0; e < blk->n_events; e++) {
        const et_event *ev = &blk->events[e];
        if (isnan(d->execute_p50) && ev->has_perf_data && name_is(ev, "Method::execute"))
            d->execute_p50 = ev->perf_data.p50;
        if (!ev->node_count)
            continue;
        bool call = !ev->is_delegated_op && ev->delegate_backend_name;
        bool detailed =
            (call && n_del && bsearch(&ev->instruction_id, del, n_del, sizeof *del, cmp_i32)) ||
            (!call && !ev->is_delegated_op && n_ker && name_is(ev, "OPERATOR_CALL") &&
             bsearch(&ev->instruction_id, ker, n_ker, sizeof *ker, cmp_i32));
        uint32_t k = 0, bits;
        for (uint32_t j = 0; j < ev->node_count; j++)
            if ((et_link_node(insp, blk, ev, j, &bits), bits & ET_LINK_NODE_FIRST))
                k++;
        double p50 = ev->has_perf_data ? ev->perf_data.p50 : NAN;
        for (uint32_t j = 0; j < ev->node_count; j++) {
            const et_graph_node *node = et_link_node(insp, blk, ev, j, &bits);
            if (!(bits & ET_LINK_NODE_FIRST))
                continue;
            size_t i = (size_t)(node - g->nodes);
            if (ev->is_delegated_op || call) {
                d->delegated[i] = true;
                if (!d->backend[i] && ev->delegate_backend_name)
                    d->backend[i] = ev->delegate_backend_name;
            }
            if (!detailed && isfinite(p50)) {
                d->latency[i] += p50 / k;
                d->has[i] = true;
            }
        }
    }
    free(del);
    free(ker);
    return 0;
}

/* ------------------------------------------------------------------ */
/* graph.json */

static void attr(et_strbuf *sb, bool *first, const char *key, const char *value)
{
    if (!value)
        return;
    et_sb_adds(sb, *first ? "" : ",");
    *first = false;
    et_sb_adds(sb, "{\"key\":");
    j_strz(sb, key);
    et_sb_adds(sb, ",\"value\":");
    j_strz(sb, value);
    et_sb_addc(sb, '}');
}

/* The producer of each value name: (name, node, output index), sorted by
 * name, for incomingEdges. */
typedef struct mx_out {
    const char *name;
    size_t node;
    size_t index;
} mx_out;

static int cmp_out(const void *a, const void *b)
{
    const mx_out *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    return (x->node > y->node) - (x->node < y->node);
}

static const mx_out *find_out(const mx_out *o, size_t n, const char *name)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(o[mid].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && strcmp(o[lo].name, name) == 0 ? &o[lo] : NULL;
}

static int write_graph(et_strbuf *sb, FILE *out, const char *id, const mx_data *d,
                       et_error *err)
{
    const et_graph *g = d->graph;
    size_t n_outs = 0;
    for (size_t i = 0; i < g->n_nodes; i++)
        n_outs += g->nodes[i].n_outputs;
    mx_out *outs = malloc((n_outs ? n_outs : 1) * sizeof *outs);
    if (!outs)
        return et_fail(err, ET_ERR_NOMEM, "out of memory");
    n_outs = 0;
    for (size_t i = 0; i < g->n_nodes; i++)
        for (size_t k = 0; k < g->nodes[i].n_outputs; k++)
            if (g->nodes[i].outputs[k])
                outs[n_outs++] = (mx_out){g->nodes[i].outputs[k], i, k};
    qsort(outs, n_outs, sizeof *outs, cmp_out);

    et_sb_adds(sb, "{\"id\":");
    j_strz(sb, id);
    et_sb_adds(sb, ",\"nodes\":[");
    int rc = 0;
    for (size_t i = 0; i < g->n_nodes && rc == 0; i++) {
        const et_graph_node *n = &g->nodes[i];
        et_sb_adds(sb, i ? ",\n{\"id\":" : "\n{\"id\":");
        node_id(sb, g, i);
        et_sb_adds(sb, ",\"label\":");
        j_strz(sb, n->op && *n->op ? n->op : n->target);
        et_sb_adds(sb, ",\"namespace\":\"");
        if (n->has_module_stack) {
            /* the module paths, outermost first, as one "a/b/c" path: each
             * entry's path ("L['self'].conv1") without its root, '/' for
             * the dots that separate modules */
            et_strbuf ns = {0};
            for (size_t m = 0; m < n->n_module_stack; m++) {
                const et_module_entry *me = &n->module_stack[m];
                const char *p = me->path ? me->path : me->key;
                if (!p)
                    continue;
                const char *dot = strrchr(p, '.');
                const char *last = dot ? dot + 1 : p;
                if (!*last)
                    continue;
                if (ns.n)
                    et_sb_addc(&ns, '/');
                et_sb_adds(&ns, last);
            }
            if (ns.n) {
                sb->n--;
                et_sb_add_json_str(sb, ns.p, ns.n);
                sb->n--; /* reopen the string's quote, closed below */
            }
            if (ns.failed)
                sb->failed = true;
            et_sb_free(&ns);
        }
        et_sb_adds(sb, "\",\"attrs\":[");
        bool first = true;
        char num[32];
        attr(sb, &first, "target", n->target);
        attr(sb, &first, "op", n->op);
        if (n->has_debug_handle) {
            snprintf(num, sizeof num, "%lld", (long long)n->debug_handle);
            attr(sb, &first, "debug_handle", num);
        }
        attr(sb, &first, "delegated", d->delegated[i] ? "true" : d->has[i] ? "false" : NULL);
        attr(sb, &first, "delegate_backend", d->backend[i]);
        attr(sb, &first, "stack_trace", n->stack_trace);
        attr(sb, &first, "nn_module_stack", n->nn_module_stack);
        attr(sb, &first, "source_fn_stack", n->source_fn_stack);
        et_sb_adds(sb, "],\"incomingEdges\":[");
        bool efirst = true;
        for (size_t k = 0; k < n->n_inputs; k++) {
            const mx_out *o = n->inputs[k] ? find_out(outs, n_outs, n->inputs[k]) : NULL;
            if (!o || o->node == i)
                continue;
            et_sb_adds(sb, efirst ? "{\"sourceNodeId\":" : ",{\"sourceNodeId\":");
            efirst = false;
            node_id(sb, g, o->node);
            et_sb_adds(sb, ",\"sourceNodeOutputId\":\"");
            et_sb_add_u64(sb, o->index);
            et_sb_adds(sb, "\",\"targetNodeInputId\":\"");
            et_sb_add_u64(sb, k);
            et_sb_adds(sb, "\"}");
        }
        et_sb_adds(sb, "]}");
        if (rc == 0 && et_sb_drain(sb, out, false) != 0)
            rc = sb->failed ? et_fail(err, ET_ERR_NOMEM, "out of memory")
                            : et_fail(err, ET_ERR_IO, "write failed");
    }
    free(outs);
    if (rc != 0)
        return rc;
    et_sb_adds(sb, "]}");
    return 0;
}

/* ------------------------------------------------------------------ */
/* node data */

/* The value file `f` gives node i of `d` (`base`: the baseline's data of
 * the same method, for F_RATIO); false when it gives none. */
static bool node_value(int f, const mx_data *d, const mx_data *base, size_t i, double *v)
{
    switch (f) {
    case F_LATENCY:
        *v = d->latency[i];
        return d->has[i];
    case F_SHARE:
        *v = 100.0 * d->latency[i] / d->execute_p50;
        return d->has[i] && d->execute_p50 > 0 && isfinite(*v);
    case F_DELEGATED:
        *v = d->delegated[i] ? 1 : 0;
        return d->has[i] || d->delegated[i];
    case F_RATIO: {
        if (!base || !d->has[i])
            return false;
        const et_graph_node *bn = et_graph_find(base->graph, d->graph->nodes[i].name);
        if (!bn)
            return false;
        size_t j = (size_t)(bn - base->graph->nodes);
        *v = d->latency[i] / base->latency[j];
        return base->has[j] && base->latency[j] > 0 && isfinite(*v);
    }
    }
    return false;
}

static void gradient_item(et_strbuf *sb, double stop, const char *color, bool first)
{
    et_sb_adds(sb, first ? "{\"stop\":" : ",{\"stop\":");
    j_num(sb, stop);
    et_sb_adds(sb, ",\"bgColor\":");
    j_strz(sb, color);
    et_sb_addc(sb, '}');
}

/* One GraphNodeData: {"name", "results": {id: {"value"}}, "gradient"}. */
static void write_node_data(et_strbuf *sb, int f, const mx_data *d, const mx_data *base,
                            const char *unit)
{
    const et_graph *g = d->graph;
    et_sb_adds(sb, "{\"name\":");
    char name[160];
    const char *blk = "";
    char blkname[64] = "";
    if (d->block && d->block->name.p) {
        size_t n = d->block->name.n < sizeof blkname - 1 ? d->block->name.n : sizeof blkname - 1;
        memcpy(blkname, d->block->name.p, n);
        blkname[n] = 0;
        blk = blkname;
    }
    switch (f) {
    case F_LATENCY:
        snprintf(name, sizeof name, "p50 latency (%s), block %s", unit, blk);
        break;
    case F_SHARE:
        snprintf(name, sizeof name, "share of Method::execute (%%), block %s", blk);
        break;
    case F_DELEGATED:
        snprintf(name, sizeof name, "delegated (1) or not (0), block %s", blk);
        break;
    default:
        snprintf(name, sizeof name, "p50 ratio B/A, block %s", blk);
        break;
    }
    j_strz(sb, name);
    et_sb_adds(sb, ",\"results\":{");
    bool first = true;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < g->n_nodes; i++) {
        double v;
        if (!node_value(f, d, base, i, &v))
            continue;
        if (et_graph_find(g, g->nodes[i].name) != &g->nodes[i])
            continue; /* data are keyed by name: the first node of a name */
        et_sb_adds(sb, first ? "\n" : ",\n");
        first = false;
        j_strz(sb, g->nodes[i].name);
        et_sb_adds(sb, ":{\"value\":");
        j_num(sb, v);
        et_sb_addc(sb, '}');
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    et_sb_adds(sb, "},\"gradient\":[");
    if (f == F_RATIO) {
        /* green below 1 (faster in B), white at 1, red above */
        double mid = hi > lo ? (1.0 - lo) / (hi - lo) : 0.5;
        mid = mid < 0 ? 0 : mid > 1 ? 1 : mid;
        gradient_item(sb, 0, mid > 0 ? "#1a9850" : "#ffffff", true);
        if (mid > 0 && mid < 1)
            gradient_item(sb, mid, "#ffffff", false);
        gradient_item(sb, 1, mid < 1 ? "#d73027" : "#ffffff", false);
    } else if (f == F_DELEGATED) {
        gradient_item(sb, 0, "#e0e0e0", true);
        gradient_item(sb, 1, "#ff9800", false);
    } else {
        gradient_item(sb, 0, "#ffffcc", true);
        gradient_item(sb, 0.5, "#fd8d3c", false);
        gradient_item(sb, 1, "#bd0026", false);
    }
    et_sb_adds(sb, "]}");
}

/* ------------------------------------------------------------------ */
/* the directory */

static char *join_path(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *p = malloc(a + b + 2);
    if (!p)
        return NULL;
    memcpy(p, dir, a);
    size_t at = a;
    if (a == 0 || dir[a - 1] != '/')
        p[at++] = '/';
    memcpy(p + at, name, b + 1);
    return p;
}

int et_mx_check_dir(const char *dir, const char *const *inputs, et_error *err)
{
    if (!dir || !*dir)
        return et_fail(err, ET_ERR_USAGE, "the Model Explorer directory path is empty");
    struct stat st;
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode))
            return et_fail(err, ET_ERR_IO, "%s: not a directory (Model Explorer files go in "
                                           "a directory)", dir);
        for (int f = 0; et_mx_files[f]; f++) {
            char *p = join_path(dir, et_mx_files[f]);
            if (!p)
                return et_fail(err, ET_ERR_NOMEM, "out of memory");
            int rc = et_outfile_check(p, inputs, err);
            free(p);
            if (rc != 0)
                return -1;
        }
    } else if (errno != ENOENT) {
        return et_fail(err, ET_ERR_IO, "%s: %s", dir, strerror(errno));
    }
    return 0;
}

static int make_dir(const char *dir, et_error *err)
{
    if (mkdir(dir, 0777) == 0)
        return 0;
    struct stat st;
    if (errno == EEXIST && stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
        return 0;
    if (errno == EEXIST)
        return et_fail(err, ET_ERR_IO, "%s: not a directory (Model Explorer files go in a "
                                       "directory)", dir);
    return et_fail(err, ET_ERR_IO, "%s: cannot create it: %s", dir, strerror(errno));
}

/* The graphs written: the record's edge programs, in record order, one per
 * method - the one linking uses (et_etrecord_edge_program), so that a
 * record with both layouts, or a hostile one repeating an entry, does not
 * give two graphs one id. */
static size_t edge_programs(const et_etrecord *r, const et_etr_program **out)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n_programs; i++)
        if (r->programs[i].kind == ET_ETR_PROG_EDGE && r->programs[i].key &&
            et_etrecord_edge_program(r, r->programs[i].key) == &r->programs[i]) {
            if (out)
                out[n] = &r->programs[i];
            n++;
        }
    return n;
}

/* Write file f of the directory from `data` (n graphs, ids[]). */
static int write_file(const char *dir, int f, const char *const *ids, const mx_data *data,
                      const mx_data *base, size_t n, const char *label, const char *unit,
                      const char *const *inputs, et_error *err)
{
    char *path = join_path(dir, et_mx_files[f]);
    if (!path)
        return et_fail(err, ET_ERR_NOMEM, "out of memory");
    et_outfile of;
    if (et_outfile_open(&of, path, inputs, err) != 0) {
        free(path);
        return -1;
    }
    et_strbuf sb = {0};
    int rc = 0;
    if (f == F_GRAPH) {
        et_sb_adds(&sb, "{\"label\":");
        j_strz(&sb, label);
        et_sb_adds(&sb, ",\"graphs\":[");
        for (size_t i = 0; i < n && rc == 0; i++) {
            if (i)
                et_sb_adds(&sb, ",\n");
            rc = write_graph(&sb, of.fp, ids[i], &data[i], err);
        }
        et_sb_adds(&sb, "]}\n");
    } else {
        et_sb_addc(&sb, '{');
        bool first = true;
        for (size_t i = 0; i < n; i++) {
            const mx_data *b = NULL;
            if (f == F_RATIO)
                b = &base[i];
            if (!data[i].block || (f == F_RATIO && !b->block))
                continue;
            et_sb_adds(&sb, first ? "\n" : ",\n");
            first = false;
            j_strz(&sb, ids[i]);
            et_sb_addc(&sb, ':');
            write_node_data(&sb, f, &data[i], b, unit);
            if (et_sb_drain(&sb, of.fp, false) != 0)
                break;
        }
        et_sb_adds(&sb, "\n}\n");
    }
    if (rc == 0 && et_sb_drain(&sb, of.fp, true) != 0)
        rc = sb.failed ? et_fail(err, ET_ERR_NOMEM, "out of memory") : -2;
    et_sb_free(&sb);
    if (rc == -2 || (rc == 0 && ferror(of.fp)))
        rc = et_outfile_fail(&of, err);
    else if (rc != 0)
        et_outfile_abort(&of);
    else
        rc = et_outfile_commit(&of, err);
    free(path);
    return rc;
}

int et_mx_write_dir(et_inspector *insp, const et_inspector *baseline, const char *dir,
                    const char *const *inputs, et_error *err)
{
    if (!insp->etrecord)
        return et_fail(err, ET_ERR_USAGE, "Model Explorer files need an ETRecord");
    if (baseline && !baseline->etrecord)
        return et_fail(err, ET_ERR_USAGE, "Model Explorer files: the baseline needs an "
                                          "ETRecord");
    if (et_mx_check_dir(dir, inputs, err) != 0)
        return -1;
    et_etrecord *r = insp->etrecord;
    size_t n = edge_programs(r, NULL);
    const et_etr_program **progs = calloc(n ? n : 1, sizeof *progs);
    const char **ids = calloc(n ? n : 1, sizeof *ids);
    mx_data *data = calloc(n ? n : 1, sizeof *data);
    mx_data *base = calloc(n ? n : 1, sizeof *base);
    int rc = 0;
    if (!progs || !ids || !data || !base)
        rc = et_fail(err, ET_ERR_NOMEM, "out of memory");
    if (rc == 0)
        edge_programs(r, progs);
    for (size_t i = 0; i < n && rc == 0; i++) {
        ids[i] = progs[i]->key;
        const et_graph *g = et_etrecord_graph(r, progs[i], err);
        if (!g || mx_data_make(insp, g, &data[i], err) != 0) {
            rc = -1;
            break;
        }
        if (baseline) {
            const et_etr_program *bp = et_etrecord_edge_program(baseline->etrecord, ids[i]);
            const et_graph *bg = bp ? et_etrecord_graph(baseline->etrecord, bp, err) : NULL;
            if (bp && !bg) {
                rc = -1;
                break;
            }
            if (bg && mx_data_make(baseline, bg, &base[i], err) != 0) {
                rc = -1;
                break;
            }
        }
    }
    if (rc == 0)
        rc = make_dir(dir, err);
    const char *label = r->label ? strrchr(r->label, '/') : NULL;
    label = label ? label + 1 : r->label ? r->label : "etrecord";
    const char *unit = et_time_scale_name(insp->target_time_scale);
    for (int f = 0; f < F_COUNT && rc == 0; f++) {
        if (f == F_RATIO && !baseline)
            break;
        rc = write_file(dir, f, ids, data, base, n, label, unit, inputs, err);
    }
    for (size_t i = 0; data && base && i < n; i++) {
        mx_data_free(&data[i]);
        mx_data_free(&base[i]);
    }
    free(progs);
    free(ids);
    free(data);
    free(base);
    return rc;
}
