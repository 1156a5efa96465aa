#!/bin/sh
# completion.t - the bash completion (completion/etinspect.bash): sourced in
# bash after bash-completion, its function _etinspect is called as bash
# would on Tab, and the candidates compared with what they must be.
. "$(dirname "$0")/lib.sh"
BC=/usr/share/bash-completion/bash_completion
COMP="$ET_SRC/completion/etinspect.bash"
command -v bash >/dev/null 2>&1 || skip_all "bash not installed"
[ -f "$BC" ] || skip_all "bash-completion not installed: scripts/install-deps.sh"

# a directory of inputs and outputs of every kind
D="$T/d"
mkdir -p "$D/sub"
for f in a.etdp b.etdp debug.bin r.etrecord s.bpte out.tsv out.json notes.txt my.lua; do : >"$D/$f"; done

# complete WORD... : the candidates (sorted, one a line) for the command
# line etinspect WORD... with the cursor at the end of the last WORD, words
# split as bash splits them ("--flag=x" is the three words --flag = x)
cat >"$T/complete.bash" <<'EOF'
source "$1"
source "$2"
shift 2
COMP_WORDS=("$@")
COMP_CWORD=$(($# - 1))
COMP_LINE=
for w in "$@"; do
    if [[ $w == = || $COMP_LINE == *= ]]; then COMP_LINE+=$w; else COMP_LINE+="${COMP_LINE:+ }$w"; fi
done
COMP_POINT=${#COMP_LINE}
_etinspect "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
printf '%s\n' "${COMPREPLY[@]}" | sort
EOF
complete() {
    (cd "$D" && bash "$T/complete.bash" "$BC" "$COMP" "$ETINSPECT" "$@") 2>"$T/err"
}
# is "description" "expected candidates, space-separated" WORD...
is() {
    desc=$1 want=$2
    shift 2
    got=$(complete "$@" | tr '\n' ' ' | sed 's/ $//')
    if [ "$got" = "$want" ] && [ ! -s "$T/err" ]; then pass "$desc"
    else fail "$desc" "got:  '$got'" "want: '$want'" "$(head -n 3 "$T/err")"; fi
}

is "--etdump_p completes to --etdump_path" "--etdump_path" --etdump_p
is "top_ completes to top_ops" "top_ops" top_
is "--source_time_scale offers the time scales of --help" "cycles ms ns s us" --source_time_scale ""
is "--target_time_scale=c (one word) completes to cycles" "cycles" --target_time_scale = c
is "--time_scale (legacy) offers its four scales" "cycles ms ns us" --profile_results_path x --time_scale ""
is "--etdump_path offers ETDumps and directories" "a.etdp b.etdp sub" --etdump_path ""
is "--etrecord_path offers ETRecords, .bin and directories" "debug.bin r.etrecord sub" --etdump_path a.etdp --etrecord_path ""
is "--bundled_program_path offers .bpte and directories" "s.bpte sub" --bundled_program_path ""
is "--debug_buffer_path offers .bin and directories" "debug.bin sub" --debug_buffer_path ""
is "--tsv_path offers .tsv and directories" "out.tsv sub" --etdump_path a.etdp --tsv_path ""
is "a number (--cycles_hz) is not completed" "" --cycles_hz ""
is "--q offers --quiet" "--quiet" --q
complete - >"$T/dash"
ok "the Lua host's options at the first word (-e, -l, -i, --list-scripts)" \
    sh -c 'for o in -e -l -i --list-scripts; do grep -qx -- "$o" "$1" || exit 1; done' _ "$T/dash"
"$ETINSPECT" --list-scripts | awk '{ print $1 }' >"$T/scripts"
want=$({ cat "$T/scripts"; printf '%s\n' my.lua sub; } | sort | tr '\n' ' ' | sed 's/ $//')
is "--help offers the bundled scripts (--list-scripts) and Lua files" "$want" --help ""
is "a bundled script's flags (top_ops --t)" "--target_time_scale --top" top_ops a.etdp --t
is "a bundled script's positional arguments are ETDumps" "a.etdp b.etdp sub" diff a.etdp ""
is "... named by its usage line, flags and their values skipped" "a.etdp b.etdp sub" top_ops --top 3 ""
is "... and past its last one, any file" "a.etdp b.etdp debug.bin my.lua notes.txt out.json out.tsv r.etrecord s.bpte sub" \
    modules a.etdp --etrecord r.etrecord ""
is "a bundled script's --format offers its styles" "box csv json markdown plain tsv" top_ops a.etdp --format ""
is "a bundled script's --etrecord offers ETRecords" "debug.bin r.etrecord sub" modules a.etdp --etrecord ""
is "a bundled script's time scales" "cycles ms ns s us" diff a.etdp b.etdp --source_time_scale ""
is "nothing is offered for -e's chunk" "" -e ""
is "after -e CODE: more host options" "-- --no-init -e -i -l" -e "print(1)" -
is "after -e CODE: Lua scripts and directories" "my.lua sub" -e "print(1)" ""
is "a Lua script's arguments are files" "a.etdp b.etdp debug.bin my.lua notes.txt out.json out.tsv r.etrecord s.bpte sub" my.lua ""

# the first word: every bundled script, and the inputs etinspect FILE reads
want=$({ cat "$T/scripts"; printf '%s\n' a.etdp b.etdp debug.bin my.lua r.etrecord sub; } | sort | tr '\n' ' ' | sed 's/ $//')
is "the first word offers every bundled script (--list-scripts) and inputs" "$want" ""

# every flag of --help is offered after --, and nothing else but the host's
"$ETINSPECT" --help | grep -oE -- '--[a-z][a-z0-9_-]*' >"$T/flags"
printf '%s\n' --list-scripts --help --version >>"$T/flags"
want=$(sort -u "$T/flags" | tr '\n' ' ' | sed 's/ $//')
is "-- offers every flag of etinspect --help" "$want" --

# the file kinds are a table in the completion: every *_path flag of --help
# must have its own entry there (not the any-file fallback)
missing=
for flag in $(grep -oE -- '--[a-z_]+_path' "$T/flags" | sort -u); do
    kind=$(bash -c 'source "$1"; source "$2"; _etinspect_file_kind "$3"' _ "$BC" "$COMP" "$flag")
    case $kind in '' | -) missing="$missing $flag" ;; esac
done
if [ -z "$missing" ]; then pass "every *_path flag of --help has a file kind"
else fail "every *_path flag of --help has a file kind" "add to _etinspect_file_kind:$missing"; fi

# Tab never runs a user's script (--help FILE would)
cat >"$D/evil.lua" <<EOF
io.open("$T/ran", "w"):close()
return { description = "evil", args = { { "--evil", "x" } }, run = function() end }
EOF
complete ./evil.lua -- >/dev/null
complete --help ./evil.lua "" >/dev/null
complete ./evil.lua "" >/dev/null
ok "completing a user's script never runs it" test ! -e "$T/ran"

# the same through readline: an interactive bash on a pseudo-terminal
DRIVE="$ET_BUILD/tools/ptydrive"
if [ -x "$DRIVE" ]; then
    mkdir -p "$T/bin"
    ln -s "$ETINSPECT" "$T/bin/etinspect"
    cat >"$T/tab.pty" <<PTY
expect \$ 
send source $BC; source $COMP; PS1='\$ '\\n
expect \$ 
send etinspect --etdump_p\\t
expect --etdump_path 
send \\x03
expect \$ 
send etinspect top_\\t
expect top_ops 
send \\x03
expect \$ 
send etinspect --source_time_scale=cy\\t
expect --source_time_scale=cycles 
send \\x03
expect \$ 
send exit 0\\n
PTY
    ok "Tab in an interactive bash: --etdump_p, top_, --source_time_scale=cy" \
        env PATH="$T/bin:$PATH" PS1='$ ' HOME="$T" "$DRIVE" "$T/tab.pty" bash --norc --noprofile -i
else
    skip "ptydrive not built"
fi

ok "_etinspect is registered for etinspect" \
    bash -c 'source "$1"; source "$2"; complete -p etinspect | grep -q "_etinspect etinspect"' _ "$BC" "$COMP"
done_testing
