--- etinspect.diff: run-to-run (A/B) comparison of two dumps.
--
-- `etinspect.diff(a, b [, opts])` matches the events of two Inspectors and
-- says, per event, how its time changed and whether the change is more than
-- run-to-run noise (a two-sided Mann-Whitney U test on the per-run
-- durations).  The statistics are in this module too: `erfc`, `normal_sf`
-- and `mann_whitney_u`.  See docs/diff.md.
local Frame = require("etinspect.frame")

local D = {}

local SQRT_PI = math.sqrt(math.pi)
local SQRT2 = math.sqrt(2)
local NAN = math.abs(0 / 0) -- a NaN that prints as "nan", not "-nan"

--- exp(-x*x) without the rounding error of x*x: x = hi + lo with hi on a
-- grid of 2^-16, so hi*hi is exact and the small rest is a second factor.
-- @tparam number x (x >= 0, finite)
-- @treturn number e^(-x^2)
local function exp_minus_square(x)
  local hi = math.floor(x * 65536) / 65536
  local lo = x - hi
  return math.exp(-hi * hi) * math.exp(-lo * (x + hi))
end

--- The complementary error function, erfc(x) = 1 - erf(x).
-- For 0 <= x < 1 it is 1 - erf(x) with erf from its series of positive
-- terms, erf(x) = 2/sqrt(pi) e^(-x^2) sum_n (2x^2)^n x / (1*3*...*(2n+1));
-- for x >= 1 the continued fraction erfc(x) = e^(-x^2)/sqrt(pi) /
-- (x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))) evaluated from 200 terms down;
-- for x < 0, 2 - erfc(-x).  Relative error below 1e-14 against the C
-- library's erfc for -3 <= x <= 26 (e^(-x^2) underflows beyond about 26.5,
-- where the result is 0).
-- @tparam number x
-- @treturn number erfc(x), in [0, 2]; NaN for NaN
function D.erfc(x)
  if x ~= x then return x end
  if x < 0 then return 2 - D.erfc(-x) end
  if x < 1 then
    local term, sum, x2, n = x, x, 2 * x * x, 0
    while term > sum * 1e-17 do
      n = n + 1
      term = term * x2 / (2 * n + 1)
      sum = sum + term
    end
    return 1 - 2 / SQRT_PI * exp_minus_square(x) * sum
  end
  if x == math.huge then return 0.0 end
  local f = x
  for k = 200, 1, -1 do f = x + (k / 2) / f end
  return exp_minus_square(x) / (SQRT_PI * f)
end

--- The upper tail of the standard normal distribution, P(Z > z) =
-- erfc(z / sqrt 2) / 2.
-- @tparam number z
-- @treturn number a probability in [0, 1]
function D.normal_sf(z)
  return D.erfc(z / SQRT2) / 2
end

--- A sorted copy of a sample.
-- @tparam {number,...} t the sample
-- @tparam string name "x" or "y", for the error message
-- @treturn {number,...}|nil the sorted values; nil when one is NaN
-- @raise "mann_whitney_u: x[i] is not a number"
local function sorted_copy(t, name)
  local out = {}
  for i = 1, #t do
    local v = t[i]
    if type(v) ~= "number" then
      error("mann_whitney_u: " .. name .. "[" .. i .. "] is not a number", 3)
    end
    if v ~= v then return nil end
    out[i] = v
  end
  table.sort(out)
  return out
end

--- Two-sided Mann-Whitney U test (Wilcoxon rank-sum) of two samples, with
-- the normal approximation as scipy.stats.mannwhitneyu(x, y,
-- method="asymptotic", use_continuity=True) computes it:
--   ranks of the pooled sample, ties getting their average rank;
--   U1 = R1 - n1(n1+1)/2 (R1 = rank sum of x), U2 = n1 n2 - U1,
--   U = max(U1, U2), mu = n1 n2 / 2,
--   sigma^2 = n1 n2 / 12 * ((n + 1) - sum(t^3 - t) / (n (n - 1)))
--     (n = n1 + n2, t = size of each group of tied values),
--   z = (U - mu - 1/2) / sigma, p = 2 P(Z > z), clipped to [0, 1].
-- When every value is tied (sigma = 0) there is no evidence of a
-- difference: z = 0 and p = 1.
-- @tparam {number,...} x first sample (at least one value)
-- @tparam {number,...} y second sample (at least one value)
-- @treturn number|nil U1, the statistic of x (scipy's `statistic`); nil
--   when a sample holds NaN
-- @treturn number p, the two-sided p-value (NaN when a sample holds NaN)
-- @treturn number z, the continuity-corrected standard score of U (NaN
--   likewise)
-- @raise "mann_whitney_u: both samples need at least one value", or a
--   value that is not a number
function D.mann_whitney_u(x, y)
  local n1, n2 = #x, #y
  if n1 < 1 or n2 < 1 then error("mann_whitney_u: both samples need at least one value", 2) end
  local a, b = sorted_copy(x, "x"), sorted_copy(y, "y")
  if not a or not b then return nil, NAN, NAN end
  -- merge the two sorted samples: each group of equal values takes ranks
  -- pos+1 .. pos+t, whose average is pos + (t+1)/2
  local i, j, pos, r1, ties = 1, 1, 0, 0.0, 0.0
  while i <= n1 or j <= n2 do
    local v
    if j > n2 or (i <= n1 and a[i] <= b[j]) then v = a[i] else v = b[j] end
    local ca, cb = 0, 0
    while i <= n1 and a[i] == v do ca = ca + 1; i = i + 1 end
    while j <= n2 and b[j] == v do cb = cb + 1; j = j + 1 end
    local t = ca + cb
    r1 = r1 + ca * (pos + (t + 1) / 2)
    if t > 1 then ties = ties + (t * t * t - t) end
    pos = pos + t
  end
  local n = n1 + n2
  local u1 = r1 - n1 * (n1 + 1) / 2
  local u = math.max(u1, n1 * n2 - u1)
  local mu = n1 * n2 / 2
  local var = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1)))
  if not (var > 0) then return u1, 1.0, 0.0 end
  local z = (u - mu - 0.5) / math.sqrt(var)
  local p = 2 * D.normal_sf(z)
  if p > 1 then p = 1.0 end
  return u1, p, z
end

--- Is `v` an Inspector (ETDump or legacy profiler dump)?
-- @param v any value
-- @treturn boolean
local function is_inspector(v)
  local mt = getmetatable(v)
  return type(v) == "userdata" and type(mt) == "table" and mt.__name == "Inspector"
end

--- The delegate debug identifier as part of a match key: integer 5 and
-- string "5" differ, nil is "-".
-- @tparam integer|string|nil v
-- @treturn string
local function ddi_key(v)
  if v == nil then return "-" end
  if math.type(v) == "integer" then return "i" .. v end
  return "s" .. tostring(v)
end

--- The events of an Inspector that have perf data, in block then event
-- order, each with its match key (block, name, instruction id, delegate
-- identifier, occurrence of that combination so far).
-- @tparam Inspector insp
-- @treturn {table,...} entries {key, block, event, instruction_id, ddi,
--   occurrence, runs, p50, avg, raw} (times in the target time scale)
local function collect(insp)
  local list, seen = {}, {}
  for _, blk in ipairs(insp.event_blocks) do
    local bname = blk.name
    for _, ev in ipairs(blk.events) do
      local pd = ev.perf_data
      if pd then
        local ddi = ev.delegate_debug_identifier
        local base = table.concat({ bname, ev.name, tostring(ev.instruction_id), ddi_key(ddi) }, "\0")
        local k = (seen[base] or 0) + 1
        seen[base] = k
        list[#list + 1] = {
          key = base .. "\0" .. k, block = bname, event = ev.name,
          instruction_id = ev.instruction_id, ddi = ddi, occurrence = k,
          runs = #pd, p50 = pd.p50, avg = pd.avg, raw = pd.raw,
        }
      end
    end
  end
  return list
end

local OPTIONS = { alpha = true, min_runs = true, include_units = true }

--- Compare two dumps, event by event.
--
-- Events are matched by (block name, event name, instruction id, delegate
-- debug identifier); when that combination occurs several times — in one
-- block, or in several blocks of the same name — its occurrences are
-- matched in order (the k-th in A with the k-th in B; blocks in their
-- order, events in block order).  Events without perf data (debug events
-- only) are left out.
--
-- One row per event, with the columns (times in the Inspectors' target
-- time scale; with `include_units` the time columns are named
-- "p50_a (ms)" and so on):
--   block, event, instruction_id, delegate_debug_identifier (nil when
--     none), occurrence (1 unless the key repeats),
--   status      "matched", "only in A" or "only in B",
--   runs_a, runs_b   number of samples (0 on the side the event is not),
--   p50_a, p50_b     medians,
--   delta       p50_b - p50_a,
--   ratio       p50_b / p50_a (NaN when p50_a is 0),
--   avg_a, avg_b     means,
--   avg_delta   avg_b - avg_a: the change of the time the event adds to one
--               run; -avg_a for an event only in A, avg_b for one only in B,
--   p_value     two-sided Mann-Whitney U test of the raw samples
--               (`perf_data.raw`), when both sides have at least
--               `min_runs` samples,
--   significant p_value < alpha; nil when p_value was not computed.
-- A missing number (a statistic of the side the event is not in, an
-- untested p-value) is NaN, as in the other frames.  Rows are sorted by
-- |avg_delta|, largest first; equal ones keep the order matched events of
-- A, then events only in B.
-- @tparam Inspector a the baseline ("A")
-- @tparam Inspector b the dump compared to it ("B")
-- @tparam[opt] table opts `alpha` (significance level, default 0.01,
--   0 < alpha < 1), `min_runs` (fewest samples on each side for a test,
--   default 5, an integer >= 1), `include_units` (default false)
-- @treturn Frame
-- @raise "diff: argument 1 (A) is not an Inspector" (or 2, B);
--   "diff: the Inspectors have different target time scales (A: ms, B: us)";
--   "diff: unknown option 'x'", an alpha or min_runs out of range
function D.diff(a, b, opts)
  if not is_inspector(a) then error("diff: argument 1 (A) is not an Inspector", 2) end
  if not is_inspector(b) then error("diff: argument 2 (B) is not an Inspector", 2) end
  opts = opts or {}
  if type(opts) ~= "table" then error("diff: options must be a table", 2) end
  for k in pairs(opts) do
    if not OPTIONS[k] then error("diff: unknown option '" .. tostring(k) .. "'", 2) end
  end
  local alpha = opts.alpha == nil and 0.01 or opts.alpha
  if type(alpha) ~= "number" or not (alpha > 0 and alpha < 1) then
    error("diff: alpha must be a number between 0 and 1, got " .. tostring(opts.alpha), 2)
  end
  local min_runs = opts.min_runs == nil and 5 or opts.min_runs
  if type(min_runs) ~= "number" or math.tointeger(min_runs) == nil or min_runs < 1 then
    error("diff: min_runs must be an integer >= 1, got " .. tostring(opts.min_runs), 2)
  end
  local unit_a, unit_b = a.target_time_scale, b.target_time_scale
  if unit_a ~= unit_b then
    error(string.format("diff: the Inspectors have different target time scales (A: %s, B: %s)",
      unit_a, unit_b), 2)
  end

  local la, lb = collect(a), collect(b)
  local by_key = {}
  for _, e in ipairs(lb) do by_key[e.key] = e end
  local rows, matched = {}, {}
  --- Append the row of an event: ea and eb its entries in A and B (one
  -- may be nil).
  local function row(ea, eb)
    local e = ea or eb
    local r = {
      block = e.block, event = e.event, instruction_id = e.instruction_id,
      delegate_debug_identifier = e.ddi, occurrence = e.occurrence,
      runs_a = ea and ea.runs or 0, runs_b = eb and eb.runs or 0,
      p50_a = ea and ea.p50 or NAN, p50_b = eb and eb.p50 or NAN,
      avg_a = ea and ea.avg or NAN, avg_b = eb and eb.avg or NAN,
      delta = NAN, ratio = NAN, p_value = NAN,
    }
    if ea and eb then
      r.status = "matched"
      r.delta = eb.p50 - ea.p50
      if ea.p50 ~= 0 then r.ratio = eb.p50 / ea.p50 end
      r.avg_delta = eb.avg - ea.avg
      if ea.runs >= min_runs and eb.runs >= min_runs then
        local _, p = D.mann_whitney_u(ea.raw, eb.raw)
        r.p_value = p
        if p == p then r.significant = p < alpha end
      end
    elseif ea then
      r.status = "only in A"
      r.avg_delta = -ea.avg
    else
      r.status = "only in B"
      r.avg_delta = eb.avg
    end
    rows[#rows + 1] = r
  end
  for _, ea in ipairs(la) do
    local eb = by_key[ea.key]
    if eb then matched[eb] = true end
    row(ea, eb)
  end
  for _, eb in ipairs(lb) do
    if not matched[eb] then row(nil, eb) end
  end

  -- sort by |avg_delta|, largest first (NaN last), stable
  local order = {}
  for i = 1, #rows do order[i] = i end
  --- The sort key of a row: |avg_delta|, -1 for NaN.
  local function mag(r) local d = math.abs(r.avg_delta); return d == d and d or -1 end
  table.sort(order, function(i, j)
    local mi, mj = mag(rows[i]), mag(rows[j])
    if mi ~= mj then return mi > mj end
    return i < j
  end)
  local sorted = {}
  for i, k in ipairs(order) do sorted[i] = rows[k] end

  local names = { p50_a = "p50_a", p50_b = "p50_b", delta = "delta", avg_a = "avg_a",
                  avg_b = "avg_b", avg_delta = "avg_delta" }
  if opts.include_units then
    for k, v in pairs(names) do names[k] = v .. " (" .. unit_a .. ")" end
    for _, r in ipairs(sorted) do
      for k, v in pairs(names) do r[v], r[k] = r[k], nil end
    end
  end
  return Frame.new({ "block", "event", "instruction_id", "delegate_debug_identifier",
    "occurrence", "status", "runs_a", "runs_b", names.p50_a, names.p50_b, names.delta,
    "ratio", names.avg_a, names.avg_b, names.avg_delta, "p_value", "significant" }, sorted)
end

return D
