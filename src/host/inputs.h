/*
 * inputs.h - what an input file is, from its first bytes (see inputs.c).
 *
 * The command line (`etinspect FILE...`) and the REPL's `.open FILE...`
 * take inputs without saying what they are; this tells them apart by
 * content, never by extension.
 */
#ifndef ET_INPUTS_H
#define ET_INPUTS_H

#include <stddef.h>

typedef enum {
    ET_INPUT_UNKNOWN,   /* binary, none of the below: a debug buffer beside an ETDump */
    ET_INPUT_TEXT,      /* not empty, no NUL byte in its first 64 bytes, or Lua bytecode:
                         * never an input (a script only by a name ending in .lua) */
    ET_INPUT_ETDUMP,    /* "ED00" at byte 8 (size-prefixed) or 4 (plain) */
    ET_INPUT_LEGACY,    /* a legacy profiler dump: prof_ver 1 after a 32-byte name */
    ET_INPUT_ETRECORD,  /* a ZIP archive ("PK\3\4", or an empty one "PK\5\6") */
    ET_INPUT_BUNDLED,   /* a BundledProgram: "BP08" at byte 4 */
    ET_INPUT_PROGRAM,   /* an ExecuTorch program (.pte): "ET12" at byte 4 */
    ET_INPUT_MISSING,   /* cannot be opened or read (errno says why) */
    ET_INPUT_DIRECTORY, /* not a regular file */
} et_input_kind;

/* Why a text file is refused among the inputs (after "FILE: "): no data
 * file is ever run as code, and none that is text is read as data. */
#define ET_INPUT_TEXT_WHY                                                                      \
    "a text file, not an ETDump, ETRecord, BundledProgram, legacy profiler dump or debug "    \
    "buffer (etinspect runs a file as a Lua script only when its name ends in .lua)"

/* The kind of the file at `path`. ET_INPUT_MISSING leaves errno set. */
et_input_kind et_input_kind_of(const char *path);

/* The kind of an input whose first `n` bytes (up to 64 are looked at)
 * are `h`: et_input_kind_of without the file (standard input). */
et_input_kind et_input_kind_of_bytes(const unsigned char *h, size_t n);

/* An input of kind `found` given where one of kind `expected` goes (an
 * ETRecord as --etdump_path): when both are kinds the command line takes
 * (ETDump, legacy dump, ETRecord, BundledProgram) and differ, fills `msg`
 * with "LABEL is an ETRecord (a ZIP archive), not an ETDump: give it with
 * --etrecord_path (or name it without an option: etinspect FILE...)" and
 * returns 1; else returns 0.  The kinds' words and options are one table
 * in inputs.c. */
int et_input_misplaced(const char *label, et_input_kind found, et_input_kind expected, char *msg,
                       size_t size);

/* The kind's name as the Lua side and messages use it: "etdump",
 * "profile_results", "etrecord", "bundled_program", "program", "text", "unknown",
 * "missing", "directory". */
const char *et_input_kind_name(et_input_kind k);

/* The inputs of one Inspector, by role (NULL: none); or, when `etdumps`
 * and `debug_buffers` are set, of several dumps read as one dataset. */
typedef struct {
    const char *etdump, *profile_results, *etrecord, *bundled_program, *debug_buffer;
    const char *program; /* an ExecuTorch program (.pte) */
    /* NULL: one ETDump at most (a second is an error).  Else room for as
     * many paths as there are files: every ETDump among the files is
     * appended to `etdumps` and every debug buffer to `debug_buffers`, in
     * the order given, counted in n_etdumps and n_debug_buffers (`etdump`
     * and `debug_buffer` get the first of each). */
    const char **etdumps, **debug_buffers;
    int n_etdumps, n_debug_buffers;
} et_inputs;

/* Give each of the `n` files the role its content calls for, in `in`
 * (which may already hold roles given by options): an ETDump the dump, an
 * ETRecord the record, a BundledProgram the bundled program, an ExecuTorch
 * program (.pte) `program`; a legacy profiler
 * dump the dump when no ETDump is given (beside one it can only be a debug
 * buffer); a text file is an error (ET_INPUT_TEXT_WHY); anything else the
 * debug buffer beside an ETDump, else the dump (whose reader then says
 * what is wrong with it).  With `etdumps` set,
 * several ETDumps and several debug buffers are taken (the debug buffers
 * pair with the dumps in order; the caller checks their numbers).  Returns
 * 0; else fills `msg` (naming the file) and returns 1 when a file cannot
 * be read or is text, 2 when two files claim one role. */
int et_inputs_assign(const char *const *files, int n, et_inputs *in, char *msg, size_t size);

#endif
