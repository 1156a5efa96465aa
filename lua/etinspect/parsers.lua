--- etinspect.parsers: built-in delegate-metadata parsers, selected by name
-- (`delegate_metadata_parser = "json"`).  A parser receives the event's raw
-- metadata, one byte string per run ("" where a run logged none), and
-- returns a table (spec §3.9).
local M = {}

return M
