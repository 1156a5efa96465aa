-- frame_verbs.lua ETDUMP OUTDIR [REPS] - benchmark (make bench, the Frame
-- rows; scripts/bench/frame.sh): the Frame's verbs on the raw profile
-- events of ETDUMP (insp:raw_frame(), profile events only), each verb
-- timed alone, REPS times (default 5; fewer when one run takes over 10 s),
-- its median CPU time (os.clock) printed as
--   VERB SECONDS CHECK
-- where CHECK is a digest of the result that scripts/bench/frame_pandas.py
-- prints for pandas' result of the same verb (the bench compares them).
-- Untimed, it writes the rows it times to OUTDIR/events.tsv, the 12-row
-- frame of the join to OUTDIR/keys.tsv and the filter's threshold to
-- OUTDIR/threshold, for pandas.  Verbs:
--   groupby  group_by("name"):agg{count, mean, median of duration}
--   sort     sort("duration", true):head(5)
--   join     left join with a 12-row frame on name
--   query    query("duration > @t", {t = median duration}) when the Frame
--            has query, else the line "query pending"
local etinspect = require "etinspect"
local path = assert(arg[1], "usage: frame_verbs.lua ETDUMP OUTDIR [REPS]")
local out = assert(arg[2], "usage: frame_verbs.lua ETDUMP OUTDIR [REPS]")
local reps = tonumber(arg[3] or "5")

local insp = etinspect.Inspector { etdump_path = path }
local raw = insp:raw_frame()
-- the profile events: a mask when the Frame's columns are Series, else a function
local okm, mask = pcall(function() return raw.kind:eq("profile") end)
local df = raw:filter(okm and mask or function(r) return r.kind == "profile" end)
  :select { "run", "block", "name", "start_time", "end_time", "duration", "instruction_id",
            "chain_index" }
df:to_tsv(out .. "/events.tsv")

-- the 12-row frame: the first 12 names in order of first appearance
local names, keys = {}, {}
for _, v in ipairs(df:unique("name")) do
  if #names == 12 then break end
  names[#names + 1] = v
end
for i, v in ipairs(names) do keys[i] = { name = v, category = "c" .. (i % 4) } end
local small = etinspect.Frame.new({ "name", "category" }, keys)
small:to_tsv(out .. "/keys.tsv")

-- the threshold: the median duration
local durs = {}
for i, v in ipairs(df:column("duration")) do durs[i] = v end
table.sort(durs)
local t = durs[(#durs + 1) // 2] or 0
local f = assert(io.open(out .. "/threshold", "w"))
f:write(string.format("%.17g\n", t))
f:close()

-- fn() -> the verb's result, timed; digest(result) -> CHECK, untimed
local function time(fn, digest)
  local times, first = {}, nil
  for i = 1, reps do
    collectgarbage()
    local t0 = os.clock()
    local r = fn()
    times[i] = os.clock() - t0
    first = first or r
    if times[i] > 10 then break end
  end
  table.sort(times)
  return times[(#times + 1) // 2], digest(first)
end

local function digest_rows(frame, col)
  local s = 0
  for i = 1, #frame do
    local v = frame[i][col]
    if v == v and v ~= nil then s = s + v end
  end
  return string.format("%d:%.9g", #frame, s)
end

local secs, check = time(function()
  return df:group_by("name"):agg { n = { "duration", "count" }, mean = { "duration", "mean" },
                                   median = { "duration", "median" } }
end, function(g)
  return string.format("%s/%s/%s", digest_rows(g, "n"), digest_rows(g, "mean"), digest_rows(g, "median"))
end)
print("groupby", string.format("%.6f", secs), check)

secs, check = time(function() return df:sort("duration", true):head(5) end, function(h)
  local v = {}
  for i = 1, #h do v[i] = string.format("%.17g", h[i].duration) end
  return table.concat(v, ",")
end)
print("sort", string.format("%.6f", secs), check)

secs, check = time(function() return df:join(small, "name", { how = "left" }) end, function(j)
  local n = 0
  for i = 1, #j do if j[i].category ~= nil and j[i].category == j[i].category then n = n + 1 end end
  return string.format("%d:%d", #j, n)
end)
print("join", string.format("%.6f", secs), check)

local has_query, q = pcall(function() return df.query end)
if has_query and q ~= nil then
  secs, check = time(function() return df:query("duration > @t", { t = t }) end,
    function(r) return tostring(#r) end)
  print("query", string.format("%.6f", secs), check)
else
  print("query pending")
end
