/*
 * docjson.h - etinspect's --json documents: the one of an ETDump (with its
 * ETRecord linkage) and the one of a legacy profiler dump.  See
 * docs/json-format.md.
 */
#ifndef ET_DOCJSON_H
#define ET_DOCJSON_H

#include <stdio.h>

#include "model/model.h"

/* Write the --json document: inputs, the dump's runs, warnings, and every
 * block and event with all fields, named as the reference's attributes
 * (`_instruction_id`, `raw_delegate_debug_metadatas_hex` ...); numbers as
 * Python repr(); raw delegate metadata as lowercase hex; debug values as
 * raw descriptions (kind, scalar type, shape, strides, offset).  See
 * docs/json-format.md.  Returns 0, or -1 on a write error. */
int et_report_write_json(const et_inspector *insp, FILE *out);

/* Parsed delegate metadata for et_report_write_json_md: fn(ud, block,
 * event) (0-based) returns the event's JSON text (one valid JSON value,
 * written as it is) or NULL (written as null).  The text is read before
 * the next call. */
typedef struct et_json_metadata {
    const char *(*fn)(void *ud, size_t block, size_t event);
    void *ud;
} et_json_metadata;

/* et_report_write_json with, when `md` is not NULL, a member
 * "delegate_debug_metadatas" in every event after
 * raw_delegate_debug_metadatas_hex: md's text (the command line's
 * --delegate_metadata_parser; docs/json-format.md).  `md` NULL: the same
 * document as et_report_write_json.  Returns 0, or -1 on a write error. */
int et_report_write_json_md(const et_inspector *insp, FILE *out, const et_json_metadata *md);

/* The --json document of a legacy profiler dump: inputs (path, size, byte
 * order, blocks in the file, time scale, unit), warnings, and per block its
 * iterations' header offsets, events (name, chain_idx, instruction_idx, ts
 * and duration per iteration as the legacy parser gives them, raw
 * start_time and end_time ticks), framework_tax (or null), memory per
 * allocator and the raw allocations.  See docs/json-format.md.  Returns 0,
 * or -1 on a write error (or no legacy dump). */
int et_report_write_legacy_json(const et_inspector *insp, FILE *out);

#endif
