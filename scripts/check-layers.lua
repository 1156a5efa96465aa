-- check-layers.lua - keep the layering of src/ true, and audit its symbols.
--
--   lua5.4 scripts/check-layers.lua [--no-symbols] [ROOT [BUILD]]
--   lua5.4 scripts/check-layers.lua --audit OBJDIR [ROOT]
--
-- ROOT is the checkout (default .), BUILD the build directory (default
-- ROOT/build).  Objects whose source (x.c, x.cc) is no longer in ROOT are
-- not read.
--
-- The layers, lowest first; a file may use files of its own layer and of
-- the layers below it, never of one above:
--
--   src/core/base < src/core/files < src/core/format < src/core/model
--     < src/core/table < src/core/output < src/lua (the binding) < src/host
--
-- (the Lua library lua/etinspect/*.lua sits between the binding and the
-- host; it has no #includes and is not checked here).  A layer holds every
-- file under its directory, subdirectories included.
--
-- A node of the graphs is a module: a path without its extension, so x.c,
-- x.h and x.cc are one node (src/core/model/model).  A header with no .c
-- (src/lua/binding.h, src/core/base/version.h) or a private header
-- (model_int.h) is a node of its own, in the layer of its directory.
--
-- Two graphs, the same rules for both:
--   include  `#include "x.h"` in ROOT/src/**/*.{c,h,cc}, resolved as the
--            compiler does: beside the including file, then src/core/,
--            then src/ (-Isrc/core -Isrc); includes that resolve to no file
--            of src/ (generated, system) are not edges.
--   symbol   `nm` of BUILD/src/**/*.o (made by `make all`): an undefined
--            symbol (function or data) of object A defined in object B is
--            an edge A -> B.  Generated objects (BUILD/gen) are not nodes.
-- scripts/ and tests/ are not part of the product's graphs.
-- Rules; each violation is one line, and the exit status is 1 if any:
--   upward       an edge from a lower layer to a higher one
--   group cycle  layers that use each other (implied by `upward` in a
--                total order, reported as such all the same)
--   file cycle   a cycle of three files or more (a strongly connected
--                component of >= 3 nodes; two files using each other are
--                allowed), with the edges that make it
--   core has Lua a file of src/core includes a Lua header (lua.h,
--                lauxlib.h, lualib.h, luaconf.h) or an object of src/core
--                uses a symbol of Lua's API (lua_*, luaL_*, luaopen_*)
--   no layer     a file under src/ that no layer holds
--   too long     a file of src/ over MAX_LINES (1,800) lines: a hub to split
--                at its seams
-- --no-symbols checks the include graph alone (no build needed).  Without
-- it, a BUILD with no objects under BUILD/src is an error (exit 2).  With
-- no violation, one line says how much was checked; the exit status is 0.
--
-- --audit OBJDIR reads every object under OBJDIR (the Makefile's `audit`
-- target compiles src/, tests/unit, tests/tools and tests/fuzz there at -O0,
-- so that no call is inlined away) and lists the public functions of the
-- product's objects (those under OBJDIR/src) that are:
--   dead          referenced from no object at all, their own included
--   static?       referenced from their own object only (could be static)
--   tests only    referenced, outside their own object, only from tests,
--                 tools or fuzz targets (informative)
-- References across objects come from `nm` (undefined symbols), within an
-- object from its relocations (`objdump -r`).  main, the fuzz entry points
-- (LLVMFuzzer*), link wrappers (__wrap_*) and the module's luaopen_* are
-- not listed.  The audit is a list to act on; its exit status is 0.

local LAYERS = {
    { dir = "src/core/base", name = "base" },
    { dir = "src/core/files", name = "files" },
    { dir = "src/core/format", name = "format" },
    { dir = "src/core/model", name = "model" },
    { dir = "src/core/table", name = "table" },
    { dir = "src/core/output", name = "output" },
    { dir = "src/lua", name = "lua" },
    { dir = "src/host", name = "host" },
}
local MAX_LINES = 1800

local LUA_HEADERS = { ["lua.h"] = true, ["lauxlib.h"] = true, ["lualib.h"] = true,
    ["luaconf.h"] = true, ["lua.hpp"] = true }

local function sh_quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local function lines_of(cmd)
    local p = assert(io.popen(cmd))
    local t = {}
    for l in p:lines() do t[#t + 1] = l end
    p:close()
    return t
end

-- the files under `dir` (relative to root) whose names match the find(1)
-- expression `expr`, as paths relative to root, sorted
local function find(root, dir, expr)
    local out = lines_of("cd " .. sh_quote(root) .. " && find " .. sh_quote(dir) ..
        " -type f " .. expr .. " 2>/dev/null | LC_ALL=C sort")
    for i, f in ipairs(out) do out[i] = f:gsub("^%./", "") end
    return out
end

local function exists(path)
    local f = io.open(path, "r")
    if f then f:close() end
    return f ~= nil
end

local function sorted_keys(t)
    local k = {}
    for x in pairs(t) do k[#k + 1] = x end
    table.sort(k)
    return k
end

-- a path without its extension: the node of a file (or of an object)
local function node_of(path) return (path:gsub("%.[^./]*$", "")) end

-- the index into LAYERS of a node, or nil
local function layer_of(node)
    for i, l in ipairs(LAYERS) do
        if node:sub(1, #l.dir + 1) == l.dir .. "/" then return i end
    end
end

-- Tarjan's strongly connected components of graph g (g[a][b] = label)
local function components(g)
    local index, low, onstack, stack, out, n = {}, {}, {}, {}, {}, 0
    local function visit(v)
        n = n + 1
        index[v], low[v] = n, n
        stack[#stack + 1] = v
        onstack[v] = true
        for _, w in ipairs(sorted_keys(g[v] or {})) do
            if not index[w] then
                visit(w)
                low[v] = math.min(low[v], low[w])
            elseif onstack[w] then
                low[v] = math.min(low[v], index[w])
            end
        end
        if low[v] == index[v] then
            local c = {}
            repeat
                local w = table.remove(stack)
                onstack[w] = nil
                c[#c + 1] = w
            until w == v
            table.sort(c)
            out[#out + 1] = c
        end
    end
    for _, v in ipairs(sorted_keys(g)) do
        if not index[v] then visit(v) end
    end
    return out
end

local violations = {}
local function violation(s) violations[#violations + 1] = s end

-- add the edge a -> b to g with label `what` (labels of an edge are kept
-- as a set: the symbols it uses, the headers it includes)
local function add_edge(g, a, b, what)
    if a == b then return end
    g[a] = g[a] or {}
    g[b] = g[b] or {}
    g[a][b] = g[a][b] or {}
    g[a][b][what] = true
end

local function label(set)
    local k = sorted_keys(set)
    return k[1] .. (#k > 1 and (" +" .. (#k - 1)) or "")
end

-- the three rules on graph g of kind ("include" or "symbol"); verb says
-- what an edge does ("includes", "uses")
local function check_graph(g, kind, verb)
    for _, a in ipairs(sorted_keys(g)) do
        local la = layer_of(a)
        for _, b in ipairs(sorted_keys(g[a])) do
            local lb = layer_of(b)
            if la and lb and lb > la then
                violation(string.format("upward %s: %s %s %s (%s): %s may not use %s, a higher layer",
                    kind, a, verb, b, label(g[a][b]), LAYERS[la].name, LAYERS[lb].name))
            end
        end
    end
    local groups = {}
    for a, outs in pairs(g) do
        for b in pairs(outs) do
            local la, lb = layer_of(a), layer_of(b)
            if la and lb then add_edge(groups, LAYERS[la].name, LAYERS[lb].name, a .. " -> " .. b) end
        end
    end
    for _, c in ipairs(components(groups)) do
        if #c > 1 then
            violation(string.format("group cycle %s: layers %s use each other", kind, table.concat(c, ", ")))
        end
    end
    for _, c in ipairs(components(g)) do
        if #c >= 3 then
            local in_c, edges = {}, {}
            for _, v in ipairs(c) do in_c[v] = true end
            for _, a in ipairs(c) do
                for _, b in ipairs(sorted_keys(g[a])) do
                    if in_c[b] then
                        edges[#edges + 1] = string.format("%s -> %s (%s)",
                            a:match("[^/]*$"), b:match("[^/]*$"), label(g[a][b]))
                    end
                end
            end
            violation(string.format("file cycle %s: %d files %s: %s", kind, #c,
                table.concat(c, " "), table.concat(edges, ", ")))
        end
    end
end

-- the include graph of root/src
local function include_graph(root)
    local g = {}
    for _, f in ipairs(find(root, "src", "\\( -name '*.c' -o -name '*.h' -o -name '*.cc' \\)")) do
        local a = node_of(f)
        g[a] = g[a] or {}
        if not layer_of(a) then violation("no layer: " .. f .. " is in no layer's directory") end
        local dir = f:match("^(.*)/[^/]*$")
        local n = 0
        for l in io.lines(root .. "/" .. f) do
            n = n + 1
            local q, name = l:match('^%s*#%s*include%s*([<"])([^>"]+)[>"]')
            if name then
                local base = name:match("[^/]*$")
                if LUA_HEADERS[base] and a:match("^src/core/") then
                    violation("core has Lua: " .. f .. " includes " .. name .. ": the core has no Lua")
                end
                if q == '"' then
                    for _, d in ipairs({ dir, "src/core", "src" }) do
                        local p = (d .. "/" .. name):gsub("/%./", "/")
                        while p:find("[^/]+/%.%./") do p = p:gsub("[^/]+/%.%./", "", 1) end
                        if p:match("^src/") and exists(root .. "/" .. p) then
                            add_edge(g, a, node_of(p), name)
                            break
                        end
                    end
                end
            end
        end
        if n > MAX_LINES then
            violation(string.format("too long: %s has %d lines, more than %d: split it at its seams", f, n,
                MAX_LINES))
        end
    end
    return g
end

-- nm -g of objects: defs[symbol] = { object, ... }, undef[object][symbol]
local function read_nm(objs)
    local defs, undef, types = {}, {}, {}
    for _, o in ipairs(objs) do undef[o] = {} end
    for i = 1, #objs, 200 do
        local args = {}
        for j = i, math.min(i + 199, #objs) do args[#args + 1] = sh_quote(objs[j]) end
        for _, l in ipairs(lines_of("nm -g -A " .. table.concat(args, " "))) do
            local o, t, s = l:match("^(.-%.o):%s*%x*%s+(%a)%s+(%S+)$")
            if o then
                if t == "U" or t == "w" or t == "v" then
                    undef[o][s] = true
                elseif t:match("%u") then
                    defs[s] = defs[s] or {}
                    table.insert(defs[s], o)
                    types[o .. " " .. s] = t
                end
            end
        end
    end
    return defs, undef, types
end

-- the objects (paths relative to their directory) whose source, x.c or
-- x.cc, is in root: an object left behind by a removed file is not read
local function with_source(root, objs)
    local out = {}
    for _, o in ipairs(objs) do
        local n = root .. "/" .. node_of(o)
        if exists(n .. ".c") or exists(n .. ".cc") then out[#out + 1] = o end
    end
    return out
end

local function symbol_graph(root, build)
    local objs = with_source(root, find(build, "src", "-name '*.o'"))
    if #objs == 0 then return nil end
    local full = {}
    for i, o in ipairs(objs) do full[i] = build .. "/" .. o end
    local defs, undef = read_nm(full)
    local g = {}
    for i, o in ipairs(full) do
        local a = node_of(objs[i])
        g[a] = g[a] or {}
        for s in pairs(undef[o]) do
            if a:match("^src/core/") and (s:match("^lua_") or s:match("^luaL_") or s:match("^luaopen_")) then
                violation("core has Lua: " .. objs[i] .. " uses " .. s .. " of Lua's API: the core has no Lua")
            end
            for _, d in ipairs(defs[s] or {}) do
                add_edge(g, a, node_of(d:sub(#build + 2)), s)
            end
        end
    end
    return g
end

local function audit(dir, root)
    local objs = with_source(root, find(dir, ".", "-name '*.o'"))
    local full = {}
    for i, o in ipairs(objs) do full[i] = dir .. "/" .. o end
    local defs, undef, types = read_nm(full)
    -- the global symbols each object's own relocations name
    local self_refs, cur = {}, nil
    for i = 1, #full, 200 do
        local args = {}
        for j = i, math.min(i + 199, #full) do args[#args + 1] = sh_quote(full[j]) end
        for _, l in ipairs(lines_of("objdump -r " .. table.concat(args, " ") .. " 2>/dev/null")) do
            local o = l:match("^(.-%.o):%s+file format")
            if o then
                cur = o
                self_refs[o] = {}
            else
                local s = l:match("^%x+%s+%S+%s+([^%s%+%-]+)")
                if s and cur then self_refs[cur][s] = true end
            end
        end
    end
    local function product(o) return o:sub(#dir + 2):match("^src/") ~= nil end
    local lists = { dead = {}, static = {}, tests = {} }
    for _, s in ipairs(sorted_keys(defs)) do
        local skip = s == "main" or s:match("^LLVMFuzzer") or s:match("^__wrap_") or s:match("^luaopen_")
        for _, o in ipairs(defs[s]) do
            if not skip and product(o) and types[o .. " " .. s] == "T" then
                local users = {}
                for _, u in ipairs(full) do
                    if u ~= o and undef[u][s] then users[#users + 1] = u end
                end
                local name = node_of(o:sub(#dir + 2))
                local line = string.format("%-36s %s", s, name)
                if #users == 0 then
                    table.insert(self_refs[o] and self_refs[o][s] and lists.static or lists.dead, line)
                else
                    local any = false
                    for _, u in ipairs(users) do any = any or product(u) end
                    if not any then
                        local names = {}
                        for k, u in ipairs(users) do names[k] = node_of(u:sub(#dir + 2)) end
                        lists.tests[#lists.tests + 1] = line .. "  <- " .. table.concat(names, " ")
                    end
                end
            end
        end
    end
    local function show(title, t)
        print(string.format("%s (%d):", title, #t))
        for _, l in ipairs(t) do print("  " .. l) end
    end
    show("dead: public functions referenced from no object", lists.dead)
    show("static?: public functions referenced from their own object only", lists.static)
    show("tests only: public functions referenced outside their object only by tests, tools, fuzz targets",
        lists.tests)
end

local args, opts = {}, {}
for _, a in ipairs(arg) do
    if a:match("^%-%-") then opts[a] = true else args[#args + 1] = a end
end
if opts["--audit"] then
    if not args[1] then
        io.stderr:write("usage: check-layers.lua --audit OBJDIR [ROOT]\n")
        os.exit(2)
    end
    audit(args[1], args[2] or ".")
    os.exit(0)
end
local root = args[1] or "."
local build = args[2] or (root .. "/build")
local ginc, gsym = include_graph(root), nil
check_graph(ginc, "include", "includes")
if not opts["--no-symbols"] then
    gsym = symbol_graph(root, build)
    if not gsym then
        io.stderr:write("check-layers: no objects under " .. build .. "/src (run make all first)\n")
        os.exit(2)
    end
    check_graph(gsym, "symbol", "uses")
end
for _, v in ipairs(violations) do print(v) end
if #violations > 0 then
    io.stderr:write(string.format("check-layers: %d violation%s of the layering (scripts/check-layers.lua)\n",
        #violations, #violations == 1 and "" or "s"))
    os.exit(1)
end
local function count(g)
    local n = 0
    for _, outs in pairs(g) do
        for _ in pairs(outs) do n = n + 1 end
    end
    return n
end
print(string.format("check-layers: the layering holds (%d modules, %d include edges%s)", #sorted_keys(ginc),
    count(ginc), gsym and string.format(", %d symbol edges", count(gsym)) or ""))
