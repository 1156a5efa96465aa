/* progsummary.c - text and JSON summaries of an ExecuTorch program; see progsummary.h. */
#include "output/progsummary.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/shown.h"

static void add_fmt_u64(et_strbuf *sb, uint64_t v, const char *one, const char *many)
{
    et_sb_add_u64(sb, v);
    et_sb_addc(sb, ' ');
    et_sb_adds(sb, v == 1 ? one : many);
}

/* The per-method counts (allocated; NULL arrays on failure with `ok` false). */
typedef struct counts {
    uint64_t kinds[6];
    uint64_t *ops, *dels;
    bool ok;
} counts;

static void counts_of(const et_program *p, const et_pmethod *m, counts *c)
{
    c->ops = calloc((size_t)m->operators.count + 1, sizeof *c->ops);
    c->dels = calloc((size_t)m->delegates.count + 1, sizeof *c->dels);
    c->ok = c->ops && c->dels;
    if (c->ok)
        et_pmethod_count(p, m, c->kinds, c->ops, c->dels);
    else
        memset(c->kinds, 0, sizeof c->kinds);
}

static void counts_free(counts *c)
{
    free(c->ops);
    free(c->dels);
}

static uint64_t planned_bytes(const et_program *p, const et_pmethod *m)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < m->buffer_sizes.count; i++)
        total += (uint64_t)et_pmethod_buffer_size(p, m, i);
    return total;
}

static uint64_t constant_buffer_bytes(const et_program *p)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < p->constant_buffer.count; i++)
        total += et_program_constant_buffer_bytes(p, i);
    return total;
}

static void text_method(const et_program *p, uint32_t mi, et_strbuf *sb)
{
    et_pmethod m;
    et_program_method(p, mi, &m);
    counts c;
    counts_of(p, &m, &c);
    if (!c.ok) {
        sb->failed = true;
        counts_free(&c);
        return;
    }
    uint64_t n = et_pmethod_num_instructions(p, &m);
    et_sb_adds(sb, "\nmethod ");
    et_sb_add_shown(sb, m.name.p ? m.name.p : "", m.name.n);
    et_sb_adds(sb, ": ");
    add_fmt_u64(sb, n, "instruction", "instructions");
    static const char *const kind_text[6][2] = {
        {"", ""}, {"kernel call", "kernel calls"}, {"delegate call", "delegate calls"},
        {"move", "moves"}, {"jump", "jumps"}, {"free", "frees"}};
    bool first = true;
    for (int k = 1; k < 6; k++) {
        if (!c.kinds[k])
            continue;
        et_sb_adds(sb, first ? " (" : ", ");
        add_fmt_u64(sb, c.kinds[k], kind_text[k][0], kind_text[k][1]);
        first = false;
    }
    if (!first)
        et_sb_addc(sb, ')');
    et_sb_adds(sb, ", ");
    add_fmt_u64(sb, m.values.count, "value", "values");
    et_sb_adds(sb, ", ");
    add_fmt_u64(sb, m.inputs.count, "input", "inputs");
    et_sb_adds(sb, ", ");
    add_fmt_u64(sb, m.outputs.count, "output", "outputs");
    et_sb_addc(sb, '\n');
    if (m.operators.count) {
        et_sb_adds(sb, "  kernel calls by operator:\n");
        for (uint32_t i = 0; i < m.operators.count; i++) {
            char name[512];
            et_pmethod_operator_name(p, &m, i, name, sizeof name);
            char num[32];
            snprintf(num, sizeof num, "    %6" PRIu64 "  ", c.ops[i]);
            et_sb_adds(sb, num);
            et_sb_add_shown(sb, name, strlen(name));
            et_sb_addc(sb, '\n');
        }
    }
    if (m.delegates.count) {
        et_sb_adds(sb, "  delegate calls by backend:\n");
        for (uint32_t i = 0; i < m.delegates.count; i++) {
            et_pdelegate d;
            et_pmethod_delegate(p, &m, i, &d);
            char num[32];
            snprintf(num, sizeof num, "    %6" PRIu64 "  ", c.dels[i]);
            et_sb_adds(sb, num);
            et_sb_add_shown(sb, d.id.p ? d.id.p : "", d.id.n);
            et_sb_adds(sb, ": blob of ");
            add_fmt_u64(sb, d.bytes, "byte", "bytes");
            et_sb_adds(sb, d.in_segment ? " in segment " : " inline, backend_delegate_data[");
            et_sb_add_u64(sb, d.index);
            if (!d.in_segment)
                et_sb_addc(sb, ']');
            if (d.compile_specs.count) {
                et_sb_adds(sb, ", ");
                add_fmt_u64(sb, d.compile_specs.count, "compile spec", "compile specs");
            }
            et_sb_addc(sb, '\n');
        }
    }
    et_sb_adds(sb, "  planned memory: ");
    add_fmt_u64(sb, planned_bytes(p, &m), "byte", "bytes");
    et_sb_adds(sb, " (non_const_buffer_sizes [");
    for (uint32_t i = 0; i < m.buffer_sizes.count; i++) {
        if (i)
            et_sb_adds(sb, ", ");
        et_sb_add_i64(sb, et_pmethod_buffer_size(p, &m, i));
    }
    et_sb_adds(sb, "])\n");
    counts_free(&c);
}

void et_progsum_text(const et_program *p, const char *name, et_strbuf *sb)
{
    if (!name)
        name = p->path ? p->path : "(program)";
    et_sb_adds(sb, "program ");
    et_sb_add_shown(sb, name, strlen(name));
    et_sb_adds(sb, ": ");
    add_fmt_u64(sb, p->file_size, "byte", "bytes");
    if (p->extended_header) {
        et_sb_adds(sb, " (FlatBuffer ");
        et_sb_add_u64(sb, p->program_size);
        if (p->segment_base) {
            et_sb_adds(sb, ", segment data ");
            if (p->segment_data_size) {
                et_sb_add_u64(sb, p->segment_data_size);
                et_sb_adds(sb, " bytes ");
            }
            et_sb_adds(sb, "from byte ");
            et_sb_add_u64(sb, p->segment_base);
        }
        et_sb_addc(sb, ')');
    }
    et_sb_adds(sb, ", version ");
    et_sb_add_u64(sb, p->version);
    et_sb_adds(sb, ", ");
    add_fmt_u64(sb, p->plans.count, "method", "methods");
    et_sb_adds(sb, ", ");
    add_fmt_u64(sb, p->segments.count, "segment", "segments");
    et_sb_addc(sb, '\n');
    et_sb_adds(sb, "constants: ");
    add_fmt_u64(sb, constant_buffer_bytes(p), "byte", "bytes");
    et_sb_adds(sb, " in ");
    add_fmt_u64(sb, p->constant_buffer.count, "constant_buffer entry",
                "constant_buffer entries");
    if (p->has_constant_segment) {
        uint64_t off, size;
        et_program_segment(p, p->constant_segment_index, &off, &size);
        et_sb_adds(sb, "; constant segment ");
        et_sb_add_u64(sb, p->constant_segment_index);
        et_sb_adds(sb, ": ");
        add_fmt_u64(sb, size, "byte", "bytes");
        et_sb_adds(sb, ", ");
        add_fmt_u64(sb, p->constant_offsets.count, "offset", "offsets");
    }
    et_sb_addc(sb, '\n');
    for (uint32_t i = 0; i < p->plans.count && !sb->failed; i++)
        text_method(p, i, sb);
}

/* ---- JSON ---- */

static void jkey(et_strbuf *sb, const char *k)
{
    et_sb_addc(sb, '"');
    et_sb_adds(sb, k);
    et_sb_adds(sb, "\": ");
}

static void json_method(const et_program *p, uint32_t mi, et_strbuf *sb)
{
    et_pmethod m;
    et_program_method(p, mi, &m);
    counts c;
    counts_of(p, &m, &c);
    if (!c.ok) {
        sb->failed = true;
        counts_free(&c);
        return;
    }
    et_sb_adds(sb, mi ? ",\n    {" : "\n    {");
    jkey(sb, "name");
    et_sb_add_json_str(sb, m.name.p ? m.name.p : "", m.name.n);
    et_sb_adds(sb, ", ");
    jkey(sb, "instructions");
    et_sb_add_u64(sb, et_pmethod_num_instructions(p, &m));
    static const char *const kind_key[6] = {"", "kernel_calls", "delegate_calls", "moves",
                                            "jumps", "frees"};
    for (int k = 1; k < 6; k++) {
        et_sb_adds(sb, ", ");
        jkey(sb, kind_key[k]);
        et_sb_add_u64(sb, c.kinds[k]);
    }
    et_sb_adds(sb, ", ");
    jkey(sb, "chains");
    et_sb_add_u64(sb, m.chains.count);
    et_sb_adds(sb, ", ");
    jkey(sb, "values");
    et_sb_add_u64(sb, m.values.count);
    et_sb_adds(sb, ", ");
    jkey(sb, "inputs");
    et_sb_add_u64(sb, m.inputs.count);
    et_sb_adds(sb, ", ");
    jkey(sb, "outputs");
    et_sb_add_u64(sb, m.outputs.count);
    et_sb_adds(sb, ",\n     ");
    jkey(sb, "operators");
    et_sb_addc(sb, '[');
    for (uint32_t i = 0; i < m.operators.count; i++) {
        char name[8200];
        et_pmethod_operator_name(p, &m, i, name, sizeof name);
        et_sb_adds(sb, i ? ", {" : "{");
        jkey(sb, "name");
        et_sb_add_json_str(sb, name, strlen(name));
        et_sb_adds(sb, ", ");
        jkey(sb, "calls");
        et_sb_add_u64(sb, c.ops[i]);
        et_sb_addc(sb, '}');
    }
    et_sb_adds(sb, "],\n     ");
    jkey(sb, "delegates");
    et_sb_addc(sb, '[');
    for (uint32_t i = 0; i < m.delegates.count; i++) {
        et_pdelegate d;
        et_pmethod_delegate(p, &m, i, &d);
        et_sb_adds(sb, i ? ", {" : "{");
        jkey(sb, "backend");
        et_sb_add_json_str(sb, d.id.p ? d.id.p : "", d.id.n);
        et_sb_adds(sb, ", ");
        jkey(sb, "bytes");
        et_sb_add_u64(sb, d.bytes);
        et_sb_adds(sb, ", ");
        jkey(sb, "location");
        et_sb_adds(sb, d.in_segment ? "\"segment\", " : "\"inline\", ");
        jkey(sb, "index");
        et_sb_add_u64(sb, d.index);
        et_sb_adds(sb, ", ");
        jkey(sb, "calls");
        et_sb_add_u64(sb, c.dels[i]);
        et_sb_adds(sb, ", ");
        jkey(sb, "compile_specs");
        et_sb_addc(sb, '[');
        for (uint32_t k = 0; k < d.compile_specs.count; k++) {
            et_str key;
            const uint8_t *val;
            uint32_t vlen;
            et_pdelegate_compile_spec(p, &d, k, &key, &val, &vlen);
            et_sb_adds(sb, k ? ", {" : "{");
            jkey(sb, "key");
            et_sb_add_json_str(sb, key.p ? key.p : "", key.n);
            et_sb_adds(sb, ", ");
            jkey(sb, "bytes");
            et_sb_add_u64(sb, vlen);
            et_sb_addc(sb, '}');
        }
        et_sb_adds(sb, "]}");
    }
    et_sb_adds(sb, "],\n     ");
    jkey(sb, "planned_memory");
    et_sb_addc(sb, '{');
    jkey(sb, "bytes");
    et_sb_add_u64(sb, planned_bytes(p, &m));
    et_sb_adds(sb, ", ");
    jkey(sb, "buffers");
    et_sb_addc(sb, '[');
    for (uint32_t i = 0; i < m.buffer_sizes.count; i++) {
        if (i)
            et_sb_adds(sb, ", ");
        et_sb_add_i64(sb, et_pmethod_buffer_size(p, &m, i));
    }
    et_sb_adds(sb, "]}}");
    counts_free(&c);
}

int et_progsum_write_json(const et_program *p, const char *name, FILE *out)
{
    et_strbuf sb = {0};
    if (!name)
        name = p->path;
    et_sb_addc(&sb, '{');
    jkey(&sb, "path");
    if (name)
        et_sb_add_json_str(&sb, name, strlen(name));
    else
        et_sb_adds(&sb, "null");
    et_sb_adds(&sb, ", ");
    jkey(&sb, "file_size");
    et_sb_add_u64(&sb, p->file_size);
    et_sb_adds(&sb, ", ");
    jkey(&sb, "program_size");
    et_sb_add_u64(&sb, p->program_size);
    et_sb_adds(&sb, ", ");
    jkey(&sb, "version");
    et_sb_add_u64(&sb, p->version);
    et_sb_adds(&sb, ",\n ");
    jkey(&sb, "extended_header");
    if (p->extended_header) {
        et_sb_addc(&sb, '{');
        jkey(&sb, "program_size");
        et_sb_add_u64(&sb, p->program_size);
        et_sb_adds(&sb, ", ");
        jkey(&sb, "segment_base_offset");
        et_sb_add_u64(&sb, p->segment_base);
        et_sb_adds(&sb, ", ");
        jkey(&sb, "segment_data_size");
        et_sb_add_u64(&sb, p->segment_data_size);
        et_sb_addc(&sb, '}');
    } else {
        et_sb_adds(&sb, "null");
    }
    et_sb_adds(&sb, ",\n ");
    jkey(&sb, "segments");
    et_sb_addc(&sb, '[');
    for (uint32_t i = 0; i < p->segments.count; i++) {
        uint64_t off, size;
        et_program_segment(p, i, &off, &size);
        et_sb_adds(&sb, i ? ", {" : "{");
        jkey(&sb, "offset");
        et_sb_add_u64(&sb, off);
        et_sb_adds(&sb, ", ");
        jkey(&sb, "size");
        et_sb_add_u64(&sb, size);
        et_sb_addc(&sb, '}');
        if (et_sb_drain(&sb, out, false) != 0)
            break;
    }
    et_sb_adds(&sb, "],\n ");
    jkey(&sb, "constants");
    et_sb_addc(&sb, '{');
    jkey(&sb, "buffers");
    et_sb_add_u64(&sb, p->constant_buffer.count);
    et_sb_adds(&sb, ", ");
    jkey(&sb, "buffer_bytes");
    et_sb_add_u64(&sb, constant_buffer_bytes(p));
    et_sb_adds(&sb, ", ");
    jkey(&sb, "segment");
    if (p->has_constant_segment) {
        uint64_t off, size;
        et_program_segment(p, p->constant_segment_index, &off, &size);
        et_sb_addc(&sb, '{');
        jkey(&sb, "index");
        et_sb_add_u64(&sb, p->constant_segment_index);
        et_sb_adds(&sb, ", ");
        jkey(&sb, "bytes");
        et_sb_add_u64(&sb, size);
        et_sb_adds(&sb, ", ");
        jkey(&sb, "offsets");
        et_sb_add_u64(&sb, p->constant_offsets.count);
        et_sb_addc(&sb, '}');
    } else {
        et_sb_adds(&sb, "null");
    }
    et_sb_adds(&sb, "},\n ");
    jkey(&sb, "methods");
    et_sb_addc(&sb, '[');
    for (uint32_t i = 0; i < p->plans.count && !sb.failed; i++) {
        json_method(p, i, &sb);
        if (et_sb_drain(&sb, out, false) != 0)
            break;
    }
    et_sb_adds(&sb, "\n  ]\n}\n");
    int rc = et_sb_drain(&sb, out, true);
    et_sb_free(&sb);
    return rc;
}

void et_progsum_planned(const et_inspector *insp, et_strbuf *sb)
{
    const et_program *p = insp->program;
    if (!p)
        return;
    et_sb_adds(sb, "planned memory (program ");
    const char *path = p->path ? p->path : "";
    et_sb_add_shown(sb, path, strlen(path));
    et_sb_adds(sb, "):\n");
    for (size_t b = 0; b < insp->n_blocks; b++) {
        const et_block *blk = &insp->blocks[b];
        int32_t mi = insp->program_method ? insp->program_method[b] : -1;
        et_sb_adds(sb, "  ");
        et_sb_add_shown(sb, blk->name.p ? blk->name.p : "", blk->name.n);
        if (mi < 0) {
            et_sb_adds(sb, ": no method of the program\n");
            continue;
        }
        et_pmethod m;
        et_program_method(p, (uint32_t)mi, &m);
        et_sb_adds(sb, ": method ");
        et_sb_add_shown(sb, m.name.p ? m.name.p : "", m.name.n);
        et_sb_adds(sb, " plans ");
        add_fmt_u64(sb, planned_bytes(p, &m), "byte", "bytes");
        et_sb_adds(sb, " (non_const_buffer_sizes [");
        for (uint32_t i = 0; i < m.buffer_sizes.count; i++) {
            if (i)
                et_sb_adds(sb, ", ");
            et_sb_add_i64(sb, et_pmethod_buffer_size(p, &m, i));
        }
        et_sb_adds(sb, "])\n");
    }
}

/* ---- diff ---- */

/* One named count (an operator's full name and its calls; a delegate's
 * backend, its rank among that backend's delegates and its blob bytes). */
typedef struct named {
    char *name;
    uint64_t rank, value;
} named;

static int named_cmp(const void *x, const void *y)
{
    const named *a = x, *b = y;
    int c = strcmp(a->name, b->name);
    return c ? c : (a->rank > b->rank) - (a->rank < b->rank);
}

static void named_free(named *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i].name);
    free(v);
}

/* The operators of `m` with their calls, sorted by name (duplicates of a
 * name summed into the first); NULL on failure. */
static named *ops_of(const et_program *p, const et_pmethod *m, size_t *n)
{
    counts c;
    counts_of(p, m, &c);
    named *v = calloc((size_t)m->operators.count + 1, sizeof *v);
    *n = 0;
    if (!c.ok || !v) {
        counts_free(&c);
        free(v);
        return NULL;
    }
    for (uint32_t i = 0; i < m->operators.count; i++) {
        char full[512];
        et_pmethod_operator_name(p, m, i, full, sizeof full);
        if (!(v[i].name = strdup(full))) {
            named_free(v, i);
            counts_free(&c);
            return NULL;
        }
        v[i].value = c.ops[i];
    }
    counts_free(&c);
    *n = m->operators.count;
    qsort(v, *n, sizeof *v, named_cmp);
    size_t k = 0;
    for (size_t i = 0; i < *n; i++) {
        if (k && strcmp(v[k - 1].name, v[i].name) == 0) {
            v[k - 1].value += v[i].value;
            free(v[i].name);
        } else {
            v[k++] = v[i];
        }
    }
    *n = k;
    return v;
}

/* The delegates of `m`: backend, rank among that backend's, blob bytes;
 * sorted.  NULL on failure. */
static named *dels_of(const et_program *p, const et_pmethod *m, size_t *n)
{
    named *v = calloc((size_t)m->delegates.count + 1, sizeof *v);
    *n = 0;
    if (!v)
        return NULL;
    for (uint32_t i = 0; i < m->delegates.count; i++) {
        et_pdelegate d;
        et_pmethod_delegate(p, m, i, &d);
        v[i].name = malloc((size_t)d.id.n + 1);
        if (!v[i].name) {
            named_free(v, i);
            return NULL;
        }
        memcpy(v[i].name, d.id.p ? d.id.p : "", d.id.n);
        v[i].name[d.id.n] = '\0';
        v[i].rank = i; /* the order among the same backend's, after sorting */
        v[i].value = d.bytes;
    }
    *n = m->delegates.count;
    qsort(v, *n, sizeof *v, named_cmp);
    for (size_t i = 0, r = 0; i < *n; i++) {
        r = (i && strcmp(v[i - 1].name, v[i].name) == 0) ? r + 1 : 0;
        v[i].rank = r;
    }
    return v;
}

static void add_delta(et_strbuf *sb, uint64_t a, uint64_t b, const char *unit)
{
    et_sb_add_u64(sb, a);
    et_sb_adds(sb, " -> ");
    et_sb_add_u64(sb, b);
    if (unit) {
        et_sb_addc(sb, ' ');
        et_sb_adds(sb, unit);
    }
    et_sb_adds(sb, b >= a ? " (+" : " (-");
    et_sb_add_u64(sb, b >= a ? b - a : a - b);
    et_sb_adds(sb, ")\n");
}

/* The changes of method `ma` of a to `mb` of b; returns how many lines. */
static size_t diff_method(const et_program *a, const et_pmethod *ma, const et_program *b,
                          const et_pmethod *mb, et_strbuf *sb)
{
    size_t lines = 0;
    uint64_t ia = et_pmethod_num_instructions(a, ma), ib = et_pmethod_num_instructions(b, mb);
    if (ia != ib) {
        et_sb_adds(sb, "  instructions: ");
        add_delta(sb, ia, ib, NULL);
        lines++;
    }
    size_t na, nb;
    named *oa = ops_of(a, ma, &na), *ob = ops_of(b, mb, &nb);
    if (!oa || !ob) {
        sb->failed = true;
    } else {
        size_t i = 0, j = 0;
        while (i < na || j < nb) {
            int c = i >= na ? 1 : j >= nb ? -1 : strcmp(oa[i].name, ob[j].name);
            if (c == 0 && oa[i].value == ob[j].value) {
                i++, j++;
                continue;
            }
            et_sb_adds(sb, "  operator ");
            if (c < 0) {
                et_sb_add_shown(sb, oa[i].name, strlen(oa[i].name));
                et_sb_adds(sb, " removed (");
                add_fmt_u64(sb, oa[i].value, "call", "calls");
                et_sb_adds(sb, ")\n");
                i++, lines++;
            } else if (c > 0) {
                et_sb_add_shown(sb, ob[j].name, strlen(ob[j].name));
                et_sb_adds(sb, " added (");
                add_fmt_u64(sb, ob[j].value, "call", "calls");
                et_sb_adds(sb, ")\n");
                j++, lines++;
            } else {
                et_sb_add_shown(sb, oa[i].name, strlen(oa[i].name));
                et_sb_adds(sb, " calls: ");
                add_delta(sb, oa[i].value, ob[j].value, NULL);
                i++, j++, lines++;
            }
        }
    }
    named_free(oa, na);
    named_free(ob, nb);
    named *da = dels_of(a, ma, &na), *db = dels_of(b, mb, &nb);
    if (!da || !db) {
        sb->failed = true;
    } else {
        size_t i = 0, j = 0;
        while (i < na || j < nb) {
            int c = i >= na ? 1 : j >= nb ? -1 : named_cmp(&da[i], &db[j]);
            const named *x = c <= 0 ? &da[i] : &db[j];
            if (c == 0 && da[i].value == db[j].value) {
                i++, j++;
                continue;
            }
            et_sb_adds(sb, "  delegate ");
            et_sb_add_shown(sb, x->name, strlen(x->name));
            et_sb_addc(sb, '[');
            et_sb_add_u64(sb, x->rank);
            et_sb_adds(sb, "]: ");
            if (c < 0) {
                et_sb_adds(sb, "removed (blob of ");
                add_fmt_u64(sb, da[i].value, "byte)\n", "bytes)\n");
                i++;
            } else if (c > 0) {
                et_sb_adds(sb, "added (blob of ");
                add_fmt_u64(sb, db[j].value, "byte)\n", "bytes)\n");
                j++;
            } else {
                et_sb_adds(sb, db[j].value > da[i].value ? "blob grew " : "blob shrank ");
                add_delta(sb, da[i].value, db[j].value, "bytes");
                i++, j++;
            }
            lines++;
        }
    }
    named_free(da, na);
    named_free(db, nb);
    uint64_t pa = planned_bytes(a, ma), pb = planned_bytes(b, mb);
    if (pa != pb) {
        et_sb_adds(sb, "  planned memory: ");
        add_delta(sb, pa, pb, "bytes");
        lines++;
    }
    return lines;
}

static uint64_t constant_segment_bytes(const et_program *p)
{
    uint64_t off, size = 0;
    if (p->has_constant_segment)
        et_program_segment(p, p->constant_segment_index, &off, &size);
    return size;
}

void et_progsum_diff(const et_program *a, const char *na, const et_program *b, const char *nb,
                     et_strbuf *sb)
{
    size_t changes = 0;
    et_sb_adds(sb, "programs ");
    et_sb_add_shown(sb, na, strlen(na));
    et_sb_adds(sb, " -> ");
    et_sb_add_shown(sb, nb, strlen(nb));
    et_sb_adds(sb, "\n");
    for (uint32_t i = 0; i < a->plans.count && !sb->failed; i++) {
        et_pmethod ma, mb;
        et_program_method(a, i, &ma);
        et_sb_adds(sb, "method ");
        et_sb_add_shown(sb, ma.name.p ? ma.name.p : "", ma.name.n);
        int32_t k = et_program_find_method(b, ma.name.p ? ma.name.p : "", ma.name.n);
        if (k < 0) {
            et_sb_adds(sb, ": removed\n");
            changes++;
            continue;
        }
        et_sb_adds(sb, ":\n");
        et_program_method(b, (uint32_t)k, &mb);
        size_t n = diff_method(a, &ma, b, &mb, sb);
        if (n == 0)
            et_sb_adds(sb, "  no change\n");
        changes += n;
    }
    for (uint32_t i = 0; i < b->plans.count && !sb->failed; i++) {
        et_pmethod mb;
        et_program_method(b, i, &mb);
        if (et_program_find_method(a, mb.name.p ? mb.name.p : "", mb.name.n) >= 0)
            continue;
        et_sb_adds(sb, "method ");
        et_sb_add_shown(sb, mb.name.p ? mb.name.p : "", mb.name.n);
        et_sb_adds(sb, ": added (");
        add_fmt_u64(sb, et_pmethod_num_instructions(b, &mb), "instruction", "instructions");
        et_sb_adds(sb, ")\n");
        changes++;
    }
    uint64_t ca = constant_buffer_bytes(a) + constant_segment_bytes(a);
    uint64_t cb = constant_buffer_bytes(b) + constant_segment_bytes(b);
    if (ca != cb) {
        et_sb_adds(sb, "constants: ");
        add_delta(sb, ca, cb, "bytes");
        changes++;
    }
    if (a->file_size != b->file_size) {
        et_sb_adds(sb, "file size: ");
        add_delta(sb, a->file_size, b->file_size, "bytes");
    }
    if (changes == 0)
        et_sb_adds(sb, "no change in methods, operators, delegates, planned memory or constants\n");
}
