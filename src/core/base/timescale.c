/* timescale.c - see timescale.h. */
#include "base/timescale.h"

#include <string.h>

static const char *const ts_names[] = {"ns", "us", "ms", "s", "cycles"};
static const double ts_per_second[] = {1e9, 1e6, 1e3, 1.0, 1.0};

const char *et_time_scale_name(et_time_scale ts)
{
    return (unsigned)ts < 5 ? ts_names[ts] : "?";
}

int et_time_scale_parse(const char *s, et_time_scale *out, et_error *err)
{
    for (int i = 0; i < 5; i++)
        if (strcmp(s, ts_names[i]) == 0) {
            *out = (et_time_scale)i;
            return 0;
        }
    return et_fail(err, ET_ERR_USAGE,
                   "invalid time scale '%s' (choose from 'ns', 'us', 'ms', 's', 'cycles')", s);
}

double et_time_scale_factor(et_time_scale source, et_time_scale target)
{
    return ts_per_second[source] / ts_per_second[target];
}

int et_time_scale_check(et_time_scale source, et_time_scale target, et_error *err)
{
    if ((source == ET_TS_CYCLES) != (target == ET_TS_CYCLES))
        return et_fail(err, ET_ERR_USAGE,
                       "For TimeScale in cycles both the source and target time scale have "
                       "to be in cycles.");
    return 0;
}

bool et_elapsed_ticks(uint64_t start, uint64_t end, uint64_t *ticks, bool *wrapped)
{
    *wrapped = false;
    if (start <= end) {
        *ticks = end - start;
        return true;
    }
    if (start > UINT32_MAX || end > UINT32_MAX)
        return false;
    *wrapped = true;
    *ticks = (UINT64_C(1) << 32) - start + end;
    return true;
}
