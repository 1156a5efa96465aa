/*
 * timeline.h - where a timeline puts the events of a run: the one rule the
 * trace (trace.c: Chrome JSON and Perfetto) and the HTML report's timeline
 * (htmldata.c, html.timeline in Lua) share, so that both draw the same
 * picture of time (docs/trace.md "Tracks" and "Slices", docs/html-report.md
 * "The timeline").
 *
 * Tracks (et_tl_track_of):
 *   framework  non-delegated events named Method::* or Program::*
 *              (Method::init, Program::load_method, Method::execute);
 *   operators  every other non-delegated event: OPERATOR_CALL around its
 *              native_call_* kernel, DELEGATE_CALL, JF_CALL, custom events;
 *   delegate   delegated events (the trace gives each backend its own).
 *
 * Starts (et_tl_place), in the caller's axis units:
 *   - a non-delegated event at its logged start;
 *   - a delegated event at its logged start, unless it was logged with
 *     start tick 0 (a backend that logs durations only) or its
 *     DELEGATE_CALL in that run does not contain its start (a delegate on
 *     a clock of its own): then its start is synthetic.  Synthetic starts
 *     are laid one after the other, in event order, from the start of the
 *     event's DELEGATE_CALL - without one, from the run's first
 *     non-delegated event (or `fallback`) - and a slice that would run
 *     past the DELEGATE_CALL's end (the run's last end) is cut there.
 * An event's DELEGATE_CALL (et_tl_parents) is the first timed,
 * non-delegated event named DELEGATE_CALL after it in the block with its
 * instruction id, else the first with that id.
 *
 * Plain C11; nothing is allocated.
 */
#ifndef ET_TIMELINE_H
#define ET_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

typedef enum {
    ET_TL_FRAMEWORK = 0,
    ET_TL_OPERATORS = 1,
    ET_TL_DELEGATE = 2
} et_tl_track;

/* The track of event `ev` (whether or not it has a slice). */
et_tl_track et_tl_track_of(const et_event *ev);

/* Does `ev` have a slice in its runs: perf data with samples and start
 * times? */
bool et_tl_timed(const et_event *ev);

/* Scratch of et_tl_parents: one entry per DELEGATE_CALL of the block. */
typedef struct et_tl_dc {
    int32_t instr;
    uint32_t e;
} et_tl_dc;

/* parent[e], for every event e of `blk`: the index of its DELEGATE_CALL
 * when e is a timed delegated event that has one, else -1.  `scratch`
 * holds blk->n_events entries. */
void et_tl_parents(const et_block *blk, int32_t *parent, et_tl_dc *scratch);

enum {
    ET_TL_TIMED = 1, /* in: the event has a start and a duration in this run */
    ET_TL_TICK0 = 2, /* in: a delegated event logged with start tick 0 */
    ET_TL_SYNTH = 4, /* out: its start was made up */
    ET_TL_CUT = 8    /* out: its slice was cut at its container's end */
};

/* One event of a run, in and out of et_tl_place. */
typedef struct et_tl_slot {
    double ts, dur; /* in: logged start and duration; out: where it goes */
    double logged;  /* out with ET_TL_CUT: the duration before the cut */
    double cursor;  /* scratch: the next synthetic start inside it */
    uint8_t flags;
} et_tl_slot;

/* Place one run of `blk`: slot[e] for every event (flags 0: no slice;
 * ET_TL_TIMED with ts and dur set, ET_TL_TICK0 where it applies), `parent`
 * from et_tl_parents.  Delegated slots get their place (above); the
 * others are left as they are.  `fallback`: where synthetic starts without
 * a DELEGATE_CALL begin when the run has no timed non-delegated event. */
void et_tl_place(const et_block *blk, const int32_t *parent, et_tl_slot *slot, double fallback);

#endif
