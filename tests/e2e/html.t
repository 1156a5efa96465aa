#!/bin/sh
# html.t - the HTML report (--html_path) in a real browser, headless
# Chromium: the rendered DOM has one row per table row, one bar per top node
# type and one slice per timed event of the run; the inline script runs
# under the page's Content-Security-Policy and nothing is blocked or logged;
# the page fits a 1366 px wide window; a screenshot is kept in
# build/test-output/html-small.png.  Network: the page is loaded with every
# host name unresolvable and Chromium's NetLog recorded, once as written and
# once with its CSP removed (so that the CSP cannot hide a reference the page
# makes); the page must request nothing but itself.  A control page with an
# external image shows that the NetLog check sees such a request.
. "$(dirname "$0")/lib.sh"
SMALL="$CORPUS/etdump/small.etdp"
[ -f "$SMALL" ] || skip_all "shared corpus not found at $CORPUS"
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)}
[ -n "$CHROMIUM" ] || skip_all "chromium is not installed (apt-get install chromium): the HTML report is not checked in a browser"

OUT="$T/small.html"
"$ETINSPECT" --etdump_path "$SMALL" --html_path "$OUT" -q
ok "--html_path writes the report" test -s "$OUT"
ok "the report has the CSP meta tag" grep -qF \
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:" "$OUT"
if grep -qiE 'https?://' "$OUT"; then
    fail "the report holds no http(s) URL" "$(grep -oiE 'https?://[^ "<]*' "$OUT" | head -n 3)"
else
    pass "the report holds no http(s) URL"
fi

# what the model says: display-frame rows, top node types (at most 20), and
# events of run 1 of the first Execute block with a start time and a duration
ET_HTML_DUMP="$SMALL" "$ETINSPECT" -e '
local insp = require("etinspect").Inspector{etdump_path = os.getenv("ET_HTML_DUMP")}
local rows = #require("etinspect.report").display_frame(insp)
local bars = math.min(20, #require("etinspect.scripts.top_ops").summary(insp))
local blk = insp.event_blocks[1]
for _, b in ipairs(insp.event_blocks) do if b.name == "Execute" then blk = b; break end end
local slices = 0
for _, ev in ipairs(blk.events) do
  if ev.perf_data and ev.perf_data.raw[1] and ev.start_time and ev.start_time[1] then slices = slices + 1 end
end
print(rows, bars, slices)' >"$T/expect" 2>&1
read -r ROWS BARS SLICES <"$T/expect"
ok "the model's counts ($ROWS rows, $BARS bars, $SLICES slices)" test "${SLICES:-0}" -gt 0

# chrome NAME URL ARGS...: run Chromium headless on URL with every host name
# unresolvable, its stdout in $T/NAME.out, its log in $T/NAME.err.
HEADLESS=--headless=new
chrome() {
    name=$1 url=$2
    shift 2
    HOME="$T/home" XDG_CONFIG_HOME="$T/home/.config" XDG_CACHE_HOME="$T/home/.cache" \
    timeout -k 5 60 "$CHROMIUM" "$HEADLESS" --no-sandbox --disable-gpu --no-first-run \
        --disable-extensions --disable-background-networking --disable-component-update \
        --disable-sync --disable-default-apps --user-data-dir="$T/profile-$name" \
        --host-resolver-rules="MAP * ~NOTFOUND" --enable-logging=stderr --v=0 \
        "$@" "$url" >"$T/$name.out" 2>"$T/$name.err"
}
mkdir -p "$T/home"

# 1. the report as written: DOM, console, NetLog
chrome dom "file://$OUT" --window-size=1366,900 --virtual-time-budget=2000 --dump-dom \
    --log-net-log="$T/dom.netlog" --net-log-capture-mode=Everything
if ! grep -q '</html>' "$T/dom.out"; then
    diag "--headless=new dumped no DOM; trying --headless"
    HEADLESS=--headless
    chrome dom "file://$OUT" --window-size=1366,900 --virtual-time-budget=2000 --dump-dom \
        --log-net-log="$T/dom.netlog" --net-log-capture-mode=Everything
fi
if ! grep -q '</html>' "$T/dom.out"; then
    fail "headless Chromium renders the report" "$CHROMIUM printed no DOM:" "$(grep -v dbus "$T/dom.err" | tail -n 5)"
    done_testing
fi
pass "headless Chromium renders the report ($HEADLESS)"

count() { grep -o "$1" "$T/dom.out" | wc -l | tr -d ' '; }
n=$(count '<tr class="event"')
ok "rendered DOM: $n summary rows, one per display-frame row ($ROWS)" test "$n" -eq "$ROWS"
n=$(count '<rect class="bar"')
ok "rendered DOM: $n bars, one per top node type ($BARS)" test "$n" -eq "$BARS"
n=$(count '<rect class="slice"')
ok "rendered DOM: $n timeline slices, one per timed event of run 1 ($SLICES)" test "$n" -eq "$SLICES"
n=$(grep -o '<rect class="slice"[^>]*>' "$T/dom.out" | awk '
    { for (i = 1; i <= NF; i++) if ($i ~ /^width="/) { w = $i; gsub(/[^0-9.]/, "", w); if (w + 0 < 1) bad++ } }
    END { print bad + 0 }')
ok "rendered DOM: every slice is at least 1 px wide" test "$n" -eq 0
ok "rendered DOM: the inline script ran under the CSP (data-js=\"ready\")" \
    grep -q '<html lang="en" data-js="ready">' "$T/dom.out"
if grep -q 'CONSOLE' "$T/dom.err"; then
    fail "the browser logged no console message (CSP violation, script error)" "$(grep CONSOLE "$T/dom.err" | head -n 3)"
else
    pass "the browser logged no console message (CSP violation, script error)"
fi

# page_requests NETLOG: the URLs the page (a file:// document) asked for,
# other than file: URLs, one per line.  Chromium's own background requests
# have another network isolation key and are not counted.
page_requests() {
    grep '"network_isolation_key":"file://' "$1" | grep -o '"url":"[^"]*"' |
        grep -v '"url":"file:' | sort -u
}
netlog_ok() { test -s "$1" && grep -q '"constants"' "$1"; }

# 2. control: a page that loads an external image must show up in the NetLog
printf '<!DOCTYPE html><title>control</title><img src="http://etinspect.invalid/x.png">\n' >"$T/control.html"
chrome control "file://$T/control.html" --dump-dom --log-net-log="$T/control.netlog" --net-log-capture-mode=Everything
if netlog_ok "$T/control.netlog" && [ -n "$(page_requests "$T/control.netlog")" ]; then
    pass "control: the NetLog shows a page's external request"
    ok "the report made no request (NetLog)" test -z "$(page_requests "$T/dom.netlog")"
    # 3. the report without its CSP, and measured: the page itself must not refer
    # to anything outside; it must fit a 1366 px window
    sed -e '/http-equiv="Content-Security-Policy"/d' \
        -e 's|</body>|<script>var d = document.documentElement, s = document.getElementById("summary"), t = document.getElementById("timeline"); d.setAttribute("data-page-width", d.scrollWidth); d.setAttribute("data-summary-overflow", s.parentNode.scrollWidth - s.parentNode.clientWidth); d.setAttribute("data-timeline-width", Math.round(t.getBoundingClientRect().width));</script></body>|' \
        "$OUT" >"$T/nocsp.html"
    ok "the copy without CSP has none" test "$(grep -c 'Content-Security-Policy' "$T/nocsp.html")" -eq 0
    chrome nocsp "file://$T/nocsp.html" --window-size=1366,900 --virtual-time-budget=2000 --dump-dom \
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
    attr() { sed -n "s/.*<html[^>]* $1=\"\\([-0-9]*\\)\".*/\\1/p" "$T/nocsp.out" | head -n 1; }
    w=$(attr data-page-width)
    ok "the page fits a 1366 px window (scroll width ${w:-?})" test "${w:-99999}" -le 1366
    w=$(attr data-summary-overflow)
    ok "the summary table needs no horizontal scrolling at 1366 px (overflow ${w:-?})" test "${w:-99999}" -le 0
    w=$(attr data-timeline-width)
    ok "the timeline spans the page at 1366 px (${w:-?} px)" test "${w:-0}" -ge 1000 -a "${w:-0}" -le 1366
else
    fail "control: the NetLog shows a page's external request" \
        "this Chromium's NetLog did not record it: the no-request check cannot be made" \
        "$(grep -v dbus "$T/control.err" | tail -n 3)"
fi

# 4. the screenshot, kept under build/test-output
chrome shot "file://$OUT" --window-size=1366,900 --screenshot="$T/html-small.png"
if [ -s "$T/html-small.png" ] && [ "$(od -An -tx1 -N4 "$T/html-small.png" | tr -d ' \n')" = "89504e47" ]; then
    size=$(od -An -tu1 -j16 -N8 "$T/html-small.png" | awk '{ printf "%dx%d", (($1*256+$2)*256+$3)*256+$4, (($5*256+$6)*256+$7)*256+$8 }')
    ok "a 1366x900 screenshot ($size)" test "$size" = "1366x900"
    mkdir -p "$ET_BUILD/test-output"
    cp "$T/html-small.png" "$ET_BUILD/test-output/html-small.png"
    ok "the screenshot is kept in build/test-output/html-small.png" test -s "$ET_BUILD/test-output/html-small.png"
else
    fail "a 1366x900 screenshot" "no PNG written:" "$(grep -v dbus "$T/shot.err" | tail -n 3)"
fi

done_testing
