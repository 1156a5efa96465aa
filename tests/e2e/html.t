#!/bin/sh
# html.t - the HTML report (--html_path) in a real browser, headless
# Chromium.  For small, multiblock, large and alloc from the shared corpus:
# the page's script runs under its Content-Security-Policy and marks the
# page rendered, Chromium logs no console message, and the rendered DOM has
# one row per table row, one bar per node type of each block, and canvases
# that report what they drew: the timeline's run and slices per track, the
# run-over-run chart's points - all counted against the model.  Scripted
# use, through the page's own controls: zoom (buttons, wheel) changes the
# time window the page reports, the block and run pickers reach every
# block and run (multiblock's second branch), all runs of large.etdp (a
# million slices) draw with sub-pixel slices merged, a click on an events
# row charts that event.  Network: the page is loaded with every host name
# unresolvable and Chromium's NetLog recorded, once as written and once
# with its CSP removed (so that the CSP cannot hide a reference the page
# makes); the page must request nothing but itself.  A control page with
# an external image shows that the NetLog check sees such a request.
# Layout: at 1366 and 1024 px the page and the events table (with an
# ETRecord too) need no horizontal scrolling.  Screenshots of small,
# multiblock, large and large zoomed in are kept in build/test-output/html-*.png.
. "$(dirname "$0")/lib.sh"
C="$CORPUS/etdump"
[ -f "$C/small.etdp" ] || skip_all "shared corpus not found at $CORPUS"
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)}
[ -n "$CHROMIUM" ] || skip_all "chromium is not installed (apt-get install chromium): the HTML report is not checked in a browser"
SAMPLE="$ET_BUILD/fixtures/sample.etdp"
SAMPLE_REC="$ET_BUILD/fixtures/sample.etrecord"

for name in small multiblock large alloc; do
    # from the corpus directory: the pages (and screenshots) name the dump only
    (cd "$C" && "$ETINSPECT" --etdump_path "$name.etdp" --html_path "$T/$name.html" -q)
    ok "--html_path writes the report of $name.etdp" test -s "$T/$name.html"
done
"$ETINSPECT" --etdump_path "$SAMPLE" --etrecord_path "$SAMPLE_REC" --html_path "$T/linked.html" -q
ok "--html_path with an ETRecord" test -s "$T/linked.html"
ok "the report has the CSP meta tag" grep -qF \
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:" "$T/small.html"
if grep -qiE 'https?://' "$T/small.html" "$T/large.html"; then
    fail "the reports hold no http(s) URL" "$(grep -oiE 'https?://[^ "<]*' "$T/small.html" | head -n 3)"
else
    pass "the reports hold no http(s) URL"
fi

# what the model says, per dump: display-frame rows, bars (node types of
# each block but Default, at most 20 each), the default timeline run's block,
# slices and slices per track, and the run-over-run chart's series and
# points (Method::execute of every block)
for name in small multiblock large alloc; do
    ET_HTML_DUMP="$C/$name.etdp" "$ETINSPECT" -e '
local etinspect = require("etinspect")
etinspect.on_warning(function() end)
local insp = etinspect.Inspector{etdump_path = os.getenv("ET_HTML_DUMP")}
local html = require("etinspect.html")
local top_ops = require("etinspect.scripts.top_ops")
local rows = #require("etinspect.report").display_frame(insp)
local bars, series, points = 0, 0, 0
for _, blk in ipairs(insp.event_blocks) do
  if blk.name ~= "Default" then
    local seen, n = {}, 0
    for _, ev in ipairs(blk.events) do
      local nt = ev.perf_data and top_ops.node_type(ev)
      if nt and not seen[nt] then seen[nt] = true; n = n + 1 end
    end
    bars = bars + math.min(n, 20)
  end
  for _, ev in ipairs(blk.events) do
    if require("etinspect.scripts.framework_tax").is_execute_event(ev.name) then
      series = series + 1; points = points + blk.num_runs; break
    end
  end
end
local tl = html.timeline(insp)
local per = { framework = 0, operators = 0, delegate = 0 }
for _, s in ipairs(tl.slices) do per[s.track] = per[s.track] + 1 end
print(rows, bars, tl.block_index, #tl.slices, per.framework .. ":" .. per.operators .. ":" .. per.delegate,
  series, points)' >"$T/$name.expect" 2>&1
done

# chrome NAME URL ARGS...: run Chromium headless on URL with every host name
# unresolvable, its stdout in $T/NAME.out, its log in $T/NAME.err.
HEADLESS=--headless=new
chrome() {
    cname=$1 url=$2
    shift 2
    HOME="$T/home" XDG_CONFIG_HOME="$T/home/.config" XDG_CACHE_HOME="$T/home/.cache" \
    timeout -k 5 90 "$CHROMIUM" "$HEADLESS" --no-sandbox --disable-gpu --no-first-run \
        --disable-extensions --disable-background-networking --disable-component-update \
        --disable-sync --disable-default-apps --user-data-dir="$T/profile-$cname" \
        --host-resolver-rules="MAP * ~NOTFOUND" --enable-logging=stderr --v=0 \
        "$@" "$url" >"$T/$cname.out" 2>"$T/$cname.err"
}
mkdir -p "$T/home"

# with_script PAGE JS OUT: PAGE with JS run after the page's own script
with_script() {
    awk -v js="$2" '{ if (!done && sub(/<\/body>/, "<script>" js "</script></body>")) done = 1; print }' "$1" >"$3"
}
# attr FILE NAME: the value of attribute NAME of the <html> element
attr() { sed -n "s/.*<html[^>]* $2=\"\\([^\"]*\\)\".*/\\1/p" "$1" | head -n 1; }
# canvas FILE ID NAME: attribute NAME of <canvas id="ID">
canvas() { grep -o "<canvas id=\"$2\"[^>]*>" "$1" | sed -n "s/.* $3=\"\\([^\"]*\\)\".*/\\1/p" | head -n 1; }
count() { grep -o "$2" "$1" | wc -l | tr -d ' '; }
# near A B TOL: |A - B| <= TOL * max(1, |B|)
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b; if (m < 1) m = 1; exit !(a != "" && d <= t * m) }'; }

# The probe: after the page's script, scripted use of its controls (each
# redraws at once); results as attributes of <html>.
PROBE='(function () {
  var d = document.documentElement, c = document.getElementById("timeline");
  function $(id) { return document.getElementById(id); }
  function fire(el, type) { el.dispatchEvent(new Event(type)); }
  function win() { return c.getAttribute("data-t0") + " " + c.getAttribute("data-t1"); }
  function at() { return [c.getAttribute("data-block"), c.getAttribute("data-run"), c.getAttribute("data-slices")].join(" "); }
  var b0 = c.getAttribute("data-block"), rc = $("runs-chart"), s = $("summary");
  d.setAttribute("data-p-init", [at(), (c.getAttribute("data-tracks") || "").replace(/ /g, ":"),
    rc.getAttribute("data-series"), rc.getAttribute("data-points"),
    document.querySelectorAll("#runs-stats li.series").length].join(" "));
  d.setAttribute("data-p-layout", [d.scrollWidth, s.parentNode.scrollWidth - s.parentNode.clientWidth,
    Math.round(c.getBoundingClientRect().width)].join(" "));
  d.setAttribute("data-p-start", win());
  $("tl-zoom-in").click(); $("tl-zoom-in").click(); $("tl-zoom-in").click();
  d.setAttribute("data-p-zoom", win());
  var r = c.getBoundingClientRect();
  c.dispatchEvent(new WheelEvent("wheel", { deltaY: 500, clientX: r.left + r.width / 2, clientY: r.top + 30,
    bubbles: true, cancelable: true }));
  d.setAttribute("data-p-wheel", win());
  $("tl-next").click();
  d.setAttribute("data-p-next", at());
  var sel = $("tl-block");
  sel.value = sel.options[sel.options.length - 1].value; fire(sel, "change");
  d.setAttribute("data-p-last", at());
  sel.value = b0; fire(sel, "change");
  $("tl-all").checked = true; fire($("tl-all"), "change");
  d.setAttribute("data-p-all", [at(), c.getAttribute("data-drawn"), c.getAttribute("data-merged"),
    c.getAttribute("data-merged-slices")].join(" "));
  var row = document.querySelectorAll("#summary tr.event")[2];
  row.cells[2].click();
  d.setAttribute("data-p-row", row.getAttribute("data-block") + ":" + row.getAttribute("data-event") + " " +
    rc.getAttribute("data-event") + " " + rc.getAttribute("data-points") + " " + row.getAttribute("aria-selected"));
  d.setAttribute("data-p-done", "1");
})();'

for name in small multiblock large alloc; do
    read -r ROWS BARS TLB SLICES TRACKS SERIES POINTS <"$T/$name.expect"
    ok "$name: the model's counts ($ROWS rows, $BARS bars, block $TLB: $SLICES slices, $POINTS runs)" \
        test "${SLICES:-0}" -gt 0
    with_script "$T/$name.html" "$PROBE" "$T/$name.probe.html"
    chrome "$name" "file://$T/$name.probe.html" --window-size=1366,900 --dump-dom
    if [ "$name" = small ] && ! grep -q '</html>' "$T/$name.out"; then
        diag "--headless=new dumped no DOM; trying --headless"
        HEADLESS=--headless
        chrome "$name" "file://$T/$name.probe.html" --window-size=1366,900 --dump-dom
    fi
    D="$T/$name.out"
    if ! grep -q '</html>' "$D"; then
        fail "$name: headless Chromium renders the report" "$CHROMIUM printed no DOM:" \
            "$(grep -v dbus "$T/$name.err" | tail -n 5)"
        continue
    fi
    ms=$(attr "$D" data-rendered)
    ok "$name: the page's script ran under the CSP and marked it rendered (${ms:-?} ms after navigation)" \
        test -n "$ms"
    if grep -q 'CONSOLE' "$T/$name.err"; then
        fail "$name: the browser logged no console message (CSP violation, script error)" \
            "$(grep CONSOLE "$T/$name.err" | head -n 3)"
    else
        pass "$name: the browser logged no console message (CSP violation, script error)"
    fi
    n=$(count "$D" '<tr class="event"')
    ok "$name: $n events rows, one per display-frame row ($ROWS)" test "$n" -eq "$ROWS"
    n=$(count "$D" '<rect class="bar"')
    ok "$name: $n bars, one per node type of each block ($BARS)" test "$n" -eq "$BARS"
    n=$(count "$D" '<g class="box"')
    ok "$name: a box (spread over the runs) per bar ($n)" test "$n" -eq "$BARS"
    set -- $(attr "$D" data-p-init)
    ok "$name: the timeline shows run 1 of block $TLB first, $SLICES slices ($TRACKS per track)" \
        test "$1 $2 $3 $4" = "$TLB 1 $SLICES $TRACKS"
    ok "$name: the runs chart draws Method::execute of every block ($SERIES series, $POINTS points)" \
        test "$5 $6" = "$SERIES $POINTS"
    ok "$name: one line of warm-up and drift figures per series ($7)" test "$7" = "$SERIES"
    # the timeline as first drawn (before the probe's clicks) is recorded in data-p-start
    read -r T0 T1 <<EOF
$(attr "$D" data-p-start)
EOF
    ok "$name: the timeline starts showing the whole run (window $T0 .. $T1)" test "$T0" = 0
    read -r Z0 Z1 <<EOF
$(attr "$D" data-p-zoom)
EOF
    ok "$name: three zoom-ins show the middle eighth of the run ($Z0 .. $Z1)" \
        near "$Z0" "$(awk -v a="$T1" 'BEGIN { printf "%.17g", a * 7 / 16 }')" 1e-6
    ok "$name: ... to its end ($Z1)" near "$Z1" "$(awk -v a="$T1" 'BEGIN { printf "%.17g", a * 9 / 16 }')" 1e-6
    read -r W0 W1 <<EOF
$(attr "$D" data-p-wheel)
EOF
    ok "$name: the wheel zooms out around the pointer (window $W0 .. $W1 wider than $Z0 .. $Z1)" \
        awk -v a="$W0" -v b="$W1" -v c="$Z0" -v d="$Z1" 'BEGIN { exit !(b - a > d - c && a <= c && b >= d) }'
    ok "$name: the probe ran to its end" test "$(attr "$D" data-p-done)" = 1
done

# multiblock: the second branch (block 3, 4 runs of 12 events) is reachable
D="$T/multiblock.out"
ok "multiblock: the next-run button shows run 2 of block 2 ($(attr "$D" data-p-next))" \
    test "$(attr "$D" data-p-next)" = "2 2 13"
ok "multiblock: the block picker reaches the second branch, block 3 ($(attr "$D" data-p-last))" \
    test "$(attr "$D" data-p-last)" = "3 1 12"
set -- $(attr "$D" data-p-all)
ok "multiblock: all 5 runs of block 2 at once ($*)" test "$1 $2 $3" = "2 all 65"
ok "multiblock: a click on an events row charts that event ($(attr "$D" data-p-row))" \
    test "$(attr "$D" data-p-row)" = "1:3 1:3 1 true"
# large: a million slices drawn at once, sub-pixel ones merged
D="$T/large.out"
set -- $(attr "$D" data-p-all)
ok "large: all 500 runs of the Execute block at once: 1,000,500 slices ($*)" test "$1 $2 $3" = "2 all 1000500"
ok "large: sub-pixel slices merged into groups, every slice counted once (drawn $4 + merged $6 of $3 in $5 groups)" \
    test "$5" -gt 0 -a $(($4 + $6)) -eq "$3" -a "$4" -lt 5000
ok "large: the next-run button shows run 2 ($(attr "$D" data-p-next))" test "$(attr "$D" data-p-next)" = "2 2 2001"
set -- $(attr "$D" data-p-row)
ok "large: a click on an events row charts its 500 runs ($*)" test "$1 $2 $3 $4" = "2:1 2:1 500 true"
diag "large.etdp: report $(wc -c <"$T/large.html" | tr -d ' ') bytes, rendered $(attr "$D" data-rendered) ms after navigation"

# page_requests NETLOG: the URLs the page (a file:// document) asked for,
# other than file: URLs, one per line.  Chromium's own background requests
# have another network isolation key and are not counted.
page_requests() {
    grep '"network_isolation_key":"file://' "$1" | grep -o '"url":"[^"]*"' |
        grep -v '"url":"file:' | sort -u
}
netlog_ok() { test -s "$1" && grep -q '"constants"' "$1"; }

# the network: the page as written, a control, the page without its CSP
OUT="$T/small.html"
chrome dom "file://$OUT" --window-size=1366,900 --dump-dom \
    --log-net-log="$T/dom.netlog" --net-log-capture-mode=Everything
printf '<!DOCTYPE html><title>control</title><img src="http://etinspect.invalid/x.png">\n' >"$T/control.html"
chrome control "file://$T/control.html" --dump-dom --log-net-log="$T/control.netlog" --net-log-capture-mode=Everything
if netlog_ok "$T/control.netlog" && [ -n "$(page_requests "$T/control.netlog")" ]; then
    pass "control: the NetLog shows a page's external request"
    ok "the report made no request (NetLog)" test -z "$(page_requests "$T/dom.netlog")"
    sed -e '/http-equiv="Content-Security-Policy"/d' "$OUT" >"$T/nocsp.html"
    ok "the copy without CSP has none" test "$(grep -c 'Content-Security-Policy' "$T/nocsp.html")" -eq 0
    chrome nocsp "file://$T/nocsp.html" --window-size=1366,900 --dump-dom \
        --log-net-log="$T/nocsp.netlog" --net-log-capture-mode=Everything
    if netlog_ok "$T/nocsp.netlog" && grep -q '</html>' "$T/nocsp.out"; then
        reqs=$(page_requests "$T/nocsp.netlog")
        if [ -z "$reqs" ]; then
            pass "the report without its CSP requests nothing (NetLog)"
        else
            fail "the report without its CSP requests nothing (NetLog)" "$reqs"
        fi
    else
        fail "the report without its CSP requests nothing (NetLog)" "no NetLog or DOM written"
    fi
else
    fail "control: the NetLog shows a page's external request" \
        "this Chromium's NetLog did not record it: the no-request check cannot be made" \
        "$(grep -v dbus "$T/control.err" | tail -n 3)"
fi

# the layout: no horizontal scrolling at 1366 px (small: measured by the
# probe) and 1024 px, with an ETRecord too
set -- $(attr "$T/small.out" data-p-layout)
ok "small at 1366 px: the page fits (scroll width $1)" test "${1:-99999}" -le 1366
ok "small at 1366 px: the events table needs no horizontal scrolling (overflow $2)" test "${2:-99999}" -le 0
ok "small at 1366 px: the timeline spans the page ($3 px)" test "${3:-0}" -ge 1266 -a "${3:-0}" -le 1366
MEASURE='var d = document.documentElement, s = document.getElementById("summary"), t = document.getElementById("timeline");
d.setAttribute("data-page-width", d.scrollWidth);
d.setAttribute("data-summary-overflow", s.parentNode.scrollWidth - s.parentNode.clientWidth);
d.setAttribute("data-timeline-width", Math.round(t.getBoundingClientRect().width));'
for page in linked; do
    with_script "$T/$page.html" "$MEASURE" "$T/$page.measure.html"
    for width in 1366 1024; do
        chrome "measure-$page-$width" "file://$T/$page.measure.html" --window-size=$width,900 --dump-dom
        M="$T/measure-$page-$width.out"
        w=$(attr "$M" data-page-width)
        ok "$page at $width px: the page fits (scroll width ${w:-?})" test "${w:-99999}" -le "$width"
        w=$(attr "$M" data-summary-overflow)
        ok "$page at $width px: the events table needs no horizontal scrolling (overflow ${w:-?})" test "${w:-99999}" -le 0
        w=$(attr "$M" data-timeline-width)
        ok "$page at $width px: the timeline spans the page (${w:-?} px)" \
            test "${w:-0}" -ge $((width - 100)) -a "${w:-0}" -le "$width"
    done
done

# upstream's names (pytorch/executorch PR 8033): the runs chart draws
# Method::execute::<method> of both blocks, Execute::forward and
# Execute::decode, 2 runs each (tests/fixtures/upstream_names.json)
"$ETINSPECT" --etdump_path "$ET_BUILD/fixtures/upstream_names.etdp" --html_path "$T/upstream.html" -q
with_script "$T/upstream.html" "$PROBE" "$T/upstream.probe.html"
chrome upstream "file://$T/upstream.probe.html" --window-size=1366,900 --dump-dom
set -- $(attr "$T/upstream.out" data-p-init)
ok "upstream names: the timeline shows run 1 of Execute::forward (block 2) first" test "$1 $2" = "2 1"
ok "upstream names: the runs chart draws Method::execute::<method> of both blocks (2 series, 4 points; ${5:-?} ${6:-?})" \
    test "$5 $6" = "2 4"

# the screenshots, kept under build/test-output (once: not again for the
# sanitizer build, whose pages are the same)
case "$ETINSPECT" in
*/asan/*) skip "screenshots: taken in the plain build's run"; done_testing ;;
esac
mkdir -p "$ET_BUILD/test-output"
# large, zoomed in 32 times around the middle of run 1
with_script "$T/large.html" 'for (var i = 0; i < 5; i++) document.getElementById("tl-zoom-in").click();' \
    "$T/large-zoom.html"
for name in small multiblock large large-zoom; do
    chrome "shot-$name" "file://$T/$name.html" --window-size=1366,1500 --screenshot="$T/html-$name.png"
    if [ -s "$T/html-$name.png" ] && [ "$(od -An -tx1 -N4 "$T/html-$name.png" | tr -d ' \n')" = "89504e47" ]; then
        size=$(od -An -tu1 -j16 -N8 "$T/html-$name.png" | awk '{ printf "%dx%d", (($1*256+$2)*256+$3)*256+$4, (($5*256+$6)*256+$7)*256+$8 }')
        ok "$name: a 1366x1500 screenshot ($size)" test "$size" = "1366x1500"
        cp "$T/html-$name.png" "$ET_BUILD/test-output/html-$name.png"
    else
        fail "$name: a 1366x1500 screenshot" "no PNG written:" "$(grep -v dbus "$T/shot-$name.err" | tail -n 3)"
    fi
done

done_testing
