/* perfetto.c - Perfetto TracePacket / TrackEvent encoding; see perfetto.h.
 * Field numbers are those of perfetto_trace.proto (Trace, TracePacket,
 * TrackEvent, TrackDescriptor, CounterDescriptor, InternedData,
 * DebugAnnotation). */
#include "output/perfetto.h"

#include <stdlib.h>
#include <string.h>

#include "base/pbuf.h"

/* Trace */
#define F_PACKET 1
/* TracePacket */
#define P_TIMESTAMP 8
#define P_SEQ_ID 10
#define P_TRACK_EVENT 11
#define P_INTERNED 12
#define P_FLAGS 13
#define P_TRACK_DESCRIPTOR 60
#define P_DEFAULTS 59
/* TracePacketDefaults, TrackEventDefaults */
#define D_TRACK_EVENT 11
#define D_TRACK_UUID 11
#define SEQ_ID 1
#define SEQ_CLEARED 1
#define SEQ_NEEDS 2
/* TrackEvent */
#define E_ANNOTATIONS 4
#define E_TYPE 9
#define E_NAME_IID 10
#define E_TRACK_UUID 11
#define E_COUNTER_VALUE 30
/* TrackDescriptor */
#define T_UUID 1
#define T_NAME 2
#define T_PARENT 5
#define T_COUNTER 8
#define T_CHILD_ORDERING 11
#define T_RANK 12
#define CHILD_EXPLICIT 3
/* CounterDescriptor */
#define C_UNIT 3
#define C_UNIT_NAME 6
/* InternedData */
#define I_EVENT_NAMES 2
#define I_ANNOTATION_NAMES 3
/* DebugAnnotation */
#define A_NAME_IID 1
#define A_BOOL 2
#define A_INT 4
#define A_DOUBLE 5
#define A_STRING 6
#define A_JSON 9
#define A_ARRAY 12

static const char *const ann_names[ET_PF_A_COUNT_] = {
    NULL, "run", "instruction_id", "delegate_debug_identifier", "debug_handles", "op_types",
    "module", "synthetic_start", "logged_dur_us", "clamped", "delegate_metadata"};

void et_pf_init(et_pf *pf)
{
    memset(pf, 0, sizeof *pf);
    pf->next_uuid = 1;
}

void et_pf_free(et_pf *pf)
{
    free(pf->names);
    et_sb_free(&pf->pending);
    memset(pf, 0, sizeof *pf);
}

/* An interned entry {iid, name} (EventName, EventCategory and
 * DebugAnnotationName have the same two fields). */
static void interned(et_strbuf *sb, uint32_t field, uint64_t iid, const char *p, size_t n)
{
    size_t at = et_pb_open(sb, field);
    et_pb_uint(sb, 1, iid);
    et_pb_bytes(sb, 2, p, n);
    et_pb_close(sb, at);
}

void et_pf_start(et_pf *pf, et_strbuf *sb, const char *root, size_t n)
{
    size_t pk = et_pb_open(sb, F_PACKET);
    et_pb_uint(sb, P_SEQ_ID, SEQ_ID);
    et_pb_uint(sb, P_FLAGS, SEQ_CLEARED);
    size_t in = et_pb_open(sb, P_INTERNED);
    for (int a = 1; a < ET_PF_A_COUNT_; a++)
        interned(sb, I_ANNOTATION_NAMES, (uint64_t)a, ann_names[a], strlen(ann_names[a]));
    et_pb_close(sb, in);
    et_pb_close(sb, pk);
    pf->next_uuid = 1;
    et_pf_track(pf, sb, 0, root, n, 0, false, 0, NULL);
}

uint64_t et_pf_track(et_pf *pf, et_strbuf *sb, uint64_t parent, const char *name, size_t n,
                     int32_t rank, bool counter, int unit, const char *unit_name)
{
    uint64_t uuid = pf->next_uuid++;
    size_t pk = et_pb_open(sb, F_PACKET);
    et_pb_uint(sb, P_SEQ_ID, SEQ_ID);
    et_pb_uint(sb, P_FLAGS, SEQ_NEEDS);
    size_t td = et_pb_open(sb, P_TRACK_DESCRIPTOR);
    et_pb_uint(sb, T_UUID, uuid);
    if (parent)
        et_pb_uint(sb, T_PARENT, parent);
    et_pb_bytes(sb, T_NAME, name, n);
    if (counter) {
        size_t cd = et_pb_open(sb, T_COUNTER);
        if (unit)
            et_pb_uint(sb, C_UNIT, (uint64_t)unit);
        else
            et_pb_bytes(sb, C_UNIT_NAME, unit_name, strlen(unit_name));
        et_pb_close(sb, cd);
    } else {
        et_pb_uint(sb, T_CHILD_ORDERING, CHILD_EXPLICIT);
    }
    et_pb_int(sb, T_RANK, rank);
    et_pb_close(sb, td);
    et_pb_close(sb, pk);
    return uuid;
}

static uint64_t hash_bytes(const char *p, size_t n)
{
    uint64_t h = UINT64_C(1469598103934665603);
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * UINT64_C(1099511628211);
    return h;
}

static bool grow_names(et_pf *pf)
{
    size_t cap = pf->names_cap ? pf->names_cap * 2 : 256;
    if (cap > SIZE_MAX / sizeof(et_pf_name))
        return false;
    et_pf_name *t = calloc(cap, sizeof *t);
    if (!t)
        return false;
    for (size_t i = 0; i < pf->names_cap; i++) {
        et_pf_name *e = &pf->names[i];
        if (!e->iid)
            continue;
        size_t k = (size_t)hash_bytes(e->p, e->n) & (cap - 1);
        while (t[k].iid)
            k = (k + 1) & (cap - 1);
        t[k] = *e;
    }
    free(pf->names);
    pf->names = t;
    pf->names_cap = cap;
    return true;
}

uint64_t et_pf_intern(et_pf *pf, const char *p, size_t n)
{
    if (!p)
        p = "", n = 0;
    if ((pf->names_n + 1) * 2 > pf->names_cap && !grow_names(pf)) {
        pf->failed = true;
        return 0;
    }
    size_t mask = pf->names_cap - 1, k = (size_t)hash_bytes(p, n) & mask;
    for (; pf->names[k].iid; k = (k + 1) & mask)
        if (pf->names[k].n == n && memcmp(pf->names[k].p, p, n) == 0)
            return pf->names[k].iid;
    pf->names[k] = (et_pf_name){p, n, ++pf->next_iid};
    pf->names_n++;
    interned(&pf->pending, I_EVENT_NAMES, pf->next_iid, p, n);
    return pf->next_iid;
}

void et_pf_flush_interned(et_pf *pf, et_strbuf *sb)
{
    if (pf->pending.failed)
        sb->failed = true;
    if (!pf->pending.n)
        return;
    size_t pk = et_pb_open(sb, F_PACKET);
    et_pb_uint(sb, P_SEQ_ID, SEQ_ID);
    et_pb_uint(sb, P_FLAGS, SEQ_NEEDS);
    et_pb_bytes(sb, P_INTERNED, pf->pending.p, pf->pending.n);
    et_pb_close(sb, pk);
    et_sb_reset(&pf->pending);
}

void et_pf_default_track(et_pf *pf, et_strbuf *sb, uint64_t track)
{
    size_t pk = et_pb_open(sb, F_PACKET);
    et_pb_uint(sb, P_SEQ_ID, SEQ_ID);
    et_pb_uint(sb, P_FLAGS, SEQ_NEEDS);
    size_t d = et_pb_open(sb, P_DEFAULTS);
    size_t te = et_pb_open(sb, D_TRACK_EVENT);
    et_pb_uint(sb, D_TRACK_UUID, track);
    et_pb_close(sb, te);
    et_pb_close(sb, d);
    et_pb_close(sb, pk);
    pf->default_track = track;
}

size_t et_pf_event_open(const et_pf *pf, et_strbuf *sb, uint64_t ts, int type, uint64_t track)
{
    char *o = et_sb_room(sb, 64);
    if (!o)
        return 0;
    *o++ = F_PACKET << 3 | ET_PB_LEN;
    size_t pk = (size_t)(o - sb->p);
    *o++ = 0;
    /* timestamp, sequence, flags, then the TrackEvent's header: one
     * byte for its length (et_pf_event_close widens it if need be) */
    *o++ = P_TIMESTAMP << 3;
    o = et_pb_put_varint(o, ts);
    *o++ = P_SEQ_ID << 3;
    *o++ = SEQ_ID;
    *o++ = P_FLAGS << 3;
    *o++ = SEQ_NEEDS;
    *o++ = P_TRACK_EVENT << 3 | ET_PB_LEN;
    *o++ = 0;
    *o++ = E_TYPE << 3;
    *o++ = (char)type;
    if (track != pf->default_track) {
        *o++ = E_TRACK_UUID << 3;
        o = et_pb_put_varint(o, track);
    }
    et_sb_setlen(sb, o);
    return pk;
}

void et_pf_event_close(et_strbuf *sb, size_t at)
{
    if (sb->failed || at >= sb->n)
        return;
    /* the TrackEvent's length byte: after the packet's length byte, the
     * timestamp and four bytes of sequence and flags */
    size_t te = at + 1 + 1;
    while ((unsigned char)sb->p[te] & 0x80)
        te++;
    te += 1 + 4 + 1;
    if (sb->n - at - 1 < 0x80) { /* both lengths fit their byte */
        sb->p[te] = (char)(sb->n - te - 1);
        sb->p[at] = (char)(sb->n - at - 1);
        return;
    }
    et_pb_close(sb, te);
    et_pb_close(sb, at);
}

void et_pf_slice_end(const et_pf *pf, et_strbuf *sb, uint64_t ts, uint64_t track)
{
    char *o = et_sb_room(sb, 48);
    if (!o)
        return;
    *o++ = F_PACKET << 3 | ET_PB_LEN;
    char *plen = o++;
    *o++ = P_TIMESTAMP << 3;
    o = et_pb_put_varint(o, ts);
    *o++ = P_SEQ_ID << 3;
    *o++ = SEQ_ID;
    *o++ = P_FLAGS << 3;
    *o++ = SEQ_NEEDS;
    *o++ = P_TRACK_EVENT << 3 | ET_PB_LEN;
    char *tlen = o++;
    *o++ = E_TYPE << 3;
    *o++ = ET_PF_SLICE_END;
    if (track != pf->default_track) {
        *o++ = E_TRACK_UUID << 3;
        o = et_pb_put_varint(o, track);
    }
    *tlen = (char)(o - tlen - 1); /* at most 13: one byte each */
    *plen = (char)(o - plen - 1);
    et_sb_setlen(sb, o);
}

void et_pf_counter(const et_pf *pf, et_strbuf *sb, uint64_t ts, uint64_t track, int64_t v)
{
    size_t at = et_pf_event_open(pf, sb, ts, ET_PF_COUNTER, track);
    et_pb_int(sb, E_COUNTER_VALUE, v);
    et_pf_event_close(sb, at);
}

static size_t ann_open(et_strbuf *sb, int name)
{
    size_t at = et_pb_open(sb, E_ANNOTATIONS);
    et_pb_uint(sb, A_NAME_IID, (uint64_t)name);
    return at;
}

void et_pf_ann_int(et_strbuf *sb, int name, int64_t v)
{
    size_t at = ann_open(sb, name);
    et_pb_int(sb, A_INT, v);
    et_pb_close(sb, at);
}

void et_pf_ann_bool(et_strbuf *sb, int name, bool v)
{
    size_t at = ann_open(sb, name);
    et_pb_uint(sb, A_BOOL, v);
    et_pb_close(sb, at);
}

void et_pf_ann_double(et_strbuf *sb, int name, double v)
{
    size_t at = ann_open(sb, name);
    et_pb_double(sb, A_DOUBLE, v);
    et_pb_close(sb, at);
}

void et_pf_ann_str(et_strbuf *sb, int name, const char *p, size_t n)
{
    size_t at = ann_open(sb, name);
    et_pb_bytes(sb, A_STRING, p, n);
    et_pb_close(sb, at);
}

void et_pf_ann_json(et_strbuf *sb, int name, const char *p, size_t n)
{
    size_t at = ann_open(sb, name);
    et_pb_bytes(sb, A_JSON, p, n);
    et_pb_close(sb, at);
}

void et_pf_ann_int_array(et_strbuf *sb, int name, const int64_t *v, size_t n)
{
    size_t at = ann_open(sb, name);
    for (size_t i = 0; i < n; i++) {
        size_t el = et_pb_open(sb, A_ARRAY);
        et_pb_int(sb, A_INT, v[i]);
        et_pb_close(sb, el);
    }
    et_pb_close(sb, at);
}

size_t et_pf_ann_array_open(et_strbuf *sb, int name)
{
    return ann_open(sb, name);
}

void et_pf_ann_array_str(et_strbuf *sb, const char *p, size_t n)
{
    size_t el = et_pb_open(sb, A_ARRAY);
    et_pb_bytes(sb, A_STRING, p, n);
    et_pb_close(sb, el);
}
