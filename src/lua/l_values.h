/*
 * l_values.h - debug values (ETDump Value tables) as Lua values.
 *
 * A decoded value (values.h) becomes: Int -> integer, Bool -> boolean,
 * Float/Double -> number, Tensor -> Tensor userdata (l_tensor.h) viewing
 * the inspector's debug buffer, TensorList -> sequence of Tensors, Null
 * and String -> nil (a hole in a sequence of values, as Python's None).
 *
 * Errors never stop a value from being pushed, so that tables of events
 * (to_dataframe, print_data_tabular, the HTML report) build for any dump
 * that loads:
 *  - a tensor that cannot be read - offset or span past the end of the
 *    debug buffer, size x dtype overflowing 64 bits, a negative size,
 *    stride or offset, a strides vector of the wrong length, or a Tensor
 *    Value without its tensor table (then shape {} and dtype uint8) - is
 *    pushed as a Tensor marked invalid: t.error holds the message (naming
 *    the event, see et_value_label) and reading its values raises it;
 *  - a scalar Value without its member table (val=Int but no int_value
 *    ...) or with an unknown val reads as nil, with a warning
 *    (etinspect.on_warning) naming the event; the reference raises
 *    ValueError there.
 *
 * The raw description of the earlier API is kept (et_lua_push_raw_value):
 * {kind="int", value=123}, {kind="bool", value=true}, {kind="float",
 * value=2.5}, {kind="tensor", scalar_type="FLOAT", dtype="float32",
 * shape={2,3}, strides={3,1}, offset=0}, {kind="tensor_list", items={...}},
 * or nil for Null and String values (ev:debug_data_raw, blk:run_output_raw).
 *
 * A sequence of values holding such a nil gets a metatable whose __len is
 * its count of values, so that #seq counts trailing Nulls as the
 * reference's list and the command line's JSON do.
 */
#ifndef ET_L_VALUES_H
#define ET_L_VALUES_H

#include <lua.h>
#include <stddef.h>

#include "binding.h"
#include "format/etdump.h"
#include "model/model.h"

/* How a method takes its run argument (argument 2, 1-based over the
 * block's runs). */
typedef enum {
    ET_RUN_FIRST,    /* no argument: the first run (program outputs: the
                        block's run_output_run, the first that logged any) */
    ET_RUN_REQUIRED, /* required */
    ET_RUN_OPTIONAL  /* optional, default as ET_RUN_FIRST */
} et_run_arg;

/* The body of the per-run value accessors of EventBlock and Event
 * (blk.run_output, blk:run_output_of_run(r), blk:run_output_raw([r]),
 * ev.debug_data, ...): push the values (raw descriptions when `raw`) of the
 * run argument 2 names, for event `event` of child `c`'s block (SIZE_MAX:
 * the block's program outputs).  Raises "run R is out of range 1..N".
 * Returns 1 (the number of results). */
int et_lua_child_run_values(lua_State *L, const lua_child *c, size_t event,
                            et_run_arg run, int raw);

#endif
