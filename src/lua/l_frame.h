/*
 * l_frame.h - private C helpers for the Lua library (etinspect._core).
 *
 *   _core.repr(x)                  Python repr() of a float: "0.1", "1e-05", "8338.0"
 *   _core.g(x)                     Python format(x, "g")
 *   _core.render(fmt, columns, rows) -> string
 *        fmt "grid" (tabulate fancy_grid with the index column) or "tsv"
 *        (pandas to_csv with sep "\t"); columns: sequence of names; rows:
 *        sequence of sequences of cells, each nil, boolean, integer, float
 *        or string (lists must already be rendered as text).  A float NaN is
 *        a missing number (pandas NaN).
 *   _core.json_decode(text)        -> value | nil, message (l_json.c)
 *   _core.report_rows(target, opts) the rows of to_dataframe and the
 *        display frame (rows.h), as row tables, rendered text, or (opts.frame)
 *        a Table of C columns whose raw and start_time are list views of the
 *        model's samples (see core_report_rows in l_frame.c)
 *   _core.drop_pages(insp)         give back the mapped dump's resident pages
 *   _core.drop_samples(insp)       give back the model's samples (built again
 *        from the dump when next read); true when given back
 */
#ifndef ET_L_FRAME_H
#define ET_L_FRAME_H

#include <lua.h>

/* Push the _core table. */
void et_lua_open_core(lua_State *L);

#endif
