--- etinspect.diff: run-to-run (A/B) comparison of two dumps.
--
-- `etinspect.diff(a, b [, opts])` matches the events of two Inspectors and
-- says, per event, how its time changed, with a confidence interval of the
-- ratio, and whether the change is more than run-to-run noise (a two-sided
-- Mann-Whitney U test on the per-run durations, Benjamini-Hochberg
-- q-values over all the events tested).  The statistics are in this module
-- too: `erfc`, `normal_sf`, `normal_isf`, `mann_whitney_u`, `shift_ci`,
-- `ratio_ci`, `bh_qvalues`.  See docs/diff.md.
local _ENV = require("etinspect")._core.std -- the standard library as it was at load
local Frame = require("etinspect.frame")
local core = require("etinspect")._core

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
-- @tparam[opt="mann_whitney_u"] string fn the function, for the message
-- @treturn {number,...}|nil the sorted values; nil when one is NaN
-- @raise "mann_whitney_u: x[i] is not a number"
local function sorted_copy(t, name, fn)
  local out = {}
  for i = 1, #t do
    local v = t[i]
    if type(v) ~= "number" then
      error((fn or "mann_whitney_u") .. ": " .. name .. "[" .. i .. "] is not a number", 3)
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
  return D._mwu_sorted(a, b)
end

--- mann_whitney_u of two sorted samples without NaN (no checks).
function D._mwu_sorted(a, b)
  local n1, n2 = #a, #b
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

--- The standard normal quantile of an upper tail: the z with P(Z > z) = p,
-- by bisection on normal_sf to the last bit.
-- @tparam number p in (0, 1)
-- @treturn number z (NaN for p outside (0, 1))
function D.normal_isf(p)
  if not (p > 0 and p < 1) then return NAN end
  local lo, hi = -40.0, 40.0
  while true do
    local mid = (lo + hi) / 2
    if mid <= lo or mid >= hi then return mid end
    if D.normal_sf(mid) > p then lo = mid else hi = mid end
  end
end

--- The order key of a finite double: keys are integers in the doubles'
-- order (-0.0 and 0.0 share 0), so bisecting keys bisects the doubles.
local function key_of(x)
  local i = string.unpack("<i8", string.pack("<d", x))
  if i < 0 then i = math.mininteger - i end
  return i
end

local function double_of(k)
  if k < 0 then k = math.mininteger - k end
  return (string.unpack("<d", string.pack("<i8", k)))
end

--- A sorted sample as distinct values and their counts.
local function runs_of(sorted)
  local v, c = {}, {}
  for i = 1, #sorted do
    local x = sorted[i]
    if v[#v] == x then c[#c] = c[#c] + 1 else v[#v + 1], c[#c + 1] = x, 1 end
  end
  return v, c
end

--- #{(i, j): y_j - x_i <= t} for samples as distinct values and counts
-- (xv ascending, n1 values in all): for ascending y the x with y - x <= t
-- are a suffix of x that only shrinks, so one pass of two pointers.  Also
-- the largest difference <= t and the smallest > t (nil when none).
local function count_le(xv, xc, n1, yv, yc, t)
  local c, i, before = 0, 1, 0 -- before: x values left of the suffix
  local nx = #xv
  local below, above
  for j = 1, #yv do
    local y = yv[j]
    while i <= nx and y - xv[i] > t do before = before + xc[i]; i = i + 1 end
    c = c + yc[j] * (n1 - before)
    if i <= nx then
      local d = y - xv[i]
      if not below or d > below then below = d end
    end
    if i > 1 then
      local d = y - xv[i - 1]
      if not above or d < above then above = d end
    end
  end
  return c, below, above
end

--- The k-th smallest of the pairwise differences y_j - x_i (1 <= k <=
-- n1 n2), exactly (as the double the subtraction gives), without forming
-- the n1 n2 differences.  A bracket (lo, hi] with count(lo) < k <=
-- count(hi), hi a difference, is narrowed by counting passes: in turn an
-- interpolation step, a halving step and a step to the next difference
-- above lo, then (after 96 passes, for extreme ranges) bisection of the
-- doubles' order keys, so at most 160 passes, usually about ten; each
-- pass moves hi to the nearest difference below the probe.  It ends when no difference lies strictly
-- between the ends (the answer is hi), or when at most `limit` differences
-- lie in the bracket: those are listed, sorted and counted off.
local function kth_difference(xv, xc, n1, yv, yc, n2, k)
  local lo = yv[1] - xv[#xv] -- the smallest difference
  local c_lo, _, lo_above = count_le(xv, xc, n1, yv, yc, lo)
  if c_lo >= k then return lo end
  local hi, c_hi = yv[#yv] - xv[1], n1 * n2
  local limit = math.max(256, (#xv + #yv) // 2)
  local step = 0
  while lo_above ~= hi and c_hi - c_lo > limit do
    step = step + 1
    local t
    if step <= 96 then
      if step % 3 == 1 then -- interpolate where the k-th should be
        local f = (k - c_lo) / (c_hi - c_lo)
        t = lo * (1 - f) + hi * f
      elseif step % 3 == 2 then -- halve the values
        t = lo / 2 + hi / 2
      else -- the next difference above lo: differences equal but for float
        t = lo_above -- noise (0.000485 - 0.000476, 0.000515 - 0.000506) are
      end            -- distinct doubles that halving would take long to part
    end
    if not (t and t > lo and t < hi) then -- bisect the order keys (64 at most)
      local kl, kh = key_of(lo), key_of(hi)
      if kl + 1 >= kh then return hi end -- adjacent doubles: only hi is left
      local mid = kl // 2 + kh // 2
      if mid <= kl then mid = kl + 1 elseif mid >= kh then mid = kh - 1 end
      t = double_of(mid)
    end
    local c, below, above = count_le(xv, xc, n1, yv, yc, t)
    if c >= k then hi, c_hi = below, c else lo, c_lo, lo_above = t, c, above end
  end
  if lo_above == hi then return hi end
  -- the differences in (lo, hi], with their multiplicities
  local cand, nx, s, e = {}, #xv, 1, 0
  for j = 1, #yv do
    local y = yv[j]
    while s <= nx and y - xv[s] > hi do s = s + 1 end
    if e < s - 1 then e = s - 1 end
    while e < nx and y - xv[e + 1] > lo do e = e + 1 end
    for i = s, e do
      local d = y - xv[i]
      for _ = 1, xc[i] * yc[j] do cand[#cand + 1] = d end -- c_hi - c_lo in all
    end
  end
  table.sort(cand)
  return cand[k - c_lo] or hi
end

--- Confidence interval of the shift between two samples (y - x), the one
-- that goes with the Mann-Whitney U test (Moses' interval around the
-- Hodges-Lehmann estimate): the C-th smallest and the C-th largest of the
-- n1 n2 differences y_j - x_i, with
--   C = floor(n1 n2 / 2 - z sigma),  z = normal_isf((1 - confidence) / 2),
-- sigma the tie-corrected standard deviation of U (as mann_whitney_u).
-- The floor makes the interval conservative.  When C < 1 (too few samples for that
-- confidence), or a sample is all ties with the other, the bounds are NaN.
-- @tparam {number,...} x first sample
-- @tparam {number,...} y second sample
-- @tparam[opt=0.95] number confidence in (0, 1)
-- @treturn number lower bound (NaN when not available)
-- @treturn number upper bound
-- @raise as mann_whitney_u for empty samples or non-numbers
function D.shift_ci(x, y, confidence)
  confidence = confidence or 0.95
  local n1, n2 = #x, #y
  if n1 < 1 or n2 < 1 then error("shift_ci: both samples need at least one value", 2) end
  local a, b = sorted_copy(x, "x", "shift_ci"), sorted_copy(y, "y", "shift_ci")
  if not a or not b or a[1] == -math.huge or b[1] == -math.huge or a[n1] == math.huge
     or b[n2] == math.huge then
    return NAN, NAN
  end
  for i = 1, n1 do a[i] = a[i] + 0.0 end -- differences as floats, even of integers
  for j = 1, n2 do b[j] = b[j] + 0.0 end
  return D._shift_ci_sorted(a, b, confidence)
end

--- shift_ci of two sorted samples of finite floats (no checks).
function D._shift_ci_sorted(a, b, confidence)
  local n1, n2 = #a, #b
  local xv, xc = runs_of(a)
  local yv, yc = runs_of(b)
  -- tie correction over the pooled sample: merge the distinct values
  local ties, i, j = 0, 1, 1
  while i <= #xv or j <= #yv do
    local t
    if j > #yv or (i <= #xv and xv[i] < yv[j]) then
      t = xc[i]; i = i + 1
    elseif i > #xv or yv[j] < xv[i] then
      t = yc[j]; j = j + 1
    else
      t = xc[i] + yc[j]; i = i + 1; j = j + 1
    end
    if t > 1 then ties = ties + (t * t * t - t) end
  end
  local n = n1 + n2
  local var = n1 * n2 / 12 * ((n + 1) - (n > 1 and ties / (n * (n - 1)) or 0))
  if not (var > 0) then return NAN, NAN end
  local z = D.normal_isf((1 - (confidence or 0.95)) / 2)
  local c = math.floor(n1 * n2 / 2 - z * math.sqrt(var))
  if c < 1 then return NAN, NAN end
  return kth_difference(xv, xc, n1, yv, yc, n2, c),
         kth_difference(xv, xc, n1, yv, yc, n2, n1 * n2 + 1 - c)
end

--- Confidence interval of the ratio of two samples' scales (y / x): the
-- shift_ci of their logarithms, exponentiated (a change that multiplies
-- every duration by r shifts the log durations by log r).
-- @tparam {number,...} x first sample, every value > 0
-- @tparam {number,...} y second sample, every value > 0
-- @tparam[opt=0.95] number confidence in (0, 1)
-- @treturn number lower bound (NaN when not available, or a value <= 0)
-- @treturn number upper bound
function D.ratio_ci(x, y, confidence)
  for i = 1, #x do
    if type(x[i]) ~= "number" then error("ratio_ci: x[" .. i .. "] is not a number", 2) end
  end
  for j = 1, #y do
    if type(y[j]) ~= "number" then error("ratio_ci: y[" .. j .. "] is not a number", 2) end
  end
  if #x < 1 or #y < 1 then error("ratio_ci: both samples need at least one value", 2) end
  local a, b = sorted_copy(x, "x", "ratio_ci"), sorted_copy(y, "y", "ratio_ci")
  if not a or not b then return NAN, NAN end
  return D._ratio_ci_sorted(a, b, confidence)
end

--- ratio_ci of two sorted samples without NaN (no checks); takes them
-- over (their values become logarithms).
function D._ratio_ci_sorted(a, b, confidence)
  if not (a[1] > 0 and b[1] > 0 and a[#a] < math.huge and b[#b] < math.huge) then return NAN, NAN end
  for i = 1, #a do a[i] = math.log(a[i]) end -- the log keeps the order
  for j = 1, #b do b[j] = math.log(b[j]) end
  local lo, hi = D._shift_ci_sorted(a, b, confidence)
  return math.exp(lo), math.exp(hi)
end

--- Benjamini-Hochberg q-values (adjusted p-values) of a list of p-values:
-- with the m p-values that are numbers sorted ascending,
-- q_(i) = min over j >= i of m p_(j) / j, at most 1; rejecting q < alpha
-- keeps the expected share of false discoveries below alpha.
-- @tparam {number,...} p p-values; NaN entries (untested) are left out
-- @treturn {number,...} q-values in the same positions (NaN where p is)
function D.bh_qvalues(p)
  local idx, q = {}, {}
  for i = 1, #p do
    q[i] = NAN
    if p[i] == p[i] then idx[#idx + 1] = i end
  end
  table.sort(idx, function(i, j)
    if p[i] ~= p[j] then return p[i] < p[j] end
    return i < j
  end)
  local m, run = #idx, 1.0
  for r = m, 1, -1 do
    local v = p[idx[r]] * m / r
    if v < run then run = v end
    q[idx[r]] = run
  end
  return q
end

--- A difference or ratio without float noise: `x` rounded to 12
-- significant digits of `scale` (the larger operand), and 0 below that:
-- b - a of two timings equal in ticks gives 0, not 2.27e-14.
-- @tparam number x the difference
-- @tparam number scale the magnitude of its operands
-- @treturn number
local function clean(x, scale)
  if x ~= x or x == 0 or scale ~= scale or scale == 0 or math.abs(x) == math.huge then return x end
  local e_scale = math.floor(math.log(math.abs(scale), 10))
  local e_x = math.floor(math.log(math.abs(x), 10))
  local digits = e_x - e_scale + 12
  if digits < 1 then return 0.0 end
  return tonumber(string.format("%." .. math.min(digits, 17) .. "g", x)) + 0.0 -- a float, even "1"
end
D.clean = clean

--- A sorted copy of a sample of durations, every value rounded to 12
-- significant digits when `round` (delegated events: their durations are
-- end/f - start/f, so equal tick counts give values that differ in the
-- last bits, which a rank test would count as different; the others are
-- ticks/f, equal for equal ticks).
-- @tparam {number,...} raw
-- @tparam boolean round
-- @treturn {number,...}|nil floats, ascending; nil when one is NaN
local function sorted_samples(raw, round)
  local out = {}
  for i = 1, #raw do
    local v = raw[i]
    if v ~= v then return nil end
    if round and v ~= math.huge and v ~= -math.huge and v ~= 0 then
      v = tonumber(string.format("%.12g", v))
    end
    out[i] = v + 0.0
  end
  table.sort(out)
  return out
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
--   occurrence, delegated, runs, p50, avg, raw, perf_data} (times in the
--   target time scale)
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
          delegated = ev.is_delegated_op, runs = #pd, p50 = pd.p50, avg = pd.avg, raw = pd.raw,
          perf_data = pd,
        }
      end
    end
  end
  return list
end

--- The Inspectors of one side of a diff: an Inspector, a sequence of
-- Inspectors, or a Dumps (etinspect.open_many).
-- @param v the argument
-- @tparam string label "diff: argument 1 (A)", for the messages
-- @treturn {Inspector,...} at least one
-- @raise "diff: argument 1 (A) is not an Inspector" (nor a sequence of
--   them, nor a Dumps), "diff: argument 1 (A) is not an Inspector (an
--   empty sequence)", "diff: argument 1 (A)[2] is not an Inspector"
local function side_of(v, label)
  if is_inspector(v) then return { v } end
  local mt = getmetatable(v)
  local list
  if type(v) == "table" and type(mt) == "table" and mt.__name == "Dumps" then
    list = v.inspectors
  elseif type(v) == "table" and mt == nil then
    list = v
  else
    error(label .. " is not an Inspector", 3)
  end
  if #list == 0 then error(label .. " is not an Inspector (an empty sequence)", 3) end
  local out = {}
  for i = 1, #list do
    if not is_inspector(list[i]) then
      error(string.format("%s[%d] is not an Inspector", label, i), 3)
    end
    out[i] = list[i]
  end
  return out
end

--- The events of one side, pooled over its Inspectors: `collect` of
-- each, the entries of the same match key (block, name, instruction id,
-- delegate identifier, occurrence in its dump) merged into one whose raw
-- samples are those of every dump in order, with the p50 (NumPy's linear
-- percentile) and the mean (pairwise sum) of the pooled samples.  One
-- Inspector: its entries as they are (its own p50 and avg).  Keys in the
-- order they are first seen (the first dump's events, then what the
-- next dumps add).  Also D.pool.
-- @tparam {Inspector,...} list at least one
-- @treturn {table,...} entries {key, block, event, instruction_id, ddi
--   (the delegate debug identifier or nil), occurrence, delegated, runs,
--   p50, avg, raw (the pooled samples, in dump then run order), perf_data
--   (the PerfData when there is one Inspector, else nil)}
local function collect_side(list)
  if #list == 1 then return collect(list[1]) end
  local out, by_key = {}, {}
  for _, insp in ipairs(list) do
    for _, e in ipairs(collect(insp)) do
      local p = by_key[e.key]
      if not p then
        p = { key = e.key, block = e.block, event = e.event, instruction_id = e.instruction_id,
              ddi = e.ddi, occurrence = e.occurrence, delegated = e.delegated, raw = {} }
        by_key[e.key] = p
        out[#out + 1] = p
      end
      local raw = p.raw
      for i = 1, #e.raw do raw[#raw + 1] = e.raw[i] end
    end
  end
  for _, p in ipairs(out) do
    p.runs = #p.raw
    p.p50 = core.agg(p.raw, "quantile", 0.5)
    p.avg = core.agg(p.raw, "mean")
  end
  return out
end

--- The events of a set of dumps with their samples pooled, as each side
-- of a diff pools them (the benchmark script's numbers).
-- @tparam Inspector|{Inspector,...}|Dumps dumps
-- @treturn {table,...} one entry per event with perf data: {key, block,
--   event, instruction_id, ddi, occurrence, delegated, runs, p50, avg,
--   raw, perf_data} (see collect_side)
-- @raise "pool: argument 1 is not an Inspector" (nor a sequence of them,
--   nor a Dumps); "pool: the Inspectors have different target time scales"
function D.pool(dumps)
  local list = side_of(dumps, "pool: argument 1")
  for i = 2, #list do
    if list[i].target_time_scale ~= list[1].target_time_scale then
      error("pool: the Inspectors have different target time scales", 2)
    end
  end
  return collect_side(list)
end

--- The regression gate of a diff's rows: the matched events significantly
-- slower (q_value < alpha) whose ratio interval lies entirely above
-- 1 + fail_above / 100.
-- @tparam {table,...} rows diff's rows, in their order
-- @tparam number fail_above the threshold in percent (>= 0)
-- @tparam number alpha
-- @treturn table the gate (see D.diff)
local function gate_of(rows, fail_above, alpha)
  local limit = 1 + fail_above / 100
  local events = {}
  for _, r in ipairs(rows) do
    if r.status == "matched" and r.significant and r.ratio_low > limit then
      events[#events + 1] = {
        block = r.block, event = r.event, instruction_id = r.instruction_id,
        delegate_debug_identifier = r.delegate_debug_identifier, occurrence = r.occurrence,
        p50_a = r.p50_a, p50_b = r.p50_b, ratio = r.ratio, ratio_low = r.ratio_low,
        ratio_high = r.ratio_high, q_value = r.q_value,
      }
    end
  end
  return { verdict = #events > 0 and "regression" or "pass", fail_above = fail_above,
           limit = limit, alpha = alpha, regressions = events }
end

--- The lines that end a gated diff on the command line: the verdict,
-- then one line per regressed event with its ratio and interval.
-- @tparam table gate the second value of D.diff
-- @treturn string text ending in a newline, e.g.
--   "diff: regression: 1 event significantly (q < 0.05) more than 5% slower ...\n
--     Execute  native_call_convolution.out  (instruction 0)  ratio 1.34072  [1.31492, 1.35912]  q 0.0076123\n"
-- @raise "gate_summary: not a gate" for another value
function D.gate_summary(gate)
  if type(gate) ~= "table" or type(gate.regressions) ~= "table" then
    error("gate_summary: not a gate", 2)
  end
  local pct = core.repr(gate.fail_above + 0.0):gsub("%.0$", "")
  local q = core.repr(gate.alpha + 0.0)
  local n = #gate.regressions
  if n == 0 then
    return string.format("diff: pass: no matched event is significantly (q < %s) more than %s%% slower\n",
                         q, pct)
  end
  local lines = { string.format("diff: regression: %d event%s significantly (q < %s) more than %s%% " ..
    "slower (ratio interval above %s):", n, n == 1 and "" or "s", q, pct, core.repr(gate.limit + 0.0)) }
  local g = string.format("%%.%dg", 6)
  for _, e in ipairs(gate.regressions) do
    local key = string.format("instruction %s", tostring(e.instruction_id))
    if e.delegate_debug_identifier ~= nil then
      key = key .. ", delegate " .. tostring(e.delegate_debug_identifier)
    end
    if e.occurrence > 1 then key = key .. ", occurrence " .. e.occurrence end
    lines[#lines + 1] = string.format("  %s  %s  (%s)  ratio %s  [%s, %s]  q %s", e.block, e.event, key,
      g:format(e.ratio), g:format(e.ratio_low), g:format(e.ratio_high), g:format(e.q_value))
  end
  return table.concat(lines, "\n") .. "\n"
end

local OPTION_TYPES = { alpha = "number", min_runs = "integer", include_units = "boolean",
                       confidence = "number", fail_above = "number" }

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
--   delta       p50_b - p50_a; -p50_a for an event only in A, p50_b for
--               one only in B,
--   ratio       p50_b / p50_a (NaN when p50_a is 0),
--   ratio_low, ratio_high  the `confidence` interval of the ratio of B's
--               durations to A's (ratio_ci: Hodges-Lehmann / Moses on the
--               log durations), when the event is tested and every
--               duration is > 0,
--   avg_a, avg_b     means,
--   avg_delta   avg_b - avg_a (-avg_a only in A, avg_b only in B),
--   p_value     two-sided Mann-Whitney U test of the raw samples
--               (`perf_data.raw`; a delegated event's rounded to 12
--               significant digits, as for the interval), when both
--               sides have at least `min_runs` samples,
--   q_value     Benjamini-Hochberg q-value of p_value over every tested
--               event,
--   significant q_value < alpha; nil when not tested.
-- Differences and ratios are rounded to 12 significant digits of their
-- operands (no float noise: equal timings give 0).  A missing number is
-- NaN, as in the other frames.  Rows are sorted by |delta|, largest
-- first; equal ones keep the order matched events of A, then events only
-- in B.  When fewer than half the events of A or of B match, a warning
-- (through etinspect.on_warning) says the dumps may be of different
-- models.
--
-- Sets against sets: each side may be several dumps (a sequence of
-- Inspectors, or the Dumps of etinspect.open_many).  Each event's samples
-- are then pooled over the dumps of its side (its key, occurrence
-- included, as in one dump), runs_a and runs_b count the pooled samples,
-- p50 and avg are those of the pooled samples (NumPy's linear percentile
-- and mean, as for one dump); one Inspector gives its own p50 and avg.
--
-- The gate: with `fail_above` (a percentage >= 0), a second value says
-- whether the change is a regression: a matched event is one when it is
-- significant (q_value < alpha) and its whole ratio interval is above
-- 1 + fail_above / 100 (ratio_low > that limit).  It is a table
--   {verdict = "regression" | "pass", fail_above = PCT, limit = 1 + PCT/100,
--    alpha = alpha, regressions = {event, ...}}
-- each event {block, event, instruction_id, delegate_debug_identifier,
-- occurrence, p50_a, p50_b, ratio, ratio_low, ratio_high, q_value}, in
-- the rows' order.  Without fail_above the second value is nil.
-- @tparam Inspector|{Inspector,...}|Dumps a the baseline ("A")
-- @tparam Inspector|{Inspector,...}|Dumps b the dumps compared to it ("B")
-- @tparam[opt] table opts `alpha` (false discovery rate for
--   `significant`, default 0.05, 0 < alpha < 1), `min_runs` (fewest
--   samples on each side for a test, default 5, an integer >= 1),
--   `confidence` (of the ratio interval, default 0.95, in (0, 1)),
--   `include_units` (default false), `fail_above` (the gate's threshold
--   in percent, >= 0; default none); checked by the options contract
-- @treturn Frame
-- @treturn table|nil the gate (with fail_above)
-- @raise "diff: argument 1 (A) is not an Inspector" (or 2, B; also for
--   an empty sequence, with "(an empty sequence)"), "diff: argument 1
--   (A)[2] is not an Inspector";
--   "diff: the Inspectors have different target time scales (A: ms, B: us)"
--   (or within one side); "etinspect.diff: unknown option 'x' (accepted:
--   ...)", a wrong type; an alpha, confidence, min_runs or fail_above out
--   of range
function D.diff(a, b, opts)
  local sa, sb = side_of(a, "diff: argument 1 (A)"), side_of(b, "diff: argument 2 (B)")
  core.check_options("etinspect.diff", opts, OPTION_TYPES, 3)
  opts = opts or {}
  local alpha = opts.alpha == nil and 0.05 or opts.alpha
  if not (alpha > 0 and alpha < 1) then
    error("diff: alpha must be a number between 0 and 1, got " .. tostring(opts.alpha), 2)
  end
  local confidence = opts.confidence == nil and 0.95 or opts.confidence
  if not (confidence > 0 and confidence < 1) then
    error("diff: confidence must be a number between 0 and 1, got " .. tostring(opts.confidence), 2)
  end
  local min_runs = opts.min_runs == nil and 5 or math.tointeger(opts.min_runs)
  if min_runs < 1 then
    error("diff: min_runs must be an integer >= 1, got " .. tostring(opts.min_runs), 2)
  end
  local fail_above = opts.fail_above
  if fail_above ~= nil and not (fail_above >= 0 and fail_above < math.huge) then
    error("diff: fail_above must be a percentage >= 0, got " .. tostring(fail_above), 2)
  end
  for s, list in ipairs({ sa, sb }) do
    for i = 2, #list do
      if list[i].target_time_scale ~= list[1].target_time_scale then
        error(string.format("diff: the Inspectors of %s have different target time scales (1: %s, %d: %s)",
          s == 1 and "A" or "B", list[1].target_time_scale, i, list[i].target_time_scale), 2)
      end
    end
  end
  local unit_a, unit_b = sa[1].target_time_scale, sb[1].target_time_scale
  if unit_a ~= unit_b then
    error(string.format("diff: the Inspectors have different target time scales (A: %s, B: %s)",
      unit_a, unit_b), 2)
  end

  local la, lb = collect_side(sa), collect_side(sb)
  local by_key = {}
  for _, e in ipairs(lb) do by_key[e.key] = e end
  local rows, matched, n_matched = {}, {}, 0
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
      delta = NAN, ratio = NAN, ratio_low = NAN, ratio_high = NAN, p_value = NAN, q_value = NAN,
    }
    if ea and eb then
      r.status = "matched"
      r.delta = clean(eb.p50 - ea.p50, math.max(math.abs(ea.p50), math.abs(eb.p50)))
      if ea.p50 ~= 0 then r.ratio = clean(eb.p50 / ea.p50, eb.p50 / ea.p50) end
      r.avg_delta = clean(eb.avg - ea.avg, math.max(math.abs(ea.avg), math.abs(eb.avg)))
      if ea.runs >= min_runs and eb.runs >= min_runs then
        local delegated = ea.ddi ~= nil
        local xa, xb = sorted_samples(ea.raw, delegated), sorted_samples(eb.raw, delegated)
        if xa and xb then
          local _, p = D._mwu_sorted(xa, xb)
          r.p_value = p
          local lo, hi = D._ratio_ci_sorted(xa, xb, confidence)
          r.ratio_low, r.ratio_high = clean(lo, lo), clean(hi, hi)
        end
      end
    elseif ea then
      r.status = "only in A"
      r.delta, r.avg_delta = -ea.p50, -ea.avg
    else
      r.status = "only in B"
      r.delta, r.avg_delta = eb.p50, eb.avg
    end
    rows[#rows + 1] = r
  end
  for _, ea in ipairs(la) do
    local eb = by_key[ea.key]
    if eb then matched[eb] = true; n_matched = n_matched + 1 end
    row(ea, eb)
  end
  for _, eb in ipairs(lb) do
    if not matched[eb] then row(nil, eb) end
  end

  -- Benjamini-Hochberg over the tested events
  local ps = {}
  for i, r in ipairs(rows) do ps[i] = r.p_value end
  local qs = D.bh_qvalues(ps)
  for i, r in ipairs(rows) do
    if qs[i] == qs[i] then
      r.q_value = qs[i]
      r.significant = qs[i] < alpha
    end
  end

  if 2 * n_matched < math.max(#la, #lb) then
    core.warn(string.format("diff: only %d of A's %d and B's %d events match (by block, event name, "
      .. "instruction id and delegate debug identifier): the dumps may be of different models",
      n_matched, #la, #lb))
  end

  -- sort by |delta|, largest first (NaN last), stable
  local order = {}
  for i = 1, #rows do order[i] = i end
  --- The sort key of a row: |delta|, -1 for NaN.
  local function mag(r) local d = math.abs(r.delta); return d == d and d or -1 end
  table.sort(order, function(i, j)
    local mi, mj = mag(rows[i]), mag(rows[j])
    if mi ~= mj then return mi > mj end
    return i < j
  end)
  local sorted = {}
  for i, k in ipairs(order) do sorted[i] = rows[k] end
  local gate = fail_above ~= nil and gate_of(sorted, fail_above, alpha) or nil

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
    "ratio", "ratio_low", "ratio_high", names.avg_a, names.avg_b, names.avg_delta, "p_value",
    "q_value", "significant" }, sorted), gate
end

--- The columns the command line shows in its box, plain and markdown
-- formats (tsv, csv and json show every column of diff, in its order);
-- q_value comes last, so that no line of the plain format ends in padding.
-- @tparam string unit the target time scale
-- @treturn {string,...}
function D.display_columns(unit)
  local u = " (" .. unit .. ")"
  return { "block", "event", "instruction_id", "status", "p50_a" .. u, "p50_b" .. u,
           "delta" .. u, "ratio", "ratio_low", "ratio_high", "significant", "q_value" }
end

return D
