#!/bin/sh
# memory.t - memory per block and allocator (not in the reference): the
# --memory table, the "memory_summary" of --json, and block:memory_summary()
# in Lua, on the corpus's alloc.etdp (its allocation events are listed in
# ../shared/corpus/README.md), and bytes per run rounded on memory_round.
. "$(dirname "$0")/lib.sh"
A="$ET_SHARED/corpus/etdump/alloc.etdp"
[ -f "$A" ] || skip_all "$A absent (the shared corpus)"

"$ETINSPECT" --etdump_path "$A" --memory --quiet >"$T/out" 2>"$T/err"
ok "--memory --quiet: exit 0" test $? -eq 0
ok "--memory: planned_memory_0 holds 1048576 + 5000000000 bytes, largest 5000000000" \
    grep -q "Default .*│ *2 │ planned_memory_0 *│ *1 │ *2 │ 5001048576 │ .*│ 5000000000 │" "$T/out"
ok "--memory: temp_allocator of the 3 Execute runs: 6 allocations, 256+512+768+3*64 bytes" \
    grep -q "Execute .*│ *1 │ temp_allocator *│ *3 │ *6 │ *1728 │ *576 *│ *768 │" "$T/out"
ok "--memory: an allocator with one empty allocation" grep -q "│ temp_allocator *│ *1 │ *1 │ *0 │" "$T/out"
ok "--memory: a row per block and allocator (5)" test "$(grep -c '^│ *[0-9]' "$T/out")" -eq 5
ok "--memory: bytes per run as an integer (5001048576, not 5.00105e+09)" \
    grep -q "│ 5001048576 │ *5001048576 │ 5000000000 │" "$T/out"
"$ETINSPECT" --etdump_path "$ET_BUILD/fixtures/memory_round.etdp" --memory --quiet >"$T/round" 2>&1
ok "--memory: bytes per run rounded to the byte (3001 / 3 runs: 1000; 5 / 2 runs: 3, half up)" \
    test "$(grep '^│ *[0-9]' "$T/round" | awk -F'│' '{gsub(/ /, ""); print $8 "/" $6 "=" $9}' | tr '\n' ' ')" = "3001/3=1000 5/2=3 "

"$ETINSPECT" --etdump_path "$A" --quiet --json "$T/a.json" 2>/dev/null
"$ETINSPECT" -e "
  local j = require('etinspect')._core.json_decode(io.open('$T/a.json'):read('a'))
  for _, b in ipairs(j.event_blocks) do
    for _, m in ipairs(b.memory_summary) do
      print(b.name, m.allocator_id, m.allocator, m.allocations, m.bytes, m.largest)
    end
  end
  local insp = require('etinspect').Inspector{etdump_path = '$A'}
  for _, b in ipairs(insp.event_blocks) do
    for _, m in ipairs(b:memory_summary()) do
      print(b.name, m.allocator_id, m.allocator, m.allocations, m.bytes, m.bytes_per_run, m.largest)
    end
  end" >"$T/facts" 2>/dev/null
cat >"$T/want" <<'EOT'
Default	1	method_allocator	3	4248	4096
Default	2	planned_memory_0	2	5001048576	5000000000
Default	3	temp_allocator	1	0	0
Execute	1	temp_allocator	6	1728	768
Execute	2	scratch	3	196608	65536
Default	1	method_allocator	3	4248	4248.0	4096
Default	2	planned_memory_0	2	5001048576	5001048576.0	5000000000
Default	3	temp_allocator	1	0	0.0	0
Execute	1	temp_allocator	6	1728	576.0	768
Execute	2	scratch	3	196608	65536.0	65536
EOT
ok "--json memory_summary and block:memory_summary() agree with the README's allocations" \
    cmp "$T/facts" "$T/want"
done_testing
