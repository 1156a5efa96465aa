-- many.lua DIR - benchmark (make bench, the Frame rows): the fleet
-- pipeline over a directory of ETDumps as one process: open_many ->
-- to_dataframe -> group_by (event name: count and mean of "avg (ms)") ->
-- sort (the mean, descending).  The bench compares its wall time and peak
-- RSS with the command line's TSV of the same directory.  Prints the
-- number of groups.
local etinspect = require "etinspect"
local d <close> = etinspect.open_many((assert(arg[1], "usage: many.lua DIR")))
local g = d:to_dataframe():group_by("event_name")
  :agg { n = { "avg (ms)", "count" }, mean = { "avg (ms)", "mean" } }
  :sort("mean", true)
print(#g)
