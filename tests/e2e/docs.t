#!/bin/sh
# docs.t - run the examples of the documentation.  Every ```console block in
# docs/*.md is a transcript: lines starting with "$ " are commands (run with
# sh from the checkout root, `etinspect` being the binary under test), the
# lines after them are the expected output (stdout and stderr together).
. "$(dirname "$0")/lib.sh"
cd "$ET_SRC" || exit 1
mkdir -p "$T/bin"
ln -s "$ETINSPECT" "$T/bin/etinspect"
[ -f "$ET_BUILD/fixtures/sample.etdp" ] || skip_all "build/fixtures/sample.etdp missing (run make)"

# Split the blocks into numbered command/expected pairs with awk.
for doc in docs/*.md; do
    awk -v dir="$T/ex" -v doc="$doc" '
        BEGIN { n = 0; inblock = 0; tag = doc; gsub(/[^A-Za-z0-9]/, "_", tag) }
        /^```console/ { inblock = 1; next }
        /^```/ { inblock = 0; next }
        inblock && /^\$ / {
            n++; f = sprintf("%s.%s.%03d", dir, tag, n)
            print substr($0, 3) > (f ".cmd"); close(f ".cmd")
            printf "" > (f ".want"); cur = f; next
        }
        inblock && cur != "" { print >> (cur ".want"); close(cur ".want") }
    ' "$doc"
done

count=0
for cmd in "$T"/ex.*.cmd; do
    [ -f "$cmd" ] || continue
    count=$((count + 1))
    base=${cmd%.cmd}
    text=$(cat "$cmd")
    # "echo $?" reports the status of the previous example
    if [ "$text" = 'echo $?' ]; then
        echo "$last_status" >"$base.got"
    else
        PATH="$T/bin:$PATH" sh -c "$text" >"$base.got" 2>&1
        last_status=$?
    fi
    if cmp -s "$base.got" "$base.want"; then
        pass "example: $text"
    else
        fail "example: $text" "$(diff "$base.got" "$base.want" | head -n 6)"
    fi
done
[ "$count" -gt 0 ] || fail "the documentation has examples"
done_testing
