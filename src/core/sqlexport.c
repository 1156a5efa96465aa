/* sqlexport.c - an inspector as an SQLite database; see sqlexport.h.
 * (Being written: this placeholder refuses.) */
#include "sqlexport.h"

int et_sqlite_export(const et_inspector *insp, const char *path, const char *dump,
                     et_error *err)
{
    (void)insp, (void)path, (void)dump;
    return et_fail(err, ET_ERR_USAGE, "SQLite export is not implemented yet");
}
