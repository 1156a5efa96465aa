/* trace.c - Chrome Trace Event JSON of an inspector; see trace.h.
 * (Being written: this placeholder refuses.) */
#include "trace.h"

#include <string.h>

void et_trace_options_init(et_trace_options *o)
{
    memset(o, 0, sizeof *o);
}

int et_trace_write(const et_inspector *insp, const et_trace_options *o, FILE *out,
                   et_error *err)
{
    (void)insp, (void)o, (void)out;
    return et_fail(err, ET_ERR_USAGE, "trace export is not implemented yet");
}
