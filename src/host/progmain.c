/* progmain.c - `etinspect PROGRAM.pte`: the program's summary; see progmain.h. */
#include "progmain.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/strbuf.h"
#include "files/outfile.h"
#include "format/bundled.h"
#include "format/program.h"
#include "output/progsummary.h"
#include "stdout_guard.h"

static int fail(const et_error *err)
{
    fprintf(stderr, "etinspect: error: %s\n", err->msg);
    return 1;
}

int et_program_main(const char *path, bool bundled, const char *json_path, bool quiet)
{
    et_error err;
    et_program *prog = NULL, inner;
    et_bundled *bp = NULL;
    char name[4200];
    if (bundled) {
        bp = et_bundled_open_path(path, &err);
        if (!bp)
            return fail(&err);
        if (bp->program.count == 0) {
            et_fail(&err, ET_ERR_FORMAT, "%s: the BundledProgram holds no program", path);
            et_bundled_free(bp);
            return fail(&err);
        }
        if (et_program_open(&inner, bp->buf.data + bp->program.pos, bp->program.count, &err) !=
            0) {
            char where[4200];
            snprintf(where, sizeof where, "%s: program (at byte %u)", path, bp->program.pos);
            et_error_prefix(&err, where);
            et_bundled_free(bp);
            return fail(&err);
        }
        prog = &inner;
        snprintf(name, sizeof name, "%s (inside the BundledProgram)", path);
    } else {
        prog = et_program_open_path(path, &err);
        if (!prog)
            return fail(&err);
        snprintf(name, sizeof name, "%s", path);
    }
    int rc = 0;
    if (!quiet) {
        et_strbuf sb = {0};
        et_progsum_text(prog, name, &sb);
        if (sb.failed) {
            et_fail(&err, ET_ERR_NOMEM, "out of memory");
            rc = fail(&err);
        } else if (fwrite(sb.p, 1, sb.n, stdout) != sb.n || fflush(stdout) != 0) {
            rc = et_stdout_guard_report();
        }
        et_sb_free(&sb);
    }
    if (rc == 0 && json_path) {
        const char *inputs[2] = {path, NULL};
        et_outfile of;
        if (et_outfile_open(&of, json_path, inputs, &err) != 0) {
            rc = fail(&err);
        } else if (et_progsum_write_json(prog, bundled ? name : path, of.fp) != 0) {
            et_outfile_fail(&of, &err);
            rc = fail(&err);
        } else if (et_outfile_commit(&of, &err) != 0) {
            rc = fail(&err);
        }
    }
    if (bundled) {
        et_program_close(&inner);
        et_bundled_free(bp);
    } else {
        et_program_free(prog);
    }
    return rc;
}
