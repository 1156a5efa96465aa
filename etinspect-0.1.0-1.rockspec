-- LuaRocks rockspec: `luarocks --lua-version 5.4 make` in a checkout builds
-- the C module etinspect.so with the project's Makefile (target
-- build/etinspect.so) and installs it into the rock tree (target
-- install-lua).  The version must be src/core/base/version.h's
-- (tests/e2e/rockspec.t checks the file name and the field).
rockspec_format = "3.0"
package = "etinspect"
version = "0.1.0-1"
source = {
  -- the checkout `luarocks make` runs in; no published archive yet
  url = ".",
}
description = {
  -- no license field: the project has not chosen one yet
  summary = "Read ExecuTorch ETDumps: the Python Inspector's model, in Lua",
  detailed = [[
The profiling and debugging artifacts of ExecuTorch -- ETDumps, debug
buffers, ETRecords, BundledPrograms, legacy profiler dumps -- read in C and
given to Lua 5.4 with the Python Inspector's names: event blocks, events,
perf data, op types, module hierarchy, numerical comparison, TSV, JSON,
timelines, SQLite and HTML reports.]],
  labels = { "executorch", "profiling", "pytorch" },
}
dependencies = {
  "lua >= 5.4, < 5.5",
  "argparse", -- report scripts' arguments (Debian: lua-argparse)
}
external_dependencies = {
  LIBZIP = { header = "zip.h" },
  YAJL = { header = "yajl/yajl_parse.h" },
  JANSSON = { header = "jansson.h" },
  SQLITE3 = { header = "sqlite3.h" },
  DOUBLE_CONVERSION = { header = "double-conversion/double-conversion.h" },
}
build = {
  type = "make",
  build_target = "build/etinspect.so",
  build_variables = {
    CC = "$(CC)",
    CFLAGS = "$(CFLAGS)",
    LUA_CFLAGS = "-I$(LUA_INCDIR)",
  },
  install_target = "install-lua",
  install_variables = {
    INST_LIBDIR = "$(LIBDIR)",
  },
}
