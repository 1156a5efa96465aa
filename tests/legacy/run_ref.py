import sys
import parse_profiler_results as p
ts = {"ns": p.TimeScale.TIME_IN_NS, "us": p.TimeScale.TIME_IN_US, "ms": p.TimeScale.TIME_IN_MS, "cycles": p.TimeScale.CPU_CYCLES}[sys.argv[2]]
buf = open(sys.argv[1], "rb").read()
prof_data, mem = p.deserialize_profile_results(buf, ts)
ft = p.profile_aggregate_framework_tax(prof_data)
for t in p.profile_table(prof_data, None): print(t)
for t in p.profile_framework_tax_table(ft): print(t)
for t in p.mem_profile_table(mem): print(t)
