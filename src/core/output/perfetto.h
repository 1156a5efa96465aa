/*
 * perfetto.h - Perfetto's native trace format (TracePacket / TrackEvent
 * protobuf, protos/perfetto/trace/perfetto_trace.proto in google/perfetto)
 * written with pbuf.h: the packets trace.c lays out when the trace's
 * format is ET_TRACE_PERFETTO.  docs/trace.md describes the result.
 *
 * Every packet is a `Trace.packet` (field 1) on one sequence
 * (trusted_packet_sequence_id 1): the first clears the incremental state
 * (sequence_flags SEQ_INCREMENTAL_STATE_CLEARED) and interns the debug
 * annotation names (enum et_pf_ann); every later one says
 * SEQ_NEEDS_INCREMENTAL_STATE.  Event names are interned as they are
 * first met (et_pf_intern), in a packet of their own written before the
 * events that use them (et_pf_flush_interned).  Tracks are
 * TrackDescriptors with small uuids from 1 (the root) up, each with its
 * parent_uuid; the busiest one (a process's operators) is made the
 * default track of the events after it (et_pf_default_track).
 * Timestamps are nanoseconds on the default clock.
 *
 * Nothing here reads a file: it encodes what the caller gives it, which
 * came from the model (names are arbitrary bytes; they are written as
 * they are, length-delimited).
 */
#ifndef ET_PERFETTO_H
#define ET_PERFETTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/strbuf.h"

/* Debug annotation names (their iids). */
enum et_pf_ann {
    ET_PF_A_RUN = 1,
    ET_PF_A_INSTRUCTION_ID,
    ET_PF_A_DELEGATE_DEBUG_ID,
    ET_PF_A_DEBUG_HANDLES,
    ET_PF_A_OP_TYPES,
    ET_PF_A_MODULE,
    ET_PF_A_SYNTHETIC_START,
    ET_PF_A_LOGGED_DUR_US,
    ET_PF_A_CLAMPED,
    ET_PF_A_DELEGATE_METADATA,
    ET_PF_A_COUNT_
};


/* TrackEvent.Type. */
enum { ET_PF_SLICE_BEGIN = 1, ET_PF_SLICE_END = 2, ET_PF_COUNTER = 4 };

/* CounterDescriptor.Unit (0: a counter with a unit_name instead). */
enum { ET_PF_UNIT_COUNT = 2, ET_PF_UNIT_SIZE_BYTES = 3 };

typedef struct et_pf_name {
    const char *p;
    size_t n;
    uint64_t iid;
} et_pf_name;

typedef struct et_pf {
    uint64_t next_uuid;    /* the next track's uuid */
    uint64_t next_flow;    /* the last flow id given */
    uint64_t next_iid;     /* the last event name iid given */
    et_pf_name *names;     /* open addressing; p NULL: empty */
    size_t names_cap, names_n;
    et_strbuf pending;     /* InternedData.event_names not yet written */
    bool failed;           /* out of memory in the name table */
    uint64_t default_track; /* TrackEventDefaults.track_uuid, 0: none */
} et_pf;

/* An empty writer state. */
void et_pf_init(et_pf *pf);
void et_pf_free(et_pf *pf);

/* The first packet: incremental state cleared, categories and annotation
 * names interned, and the root track (uuid 1) named `root` (n bytes). */
void et_pf_start(et_pf *pf, et_strbuf *sb, const char *root, size_t n);

/* A TrackDescriptor packet for a new track under `parent` (0: none),
 * named by n bytes at `name`, ranked `rank` among its siblings (they are
 * ordered explicitly); with `counter`, a counter track of unit `unit` or,
 * when unit is 0, of unit_name `unit_name`.  Returns its uuid. */
uint64_t et_pf_track(et_pf *pf, et_strbuf *sb, uint64_t parent, const char *name, size_t n,
                     int32_t rank, bool counter, int unit, const char *unit_name);

/* The iid of event name (n bytes at p, which must outlive the writer's
 * next et_pf_flush_interned), interning it when new; 0 when out of memory
 * (pf->failed is then set). */
uint64_t et_pf_intern(et_pf *pf, const char *p, size_t n);

/* A packet with the names interned since the last call, if any. */
void et_pf_flush_interned(et_pf *pf, et_strbuf *sb);

/* Open a TrackEvent packet at ts ns of `type` on track `track`: returns
 * where it starts, for et_pf_event_close; the caller appends TrackEvent
 * fields in between (et_pf_ann_*, name_iid ...). */
size_t et_pf_event_open(const et_pf *pf, et_strbuf *sb, uint64_t ts, int type, uint64_t track);
void et_pf_event_close(et_strbuf *sb, size_t at);
/* A SLICE_END packet at ts ns on `track` (the same as open + close). */
void et_pf_slice_end(const et_pf *pf, et_strbuf *sb, uint64_t ts, uint64_t track);

/* A counter sample: value v on counter track `track` at ts ns. */
void et_pf_counter(const et_pf *pf, et_strbuf *sb, uint64_t ts, uint64_t track, int64_t v);

/* A packet making `track` the default track of later TrackEvents
 * (TracePacketDefaults.track_event_defaults.track_uuid): their packets
 * then leave track_uuid out - two bytes less per event on the busiest
 * track. */
void et_pf_default_track(et_pf *pf, et_strbuf *sb, uint64_t track);

/* TrackEvent.debug_annotations entries (field 4), named by iid `name`. */
void et_pf_ann_int(et_strbuf *sb, int name, int64_t v);
void et_pf_ann_bool(et_strbuf *sb, int name, bool v);
void et_pf_ann_double(et_strbuf *sb, int name, double v);
void et_pf_ann_str(et_strbuf *sb, int name, const char *p, size_t n);
/* A JSON value text, as legacy_json_value (Perfetto expands it). */
void et_pf_ann_json(et_strbuf *sb, int name, const char *p, size_t n);
/* An array of integers / of strings (array_values). */
void et_pf_ann_int_array(et_strbuf *sb, int name, const int64_t *v, size_t n);
size_t et_pf_ann_array_open(et_strbuf *sb, int name);
void et_pf_ann_array_str(et_strbuf *sb, const char *p, size_t n);

#endif
