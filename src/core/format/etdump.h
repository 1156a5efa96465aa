/*
 * etdump.h - reading an ETDump FlatBuffer in place (spec §2).
 *
 * et_etdump_open() detects the layout (size-prefixed or plain, §2.1),
 * checks the file identifier "ED00", then verifies the whole buffer against
 * the ETDump schema (schema/etdump.fbs) once.  After that the accessors
 * below read fields in place; they stay bounds-checked, but a verified
 * buffer never makes them fall back.
 *
 * Field defaults follow the schema: a missing scalar reads as its default
 * (chain_index 0, instruction_id -1, delegate_debug_id_int -1, ...), a
 * missing string, vector or table reads as absent (`has_*` false).
 *
 * Required fields.  The reference reader fails when these are absent
 * (Python TypeError "Invalid Buffer. Received no value for field"), and so
 * does the verifier: ETDump.run_data, RunData.name, Allocator.name,
 * DebugEvent.debug_entry, Tensor.sizes, Tensor.strides, TensorList.tensors.
 */
#ifndef ET_ETDUMP_H
#define ET_ETDUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "format/fb.h"

/* Field slots (schema/etdump.fbs). */
enum {
    ETD_ETDUMP_VERSION = 0, ETD_ETDUMP_RUN_DATA = 1,
    ETD_RUN_NAME = 0, ETD_RUN_BII = 1, ETD_RUN_ALLOCATORS = 2, ETD_RUN_EVENTS = 3,
    ETD_ALLOCATOR_NAME = 0,
    ETD_EVENT_PROFILE = 0, ETD_EVENT_ALLOCATION = 1, ETD_EVENT_DEBUG = 2,
    ETD_PE_NAME = 0, ETD_PE_CHAIN = 1, ETD_PE_INSTR = 2, ETD_PE_DID_INT = 3,
    ETD_PE_DID_STR = 4, ETD_PE_METADATA = 5, ETD_PE_START = 6, ETD_PE_END = 7,
    ETD_AE_ALLOCATOR_ID = 0, ETD_AE_SIZE = 1,
    ETD_DE_CHAIN = 0, ETD_DE_INSTR = 1, ETD_DE_ENTRY = 2, ETD_DE_DID_INT = 3,
    ETD_DE_DID_STR = 4, ETD_DE_NAME = 5,
    ETD_VALUE_VAL = 0, ETD_VALUE_TENSOR = 1, ETD_VALUE_TENSOR_LIST = 2,
    ETD_VALUE_INT = 3, ETD_VALUE_FLOAT = 4, ETD_VALUE_DOUBLE = 5, ETD_VALUE_BOOL = 6,
    ETD_VALUE_OUTPUT = 7,
    ETD_TENSOR_SCALAR_TYPE = 0, ETD_TENSOR_SIZES = 1, ETD_TENSOR_STRIDES = 2,
    ETD_TENSOR_OFFSET = 3,
    ETD_TENSORLIST_TENSORS = 0,
    ETD_SCALAR_VAL = 0 /* int_val, bool_val, float_val, double_val */
};

/* Value.val (ValueType). */
typedef enum {
    ET_VAL_NULL = 0, ET_VAL_INT = 1, ET_VAL_BOOL = 2, ET_VAL_FLOAT = 3,
    ET_VAL_DOUBLE = 4, ET_VAL_TENSOR = 5, ET_VAL_TENSOR_LIST = 6, ET_VAL_STRING = 7
} et_value_type;

/* A byte string inside the file (not NUL-terminated in general). */
typedef struct et_str {
    const char *p; /* NULL when absent */
    uint32_t n;
} et_str;

/* An opened, verified ETDump.  Does not own `data`. */
typedef struct et_etdump {
    fb_buf buf;
    bool size_prefixed;
    uint32_t version;
    fb_vec run_data;
    /* counts found by the verifier (cover the runs verified so far) */
    uint64_t num_profile_events, num_debug_events, num_allocation_events, num_empty_events;
    uint32_t *run_event_counts; /* per run: its events (0 without a vector) */
    /* verification state */
    uint8_t *runs_verified; /* one flag per run */
    uint64_t tables_left;   /* remaining table budget (see fb_verifier) */
    uint64_t trailing_bytes; /* bytes after a size-prefixed buffer's end */
    bool profile_ends_early; /* a profile event verified so far ends before it
                              * starts: a 32-bit wrap-around or an error, which
                              * the model tells apart (builder.c) */
} et_etdump;

/* One RunData. */
typedef struct et_run {
    et_str name;
    int32_t bundled_input_index; /* -1 when absent */
    bool has_events;             /* false: the events vector is absent */
    fb_vec events;
    fb_vec allocators;           /* count 0 when absent */
} et_run;

typedef enum {
    ET_EV_EMPTY = 0, /* an Event table with no member set */
    ET_EV_PROFILE,
    ET_EV_DEBUG,
    ET_EV_ALLOCATION
} et_event_kind;

/* One raw Event, decoded into plain fields.  Which fields are meaningful
 * depends on `kind`; the populated member is chosen as the reference does:
 * profile_event, else debug_event, else allocation_event (spec §3.1, with
 * allocation events added). */
typedef struct et_raw_event {
    et_event_kind kind;
    uint32_t pos;          /* position of the member table (for messages) */
    /* profile and debug events */
    et_str name;           /* name.p NULL when absent */
    int32_t instruction_id;
    int32_t delegate_debug_id_int;
    et_str delegate_debug_id_str;
    /* chain_index: ProfileEvent's is int32, DebugEvent's is uint64; both are
     * kept exactly: chain_neg says the value is a negative int32 (as int64 in
     * chain_value's bits) */
    uint64_t chain_value;
    bool chain_neg;
    /* profile events */
    uint64_t start_time, end_time;
    et_str metadata;       /* delegate_debug_metadata bytes; p NULL when absent */
    /* debug events */
    uint32_t value_pos;    /* the Value table (always present once verified) */
    bool is_output;        /* Value.output.bool_val */
    /* allocation events */
    int32_t allocator_id;
    uint64_t allocation_size;
} et_raw_event;

/* A Value, decoded (values themselves are interpreted in a later layer). */
typedef struct et_raw_value {
    et_value_type val;
    bool is_output;
    bool has_tensor, has_tensor_list, has_int, has_bool, has_float, has_double;
    int64_t int_val;
    bool bool_val;
    float float_val;
    double double_val;
    /* tensor */
    int8_t scalar_type;
    fb_vec sizes, strides; /* int64 elements */
    int64_t offset;
    /* tensor list */
    fb_vec tensors;        /* vector of Tensor tables */
} et_raw_value;

/* Detect the layout of `data` (spec §2.1), check the identifier and verify
 * the root table, the run_data vector and every RunData's own fields and
 * allocators.  The events of run i are verified by et_etdump_verify_run(),
 * which must succeed before any event of that run is read (the model does
 * this run by run, so that each run is checked and then used while its bytes
 * are in cache); et_etdump_verify_all() verifies every run.
 * Returns 0 with `d` ready, or -1 with `err` set (ET_ERR_FORMAT, or
 * ET_ERR_NOMEM) to a message naming the field path and byte offset, e.g.
 *   "run_data[0].events[17].profile_event.name: byte 1234: string of ..."
 * `data` must stay mapped while `d` is used; release `d` with
 * et_etdump_close(). */
int et_etdump_open(et_etdump *d, const uint8_t *data, size_t size, et_error *err);

/* The same for bytes that are a private, read-only mapping of a file
 * (et_map_file): the pages read while the RunData tables are verified -
 * a page or so per run, which the kernel maps with its neighbours - are
 * given back as the walk goes (MADV_DONTNEED, every 64 runs), so opening
 * leaves little of a large dump resident; what is read again later faults
 * in from the page cache.  Never for bytes that are not such a mapping
 * (MADV_DONTNEED would zero anonymous memory). */
int et_etdump_open_mapped(et_etdump *d, const uint8_t *data, size_t size, et_error *err);

/* How the message of a run that passed verification and fails it again
 * starts: the bytes changed under a mapping (another process rewrote the
 * file in place). */
#define ET_ETDUMP_CHANGED "the file changed while it was open (rewritten by another process?)"

/* Verify the events of run `i` (once; later calls only decode, as the
 * verifier does, counting nothing and spending no table budget, and a
 * failure then is ET_ERR_FORMAT "ET_ETDUMP_CHANGED: run_data[i]...").  When `events` is not NULL it receives every event of
 * the run, decoded as by et_etdump_event() (it must hold the run's
 * events.count entries); the model uses this to check and decode each
 * event in one visit.  Notes in d->profile_ends_early a profile event
 * that ends before it starts.  Returns 0, or -1 with `err` set as for
 * et_etdump_open. */
int et_etdump_verify_run(et_etdump *d, uint32_t i, et_raw_event *events, et_error *err);

/* Verify the events of every run.  Returns 0 or -1 with `err` set. */
int et_etdump_verify_all(et_etdump *d, et_error *err);

/* Release what et_etdump_open allocated (not the data). */
void et_etdump_close(et_etdump *d);

/* Number of RunData. */
static inline uint32_t et_etdump_num_runs(const et_etdump *d) { return d->run_data.count; }

/* RunData `i` (< et_etdump_num_runs). */
void et_etdump_run(const et_etdump *d, uint32_t i, et_run *r);

/* Name of allocator `i` of run `r` (absent -> p NULL). */
et_str et_etdump_allocator_name(const et_etdump *d, const et_run *r, uint32_t i);

/* Event `i` of run `r` (i < r->events.count), decoded into `e`. */
void et_etdump_event(const et_etdump *d, const et_run *r, uint32_t i, et_raw_event *e);

/* The same, for bulk iteration over a run that et_etdump_verify_run() has
 * verified (it asks for the tables a few events ahead); bounds-checked as
 * et_etdump_event is: it relies on nothing the verifier saw. */
void et_etdump_event_verified(const et_etdump *d, uint32_t run_index, const et_run *r,
                              uint32_t i, et_raw_event *e);

/* The layout of an Event vtable whose only member is profile_event and of
 * that ProfileEvent's vtable, as cached by the verifier and the event
 * cursor: an Event table with the vtable at ev_vt whose ProfileEvent has
 * the vtable at pe_vt is decoded with these offsets alone.  Every cached
 * offset fits its field inside the cached table size, so that a table
 * inside the buffer has its fields inside too, whatever the bytes are now
 * (ev_vt 0: nothing cached). */
typedef struct et_event_layout {
    uint32_t ev_vt, pe_vt;
    uint16_t ev_tsize, ev_off_p;
    uint16_t pe_tsize, pe_off[8];
    uint8_t align_ok; /* bit k: a table at 4k mod 8 has its 8-byte fields aligned */
} et_event_layout;

/* A cursor over the events of a run, for bulk iteration one event at a
 * time (run:events(), insp:run_columns(), the trace's allocation
 * counters): it keeps the layout of the last profile event's vtables from
 * call to call, so a profile event costs a comparison of each vtable, the
 * bounds of its two tables and strings, and its field reads.
 *
 * It trusts nothing the verifier saw: the bytes of a mapped file may have
 * been rewritten since (a private mapping shows the file's current bytes
 * in the pages it never wrote), so every position read from the buffer is
 * checked against its bounds before it is followed, as the accessors of
 * fb.h do.  Bytes that changed give other values, never a read outside
 * the buffer.  `d` and the run must outlive it. */
typedef struct et_event_cursor {
    const et_etdump *d;
    uint32_t run_index;
    et_run run;
    bool verified;     /* the run is verified: the fast path is tried first */
    et_event_layout L; /* the cached layout (L.ev_vt 0: none yet) */
} et_event_cursor;

/* Start a cursor over run `run_index` (decoded as `r`) of `d`. */
void et_event_cursor_init(et_event_cursor *c, const et_etdump *d, uint32_t run_index, const et_run *r);

/* Event `i` (< the run's events.count) into `e`, as
 * et_etdump_event_verified decodes it. */
void et_event_cursor_get(et_event_cursor *c, uint32_t i, et_raw_event *e);

/* The Value table at `pos` (from et_raw_event.value_pos, or a Tensor of a
 * TensorList: see et_etdump_tensor). */
void et_etdump_value(const et_etdump *d, uint32_t pos, et_raw_value *v);

/* Value.val of the Value table at `pos` (ET_VAL_NULL when unreadable). */
et_value_type et_etdump_value_type(const et_etdump *d, uint32_t pos);

/* Tensor `i` of a tensor list, decoded into the tensor fields of `v`
 * (val = ET_VAL_TENSOR). */
void et_etdump_list_tensor(const et_etdump *d, const et_raw_value *list, uint32_t i,
                           et_raw_value *v);

/* Element `i` of an int64 vector (sizes, strides). */
static inline int64_t et_etdump_i64_at(const et_etdump *d, const fb_vec *v, uint32_t i)
{
    if (i >= v->count)
        return 0;
    return (int64_t)fb_ld_u64(d->buf.data + v->pos + 8u * i);
}

/* delegate_debug_metadata of the ProfileEvent table at `pe_pos` (p NULL
 * when absent). */
et_str et_etdump_profile_metadata(const et_etdump *d, uint32_t pe_pos);

/* Bytes per element of a ScalarType (spec §2.5, plus the types the
 * runtime defines but the reference cannot read), or 0 when unknown or
 * not byte-addressable (QUINT4X2, QUINT2X4). */
int et_scalar_type_size(int st);

/* NumPy dtype name of a ScalarType ("float32", "int64", ...), or NULL for
 * types NumPy has no name for (quantized, float8, sub-byte). */
const char *et_scalar_type_dtype(int st);

/* Name of a ScalarType value ("FLOAT", ...), or NULL when not defined. */
const char *et_scalar_type_name(int st);

#endif
