/*
 * proglink.h - an ExecuTorch program (.pte) beside a dump: each event
 * block's method, and each event's instruction (docs/programs.md "Linked
 * with a dump").
 *
 * The method of a block: for a block named "Execute::<method>", that
 * method when the program has it; else the program's method named like
 * the block; else it is inferred from the block's evidence - its events
 * with an instruction id that are not framework events (Method::init,
 * Program::load_method, Method::execute, Method::execute::<method>).  A
 * method covers such an event when the id is one of its instructions and,
 * for a DELEGATE_CALL event or a delegated one, that instruction is a
 * DelegateCall, for an OPERATOR_CALL or native_call_* event a KernelCall.
 * Of the methods covering every event, the one with the fewest
 * instructions wins; a tie goes to "forward" (else the first in the
 * program's order) with a warning naming the tied methods; when none
 * covers every event, the one covering most wins, with a warning.  A block
 * without evidence gets "forward", else the program's only method, else
 * none (with a warning).  The work is capped (ET_PROGLINK_MAX_CHECKS
 * event x method checks over all blocks; beyond it, the default with a
 * warning).
 *
 * An event's instruction: instruction `instruction_id` of its block's
 * method (counted over the method's chains), unless the event is a
 * framework event or the id is out of range.
 */
#ifndef ET_PROGLINK_H
#define ET_PROGLINK_H

#include <stdbool.h>
#include <stddef.h>

#include "format/program.h"
#include "model/model.h"

/* Cap on the (evidence event, method) checks of all blocks. */
#define ET_PROGLINK_MAX_CHECKS 50000000u

/* Link the blocks of `insp` to the methods of insp->program (nothing when
 * there is none): fills insp->program_method (one entry per block, -1
 * for none) and appends the warnings above to insp->warnings.  Returns 0,
 * or -1 with `err` set (ET_ERR_NOMEM). */
int et_proglink(et_inspector *insp, et_error *err);

/* What an event's instruction is. */
typedef struct et_event_instr {
    int32_t method;            /* the program's method index */
    et_pmethod m;
    et_pinstr in;
    char op[512];              /* a KernelCall's operator ("aten::add.out"), else "" */
    et_str backend;            /* a DelegateCall's backend id, else {NULL, 0} */
} et_event_instr;

/* The instruction of event `ev` of block `blk` (see the top of the file)
 * into `out`.  False when the inspector has no program, the block no
 * method, or the event no instruction. */
bool et_event_program_instr(const et_inspector *insp, const et_block *blk, const et_event *ev,
                            et_event_instr *out);

/* True for the framework events that carry no instruction of the
 * method's own (Method::init, Program::load_method, Method::execute,
 * Method::execute::<method>). */
bool et_proglink_is_framework(et_str name);

#endif
