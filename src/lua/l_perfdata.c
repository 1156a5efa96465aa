/*
 * l_perfdata.c - PerfData: the statistics of one event over the runs of its
 * block (spec §1.6, §4).  All values are in the inspector's target time
 * scale (for delegated events: what the delegate time-scale converter
 * returns).
 *
 *   pd.raw        sequence of durations, one per run, in run order
 *   pd.p10 .p50 .p90 .avg .min .max     numbers (NumPy-exact)
 *   pd.stddev     population standard deviation (numpy.std, ddof 0)
 *   pd:percentile(q)   q-th percentile, 0 <= q <= 100, NumPy "linear"
 *   #pd           number of samples
 */
#include <string.h>

#include "binding.h"
#include "base/pyfmt.h"
#include "base/stats.h"

static const et_perf_data *check_pd(lua_State *L, int arg)
{
    lua_child *c = et_lua_check_child(L, arg, ET_MT_PERFDATA);
    return &c->box->insp->blocks[c->block].events[c->event].perf_data;
}

static int pd_raw(lua_State *L)
{
    const et_perf_data *pd = check_pd(L, 1);
    lua_createtable(L, (int)pd->n, 0);
    for (size_t i = 0; i < pd->n; i++) {
        lua_pushnumber(L, pd->raw[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

#define STAT_GETTER(field)                                                                  \
    static int pd_##field(lua_State *L)                                                     \
    {                                                                                       \
        lua_pushnumber(L, check_pd(L, 1)->field);                                           \
        return 1;                                                                           \
    }
STAT_GETTER(p10)
STAT_GETTER(p50)
STAT_GETTER(p90)
STAT_GETTER(avg)
STAT_GETTER(min)
STAT_GETTER(max)

static int pd_stddev(lua_State *L)
{
    const et_perf_data *pd = check_pd(L, 1);
    lua_pushnumber(L, et_numpy_std(pd->raw, pd->n));
    return 1;
}

/* pd:percentile(q) -> number.  Errors when q is outside [0, 100]. */
static int pd_percentile(lua_State *L)
{
    const et_perf_data *pd = check_pd(L, 1);
    double q = luaL_checknumber(L, 2);
    luaL_argcheck(L, q >= 0 && q <= 100, 2, "percentile must be between 0 and 100");
    double *tmp = lua_newuserdatauv(L, (pd->n ? pd->n : 1) * sizeof *tmp, 0);
    pd = check_pd(L, 1); /* after the allocation: re-read */
    memcpy(tmp, pd->raw, pd->n * sizeof *tmp);
    double out;
    et_percentiles(tmp, pd->n, &q, 1, &out);
    lua_pushnumber(L, out);
    return 1;
}

static int pd_len(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)check_pd(L, 1)->n);
    return 1;
}

static int pd_tostring(lua_State *L)
{
    lua_child *c = luaL_checkudata(L, 1, ET_MT_PERFDATA);
    if (!c->box->insp) {
        lua_pushstring(L, "PerfData (inspector closed)");
        return 1;
    }
    const et_perf_data *pd = &c->box->insp->blocks[c->block].events[c->event].perf_data;
    char p50[ET_PYFMT_BUFSZ], avg[ET_PYFMT_BUFSZ];
    et_pyfmt_g(pd->p50, p50);
    et_pyfmt_g(pd->avg, avg);
    lua_pushfstring(L, "PerfData(n=%d, p50=%s, avg=%s %s)", (int)pd->n, p50, avg,
                    et_time_scale_name(c->box->insp->target_time_scale));
    return 1;
}

void et_lua_register_perfdata(lua_State *L)
{
    static const et_lua_method methods[] = {{"percentile", pd_percentile, 1, 0},
                                            {NULL, NULL, 0, 0}};
    static const et_lua_getter getters[] = {
        {"raw", pd_raw, 0, 0},         {"p10", pd_p10, 0, ET_LUA_LEAF},
        {"p50", pd_p50, 0, ET_LUA_LEAF}, {"p90", pd_p90, 0, ET_LUA_LEAF},
        {"avg", pd_avg, 0, ET_LUA_LEAF}, {"min", pd_min, 0, ET_LUA_LEAF},
        {"max", pd_max, 0, ET_LUA_LEAF}, {"stddev", pd_stddev, 0, ET_LUA_LEAF},
        {NULL, NULL, 0, 0}};
    static const et_lua_type type = {ET_MT_PERFDATA, "PerfData", methods, getters, pd_len,
                                     pd_tostring, NULL, NULL, NULL};
    et_lua_define_type(L, &type);
}
