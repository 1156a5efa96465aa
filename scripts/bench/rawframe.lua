-- rawframe.lua ETDUMP - benchmark (make bench, the Frame rows): open the
-- dump and build its raw-event frame (insp:raw_frame(), columns built in
-- C); the bench measures the whole process against the floor of reading
-- the file.  Prints the number of rows.
local etinspect = require "etinspect"
local insp = etinspect.Inspector { etdump_path = assert(arg[1], "usage: rawframe.lua ETDUMP") }
print(#insp:raw_frame())
