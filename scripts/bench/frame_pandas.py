#!/usr/bin/python3
"""frame_pandas.py OUTDIR [REPS] - benchmark (make bench, the Frame rows;
scripts/bench/frame.sh): pandas' time for the verbs that
scripts/bench/frame_verbs.lua times, on the same rows (OUTDIR/events.tsv,
OUTDIR/keys.tsv and OUTDIR/threshold, which it wrote).  Each verb is timed
alone, REPS times (default 5), and its median CPU time (time.process_time)
printed as "VERB SECONDS CHECK", CHECK being the digest frame_verbs.lua
prints for the same result.  Reading the files is not timed.  Exit 2 when
pandas is not importable (the bench then skips the pandas rows).
"""
import gc
import statistics
import sys
import time

try:
    import pandas as pd
except ImportError:
    sys.exit(2)

pd.set_option("compute.use_bottleneck", False)
out = sys.argv[1]
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5

df = pd.read_csv(out + "/events.tsv", sep="\t", index_col=0, float_precision="round_trip",
                 keep_default_na=False, na_values=[""])
small = pd.read_csv(out + "/keys.tsv", sep="\t", index_col=0, keep_default_na=False,
                    na_values=[""])
with open(out + "/threshold") as f:
    t = float(f.read())


def timed(fn):
    times, check = [], None
    for _ in range(reps):
        gc.collect()
        t0 = time.process_time()
        r = fn()
        times.append(time.process_time() - t0)
        if check is None:
            check = r
    return statistics.median_low(times), check


def digest(col):
    s = 0.0
    for v in col:
        if v == v:
            s += v
    return "%d:%.9g" % (len(col), s)


def groupby():
    g = df.groupby("name")["duration"].agg(["count", "mean", "median"])
    return "%s/%s/%s" % (digest(g["count"]), digest(g["mean"]), digest(g["median"]))


def sort():
    h = df.sort_values("duration", ascending=False, kind="stable").head(5)
    return ",".join("%.17g" % v for v in h["duration"])


def join():
    j = df.merge(small, on="name", how="left")
    return "%d:%d" % (len(j), int(j["category"].notna().sum()))


def query():
    return str(len(df.query("duration > @t")))


for name, fn in (("groupby", groupby), ("sort", sort), ("join", join), ("query", query)):
    secs, check = timed(fn)
    print(name, "%.6f" % secs, check)
