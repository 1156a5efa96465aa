/*
 * jsondoc.h - a JSON document parsed under a budget into a compact tape.
 *
 * The text is fed in chunks (an ETRecord entry is parsed while it is
 * inflated, never held whole) to yajl's callback parser, which validates
 * it (RFC 8259 grammar, UTF-8, no comments, one top-level value).  Every
 * value, and every object key, becomes one 8-byte tape entry in document
 * order:
 *  - a string: an offset into the document's string store (every string
 *    decoded, NUL-terminated, kept once);
 *  - an integer: in the entry when it fits 32 bits, else in a side array
 *    of 64-bit numbers (reals too);
 *  - an array or object: its member count and the index just past its last
 *    descendant, so a sibling is reached in O(1); an object's members are
 *    key, value, key, value...
 * Nothing is allocated per value: the tape, the strings and the numbers are
 * three arrays that grow geometrically.
 *
 * Memory: 8 bytes per value (16 for a number beyond 32 bits), plus the
 * string bytes + 1 each.  A value takes at least 2 bytes of text ("0,")
 * except a string, which takes its bytes + 2 quotes, so a document never
 * takes more than about 5x its text; the node budget bounds it absolutely
 * (8 bytes x nodes + the bytes fed).
 *
 * Budgets (checked while parsing, so a document fails as soon as it
 * crosses one, whatever its declared size): max_nodes tape entries (values
 * and keys), max_bytes bytes of text, and no string (or key) longer than
 * max_bytes / 8 (a string cut by a chunk's end is held whole until it
 * ends, and yajl copies it once more: so a string costs at most 3x itself
 * while it is read, and the text is read in linear time however it is
 * cut).  Nesting is refused beyond
 * ET_JSON_MAX_DEPTH levels (jansson's limit, kept), so no consumer ever
 * recurses deeper.
 *
 * Accepted as Python's json and jansson do; refused as jansson refused
 * (kept from the reader that used it): integers beyond 64 bits ("too big
 * integer"), reals beyond double ("real number overflow"), NaN and
 * Infinity (not JSON), "\u0000" in a string or key (C strings).  Duplicate
 * object keys are all kept, in document order: et_json_get returns the
 * last one (as Python's dict and jansson), walkers that iterate decide.
 *
 * Not thread-safe per document; documents are independent.
 */
#ifndef ET_JSONDOC_H
#define ET_JSONDOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

/* Deepest nesting accepted (arrays and objects), as jansson's. */
#define ET_JSON_MAX_DEPTH 2048
/* Hard ceilings of the representation (32-bit tape indexes and string
 * offsets): budgets above them are lowered to them. */
#define ET_JSON_MAX_NODES (((uint64_t)1 << 28) - 1)
#define ET_JSON_MAX_BYTES ((uint64_t)UINT32_MAX - 1)

typedef enum et_jtype {
    ET_JNONE_T = 0, /* no value (an absent key, an index past the end) */
    ET_JNULL,
    ET_JFALSE,
    ET_JTRUE,
    ET_JINT,
    ET_JREAL,
    ET_JSTRING,
    ET_JARRAY,
    ET_JOBJECT
} et_jtype;

/* A value of a document: an index into its tape.  ET_JNONE: no value;
 * every accessor accepts it. */
typedef uint32_t et_jref;
#define ET_JNONE UINT32_MAX

typedef struct et_jsondoc et_jsondoc;

/* What a document may grow to, and what its errors say. */
typedef struct et_json_limits {
    uint64_t max_nodes;  /* values + keys; 0: ET_JSON_MAX_NODES */
    uint64_t max_bytes;  /* text bytes; 0: ET_JSON_MAX_BYTES */
    const char *hint;    /* appended to budget messages, e.g. "raise it with
                            --etrecord_json_budget"; NULL: nothing */
    bool scalar_root;    /* accept a scalar as the whole document (else it
                            must be an object or an array) */
    uint64_t size_hint;  /* the text's size when known (0: unknown): its
                            string store and the room for a token cut by a
                            chunk's end are then reserved once, never
                            copied to grow (untouched pages cost nothing) */
} et_json_limits;

/* A new empty document; `label` names the text in messages (copied).
 * Returns NULL with err set (ET_ERR_NOMEM). */
et_jsondoc *et_jsondoc_new(const char *label, const et_json_limits *lim, et_error *err);

/* Feed the next `n` bytes of text.  Returns 0, or -1 with err set (the
 * document is then only good for et_jsondoc_free):
 *   ET_ERR_FORMAT "LABEL: invalid JSON at line L, column C: WHAT" (L, C:
 *                 1-based, C in characters, of the byte that made the text
 *                 invalid; WHAT as yajl says it, or "maximum parsing depth
 *                 reached", "too big integer", "real number overflow",
 *                 "\u0000 is not allowed in a string");
 *                 "LABEL: JSON larger than the N-node budget (HINT)";
 *                 "LABEL: JSON larger than the N-byte budget (HINT)";
 *                 "LABEL: a JSON string longer than N bytes (an eighth of
 *                 the M-byte budget; HINT)";
 *   ET_ERR_NOMEM  "LABEL: out of memory after N values of JSON". */
int et_jsondoc_feed(et_jsondoc *d, const char *text, size_t n, et_error *err);

/* The text has ended: check it was one complete value.  Returns 0, or -1
 * with err set as et_jsondoc_feed (an incomplete text: "...: invalid JSON
 * at line L, column C: premature EOF", the position of its last byte,
 * column 0 for an empty text).  Frees the parser; the tape stays. */
int et_jsondoc_finish(et_jsondoc *d, et_error *err);

/* Whether the document failed for crossing a budget (rather than for its
 * syntax or memory). */
bool et_jsondoc_over_budget(const et_jsondoc *d);

/* new + feed + finish of a text in memory.  Returns the document or NULL
 * with err set. */
et_jsondoc *et_jsondoc_parse(const char *text, size_t n, const char *label,
                             const et_json_limits *lim, et_error *err);

/* Free a document and everything it owns not taken by
 * et_jsondoc_take_strings; NULL is accepted. */
void et_jsondoc_free(et_jsondoc *d);

/* Hand the string store to the caller: every et_json_str pointer of the
 * document stays valid until the caller frees the returned block with
 * free() (NULL when the document has no string); the document must not be
 * used for strings afterwards.  *bytes gets the store's size. */
char *et_jsondoc_take_strings(et_jsondoc *d, size_t *bytes);

/* Values and keys in the tape (the node count budgets are compared with). */
size_t et_jsondoc_nodes(const et_jsondoc *d);

/* The document's value (the root), or ET_JNONE before et_jsondoc_finish. */
et_jref et_json_root(const et_jsondoc *d);

et_jtype et_json_type(const et_jsondoc *d, et_jref v);

/* "an object", "a list", "a string", "an integer", "a real number",
 * "true", "false", "null" (Python's names for what was found), or
 * "nothing" for ET_JNONE. */
const char *et_json_kind(const et_jsondoc *d, et_jref v);

/* The integer (0 unless ET_JINT), the real (0 unless ET_JREAL), the string
 * (NUL-terminated, no NUL inside; NULL unless ET_JSTRING) and its length in
 * bytes (0 unless a string). */
int64_t et_json_int(const et_jsondoc *d, et_jref v);
double et_json_real(const et_jsondoc *d, et_jref v);
const char *et_json_str(const et_jsondoc *d, et_jref v);
size_t et_json_strlen(const et_jsondoc *d, et_jref v);

/* Members of an object, elements of an array (duplicate keys counted);
 * 0 for anything else.  O(1). */
size_t et_json_count(const et_jsondoc *d, et_jref v);

/* The value of the last member named `key` of object `obj`, or ET_JNONE
 * (not an object, no such key).  O(members). */
et_jref et_json_get(const et_jsondoc *d, et_jref obj, const char *key);

/* Iteration.  Arrays: et_json_first gives the first element, et_json_next
 * the one after `v`.  Objects: they give keys (et_json_str of the key);
 * the key's value is et_json_value(key).  ET_JNONE at the end, and for
 * anything that is not a non-empty container.  O(1) each. */
et_jref et_json_first(const et_jsondoc *d, et_jref container);
et_jref et_json_next(const et_jsondoc *d, et_jref container, et_jref v);

static inline et_jref et_json_value(et_jref key)
{
    return key == ET_JNONE ? ET_JNONE : key + 1;
}

#endif
