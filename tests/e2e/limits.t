#!/bin/sh
# limits.t - bounded work for every input, outputs that never destroy an
# input, output hygiene (issue 14; docs/user-guide.md "Limits"), on the
# command line.  Memory is asserted with peakrss, never time; `timeout`
# only turns a hang into a failure.
. "$(dirname "$0")/lib.sh"

F="$ET_BUILD/fixtures"
S0="$F/stride0.etdp"
SAMPLE="$F/sample.etdp"
PEAKRSS="$ET_BUILD/tools/peakrss"
SIGWHEN="$ET_BUILD/tools/sigwhen"
[ -f "$S0" ] && [ -f "$SAMPLE" ] && [ -x "$PEAKRSS" ] || skip_all "run make first (fixtures, tools)"
case $ETINSPECT in */asan/*) ASAN=1 ;; *) ASAN= ;; esac

run() { timeout 120 "$ETINSPECT" "$@" >"$T/out" 2>"$T/err"; echo $? >"$T/status"; }
status_is() { test "$(cat "$T/status")" -eq "$1"; }
err_has() { grep -qF -- "$1" "$T/err"; }
err_lacks() { ! grep -qF -- "$1" "$T/err"; }
out_has() { grep -qF -- "$1" "$T/out"; }
no_traceback() { ! grep -q "traceback" "$T/err"; }
# peak RSS in KiB of the last rss_run
rss_run() { timeout 120 "$PEAKRSS" "$ETINSPECT" "$@" >"$T/out" 2>"$T/err"; echo $? >"$T/status"; }
rss_kb() { sed -n 's/^peak_rss_kb //p' "$T/err" | tail -n 1; }

# --------------------------------------------- stride-0 and oversize tensors
# a 64-byte debug buffer: float 1.5 at 0, zeros after
printf '\000\000\300\077' >"$T/d64.bin"
head -c 60 /dev/zero >>"$T/d64.bin"
run --etdump_path "$S0" --debug_buffer_path "$T/d64.bin" \
    --bundled_program_path "$ET_SRC/tests/bundled/distinct.bpte" --compare_results --quiet
ok "--compare_results on a run output of 2^42 elements over 4 bytes: finishes, exit 0" status_is 0
ok "... the row says the view is over the broadcast budget" \
    out_has "sizes [1099511627776, 2, 2] with strides [0, 0, 0] broadcast 4398046511104 elements from 4 bytes, more than the broadcast budget of 1048576 elements (raise it with --max_broadcast_elements or etinspect.limits)"
run --etdump_path "$S0" --debug_buffer_path "$T/d64.bin" --max_broadcast_elements 4194304 \
    --bundled_program_path "$ET_SRC/tests/bundled/distinct.bpte" --compare_results --quiet
ok "--max_broadcast_elements 4194304: accepted, the budget in the message follows" \
    out_has "more than the broadcast budget of 4194304 elements"
for bad in 0 -5 abc 12x ""; do
    run --etdump_path "$S0" --max_broadcast_elements "$bad"
    if status_is 2 && err_has "argument --max_broadcast_elements: expected a number of elements >= 1, found '$bad'"; then
        pass "--max_broadcast_elements '$bad': usage error (exit 2)"
    else
        fail "--max_broadcast_elements '$bad': usage error (exit 2)" "$(cat "$T/err")"
    fi
done
run --etdump_path "$S0" --debug_buffer_path "$T/d64.bin" --json "$T/s0.json" --tsv_path "$T/s0.tsv" \
    --trace_path "$T/s0.trace.json" --memory --quiet
ok "every C writer on the stride-0 dump: exit 0" status_is 0

# --------------------------------------------- check first, map lazily
truncate -s 3G "$T/big3g.etdp"
rss_run --etdump_path "$T/big3g.etdp"
ok "a 3 GB sparse ETDump: refused (exit 1)" status_is 1
ok "... before mapping: the size and the limit" \
    err_has "big3g.etdp: file is 3221225472 bytes, larger than a FlatBuffer can be (2 GiB)"
BASE_ETDUMP=$(rss_kb)
: >"$T/empty.etdp"
rss_run --etdump_path "$T/empty.etdp"
BASE_EMPTY=$(rss_kb)
if [ -n "$ASAN" ]; then
    # the sanitizer's own memory: compare with refusing an empty file
    ok "... peak RSS $BASE_ETDUMP KiB, within 8 MiB of an empty file's ($BASE_EMPTY KiB)" \
        test "$BASE_ETDUMP" -lt $((BASE_EMPTY + 8192))
else
    ok "... peak RSS $BASE_ETDUMP KiB < 20 MiB" test "$BASE_ETDUMP" -lt 20480
fi
cp "$T/big3g.etdp" "$T/big3g.bpte" 2>/dev/null || truncate -s 3G "$T/big3g.bpte"
rss_run --etdump_path "$SAMPLE" --bundled_program_path "$T/big3g.bpte" --quiet
ok "a 3 GB sparse BundledProgram: refused before mapping" \
    err_has "big3g.bpte: file is 3221225472 bytes, larger than a FlatBuffer can be (2 GiB)"
[ -n "$ASAN" ] || ok "... peak RSS $(rss_kb) KiB < 20 MiB" test "$(rss_kb)" -lt 20480
truncate -s 5G "$T/big5g.prof"
rss_run --profile_results_path "$T/big5g.prof"
ok "a 5 GB sparse legacy dump: refused before mapping" \
    err_has "big5g.prof: file is 5368709120 bytes, larger than a legacy profiler dump can be (4 GiB: prof_result_t's num_bytes is 32-bit)"
[ -n "$ASAN" ] || ok "... peak RSS $(rss_kb) KiB < 20 MiB" test "$(rss_kb)" -lt 20480
rm -f "$T/big3g.etdp" "$T/big3g.bpte" "$T/big5g.prof"

# a 5 GB sparse debug buffer whose first bytes hold the tensors: only the
# pages read are paged in
truncate -s 5G "$T/big5g.bin"
dd if="$ET_SRC/tests/fixtures/tensors.bin" of="$T/big5g.bin" conv=notrunc 2>/dev/null
cat >"$T/stats.lua" <<'EOF'
local e = require "etinspect"
e.on_warning(function() end)
local insp = e.Inspector{etdump_path = arg[1], debug_buffer_path = arg[2]}
local n = 0
for _, b in ipairs(insp.event_blocks) do
  for _, ev in ipairs(b.events) do
    for _, t in ipairs(ev.debug_data or {}) do
      if e.Tensor.is_tensor(t) and t.readable then n = n + t:stats().count end
    end
  end
end
print("elements " .. n)
EOF
rss_run "$T/stats.lua" "$F/tensors.etdp" "$T/big5g.bin"
BIG=$(rss_kb)
ok "a 5 GB sparse debug buffer: every tensor's statistics (22 elements)" out_has "elements 22"
rss_run "$T/stats.lua" "$F/tensors.etdp" "$ET_SRC/tests/fixtures/tensors.bin"
SMALL=$(rss_kb)
ok "... peak RSS $BIG KiB, within 4 MiB of the same with the small buffer ($SMALL KiB)" \
    test "$BIG" -lt $((SMALL + 4096))
rm -f "$T/big5g.bin"

# --------------------------------------------- outputs never replace an input
cp "$SAMPLE" "$T/in.etdp"
cp "$ET_SRC/tests/fixtures/tensors.bin" "$T/in.bin"
cp "$ET_SRC/tests/bundled/distinct.bpte" "$T/in.bpte"
cp "$F/sample.etrecord" "$T/in.etrecord"
ln -s in.bin "$T/link.bin"
ln "$T/in.bpte" "$T/hard.bpte"
sums() { cksum "$T/in.etdp" "$T/in.bin" "$T/in.bpte" "$T/in.etrecord" | sort; }
sums >"$T/sums.before"
IN="--etdump_path $T/in.etdp --debug_buffer_path $T/in.bin --bundled_program_path $T/in.bpte --etrecord_path $T/in.etrecord --quiet"
for opt in --tsv_path --json --trace_path --sqlite_path --html_path; do
    for dest in in.etdp ./in.bin link.bin in.bpte hard.bpte ./in.etrecord; do
        # shellcheck disable=SC2086
        run $IN "$opt" "$T/$dest"
        if status_is 2 && err_has "$T/$dest: refusing to overwrite an input file with output (the input " &&
            no_traceback; then
            pass "$opt onto $dest: exit 2, the message names both"
        else
            fail "$opt onto $dest: exit 2, the message names both" "exit $(cat "$T/status"): $(head -c 400 "$T/err")"
        fi
    done
done
sums >"$T/sums.after"
ok "every input unchanged (checksums)" cmp -s "$T/sums.before" "$T/sums.after"
ok "no temporary file left beside them" test -z "$(ls "$T" | grep -E '^(in|link|hard)\.[a-z]+\.')"
cp "$ET_SRC/tests/legacy/"*.bin "$T/" 2>/dev/null
LEG=$(ls "$T"/*.bin | grep -v -e in.bin -e link.bin -e d64.bin | head -n 1)
if [ -n "$LEG" ]; then
    cp "$LEG" "$T/leg.copy"
    run --profile_results_path "$LEG" --tsv_path "$(dirname "$LEG")/./$(basename "$LEG")"
    ok "legacy dump: --tsv_path onto it refused (exit 2)" status_is 2
    ok "... unchanged" cmp -s "$LEG" "$T/leg.copy"
else
    skip "no legacy dump in tests/legacy"
fi

# --------------------------------------------- write errors: path and reason
if [ -w /dev/full ]; then
    for opt in --tsv_path --json --trace_path --html_path; do
        run --etdump_path "$SAMPLE" --quiet "$opt" /dev/full
        if status_is 1 && err_has "etinspect: error: /dev/full: write failed: No space left on device" &&
            no_traceback; then
            pass "$opt /dev/full: the path and the reason, no traceback"
        else
            fail "$opt /dev/full: the path and the reason, no traceback" "$(head -c 600 "$T/err")"
        fi
    done
else
    skip "no /dev/full"
fi
run --etdump_path "$SAMPLE" --quiet --html_path "$T/no/such/dir/r.html"
ok "--html_path into a missing directory: exit 1" status_is 1
ok "... the path and the reason, no traceback" \
    sh -c "grep -qxF 'etinspect: error: $T/no/such/dir/r.html: cannot create a file beside it: No such file or directory' '$T/err' && ! grep -q traceback '$T/err'"
# a file size limit (ulimit -f, in 512-byte blocks): EFBIG, not a silent death
(ulimit -f 4 && exec "$ETINSPECT" --etdump_path "$SAMPLE" --quiet --json "$T/big.json") \
    >"$T/out" 2>"$T/err"
echo $? >"$T/status"
ok "ulimit -f 4 and an 8 KB JSON: exit 1" status_is 1
ok "... $T/big.json: write failed: File too large" err_has "$T/big.json: write failed: File too large"
ok "... no output, no temporary file" test -z "$(ls "$T" | grep '^big\.json')"

# --------------------------------------------- signals
LARGE="$ET_SHARED/corpus/etdump/large.etdp"
if [ -f "$LARGE" ] && [ -x "$SIGWHEN" ]; then
    for sig in 15 2; do
        mkdir -p "$T/sig$sig"
        timeout 120 "$SIGWHEN" "$T/sig$sig" out.json. "$sig" \
            "$ETINSPECT" --etdump_path "$LARGE" --quiet --json "$T/sig$sig/out.json" >"$T/out" 2>"$T/err"
        if grep -q "^signalled out.json.*; exit signal $sig$" "$T/out"; then
            pass "signal $sig during a large JSON write: the program dies of it"
            ok "... and leaves no temporary file, no output" test -z "$(ls "$T/sig$sig")"
        else
            fail "signal $sig during a large JSON write: the program dies of it" "$(cat "$T/out")"
        fi
    done
else
    skip "$LARGE absent (the shared corpus): SIGTERM during a large write"
fi
# an input that shrinks while it is mapped: an error naming it, not a crash
cp "$ET_SRC/tests/fixtures/tensors.bin" "$T/shrink.bin"
cat >"$T/shrink.lua" <<'EOF'
local e = require "etinspect"
e.on_warning(function() end)
local insp = e.Inspector{etdump_path = arg[1], debug_buffer_path = arg[2]}
io.open(arg[2], "w"):close() -- another process truncates the file
print(insp.event_blocks[1].events[1].debug_data[1]:stats().sum)
EOF
run "$T/shrink.lua" "$F/tensors.etdp" "$T/shrink.bin"
ok "a debug buffer truncated under its mapping: exit 1" status_is 1
ok "... the error names it" \
    err_has "etinspect: error: $T/shrink.bin: the file shrank while it was being read (was it truncated or rewritten by another process?)"
cp "$F/tensors.etdp" "$T/shrink.etdp"
cat >"$T/shrink2.lua" <<'EOF'
local e = require "etinspect"
e.on_warning(function() end)
local insp = e.Inspector{etdump_path = arg[1]}
io.open(arg[1], "w"):close()
local n = 0
for _, r in insp:runs() do for _, name in r:events() do n = n + #(name or "") end end
print(n)
EOF
run "$T/shrink2.lua" "$T/shrink.etdp"
ok "an ETDump truncated under its mapping: exit 1, named" \
    sh -c "test \"\$(cat '$T/status')\" -eq 1 && grep -qF '$T/shrink.etdp: the file shrank' '$T/err'"

# ------------------------------------------- debug data compared across runs
# 40 runs whose one tensor covers the whole 8 MiB debug buffer, from offsets
# 0 and 4 in turn: comparing every run with the first would read 40 x 16 MiB;
# the comparisons read at most twice the buffer plus 64 MiB, then say so.
CB="$F/cmp_budget.etdp"
head -c 8388612 /dev/zero >"$T/z8.bin"
run --etdump_path "$CB" --debug_buffer_path "$T/z8.bin" --quiet --tsv_path "$T/cb.tsv"
ok "tensors of every run over the whole debug buffer: exit 0" status_is 0
ok "... the comparisons stop at their budget and say so" \
    err_has "$CB: the runs' debug data point at more of the debug buffer than twice its size plus 64 MiB; the rest was not compared across runs"
ok "... and no run is said to differ (the bytes are equal)" err_lacks "runs merged into it"
# the HTML report of the command line (its inspector handed to Lua) lists
# the core's warnings; stderr has each once
run --etdump_path "$CB" --debug_buffer_path "$T/z8.bin" --quiet --html_path "$T/cb.html"
ok "--html_path: exit 0" status_is 0
ok "... the page lists the core's warning" grep -qF "the rest was not compared across runs" "$T/cb.html"
ok "... and stderr gives it once" \
    test "$(grep -c 'not compared across runs' "$T/err")" -eq 1
# a buffer as large as the tensors read: within budget, compared, no warning
run --etdump_path "$F/tensors.etdp" --debug_buffer_path "$ET_SRC/tests/fixtures/tensors.bin" --quiet --tsv_path "$T/t.tsv"
ok "a debug buffer compared within budget: exit 0" status_is 0
ok "... no budget warning" err_lacks "not compared across runs"

done_testing
