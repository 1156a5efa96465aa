/* docjson.c - the --json documents of an ETDump and of a legacy profiler
 * dump; see docjson.h. */
#include "output/docjson.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/link.h"
#include "model/proglink.h"
#include "output/memsummary.h"
#include "output/rows.h"
#include "base/strbuf.h"

#define ETINSPECT_JSON_FORMAT 1

/* ------------------------------------------------------------------ */
/* JSON */

/* Append `s` as a JSON string (strbuf.h). */
static void j_str(et_strbuf *sb, const char *s, size_t n) { et_sb_add_json_str(sb, s, n); }

static void j_strz(et_strbuf *sb, const char *s) { j_str(sb, s, strlen(s)); }

static void j_key(et_strbuf *sb, const char *k)
{
    j_strz(sb, k);
    et_sb_adds(sb, ": ");
}

/* A JSON number from a float: repr, with NaN and infinities as null. */
static void j_num(et_strbuf *sb, double v)
{
    if (isnan(v) || isinf(v))
        et_sb_adds(sb, "null");
    else
        et_sb_add_repr(sb, v);
}

static void j_indent(et_strbuf *sb, int depth)
{
    et_sb_addc(sb, '\n');
    for (int i = 0; i < depth; i++)
        et_sb_add(sb, "  ", 2);
}

static void j_tensor(et_strbuf *sb, const et_etdump *d, const et_raw_value *v)
{
    et_sb_adds(sb, "{\"kind\": \"tensor\", \"scalar_type\": ");
    const char *st = et_scalar_type_name(v->scalar_type);
    if (st)
        j_strz(sb, st);
    else
        et_sb_add_i64(sb, v->scalar_type);
    et_sb_adds(sb, ", \"dtype\": ");
    const char *dt = et_scalar_type_dtype(v->scalar_type);
    if (dt)
        j_strz(sb, dt);
    else
        et_sb_adds(sb, "null");
    et_sb_adds(sb, ", \"shape\": [");
    for (uint32_t i = 0; i < v->sizes.count; i++) {
        if (i)
            et_sb_adds(sb, ", ");
        et_sb_add_i64(sb, et_etdump_i64_at(d, &v->sizes, i));
    }
    et_sb_adds(sb, "], \"strides\": [");
    for (uint32_t i = 0; i < v->strides.count; i++) {
        if (i)
            et_sb_adds(sb, ", ");
        et_sb_add_i64(sb, et_etdump_i64_at(d, &v->strides, i));
    }
    et_sb_adds(sb, "], \"offset\": ");
    et_sb_add_i64(sb, v->offset);
    et_sb_addc(sb, '}');
}

/* A debug Value as a raw description (values are decoded by a later layer). */
static void j_value(et_strbuf *sb, const et_etdump *d, uint32_t pos)
{
    et_raw_value v;
    et_etdump_value(d, pos, &v);
    switch (v.val) {
    case ET_VAL_INT:
        et_sb_adds(sb, "{\"kind\": \"int\", \"value\": ");
        et_sb_add_i64(sb, v.int_val);
        et_sb_addc(sb, '}');
        break;
    case ET_VAL_BOOL:
        et_sb_adds(sb, v.bool_val ? "{\"kind\": \"bool\", \"value\": true}"
                                  : "{\"kind\": \"bool\", \"value\": false}");
        break;
    case ET_VAL_FLOAT:
    case ET_VAL_DOUBLE:
        et_sb_adds(sb, "{\"kind\": \"float\", \"value\": ");
        j_num(sb, v.val == ET_VAL_FLOAT ? (double)v.float_val : v.double_val);
        et_sb_addc(sb, '}');
        break;
    case ET_VAL_TENSOR:
        j_tensor(sb, d, &v);
        break;
    case ET_VAL_TENSOR_LIST:
        et_sb_adds(sb, "{\"kind\": \"tensor_list\", \"items\": [");
        for (uint32_t i = 0; i < v.tensors.count; i++) {
            et_raw_value t;
            et_etdump_list_tensor(d, &v, i, &t);
            if (i)
                et_sb_adds(sb, ", ");
            j_tensor(sb, d, &t);
        }
        et_sb_adds(sb, "]}");
        break;
    default:
        et_sb_adds(sb, "null");
    }
}

static void j_values(et_strbuf *sb, const et_etdump *d, const uint32_t *pool, uint32_t first,
                     uint32_t count)
{
    et_sb_addc(sb, '[');
    for (uint32_t i = 0; i < count; i++) {
        if (i)
            et_sb_adds(sb, ", ");
        j_value(sb, d, pool[first + i]);
    }
    et_sb_addc(sb, ']');
}

/* A JSON list of n numbers: floats as j_num writes them, or integers when
 * `ints` is given. */
static void j_numbers(et_strbuf *sb, const double *x, const int64_t *ints, size_t n)
{
    if (!ints) {
        et_sb_add_repr_list(sb, x, n, true);
        return;
    }
    et_sb_addc(sb, '[');
    for (size_t i = 0; i < n; i++) {
        if (i)
            et_sb_adds(sb, ", ");
        et_sb_add_i64(sb, ints[i]);
    }
    et_sb_addc(sb, ']');
}

/* A JSON list of n unsigned integers. */
static void j_u64s(et_strbuf *sb, const uint64_t *x, size_t n)
{
    et_sb_add_u64_list(sb, x, n);
}

/* The "warnings" member: one string per warning, then a comma. */
static void j_warnings(et_strbuf *sb, const et_inspector *insp)
{
    j_indent(sb, 1), j_key(sb, "warnings"), et_sb_addc(sb, '[');
    for (size_t i = 0; i < insp->warnings.n; i++) {
        if (i)
            et_sb_addc(sb, ',');
        j_indent(sb, 2), j_strz(sb, insp->warnings.items[i]);
    }
    et_sb_adds(sb, insp->warnings.n ? "\n  ]," : "],");
}

/* Close the document's last list (of n items) and the document, write out
 * what is buffered and free the buffer.  Returns 0, or -1 on a write error. */
static int j_finish(et_strbuf *sb, size_t n, FILE *out)
{
    if (n)
        j_indent(sb, 1);
    et_sb_adds(sb, "]\n}\n");
    int rc = et_sb_drain(sb, out, true);
    et_sb_free(sb);
    return rc;
}

/* The ETRecord linkage of an event (link.h): op_types, module_hierarchy,
 * stack_traces, debug_handles, each followed by a comma. */
static void j_linkage(et_strbuf *sb, const et_inspector *insp, const et_block *blk,
                      const et_event *ev, int depth)
{
    uint32_t bits;
    j_indent(sb, depth), j_key(sb, "op_types"), et_sb_addc(sb, '[');
    bool any = false;
    for (uint32_t k = 0; k < ev->node_count; k++) {
        const et_graph_node *nd = et_link_node(insp, blk, ev, k, &bits);
        if (bits & ET_LINK_NODE_OP) {
            et_sb_adds(sb, any ? ", " : "");
            j_strz(sb, nd->op);
            any = true;
        }
    }
    et_sb_adds(sb, "],");
    for (int module = 1; module >= 0; module--) {
        j_indent(sb, depth), j_key(sb, module ? "module_hierarchy" : "stack_traces");
        et_sb_addc(sb, '{');
        any = false;
        for (uint32_t k = 0; k < ev->node_count; k++) {
            const et_graph_node *nd = et_link_node(insp, blk, ev, k, &bits);
            if (!(bits & ET_LINK_NODE_FIRST))
                continue;
            et_sb_adds(sb, any ? ", " : "");
            any = true;
            char *key = et_report_node_key(nd);
            if (!key) {
                sb->failed = true;
                return;
            }
            j_strz(sb, key), et_sb_adds(sb, ": ");
            free(key);
            if (module && nd->has_module_stack) {
                et_sb_addc(sb, '{');
                for (size_t j = 0; j < nd->n_module_stack; j++) {
                    const et_module_entry *m = &nd->module_stack[j];
                    et_sb_adds(sb, j ? ", " : "");
                    j_strz(sb, m->key), et_sb_adds(sb, ": ["), j_strz(sb, m->path);
                    et_sb_adds(sb, ", "), j_strz(sb, m->type), et_sb_addc(sb, ']');
                }
                et_sb_addc(sb, '}');
            } else if (!module && nd->stack_trace) {
                j_strz(sb, nd->stack_trace);
            } else {
                et_sb_adds(sb, "null");
            }
        }
        et_sb_adds(sb, "},");
    }
    j_indent(sb, depth), j_key(sb, "debug_handles");
    if (!ev->has_debug_handles) {
        et_sb_adds(sb, "null");
    } else if (!ev->debug_handles_is_list) {
        et_sb_add_i64(sb, ev->debug_handles[0]);
    } else {
        et_sb_addc(sb, '[');
        for (uint32_t k = 0; k < ev->n_debug_handles; k++) {
            et_sb_adds(sb, k ? ", " : "");
            et_sb_add_i64(sb, ev->debug_handles[k]);
        }
        et_sb_addc(sb, ']');
    }
    et_sb_addc(sb, ',');
}

static void j_event(et_strbuf *sb, const et_inspector *insp, const et_block *blk,
                    const et_event *ev, size_t index,
                    const et_etdump *d, const et_json_metadata *md, size_t block)
{
    const int D = 4;
    et_sb_addc(sb, '{');
    j_indent(sb, D + 1), j_key(sb, "index"), et_sb_add_u64(sb, index), et_sb_addc(sb, ',');
    et_str name = et_event_name(ev);
    j_indent(sb, D + 1), j_key(sb, "name"), j_str(sb, name.p, name.n), et_sb_addc(sb, ',');
    j_indent(sb, D + 1), j_key(sb, "perf_data");
    if (ev->has_perf_data) {
        const et_perf_data *pd = &ev->perf_data;
        et_sb_adds(sb, "{\"raw\": "), j_numbers(sb, pd->raw, NULL, pd->n);
        et_sb_adds(sb, ", \"p10\": "), j_num(sb, pd->p10);
        et_sb_adds(sb, ", \"p50\": "), j_num(sb, pd->p50);
        et_sb_adds(sb, ", \"p90\": "), j_num(sb, pd->p90);
        et_sb_adds(sb, ", \"avg\": "), j_num(sb, pd->avg);
        et_sb_adds(sb, ", \"min\": "), j_num(sb, pd->min);
        et_sb_adds(sb, ", \"max\": "), j_num(sb, pd->max);
        et_sb_addc(sb, '}');
    } else {
        et_sb_adds(sb, "null");
    }
    et_sb_addc(sb, ',');
    j_indent(sb, D + 1), j_key(sb, "start_time");
    if (ev->start_time) {
        j_u64s(sb, ev->start_time, ev->perf_data.n);
    } else {
        et_sb_adds(sb, "null");
    }
    et_sb_addc(sb, ',');
    j_indent(sb, D + 1), j_key(sb, "delegate_debug_identifier");
    if (ev->delegate_debug_identifier_kind == ET_DID_INT)
        et_sb_add_i64(sb, ev->delegate_debug_id_int);
    else if (ev->delegate_debug_identifier_kind == ET_DID_STR)
        j_str(sb, ev->delegate_debug_id_str.p, ev->delegate_debug_id_str.n);
    else
        et_sb_adds(sb, "null");
    et_sb_addc(sb, ',');
    j_indent(sb, D + 1), j_key(sb, "is_delegated_op");
    et_sb_adds(sb, ev->is_delegated_op ? "true," : "false,");
    j_indent(sb, D + 1), j_key(sb, "delegate_backend_name");
    if (ev->delegate_backend_name)
        j_strz(sb, ev->delegate_backend_name);
    else
        et_sb_adds(sb, "null");
    et_sb_addc(sb, ',');
    if (insp->program) { /* only with a program: documents without one are unchanged */
        et_event_instr pi;
        j_indent(sb, D + 1), j_key(sb, "program_instruction");
        if (et_event_program_instr(insp, blk, ev, &pi)) {
            et_sb_adds(sb, "{\"method\": ");
            j_str(sb, pi.m.name.p ? pi.m.name.p : "", pi.m.name.n);
            et_sb_adds(sb, ", \"kind\": ");
            j_strz(sb, et_pinstr_kind_name(pi.in.kind));
            if (pi.op[0]) {
                et_sb_adds(sb, ", \"operator\": ");
                j_strz(sb, pi.op);
            }
            if (pi.backend.p) {
                et_sb_adds(sb, ", \"backend\": ");
                j_str(sb, pi.backend.p, pi.backend.n);
            }
            et_sb_adds(sb, "},");
        } else {
            et_sb_adds(sb, "null,");
        }
    }
    j_indent(sb, D + 1), j_key(sb, "raw_delegate_debug_metadatas_hex");
    et_sb_addc(sb, '[');
    if (ev->raw_delegate_debug_metadatas) {
        static const char hex[] = "0123456789abcdef";
        for (size_t r = 0; r < blk->n_runs; r++) {
            et_str m = ev->raw_delegate_debug_metadatas[r];
            if (r)
                et_sb_adds(sb, ", ");
            et_sb_addc(sb, '"');
            for (uint32_t k = 0; k < m.n; k++) {
                unsigned char c = (unsigned char)m.p[k];
                char two[2] = {hex[c >> 4], hex[c & 15]};
                et_sb_add(sb, two, 2);
            }
            et_sb_addc(sb, '"');
        }
    }
    et_sb_adds(sb, "],");
    if (md) { /* only with a parser: documents without one are unchanged */
        const char *text = md->fn(md->ud, block, index);
        j_indent(sb, D + 1), j_key(sb, "delegate_debug_metadatas");
        et_sb_adds(sb, text ? text : "null");
        et_sb_addc(sb, ',');
    }
    j_indent(sb, D + 1), j_key(sb, "debug_data");
    if (ev->has_debug_data && blk->n_runs)
        j_values(sb, d, blk->value_pool, ev->debug_first[0], ev->debug_count[0]);
    else
        et_sb_adds(sb, "[]");
    et_sb_addc(sb, ',');
    j_linkage(sb, insp, blk, ev, D + 1);
    j_indent(sb, D + 1), j_key(sb, "num_outputs"), et_sb_add_i64(sb, ev->num_outputs);
    et_sb_addc(sb, ',');
    j_indent(sb, D + 1), j_key(sb, "_instruction_id"), et_sb_add_i64(sb, ev->instruction_id);
    j_indent(sb, D), et_sb_addc(sb, '}');
}

/* A block's "memory_summary" member (et_block_memory_summary), then a
 * comma.  Returns 0, or -1 out of memory. */
static int j_memory_summary(et_strbuf *sb, const et_block *blk)
{
    et_memory_row *rows;
    long n = et_block_memory_summary(blk, &rows);
    if (n < 0)
        return -1;
    j_indent(sb, 3), j_key(sb, "memory_summary"), et_sb_addc(sb, '[');
    for (long i = 0; i < n; i++) {
        et_sb_adds(sb, i ? ", " : "");
        et_sb_adds(sb, "{\"allocator_id\": "), et_sb_add_i64(sb, rows[i].allocator_id);
        et_sb_adds(sb, ", \"allocator\": ");
        if (rows[i].allocator.p)
            j_str(sb, rows[i].allocator.p, rows[i].allocator.n);
        else
            et_sb_adds(sb, "null");
        et_sb_adds(sb, ", \"allocations\": "), et_sb_add_u64(sb, rows[i].allocations);
        et_sb_adds(sb, ", \"bytes\": "), et_sb_add_u64(sb, rows[i].bytes);
        et_sb_adds(sb, ", \"largest\": "), et_sb_add_u64(sb, rows[i].largest);
        et_sb_addc(sb, '}');
    }
    et_sb_adds(sb, "],");
    free(rows);
    return 0;
}

/* The "etrecord" member: null, or what the record holds and how it was
 * linked (entries, methods, graphs, reference graph), then a comma. */
static void j_etrecord(et_strbuf *sb, const et_inspector *insp)
{
    const et_etrecord *r = insp->etrecord;
    j_indent(sb, 1), j_key(sb, "etrecord");
    if (!r) {
        et_sb_adds(sb, "null,");
        return;
    }
    et_sb_addc(sb, '{');
    j_indent(sb, 2), j_key(sb, "path"), j_strz(sb, r->label), et_sb_addc(sb, ',');
    j_indent(sb, 2), j_key(sb, "reference_graph_name"), j_strz(sb, insp->reference_graph_name);
    et_sb_addc(sb, ',');
    j_indent(sb, 2), j_key(sb, "enable_module_hierarchy");
    et_sb_adds(sb, insp->enable_module_hierarchy ? "true," : "false,");
    j_indent(sb, 2), j_key(sb, "export_graph_id"), et_sb_add_i64(sb, r->export_graph_id);
    et_sb_addc(sb, ',');
    j_indent(sb, 2), j_key(sb, "debug_handle_map_methods"), et_sb_addc(sb, '[');
    for (size_t i = 0; i < r->debug_handle_map.n_methods; i++) {
        et_sb_adds(sb, i ? ", " : "");
        j_strz(sb, r->debug_handle_map.methods[i].name);
    }
    et_sb_adds(sb, "],");
    j_indent(sb, 2), j_key(sb, "has_num_outs_map");
    et_sb_adds(sb, r->num_outs_map.present ? "true," : "false,");
    j_indent(sb, 2), j_key(sb, "programs"), et_sb_addc(sb, '[');
    for (size_t i = 0; i < r->n_programs; i++) {
        const et_etr_program *p = &r->programs[i];
        et_sb_adds(sb, i ? ", " : "");
        et_sb_adds(sb, "{\"entry\": "), j_strz(sb, r->entries[p->entry].name);
        et_sb_adds(sb, ", \"kind\": ");
        j_strz(sb, p->kind == ET_ETR_PROG_EDGE       ? "edge"
                   : p->kind == ET_ETR_PROG_EXPORTED ? "exported_program"
                                                      : "graph_map");
        et_sb_adds(sb, ", \"key\": "), j_strz(sb, p->key), et_sb_addc(sb, '}');
    }
    et_sb_adds(sb, "],");
    j_indent(sb, 2), j_key(sb, "entries"), et_sb_addc(sb, '[');
    for (size_t i = 0; i < r->n_entries; i++) {
        const et_etr_entry *e = &r->entries[i];
        et_sb_adds(sb, i ? "," : "");
        j_indent(sb, 3), et_sb_adds(sb, "{\"name\": "), j_strz(sb, e->name);
        et_sb_adds(sb, ", \"kind\": "), j_strz(sb, et_etr_kind_name(e->kind));
        et_sb_adds(sb, ", \"size\": "), et_sb_add_u64(sb, e->size);
        et_sb_adds(sb, ", \"compression\": "), j_strz(sb, et_etr_compression_name(e->compression));
        et_sb_addc(sb, '}');
    }
    j_indent(sb, 2), et_sb_addc(sb, ']');
    j_indent(sb, 1), et_sb_adds(sb, "},");
}

int et_report_write_json(const et_inspector *insp, FILE *out)
{
    return et_report_write_json_md(insp, out, NULL);
}

int et_report_write_json_md(const et_inspector *insp, FILE *out, const et_json_metadata *md)
{
    const et_etdump *d = &insp->dump;
    et_strbuf sb = {0};
    et_sb_addc(&sb, '{');
    j_indent(&sb, 1), j_key(&sb, "format"), j_strz(&sb, "etinspect-json");
    et_sb_addc(&sb, ',');
    j_indent(&sb, 1), j_key(&sb, "format_version"), et_sb_add_i64(&sb, ETINSPECT_JSON_FORMAT);
    et_sb_addc(&sb, ',');
    j_indent(&sb, 1), j_key(&sb, "inputs"), et_sb_addc(&sb, '{');
    j_indent(&sb, 2), j_key(&sb, "etdump"), j_strz(&sb, insp->etdump_label), et_sb_addc(&sb, ',');
    j_indent(&sb, 2), j_key(&sb, "etdump_size");
    et_sb_add_u64(&sb, insp->etdump_file.size ? insp->etdump_file.size : d->buf.end);
    et_sb_addc(&sb, ',');
    j_indent(&sb, 2), j_key(&sb, "source_time_scale");
    j_strz(&sb, et_time_scale_name(insp->source_time_scale)), et_sb_addc(&sb, ',');
    j_indent(&sb, 2), j_key(&sb, "target_time_scale");
    j_strz(&sb, et_time_scale_name(insp->target_time_scale)), et_sb_addc(&sb, ',');
    j_indent(&sb, 2), j_key(&sb, "etrecord");
    if (insp->etrecord)
        j_strz(&sb, insp->etrecord->label);
    else
        et_sb_adds(&sb, "null");
    j_indent(&sb, 1), et_sb_adds(&sb, "},");
    j_etrecord(&sb, insp);
    j_indent(&sb, 1), j_key(&sb, "etdump"), et_sb_addc(&sb, '{');
    j_indent(&sb, 2), j_key(&sb, "version"), et_sb_add_u64(&sb, d->version), et_sb_addc(&sb, ',');
    j_indent(&sb, 2), j_key(&sb, "size_prefixed"), et_sb_adds(&sb, d->size_prefixed ? "true," : "false,");
    j_indent(&sb, 2), j_key(&sb, "num_run_data"), et_sb_add_u64(&sb, et_etdump_num_runs(d));
    et_sb_addc(&sb, ',');
    j_indent(&sb, 2), j_key(&sb, "run_data"), et_sb_addc(&sb, '[');
    for (uint32_t i = 0; i < et_etdump_num_runs(d); i++) {
        et_run run;
        et_etdump_run(d, i, &run);
        if (i)
            et_sb_addc(&sb, ',');
        j_indent(&sb, 3), et_sb_addc(&sb, '{');
        j_key(&sb, "name"), j_str(&sb, run.name.p, run.name.n);
        et_sb_adds(&sb, ", \"bundled_input_index\": ");
        et_sb_add_i64(&sb, run.bundled_input_index);
        et_sb_adds(&sb, ", \"allocators\": [");
        for (uint32_t k = 0; k < run.allocators.count; k++) {
            et_str an = et_etdump_allocator_name(d, &run, k);
            if (k)
                et_sb_adds(&sb, ", ");
            j_str(&sb, an.p, an.n);
        }
        et_sb_adds(&sb, "], \"num_events\": ");
        if (run.has_events)
            et_sb_add_u64(&sb, run.events.count);
        else
            et_sb_adds(&sb, "null");
        et_sb_addc(&sb, '}');
    }
    j_indent(&sb, 2), et_sb_addc(&sb, ']');
    j_indent(&sb, 1), et_sb_adds(&sb, "},");
    j_warnings(&sb, insp);
    j_indent(&sb, 1), j_key(&sb, "num_event_blocks"), et_sb_add_u64(&sb, insp->n_blocks);
    et_sb_addc(&sb, ',');
    j_indent(&sb, 1), j_key(&sb, "event_blocks"), et_sb_addc(&sb, '[');
    for (size_t b = 0; b < insp->n_blocks; b++) {
        const et_block *blk = &insp->blocks[b];
        if (b)
            et_sb_addc(&sb, ',');
        j_indent(&sb, 2), et_sb_addc(&sb, '{');
        j_indent(&sb, 3), j_key(&sb, "index"), et_sb_add_u64(&sb, b), et_sb_addc(&sb, ',');
        j_indent(&sb, 3), j_key(&sb, "name"), j_str(&sb, blk->name.p, blk->name.n);
        et_sb_addc(&sb, ',');
        j_indent(&sb, 3), j_key(&sb, "bundled_input_index");
        et_sb_add_i64(&sb, blk->bundled_input_index), et_sb_addc(&sb, ',');
        j_indent(&sb, 3), j_key(&sb, "source_time_scale");
        j_strz(&sb, et_time_scale_name(insp->source_time_scale)), et_sb_addc(&sb, ',');
        j_indent(&sb, 3), j_key(&sb, "target_time_scale");
        j_strz(&sb, et_time_scale_name(insp->target_time_scale)), et_sb_addc(&sb, ',');
        j_indent(&sb, 3), j_key(&sb, "etrecord_method");
        if (blk->method)
            j_strz(&sb, blk->method);
        else
            et_sb_adds(&sb, "null");
        et_sb_addc(&sb, ',');
        j_indent(&sb, 3), j_key(&sb, "runs"), et_sb_addc(&sb, '[');
        for (size_t r = 0; r < blk->n_runs; r++) {
            if (r)
                et_sb_adds(&sb, ", ");
            et_sb_add_u64(&sb, blk->runs[r]);
        }
        et_sb_adds(&sb, "],");
        j_indent(&sb, 3), j_key(&sb, "run_output");
        if (blk->n_runs)
            j_values(&sb, d, blk->value_pool, blk->run_output_first[blk->run_output_run],
                     blk->run_output_count[blk->run_output_run]);
        else
            et_sb_adds(&sb, "[]");
        et_sb_addc(&sb, ',');
        j_indent(&sb, 3), j_key(&sb, "reference_output"), et_sb_adds(&sb, "null,");
        j_indent(&sb, 3), j_key(&sb, "allocators"), et_sb_addc(&sb, '[');
        for (size_t k = 0; k < blk->n_allocators; k++) {
            if (k)
                et_sb_adds(&sb, ", ");
            j_str(&sb, blk->allocators[k].p, blk->allocators[k].n);
        }
        et_sb_adds(&sb, "],");
        j_indent(&sb, 3), j_key(&sb, "allocations"), et_sb_addc(&sb, '[');
        for (size_t r = 0; r < blk->n_runs; r++) {
            if (r)
                et_sb_addc(&sb, ',');
            j_indent(&sb, 4), et_sb_addc(&sb, '[');
            for (uint32_t k = 0; k < blk->allocation_count[r]; k++) {
                const et_allocation *a = &blk->allocations[blk->allocation_first[r] + k];
                if (k)
                    et_sb_adds(&sb, ", ");
                et_sb_adds(&sb, "{\"allocator_id\": ");
                et_sb_add_i64(&sb, a->allocator_id);
                et_sb_adds(&sb, ", \"allocator\": ");
                if (a->allocator_id >= 1 && (size_t)a->allocator_id <= blk->n_allocators)
                    j_str(&sb, blk->allocators[a->allocator_id - 1].p,
                          blk->allocators[a->allocator_id - 1].n);
                else
                    et_sb_adds(&sb, "null");
                et_sb_adds(&sb, ", \"allocation_size\": ");
                et_sb_add_u64(&sb, a->allocation_size);
                et_sb_addc(&sb, '}');
            }
            et_sb_addc(&sb, ']');
        }
        if (blk->n_runs)
            j_indent(&sb, 3);
        et_sb_adds(&sb, "],");
        if (j_memory_summary(&sb, blk) != 0)
            goto fail;
        j_indent(&sb, 3), j_key(&sb, "num_events"), et_sb_add_u64(&sb, blk->n_events);
        et_sb_addc(&sb, ',');
        j_indent(&sb, 3), j_key(&sb, "events"), et_sb_addc(&sb, '[');
        for (size_t e = 0; e < blk->n_events; e++) {
            if (e)
                et_sb_addc(&sb, ',');
            j_indent(&sb, 4);
            j_event(&sb, insp, blk, &blk->events[e], e, d, md, b);
            if (et_sb_drain(&sb, out, false) != 0)
                goto fail;
        }
        if (blk->n_events)
            j_indent(&sb, 3);
        et_sb_addc(&sb, ']');
        j_indent(&sb, 2), et_sb_addc(&sb, '}');
    }
    return j_finish(&sb, insp->n_blocks, out);
fail:
    et_sb_free(&sb);
    return -1;
}

/* ------------------------------------------------------------------ */
/* Legacy profiler dumps (spec §9.3) */

int et_report_write_legacy_json(const et_inspector *insp, FILE *out)
{
    const et_legacy *lg = insp->legacy;
    if (!lg)
        return -1;
    et_strbuf sb = {0};
    et_sb_addc(&sb, '{');
    j_indent(&sb, 1), j_key(&sb, "format"), j_strz(&sb, "etinspect-profile-results-json");
    et_sb_addc(&sb, ',');
    j_indent(&sb, 1), j_key(&sb, "format_version"), et_sb_add_i64(&sb, ETINSPECT_JSON_FORMAT);
    et_sb_addc(&sb, ',');
    j_indent(&sb, 1), j_key(&sb, "inputs"), et_sb_addc(&sb, '{');
    j_indent(&sb, 2), j_key(&sb, "profile_results"), j_strz(&sb, insp->etdump_label);
    et_sb_addc(&sb, ',');
    j_indent(&sb, 2), j_key(&sb, "size"), et_sb_add_u64(&sb, insp->etdump_file.size);
    et_sb_addc(&sb, ',');
    j_indent(&sb, 2), j_key(&sb, "byte_order"), j_strz(&sb, lg->big_endian ? "big" : "little");
    et_sb_addc(&sb, ',');
    j_indent(&sb, 2), j_key(&sb, "num_blocks"), et_sb_add_u64(&sb, lg->n_raw_blocks);
    et_sb_addc(&sb, ',');
    j_indent(&sb, 2), j_key(&sb, "time_scale"), j_strz(&sb, et_time_scale_name(lg->time_scale));
    et_sb_addc(&sb, ',');
    j_indent(&sb, 2), j_key(&sb, "unit"), j_strz(&sb, et_time_scale_name(insp->target_time_scale));
    j_indent(&sb, 1), et_sb_adds(&sb, "},");
    j_warnings(&sb, insp);
    j_indent(&sb, 1), j_key(&sb, "blocks"), et_sb_addc(&sb, '[');
    for (size_t b = 0; b < lg->n_blocks; b++) {
        const et_legacy_block *lb = &lg->blocks[b];
        size_t n = lb->n_iterations;
        if (b)
            et_sb_addc(&sb, ',');
        j_indent(&sb, 2), et_sb_addc(&sb, '{');
        j_indent(&sb, 3), j_key(&sb, "name"), j_str(&sb, lb->name, lb->name_len);
        et_sb_addc(&sb, ',');
        j_indent(&sb, 3), j_key(&sb, "iterations"), et_sb_add_u64(&sb, n), et_sb_addc(&sb, ',');
        j_indent(&sb, 3), j_key(&sb, "offsets"), j_u64s(&sb, lb->offset, n), et_sb_addc(&sb, ',');
        j_indent(&sb, 3), j_key(&sb, "events"), et_sb_addc(&sb, '[');
        for (size_t e = 0; e < lb->n_events; e++) {
            const et_legacy_event *ev = &lb->events[e];
            if (e)
                et_sb_addc(&sb, ',');
            j_indent(&sb, 4), et_sb_addc(&sb, '{');
            j_key(&sb, "name"), j_str(&sb, ev->name, ev->name_len);
            et_sb_adds(&sb, ", \"chain_idx\": "), et_sb_add_i64(&sb, ev->chain_idx);
            et_sb_adds(&sb, ", \"instruction_idx\": "), et_sb_add_u64(&sb, ev->instruction_idx);
            et_sb_adds(&sb, ", \"ts\": ");
            if (lg->integral)
                j_u64s(&sb, ev->start_ticks, n);
            else
                j_numbers(&sb, ev->ts, NULL, n);
            et_sb_adds(&sb, ", \"duration\": "), j_numbers(&sb, ev->duration, ev->duration_int, n);
            et_sb_adds(&sb, ", \"start_time\": "), j_u64s(&sb, ev->start_ticks, n);
            et_sb_adds(&sb, ", \"end_time\": "), j_u64s(&sb, ev->end_ticks, n);
            et_sb_addc(&sb, '}');
            if (et_sb_drain(&sb, out, false) != 0)
                goto fail;
        }
        if (lb->n_events)
            j_indent(&sb, 3);
        et_sb_adds(&sb, "],");
        j_indent(&sb, 3), j_key(&sb, "framework_tax");
        if (lb->has_tax) {
            et_sb_adds(&sb, "{\"exec_time\": ");
            j_numbers(&sb, lb->exec_time, lb->exec_time_int, n);
            et_sb_adds(&sb, ", \"kernel_and_delegate_time\": ");
            j_numbers(&sb, lb->kernel_time, lb->kernel_time_int, n);
            et_sb_adds(&sb, ", \"framework_tax\": ");
            j_numbers(&sb, lb->tax_percent, NULL, n);
            et_sb_adds(&sb, "},");
        } else {
            et_sb_adds(&sb, "null,");
        }
        j_indent(&sb, 3), j_key(&sb, "memory"), et_sb_addc(&sb, '[');
        for (size_t m = 0; m < lb->n_mem; m++) {
            if (m)
                et_sb_adds(&sb, ", ");
            et_sb_adds(&sb, "{\"allocator_name\": ");
            if (lb->mem[m].allocator_name)
                j_strz(&sb, lb->mem[m].allocator_name);
            else
                et_sb_adds(&sb, "null");
            et_sb_adds(&sb, ", \"allocator_id\": "), et_sb_add_u64(&sb, lb->mem[m].allocator_id);
            et_sb_adds(&sb, ", \"total_allocations_done\": ");
            et_sb_add_u64(&sb, lb->mem[m].total);
            et_sb_addc(&sb, '}');
        }
        et_sb_adds(&sb, "],");
        j_indent(&sb, 3), j_key(&sb, "allocations"), et_sb_addc(&sb, '[');
        for (size_t k = 0; k < lb->n_allocations; k++) {
            if (k)
                et_sb_adds(&sb, ", ");
            et_sb_adds(&sb, "{\"allocator_id\": ");
            et_sb_add_u64(&sb, lb->allocations[k].allocator_id);
            et_sb_adds(&sb, ", \"allocation_size\": ");
            et_sb_add_u64(&sb, lb->allocations[k].allocation_size);
            et_sb_addc(&sb, '}');
        }
        et_sb_addc(&sb, ']');
        j_indent(&sb, 2), et_sb_addc(&sb, '}');
    }
    return j_finish(&sb, lg->n_blocks, out);
fail:
    et_sb_free(&sb);
    return -1;
}
