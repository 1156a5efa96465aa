#!/bin/sh
# lua_docs.t - run the Lua examples of the documentation.  In docs/*.md,
# every ```lua block is run by etinspect from the checkout root; when a
# ```text block follows it, the example's output (stdout and stderr) must
# equal that block.
. "$(dirname "$0")/lib.sh"
cd "$ET_SRC" || exit 1
[ -f "$ET_BUILD/fixtures/sample.etdp" ] || skip_all "build/fixtures/sample.etdp missing (run make)"

for doc in docs/*.md; do
    awk -v dir="$T/lx" '
        BEGIN { n = 0; mode = "" }
        /^```lua$/ { n++; cur = sprintf("%s.%03d", dir, n); mode = "lua"; printf "" > (cur ".lua"); next }
        /^```text$/ && last == "lua" { mode = "text"; printf "" > (cur ".want"); next }
        /^```/ { if (mode != "") last = mode; else last = ""; mode = ""; next }
        mode == "lua" { print >> (cur ".lua") }
        mode == "text" { print >> (cur ".want") }
        mode == "" && NF > 0 { last = "" }
    ' "$doc"
    for lua in "$T"/lx.*.lua; do
        [ -f "$lua" ] || continue
        base=${lua%.lua}
        name="$(basename "$doc") example $(echo "$base" | sed 's/.*\.//')"
        if "$ETINSPECT" "$lua" >"$base.got" 2>&1; then
            if [ ! -f "$base.want" ]; then
                pass "$name runs"
            elif cmp -s "$base.got" "$base.want"; then
                pass "$name prints what the doc shows"
            else
                fail "$name prints what the doc shows" "$(diff "$base.got" "$base.want" | head -n 8)"
            fi
        else
            fail "$name runs" "$(head -n 5 "$base.got")"
        fi
        rm -f "$base".*
    done
done
done_testing
