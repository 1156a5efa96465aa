#!/bin/sh
# user_scripts.t - a user's own report scripts (issue 26): NAME.lua in the
# directories of ETINSPECT_PATH and in $XDG_CONFIG_HOME/etinspect/scripts
# run as `etinspect NAME`, are listed by --list-scripts next to the bundled
# ones, never shadow a bundled script (and say so); etinspect.scripts'
# usage_error and input_error work inside a script, as lua-api.md says,
# with the script's name and its --help hint.
. "$(dirname "$0")/lib.sh"
S="$ET_BUILD/fixtures/sample.etdp"
[ -f "$S" ] || skip_all "build/fixtures/sample.etdp missing (run make)"

mkdir -p "$T/p1" "$T/p2" "$T/cfg/etinspect/scripts" "$T/home"
cat >"$T/p1/slow.lua" <<'EOF'
return {
  description = "The slowest events of a dump",
  args = { { "etdump" }, { "--top", type = "integer", default = 1 } },
  run = function(a)
    if a.top < 1 then etinspect.scripts.usage_error("--top must be at least 1") end
    local ok, insp = pcall(etinspect.Inspector, { etdump_path = a.etdump })
    if not ok then etinspect.scripts.input_error(tostring(insp)) end
    print("p1 slow", #insp.event_blocks, a.top)
  end,
}
EOF
printf 'return { description = "the second slow", run = function() print("p2 slow") end, args = {} }\n' \
    >"$T/p2/slow.lua"
printf -- '-- the second directory only\nprint("p2 only", ...)\n' >"$T/p2/only2.lua"
printf 'return { description = "mine, named like a bundled one", args = {}, run = function() print("user top_ops ran") end }\n' \
    >"$T/cfg/etinspect/scripts/top_ops.lua"
printf 'print("from config", ...)\n' >"$T/cfg/etinspect/scripts/cfgplain.lua"
printf 'print("not a script name")\n' >"$T/p1/bad name.lua"

E() { HOME="$T/home" XDG_CONFIG_HOME="$T/cfg" ETINSPECT_PATH="$T/p1:$T/p2" "$ETINSPECT" "$@" \
    >"$T/out" 2>"$T/err" </dev/null; echo $? >"$T/st"; }
st() { cat "$T/st"; }

E slow "$S" --top 2
[ "$(st)" = 0 ] && grep -q "^p1 slow	2	2$" "$T/out" &&
    pass "a script of ETINSPECT_PATH runs by name, its arguments parsed" ||
    fail "a script of ETINSPECT_PATH runs by name" "exit $(st)" "$(cat "$T/out" "$T/err")"
E only2 a b
[ "$(st)" = 0 ] && grep -q "^p2 only	a	b$" "$T/out" &&
    pass "... from a later directory of ETINSPECT_PATH" || fail "... from a later directory"
E cfgplain x
[ "$(st)" = 0 ] && grep -q "^from config	x$" "$T/out" &&
    pass "a script of \$XDG_CONFIG_HOME/etinspect/scripts runs by name" ||
    fail "a script of \$XDG_CONFIG_HOME/etinspect/scripts runs by name" "$(cat "$T/err")"
mkdir -p "$T/home/.config/etinspect/scripts"
printf 'print("home config")\n' >"$T/home/.config/etinspect/scripts/homeplain.lua"
HOME="$T/home" XDG_CONFIG_HOME= ETINSPECT_PATH= "$ETINSPECT" homeplain >"$T/out" 2>&1
[ $? = 0 ] && grep -q "^home config$" "$T/out" &&
    pass "XDG_CONFIG_HOME empty: ~/.config/etinspect/scripts" ||
    fail "XDG_CONFIG_HOME empty: ~/.config/etinspect/scripts" "$(cat "$T/out")"

# precedence: the first directory wins; a bundled script is never shadowed
E slow "$S"
grep -q "^p1 slow" "$T/out" && ! grep -q "p2 slow" "$T/out" &&
    pass "two scripts of one name: the first directory of ETINSPECT_PATH wins" ||
    fail "two scripts of one name: the first directory wins"
E top_ops "$S" --format tsv --top 1
[ "$(st)" = 0 ] && grep -q "convolution" "$T/out" && ! grep -q "user top_ops ran" "$T/out" &&
    pass "a user script named like a bundled one does not shadow it" ||
    fail "a user script named like a bundled one does not shadow it"
grep -q "warning: the bundled script top_ops runs, not $T/cfg/etinspect/scripts/top_ops.lua" "$T/err" &&
    pass "... and a warning says so, with how to run it" || fail "... and a warning says so" "$(cat "$T/err")"
E "$T/cfg/etinspect/scripts/top_ops.lua"
grep -q "user top_ops ran" "$T/out" && pass "... which runs by its path" || fail "... which runs by its path"

# --list-scripts
E --list-scripts
[ "$(st)" = 0 ] && pass "--list-scripts: exit 0" || fail "--list-scripts: exit 0"
grep -q "^top_ops  *Top operators" "$T/out" && pass "--list-scripts: the bundled ones first" ||
    fail "--list-scripts: the bundled ones first"
grep -q "^slow  *The slowest events of a dump ($T/p1/slow.lua)$" "$T/out" &&
    pass "--list-scripts: a user script with its description and path" ||
    fail "--list-scripts: a user script with its description and path" "$(cat "$T/out")"
grep -q "^slow .*($T/p2/slow.lua)  \[not run by this name: $T/p1/slow.lua comes first\]" "$T/out" &&
    pass "--list-scripts: a script hidden by an earlier one says which" ||
    fail "--list-scripts: a script hidden by an earlier one says which"
grep -q "^top_ops .*($T/cfg/etinspect/scripts/top_ops.lua)  \[not run by this name: the bundled script comes first" "$T/out" &&
    pass "--list-scripts: a script named like a bundled one says it is not run by name" ||
    fail "--list-scripts: a script named like a bundled one says it is not run by name"
grep -q "^only2  *the second directory only" "$T/out" &&
    pass "--list-scripts: a plain script's first comment line describes it" ||
    fail "--list-scripts: a plain script's first comment line describes it"
grep -q "bad name" "$T/out" && fail "--list-scripts: a file whose name is no script name is left out" ||
    pass "--list-scripts: a file whose name is no script name is left out"
"$ETINSPECT" --list-scripts </dev/null >"$T/plain" 2>&1
HOME="$T/nohome" XDG_CONFIG_HOME= ETINSPECT_PATH= "$ETINSPECT" --list-scripts </dev/null >"$T/plain" 2>&1
grep -q "user scripts" "$T/plain" && fail "no user scripts: no user section" || pass "no user scripts: no user section"

# --help NAME, suggestions
E --help slow
[ "$(st)" = 0 ] && grep -q "Usage: etinspect slow" "$T/out" && pass "--help NAME of a user script" ||
    fail "--help NAME of a user script" "$(cat "$T/out" "$T/err")"
E slw
[ "$(st)" = 2 ] && grep -q "Did you mean slow?" "$T/err" && pass "a near miss suggests a user script" ||
    fail "a near miss suggests a user script" "$(cat "$T/err")"

# etinspect.scripts inside a script: usage_error, input_error
E slow "$S" --top=0
[ "$(st)" = 2 ] && grep -qx "etinspect: slow: --top must be at least 1 (etinspect --help slow)" "$T/err" &&
    pass "etinspect.scripts.usage_error in a user script: exit 2, its name and --help hint" ||
    fail "etinspect.scripts.usage_error in a user script" "exit $(st)" "$(cat "$T/err")"
E slow "$T/nosuch.etdp"
[ "$(st)" = 1 ] && grep -q "^etinspect: error: .*nosuch.etdp" "$T/err" && ! grep -q traceback "$T/err" &&
    pass "etinspect.scripts.input_error: exit 1, no traceback" ||
    fail "etinspect.scripts.input_error: exit 1, no traceback" "$(cat "$T/err")"
E slow
[ "$(st)" = 2 ] && grep -qx "etinspect: slow: missing argument 'etdump' (etinspect --help slow)" "$T/err" &&
    pass "an argparse error: the same shape" || fail "an argparse error: the same shape" "$(cat "$T/err")"
cat >"$T/mine.lua" <<'EOF'
etinspect.scripts.usage_error("--mode must be fast or slow")
EOF
"$ETINSPECT" "$T/mine.lua" >"$T/out" 2>"$T/err" </dev/null
[ $? = 2 ] && grep -qx "etinspect: $T/mine.lua: --mode must be fast or slow (etinspect --help $T/mine.lua)" "$T/err" &&
    pass "a plain script file: usage_error names it" || fail "a plain script file: usage_error names it" "$(cat "$T/err")"
"$ETINSPECT" -e 'print(type(etinspect.scripts), type(etinspect.scripts.usage_error), type(etinspect.scripts.input_error))' >"$T/out" 2>&1
grep -qx "table	function	function" "$T/out" && pass "etinspect.scripts is there in -e code too" ||
    fail "etinspect.scripts is there in -e code too" "$(cat "$T/out")"
"$ETINSPECT" -e 'etinspect.scripts.usage_error("bad")' >"$T/out" 2>&1
[ $? = 2 ] && grep -qx "etinspect: bad" "$T/out" && pass "... outside a script, no name added: exit 2" ||
    fail "... outside a script, no name added: exit 2" "$(cat "$T/out")"

done_testing
