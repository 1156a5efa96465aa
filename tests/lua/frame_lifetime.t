#!/usr/bin/env etinspect
-- frame_lifetime.t - frames made from an Inspector and the lifetime rule
-- (docs/lua-api.md, "Lifetimes and contracts"; issue 24: a frame may
-- reference the model's arrays instead of copying them).  A frame that
-- outlives its Inspector (the Inspector unreachable and collected) keeps
-- working with the same cells; a frame used after its Inspector was
-- closed either still gives exactly the cells it gave before or raises an
-- error saying the inspector is closed - never other values, never a
-- crash or a read of freed memory (the suite runs under ASan+UBSan in
-- make test-asan).  Frames of insp:to_dataframe() (list cells: raw,
-- start_time, op_types), blk:to_dataframe(), ev:to_dataframe(),
-- insp:raw_frame() and open_many():to_dataframe(), and frames derived
-- from them before the close (sort, head, select, group_by).
package.path = (os.getenv("ET_SRC") or ".") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"
local etinspect = require "etinspect"

local fx = t.build .. "/fixtures"
if not t.exists(fx .. "/sample.etdp") then t.skip_all("build/fixtures missing (run make)") end
etinspect.on_warning(function() end)
local SAMPLE, DELEGATES = fx .. "/sample.etdp", fx .. "/delegates.etdp"

-- every cell of a frame as text, list cells element by element
local function cell_text(v)
  if type(v) == "table" then
    local parts = {}
    for i = 1, #v do parts[i] = cell_text(v[i]) end
    return "[" .. table.concat(parts, ",") .. "]"
  end
  if type(v) == "number" then return string.format("%.17g", v) end
  return tostring(v)
end
local function snapshot(df)
  local out = { table.concat(df.columns, "|") }
  for i = 1, #df do
    local row = df[i]
    local cells = {}
    for j, c in ipairs(df.columns) do cells[j] = cell_text(row[c]) end
    out[#out + 1] = table.concat(cells, "|")
  end
  return table.concat(out, "\n")
end

-- the frames of one Inspector, and frames derived from them
local function frames_of(insp)
  local df = insp:to_dataframe()
  local blk = insp.event_blocks[#insp.event_blocks]
  local fs = {
    to_dataframe = df,
    block = blk:to_dataframe(),
    event = blk.events[1]:to_dataframe(),
    raw_frame = insp:raw_frame(),
    sorted = df:sort("avg (ms)", true),
    head = df:head(3),
    selected = df:select { "event_name", "raw" },
  }
  fs.grouped = df:group_by("event_block_name"):agg { { "n", "event_name", "count" },
                                                     { "total", "avg (ms)", "sum" } }
  return fs
end
local NAMES = { "to_dataframe", "block", "event", "raw_frame", "sorted", "head", "selected", "grouped" }

-- 1. frames outliving their Inspector -------------------------------------------------------
do
  local frames, snaps
  do
    local insp = etinspect.Inspector { etdump_path = DELEGATES }
    frames = frames_of(insp)
    snaps = {}
    for _, k in ipairs(NAMES) do snaps[k] = snapshot(frames[k]) end
  end
  collectgarbage("collect")
  collectgarbage("collect")
  for _, k in ipairs(NAMES) do
    t.is(snapshot(frames[k]), snaps[k], k .. ": the Inspector collected, every cell as before")
  end
  -- verbs on a frame whose Inspector is gone
  local s = frames.to_dataframe:sort("event_name"):head(2)
  t.is(#s, 2, "to_dataframe: sort + head after the Inspector is gone")
  t.ok(type(s[1].raw) == "table" and #s[1].raw >= 1, "... a list cell (raw) still reads")
end

-- 2. frames used after close() ------------------------------------------------------------
local function after_close(label, make)
  local insp = etinspect.Inspector { etdump_path = DELEGATES }
  local frames = make(insp)
  local snaps = {}
  for k, f in pairs(frames) do snaps[k] = snapshot(f) end
  insp:close()
  collectgarbage("collect")
  for k, f in pairs(frames) do
    local ok, got = pcall(snapshot, f)
    if ok then
      t.is(got, snaps[k], label .. k .. " after close: the same cells")
    else
      t.ok(tostring(got):find("closed", 1, true), label .. k .. " after close raises that it is closed: " .. tostring(got))
    end
    -- verbs after close: the same result, or the closed error
    local ok2, r = pcall(function() return snapshot(f:head(2)) end)
    if ok2 then
      local lines = {}
      for line in snaps[k]:gmatch("[^\n]+") do lines[#lines + 1] = line; if #lines == 3 then break end end
      t.is(r, table.concat(lines, "\n"), label .. k .. ":head(2) after close: the first rows as before")
    else
      t.ok(tostring(r):find("closed", 1, true), label .. k .. ":head(2) after close raises that it is closed: " .. tostring(r))
    end
  end
end
after_close("", frames_of)
t.raises(function()
  local insp = etinspect.Inspector { etdump_path = SAMPLE }
  insp:close()
  return insp:to_dataframe()
end, "closed", "to_dataframe of a closed Inspector raises")
t.raises(function()
  local insp = etinspect.Inspector { etdump_path = SAMPLE }
  insp:close()
  return insp:raw_frame()
end, "closed", "raw_frame of a closed Inspector raises")

-- 3. open_many: the dataset closed, its frame kept ----------------------------------------
do
  local d = etinspect.open_many { SAMPLE, DELEGATES }
  local df = d:to_dataframe()
  local g = df:group_by("dump"):agg { { "n", "event_name", "count" } }
  local snap, gsnap = snapshot(df), snapshot(g)
  d:close()
  collectgarbage("collect")
  local ok, got = pcall(snapshot, df)
  if ok then
    t.is(got, snap, "open_many():to_dataframe() after d:close(): the same cells")
  else
    t.ok(tostring(got):find("closed", 1, true), "open_many's frame after close raises that it is closed: " .. tostring(got))
  end
  t.is(snapshot(g), gsnap, "a group_by result made before the close keeps its cells")
  d = nil
  collectgarbage("collect")
  ok, got = pcall(snapshot, df)
  t.ok(ok and got == snap or (not ok and tostring(got):find("closed", 1, true)),
    "... and after the dataset is collected")
end

-- 4. the rule as built (issue 24): to_dataframe's list cells are views of
-- the model's samples, and the model lives as long as a frame refers to it:
-- after close() the Inspector raises "closed" while its frames read every
-- cell as before (no error is accepted here) --------------------------------------------
do
  for _, path in ipairs { SAMPLE, DELEGATES } do
    local insp = etinspect.Inspector { etdump_path = path }
    local df, raw = insp:to_dataframe(), insp:raw_frame()
    local blk = insp.event_blocks[1]:to_dataframe()
    local j = {}
    for k, c in ipairs(df.columns) do j[c] = k end
    t.is(df._t:kind(j.raw), "list", path:match("[^/]+$") .. ": raw is a list view, not Lua tables")
    t.is(df._t:kind(j.start_time), "list", "... and start_time")
    local snap, bsnap, rsnap = snapshot(df), snapshot(blk), snapshot(raw)
    local pd = insp.event_blocks[1].events[1].perf_data
    local first_raw = pd and pd.raw
    insp:close()
    t.raises(function() return insp.event_blocks end, "closed", "the closed Inspector raises")
    collectgarbage("collect")
    t.is(snapshot(df), snap, "to_dataframe after close: every cell as before")
    t.is(snapshot(blk), bsnap, "EventBlock:to_dataframe after close: every cell as before")
    t.is(snapshot(raw), rsnap, "raw_frame after close: every cell as before")
    if first_raw then
      t.is(cell_text(df[1].raw), cell_text(first_raw), "... raw of row 1 is the event's perf_data.raw")
    end
    local s = df:sort("avg (ms)", true):head(2)
    t.is(#s, math.min(2, #df), "verbs run on a frame of a closed Inspector")
    insp, df = nil, nil
    collectgarbage("collect")
    t.is(snapshot(blk), bsnap, "... and after the Inspector and one of its frames are collected")
  end
end

-- 5. open_many's frame: the dumps' columns concatenated in C, equal to the
-- rows of each dump's to_dataframe with "dump" first --------------------------------------
do
  local function by_rows(d, opts)
    local cols, rows = nil, {}
    for i, insp in ipairs(d.inspectors) do
      local f = insp:to_dataframe(opts)
      if not cols then
        cols = { "dump" }
        for _, c in ipairs(f.columns) do cols[#cols + 1] = c end
      end
      for _, r in f:rows() do r.dump = d.names[i]; rows[#rows + 1] = r end
    end
    return etinspect.Frame.new(cols, rows)
  end
  for _, set in ipairs { { fx .. "/diff_a.etdp", fx .. "/diff_b.etdp", SAMPLE }, { SAMPLE, DELEGATES, fx .. "/debug_only.etdp" } } do
    local d = etinspect.open_many(set)
    local df = d:to_dataframe()
    local want = snapshot(by_rows(d, nil))
    t.is(snapshot(df), want, #set .. " dumps: open_many():to_dataframe() is every dump's rows, dump first")
    local j = {}
    for k, c in ipairs(df.columns) do j[c] = k end
    t.is(df._t:kind(j.raw), "list", "... raw stays a list view of the models' samples")
    -- debug_data's Tensors depend on their Inspector (they say so once it
    -- is closed): the other cells are compared after the close
    local keep = {}
    for _, c in ipairs(df.columns) do
      if c ~= "debug_data" then keep[#keep + 1] = c end
    end
    local want_kept = snapshot(df:select(keep))
    d:close()
    collectgarbage("collect")
    t.is(snapshot(df:select(keep)), want_kept, "... and reads the same after d:close()")
    d = nil
    collectgarbage("collect")
    t.is(snapshot(df:select(keep)), want_kept, "... and after the dataset is collected")
  end
end

t.done()
