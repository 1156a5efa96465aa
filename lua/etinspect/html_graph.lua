--- etinspect.html_graph: the graph view of the HTML report (issue 27).
--
-- With an ETRecord, the report draws the exported program of the method its
-- timeline block is linked to as a layered DAG, laid out in the page by
-- dagre (vendor/dagre, inlined with its licence as etinspect.html_dagre):
-- one box per operator node (graph.h: memory.alloc nodes, placeholders and
-- the output are not nodes), edges from node inputs to the nodes that
-- produce them, nodes coloured by their time, delegated subgraphs (the
-- nodes a DELEGATE_CALL ran) boxed together with their backend's name, and
-- a click on a node listing its events.  See docs/html-report.md "Graph".
--
--   M.data(insp, block_index, max_nodes)  -> the view's data, or nil and why
--   M.json(data, json_str)                -> its JSON for the page
--   M.section_html(data, unit, esc)       -> the section's HTML
--   M.STYLE, M.SCRIPT                     -> the view's style and script
--   M.library()                           -> {JS =, LICENSE =} (dagre)
local _ENV = require("etinspect")._core.std -- the standard library as it was at load
-- the embedded module's loader, kept at load (a script may remove globals)
local dagre_loader = package.preload["etinspect.html_dagre"]

local M = {}

--- (event, node) links the view attributes at most: the events of the block
-- from the one that would pass it on are left out (a hostile record that
-- links every event to every node costs no more than this).
M.LINK_BUDGET = 200000

--- The layout library and its licence (generated from vendor/dagre), loaded
-- for each page with a graph view and not kept (package.loaded does not
-- hold its 50 KB: a process that writes a report keeps no more memory, nor
-- a slower garbage collector's pace, than before).
-- @treturn table {JS = the minified script, LICENSE = the licences' text}
function M.library()
  return dagre_loader("etinspect.html_dagre")
end

--- The node's short label: the op's name without its namespace and
-- overload ("aten.convolution.default" -> "convolution").
-- @tparam string op
-- @treturn string
function M.label(op)
  op = tostring(op or "")
  local a, b = op:match("^[^.]+%.([^.]+)%.([^.]+)$")
  if a then return a end
  return (op:match("([^.]+)$") or op)
end

--- The innermost module of a node, "path (Type)", or "".
local function node_module(node)
  local ok, mh = pcall(function() return node.module_hierarchy end)
  if not ok or type(mh) ~= "table" then return "" end
  local last
  for _, entry in pairs(mh) do last = entry end
  if type(last) ~= "table" then return "" end
  local path, typ = tostring(last[1] or ""), tostring(last[2] or "")
  local s = path ~= "" and path or "(root)"
  if typ ~= "" then s = s .. " (" .. (typ:match("([^%.]+)$") or typ) .. ")" end
  return s
end

--- The handles of an event as a sequence (ev.debug_handles is an integer,
-- a sequence or nil).
local function handles_of(ev)
  local h = ev.debug_handles
  if h == nil then return {} end
  if math.type(h) == "integer" then return { h } end
  local out = {}
  for _, v in ipairs(h) do if math.type(v) == "integer" then out[#out + 1] = v end end
  return out
end

--- The graph view's data: the exported program of the method block
-- `bi` is linked to (blk.etrecord_method; the record's default method when
-- unset) and, per node, the events of that block linked to it.
--
-- A node's time (target unit) is the sum over its operator and delegated
-- events of the event's p50 divided by the number of nodes the event is
-- linked to (an event that ran several nodes - a delegated op, a fused
-- kernel - splits its time evenly among them); a node linked to no such
-- event but to a DELEGATE_CALL takes that call's share the same way.  A
-- DELEGATE_CALL's nodes form a group named by its backend (the first group
-- wins for a node two calls name); delegated events' nodes outside every
-- group are grouped by backend.
-- @tparam Inspector insp
-- @tparam integer|nil bi the block (nil: no blocks)
-- @tparam integer max_nodes nodes drawn at most (0: no limit)
-- @treturn table|nil {method =, block =, block_name =, nodes = {{name, op,
--   label, handle, module, time, group (0-based or -1), events = {k,...}},
--   ...}, edges = {from, to, ...} (1-based node indices, flat), groups =
--   {{name =, backend =}, ...}, events = {{name, p50, track, index, shared}, ...},
--   max_time =, truncated = the index of the first event left out when
--   M.LINK_BUDGET was reached, else nil}
-- @treturn string|nil why there is no view (no ETRecord, no graph, too
--   many nodes: "N nodes (more than max_nodes)")
function M.data(insp, bi, max_nodes)
  local rec = insp.etrecord
  if not rec then return nil, "no ETRecord" end
  local blk = bi and insp.event_blocks[bi] or nil
  local method = blk and blk.etrecord_method or nil
  local ok, g = pcall(function() return insp:get_exported_program(nil, method) end)
  if not ok or g == nil then return nil, "the ETRecord has no edge program" .. (method and (" for " .. method) or "") end
  local gnodes = g.nodes
  if max_nodes > 0 and #gnodes > max_nodes then
    return nil, string.format("%d nodes (more than max_graph_nodes = %d)", #gnodes, max_nodes)
  end
  local nodes, by_handle, producer = {}, {}, {}
  for i, node in ipairs(gnodes) do
    local op = node.op or ""
    nodes[i] = { name = node.name, op = op, label = M.label(op), handle = node.debug_handle,
                 module = node_module(node), time = nil, group = -1, events = {}, op_time = 0, call_time = 0 }
    local h = node.debug_handle
    if h then
      local list = by_handle[h]
      if not list then list = {}; by_handle[h] = list end
      list[#list + 1] = i
    end
    for _, o in ipairs(node.outputs or {}) do if producer[o] == nil then producer[o] = i end end
    if producer[node.name] == nil then producer[node.name] = i end
  end
  local edges, seen = {}, {}
  for i, node in ipairs(gnodes) do
    for _, input in ipairs(node.inputs or {}) do
      local from = producer[input]
      if from and from ~= i and not seen[from * (#gnodes + 1) + i] then
        seen[from * (#gnodes + 1) + i] = true
        edges[#edges + 1] = from
        edges[#edges + 1] = i
      end
    end
  end
  local events, groups, group_of_backend = {}, {}, {}
  local links, truncated = 0, nil
  if blk then
    for e, ev in ipairs(blk.events) do
      local linked, mark = {}, {}
      for _, h in ipairs(handles_of(ev)) do
        for _, i in ipairs(by_handle[h] or {}) do
          if not mark[i] then mark[i] = true; linked[#linked + 1] = i end
        end
      end
      local delegated, backend, name = ev.is_delegated_op, ev.delegate_backend_name, tostring(ev.name)
      local call = not delegated and (backend ~= nil or name:find("OPERATOR_CALL", 1, true) ~= nil)
      -- the method's and program's phases (Method::execute shares instruction
      -- 0's handle) are not a node's events; any other event but the calls
      -- is the node's kernel
      local phase = name:find("^Method::") or name:find("^Program::")
      local kernel = not call and not phase
      if #linked > 0 and not phase and links + #linked > M.LINK_BUDGET then
        truncated = e
        break
      end
      if #linked > 0 and not phase then
        links = links + #linked
        local pd = ev.perf_data
        local p50 = pd and pd.p50
        if p50 ~= nil and p50 ~= p50 then p50 = nil end
        events[#events + 1] = { name = ev.name, p50 = p50, index = e, shared = #linked,
                                track = delegated and "d" or (kernel and "o" or "f") }
        local k = #events
        local share = p50 and p50 / #linked or 0
        local group = -1
        if backend ~= nil and not delegated then -- a DELEGATE_CALL: its subgraph
          groups[#groups + 1] = { name = string.format("%s (instruction %d)",
            backend ~= "" and backend or "delegate", ev.instruction_id), backend = backend, call = true }
          group = #groups - 1
        elseif backend ~= nil then
          group = group_of_backend[backend]
          if group == nil then
            groups[#groups + 1] = { name = backend ~= "" and backend or "delegate", backend = backend }
            group = #groups - 1
            group_of_backend[backend] = group
          end
        end
        for _, i in ipairs(linked) do
          local n = nodes[i]
          n.events[#n.events + 1] = k
          if p50 then
            if kernel then n.op_time = n.op_time + share; n.has_op = true
            elseif backend ~= nil then n.call_time = n.call_time + share; n.has_call = true end
          end
          -- a DELEGATE_CALL's group wins over a backend's
          if group >= 0 and (n.group < 0 or (groups[group + 1].call and not groups[n.group + 1].call)) then
            n.group = group
          end
        end
      end
    end
  end
  -- a group made for delegated events' backend that every node left for a
  -- DELEGATE_CALL group stays listed but empty: drop empty groups
  local used, remap, kept = {}, {}, {}
  for _, n in ipairs(nodes) do if n.group >= 0 then used[n.group] = true end end
  for k, grp in ipairs(groups) do
    if used[k - 1] then kept[#kept + 1] = grp; remap[k - 1] = #kept - 1 end
  end
  local max_time = 0
  for _, n in ipairs(nodes) do
    if n.group >= 0 then n.group = remap[n.group] end
    if n.has_op then n.time = n.op_time elseif n.has_call then n.time = n.call_time end
    if n.time and n.time > max_time then max_time = n.time end
    n.op_time, n.call_time, n.has_op, n.has_call = nil, nil, nil, nil
  end
  return { method = method, block = bi, block_name = blk and blk.name, nodes = nodes, edges = edges,
           groups = kept, events = events, max_time = max_time, truncated = truncated }
end

--- A number for the page's JSON: "null" for nil, integers as they are,
-- others with 9 significant digits.
local function jnum(v)
  if v == nil or v ~= v or v == math.huge or v == -math.huge then return "null" end
  if math.type(v) == "integer" then return string.format("%d", v) end
  return string.format("%.9g", v)
end

--- The view's data as JSON for the page (`json_str` makes a string
-- literal safe inside <script>): {"method", "block", "nodes": [{"n" name,
-- "op", "l" label, "h" handle, "m" module, "t" time, "g" group, "e" event
-- indices (0-based)}], "edges": [from, to, ...] (0-based), "groups":
-- [name, ...], "events": [{"n", "p" p50, "k" track, "i" event index in the
-- block (1-based), "s" nodes shared}], "max"}.
-- @treturn string JSON
function M.json(d, json_str)
  local nodes = {}
  for i, n in ipairs(d.nodes) do
    local ev = {}
    for j, k in ipairs(n.events) do ev[j] = string.format("%d", k - 1) end
    nodes[i] = string.format('{"n":%s,"op":%s,"l":%s,"h":%s,"m":%s,"t":%s,"g":%d,"e":[%s]}',
      json_str(n.name), json_str(n.op), json_str(n.label), jnum(n.handle), json_str(n.module), jnum(n.time),
      n.group, table.concat(ev, ","))
  end
  local edges = {}
  for i, v in ipairs(d.edges) do edges[i] = string.format("%d", v - 1) end
  local groups = {}
  for i, grp in ipairs(d.groups) do groups[i] = json_str(grp.name) end
  local events = {}
  for i, e in ipairs(d.events) do
    events[i] = string.format('{"n":%s,"p":%s,"k":"%s","i":%d,"s":%d}', json_str(e.name), jnum(e.p50), e.track,
      e.index, e.shared)
  end
  return string.format('{"method":%s,"block":%s,"nodes":[%s],"edges":[%s],"groups":[%s],"events":[%s],"max":%s}',
    d.method and json_str(d.method) or "null", d.block_name and json_str(d.block_name) or "null",
    table.concat(nodes, ","), table.concat(edges, ","), table.concat(groups, ","), table.concat(events, ","),
    jnum(d.max_time))
end

--- The graph section (nothing when there is no ETRecord; a note when the
-- record has no graph to draw or it is too large).
-- @tparam table|nil d M.data's result
-- @tparam string|nil why M.data's reason when d is nil
-- @tparam string unit the target time unit
-- @tparam function esc HTML escape
-- @treturn string HTML
function M.section_html(d, why, unit, esc)
  if d == nil and why == "no ETRecord" then return "" end
  local out = { '<section id="graph-section"><h2>Graph</h2>' }
  if d == nil then
    out[#out + 1] = '<p class="note" id="graph-none">No graph view: ' .. esc(why) .. ".</p></section>"
    return table.concat(out, "\n")
  end
  out[#out + 1] = string.format('<p class="note">The exported program%s as a layered graph: %d operator nodes, '
    .. "%d edges (a node's inputs from the nodes that produce them). Colour: a node's time in block %s, the "
    .. "p50 of its operator and delegated events in %s, an event linked to several nodes split evenly among "
    .. "them (grey: no timed event). Dashed boxes: delegated subgraphs. Click a node to list its events; "
    .. "drag to pan, wheel or the buttons to zoom.</p>",
    d.method and (" of method <code>" .. esc(d.method) .. "</code>") or "", #d.nodes, #d.edges // 2,
    d.block_name and ("“" .. esc(d.block_name) .. "”") or "(none)", esc(unit))
  if d.truncated then
    out[#out + 1] = string.format('<p class="note truncated" id="graph-truncated">Events from #%d of the block on '
      .. "are not attributed to nodes: they link more than %d (event, node) pairs.</p>", d.truncated, M.LINK_BUDGET)
  end
  out[#out + 1] = '<div class="controls"><span>zoom <button type="button" id="graph-zoom-in" title="zoom in">+</button>'
    .. '<button type="button" id="graph-zoom-out" title="zoom out">−</button>'
    .. '<button type="button" id="graph-fit" title="the whole graph">fit</button></span>'
    .. '<span class="legend" id="graph-legend"></span><span id="graph-status" class="muted">laying out…</span></div>'
  out[#out + 1] = '<div class="graph-wrap"><svg id="graph" role="img" aria-label="The exported program as a graph"></svg></div>'
  out[#out + 1] = '<div id="graph-events"><p class="muted">Click a node to list its events.</p></div></section>'
  return table.concat(out, "\n")
end

M.STYLE = [==[
.graph-wrap{border:1px solid var(--line);height:620px;overflow:hidden;position:relative;background:#fbfcfd;touch-action:none;cursor:grab}
#graph{width:100%;height:100%;display:block;user-select:none}
#graph .node rect{stroke:#7a8896;stroke-width:1}#graph .node text{font:11px ui-monospace,"DejaVu Sans Mono",monospace;fill:#1d232a;pointer-events:none}
#graph .node{cursor:pointer}#graph .node.sel rect{stroke:#000;stroke-width:3}
#graph .edge{fill:none;stroke:#9aa6b2;stroke-width:1}#graph .cluster rect{fill:rgba(224,131,43,.07);stroke:var(--delegate);stroke-dasharray:5 3}
#graph .cluster text{font-size:11px;fill:var(--delegate)}
.legend{display:inline-flex;align-items:center;gap:6px;margin:0 12px;font-size:12px}
.legend .ramp{display:inline-block;width:120px;height:10px;border:1px solid var(--line)}
#graph-events table{width:auto;min-width:50%}
]==]

M.SCRIPT = [==[
(function () {
  "use strict";
  var doc = document;
  var dataEl = doc.getElementById("et-graph"), svg = doc.getElementById("graph");
  if (!dataEl || !svg || typeof dagre === "undefined") return;
  var NS = svg.namespaceURI; // the SVG namespace, which the page never spells out
  var G = JSON.parse(dataEl.textContent), status = doc.getElementById("graph-status");
  var list = doc.getElementById("graph-events"), unit = "";
  try { unit = JSON.parse(doc.getElementById("et-meta").textContent).unit; } catch (e) { unit = ""; }
  var lo = [255, 243, 196], hi = [192, 57, 43];
  function colour(t) {
    if (t === null || !(G.max > 0)) return "#e6e9ec";
    var f = Math.sqrt(Math.max(0, t) / G.max), c = [];
    for (var i = 0; i < 3; i++) c.push(Math.round(lo[i] + (hi[i] - lo[i]) * f));
    return "rgb(" + c.join(",") + ")";
  }
  function el(name, attrs, parent) {
    var e = doc.createElementNS(NS, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function fmt(v) { return v === null ? "" : (Math.abs(v) >= 1000 ? v.toFixed(0) : String(+v.toPrecision(4))); }
  var legend = doc.getElementById("graph-legend");
  if (legend) {
    legend.textContent = "0 ";
    var ramp = doc.createElement("span");
    ramp.className = "ramp";
    ramp.style.background = "linear-gradient(to right," + colour(0) + "," + colour(G.max * 0.25) + "," + colour(G.max) + ")";
    legend.appendChild(ramp);
    legend.appendChild(doc.createTextNode(" " + fmt(G.max) + " " + unit));
  }
  var view = el("g", { "class": "view" }, svg), nodeEls = [], selected = -1;
  var tx = 0, ty = 0, k = 1, W = 1, H = 1;
  function apply() {
    view.setAttribute("transform", "translate(" + tx + "," + ty + ") scale(" + k + ")");
    svg.setAttribute("data-zoom", String(+k.toPrecision(4)));
  }
  function zoomAt(f, px, py) {
    var nk = Math.min(4, Math.max(0.02, k * f));
    tx = px - (px - tx) * nk / k; ty = py - (py - ty) * nk / k; k = nk; apply();
  }
  function fit() {
    var r = svg.getBoundingClientRect(), s = Math.min(r.width / (W + 20), r.height / (H + 20), 1);
    k = s; tx = (r.width - W * s) / 2; ty = 10; apply();
  }
  function select(i) {
    if (selected >= 0) nodeEls[selected].classList.remove("sel");
    selected = i;
    nodeEls[i].classList.add("sel");
    var n = G.nodes[i];
    svg.setAttribute("data-selected", n.n);
    list.textContent = "";
    var h = doc.createElement("h3");
    h.textContent = n.n + " — " + n.op + (n.h !== null ? " (debug handle " + n.h + ")" : "") +
      (n.m ? " in " + n.m : "") + (n.g >= 0 ? ", " + G.groups[n.g] : "");
    list.appendChild(h);
    if (!n.e.length) {
      var p = doc.createElement("p"); p.className = "muted"; p.textContent = "No event of block " + G.block + " is linked to this node.";
      list.appendChild(p); list.setAttribute("data-events", "0"); return;
    }
    var t = doc.createElement("table"), head = t.createTHead().insertRow();
    ["event #", "name", "p50 (" + unit + ")", "track", "nodes it ran"].forEach(function (s) {
      var th = doc.createElement("th"); th.textContent = s; head.appendChild(th);
    });
    var body = t.createTBody(), tracks = { f: "framework", o: "operator", d: "delegated" };
    n.e.forEach(function (j) {
      var ev = G.events[j], r = body.insertRow();
      r.className = "graph-event";
      [ev.i, ev.n, fmt(ev.p), tracks[ev.k], ev.s].forEach(function (v, c) {
        var td = r.insertCell(); td.textContent = String(v); if (c === 0 || c === 2 || c === 4) td.className = "num";
      });
    });
    list.appendChild(t);
    list.setAttribute("data-events", String(n.e.length));
  }
  function layout() {
    var t0 = performance.now();
    var g = new dagre.graphlib.Graph({ compound: G.groups.length > 0 });
    g.setGraph({ rankdir: "TB", nodesep: 14, ranksep: 28, edgesep: 6, marginx: 10, marginy: 10 });
    g.setDefaultEdgeLabel(function () { return {}; });
    G.groups.forEach(function (name, j) { g.setNode("c" + j, { label: name, clusterLabelPos: "top", paddingTop: 18 }); });
    G.nodes.forEach(function (n, i) {
      g.setNode("n" + i, { width: Math.max(48, 7 * n.l.length + 14), height: 26 });
      if (n.g >= 0) g.setParent("n" + i, "c" + n.g);
    });
    for (var e = 0; e + 1 < G.edges.length; e += 2) g.setEdge("n" + G.edges[e], "n" + G.edges[e + 1]);
    dagre.layout(g);
    var gl = g.graph(); W = gl.width || 1; H = gl.height || 1;
    var cl = el("g", {}, view), eg = el("g", {}, view), ng = el("g", {}, view);
    G.groups.forEach(function (name, j) {
      var c = g.node("c" + j); if (!c || !c.width) return;
      var cg = el("g", { "class": "cluster" }, cl);
      el("rect", { x: c.x - c.width / 2, y: c.y - c.height / 2, width: c.width, height: c.height, rx: 6 }, cg);
      el("text", { x: c.x - c.width / 2 + 6, y: c.y - c.height / 2 + 13 }, cg).textContent = name;
    });
    g.edges().forEach(function (ed) {
      var pts = g.edge(ed).points || [], d = "";
      pts.forEach(function (p, i) { d += (i ? "L" : "M") + p.x.toFixed(1) + " " + p.y.toFixed(1); });
      if (d) el("path", { "class": "edge", d: d }, eg);
    });
    G.nodes.forEach(function (n, i) {
      var p = g.node("n" + i), ge = el("g", { "class": "node", "data-i": i, "data-name": n.n,
        transform: "translate(" + (p.x - p.width / 2).toFixed(1) + "," + (p.y - p.height / 2).toFixed(1) + ")" }, ng);
      el("rect", { width: p.width, height: p.height, rx: 4, fill: colour(n.t) }, ge);
      el("text", { x: 7, y: 17 }, ge).textContent = n.l;
      el("title", {}, ge).textContent = n.n + "\n" + n.op + (n.t !== null ? "\n" + fmt(n.t) + " " + unit : "") +
        (n.m ? "\n" + n.m : "");
      nodeEls[i] = ge;
    });
    var ms = Math.round(performance.now() - t0);
    svg.setAttribute("data-nodes", String(G.nodes.length));
    svg.setAttribute("data-edges", String(eg.childNodes.length));
    svg.setAttribute("data-groups", String(cl.childNodes.length));
    svg.setAttribute("data-layout-ms", String(ms));
    status.textContent = G.nodes.length + " nodes laid out in " + ms + " ms";
    var r = svg.getBoundingClientRect();
    // a graph that fits at half size or more is shown whole; a larger one
    // (1,000 nodes are one long column) from its top, readable: its width
    // fitted, at 0.5 to 1
    if (Math.min(r.width / (W + 20), r.height / (H + 20)) >= 0.5) fit();
    else { k = Math.max(0.5, Math.min(1, r.width / (W + 20))); tx = Math.max(10, (r.width - W * k) / 2); ty = 10; apply(); }
    svg.addEventListener("click", function (ev) {
      var t = ev.target.closest ? ev.target.closest(".node") : null;
      if (t) select(+t.getAttribute("data-i"));
    });
    var m = /#test-click=([^&]*)/.exec(location.hash);
    if (m) {
      var want = decodeURIComponent(m[1]);
      nodeEls.forEach(function (ne) {
        if (ne.getAttribute("data-name") === want) ne.querySelector("rect").dispatchEvent(new MouseEvent("click", { bubbles: true }));
      });
    }
    svg.setAttribute("data-ready", "1");
  }
  var drag = null;
  svg.addEventListener("pointerdown", function (e) { drag = { x: e.clientX, y: e.clientY, tx: tx, ty: ty }; });
  svg.addEventListener("pointermove", function (e) {
    if (!drag) return;
    tx = drag.tx + e.clientX - drag.x; ty = drag.ty + e.clientY - drag.y; apply();
  });
  ["pointerup", "pointerleave"].forEach(function (t) { svg.addEventListener(t, function () { drag = null; }); });
  svg.addEventListener("wheel", function (e) {
    e.preventDefault();
    var r = svg.getBoundingClientRect();
    zoomAt(e.deltaY < 0 ? 1.2 : 1 / 1.2, e.clientX - r.left, e.clientY - r.top);
  }, { passive: false });
  function centre(f) { var r = svg.getBoundingClientRect(); zoomAt(f, r.width / 2, r.height / 2); }
  doc.getElementById("graph-zoom-in").addEventListener("click", function () { centre(1.5); });
  doc.getElementById("graph-zoom-out").addEventListener("click", function () { centre(1 / 1.5); });
  doc.getElementById("graph-fit").addEventListener("click", fit);
  setTimeout(function () {
    try { layout(); } catch (err) { status.textContent = "layout failed: " + err; svg.setAttribute("data-ready", "error"); throw err; }
  }, 0);
})();
]==]

return M
