/*
 * progsummary.h - the summary of an ExecuTorch program (.pte), as text
 * (`etinspect PROGRAM.pte`, Lua `prog:summary()`) and as the --json
 * document.  One implementation for the command line and Lua; see
 * docs/programs.md.
 */
#ifndef ET_PROGSUMMARY_H
#define ET_PROGSUMMARY_H

#include <stdio.h>

#include "base/strbuf.h"
#include "format/program.h"
#include "model/model.h"

/* Append the text summary of `p` to `sb`: a header line (`name` - the
 * file's path, or NULL for the program's own path - file and FlatBuffer
 * bytes, version, methods, segments), the constants, then per method its
 * instructions by kind, kernel calls by operator ("aten::add.out" with
 * counts), delegate calls by backend with blob bytes and where the blob
 * lives, and the planned memory (non_const_buffer_sizes, in bytes).
 * Names are shown with control characters escaped (base/shown.h).
 * Failures mark `sb` failed (strbuf.h). */
void et_progsum_text(const et_program *p, const char *name, et_strbuf *sb);

/* Write the --json document of `p` to `out` (docs/programs.md "JSON"):
 * {"path", "file_size", "program_size", "version", "extended_header",
 * "segments": [{"offset", "size"}], "constants": {...}, "methods":
 * [{"name", "instructions", "kernel_calls", "delegate_calls", ...,
 * "operators": [{"name", "calls"}], "delegates": [{"backend", "bytes",
 * "location", "index", "calls", "compile_specs"}], "planned_memory":
 * {"bytes", "buffers"}}]}.  Returns 0, or -1 on a write or allocation
 * failure. */
int et_progsum_write_json(const et_program *p, const char *name, FILE *out);

/* Append what changed from program `a` (named `na`) to `b` (`nb`), for
 * `etinspect diff A.pte B.pte` and Lua `a:diff(b)`: methods only in one;
 * per method present in both, the instruction count, operators added or
 * removed and call counts changed (by full name, "aten::add.out"),
 * delegates added, removed, or whose blob grew or shrank (matched by
 * backend id and their order among that backend's delegates), the
 * planned memory (sum of non_const_buffer_sizes); then the constants
 * (constant_buffer and constant segment bytes) and the file size.  A line
 * "no change" per method (and overall) that did not change.  Work is
 * O(n log n) in the operators and delegates.  Failures mark `sb`
 * failed. */
void et_progsum_diff(const et_program *a, const char *na, const et_program *b, const char *nb,
                     et_strbuf *sb);

/* Append, for --memory with a program (proglink.h), each event block's
 * planned memory: "planned memory (program PATH):" then one line per
 * block - its name, the program's method it runs and the bytes that
 * method plans (non_const_buffer_sizes: the sum and the list), or that it
 * runs no method of the program.  Nothing without a program.  Failures
 * mark `sb` failed. */
void et_progsum_planned(const et_inspector *insp, et_strbuf *sb);

#endif
