/*
 * fuzz_etrecord.c - libFuzzer target for the ETRecord reader (etrecord.h).
 *
 * An input is one of two things:
 *  - starting with "PK": a whole ETRecord (a ZIP archive);
 *  - otherwise: byte 0 chooses a JSON entry (its value & 3: 0
 *    debug_handle_map, 1 delegate_map, 2 instruction_id_to_num_outs_map,
 *    3 export_graph_id) and the rest is that entry's content; the target
 *    wraps it in a stored archive with the ETRECORD_V0 marker (written
 *    here, with its CRC), so that mutations reach the map parsers instead
 *    of dying at the ZIP checks.  Bits of byte 0 also make the headers lie,
 *    consistently in the local and central ones: 0x04 the declared
 *    uncompressed size is the next 4 bytes (little-endian), 0x08 the
 *    compression method is the next byte, 0x40 the entry is flagged
 *    encrypted; those bytes come before the content.  (The digits '0' to
 *    '3' set none of these bits: a seed can start with one and then be
 *    JSON text.)
 * The archive is opened from a heap copy of exactly its size under the
 * product's own limits (the default JSON budget of 8,000,000 values per
 * entry, 128,000,000 bytes per entry, 512,000,000 in all: etrecord.h), so
 * that a zip bomb can show; then every entry is read and every map looked
 * up.  An input takes at most ~250 MB (the budget's promise) plus what the
 * sanitizers add: run with -rss_limit_mb of at least 1024.
 *
 * Invariants checked with __builtin_trap(): a failed open or read leaves a
 * message; a read gives exactly the declared size, NUL-terminated; every
 * entry is found by its name; programs and companions point at each other
 * consistently; each method's instruction ids are strictly ascending and
 * each is found by the lookup functions; a delegate identifier is found by
 * its key.
 *
 * Then every program's graph is parsed (graph.h), and the record is linked
 * (link.h) to an ETDump read once at start-up: $FUZZ_ETDUMP, else the
 * shared corpus's small.etdp (../shared/corpus/etdump/small.etdp from the
 * checkout), else build/fixtures/delegate_ids.etdp; no linking when none
 * is readable.  An odd-sized input links with enable_module_hierarchy.
 * Linking checks: every attached node index lies in its block's graph,
 * every event's node range in the inspector's pool, a list of debug
 * handles or exactly one.
 *
 * Seeds: tests/etrecord/ (see its README.md) and the shared corpus's
 * ETRecords; dictionary: tests/fuzz/fuzz_etrecord.dict (ZIP signatures,
 * entry names, the maps' and programs' JSON keys); run with
 * scripts/fuzz.sh (make fuzz).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <stdio.h>

#include "format/etrecord.h"
#include "model/link.h"
#include "model/model.h"

/* The libFuzzer entry points (declared for -Wmissing-prototypes). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static volatile uint64_t sink;

static uint8_t *dump;   /* the ETDump records are linked to, or NULL */
static size_t dump_size;

/* Read the ETDump to link to (see the top of the file). */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *paths[3] = {getenv("FUZZ_ETDUMP"), "../shared/corpus/etdump/small.etdp",
                            "build/fixtures/delegate_ids.etdp"};
    for (int i = 0; i < 3 && !dump; i++) {
        FILE *f = paths[i] ? fopen(paths[i], "rb") : NULL;
        if (!f)
            continue;
        uint8_t buf[1 << 16];
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        if (n == 0 || n == sizeof buf || !(dump = malloc(n)))
            continue;
        memcpy(dump, buf, n);
        dump_size = n;
        fprintf(stderr, "fuzz_etrecord: linking to %s (%zu bytes)\n", paths[i], n);
    }
    return 0;
}

/* Link `r` to the ETDump and check the result (see the top of the file). */
static void check_link(et_etrecord *r, bool module_hierarchy)
{
    et_inspector_options o;
    et_inspector_options_init(&o);
    o.etdump_data = dump;
    o.etdump_size = dump_size;
    o.etrecord = r;
    o.enable_module_hierarchy = module_hierarchy;
    et_error err;
    err.msg[0] = '\0';
    et_inspector *insp = et_inspector_open(&o, &err);
    if (!insp) {
        if (!err.msg[0])
            __builtin_trap();
        return;
    }
    for (size_t b = 0; b < insp->n_blocks; b++) {
        const et_block *blk = &insp->blocks[b];
        for (size_t e = 0; e < blk->n_events; e++) {
            const et_event *ev = &blk->events[e];
            if ((size_t)ev->node_first + ev->node_count > insp->n_link_nodes)
                __builtin_trap();
            if (ev->node_count && !blk->graph)
                __builtin_trap();
            for (uint32_t k = 0; k < ev->node_count; k++) {
                uint32_t x = insp->link_nodes[ev->node_first + k];
                if ((x & ET_LINK_NODE_MASK) >= blk->graph->n_nodes)
                    __builtin_trap();
                sink += strlen(blk->graph->nodes[x & ET_LINK_NODE_MASK].name);
            }
            if (ev->has_debug_handles) {
                if (!ev->debug_handles_is_list && ev->n_debug_handles != 1)
                    __builtin_trap();
                for (uint32_t k = 0; k < ev->n_debug_handles; k++)
                    sink += (uint64_t)ev->debug_handles[k];
            }
            if (ev->delegate_backend_name)
                sink += strlen(ev->delegate_backend_name);
        }
    }
    for (size_t i = 0; i < insp->warnings.n; i++)
        sink += strlen(insp->warnings.items[i]);
    et_inspector_free(insp);
}

static uint32_t crc32_of(const uint8_t *p, size_t n)
{
    static uint32_t table[256];
    if (!table[1])
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++)
                c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            table[i] = c;
        }
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++)
        c = table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

static uint8_t *put16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    return p + 2;
}

static uint8_t *put32(uint8_t *p, uint32_t v)
{
    p = put16(p, v & 0xFFFF);
    return put16(p, v >> 16);
}

/* How the wrapped entry's headers lie (see the top of the file). */
typedef struct lies {
    bool size;       /* declare `declared` as the uncompressed size */
    uint32_t declared;
    uint16_t method; /* compression method */
    uint16_t flags;  /* general purpose flags (bit 0: encrypted) */
} lies;

/* A stored ZIP of ETRECORD_V0 (empty) and `name` = data[0..n), its
 * headers lying as `li` says.  Returns a malloc'd archive of *out_n bytes,
 * or NULL. */
static uint8_t *wrap(const char *name, const uint8_t *data, size_t n, const lies *li,
                     size_t *out_n)
{
    const char *names[2] = {"ETRECORD_V0", name};
    const uint8_t *content[2] = {(const uint8_t *)"", data};
    size_t len[2] = {0, n};
    size_t total = 22;
    for (int i = 0; i < 2; i++)
        total += 30 + 46 + 2 * strlen(names[i]) + len[i];
    uint8_t *z = malloc(total), *p = z;
    if (!z)
        return NULL;
    uint32_t off[2], crc[2];
    for (int i = 0; i < 2; i++) {
        size_t ln = strlen(names[i]);
        off[i] = (uint32_t)(p - z);
        crc[i] = crc32_of(content[i], len[i]);
        p = put32(p, 0x04034b50u);
        p = put16(p, 20);                    /* version needed */
        p = put16(p, i ? li->flags : 0);     /* flags */
        p = put16(p, i ? li->method : 0);    /* compression method */
        p = put32(p, 0x57563a00u);           /* a DOS time and date */
        p = put32(p, crc[i]);
        p = put32(p, (uint32_t)len[i]);      /* compressed size */
        p = put32(p, i && li->size ? li->declared : (uint32_t)len[i]);
        p = put16(p, (uint32_t)ln);
        p = put16(p, 0);
        memcpy(p, names[i], ln);
        p += ln;
        if (len[i])
            memcpy(p, content[i], len[i]);
        p += len[i];
    }
    uint32_t cd = (uint32_t)(p - z);
    for (int i = 0; i < 2; i++) {
        size_t ln = strlen(names[i]);
        p = put32(p, 0x02014b50u);
        p = put16(p, 20);
        p = put16(p, 20);
        p = put16(p, i ? li->flags : 0);
        p = put16(p, i ? li->method : 0);
        p = put32(p, 0x57563a00u);
        p = put32(p, crc[i]);
        p = put32(p, (uint32_t)len[i]);
        p = put32(p, i && li->size ? li->declared : (uint32_t)len[i]);
        p = put16(p, (uint32_t)ln);
        p = put16(p, 0); /* extra */
        p = put16(p, 0); /* comment */
        p = put16(p, 0); /* disk */
        p = put16(p, 0); /* internal attributes */
        p = put32(p, 0); /* external attributes */
        p = put32(p, off[i]);
        memcpy(p, names[i], ln);
        p += ln;
    }
    uint32_t cd_size = (uint32_t)(p - z) - cd;
    p = put32(p, 0x06054b50u);
    p = put16(p, 0);
    p = put16(p, 0);
    p = put16(p, 2);
    p = put16(p, 2);
    p = put32(p, cd_size);
    p = put32(p, cd);
    p = put16(p, 0);
    *out_n = (size_t)(p - z);
    return z;
}

/* Check one map's methods: ascending ids, each found by its lookup. */
static void check_map(const et_etrecord *r, const et_etr_map *m, int which)
{
    if (!m->present && (m->n_methods || m->entry != -1))
        __builtin_trap();
    for (size_t i = 0; i < m->n_methods; i++) {
        const et_etr_method *mt = &m->methods[i];
        const et_etr_method *found = et_etr_map_method(m, mt->name);
        if (!found || strcmp(found->name, mt->name) != 0)
            __builtin_trap();
        for (size_t k = 0; k < mt->n; k++) {
            int64_t iid;
            if (which == 0) {
                const et_etr_handles *h = &mt->handles[k];
                iid = h->iid;
                if ((!h->is_list && h->n != 1) || (h->n && !h->v))
                    __builtin_trap();
                for (size_t j = 0; j < h->n; j++)
                    sink += (uint64_t)h->v[j];
                /* the first method of that name is the one looked up */
                if (found == mt && et_etrecord_debug_handles(r, mt->name, iid) != h)
                    __builtin_trap();
            } else if (which == 1) {
                const et_etr_delegate *d = &mt->delegates[k];
                iid = d->iid;
                if (found == mt && et_etrecord_delegate(r, mt->name, iid) != d)
                    __builtin_trap();
                for (size_t j = 0; j < d->n_ids; j++) {
                    const et_etr_delegate_id *id = et_etr_delegate_find(d, d->ids[j].key);
                    if (!id || strcmp(id->key, d->ids[j].key) != 0)
                        __builtin_trap();
                    for (size_t h = 0; h < d->ids[j].n; h++)
                        sink += (uint64_t)d->ids[j].handles[h];
                }
                if (d->name)
                    sink += strlen(d->name);
            } else {
                const et_etr_num_outs *no = &mt->num_outs[k];
                int64_t v = 0;
                iid = no->iid;
                if (found == mt && (!et_etrecord_num_outs(r, mt->name, iid, &v) || v != no->num_outs))
                    __builtin_trap();
            }
            if (iid < 0)
                __builtin_trap();
            if (k > 0) {
                int64_t prev = which == 0   ? mt->handles[k - 1].iid
                               : which == 1 ? mt->delegates[k - 1].iid
                                            : mt->num_outs[k - 1].iid;
                if (prev >= iid)
                    __builtin_trap();
            }
        }
    }
}

/* Everything an open record offers (see the top of the file). */
static void check_record(et_etrecord *r)
{
    size_t edges = 0;
    for (size_t i = 0; i < r->n_entries; i++) {
        const et_etr_entry *e = &r->entries[i];
        if (et_etrecord_find_entry(r, e->name) != (ptrdiff_t)i)
            __builtin_trap();
        if (e->program >= (ptrdiff_t)r->n_programs)
            __builtin_trap();
        if (e->kind == ET_ETR_COMPANION && e->program >= 0) {
            const et_etr_program *p = &r->programs[e->program];
            ptrdiff_t slot = e->companion == ET_ETR_STATE_DICT  ? p->state_dict
                             : e->companion == ET_ETR_CONSTANTS ? p->constants
                                                                : p->example_inputs;
            if (slot != (ptrdiff_t)i)
                __builtin_trap();
        }
        if (e->kind == ET_ETR_EDGE_PROGRAM_SINGLE || e->kind == ET_ETR_EDGE_PROGRAM_METHOD)
            edges++;
        et_error err;
        err.msg[0] = '\0';
        uint8_t *p;
        size_t n;
        if (et_etrecord_read(r, i, &p, &n, &err) == 0) {
            if (n != e->size || p[n] != '\0')
                __builtin_trap();
            for (size_t k = 0; k < n; k += 4096)
                sink += p[k];
            free(p);
        } else if (!err.msg[0] || p != NULL) {
            __builtin_trap();
        }
    }
    if (edges != r->n_edge_programs)
        __builtin_trap();
    for (size_t i = 0; i < r->n_programs; i++) {
        const et_etr_program *p = &r->programs[i];
        if (p->entry >= r->n_entries || r->entries[p->entry].program != (ptrdiff_t)i)
            __builtin_trap();
        ptrdiff_t c[3] = {p->state_dict, p->constants, p->example_inputs};
        for (int k = 0; k < 3; k++)
            if (c[k] >= (ptrdiff_t)r->n_entries || (c[k] >= 0 && r->entries[c[k]].kind !=
                                                                     ET_ETR_COMPANION))
                __builtin_trap();
        if (p->kind == ET_ETR_PROG_EDGE && !et_etrecord_edge_program(r, p->key))
            __builtin_trap();
    }
    check_map(r, &r->debug_handle_map, 0);
    check_map(r, &r->delegate_map, 1);
    check_map(r, &r->num_outs_map, 2);
}

/* Run one input (see the top of the file).  Returns 0 (libFuzzer's
 * convention); a broken invariant traps. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const entries[4] = {"debug_handle_map", "delegate_map",
                                           "instruction_id_to_num_outs_map", "export_graph_id"};
    uint8_t *p;
    size_t n;
    if (size >= 2 && data[0] == 'P' && data[1] == 'K') {
        p = malloc(size);
        if (!p)
            return 0;
        memcpy(p, data, size);
        n = size;
    } else if (size >= 1) {
        lies li = {false, 0, 0, 0};
        size_t at = 1;
        if ((data[0] & 0x04) && size >= at + 4) {
            li.size = true;
            li.declared = (uint32_t)data[at] | (uint32_t)data[at + 1] << 8 |
                          (uint32_t)data[at + 2] << 16 | (uint32_t)data[at + 3] << 24;
            at += 4;
        }
        if ((data[0] & 0x08) && size >= at + 1)
            li.method = data[at++];
        if (data[0] & 0x40)
            li.flags = 1;
        p = wrap(entries[data[0] & 3], data + at, size - at, &li, &n);
        if (!p)
            return 0;
    } else {
        return 0;
    }
    et_etrecord_options o;
    et_etrecord_options_init(&o);
    o.data = p;
    o.size = n;
    o.label = "fuzz";
    et_error err;
    err.msg[0] = '\0';
    et_etrecord *r = et_etrecord_open(&o, &err);
    if (r) {
        check_record(r);
        for (size_t i = 0; i < r->n_programs; i++) {
            err.msg[0] = '\0';
            const et_graph *g = et_etrecord_graph(r, &r->programs[i], &err);
            if (!g && !err.msg[0])
                __builtin_trap();
            if (g && g->n_nodes && et_graph_find(g, g->nodes[0].name) != &g->nodes[0])
                __builtin_trap();
        }
        if (dump)
            check_link(r, size & 1);
        et_etrecord_free(r);
    } else if (!err.msg[0] || err.kind == ET_ERR_NONE) {
        __builtin_trap();
    }
    free(p);
    return 0;
}
