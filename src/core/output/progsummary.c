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
