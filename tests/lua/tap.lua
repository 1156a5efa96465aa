--- tap.lua - Test Anything Protocol for the Lua tests (run by prove).
--
--   local t = require "tap"
--   t.ok(cond, "description")
--   t.is(got, want, "description")          equality (==), diagnostics on failure
--   t.near(got, want, tol, "description")   |got - want| <= tol * max(1, |want|)
--   t.raises(fn, pattern, "description")    fn() must raise an error matching pattern
--   t.skip_all("reason")                    plan 1..0, exit
--   t.run(cmd)                              a shell command's stdout and stderr, and its exit status
--   t.done()                                prints the plan; exits 1 when a test failed
--   t.shared, t.corpus, t.ref, t.build, t.src   paths from the environment
local M = { n = 0, failed = 0 }

M.src = os.getenv("ET_SRC") or "."
M.build = os.getenv("ET_BUILD") or (M.src .. "/build")
M.shared = os.getenv("ET_SHARED") or (M.src .. "/../shared")
M.corpus = M.shared .. "/corpus/etdump"
M.ref = M.shared .. "/corpus/ref"

local function diag(msg)
  for line in tostring(msg):gmatch("[^\n]+") do io.stderr:write("# ", line, "\n") end
end
M.diag = diag

function M.ok(cond, desc)
  M.n = M.n + 1
  if cond then
    io.write("ok ", M.n, " - ", desc, "\n")
  else
    M.failed = M.failed + 1
    io.write("not ok ", M.n, " - ", desc, "\n")
  end
  return cond
end

local function show(v)
  if type(v) == "string" then return string.format("%q", v) end
  return tostring(v)
end

function M.is(got, want, desc)
  local pass = got == want
  if not M.ok(pass, desc) then diag("got:  " .. show(got) .. "\nwant: " .. show(want)) end
  return pass
end

function M.near(got, want, tol, desc)
  local pass = type(got) == "number" and math.abs(got - want) <= tol * math.max(1, math.abs(want))
  if not M.ok(pass, desc) then diag("got:  " .. show(got) .. "\nwant: " .. show(want)) end
  return pass
end

-- The error fn(...) raises, without the position of the calling line, or
-- nil when it raises none.
function M.err_of(fn, ...)
  local ok, e = pcall(fn, ...)
  return not ok and (tostring(e):gsub("^[^\n]-:%d+: ", "", 1)) or nil
end

function M.raises(fn, pattern, desc)
  local ok, err = pcall(fn)
  local pass = not ok and tostring(err):find(pattern) ~= nil
  if not M.ok(pass, desc) then
    diag(ok and "no error raised" or ("error: " .. tostring(err) .. "\nwanted: " .. pattern))
  end
  return pass
end

function M.skip(reason)
  M.n = M.n + 1
  io.write("ok ", M.n, " # SKIP ", reason, "\n")
end

function M.skip_all(reason)
  io.write("1..0 # SKIP ", reason, "\n")
  os.exit(0)
end

function M.exists(path)
  local f = io.open(path, "rb")
  if f then f:close() end
  return f ~= nil
end

--- Run `cmd` in the shell; returns what it wrote to stdout and stderr
-- (together, in order) and its exit status.
function M.run(cmd)
  local p = io.popen(cmd .. " 2>&1; echo \"status=$?\"")
  local out = p:read("a")
  p:close()
  local status = tonumber(out:match("status=(%d+)\n$"))
  return (out:gsub("status=%d+\n$", "")), status
end

function M.read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

function M.done()
  io.write("1..", M.n, "\n")
  io.stdout:flush()
  os.exit(M.failed == 0 and 0 or 1)
end

return M
