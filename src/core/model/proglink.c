/* proglink.c - a program's methods and instructions for a dump's blocks and events; see proglink.h. */
#include "model/proglink.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static bool str_is(et_str s, const char *z)
{
    size_t n = strlen(z);
    return s.p && s.n == n && memcmp(s.p, z, n) == 0;
}

static bool str_starts(et_str s, const char *z)
{
    size_t n = strlen(z);
    return s.p && s.n >= n && memcmp(s.p, z, n) == 0;
}

bool et_proglink_is_framework(et_str name)
{
    return str_is(name, "Method::init") || str_is(name, "Program::load_method") ||
           str_is(name, "Method::execute") || str_starts(name, "Method::execute::");
}

/* What an event says its instruction is: 1 a KernelCall, 2 a
 * DelegateCall, 0 either. */
static int wanted_kind(const et_event *ev)
{
    et_str name = et_event_name(ev);
    if (ev->is_delegated_op || str_is(name, "DELEGATE_CALL"))
        return ET_PINSTR_DELEGATE;
    if (str_is(name, "OPERATOR_CALL") || str_starts(name, "native_call_"))
        return ET_PINSTR_KERNEL;
    return 0;
}

/* The default method: "forward", else the only one, else -1. */
static int32_t default_method(const et_program *p)
{
    int32_t f = et_program_find_method(p, "forward", 7);
    if (f >= 0)
        return f;
    return et_program_num_methods(p) == 1 ? 0 : -1;
}

static int warn(et_inspector *insp, et_error *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int warn(et_inspector *insp, et_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = et_warnings_vaddn(&insp->warnings, ET_WARNING_MAX, fmt, ap);
    va_end(ap);
    return rc != 0 ? et_fail(err, ET_ERR_NOMEM, "out of memory") : 0;
}

/* Infer the method of block `bi` from its evidence (see proglink.h).
 * `budget`: checks left over all blocks. */
static int infer(et_inspector *insp, size_t bi, uint64_t *budget, int32_t *out, et_error *err)
{
    const et_program *p = insp->program;
    const et_block *blk = &insp->blocks[bi];
    uint32_t nm = et_program_num_methods(p);
    size_t evidence = 0;
    for (size_t e = 0; e < blk->n_events; e++)
        evidence += blk->events[e].instruction_id >= 0 &&
                    !et_proglink_is_framework(et_event_name(&blk->events[e]));
    *out = default_method(p);
    if (evidence == 0 || nm < 2)
        return 0;
    if ((uint64_t)evidence * nm > *budget) {
        *budget = 0;
        return warn(insp, err,
                    "event_blocks[%zu] ('%.*s'): too many events to infer the program's method "
                    "from (over %u checks in all); the default method is used",
                    bi, (int)(blk->name.n > 60 ? 60 : blk->name.n), blk->name.p ? blk->name.p : "",
                    ET_PROGLINK_MAX_CHECKS);
    }
    *budget -= (uint64_t)evidence * nm;
    int32_t best = -1, ties = 0;
    size_t best_cover = 0;
    uint64_t best_len = 0;
    for (uint32_t mi = 0; mi < nm; mi++) {
        et_pmethod m;
        et_program_method(p, mi, &m);
        uint64_t len = et_pmethod_num_instructions(p, &m);
        size_t cover = 0;
        for (size_t e = 0; e < blk->n_events; e++) {
            const et_event *ev = &blk->events[e];
            if (ev->instruction_id < 0 || et_proglink_is_framework(et_event_name(ev)))
                continue;
            et_pinstr in;
            if (!et_pmethod_instruction_at(p, &m, (uint64_t)ev->instruction_id, &in))
                continue;
            int want = wanted_kind(ev);
            cover += want == 0 || (int)in.kind == want;
        }
        bool better = cover > best_cover || (cover == best_cover && best >= 0 && len < best_len);
        bool tie = best >= 0 && cover == best_cover && len == best_len;
        if (best < 0 || better) {
            best = (int32_t)mi;
            best_cover = cover;
            best_len = len;
            ties = 0;
        } else if (tie) {
            ties++;
        }
    }
    if (best_cover == 0)
        return warn(insp, err,
                    "event_blocks[%zu] ('%.*s'): no method of the program has the block's "
                    "instructions; the default method is used",
                    bi, (int)(blk->name.n > 60 ? 60 : blk->name.n), blk->name.p ? blk->name.p : "");
    if (ties) {
        /* a tie goes to "forward" when it is among the tied, else the first */
        int32_t f = et_program_find_method(p, "forward", 7);
        et_pmethod fm;
        if (f >= 0) {
            et_program_method(p, (uint32_t)f, &fm);
            size_t cover = 0;
            for (size_t e = 0; e < blk->n_events; e++) {
                const et_event *ev = &blk->events[e];
                et_pinstr in;
                if (ev->instruction_id < 0 || et_proglink_is_framework(et_event_name(ev)) ||
                    !et_pmethod_instruction_at(p, &fm, (uint64_t)ev->instruction_id, &in))
                    continue;
                int want = wanted_kind(ev);
                cover += want == 0 || (int)in.kind == want;
            }
            if (cover == best_cover && et_pmethod_num_instructions(p, &fm) == best_len)
                best = f;
        }
        et_pmethod bm;
        et_program_method(p, (uint32_t)best, &bm);
        if (warn(insp, err,
                 "event_blocks[%zu] ('%.*s'): %d methods of the program fit the block's "
                 "instructions equally; '%.*s' is used",
                 bi, (int)(blk->name.n > 60 ? 60 : blk->name.n), blk->name.p ? blk->name.p : "",
                 ties + 1, (int)(bm.name.n > 60 ? 60 : bm.name.n), bm.name.p ? bm.name.p : "") != 0)
            return -1;
    } else if (best_cover < evidence) {
        et_pmethod bm;
        et_program_method(p, (uint32_t)best, &bm);
        if (warn(insp, err,
                 "event_blocks[%zu] ('%.*s'): no method of the program has all of the block's "
                 "instructions; '%.*s' has %zu of %zu",
                 bi, (int)(blk->name.n > 60 ? 60 : blk->name.n), blk->name.p ? blk->name.p : "",
                 (int)(bm.name.n > 60 ? 60 : bm.name.n), bm.name.p ? bm.name.p : "", best_cover,
                 evidence) != 0)
            return -1;
    }
    *out = best;
    return 0;
}

int et_proglink(et_inspector *insp, et_error *err)
{
    free(insp->program_method);
    insp->program_method = NULL;
    const et_program *p = insp->program;
    if (!p || insp->n_blocks == 0)
        return 0;
    insp->program_method = malloc(insp->n_blocks * sizeof *insp->program_method);
    if (!insp->program_method)
        return et_fail(err, ET_ERR_NOMEM, "out of memory");
    uint64_t budget = ET_PROGLINK_MAX_CHECKS;
    for (size_t bi = 0; bi < insp->n_blocks; bi++) {
        const et_block *blk = &insp->blocks[bi];
        int32_t mi = -1;
        et_str name = blk->name;
        if (str_starts(name, "Execute::"))
            mi = et_program_find_method(p, name.p + 9, name.n - 9);
        if (mi < 0 && name.p)
            mi = et_program_find_method(p, name.p, name.n);
        if (mi < 0 && infer(insp, bi, &budget, &mi, err) != 0)
            return -1;
        if (mi < 0 &&
            warn(insp, err,
                 "event_blocks[%zu] ('%.*s'): the program has no method 'forward' and %u "
                 "methods; the block's events are not linked to its instructions",
                 bi, (int)(name.n > 60 ? 60 : name.n), name.p ? name.p : "",
                 et_program_num_methods(p)) != 0)
            return -1;
        insp->program_method[bi] = mi;
    }
    return 0;
}

bool et_event_program_instr(const et_inspector *insp, const et_block *blk, const et_event *ev,
                            et_event_instr *out)
{
    memset(out, 0, sizeof *out);
    out->method = -1;
    if (!insp->program || !insp->program_method || blk < insp->blocks ||
        blk >= insp->blocks + insp->n_blocks)
        return false;
    int32_t mi = insp->program_method[blk - insp->blocks];
    if (mi < 0 || ev->instruction_id < 0 || et_proglink_is_framework(et_event_name(ev)))
        return false;
    const et_program *p = insp->program;
    et_program_method(p, (uint32_t)mi, &out->m);
    if (!et_pmethod_instruction_at(p, &out->m, (uint64_t)ev->instruction_id, &out->in))
        return false;
    out->method = mi;
    if (out->in.kind == ET_PINSTR_KERNEL && out->in.index >= 0)
        et_pmethod_operator_name(p, &out->m, (uint32_t)out->in.index, out->op, sizeof out->op);
    if (out->in.kind == ET_PINSTR_DELEGATE && out->in.index >= 0) {
        et_pdelegate d;
        if (et_pmethod_delegate(p, &out->m, (uint32_t)out->in.index, &d))
            out->backend = d.id;
    }
    return true;
}
