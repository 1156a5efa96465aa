/*
 * progmain.h - the command line's program mode: `etinspect PROGRAM.pte`
 * and `etinspect BUNDLED.bpte` without a dump print the program's summary
 * (output/progsummary.h) and write its --json document (docs/programs.md).
 */
#ifndef ET_PROGMAIN_H
#define ET_PROGMAIN_H

#include <stdbool.h>

/* Summarise the program at `path` - an ExecuTorch program, or the program
 * inside a BundledProgram when `bundled` - on standard output unless
 * `quiet`, and write the JSON document to `json_path` when not NULL
 * (through a temporary file; the program itself is never a valid
 * destination).  Returns the exit status: 0, or 1 after printing
 * "etinspect: error: PATH: ..." for a file that cannot be read or is not
 * a valid program, or an output that cannot be written. */
int et_program_main(const char *path, bool bundled, const char *json_path, bool quiet);

#endif
