/* rows.c - the rows of spec §6.1-§6.3 and the linkage reprs they show;
 * see rows.h. */
#include "output/rows.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/link.h"
#include "model/proglink.h"
#include "base/strbuf.h"

/* ------------------------------------------------------------------ */
/* ETRecord linkage of an event (link.h), as Python's str() shows it */

static size_t n_op_types(const et_inspector *insp, const et_block *blk, const et_event *ev)
{
    size_t n = 0;
    uint32_t bits;
    for (uint32_t k = 0; k < ev->node_count; k++) {
        et_link_node(insp, blk, ev, k, &bits);
        if (bits & ET_LINK_NODE_OP)
            n++;
    }
    return n;
}

/* op_types as the reference's row shows it (spec §6.1 column 9): the
 * list's str() when it has fewer than 5 entries, else
 * "['first', 'second' ... 'last'] (N total)" (names not escaped). */
static void py_op_types(et_strbuf *sb, const et_inspector *insp, const et_block *blk,
                        const et_event *ev)
{
    size_t total = n_op_types(insp, blk, ev), i = 0;
    uint32_t bits;
    et_sb_addc(sb, '[');
    for (uint32_t k = 0; k < ev->node_count; k++) {
        const et_graph_node *nd = et_link_node(insp, blk, ev, k, &bits);
        if (!(bits & ET_LINK_NODE_OP))
            continue;
        if (total < 5) {
            if (i)
                et_sb_adds(sb, ", ");
            et_sb_add_pystr(sb, nd->op, strlen(nd->op));
        } else if (i < 2 || i == total - 1) {
            et_sb_adds(sb, i == 0 ? "'" : i == 1 ? ", '" : " ... '");
            et_sb_adds(sb, nd->op);
            et_sb_addc(sb, '\'');
        }
        i++;
    }
    et_sb_addc(sb, ']');
    if (total >= 5) {
        et_sb_adds(sb, " (");
        et_sb_add_u64(sb, total);
        et_sb_adds(sb, " total)");
    }
}

char *et_report_node_key(const et_graph_node *nd)
{
    size_t n = strlen(nd->name);
    char *key = malloc(n + 2);
    if (key) {
        memcpy(key, nd->name, n);
        memcpy(key + n, "_", 2);
    }
    return key;
}

static void py_node_key(et_strbuf *sb, const et_graph_node *nd)
{
    char *key = et_report_node_key(nd);
    if (!key) {
        sb->failed = true;
        return;
    }
    et_sb_add_pystr(sb, key, strlen(key));
    free(key);
}

/* nn_module_stack as Python shows the deserialized dict:
 * {'key': ('path', 'type'), ...}; None when absent or malformed. */
static void py_module_stack(et_strbuf *sb, const et_graph_node *nd)
{
    if (!nd->has_module_stack) {
        et_sb_adds(sb, "None");
        return;
    }
    et_sb_addc(sb, '{');
    for (size_t j = 0; j < nd->n_module_stack; j++) {
        const et_module_entry *m = &nd->module_stack[j];
        if (j)
            et_sb_adds(sb, ", ");
        et_sb_add_pystr(sb, m->key, strlen(m->key));
        et_sb_adds(sb, ": (");
        et_sb_add_pystr(sb, m->path, strlen(m->path));
        et_sb_adds(sb, ", ");
        et_sb_add_pystr(sb, m->type, strlen(m->type));
        et_sb_addc(sb, ')');
    }
    et_sb_addc(sb, '}');
}

/* stack_traces (module: false) or module_hierarchy (true) as a dict's
 * str(): one entry per distinct node, first seen first. */
static void py_node_dict(et_strbuf *sb, const et_inspector *insp, const et_block *blk,
                         const et_event *ev, bool module)
{
    uint32_t bits;
    bool any = false;
    et_sb_addc(sb, '{');
    for (uint32_t k = 0; k < ev->node_count; k++) {
        const et_graph_node *nd = et_link_node(insp, blk, ev, k, &bits);
        if (!(bits & ET_LINK_NODE_FIRST))
            continue;
        if (any)
            et_sb_adds(sb, ", ");
        any = true;
        py_node_key(sb, nd);
        et_sb_adds(sb, ": ");
        if (module)
            py_module_stack(sb, nd);
        else if (nd->stack_trace)
            et_sb_add_pystr(sb, nd->stack_trace, strlen(nd->stack_trace));
        else
            et_sb_adds(sb, "None");
    }
    et_sb_addc(sb, '}');
}


/* ------------------------------------------------------------------ */
/* Frames */

enum { C_BLOCK, C_NAME, C_RAW, C_P10, C_P50, C_P90, C_AVG, C_MIN, C_MAX, C_OPS, C_DID,
       C_STACK, C_MODULE, C_DELEGATED, C_BACKEND, C_DEBUG, C_START, C_COUNT };

static const char *const col_base[C_COUNT] = {
    "event_block_name", "event_name", "raw", "p10", "p50", "p90", "avg", "min", "max",
    "op_types", "delegate_debug_identifier", "stack_traces", "module_hierarchy",
    "is_delegated_op", "delegate_backend_name", "debug_data", "start_time"};

static bool shown(int c, bool for_display)
{
    return !for_display || !(c == C_RAW || c == C_DID || c == C_STACK || c == C_MODULE ||
                             c == C_DEBUG);
}

/* True when `s` contains "OPERATOR_CALL" (the reference drops such rows). */
static bool is_excluded_event(et_str s)
{
    static const char pat[] = "OPERATOR_CALL";
    size_t m = sizeof pat - 1;
    for (size_t i = 0; i + m <= s.n; i++)
        if (memcmp(s.p + i, pat, m) == 0)
            return true;
    return false;
}

/* ---- delegate metadata columns (spec §6.2) ---- */

/* pandas dtypes, as far as the metadata columns need them */
enum { D_EMPTY, D_I64, D_F64, D_BOOL, D_OBJ };

typedef struct {
    uint32_t key;   /* key id */
    size_t toff;    /* TEXT: offset of the bytes in the text buffer */
    et_md_value v;  /* v.text unused: see toff */
} md_entry;

struct et_md_fields {
    et_strbuf keys;         /* key bytes, back to back */
    size_t *key_off, *key_len;
    size_t nkeys, capkeys;
    uint32_t *slots;        /* open addressing: key id + 1, 0 empty */
    size_t nslots;
    md_entry *e;            /* the entries of every event, event after event */
    size_t n, cap;
    et_strbuf text;         /* TEXT values */
    size_t cur;             /* first entry of the event being filled */
    bool failed;
};

static uint64_t md_hash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211u;
    return h;
}

static bool md_key_eq(const et_md_fields *m, uint32_t id, const char *s, size_t n)
{
    return m->key_len[id] == n && memcmp(m->keys.p + m->key_off[id], s, n) == 0;
}

/* The id of key s[0..n), interned; UINT32_MAX out of memory. */
static uint32_t md_intern(et_md_fields *m, const char *s, size_t n)
{
    if (2 * (m->nkeys + 1) > m->nslots) {
        size_t ns = m->nslots ? 2 * m->nslots : 64;
        uint32_t *sl = calloc(ns, sizeof *sl);
        if (!sl)
            return UINT32_MAX;
        for (size_t i = 0; i < m->nkeys; i++) {
            size_t j = md_hash(m->keys.p + m->key_off[i], m->key_len[i]) & (ns - 1);
            while (sl[j])
                j = (j + 1) & (ns - 1);
            sl[j] = (uint32_t)i + 1;
        }
        free(m->slots);
        m->slots = sl;
        m->nslots = ns;
    }
    size_t j = md_hash(s, n) & (m->nslots - 1);
    for (; m->slots[j]; j = (j + 1) & (m->nslots - 1))
        if (md_key_eq(m, m->slots[j] - 1, s, n))
            return m->slots[j] - 1;
    if (m->nkeys == m->capkeys) {
        size_t nc = m->capkeys ? 2 * m->capkeys : 16;
        size_t *o = realloc(m->key_off, nc * sizeof *o);
        if (!o)
            return UINT32_MAX;
        m->key_off = o;
        size_t *l = realloc(m->key_len, nc * sizeof *l);
        if (!l)
            return UINT32_MAX;
        m->key_len = l;
        m->capkeys = nc;
    }
    if (m->nkeys >= UINT32_MAX - 1)
        return UINT32_MAX;
    m->key_off[m->nkeys] = m->keys.n;
    m->key_len[m->nkeys] = n;
    et_sb_add(&m->keys, s, n);
    if (m->keys.failed)
        return UINT32_MAX;
    m->slots[j] = (uint32_t)m->nkeys + 1;
    return (uint32_t)m->nkeys++;
}

int et_md_add(et_md_fields *m, const char *key, size_t klen, const et_md_value *v)
{
    if (v->kind == ET_CELL_NONE)
        return 0;
    uint32_t id = md_intern(m, key, klen);
    if (id == UINT32_MAX) {
        m->failed = true;
        return -1;
    }
    md_entry x = {.key = id, .v = *v};
    x.v.text = NULL;
    if (v->kind == ET_CELL_TEXT) {
        x.toff = m->text.n;
        et_sb_add(&m->text, v->text, v->len);
        if (m->text.failed) {
            m->failed = true;
            return -1;
        }
    }
    for (size_t i = m->cur; i < m->n; i++)
        if (m->e[i].key == id) { /* a dict's key again: its place, the new value */
            m->e[i] = x;
            return 0;
        }
    if (m->n == m->cap) {
        size_t nc = m->cap ? 2 * m->cap : 64;
        md_entry *e = realloc(m->e, nc * sizeof *e);
        if (!e) {
            m->failed = true;
            return -1;
        }
        m->e = e;
        m->cap = nc;
    }
    m->e[m->n++] = x;
    return 0;
}

static void md_free(et_md_fields *m)
{
    et_sb_free(&m->keys);
    et_sb_free(&m->text);
    free(m->key_off);
    free(m->key_len);
    free(m->slots);
    free(m->e);
}

/* Python's repr() of bytes: b'...' (the quote chosen as for str), with
 * \\, the quote, \t, \n, \r escaped and other bytes outside 0x20..0x7e as
 * \xNN. */
static void py_bytes(et_strbuf *sb, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    char q = (memchr(s, '\'', n) && !memchr(s, '"', n)) ? '"' : '\'';
    et_sb_addc(sb, 'b');
    et_sb_addc(sb, q);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\\' || c == (unsigned char)q) {
            et_sb_addc(sb, '\\');
            et_sb_addc(sb, (char)c);
        } else if (c == '\t' || c == '\n' || c == '\r') {
            et_sb_addc(sb, '\\');
            et_sb_addc(sb, c == '\t' ? 't' : c == '\n' ? 'n' : 'r');
        } else if (c < 0x20 || c >= 0x7f) {
            char esc[4] = {'\\', 'x', hex[c >> 4], hex[c & 15]};
            et_sb_add(sb, esc, 4);
        } else {
            et_sb_addc(sb, (char)c);
        }
    }
    et_sb_addc(sb, q);
}

/* The reference's raw metadata list of an event as str() shows it: one
 * entry per run, bytes reprs, '' for a run without metadata (the
 * reference appends "" there). */
static void py_raw_metadata(et_strbuf *sb, const et_block *blk, const et_event *ev)
{
    et_sb_addc(sb, '[');
    for (size_t r = 0; r < blk->n_runs; r++) {
        et_str m = ev->raw_delegate_debug_metadatas[r];
        if (r)
            et_sb_adds(sb, ", ");
        if (m.n)
            py_bytes(sb, m.p, m.n);
        else
            et_sb_adds(sb, "''");
    }
    et_sb_addc(sb, ']');
}

/* The dtype of one event's pd.Series (its fields [first, first+n)). */
static int md_series_dtype(const et_md_fields *m, size_t first, size_t n)
{
    bool text = false, boolean = false, fl = false, num = false;
    if (n == 0)
        return D_EMPTY;
    for (size_t i = first; i < first + n; i++)
        switch (m->e[i].v.kind) {
        case ET_CELL_TEXT: text = true; break;
        case ET_CELL_BOOL: boolean = true; break;
        case ET_CELL_FLOAT: fl = num = true; break;
        default: num = true; break;
        }
    if (text || (boolean && num))
        return D_OBJ;
    return boolean ? D_BOOL : fl ? D_F64 : D_I64;
}

/* pandas' common dtype of a column over pd.concat's pieces (`missing`:
 * some piece lacks the column and fills it with NaN). */
static int md_common(int a, int b)
{
    if (a == b)
        return a;
    if (a == D_OBJ || b == D_OBJ || a == D_BOOL || b == D_BOOL)
        return D_OBJ;
    return D_F64;
}

static int md_hold_na(int d)
{
    return d == D_I64 ? D_F64 : d == D_BOOL ? D_OBJ : d;
}

/* The metadata of the blocks et_report_rows shows: fields per event,
 * columns per block and over the blocks, their dtypes. */
typedef struct {
    et_md_fields m;
    size_t *ev_base;    /* per block: index of its first event in first/count */
    size_t *first, *count; /* per event: its entries */
    uint32_t *bcols;    /* per block, its column keys (first-seen), back to back */
    size_t *bcol_first, *bcol_n;
    unsigned char *bdtype; /* per block column: dtype (parallel to bcols) */
    uint32_t *cols;     /* the frame's metadata columns (keys), first-seen */
    size_t ncols;
    unsigned char *dtype;  /* per frame column: the dtype after the concat */
    unsigned char *kdtype; /* per key: the dtype after the concat (scratch) */
} md_state;

static void md_state_free(md_state *s)
{
    md_free(&s->m);
    free(s->ev_base);
    free(s->first);
    free(s->count);
    free(s->bcols);
    free(s->bcol_first);
    free(s->bcol_n);
    free(s->bdtype);
    free(s->cols);
    free(s->dtype);
    free(s->kdtype);
}

/* Find key `k` among the entries of event ge; NULL when it has none. */
static const md_entry *md_find(const md_state *s, size_t ge, uint32_t k)
{
    for (size_t i = s->first[ge]; i < s->first[ge] + s->count[ge]; i++)
        if (s->m.e[i].key == k)
            return &s->m.e[i];
    return NULL;
}

/* Gather the metadata of blocks [b0, b1) and derive columns and dtypes.
 * Returns 0, or -1 with err set. */
static int md_collect(md_state *s, const et_inspector *insp, const et_report_opts *o, size_t b0,
                      size_t b1, et_error *err)
{
    size_t nb = b1 - b0, nev = 0;
    et_strbuf sb = {0};
    if (!(s->ev_base = calloc(nb + 1, sizeof *s->ev_base)))
        goto nomem;
    for (size_t b = b0; b < b1; b++) {
        s->ev_base[b - b0] = nev;
        nev += insp->blocks[b].n_events;
    }
    s->ev_base[nb] = nev;
    if (!(s->first = calloc(nev + 1, sizeof *s->first)) ||
        !(s->count = calloc(nev + 1, sizeof *s->count)))
        goto nomem;
    /* 1. each event's fields */
    for (size_t b = b0; b < b1; b++) {
        const et_block *blk = &insp->blocks[b];
        for (size_t e = 0; e < blk->n_events; e++) {
            const et_event *ev = &blk->events[e];
            size_t ge = s->ev_base[b - b0] + e;
            s->m.cur = s->first[ge] = s->m.n;
            int use_raw = 1;
            if (o->metadata && ev->is_delegated_op) {
                use_raw = o->metadata(o->ctx, b, e, &s->m, err);
                if (use_raw < 0)
                    goto fail;
                if (use_raw == 1)
                    s->m.n = s->m.cur; /* drop what it may have added */
            }
            if (use_raw == 1 && ev->raw_delegate_debug_metadatas) {
                et_sb_reset(&sb);
                py_raw_metadata(&sb, blk, ev);
                et_md_value v = {.kind = ET_CELL_TEXT, .text = sb.p, .len = sb.n};
                if (sb.failed || et_md_add(&s->m, "delegate_debug_metadata", 23, &v) != 0)
                    goto nomem;
            }
            if (s->m.failed)
                goto nomem;
            s->count[ge] = s->m.n - s->first[ge];
        }
    }
    /* 2. per block: columns (first-seen keys) and dtypes, as
     * pd.DataFrame([pd.Series(...) per event]) makes them */
    size_t nk = s->m.nkeys;
    uint32_t *seen = calloc(nk + 1, sizeof *seen); /* per key: 1 + block column index */
    s->bcol_first = calloc(nb + 1, sizeof *s->bcol_first);
    s->bcol_n = calloc(nb + 1, sizeof *s->bcol_n);
    s->bcols = malloc((s->m.n + 1) * sizeof *s->bcols);
    s->bdtype = malloc(s->m.n + 1);
    s->cols = malloc((nk + 1) * sizeof *s->cols);
    s->dtype = malloc(nk + 1);
    s->kdtype = calloc(nk + 1, 1);
    unsigned char *kin = calloc(nk + 1, 1); /* key seen in some block */
    if (!seen || !s->bcol_first || !s->bcol_n || !s->bcols || !s->bdtype || !s->cols ||
        !s->dtype || !s->kdtype || !kin) {
        free(seen);
        free(kin);
        goto nomem;
    }
    size_t nbc = 0;
    for (size_t bi = 0; bi < nb; bi++) {
        size_t e0 = s->ev_base[bi], e1 = s->ev_base[bi + 1];
        s->bcol_first[bi] = nbc;
        for (size_t ge = e0; ge < e1; ge++)
            for (size_t i = s->first[ge]; i < s->first[ge] + s->count[ge]; i++) {
                uint32_t k = s->m.e[i].key;
                if (!seen[k]) {
                    seen[k] = (uint32_t)(nbc - s->bcol_first[bi]) + 1;
                    s->bcols[nbc++] = k;
                }
            }
        size_t nc = s->bcol_n[bi] = nbc - s->bcol_first[bi];
        for (size_t c = 0; c < nc; c++)
            seen[s->bcols[s->bcol_first[bi] + c]] = 0;
        if (nc == 0)
            continue; /* no event contributed: no columns (spec §6.2) */
        /* the 2-D dtype np.vstack gives the aligned Series */
        bool obj = false, f64 = false, i64 = false;
        for (size_t ge = e0; ge < e1; ge++) {
            int d = md_series_dtype(&s->m, s->first[ge], s->count[ge]);
            if (d == D_EMPTY)
                d = D_F64;
            else if (s->count[ge] < nc)
                d = md_hold_na(d);
            obj |= d == D_OBJ;
            f64 |= d == D_F64;
            i64 |= d == D_I64;
        }
        int d2 = obj ? D_OBJ : f64 ? D_F64 : i64 ? D_I64 : D_BOOL;
        for (size_t c = 0; c < nc; c++) {
            int d = d2;
            if (d2 == D_OBJ) { /* lib.maybe_convert_objects over the column */
                bool t = false, bo = false, fl = false, in = false, na = false;
                uint32_t k = s->bcols[s->bcol_first[bi] + c];
                for (size_t ge = e0; ge < e1; ge++) {
                    const md_entry *x = md_find(s, ge, k);
                    if (!x)
                        na = true;
                    else if (x->v.kind == ET_CELL_TEXT)
                        t = true;
                    else if (x->v.kind == ET_CELL_BOOL)
                        bo = true;
                    else if (x->v.kind == ET_CELL_FLOAT)
                        fl = true;
                    else
                        in = true;
                }
                d = t ? D_OBJ : bo ? ((fl || in || na) ? D_OBJ : D_BOOL)
                                   : (fl || na) ? D_F64 : D_I64;
            }
            s->bdtype[s->bcol_first[bi] + c] = (unsigned char)d;
        }
    }
    /* 3. over the blocks (pd.concat): the union of the columns in
     * first-seen order; a block with events but without a column fills it
     * with NaN */
    for (size_t bi = 0; bi < nb; bi++)
        for (size_t c = 0; c < s->bcol_n[bi]; c++) {
            uint32_t k = s->bcols[s->bcol_first[bi] + c];
            int d = s->bdtype[s->bcol_first[bi] + c];
            if (!kin[k]) {
                kin[k] = 1;
                s->kdtype[k] = (unsigned char)d;
                s->cols[s->ncols++] = k;
            } else {
                s->kdtype[k] = (unsigned char)md_common(s->kdtype[k], d);
            }
        }
    for (size_t bi = 0; bi < nb; bi++) {
        if (s->ev_base[bi] == s->ev_base[bi + 1])
            continue; /* no rows */
        for (size_t c = 0; c < s->ncols; c++)
            kin[s->cols[c]] = 2;
        for (size_t c = 0; c < s->bcol_n[bi]; c++)
            kin[s->bcols[s->bcol_first[bi] + c]] = 1;
        for (size_t c = 0; c < s->ncols; c++)
            if (kin[s->cols[c]] == 2)
                s->kdtype[s->cols[c]] = (unsigned char)md_hold_na(s->kdtype[s->cols[c]]);
    }
    for (size_t c = 0; c < s->ncols; c++)
        s->dtype[c] = s->kdtype[s->cols[c]];
    free(seen);
    free(kin);
    et_sb_free(&sb);
    return 0;
nomem:
    et_fail(err, ET_ERR_NOMEM, "out of memory while building the delegate metadata columns");
fail:
    et_sb_free(&sb);
    return -1;
}

/* Set the metadata cell of column c for event ge of block bi. */
static int md_cell(et_frame *f, size_t row, size_t col, const md_state *s, size_t bi, size_t ge,
                   size_t c)
{
    uint32_t k = s->cols[c];
    const md_entry *x = md_find(s, ge, k);
    if (!x) {
        et_frame_set_float(f, row, col, NAN);
        return 0;
    }
    int bd = D_OBJ; /* the column's dtype in its block */
    for (size_t j = 0; j < s->bcol_n[bi]; j++)
        if (s->bcols[s->bcol_first[bi] + j] == k)
            bd = s->bdtype[s->bcol_first[bi] + j];
    et_md_value v = x->v;
    if (bd == D_F64 && (v.kind == ET_CELL_INT || v.kind == ET_CELL_BOOL)) {
        v.d = v.kind == ET_CELL_INT ? (double)v.i : v.b ? 1.0 : 0.0;
        v.kind = ET_CELL_FLOAT;
    } else if (bd == D_I64 && v.kind == ET_CELL_BOOL) {
        v.i = v.b;
        v.kind = ET_CELL_INT;
    }
    if (s->dtype[c] == D_F64 && v.kind == ET_CELL_INT) {
        v.d = (double)v.i;
        v.kind = ET_CELL_FLOAT;
    }
    switch (v.kind) {
    case ET_CELL_TEXT: return et_frame_set_text(f, row, col, s->m.text.p + x->toff, v.len);
    case ET_CELL_INT: et_frame_set_int(f, row, col, v.i); break;
    case ET_CELL_FLOAT: et_frame_set_float(f, row, col, v.d); break;
    case ET_CELL_BOOL: et_frame_set_bool(f, row, col, v.b); break;
    default: break;
    }
    return 0;
}

et_frame *et_report_frame(const et_inspector *insp, bool include_units, bool for_display,
                          et_error *err)
{
    et_report_opts o = {.units = include_units ? NULL : "", .for_display = for_display,
                        .block_column = true, .block = -1, .event = -1};
    return et_report_rows(insp, &o, NULL, err);
}

/* et_report_rows of blocks [b0, b1) (all of a block's events unless
 * o->block and o->event name one). */
static et_frame *report_rows(const et_inspector *insp, const et_report_opts *o, size_t b0,
                             size_t b1, et_report_rowmap *map, et_error *err)
{
    char names[C_COUNT][64];
    const char **cols = NULL;
    int cmap[C_COUNT]; /* column id -> frame column, -1 when not shown */
    size_t ncols = 0;
    bool for_display = o->for_display;
    const char *unit = et_time_scale_name(insp->target_time_scale);
    md_state md = {0};
    et_frame *f = NULL;
    et_strbuf sb = {0};
    int rc = 0;

    if (map)
        *map = (et_report_rowmap){0};
    if (o->include_delegate_debug_data && md_collect(&md, insp, o, b0, b1, err) != 0) {
        md_state_free(&md);
        return NULL;
    }
    if (!(cols = malloc((C_COUNT + md.ncols) * sizeof *cols)))
        goto nomem;
    for (int c = 0; c < C_COUNT; c++) {
        cmap[c] = -1;
        if (!shown(c, for_display) || (c == C_BLOCK && !o->block_column))
            continue;
        if (c >= C_P10 && c <= C_MAX) {
            if (o->units)
                snprintf(names[c], sizeof names[c], "%s%.40s", col_base[c], o->units);
            else
                snprintf(names[c], sizeof names[c], "%s (%s)", col_base[c], unit);
        } else {
            snprintf(names[c], sizeof names[c], "%s", col_base[c]);
        }
        cmap[c] = (int)ncols;
        cols[ncols++] = names[c];
    }
    size_t nbase = ncols;
    for (size_t c = 0; c < md.ncols; c++) {
        /* keys are not NUL-terminated in the key buffer: copy them */
        size_t id = md.cols[c];
        char *k = malloc(md.m.key_len[id] + 1);
        if (!k) {
            while (c-- > 0)
                free((char *)cols[nbase + c]);
            goto nomem;
        }
        memcpy(k, md.m.keys.p + md.m.key_off[id], md.m.key_len[id]);
        k[md.m.key_len[id]] = '\0';
        cols[ncols++] = k;
    }
    f = et_frame_new(ncols, cols);
    for (size_t c = nbase; c < ncols; c++)
        free((char *)cols[c]);
    if (!f)
        goto nomem;
    /* one row per event at most (excluded ones are few): sized once */
    size_t most = 0;
    for (size_t b = b0; b < b1; b++)
        most += o->block >= 0 && o->event >= 0 ? 1 : insp->blocks[b].n_events;
    if (et_frame_reserve(f, most) != 0)
        goto nomem;
    for (size_t b = b0; b < b1 && rc == 0; b++) {
        const et_block *blk = &insp->blocks[b];
        size_t e0 = 0, e1 = blk->n_events;
        if (o->block >= 0 && o->event >= 0) {
            e0 = (size_t)o->event;
            e1 = e0 + 1;
        }
        for (size_t e = e0; e < e1 && rc == 0; e++) {
            const et_event *ev = &blk->events[e];
            et_str name = et_event_name(ev);
            if (for_display && is_excluded_event(name))
                continue;
            long row = et_frame_add_row(f);
            if (row < 0) {
                rc = -1;
                break;
            }
            size_t r = (size_t)row;
            if (map) {
                if (map->n % 256 == 0) {
                    uint32_t *nb = realloc(map->block, (map->n + 256) * sizeof *nb);
                    if (nb)
                        map->block = nb;
                    uint32_t *ne = realloc(map->event, (map->n + 256) * sizeof *ne);
                    if (ne)
                        map->event = ne;
                    if (!nb || !ne) {
                        rc = -1;
                        break;
                    }
                }
                map->block[map->n] = (uint32_t)b;
                map->event[map->n++] = (uint32_t)e;
            }
            if (cmap[C_BLOCK] >= 0)
                rc |= et_frame_set_text(f, r, (size_t)cmap[C_BLOCK], blk->name.p, blk->name.n);
            rc |= et_frame_set_text(f, r, (size_t)cmap[C_NAME], name.p, name.n);
            const et_perf_data *pd = &ev->perf_data;
            double stats[6] = {pd->p10, pd->p50, pd->p90, pd->avg, pd->min, pd->max};
            /* an event without perf data: None (each event is its own
             * one-row DataFrame in the reference, so its missing statistics
             * stay None through pd.concat; tabulate shows an empty cell) */
            if (ev->has_perf_data)
                for (int c = C_P10; c <= C_MAX; c++)
                    et_frame_set_float(f, r, (size_t)cmap[c], stats[c - C_P10]);
            bool lists = !o->no_list_text;
            if (lists && cmap[C_RAW] >= 0 && ev->has_perf_data) {
                et_sb_reset(&sb);
                et_sb_addc(&sb, '[');
                for (size_t k = 0; k < pd->n; k++) {
                    if (k)
                        et_sb_adds(&sb, ", ");
                    et_sb_add_repr(&sb, pd->raw[k]);
                }
                et_sb_addc(&sb, ']');
                rc |= et_frame_set_text(f, r, (size_t)cmap[C_RAW], sb.p, sb.n);
            }
            et_sb_reset(&sb);
            /* without an ETRecord, a program gives the op type of a kernel
             * call and the backend of a delegate call (proglink.h) */
            et_event_instr pi;
            bool from_program = !insp->etrecord && insp->program &&
                                et_event_program_instr(insp, blk, ev, &pi);
            if (from_program && pi.op[0]) {
                et_sb_addc(&sb, '[');
                et_sb_add_pystr(&sb, pi.op, strlen(pi.op));
                et_sb_addc(&sb, ']');
            } else {
                py_op_types(&sb, insp, blk, ev);
            }
            rc |= et_frame_set_text(f, r, (size_t)cmap[C_OPS], sb.p, sb.n);
            if (cmap[C_DID] >= 0) {
                if (ev->delegate_debug_identifier_kind == ET_DID_INT)
                    et_frame_set_int(f, r, (size_t)cmap[C_DID], ev->delegate_debug_id_int);
                else if (ev->delegate_debug_identifier_kind == ET_DID_STR)
                    rc |= et_frame_set_text(f, r, (size_t)cmap[C_DID], ev->delegate_debug_id_str.p,
                                            ev->delegate_debug_id_str.n);
            }
            for (int c = C_STACK; c <= C_MODULE; c++)
                if (lists && cmap[c] >= 0) {
                    et_sb_reset(&sb);
                    py_node_dict(&sb, insp, blk, ev, c == C_MODULE);
                    rc |= et_frame_set_text(f, r, (size_t)cmap[c], sb.p, sb.n);
                }
            if (ev->delegate_backend_name)
                rc |= et_frame_set_text(f, r, (size_t)cmap[C_BACKEND], ev->delegate_backend_name,
                                        strlen(ev->delegate_backend_name));
            else if (from_program && pi.backend.p)
                rc |= et_frame_set_text(f, r, (size_t)cmap[C_BACKEND], pi.backend.p,
                                        pi.backend.n);
            et_frame_set_bool(f, r, (size_t)cmap[C_DELEGATED], ev->is_delegated_op);
            if (lists && cmap[C_DEBUG] >= 0) {
                /* values are decoded in a later layer; show how many entries */
                uint32_t n = (ev->has_debug_data && blk->n_runs) ? ev->debug_count[0] : 0;
                et_sb_reset(&sb);
                et_sb_addc(&sb, '[');
                for (uint32_t k = 0; k < n; k++)
                    et_sb_adds(&sb, k ? ", <value>" : "<value>");
                et_sb_addc(&sb, ']');
                rc |= et_frame_set_text(f, r, (size_t)cmap[C_DEBUG], sb.p, sb.n);
            }
            if (lists && ev->start_time) {
                et_sb_reset(&sb);
                et_sb_add_u64_list(&sb, ev->start_time, pd->n);
                rc |= et_frame_set_text(f, r, (size_t)cmap[C_START], sb.p, sb.n);
            }
            for (size_t c = 0; c < md.ncols; c++)
                rc |= md_cell(f, r, nbase + c, &md, b - b0, md.ev_base[b - b0] + e, c);
            if (sb.failed)
                rc = -1;
        }
    }
    if (rc != 0)
        goto nomem;
    if (map)
        map->n_md_columns = md.ncols;
    free(cols);
    et_sb_free(&sb);
    md_state_free(&md);
    return f;
nomem:
    free(cols);
    et_sb_free(&sb);
    md_state_free(&md);
    et_frame_free(f);
    if (map) {
        free(map->block);
        free(map->event);
        *map = (et_report_rowmap){0};
    }
    et_fail(err, ET_ERR_NOMEM, "out of memory while building the table");
    return NULL;
}

et_frame *et_report_rows(const et_inspector *insp, const et_report_opts *o,
                         et_report_rowmap *map, et_error *err)
{
    size_t b0 = 0, b1 = insp->n_blocks;
    if (map)
        *map = (et_report_rowmap){0};
    if (o->block >= 0) {
        if ((size_t)o->block >= insp->n_blocks ||
            (o->event >= 0 && (size_t)o->event >= insp->blocks[o->block].n_events)) {
            et_fail(err, ET_ERR_USAGE, "no such block or event");
            return NULL;
        }
        b0 = (size_t)o->block;
        b1 = b0 + 1;
    }
    return report_rows(insp, o, b0, b1, map, err);
}

/* Rows per part of et_report_write_tsv (a block with more events is one
 * part of its own). */
#define TSV_PART_ROWS 4096

int et_report_write_tsv(const et_inspector *insp, bool include_units, bool for_display,
                        bool drop_pages, FILE *out, et_error *err)
{
    et_report_opts o = {.units = include_units ? NULL : "", .for_display = for_display,
                        .block_column = true, .block = -1, .event = -1};
    size_t b0 = 0, row = 0;
    bool header = true;
    do {
        /* whole blocks, up to TSV_PART_ROWS events (at least one block) */
        size_t b1 = b0, n = 0;
        while (b1 < insp->n_blocks && (b1 == b0 || n + insp->blocks[b1].n_events <= TSV_PART_ROWS))
            n += insp->blocks[b1++].n_events;
        et_frame *f = report_rows(insp, &o, b0, b1, NULL, err);
        if (!f)
            return -1;
        int rc = et_frame_write_tsv_part(f, out, true, header, row);
        row += et_frame_nrows(f);
        et_frame_free(f);
        if (rc != 0)
            return et_fail(err, ET_ERR_IO, "write failed");
        header = false;
        b0 = b1;
        if (drop_pages) /* the names this part read fault in again if needed */
            et_map_drop_pages(&insp->etdump_file);
    } while (b0 < insp->n_blocks);
    return 0;
}
