#!/bin/sh
# mkdeb.sh OUTDIR VERSION - build the Debian packages etinspect and
# lua-etinspect (`make deb`), check them, and run them from a scratch root.
#
#  1. debian/changelog must be at VERSION (src/core/base/version.h's).
#  2. The checkout's files (tracked and untracked, not ignored; no build/)
#     are copied to a temporary directory: dpkg-buildpackage writes its
#     results into the parent of the source tree, and the checkout's parent
#     may be shared with other checkouts.
#  3. dpkg-buildpackage -us -uc -b there; the .debs, .ddebs, .changes and
#     .buildinfo go to OUTDIR, with the build log (build.log).  The suite is
#     not run inside the build (nocheck: `make check` runs it) unless
#     DEB_BUILD_OPTIONS is set, e.g. `DEB_BUILD_OPTIONS= make deb`.
#  4. lintian on the .changes: its report goes to OUTDIR/lintian.txt and is
#     printed; any error fails.
#  5. Both packages unpacked with dpkg -x into a scratch root: its
#     etinspect --version, the demo and a bundled script on the sample it
#     ships, its man pages, its bash completion, and lua5.4 requiring its
#     module.
set -eu
out=$1
version=$2
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)

fail() {
    echo "mkdeb.sh: $*" >&2
    exit 1
}

changelog=$(dpkg-parsechangelog -S Version)
[ "$changelog" = "$version" ] ||
    fail "debian/changelog is at version $changelog, src/core/base/version.h at $version: add a changelog entry (dch -v $version)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/etinspect-deb.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
src="$tmp/etinspect-$version"
mkdir "$src"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -z --cached --others --exclude-standard | grep -zv '^build/' |
        tar --null -T - -cf - | tar -xf - -C "$src"
else
    tar --exclude=./build --exclude=./.git -cf - . | tar -xf - -C "$src"
fi

mkdir -p "$out"
rm -f "$out"/*.deb "$out"/*.ddeb "$out"/*.changes "$out"/*.buildinfo "$out"/lintian.txt
start=$(date +%s)
if [ -z "${DEB_BUILD_OPTIONS+set}" ]; then
    DEB_BUILD_OPTIONS=nocheck
fi
export DEB_BUILD_OPTIONS
case " $DEB_BUILD_OPTIONS " in *" nocheck "*) profiles=-Pnocheck ;; *) profiles= ;; esac
echo "dpkg-buildpackage -us -uc -b $profiles (DEB_BUILD_OPTIONS=$DEB_BUILD_OPTIONS), log in $out/build.log"
# shellcheck disable=SC2086
if ! (cd "$src" && env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS dpkg-buildpackage -us -uc -b $profiles) >"$out/build.log" 2>&1; then
    tail -n 30 "$out/build.log" >&2
    fail "dpkg-buildpackage failed (whole log: $out/build.log)"
fi
mv "$tmp"/*.deb "$tmp"/*.changes "$tmp"/*.buildinfo "$out"/
for f in "$tmp"/*.ddeb; do [ -e "$f" ] && mv "$f" "$out"/; done
echo "built in $(($(date +%s) - start)) s:"
for f in "$out"/*.deb; do
    printf '  %-48s %8s bytes, installed %s KiB\n' "$(basename "$f")" "$(stat -c %s "$f")" \
        "$(dpkg-deb -f "$f" Installed-Size)"
done

changes=$(ls "$out"/etinspect_"$version"_*.changes)
lintian_status=0
lintian --allow-root --fail-on error --display-info "$changes" >"$out/lintian.txt" 2>&1 || lintian_status=$?
echo "lintian $(basename "$changes"):"
if [ -s "$out/lintian.txt" ]; then sed 's/^/  /' "$out/lintian.txt"; else echo "  (nothing to report)"; fi
[ "$lintian_status" -eq 0 ] || fail "lintian reports errors"

# the packages, unpacked into a scratch root
root="$tmp/root"
for f in "$out"/*.deb; do dpkg -x "$f" "$root"; done
bin="$root/usr/bin/etinspect"
examples="$root/usr/share/doc/etinspect/examples"
got=$("$bin" --version)
[ "$got" = "etinspect $version" ] || fail "$bin --version printed '$got', expected 'etinspect $version'"
"$bin" --etdump_path "$examples/sample.etdp" --etrecord_path "$examples/sample.etrecord" \
    --tsv_path "$tmp/sample.tsv" >"$tmp/demo.out" ||
    fail "the demo failed: $bin --etdump_path $examples/sample.etdp --etrecord_path $examples/sample.etrecord"
grep -q native_call_convolution.out "$tmp/demo.out" || fail "the demo's table lacks native_call_convolution.out"
[ -s "$tmp/sample.tsv" ] || fail "the demo wrote no TSV"
"$bin" top_ops "$examples/sample.etdp" --format tsv >"$tmp/top.out" ||
    fail "the bundled script failed: $bin top_ops $examples/sample.etdp"
grep -q "$(printf '\tconvolution\t')" "$tmp/top.out" || fail "top_ops on the sample lacks the convolution row"
for page in man1/etinspect.1.gz man3/etinspect-lua.3.gz; do
    [ -f "$root/usr/share/man/$page" ] || fail "no man page $page"
done
man -l "$root/usr/share/man/man1/etinspect.1.gz" 2>/dev/null | grep -q ETINSPECT_THREADS ||
    fail "man -l etinspect.1.gz does not render"
[ -f "$root/usr/share/bash-completion/completions/etinspect" ] || fail "no bash completion"
got=$(LUA_CPATH="$root/usr/lib/$multiarch/lua/5.4/?.so" lua5.4 -e 'print(require("etinspect").version)')
[ "$got" = "$version" ] || fail "lua5.4 with the packaged module printed '$got', expected '$version'"
echo "scratch root (dpkg -x): etinspect --version, the demo, top_ops, man pages, completion and require \"etinspect\" ok"
