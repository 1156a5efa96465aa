/*
 * etrecord.h - the ETRecord reader, first layer: the ZIP container, its
 * entries classified as the reference's parse_etrecord does, and the three
 * JSON maps (spec §5.1, §5.2, §5.4).
 *
 * An ETRecord is a ZIP archive (Python's zipfile, entries stored; deflated
 * entries are accepted too) holding an empty `ETRECORD_V0` marker entry,
 * serialized exported programs (JSON, each with `_state_dict`, `_constants`
 * and `_example_inputs` companions holding torch.save archives), the JSON
 * maps `debug_handle_map`, `delegate_map`, `instruction_id_to_num_outs_map`,
 * the JSON integer `export_graph_id`, and the torch.save payloads
 * `reference_outputs` and `representative_inputs`.
 *
 * What opening does:
 *  - the archive is opened with libzip (consistency checks on: local
 *    headers must agree with the central directory);
 *  - every entry is listed with its declared sizes and compression, and
 *    classified by the §5.4 rules, in order (see et_etr_kind);
 *  - each program (edge, ATen, graph_map) is linked to the companions that
 *    are present; none is required (2023 records have no `_constants` or
 *    `_example_inputs`, very old ones may lack `_state_dict`);
 *  - the maps and export_graph_id are read and parsed into sorted C arrays;
 *    the programs' JSON is not read (et_etrecord_read reads any entry on
 *    demand), the torch.save payloads are listed, never decoded.
 *
 * Budgets (zip bombs, hostile JSON; docs/etrecord.md "Budgets"): one
 * number, the JSON budget N (default ET_ETRECORD_JSON_BUDGET, 8,000,000),
 * sets every limit:
 *  - a JSON entry is parsed while it is inflated (jsondoc.h: never held
 *    whole) into at most N values and keys, else "LABEL: entry 'NAME':
 *    JSON larger than the 8,000,000-node budget (raise it with ...)";
 *  - an entry read declares at most 16 x N bytes uncompressed (the cap per
 *    entry, 128,000,000 bytes by default: real programs take 14 bytes of
 *    text per value), checked on the declared size before inflating;
 *  - the JSON entries together declare at most 4 x that (checked when
 *    opening: programs are parsed on demand and kept).
 * An entry that inflates to more or fewer bytes than it declares is an
 * error, found before anything beyond the declared size is used.  What is
 * built from a JSON entry is a small constant times its text: the parse
 * takes 8 bytes per value and key plus the strings (at most about 5x the
 * text; at most 8 x N + the text), a map keeps 8 bytes per handle and ~40
 * per instruction, a graph its strings plus ~180 bytes per node; so at the
 * defaults no entry, valid or not, takes more than about 250 MB at its
 * peak.  Entries that are only listed (state dicts, constants, example
 * inputs, torch.save payloads) may be of any size; reading one is subject
 * to the per-entry cap.  The caps can also be set apart from the budget
 * (et_etrecord_options), for tests and fuzzing.
 *
 * JSON (jsondoc.h): nesting deeper than 2048 levels is refused ("maximum
 * parsing depth reached"), so a deeply nested entry is an error, never a
 * stack overflow; the map walkers follow the fixed shape of each map (at
 * most five levels) and never recurse on the input.  Duplicate keys: the
 * last value wins, at the place of the first (as Python's json).
 *
 * Differences from the reference (parse_etrecord):
 *  - missing companions are not an error (the reference fails on records
 *    before 2024-07 for lack of `_constants`);
 *  - an archive with two entries of the same name is refused (libzip
 *    refuses it; Python reads the last one);
 *  - instruction-id keys must be decimal integers (the reference keeps
 *    them as strings and compares them with str(instruction_id));
 *  - only stored and deflated entries can be read (Python's zipfile can
 *    also read bzip2 and lzma ones); others are listed;
 *  - JSON that Python accepts but jansson did not (NaN, integers beyond
 *    64 bits, "\u0000") is an error; no map of a real record has them.
 *
 * Every error names the input (a path, or the label given for bytes in
 * memory) and, when it concerns one, the entry: "PATH: entry 'NAME': ...".
 */
#ifndef ET_ETRECORD_H
#define ET_ETRECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "format/graph.h"

/* The marker entry every ETRecord has (spec §5.1). */
#define ET_ETRECORD_MARKER "ETRECORD_V0"
/* The default JSON budget (values and keys per JSON entry) and the caps
 * that follow from it, see the top of the file. */
#define ET_ETRECORD_JSON_BUDGET ((uint64_t)8000000)
#define ET_ETRECORD_BYTES_PER_NODE 16u /* per-entry cap = this x the budget */
#define ET_ETRECORD_TOTAL_ENTRIES 4u   /* total cap = this x the per-entry cap */
/* How every budget message says to raise it. */
#define ET_ETRECORD_BUDGET_HINT \
    "raise it with --etrecord_json_budget or the Lua option etrecord_json_budget"

/* Classification of an entry name (spec §5.4, rules 1-8, first match). */
typedef enum et_etr_kind {
    ET_ETR_DEBUG_HANDLE_MAP,      /* 1: `debug_handle_map` (JSON) */
    ET_ETR_DELEGATE_MAP,          /* 1: `delegate_map` (JSON) */
    ET_ETR_NUM_OUTS_MAP,          /* 1: `instruction_id_to_num_outs_map` (JSON) */
    ET_ETR_MARKER,                /* 2: `ETRECORD_V0` */
    ET_ETR_EDGE_PROGRAM_SINGLE,   /* 3: exactly `edge_dialect_exported_program`
                                   *    (layout before 2026-02: one program) */
    ET_ETR_EDGE_PROGRAM_METHOD,   /* 4: `edge_dialect_exported_program/<method>`,
                                   *    not ending in _state_dict, _constants,
                                   *    _example_inputs */
    ET_ETR_EXPORTED_PROGRAM,      /* 5: exactly `exported_program` (ATen) */
    ET_ETR_REFERENCE_OUTPUTS,     /* 6: `reference_outputs` (torch.save/pickle) */
    ET_ETR_REPRESENTATIVE_INPUTS, /* 6: `representative_inputs` (torch.save/pickle) */
    ET_ETR_EXPORT_GRAPH_ID,       /* 7: `export_graph_id` (JSON integer) */
    ET_ETR_COMPANION,             /* 8: ends with `state_dict`, `constants` or
                                   *    `example_inputs` (plain suffix test, no
                                   *    underscore required: the reference's
                                   *    QUIRK, kept) */
    ET_ETR_GRAPH_MAP_PROGRAM      /* 8: anything else: a graph_map program keyed
                                   *    by the full entry name, e.g.
                                   *    `aten_dialect_output/forward` */
} et_etr_kind;

/* Which companion suffix a companion entry has (tested in this order). */
typedef enum et_etr_companion {
    ET_ETR_NOT_COMPANION = 0,
    ET_ETR_STATE_DICT,      /* ends with "state_dict" */
    ET_ETR_CONSTANTS,       /* ends with "constants" */
    ET_ETR_EXAMPLE_INPUTS   /* ends with "example_inputs" */
} et_etr_companion;

/* One entry of the archive, in central-directory order. */
typedef struct et_etr_entry {
    const char *name;          /* as libzip reports it; NUL-terminated */
    uint64_t index;            /* libzip's index */
    uint64_t size;             /* declared uncompressed size (bytes) */
    uint64_t comp_size;        /* declared compressed size (bytes) */
    uint16_t compression;      /* ZIP method: 0 stored, 8 deflated; others are
                                  listed but cannot be read */
    bool encrypted;            /* cannot be read */
    et_etr_kind kind;
    et_etr_companion companion; /* for ET_ETR_COMPANION */
    const char *method;        /* edge programs: the method ("forward" for
                                  ET_ETR_EDGE_PROGRAM_SINGLE), else NULL */
    ptrdiff_t program;         /* programs: their index in programs[];
                                  companions: their program's index when the
                                  name is exactly <program entry>_<suffix>,
                                  else -1; other kinds: -1 */
} et_etr_entry;

/* Kinds of serialized exported programs (spec §5.3). */
typedef enum et_etr_program_kind {
    ET_ETR_PROG_EDGE,       /* edge dialect: ET_ETR_EDGE_PROGRAM_SINGLE or _METHOD */
    ET_ETR_PROG_EXPORTED,   /* the ATen `exported_program` */
    ET_ETR_PROG_GRAPH_MAP   /* an extra recorded module */
} et_etr_program_kind;

/* A serialized exported program and its companions. */
typedef struct et_etr_program {
    et_etr_program_kind kind;
    const char *key;          /* edge: the method; exported: "exported_program";
                                 graph_map: the full entry name */
    size_t entry;             /* its JSON entry (index into entries[]) */
    ptrdiff_t state_dict;     /* entry index of <entry>_state_dict, or -1 */
    ptrdiff_t constants;      /* entry index of <entry>_constants, or -1 */
    ptrdiff_t example_inputs; /* entry index of <entry>_example_inputs, or -1 */
} et_etr_program;

/* debug_handle_map[method][iid]: an int, or a list of ints for a delegate
 * call (spec §5.2). */
typedef struct et_etr_handles {
    int64_t iid;              /* instruction id (the key, parsed) */
    bool is_list;             /* the JSON value is a list (possibly empty) */
    size_t n;                 /* 1 when !is_list */
    const int64_t *v;         /* n debug handles, in JSON order */
} et_etr_handles;

/* One entry of a delegate's own map: delegate identifier -> handles. */
typedef struct et_etr_delegate_id {
    const char *key;          /* the identifier as written (JSON keys are
                                 strings: "0", "fused_op_1_2_3") */
    bool is_int;              /* key is a decimal integer (optional '-', no
                                 leading zeros) that fits int64 */
    int64_t int_id;           /* its value when is_int */
    bool is_list;             /* the JSON value is a list (the writer's); a
                                 single integer is accepted too */
    size_t n;
    const int64_t *handles;   /* n debug handles, in JSON order */
} et_etr_delegate_id;

/* delegate_map[method][iid] (spec §5.2, §3.10). */
typedef struct et_etr_delegate {
    int64_t iid;
    const char *name;         /* "name" (the backend id), or NULL when absent
                                 (the reference then uses "") */
    size_t n_ids;             /* "delegate_map": identifiers in JSON order (the
                                 reference's substring fallback depends on it);
                                 0 when absent, null or {} */
    const et_etr_delegate_id *ids;
} et_etr_delegate;

/* instruction_id_to_num_outs_map[method][iid]. */
typedef struct et_etr_num_outs {
    int64_t iid;
    int64_t num_outs;
} et_etr_num_outs;

/* One method of a map; its instructions are sorted by iid (ascending, each
 * iid once), so lookups are binary searches.  Exactly one of the three
 * arrays is set, according to the map. */
typedef struct et_etr_method {
    const char *name;
    size_t n;
    const et_etr_handles *handles;    /* debug_handle_map */
    const et_etr_delegate *delegates; /* delegate_map */
    const et_etr_num_outs *num_outs;  /* instruction_id_to_num_outs_map */
} et_etr_method;

/* A parsed map: its methods in JSON order. */
typedef struct et_etr_map {
    bool present;             /* the entry exists (absent: n_methods == 0) */
    ptrdiff_t entry;          /* its entry index, or -1 */
    size_t n_methods;
    const et_etr_method *methods;
} et_etr_map;

/* Options of et_etrecord_open: exactly one of path and data. */
typedef struct et_etrecord_options {
    const char *path;          /* a file (memory-mapped) */
    const uint8_t *data;       /* or bytes in memory: not copied; they must
                                  stay valid until et_etrecord_free */
    size_t size;
    const char *label;         /* names `data` in messages; default
                                  "<etrecord_data>" (a path names itself) */
    uint64_t json_budget;      /* values and keys per JSON entry; 0:
                                  ET_ETRECORD_JSON_BUDGET (at most
                                  ET_JSON_MAX_NODES) */
    uint64_t max_entry_size;   /* bytes per entry; 0: 16 x json_budget */
    uint64_t max_total_size;   /* JSON entries together; 0: 4 x max_entry_size */
} et_etrecord_options;

struct et_etr_impl;

/* An open ETRecord.  Everything it points at is owned by it. */
typedef struct et_etrecord {
    const char *label;        /* the path, or the label of in-memory data */
    size_t n_entries;
    const et_etr_entry *entries;     /* central-directory order */
    size_t n_programs;
    const et_etr_program *programs;  /* in the order of their entries */
    ptrdiff_t exported_program;      /* programs[] index of the ATen program, or -1 */
    size_t n_edge_programs;          /* edge programs, both layouts */
    bool edge_single_layout;         /* `edge_dialect_exported_program` exists */
    ptrdiff_t reference_outputs;     /* entry index, or -1 */
    ptrdiff_t representative_inputs; /* entry index, or -1 */
    et_etr_map debug_handle_map;
    et_etr_map delegate_map;
    et_etr_map num_outs_map;         /* instruction_id_to_num_outs_map; absent
                                        in records before 2025-09 */
    bool has_export_graph_id;
    int64_t export_graph_id;         /* 0 when absent (the reference's default) */
    uint64_t json_budget;            /* the budget and caps in force */
    uint64_t max_entry_size;
    uint64_t max_total_size;
    struct et_etr_impl *impl;        /* the archive, the mapping, storage */
} et_etrecord;

/* Set every option to its default (no input, default caps). */
void et_etrecord_options_init(et_etrecord_options *o);

/* Open an ETRecord (spec §5.1, §5.4): open the archive, list and classify
 * its entries, link programs and companions, parse the maps and
 * export_graph_id.  `o`: exactly one of o->path and o->data (data with
 * size 0 is an empty input).  Returns the record, or NULL with `err` set:
 *   ET_ERR_USAGE   not exactly one of path and data;
 *   ET_ERR_IO      the file cannot be opened or mapped ("PATH: No such
 *                  file or directory", ...);
 *   ET_ERR_FORMAT  (the reference's "Invalid etrecord file passed in")
 *                  "LABEL: invalid ETRecord file: empty file, not a ZIP
 *                  archive", "...: not a ZIP archive (libzip: REASON)",
 *                  "...: truncated ZIP archive: ...", "...: truncated central
 *                  directory: ...", "...: damaged central directory: ...",
 *                  "...: damaged ZIP archive (libzip: ...)", "...: two
 *                  entries of the ZIP archive have the same name ...";
 *                  (the reference's "ETRecord identifier missing") "LABEL:
 *                  ETRecord identifier missing: the archive has no
 *                  'ETRECORD_V0' entry (an invalid file was passed in, or
 *                  the file is corrupt)";
 *                  a JSON entry declaring more than the per-entry cap, or
 *                  the JSON entries together more than the total cap
 *                  ("LABEL: entry 'NAME': with it, the JSON entries ...
 *                  declare more than the cap of N bytes together (raise
 *                  it with ...)"); a map over the JSON budget ("LABEL:
 *                  entry 'NAME': JSON larger than the 8,000,000-node
 *                  budget (raise it with ...)", "... a JSON string longer
 *                  than N bytes (...)"); a map
 *                  inflating to a size other than the one declared, or
 *                  unreadable (CRC, compression method, encryption; see
 *                  et_etrecord_read); a map that is not JSON ("LABEL: entry
 *                  'delegate_map': invalid JSON at line L, column C: ...",
 *                  nesting beyond 2048 levels included) or not of its shape
 *                  ("LABEL: entry 'debug_handle_map': debug_handle_map
 *                  [\"forward\"][\"3\"]: expected an integer or a list of
 *                  integers, found a string"); an instruction-id key that is
 *                  not a decimal integer; export_graph_id not a JSON integer;
 *   ET_ERR_NOMEM   out of memory. */
et_etrecord *et_etrecord_open(const et_etrecord_options *o, et_error *err);

/* et_etrecord_open of a file with default caps.  Returns the record or
 * NULL with `err` set (as et_etrecord_open). */
et_etrecord *et_etrecord_open_path(const char *path, et_error *err);

/* et_etrecord_open of bytes in memory (not copied: they must outlive the
 * record) with default caps; `label` names them in messages (NULL:
 * "<etrecord_data>").  Returns the record or NULL with `err` set. */
et_etrecord *et_etrecord_open_mem(const uint8_t *data, size_t size, const char *label,
                                  et_error *err);

/* Close the archive, unmap the file and free everything; NULL is accepted. */
void et_etrecord_free(et_etrecord *r);

/* The index of the entry named `name` (exact, byte for byte), or -1.
 * O(log n). */
ptrdiff_t et_etrecord_find_entry(const et_etrecord *r, const char *name);

/* Read entry `entry` (an index into r->entries) whole: inflate it into a
 * new buffer of its declared size plus a NUL byte (so JSON text can be
 * used as a C string), stored in *out (free it with free()); *size gets
 * the byte count without the NUL.  Returns 0, or -1 with `err` set and
 * *out NULL:
 *   ET_ERR_USAGE   entry out of range;
 *   ET_ERR_FORMAT  "LABEL: entry 'NAME': declares N bytes uncompressed,
 *                  above the cap of M bytes per entry"; "...: inflates to
 *                  more than its declared N bytes"; "...: ends after K of
 *                  its declared N bytes"; "...: compression method N (NAME)
 *                  is not supported (stored and deflated are)"; "...: is
 *                  encrypted"; "...: cannot read: libzip: REASON" (e.g. CRC
 *                  error);
 *   ET_ERR_NOMEM   out of memory.
 * The record is not const: libzip keeps per-archive state while reading
 * (one thread at a time). */
int et_etrecord_read(et_etrecord *r, size_t entry, uint8_t **out, size_t *size, et_error *err);

/* The method `method` of map `m`, or NULL when the map has no such method
 * (or is absent).  O(number of methods). */
const et_etr_method *et_etr_map_method(const et_etr_map *m, const char *method);

/* debug_handle_map[method][iid]: the handles, or NULL when the map, the
 * method or the instruction is absent.  O(log n). */
const et_etr_handles *et_etrecord_debug_handles(const et_etrecord *r, const char *method,
                                                int64_t iid);

/* delegate_map[method][iid]: the delegate, or NULL when absent.  O(log n). */
const et_etr_delegate *et_etrecord_delegate(const et_etrecord *r, const char *method,
                                            int64_t iid);

/* The identifier of delegate `d` whose key is exactly `key`, or NULL
 * (no substring matching: that quirk of §3.10 belongs to the caller).
 * O(number of identifiers). */
const et_etr_delegate_id *et_etr_delegate_find(const et_etr_delegate *d, const char *key);

/* instruction_id_to_num_outs_map[method][iid]: stores it in *num_outs and
 * returns true, or returns false (map, method or instruction absent;
 * *num_outs untouched).  O(log n). */
bool et_etrecord_num_outs(const et_etrecord *r, const char *method, int64_t iid,
                          int64_t *num_outs);

/* The edge program of `method`: the `edge_dialect_exported_program/<method>`
 * one, else (for "forward") the single-layout `edge_dialect_exported_program`.
 * Returns it, or NULL. */
const et_etr_program *et_etrecord_edge_program(const et_etrecord *r, const char *method);

/* The program whose key is `key` among programs of kind `kind` (graph_map:
 * the full entry name), or NULL. */
const et_etr_program *et_etrecord_program(const et_etrecord *r, et_etr_program_kind kind,
                                          const char *key);

/* The graph of program `p` (one of r->programs): its JSON entry read and
 * parsed (graph.h, spec §5.3, §5.9) on first use, then kept by the record
 * and freed with it.  Returns the graph, or NULL with `err` set: the errors
 * of et_etrecord_read, of the JSON budget (the entry is parsed while it is
 * inflated, jsondoc.h: "LABEL: entry 'NAME': JSON larger than the N-node
 * budget (raise it with ...)"), or of et_graph_from_doc, labelled "LABEL:
 * entry 'NAME': ..." (JSON syntax with line and column, wrong shape);
 * ET_ERR_USAGE when `p` is not a program of `r`.  A failed parse is not
 * cached: asking again reads the entry again. */
const et_graph *et_etrecord_graph(et_etrecord *r, const et_etr_program *p, et_error *err);

/* Short names for listings: "debug_handle_map", "delegate_map",
 * "num_outs_map", "marker", "edge_program_single", "edge_program",
 * "exported_program", "reference_outputs", "representative_inputs",
 * "export_graph_id", "companion", "graph_map_program". */
const char *et_etr_kind_name(et_etr_kind k);

/* "state_dict", "constants", "example_inputs", or "" (not a companion). */
const char *et_etr_companion_name(et_etr_companion c);

/* A ZIP compression method's name: "stored", "deflated", "bzip2", "lzma",
 * "zstd", ..., or "unknown". */
const char *et_etr_compression_name(uint16_t method);

#endif
