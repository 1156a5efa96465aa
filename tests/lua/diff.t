#!/usr/bin/env etinspect
-- diff.t - etinspect.diff (A/B comparison of two dumps), its statistics
-- (erfc, the Mann-Whitney U test) and the bundled `diff` script.
--
-- Reference values: erfc from the C library (Python's math.erfc); the
-- Mann-Whitney p-values as scipy.stats.mannwhitneyu(x, y,
-- method="asymptotic") computes them (the scipy documentation's example,
-- and the formula worked by hand below).
package.path = (os.getenv("ET_SRC") or ".") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"
local etinspect = require "etinspect"
local D = require "etinspect.diff"
local warnings = {}
etinspect.on_warning(function(m) warnings[#warnings + 1] = m end)

local fixtures = t.build .. "/fixtures/"
if not t.exists(fixtures .. "sample.etdp") then t.skip_all(fixtures .. "sample.etdp not built (run make)") end
local bin = os.getenv("ETINSPECT") or "etinspect"

local sh = t.run

local function q(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local function open(path, opts)
  opts = opts or {}
  opts.etdump_path = path
  return etinspect.Inspector(opts)
end

local function nan(x) return x ~= x end

-------------------------------------------------------------------------------
-- erfc and the normal tail

t.is(etinspect.diff, D.diff, "etinspect.diff is the module's diff")
local erfc_ref = {
  { 0, 1.0 }, { 1e-10, 0.999999999887162 }, { 0.1, 0.8875370839817152 },
  { 0.5, 0.4795001221869535 }, { 0.9, 0.20309178757716786 }, { 1, 0.15729920705028513 },
  { 1.5, 0.033894853524689274 }, { 2, 0.004677734981047265 }, { 2.5, 0.0004069520174449589 },
  { 3, 2.2090496998585438e-05 }, { 4, 1.541725790028002e-08 }, { 5, 1.5374597944280351e-12 },
  { 6, 2.1519736712498916e-17 }, { 8, 1.1224297172982928e-29 }, { 10, 2.088487583762545e-45 },
  { 15, 7.212994172451206e-100 }, { 20, 5.3958656116079005e-176 }, { 26, 5.663192408856143e-296 },
  { -0.5, 1.5204998778130465 }, { -1, 1.842700792949715 }, { -3, 1.9999779095030015 },
}
local worst = 0
for _, c in ipairs(erfc_ref) do
  local got = D.erfc(c[1])
  worst = math.max(worst, math.abs(got - c[2]) / c[2])
end
t.ok(worst < 1e-13, "erfc: relative error below 1e-13 at 21 points from -3 to 26 (worst " .. worst .. ")")
t.is(D.erfc(math.huge), 0.0, "erfc(inf) = 0")
t.is(D.erfc(-math.huge), 2.0, "erfc(-inf) = 2")
t.ok(nan(D.erfc(0 / 0)), "erfc(NaN) is NaN")
t.is(D.normal_sf(0), 0.5, "P(Z > 0) = 1/2")
t.near(D.normal_sf(1.959963984540054), 0.025, 1e-14, "P(Z > 1.96) = 0.025")
t.near(D.normal_sf(-1.959963984540054), 0.975, 1e-14, "P(Z > -1.96) = 0.975")

-------------------------------------------------------------------------------
-- Mann-Whitney U

-- scipy's documentation: mannwhitneyu(males, females, method="asymptotic")
-- gives statistic 17.0, pvalue 0.11134688653314041
local u, p, z = D.mann_whitney_u({ 19, 22, 16, 29, 24 }, { 20, 11, 17, 12 })
t.is(u, 17.0, "MWU: scipy's example, U1 = 17")
t.near(p, 0.11134688653314041, 1e-12, "MWU: scipy's example, asymptotic p")

-- complete separation, 5 and 5: U1 = 0, U = 25, mu = 12.5,
-- sigma^2 = 25 * 11 / 12, z = (25 - 12.5 - 0.5) / sigma = 2.5067182...
u, p, z = D.mann_whitney_u({ 1, 2, 3, 4, 5 }, { 6, 7, 8, 9, 10 })
t.is(u, 0.0, "MWU: separated samples, U1 = 0")
t.near(z, 12 / math.sqrt(25 * 11 / 12), 1e-14, "MWU: separated samples, z by hand")
t.near(p, 0.012185780355344818, 1e-12, "MWU: separated 5 and 5, p = 0.0122 (not below 0.01)")

-- ties, worked by hand: x = 1 2 2 3, y = 2 3 4 5; pooled 1 2 2 2 3 3 4 5
-- ranks 1 | 3 3 3 | 5.5 5.5 | 7 | 8; R1 = 1 + 3 + 3 + 5.5 = 12.5, U1 = 2.5,
-- U = 13.5, mu = 8, ties 3^3-3 + 2^3-2 = 30,
-- sigma^2 = 16/12 * (9 - 30/56), z = 5 / sigma
u, p, z = D.mann_whitney_u({ 1, 2, 2, 3 }, { 2, 3, 4, 5 })
t.is(u, 2.5, "MWU: ties get the average rank (U1 = 2.5)")
t.near(z, 5 / math.sqrt(16 / 12 * (9 - 30 / 56)), 1e-14, "MWU: tie-corrected variance")
t.near(p, 0.13665824773814753, 1e-12, "MWU: p with ties")

local u2, p2 = D.mann_whitney_u({ 2, 3, 4, 5 }, { 1, 2, 2, 3 })
t.ok(u2 == 16 - 2.5 and p2 == p, "MWU: swapping the samples gives U2 and the same p")
u, p, z = D.mann_whitney_u({ 3, 3, 3 }, { 3, 3, 3, 3, 3 })
t.ok(u == 7.5 and p == 1 and z == 0, "MWU: all values tied: p = 1")
u, p = D.mann_whitney_u({ 1, 2, 3, 4, 5, 6 }, { 6, 5, 4, 3, 2, 1 })
t.is(p, 1.0, "MWU: the same values: p = 1 (clipped)")
u, p = D.mann_whitney_u({ 1, 0 / 0 }, { 1, 2 })
t.ok(u == nil and nan(p), "MWU: a NaN sample gives no result")
t.raises(function() D.mann_whitney_u({}, { 1 }) end, "both samples need at least one value", "MWU: an empty sample")
t.raises(function() D.mann_whitney_u({ 1, "x" }, { 1 }) end, "x%[2%] is not a number", "MWU: a non-number")

-- U1 against its definition, on random samples with many ties:
-- U1 = #{(i, j): x_i > y_j} + #{(i, j): x_i = y_j} / 2
math.randomseed(20260822)
local all_ok = true
for _ = 1, 50 do
  local x, y = {}, {}
  for i = 1, math.random(1, 30) do x[i] = math.random(1, 12) end
  for i = 1, math.random(1, 30) do y[i] = math.random(1, 12) / (math.random() < 0.5 and 1 or 2) end
  local want = 0
  for _, xi in ipairs(x) do
    for _, yj in ipairs(y) do
      if xi > yj then want = want + 1 elseif xi == yj then want = want + 0.5 end
    end
  end
  local got, pv = D.mann_whitney_u(x, y)
  if got ~= want or not (pv >= 0 and pv <= 1) then all_ok = false end
end
t.ok(all_ok, "MWU: U1 equals its pairwise definition on 50 random samples with ties")

-- the normal quantile, the intervals, the q-values, the noise rounding
t.near(D.normal_isf(0.025), 1.959963984540054, 1e-14, "normal_isf(0.025) = 1.95996...")
t.near(D.normal_isf(0.975), -1.959963984540054, 1e-14, "normal_isf(0.975) = -1.95996...")
t.ok(nan(D.normal_isf(0)) and nan(D.normal_isf(1)), "normal_isf outside (0, 1): NaN")
local x10, y10 = {}, {}
for i = 1, 10 do x10[i], y10[i] = i, i + 10 end
-- 100 differences, d taking 10 - |d - 10| of them; C = floor(50 - 1.96
-- sqrt(175)) = 24: the 24th smallest is 7 (21 are <= 6, 28 <= 7), the
-- 24th largest 13 (the exact test's critical U for 10 and 10 is 23, so
-- the exact interval is the same)
t.is(table.concat({ D.shift_ci(x10, y10) }, " "), "7.0 13.0", "shift_ci: 1..10 vs 11..20, by hand")
local lo, hi = D.shift_ci(x10, x10)
t.ok(lo == -hi and lo < 0, "shift_ci: a sample against itself: symmetric around 0")
t.is(table.concat({ D.shift_ci({ 1, 2 }, { 3, 4 }) }, " "), "nan nan", "shift_ci: too few values for 95%: NaN")
t.is(table.concat({ D.shift_ci({ 3, 3 }, { 3, 3, 3 }) }, " "), "nan nan", "shift_ci: all tied: NaN")
local x2, y2 = {}, {}
for i = 1, 12 do x2[i] = 1 + i / 7; y2[i] = 2 * x2[i] end
lo, hi = D.ratio_ci(x2, y2)
t.ok(lo < 2 and hi > 2 and math.abs(lo * hi - 4) < 1e-12, "ratio_ci: B = 2 A: an interval around 2, symmetric in log")
t.is(table.concat({ D.ratio_ci({ 1, 0, 2, 3, 4 }, { 1, 2, 3, 4, 5 }) }, " "), "nan nan", "ratio_ci: a duration of 0: NaN")
t.raises(function() D.ratio_ci({ 1, "x" }, { 1 }) end, "ratio_ci: x%[2%] is not a number", "ratio_ci: a non-number")
-- the interval's bounds against all n1 n2 differences, sorted: the C-th
-- smallest and largest (nil, nil when C < 1 or every value ties)
local function brute(x, y, conf)
  local diffs = {}
  for _, xi in ipairs(x) do for _, yj in ipairs(y) do diffs[#diffs + 1] = (yj + 0.0) - (xi + 0.0) end end
  table.sort(diffs)
  local pooled, ties = {}, 0
  for _, v in ipairs(x) do pooled[v] = (pooled[v] or 0) + 1 end
  for _, v in ipairs(y) do pooled[v] = (pooled[v] or 0) + 1 end
  for _, c in pairs(pooled) do ties = ties + c * c * c - c end
  local n1, n2 = #x, #y
  local var = n1 * n2 / 12 * ((n1 + n2 + 1) - ties / ((n1 + n2) * (n1 + n2 - 1)))
  local c = math.floor(n1 * n2 / 2 - D.normal_isf((1 - conf) / 2) * math.sqrt(var))
  if c < 1 or not (var > 0) then return nil, nil end
  return diffs[c], diffs[n1 * n2 + 1 - c]
end
-- random samples with ties, at several confidences
local ci_ok = true
for k = 1, 40 do
  local x, y = {}, {}
  for i = 1, math.random(3, 25) do x[i] = math.random(1, 9) / 4 end
  for i = 1, math.random(3, 25) do y[i] = math.random(1, 9) / 4 + (k % 3) end
  local conf = ({ 0.5, 0.9, 0.95, 0.99 })[k % 4 + 1]
  local wl, wh = brute(x, y, conf)
  local gl, gh = D.shift_ci(x, y, conf)
  ci_ok = ci_ok and (wl and gl == wl and gh == wh or not wl and nan(gl) and nan(gh))
end
t.ok(ci_ok, "shift_ci: the C-th smallest and largest of the sorted differences, on 40 random samples with ties")
-- larger samples: durations in whole ticks / 1e6 (differences equal in
-- value but not as doubles), and magnitudes from 1e-300 to 1e300
local big_ok, cases = true, 0
for k = 1, 6 do
  local x, y = {}, {}
  for i = 1, 100 + 7 * k do x[i] = math.random(470, 530) / 1e6 end
  for i = 1, 120 + 5 * k do y[i] = math.random(470 + k, 530 + 3 * k) / 1e6 end
  if k == 6 then
    for i = 1, 20 do x[i] = 10.0 ^ math.random(-300, 300); y[i] = -(10.0 ^ math.random(-300, 300)) end
  end
  local conf = k % 2 == 0 and 0.95 or 0.99
  local wl, wh = brute(x, y, conf)
  local gl, gh = D.shift_ci(x, y, conf)
  big_ok = big_ok and gl == wl and gh == wh
  cases = cases + 1
end
t.ok(big_ok and cases == 6, "shift_ci: exact on samples of 100 to 150 ticks/1e6 (float-noise clusters) and extreme magnitudes")
local qv = D.bh_qvalues({ 0.01, 0.04, 0 / 0, 0.03, 0.5 })
t.is(("%.4g %.4g %s %.4g %.4g"):format(qv[1], qv[2], tostring(qv[3]), qv[4], qv[5]), "0.04 0.05333 nan 0.05333 0.5",
  "bh_qvalues: by hand (m = 4; NaN left out)")
t.is(D.bh_qvalues({ 0.9, 0.8 })[2], 0.9, "bh_qvalues: monotone (min over the larger p's)")
t.is(D.clean(0.1 + 0.2 - 0.3, 0.3), 0.0, "clean: float noise below 12 digits of the operands is 0")
t.is(D.clean(90.25 / 121, 90.25 / 121), 0.745867768595, "clean: 12 significant digits")
t.is(D.clean(-36.5, 166.75), -36.5, "clean: an exact difference stays")

-------------------------------------------------------------------------------
-- diff on the fixtures

local sample = open(fixtures .. "sample.etdp")
local d = etinspect.diff(sample, open(fixtures .. "sample.etdp"))
t.is(table.concat(d.columns, ","),
  "block,event,instruction_id,delegate_debug_identifier,occurrence,status,runs_a,runs_b," ..
  "p50_a,p50_b,delta,ratio,ratio_low,ratio_high,avg_a,avg_b,avg_delta,p_value,q_value,significant", "diff: the columns")
local same = #d == 10
for _, r in d:rows() do
  same = same and r.status == "matched" and r.delta == 0 and r.ratio == 1 and r.avg_delta == 0
    and nan(r.p_value) and nan(r.q_value) and nan(r.ratio_low) and r.significant == nil
end
t.ok(same, "diff: sample against itself: 10 matched events, no change, untested (3 runs < 5)")
d = etinspect.diff(sample, sample, { min_runs = 3 })
local execute = d:filter(function(r) return r.block == "Execute" end)
local all_one = #execute == 8
for _, r in execute:rows() do all_one = all_one and r.p_value == 1 and r.significant == false end
t.ok(all_one, "diff: min_runs = 3 tests the 3-run events: p = 1, not significant")

-- sample (conv, delegate, addmm) against delegates (another model)
local delegates = open(fixtures .. "delegates.etdp")
warnings = {}
d = etinspect.diff(sample, delegates)
t.is(warnings[1], "diff: only 1 of A's 10 and B's 9 events match (by block, event name, instruction id and "
  .. "delegate debug identifier): the dumps may be of different models", "diff: unrelated dumps: a warning")
t.is(#warnings, 1, "... one")
warnings = {}
etinspect.diff(sample, sample)
t.is(#warnings, 0, "diff: the same dump: no warning")
local count = {}
for _, r in d:rows() do count[r.status] = (count[r.status] or 0) + 1 end
t.is(("%d %d %d"):format(count.matched or 0, count["only in A"] or 0, count["only in B"] or 0),
  "1 9 8", "diff: sample vs delegates: 1 matched, 9 only in A, 8 only in B")
t.ok(d[1].event == "Method::execute" and d[1].status == "matched", "diff: Method::execute changed most")
local r = d:filter(function(x) return x.event == "native_call_convolution.out" end)[1]
t.ok(r.status == "only in A" and r.runs_b == 0 and nan(r.p50_b) and r.delta == -r.p50_a and nan(r.ratio)
  and r.avg_delta == -r.avg_a and r.significant == nil and nan(r.q_value),
  "diff: an event only in A: NaN for B, delta = -p50_a, avg_delta = -avg_a")
r = d:filter(function(x) return x.event == "conv_node (us)" end)[1]
t.ok(r.status == "only in B" and r.delegate_debug_identifier == "conv_node (us)" and r.runs_a == 0
  and r.delta == r.p50_b and r.avg_delta == r.avg_b, "diff: an event only in B, with its delegate identifier")
local sorted = true
for i = 2, #d do sorted = sorted and math.abs(d[i - 1].delta) >= math.abs(d[i].delta) end
t.ok(sorted, "diff: rows sorted by |delta| (of the medians), largest first")
t.is(etinspect.diff(sample, delegates, nil) and #etinspect.diff(sample, delegates), 18, "diff: nil options")
r = etinspect.diff(delegates, sample):filter(function(x) return x.event == "0" end)
t.ok(#r == 2 and r[1].instruction_id ~= r[2].instruction_id, "diff: the instruction id is part of the key (delegate 0 at instruction 0 vs 1)")

-- the A/B fixtures: convolution 25% faster, relu unchanged (noise), addmm
-- replaced by linear; 6 runs each (complete separation of 6 and 6 gives
-- p = 0.00507; three events tested, so q = 3 p / 2 = 0.00761 for the two
-- smallest)
local da = open(fixtures .. "diff_a.etdp", { target_time_scale = "us" })
local db = open(fixtures .. "diff_b.etdp", { target_time_scale = "us" })
d = etinspect.diff(da, db)
local by = {}
for _, x in d:rows() do by[x.event] = x end
t.ok(by["native_call_convolution.out"].significant == true and by["Method::execute"].significant == true,
  "diff: the faster convolution and Method::execute are significant")
t.near(by["Method::execute"].q_value, 0.005074868097940257 * 3 / 2, 1e-15, "diff: q of the larger of the two small p (3 p / 2)")
t.near(by["native_call_convolution.out"].q_value, 0.005074868097940257 * 3 / 2, 1e-15,
  "diff: q of the smallest p: min(3 p, the next q)")
t.is(by["native_call_relu.out"].q_value, by["native_call_relu.out"].p_value, "diff: q of the largest p: p itself")
t.is(("%.6g %.6g"):format(by["native_call_convolution.out"].ratio_low, by["native_call_convolution.out"].ratio_high),
  "0.735772 0.760504", "diff: the 95% interval of the convolution's ratio")
t.ok(by["native_call_relu.out"].ratio_low < 1 and by["native_call_relu.out"].ratio_high > 1,
  "diff: relu's interval contains 1")
t.near(by["Method::execute"].p_value, 0.005074868097940257, 1e-12, "diff: p of two separated 6-run samples")
t.near(by["native_call_convolution.out"].p_value, 0.004998124765082467, 1e-12, "diff: p with a tie in B")
t.near(by["native_call_convolution.out"].delta, 90.25 - 121, 1e-12, "diff: delta of the p50s (us)")
t.is(by["native_call_convolution.out"].ratio, 0.745867768595, "diff: ratio of the p50s, to 12 significant digits")
t.ok(by["native_call_relu.out"].significant == false, "diff: relu's noise is not significant")
t.near(by["native_call_relu.out"].p_value, 0.9357362806427562, 1e-12, "diff: relu's p (with ties)")
t.ok(by["native_call_addmm.out"].status == "only in A" and by["native_call_linear.out"].status == "only in B",
  "diff: the replaced kernel is only in A, its replacement only in B")
t.ok(etinspect.diff(da, db, { alpha = 0.001 }):filter(function(x) return x.significant end)[1] == nil,
  "diff: with alpha = 0.001 nothing is significant")
d = etinspect.diff(da, db, { include_units = true })
t.ok(d.columns[9] == "p50_a (us)" and d.columns[17] == "avg_delta (us)" and d[1]["delta (us)"] == -36.5
  and d[1].delta == nil, "diff: include_units names the time columns with the unit")

-- errors
t.raises(function() etinspect.diff(sample, open(fixtures .. "sample.etdp", { target_time_scale = "us" })) end,
  "different target time scales %(A: ms, B: us%)", "diff: different target time scales raise")
t.raises(function() etinspect.diff(sample, {}) end, "argument 2 %(B%) is not an Inspector", "diff: B not an Inspector")
t.raises(function() etinspect.diff("x", sample) end, "argument 1 %(A%) is not an Inspector", "diff: A not an Inspector")
t.raises(function() etinspect.diff(sample, sample, { alpah = 1 }) end,
  "etinspect.diff: unknown option 'alpah' %(accepted: alpha, confidence, fail_above, include_units, min_runs%)",
  "diff: an unknown option, through the options contract")
t.raises(function() etinspect.diff(sample, sample, { alpha = "0.05" }) end,
  "etinspect.diff: option 'alpha' must be a number, got string", "diff: a wrong type")
t.raises(function() etinspect.diff(sample, sample, { min_runs = 2.5 }) end,
  "option 'min_runs' must be an integer, got number", "diff: min_runs not an integer")
t.raises(function() etinspect.diff(sample, sample, 5) end, "etinspect.diff: bad argument #3 %(options table expected",
  "diff: options not a table")
t.raises(function() etinspect.diff(sample, sample, { confidence = 1 }) end,
  "confidence must be a number between 0 and 1", "diff: confidence out of range")
t.raises(function() etinspect.diff(sample, sample, { alpha = 1 }) end, "alpha must be a number between 0 and 1",
  "diff: alpha out of range")
t.raises(function() etinspect.diff(sample, sample, { min_runs = 0 }) end, "min_runs must be an integer >= 1",
  "diff: min_runs out of range")

-------------------------------------------------------------------------------
-- the CLI script

local A, B = fixtures .. "diff_a.etdp", fixtures .. "diff_b.etdp"
local out, st = sh(bin .. " diff " .. q(A) .. " " .. q(B) .. " --format tsv")
t.ok(st == 0 and out:find("^\tblock\tevent\tinstruction_id\tdelegate_debug_identifier\toccurrence\tstatus\t" ..
  "runs_a\truns_b\tp50_a %(ms%)\tp50_b %(ms%)\tdelta %(ms%)\tratio\tratio_low\tratio_high\tavg_a %(ms%)\t" ..
  "avg_b %(ms%)\tavg_delta %(ms%)\tp_value\tq_value\tsignificant\n0\tExecute\tMethod::execute\t0\t\t1\t" ..
  "matched\t6\t6\t"),
  "CLI: diff A B --format tsv: every column, exit 0")
local tmp = os.tmpname()
out, st = sh(bin .. " diff " .. q(A) .. " " .. q(B) .. " --top 2 --format plain --tsv_path " .. q(tmp))
local lines = {}
for l in out:gmatch("[^\n]+") do lines[#lines + 1] = l end
t.ok(st == 0 and #lines == 3 and lines[1]:find("^block +event +instruction_id +status +p50_a %(ms%)")
  and lines[1]:find("ratio +ratio_low +ratio_high +significant +q_value$") and lines[3]:find("convolution"),
  "CLI: --top 2, plain: the compact columns")
local tsv = t.exists(tmp) and t.read(tmp) or ""
local n = select(2, tsv:gsub("\n", ""))
t.ok(n == 6 and tsv:find("^\tblock\tevent\t") and tsv:find("only in B"), "CLI: --tsv_path writes every row (header + 5)")
os.remove(tmp)
out, st = sh(bin .. " diff " .. q(A) .. " " .. q(B) .. " --alpha 0.001 --format csv")
t.ok(st == 0 and not out:find("True"), "CLI: --alpha")
out, st = sh(bin .. " diff " .. q(A) .. " " .. q(B) .. " --confidence 0.5 --format csv")
local c50 = out:match("\n0,Execute,Method::execute,0,,1,matched,6,6,[^,]*,[^,]*,[^,]*,[^,]*,([^,]*),")
t.ok(st == 0 and tonumber(c50) and tonumber(c50) > 0.774328, "CLI: --confidence 0.5 narrows the interval")
out, st = sh(bin .. " diff " .. q(A) .. " " .. q(B) .. " --confidence 1")
t.ok(st == 2 and out:find("%-%-confidence must be between 0 and 1"), "CLI: bad --confidence: exit 2")
out, st = sh(bin .. " diff " .. q(A))
t.ok(st == 2 and out:find("diff: missing argument 'B'", 1, true), "CLI: one path: usage error, exit 2")
out, st = sh(bin .. " diff " .. q(A) .. " " .. q(B) .. " --alpha 5")
t.ok(st == 2 and out:find("%-%-alpha must be between 0 and 1"), "CLI: bad --alpha: exit 2")
out, st = sh(bin .. " diff " .. q(A) .. " /nonexistent.etdp")
t.ok(st == 1 and out:find("No such file or directory"), "CLI: an unreadable B: exit 1")
out, st = sh(bin .. " diff " .. q(A) .. " " .. q(B) .. " --tsv_path /nonexistent/dir/out.tsv")
t.ok(st == 1 and out:find("etinspect: error: %-%-tsv_path: ") and out:find("/nonexistent/dir")
  and not out:find("traceback"), "CLI: an unwritable --tsv_path: exit 1, no traceback")
local copy = os.tmpname()
local f = assert(io.open(copy, "wb"))
f:write(t.read(A))
f:close()
out, st = sh(bin .. " diff " .. q(copy) .. " " .. q(B) .. " --tsv_path " .. q(copy))
t.ok(st == 1 and t.read(copy) == t.read(A), "CLI: --tsv_path naming an input is refused, the input kept")
os.remove(copy)
out, st = sh(bin .. " diff " .. q(A) .. " " .. q(B) .. " --format yaml")
t.ok(st == 2 and out:find("argument for option '--format' must be one of 'box', 'plain'", 1, true),
  "CLI: an unknown --format: exit 2")
out, st = sh(bin .. " top_ops " .. q(A) .. " " .. q(B))
t.ok(st == 2 and out:find("top_ops: too many arguments"), "CLI: the one-dump scripts still take one path")
out, st = sh(bin .. " --list-scripts")
t.ok(st == 0 and out:find("\ndiff +Compare two ETDumps"), "CLI: --list-scripts lists diff")

-------------------------------------------------------------------------------
-- occurrences: flatc builds dumps where a key repeats

local flatc = os.getenv("FLATC") or "flatc"
local have_flatc = select(2, sh("command -v " .. q(flatc) .. " >/dev/null")) == 0
local schema = t.src .. "/schema/etdump.fbs"
local dir = have_flatc and io.popen("mktemp -d"):read("l")

--- Write runs (JSON texts of RunData tables) as DIR/NAME.json and turn
-- them into DIR/NAME.etdp with flatc; returns its path.
local function to_etdump(name, parts)
  local f = assert(io.open(dir .. "/" .. name .. ".json", "w"))
  f:write('{"run_data": [' .. table.concat(parts, ", ") .. ']}\n')
  f:close()
  local o, s = sh(q(flatc) .. " --binary --size-prefixed -o " .. q(dir) .. " " .. q(schema) .. " " ..
    q(dir .. "/" .. name .. ".json"))
  assert(s == 0, o)
  return dir .. "/" .. name .. ".etdp"
end

--- Build an ETDump from runs {{name = RUN, events = {{name, instruction,
-- chain, duration ns [, debug name]}, ...}}, ...}: one profile event each,
-- preceded by an Int debug event of the same instruction and chain, named
-- so, when a debug name is given.
local function build(name, runs)
  local parts, time = {}, 1000
  for i, run in ipairs(runs) do
    local evs = {}
    for _, e in ipairs(run.events) do
      if e[5] then
        evs[#evs + 1] = string.format('{"debug_event": {"name": "%s", "debug_entry": {"val": "Int", ' ..
          '"int_value": {"int_val": 7}}, "chain_index": %d, "instruction_id": %d}}', e[5], e[3], e[2])
      end
      evs[#evs + 1] = string.format('{"profile_event": {"name": "%s", "instruction_id": %d, "chain_index": %d, ' ..
        '"start_time": %d, "end_time": %d}}', e[1], e[2], e[3], time, time + e[4])
      time = time + e[4] + 100
    end
    parts[i] = string.format('{"name": "%s", "events": [%s]}', run.name, table.concat(evs, ", "))
  end
  return to_etdump(name, parts)
end

if have_flatc then
  -- the same key twice in a block: instruction 3 logged under two chains,
  -- once with a debug event (a different event signature); in B a third
  -- time, a profile event "k2" with a debug event "k" (the event takes the
  -- debug event's name)
  local a = open(build("occ_a", { { name = "Execute", events = {
    { "k", 3, 0, 10000, "k" }, { "k", 3, 1, 20000 } } } }))
  local b = open(build("occ_b", { { name = "Execute", events = {
    { "k", 3, 0, 11000, "k" }, { "k", 3, 1, 40000 }, { "k2", 3, 2, 5000, "k" } } } }))
  t.is(#a.event_blocks[1] .. " " .. #b.event_blocks[1], "2 3", "flatc-built dumps: the key k@3 repeats in a block")
  d = etinspect.diff(a, b, { min_runs = 1 })
  local got = {}
  for i, x in d:rows() do got[i] = ("%d:%s:%g"):format(x.occurrence, x.status, x.avg_delta * 1000) end
  t.is(table.concat(got, " "), "2:matched:20 3:only in B:5 1:matched:1",
    "diff: a key repeated in a block: occurrences matched in order")
  -- two blocks named Execute (two run signatures), in the other order in B
  local x, y, z = { "x", 0, 0, 1000 }, { "y", 1, 0, 2000 }, { "z", 2, 0, 3000 }
  a = open(build("blk_a", { { name = "Execute", events = { x, y } }, { name = "Execute", events = { x, z } } }))
  b = open(build("blk_b", { { name = "Execute", events = { x, z } }, { name = "Execute", events = { x, y } } }))
  d = etinspect.diff(a, b)
  got = {}
  for i, w in d:rows() do got[i] = w.event .. w.occurrence .. ":" .. w.status end
  t.is(table.concat(got, " "), "x1:matched y1:matched x2:matched z1:matched",
    "diff: blocks of the same name: each key's occurrences in block order")
  -- a delegated event lasting 100 ticks in every run; in A from 1000, in B
  -- from 3000: end/f - start/f gives 1.0000000000000005e-04 ms and
  -- 9.999999999999983e-05 ms (spec §3.7), equal in ticks
  local function noise_dump(name, start)
    local evs = {}
    for r = 1, 6 do
      evs[r] = ('{"name": "Execute", "events": [{"profile_event": {"instruction_id": 0, "delegate_debug_id_int": 3, '
        .. '"delegate_debug_metadata": [], "start_time": %d, "end_time": %d}}]}'):format(start, start + 100)
    end
    return open(to_etdump(name, evs))
  end
  local na, nb = noise_dump("noise_a", 1000), noise_dump("noise_b", 3000)
  t.ok(na.event_blocks[1].events[1].perf_data.p50 ~= nb.event_blocks[1].events[1].perf_data.p50,
    "float noise: the two p50s differ in their last bits")
  local nr = etinspect.diff(na, nb)[1]
  t.is(("%s %s %s %s"):format(nr.delta, nr.ratio, nr.p_value, nr.significant), "0.0 1.0 1.0 false",
    "float noise: delta 0, ratio 1, p = 1 (the samples tie once rounded to 12 digits), not significant")
else
  for _ = 1, 5 do t.skip("flatc not found ($FLATC or flatc): occurrence and float-noise tests") end
end

-------------------------------------------------------------------------------
-- the corpus: medium.etdp (Default + 250 runs of 401 events)

local medium = t.corpus .. "/medium.etdp"
if not t.exists(medium) then
  for _ = 1, 9 do t.skip("corpus not found: " .. medium) end
else
  local m = open(medium)
  d = etinspect.diff(m, open(medium))
  local any, tested = false, 0
  for _, x in d:rows() do
    if x.significant then any = true end
    if x.p_value == 1 then tested = tested + 1 end
  end
  t.ok(#d == 403 and not any and tested == 401, "medium against itself: 403 events, 401 tested, none significant")

  local target = "native_call_mul.out"
  if not have_flatc then
    for _ = 1, 8 do t.skip("flatc not found ($FLATC or flatc): the A/A split and the scaled copy of medium.etdp") end
  else
    -- medium.etdp to JSON, every profile event of one operator 1.5 times
    -- as long, back to an ETDump
    local o, s = sh(q(flatc) .. " --json --strict-json --raw-binary --size-prefixed -o " .. q(dir) .. " " ..
      q(schema) .. " -- " .. q(medium))
    assert(s == 0, o)
    local text = t.read(dir .. "/medium.json")
    -- an A/A split: the Default run, then the odd Execute runs in A and the
    -- even ones in B (125 each); no event may be flagged at q < 0.05
    local runs = {}
    for obj in text:match('"run_data": (%b[])'):gmatch("%b{}") do runs[#runs + 1] = obj end
    local half = { { runs[1] }, { runs[1] } }
    for i = 2, #runs do table.insert(half[i % 2 + 1], runs[i]) end
    local aa = etinspect.diff(open(to_etdump("aa_a", half[1])), open(to_etdump("aa_b", half[2])))
    local n_p, n_q, n_tested, n_cover, clean12 = 0, 0, 0, 0, true
    for _, x in aa:rows() do
      if x.p_value == x.p_value then n_tested = n_tested + 1 end
      if x.p_value < 0.05 then n_p = n_p + 1 end
      if x.q_value < 0.05 or x.significant then n_q = n_q + 1 end
      if x.ratio_low <= 1 and x.ratio_high >= 1 then n_cover = n_cover + 1 end
      if tonumber(("%.12g"):format(x.delta)) ~= x.delta then clean12 = false end
    end
    t.is(#aa .. " " .. n_tested .. " " .. n_q, "403 401 0",
      "medium A/A split (125 runs against 125): 401 events tested, none flagged at q < 0.05 (" .. n_p .. " at p < 0.05)")
    t.ok(n_p > 0, "... while some p-values are below 0.05, as 401 uniform p-values give")
    t.ok(n_cover >= 0.9 * 401, "... the 95% ratio interval contains 1 for " .. n_cover .. " of the 401 events")
    t.ok(clean12, "... and every delta has at most 12 significant digits (no float noise)")
    local scaled = 0
    text = text:gsub('"profile_event": (%b{})', function(obj)
      if not obj:find('"name": "' .. target .. '"', 1, true) then return nil end
      local start = tonumber(obj:match('"start_time": (%d+)')) or 0
      return '"profile_event": ' .. obj:gsub('"end_time": (%d+)', function(e)
        scaled = scaled + 1
        return '"end_time": ' .. math.floor(start + (tonumber(e) - start) * 1.5 + 0.5)
      end)
    end)
    local f = assert(io.open(dir .. "/medium_scaled.json", "w"))
    f:write(text)
    f:close()
    o, s = sh(q(flatc) .. " --binary --size-prefixed -o " .. q(dir) .. " " .. q(schema) .. " " ..
      q(dir .. "/medium_scaled.json"))
    assert(s == 0, o)
    t.is(scaled, 25 * 250, "medium: 25 " .. target .. " instructions x 250 runs scaled by 1.5")
    d = etinspect.diff(m, open(dir .. "/medium_scaled.etdp"))
    local sig, exact, ratio = d:filter(function(x) return x.significant end), true, true
    for _, x in d:rows() do
      if (x.event == target) ~= (x.significant == true) then exact = false end
    end
    for _, x in sig:rows() do
      if math.abs(x.ratio - 1.5) > 0.01 or x.delta <= 0 then ratio = false end
    end
    t.ok(#sig == 25 and exact, "medium vs scaled copy: exactly the 25 " .. target .. " events are significant (q < 0.05)")
    t.ok(ratio, "medium vs scaled copy: their p50 ratio is 1.5")
    local inside = true
    for _, x in sig:rows() do
      if not (x.ratio_low <= 1.5 and x.ratio_high >= 1.5 and x.ratio_low > 1.4) then inside = false end
    end
    t.ok(inside, "medium vs scaled copy: their ratio intervals contain 1.5 and exclude 1")
  end
end

if dir then os.execute("rm -rf " .. q(dir)) end
t.done()
