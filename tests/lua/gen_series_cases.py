#!/usr/bin/python3
"""Expected values for tests/lua/series.t and tests/lua/query.t: pandas'
results of Series arithmetic, comparisons, masks and df.query on a small
frame that holds the awkward cases (zeros, negatives, NaN, missing text,
a column name with spaces).

    /usr/bin/python3 tests/lua/gen_series_cases.py

needs Debian 12's python3-pandas (1.5.3).  It writes
tests/lua/series_cases.lua: the frame, then {lua, values} for each Series
expression (the Lua spelling evaluated by the test, pandas' values) and
{query, rows} for each query (0-based row labels pandas keeps).
"""
import math
import os
import warnings

import numpy as np
import pandas as pd

warnings.simplefilter("ignore")

NAN = float("nan")
COLS = {
    "a": [7, -7, 0, 5, 3, -2],
    "b": [2, 0, 0, -3, 3, 4],
    "f": [7.5, -7.5, 0.0, NAN, 2.25, -0.5],
    "s": ["x", "y", None, "x", "zz", "y"],
    "p50 (ms)": [0.1, 0.25, 0.05, NAN, 1.5, 0.2],
}
ORDER = ["a", "b", "f", "s", "p50 (ms)"]
df = pd.DataFrame({c: COLS[c] for c in ORDER})
df["s"] = df["s"].astype(object)
a, b, f, s, p = df["a"], df["b"], df["f"], df["s"], df["p50 (ms)"]

# (Lua expression over df, pandas value)
SERIES = [
    ("df.a + df.b", a + b),
    ("df.a - 1", a - 1),
    ("10 - df.a", 10 - a),
    ("df.a * 1000", a * 1000),
    ("df.a * 0.5", a * 0.5),
    ("df.a / df.b", a / b),
    ("df.a // df.b", a // b),
    ("df.a % df.b", a % b),
    ("df.a // 3", a // 3),
    ("df.a % -3", a % -3),
    ("df.a ^ 2", a ** 2),
    ("df.a ^ 0.5", a ** 0.5),
    ("2 ^ df.b:abs()", 2 ** b.abs()),
    ("-df.a", -a),
    ("df.f + df.a", f + a),
    ("df.f // 2", f // 2),
    ("df.f % 2", f % 2),
    ("df.f // -2", f // -2),
    ("df.f % -2", f % -2),
    ("df.f // 0", f // 0),
    ("df.f % 0", f % 0),
    ("df.f / 0", f / 0),
    ('df["p50 (ms)"] * 1000', p * 1000),
    ("df.f:abs()", f.abs()),
    ("df.f:fillna(0)", f.fillna(0)),
    ("df.a:gt(0)", a > 0),
    ("df.a:ge(0)", a >= 0),
    ("df.a:lt(df.b)", a < b),
    ("df.a:le(3)", a <= 3),
    ("df.a:eq(df.b)", a == b),
    ("df.a:ne(0)", a != 0),
    ("df.f:gt(0)", f > 0),
    ("df.f:ne(0)", f != 0),
    ("df.f:eq(df.f)", f == f),
    ("df.f:lt(2.25)", f < 2.25),
    ('df.s:eq("x")', s == "x"),
    ('df.s:ne("x")', s != "x"),
    ('df.s:gt("x")', s > "x"),
    ('df.s:le("y")', s <= "y"),
    ("df.s:eq(1)", s == 1),
    ("df.s:ne(1)", s != 1),
    ("df.f:isna()", f.isna()),
    ("df.s:isna()", s.isna()),
    ("df.s:notna()", s.notna()),
    ('df.s:isin{"x", "zz"}', s.isin(["x", "zz"])),
    ("df.a:isin{0, 5, 9}", a.isin([0, 5, 9])),
    ("df.f:isin{0 / 0, 7.5}", f.isin([NAN, 7.5])),
    ("df.a:between(0, 5)", a.between(0, 5)),
    ('df.a:between(0, 5, "neither")', a.between(0, 5, inclusive="neither")),
    ('df.f:between(-0.5, 2.25, "left")', f.between(-0.5, 2.25, inclusive="left")),
    ("df.a:gt(0) & df.b:gt(0)", (a > 0) & (b > 0)),
    ("df.a:gt(0) | df.f:isna()", (a > 0) | f.isna()),
    ("~df.a:gt(0)", ~(a > 0)),
    ("df.a:gt(0) ~ df.b:gt(0)", (a > 0) ^ (b > 0)),
    ('(df.a * 2 + df.f):ge(df.b * 3)', (a * 2 + f) >= (b * 3)),
]

QUERIES = [
    "a > 0",
    "a > 0 and b > 0",
    "a > 0 & b > 0",
    "a > 0 or f != f",
    "a > 0 | b < 0",
    "not a > 0",
    "~(a > 0) and b >= 0",
    "-3 < a < 6",
    "0 <= b <= 3 and a != 0",
    "a in [0, 5, 9]",
    "a not in [0, 5]",
    "s in ['x', 'zz']",
    's not in ["x"]',
    "s == 'y'",
    "s != 'y'",
    "`p50 (ms)` * 1000 > 150",
    "`p50 (ms)` > 1e-1",
    "a ** 2 > 20",
    "-a > 2",
    "a % 2 == 1",
    "a + b * 2 > f",
    "(a + b) * 2 > f",
    "a / 2 >= 1.5",
    "f == f",
    "f > 0 and s == 'x'",
    "a > @lo and a < @hi",
    "s in @names",
    "a > 100",
    "a > 0 and True",
]
VARS = {"lo": -3, "hi": 6, "names": ["y", "zz"]}


def lua_value(v):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "nil" if v is None else "0/0"
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, (int, np.integer)):
        return "%d" % v
    if isinstance(v, (float, np.floating)):
        if math.isinf(v):
            return "math.huge" if v > 0 else "-math.huge"
        return repr(float(v))
    if isinstance(v, str):
        return '"%s"' % v.replace("\\", "\\\\").replace('"', '\\"')
    raise TypeError(repr(v))


def seq(values):
    return "{" + ", ".join(lua_value(v) for v in values) + "}"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = ["-- series_cases.lua: written by gen_series_cases.py (pandas %s); do not edit" % pd.__version__,
           "return {", "  n = %d," % len(df), "  columns = {%s}," % ", ".join('"%s"' % c for c in ORDER),
           "  data = {"]
    for c in ORDER:
        out.append('    ["%s"] = %s,' % (c, seq(COLS[c])))
    out.append("  },")
    out.append("  series = {")
    for lua, val in SERIES:
        kind = str(val.dtype)
        out.append("    {%s, %s, %s}," % (lua_value(lua), lua_value(kind), seq(val.tolist())))
    out.append("  },")
    out.append("  queries = {")
    for q in QUERIES:
        rows = df.query(q, engine="python", local_dict=VARS).index.tolist()
        out.append("    {%s, %s}," % (lua_value(q), seq(rows)))
    out.append("  },")
    out.append("  vars = {lo = -3, hi = 6, names = {\"y\", \"zz\"}},")
    out.append("}")
    with open(os.path.join(here, "series_cases.lua"), "w") as fh:
        fh.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
