# lib.sh - Test Anything Protocol helpers for the end-to-end scripts.
# Source it from a .t script (POSIX sh):
#
#   . "$(dirname "$0")/lib.sh"
#   ok "description" command args...   # passes when the command exits 0
#   pass "description" / fail "description" [diagnostic...]
#   skip "reason"                      # one skipped test
#   skip_all "reason"                  # plan 1..0 with a reason, exit 0
#   diag "text"                        # a "# text" line on stderr
#   done_testing                       # print the plan; exit 0 iff all passed
#
# Environment (set by the Makefile): ETINSPECT (binary under test), ET_SRC
# (checkout root), ET_BUILD (build dir), ET_SHARED (../shared), ET_BIN (dir
# of the build under test).  Each script gets a private scratch directory
# $T, removed at exit.

TAP_N=0
TAP_FAILED=0
: "${ET_SRC:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${ET_BUILD:=$ET_SRC/build}"
: "${ET_SHARED:=$ET_SRC/../shared}"
: "${ETINSPECT:=$ET_BUILD/etinspect}"
CORPUS="$ET_SHARED/corpus"
T=$(mktemp -d "${TMPDIR:-/tmp}/etinspect-test.XXXXXX")
trap 'rm -rf "$T"' EXIT

diag() { printf '# %s\n' "$*" >&2; }

pass() {
    TAP_N=$((TAP_N + 1))
    printf 'ok %d - %s\n' "$TAP_N" "$1"
}

fail() {
    TAP_N=$((TAP_N + 1))
    TAP_FAILED=$((TAP_FAILED + 1))
    printf 'not ok %d - %s\n' "$TAP_N" "$1"
    shift
    for line in "$@"; do diag "$line"; done
}

ok() {
    desc=$1
    shift
    if "$@" >"$T/.ok.out" 2>&1; then
        pass "$desc"
    else
        fail "$desc" "command failed: $*"
        sed 's/^/#   /' "$T/.ok.out" | head -n 20 >&2
    fi
}

skip() {
    TAP_N=$((TAP_N + 1))
    printf 'ok %d # SKIP %s\n' "$TAP_N" "$1"
}

skip_all() {
    printf '1..0 # SKIP %s\n' "$1"
    exit 0
}

done_testing() {
    printf '1..%d\n' "$TAP_N"
    [ "$TAP_FAILED" -eq 0 ]
    exit $?
}
