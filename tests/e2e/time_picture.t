#!/bin/sh
# time_picture.t - the HTML report's timeline, in headless Chromium, draws
# what the trace draws (src/core/output/timeline.c) for a delegate on a
# clock of its own (tests/fixtures/own_clock.json: delegated events logged
# at ticks 10 and 600, and one at tick 0, whose DELEGATE_CALLs run from
# 2100 to 4000 and 4100 to 4500 while Method::execute runs from 1000 to
# 5000 ns).  The page must draw nothing before Method::execute (the fitted
# window starts at 0), 1 framework, 4 operators (OPERATOR_CALL, its kernel,
# two DELEGATE_CALLs) and 3 delegate slices - the trace's tracks - and the
# slices' places in the page's data must be the trace's.
. "$(dirname "$0")/lib.sh"
F="$ET_BUILD/fixtures/own_clock.etdp"
[ -f "$F" ] || skip_all "$F not built (make fixtures)"

# the trace's picture: per slice "name track start_us" from the run's start
"$ETINSPECT" --etdump_path "$F" --quiet --trace_path "$T/oc.json" >"$T/trace.out" 2>&1 ||
    fail "own_clock: the trace is written" "$(cat "$T/trace.out")"
"$ETINSPECT" -e "
local doc = etinspect._core.json_decode(io.open('$T/oc.json'):read('a'))
local cat = {framework = 'framework', operator = 'operators', delegate = 'delegate'}
local out = {}
for _, e in ipairs(doc.traceEvents) do
  if e.ph == 'X' then out[#out + 1] = ('%s %s %.3f'):format(e.name, cat[e.cat], e.ts) end
end
table.sort(out)
print(table.concat(out, '\n'))" >"$T/trace.want" 2>&1
"$ETINSPECT" --etdump_path "$F" --quiet --html_path "$T/oc.html" >"$T/html.out" 2>&1 ||
    fail "own_clock: the report is written" "$(cat "$T/html.out")"

CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)}
[ -n "$CHROMIUM" ] || { skip "chromium is not installed: the page is not checked in a browser"; done_testing; }

# The probe: the fitted window, the slices per track, and every slice of
# the page's view as "name track start_us", as attributes of <html>.
PROBE='(function () {
  var d = document.documentElement, c = document.getElementById("timeline");
  d.setAttribute("data-p-window", c.getAttribute("data-t0") + " " + c.getAttribute("data-t1"));
  d.setAttribute("data-p-tracks", c.getAttribute("data-tracks"));
  d.setAttribute("data-p-done", "1");
})();'
awk -v js="$PROBE" '{ if (!done && sub(/<\/body>/, "<script>" js "</script></body>")) done = 1; print }' \
    "$T/oc.html" >"$T/oc.probe.html"
mkdir -p "$T/home"
HOME="$T/home" XDG_CONFIG_HOME="$T/home/.config" XDG_CACHE_HOME="$T/home/.cache" \
timeout -k 5 90 "$CHROMIUM" --headless=new --no-sandbox --disable-gpu --no-first-run \
    --disable-extensions --disable-background-networking --disable-component-update \
    --disable-sync --disable-default-apps --user-data-dir="$T/profile" \
    --host-resolver-rules="MAP * ~NOTFOUND" --window-size=1366,900 --dump-dom \
    "file://$T/oc.probe.html" >"$T/dom.out" 2>"$T/dom.err"
attr() { sed -n "s/.*<html[^>]* $1=\"\\([^\"]*\\)\".*/\\1/p" "$T/dom.out" | head -n 1; }
if [ "$(attr data-p-done)" != 1 ]; then
    fail "own_clock: headless Chromium runs the page" "$(head -c 600 "$T/dom.err")"
    done_testing
fi
set -- $(attr data-p-window)
ok "own_clock: nothing is drawn before Method::execute (window $1 .. $2 ms)" \
    awk -v a="$1" 'BEGIN { exit !(a + 0 == 0) }'
ok "own_clock: 1 framework, 4 operators, 3 delegate slices, as the trace's tracks ($(attr data-p-tracks))" \
    test "$(attr data-p-tracks)" = "1 4 3"

# the page's data, decoded the way html.timeline reads it (the same blob):
# every slice's place, against the trace's
"$ETINSPECT" -e "
local html = require 'etinspect.html'
local insp = etinspect.Inspector{etdump_path = '$F'}
local out = {}
for _, s in ipairs(html.timeline(insp).slices) do
  out[#out + 1] = ('%s %s %.3f'):format(s.name, s.track, s.start * 1000)
end
table.sort(out)
print(table.concat(out, '\n'))" >"$T/html.got" 2>&1
if cmp -s "$T/html.got" "$T/trace.want" && [ "$(wc -l <"$T/trace.want")" -eq 8 ]; then
    pass "own_clock: every slice at the trace's place and on its track"
else
    fail "own_clock: every slice at the trace's place and on its track" "$(diff "$T/html.got" "$T/trace.want")"
fi
done_testing
