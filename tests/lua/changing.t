#!/usr/bin/env etinspect
-- changing.t - a dump rewritten in place while an Inspector has it open
-- (issue 25, item 7): the pages of a private mapping that were never
-- written show the file's current bytes, so no reader may rely on the
-- verification done at open.  Each case is a child process
-- (changing_child.lua): open a copy of a dump, rewrite 200 bytes of it in
-- place (several seeds; before any view, or after the model and the raw
-- runs were read), then run:events(), insp:run_columns(), the blocks'
-- events and values, to_dataframe, print_data_tabular, save_data_to_tsv,
-- write_trace and to_sqlite.  Each must give values or a clean error; the
-- process must end normally (under ASan too, when ETINSPECT is that build).
package.path = (os.getenv("ET_SRC") or ".") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"

local bin = os.getenv("ETINSPECT") or "etinspect"
local child = t.src .. "/tests/lua/changing_child.lua"
if not t.exists(t.corpus .. "/medium.etdp") then t.skip_all("corpus not found") end

local dir = os.tmpname()
os.remove(dir)
assert(os.execute("mkdir -m 700 " .. dir))
local function sh_quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local function copy(from, to)
  local data = t.read(from)
  local f = assert(io.open(to, "wb"))
  f:write(data)
  f:close()
end

local READERS = 8
local changed_seen = false
for _, case in ipairs{{"medium", nil}, {"debug", "debug.bin"}, {"real_bundled_debug", "real_bundled_debug.bin"},
                      {"alloc", nil}} do
  local name, buffer = case[1], case[2]
  for seed = 1, 4 do
    for _, when in ipairs{"before", "after"} do
      local dump = dir .. "/" .. name .. ".etdp"
      copy(t.corpus .. "/" .. name .. ".etdp", dump)
      local cmd = string.format("CHANGING_TMP=%s timeout 120 %s %s %s %d %s %s", sh_quote(dir),
        sh_quote(bin), sh_quote(child), sh_quote(dump), seed, when,
        buffer and sh_quote(t.corpus .. "/" .. buffer) or "")
      local out, status = t.run(cmd)
      local lines = 0
      for l in out:gmatch("[^\n]+") do
        if l:match("^[%w_:]+ ok$") or l:match("^[%w_:]+ error: ") then lines = lines + 1 end
      end
      changed_seen = changed_seen or out:find("the file changed while it was open", 1, true) ~= nil
      if not t.ok(status == 0 and lines == READERS and out:find("\ndone\n") ~= nil,
                  string.format("%s.etdp rewritten %s the first view (seed %d): every reader ends "
                                .. "normally", name, when, seed)) then
        t.diag("status " .. tostring(status) .. "\n" .. out:sub(1, 2000))
      end
    end
  end
end
t.ok(changed_seen, "a run verified at open that fails again says the file changed while it was open")
os.execute("rm -rf " .. sh_quote(dir))
t.done()
