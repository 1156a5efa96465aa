#!/bin/sh
# html_graph.t - the HTML report's graph view (issue 27, item 3), in
# headless Chromium.  The sample ETDump with its ETRecord: the page holds
# the graph's data and the inlined layout library with its licence, makes
# no reference outside itself, and in the browser lays out every node and
# edge of the edge program (counted against the model), boxes the
# delegated subgraph, logs no console message, and a click on a node (the
# page's test hook, #test-click=NAME) lists that node's events - counted
# against the events linked to it; without its CSP it requests nothing
# (NetLog, with a control page).  A synthetic 1,000-node ETRecord with a
# 1,000-event dump (tests/lua/graphgen.lua, gen_etdump): laid out and
# clickable, with a node named with HTML specials.  Without an ETRecord
# there is no graph section; above opts.max_graph_nodes there is a note
# and no layout; the option is checked by the contract.  Screenshots go to
# build/test-output/html-graph*.png.
. "$(dirname "$0")/lib.sh"
SAMPLE="$ET_BUILD/fixtures/sample.etdp"
SAMPLE_REC="$ET_BUILD/fixtures/sample.etrecord"
GEN="$ET_BUILD/tools/gen_etdump"
[ -f "$SAMPLE_REC" ] || skip_all "the sample ETRecord is not built (make fixtures)"

"$ETINSPECT" --etdump_path "$SAMPLE" --etrecord_path "$SAMPLE_REC" --html_path "$T/sample.html" -q
ok "--html_path with an ETRecord writes the report" test -s "$T/sample.html"
ok "the page holds the graph's data" grep -q '<script type="application/json" id="et-graph">' "$T/sample.html"
ok "... the graph section" grep -q '<section id="graph-section">' "$T/sample.html"
ok "... and dagre with its licence, inline" grep -q 'dagre, inlined for the graph view' "$T/sample.html"
ok "... the licence's text" grep -q 'Copyright (c) 2012-2014 Chris Pettitt' "$T/sample.html"
ok "... and the CSP that forbids every load" grep -qF "content=\"default-src 'none';" "$T/sample.html"
urls=$(grep -oiE 'https?://[^ "<)]*' "$T/sample.html" | head -n 3)
ok "the page names no URL (${urls:-none})" test -z "$urls"
"$ETINSPECT" --etdump_path "$SAMPLE" --html_path "$T/nolink.html" -q
ok "without an ETRecord: no graph section" sh -c "! grep -q 'graph-section\\|et-graph' '$T/nolink.html'"

# the model: the sample's edge program, and what the view says per node
ET_A="$SAMPLE" ET_B="$SAMPLE_REC" "$ETINSPECT" -e '
local etinspect = require("etinspect")
local insp = etinspect.Inspector{etdump_path = os.getenv("ET_A"), etrecord = os.getenv("ET_B")}
local gv = require("etinspect.html_graph")
local d = assert(gv.data(insp, 2, 2000))
local g = insp:get_exported_program()
local by = {}
for _, n in ipairs(d.nodes) do by[n.name] = n end
-- the events of block 2 linked to relu (debug handle 3) but the method phases
local relu = 0
for _, ev in ipairs(insp.event_blocks[2].events) do
  local h = ev.debug_handles
  local hs = type(h) == "number" and { h } or h or {}
  for _, x in ipairs(hs) do
    if x == 3 and not tostring(ev.name):find("^Method::") then relu = relu + 1; break end
  end
end
print(#g.nodes, #d.nodes, #d.edges // 2, #d.groups, relu, #by.relu.events,
  string.format("%.6g", by.relu.time), by.relu.group, by.addmm.group,
  by.executorch_call_delegate.time == nil and "untimed" or "timed",
  d.groups[1] and (d.groups[1].name:gsub(" ", "_")) or "-")' >"$T/model" 2>&1
read -r GN DN DE DG RELU RELU_EV RELU_T RELU_G ADDMM_G CALL_T GROUP <"$T/model"
ok "the view has every node of the edge program ($DN of $GN)" test "$DN" = "$GN" -a "${GN:-0}" -gt 0
ok "... its edges from node inputs (4: conv -> conv_1 -> relu, conv -> delegate call -> addmm)" test "$DE" = 4
ok "... one delegated subgraph, the DELEGATE_CALL's ($GROUP)" test "$DG $GROUP" = "1 XnnpackBackend_(instruction_1)"
ok "... relu in it, addmm not ($RELU_G $ADDMM_G)" test "$RELU_G $ADDMM_G" = "0 -1"
ok "... relu's events: the delegated op and the DELEGATE_CALL ($RELU_EV of $RELU)" test "$RELU_EV" = "$RELU" -a "$RELU" = 2
ok "... relu's time: its delegated event's p50 (fused_relu #1, 0.01145 ms), not the call's ($RELU_T)" \
    test "$RELU_T" = 0.01145
ok "... a node no event is linked to has no time ($CALL_T)" test "$CALL_T" = untimed

# the link budget: a record that links more (event, node) pairs than it
# leaves the rest of the events out, and says so
ET_A="$SAMPLE" ET_B="$SAMPLE_REC" "$ETINSPECT" -e '
local insp = require("etinspect").Inspector{etdump_path = os.getenv("ET_A"), etrecord = os.getenv("ET_B")}
local gv = require("etinspect.html_graph")
local all = gv.data(insp, 2, 0)
gv.LINK_BUDGET = 3
local d = gv.data(insp, 2, 0)
local html = gv.section_html(d, nil, "ms", require("etinspect.html").escape)
print(#all.events, all.truncated or "-", #d.events, d.truncated or "-",
  html:find("id=\"graph-truncated\">Events from #4 of the block on", 1, true) and "noted" or "silent")' >"$T/budget" 2>&1
ok "above LINK_BUDGET the events from the one that passes it are left out, with a note ($(cat "$T/budget"))" \
    test "$(cat "$T/budget")" = "$(printf '7\t-\t3\t4\tnoted')"

# the contract and the size limit
ET_A="$SAMPLE" ET_B="$SAMPLE_REC" ET_C="$T/bad.html" "$ETINSPECT" -e '
local insp = require("etinspect").Inspector{etdump_path = os.getenv("ET_A"), etrecord = os.getenv("ET_B")}
print(select(2, pcall(insp.write_html, insp, os.getenv("ET_C"), {max_graph_nodes = "many"})))' >"$T/bad.out" 2>&1
ok "opts.max_graph_nodes must be an integer ($(head -n 1 "$T/bad.out"))" grep -q 'max_graph_nodes' "$T/bad.out"
ET_A="$SAMPLE" ET_B="$SAMPLE_REC" ET_C="$T/capped.html" "$ETINSPECT" -e '
local insp = require("etinspect").Inspector{etdump_path = os.getenv("ET_A"), etrecord = os.getenv("ET_B")}
insp:write_html(os.getenv("ET_C"), {max_graph_nodes = 3})' 2>"$T/capped.err"
ok "above max_graph_nodes the section says why" grep -q '<p class="note" id="graph-none">No graph view: 5 nodes (more than max_graph_nodes = 3)' "$T/capped.html"
ok "... and the page holds no graph data nor layout library" sh -c "! grep -q 'et-graph\\|dagre, inlined' '$T/capped.html'"

# the synthetic 1,000-node graph
if [ -x "$GEN" ]; then
    NODES=1000 OUT="$T/big.etrecord" ET_SRC="$ET_SRC" ET_BUILD="$ET_BUILD" \
        "$ETINSPECT" -e 'dofile(os.getenv("ET_SRC") .. "/tests/lua/graphgen.lua")'
    "$GEN" "$T/big.etdp" 1000 3 >/dev/null
    "$ETINSPECT" --etdump_path "$T/big.etdp" --etrecord_path "$T/big.etrecord" --html_path "$T/big.html" -q
    ok "a 1,000-node ETRecord's report" test -s "$T/big.html"
    ok "... a node named with HTML specials cannot close the data's script" \
        sh -c "! grep -q 'n1</script>' '$T/big.html'"
fi

CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)}
if [ -z "$CHROMIUM" ]; then
    skip "chromium is not installed (apt-get install chromium): the graph view is not checked in a browser"
    done_testing
fi
# chrome NAME URL ARGS...: Chromium headless on URL, every host name
# unresolvable; stdout in $T/NAME.out, its log in $T/NAME.err
chrome() {
    cname=$1 url=$2
    shift 2
    HOME="$T/home" XDG_CONFIG_HOME="$T/home/.config" XDG_CACHE_HOME="$T/home/.cache" \
    timeout -k 5 120 "$CHROMIUM" --headless=new --no-sandbox --disable-gpu --no-first-run \
        --disable-extensions --disable-background-networking --disable-component-update \
        --disable-sync --disable-default-apps --user-data-dir="$T/profile-$cname" \
        --host-resolver-rules="MAP * ~NOTFOUND" --enable-logging=stderr --v=0 \
        "$@" "$url" >"$T/$cname.out" 2>"$T/$cname.err"
}
mkdir -p "$T/home"
# svg NAME: attribute NAME of <svg id="graph"> in $D
svg() { grep -o '<svg id="graph"[^>]*>' "$D" | sed -n "s/.* $1=\"\\([^\"]*\\)\".*/\\1/p" | head -n 1; }
events() { grep -o '<div id="graph-events"[^>]*>' "$D" | sed -n 's/.* data-events="\([^"]*\)".*/\1/p'; }
quiet() {
    if grep -q 'CONSOLE' "$T/$1.err"; then
        fail "$1: the browser logged no console message (CSP violation, script error)" \
            "$(grep CONSOLE "$T/$1.err" | head -n 3)"
    else
        pass "$1: the browser logged no console message (CSP violation, script error)"
    fi
}

chrome sample "file://$T/sample.html#test-click=relu" --window-size=1366,900 --virtual-time-budget=20000 --dump-dom
D="$T/sample.out"
if ! grep -q '</html>' "$D"; then
    fail "sample: headless Chromium renders the report" "$(grep -v dbus "$T/sample.err" | tail -n 5)"
else
    ok "sample: the graph is laid out (data-ready $(svg data-ready), $(svg data-layout-ms) ms)" test "$(svg data-ready)" = 1
    ok "sample: every node drawn ($(svg data-nodes) of $DN)" test "$(svg data-nodes)" = "$DN"
    ok "sample: every edge drawn ($(svg data-edges) of $DE)" test "$(svg data-edges)" = "$DE"
    ok "sample: the delegated subgraph boxed ($(svg data-groups))" test "$(svg data-groups)" = 1
    n=$(grep -oE '<g class="node( sel)?"' "$D" | wc -l | tr -d ' ')
    ok "sample: one node box per node ($n)" test "$n" = "$DN"
    ok "sample: the click selected relu ($(svg data-selected))" test "$(svg data-selected)" = relu
    ok "sample: ... and listed its $RELU events ($(events))" test "$(events)" = "$RELU"
    ok "sample: ... by name" grep -q '<td>fused_relu #1</td>' "$D"
    quiet sample
fi

# the network, as html.t checks it: the page with its graph, its CSP
# removed (so that the CSP cannot hide a reference the graph's script or
# dagre makes), laid out and clicked, requests nothing; a control page's
# external image shows the NetLog records requests
page_requests() {
    grep '"network_isolation_key":"file://' "$1" | grep -o '"url":"[^"]*"' | grep -v '"url":"file:' | sort -u
}
grep -v 'http-equiv="Content-Security-Policy"' "$T/sample.html" >"$T/nocsp.html"
chrome nocsp "file://$T/nocsp.html#test-click=relu" --virtual-time-budget=20000 --dump-dom \
    --log-net-log="$T/nocsp.netlog" --net-log-capture-mode=Everything
printf '<!DOCTYPE html><title>control</title><img src="http://etinspect.invalid/x.png">\n' >"$T/control.html"
chrome control "file://$T/control.html" --dump-dom --log-net-log="$T/control.netlog" --net-log-capture-mode=Everything
if [ -s "$T/control.netlog" ] && [ -n "$(page_requests "$T/control.netlog")" ]; then
    D="$T/nocsp.out"
    ok "without its CSP: the graph is still laid out and clicked ($(svg data-selected))" test "$(svg data-selected)" = relu
    reqs=$(page_requests "$T/nocsp.netlog")
    ok "without its CSP: the page requests nothing (NetLog${reqs:+: $reqs})" test -s "$T/nocsp.netlog" -a -z "$reqs"
else
    skip "this Chromium's NetLog records no request of a control page: the no-request check cannot be made"
fi

if [ -s "$T/big.html" ]; then
    chrome big "file://$T/big.html#test-click=n500" --window-size=1366,900 --virtual-time-budget=60000 --dump-dom
    D="$T/big.out"
    if ! grep -q '</html>' "$D"; then
        fail "1,000 nodes: headless Chromium renders the report" "$(grep -v dbus "$T/big.err" | tail -n 5)"
    else
        diag "1,000 nodes, 1,198 edges: laid out and drawn in $(svg data-layout-ms) ms"
        ok "1,000 nodes: laid out ($(svg data-ready))" test "$(svg data-ready)" = 1
        ok "1,000 nodes: every node drawn ($(svg data-nodes))" test "$(svg data-nodes)" = 1000
        ok "1,000 nodes: every edge drawn ($(svg data-edges) of 1198)" test "$(svg data-edges)" = 1198
        ok "1,000 nodes: shown from the top at a readable zoom (>= 0.5: $(svg data-zoom))" \
            awk -v z="$(svg data-zoom)" 'BEGIN { exit !(z >= 0.5) }'
        ok "1,000 nodes: the click selected n500 ($(svg data-selected))" test "$(svg data-selected)" = n500
        ok "1,000 nodes: ... and listed its one event ($(events))" test "$(events)" = 1
        ok "1,000 nodes: the node with HTML specials is named as written" \
            grep -qF 'data-name="n1&lt;/script&gt;&amp;'"'"'&quot;&lt;!--"' "$D"
        quiet big
    fi
fi

# screenshots of the graph section alone, kept under build/test-output
case "$ETINSPECT" in
*/asan/*) skip "screenshots: taken in the plain build's run"; done_testing ;;
esac
mkdir -p "$ET_BUILD/test-output"
for name in sample big; do
    [ -s "$T/$name.html" ] || continue
    sed 's|</head>|<style>main>*:not(#graph-section){display:none}</style></head>|' "$T/$name.html" >"$T/$name-only.html"
    click=relu; [ "$name" = big ] && click=n3
    chrome "shot-$name" "file://$T/$name-only.html#test-click=$click" --window-size=1366,900 \
        --screenshot="$T/html-graph-$name.png"
    if [ "$(od -An -tx1 -N4 "$T/html-graph-$name.png" 2>/dev/null | tr -d ' \n')" = "89504e47" ]; then
        pass "$name: a screenshot of the graph view"
        cp "$T/html-graph-$name.png" "$ET_BUILD/test-output/html-graph-$name.png"
    else
        fail "$name: a screenshot of the graph view" "$(grep -v dbus "$T/shot-$name.err" | tail -n 3)"
    fi
done

done_testing
