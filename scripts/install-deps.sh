#!/bin/sh
# Install the Debian 12 packages etinspect needs to build, test, fuzz and
# benchmark.  Run as root, or as a user who may use sudo.  Safe to re-run.
#
#   build:     gcc, make, pkg-config
#   fixtures:  flatbuffers-compiler (flatc builds test ETDumps from JSON)
#   libraries: liblua5.4-dev, libjansson-dev, libzip-dev, libyajl-dev
#              (ETRecord JSON), libedit-dev, libsqlite3-dev (--sqlite_path),
#              libzstd-dev and libxxhash-dev (--parquet_path: ZSTD pages,
#              the dumps' content hashes),
#              libdouble-conversion-dev (shortest float digits; g++ builds
#              its one-file shim), lua-argparse (report scripts' arguments;
#              found on Debian's standard Lua path)
#   tests:     perl (prove), lua5.4, valgrind, sqlite3 (queries on exported
#              databases), chromium (the HTML report rendered headless),
#              protobuf-compiler and python3-protobuf (Perfetto traces
#              decoded with Perfetto's own proto), nodejs and npm (parquet.t
#              installs DuckDB's Node package from npm to read the Parquet
#              files)
#   fuzzing:   clang, libclang-rt-14-dev (libFuzzer, sanitizers)
#   bench:     python3-pandas (make bench's Frame rows, side by side with
#              pandas), python3-tabulate (with pandas: tests/lua/gen_frame_cases.py)
#   install:   scdoc (man pages), cmark-gfm (the docs as HTML), groff and
#              man-db (man --warnings), bash-completion (the completion's
#              test), luarocks (the rockspec's test), debhelper and lintian
#              (make deb; debian/control's Build-Depends are all here)
set -eu

PACKAGES="build-essential pkg-config flatbuffers-compiler liblua5.4-dev lua5.4
lua-argparse libjansson-dev libzip-dev libyajl-dev libedit-dev libsqlite3-dev libzstd-dev libxxhash-dev libdouble-conversion-dev sqlite3 perl valgrind clang
libclang-rt-14-dev chromium python3-pandas python3-tabulate protobuf-compiler python3-protobuf
scdoc cmark-gfm groff man-db bash-completion luarocks debhelper lintian"

if [ "$(id -u)" -eq 0 ]; then
    SUDO=
elif command -v sudo >/dev/null 2>&1; then
    SUDO=sudo
else
    echo "install-deps.sh: run as root (or install sudo)" >&2
    exit 1
fi

missing=
for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
# Node.js with npm from any source (Debian's nodejs and npm, or another
# build of Node that carries npm): asked for only when npm is absent
command -v npm >/dev/null 2>&1 || missing="$missing nodejs npm"
if [ -z "$missing" ]; then
    echo "install-deps.sh: all packages present"
    exit 0
fi
echo "install-deps.sh: installing$missing"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
