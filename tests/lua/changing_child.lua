-- changing_child.lua - run by changing.t, one child process per case:
--   etinspect changing_child.lua DUMP SEED WHEN [DEBUG_BUFFER]
-- opens DUMP (a copy the parent made), then rewrites 200 bytes of it in
-- place (same size; positions and values from SEED), WHEN = "before" any
-- view of the model or "after" the model, its events and their values
-- were read; then calls every reader of the dump, each in a protected
-- call, and prints one line per reader: "NAME ok" or "NAME error: MSG".
-- The parent checks that the process ends normally with every line
-- printed: a changed file may give other values or a clean error, never
-- a crash.
local etinspect = require "etinspect"
etinspect.on_warning(function() end)
local path, seed, when, debug_buffer = arg[1], tonumber(arg[2]), arg[3], arg[4]
local tmp = os.getenv("CHANGING_TMP") or "/tmp"

local insp = etinspect.Inspector{etdump_path = path, debug_buffer_path = debug_buffer}

-- read everything the model gives (names, perf data, debug values)
local function walk_blocks()
  local n = 0
  for _, blk in ipairs(insp.event_blocks) do
    for _, ev in ipairs(blk.events) do
      n = n + #tostring(ev.name)
      local pd = ev.perf_data
      if pd then n = n + #pd.raw end
      local dd = ev.debug_data
      if dd then
        for _, v in ipairs(dd) do n = n + #tostring(v) end
      end
      local md = ev.raw_delegate_debug_metadatas
      if md then n = n + #md end
    end
  end
  return n
end

local function rewrite()
  local f = assert(io.open(path, "r+b"))
  local size = f:seek("end")
  math.randomseed(seed)
  for _ = 1, 200 do
    f:seek("set", math.random(0, size - 1))
    f:write(string.char(math.random(0, 255)))
  end
  f:close()
end

if when == "after" then
  walk_blocks()
  for _, run in insp:runs() do
    for _ in run:events() do end
    insp:run_columns(run.index)
  end
end
rewrite()

local readers = {
  {"run:events", function()
    local n = 0
    for _, run in insp:runs() do
      local _ = run.name, run.allocators
      for _, name, s, e, kind, iid, chain, did in run:events() do
        n = n + #(name or "") + (s or 0) % 7 + (e or 0) % 7 + #kind + (iid or 0) % 7
          + (chain or 0) % 7 + #tostring(did)
      end
    end
  end},
  {"run_columns", function()
    local names = insp:column_names()
    for _, run in insp:runs() do
      local cols = insp:run_columns(run.index)
      for i = 1, cols.n do
        local id = cols.name[i]
        if id ~= 0 then local _ = names[id] end
      end
    end
  end},
  {"blocks", walk_blocks},
  {"to_dataframe", function() insp:to_dataframe() end},
  {"print_data_tabular", function()
    local f = assert(io.open(tmp .. "/table.txt", "w"))
    insp:print_data_tabular{file = f}
    f:close()
  end},
  {"save_data_to_tsv", function() insp:save_data_to_tsv(tmp .. "/out.tsv") end},
  {"write_trace", function() insp:write_trace(tmp .. "/out.trace.json") end},
  {"to_sqlite", function() insp:to_sqlite(tmp .. "/out.db") end},
}
for _, r in ipairs(readers) do
  local ok, err = pcall(r[2])
  print(r[1] .. (ok and " ok" or (" error: " .. tostring(err):gsub("\n", " "))))
end
insp:close()
print("done")
