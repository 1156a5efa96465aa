# bash completion for etinspect(1)                          -*- shell-script -*-
#
# Installed as share/bash-completion/completions/etinspect (loaded on demand
# by bash-completion).  It asks the program being completed -- the command
# word as typed, so build/etinspect completes from build/etinspect -- and so
# follows whatever version that binary is:
#
#   flags, whether they take a value, and their {choices}   etinspect --help
#   bundled report scripts                                  etinspect --list-scripts
#   a bundled script's flags and positional arguments       etinspect --help NAME
#
# Only bundled scripts are asked for their help: `--help FILE.lua` runs the
# file, and pressing Tab must never run a user's script.  What the help
# cannot say -- which files suit a flag -- is the table in
# _etinspect_file_kind (tests/e2e/completion.t checks that it names every
# *_path flag of --help).

# _etinspect_ask CMD ARGS...: the program's standard output, nothing on error
_etinspect_ask()
{
    "$@" </dev/null 2>/dev/null
}

# _etinspect_flags CMD ARGS...: one line per flag of the help text
# `CMD ARGS...` prints: "FLAG<TAB>SPEC", SPEC being empty for a flag without
# a value, "{a,b,c}" for a value among choices, else the value's metavar.
# A flag takes a value when any occurrence is followed by a metavar
# (UPPER_CASE, <name> or {choices}); choices win over a plain metavar.
_etinspect_flags()
{
    _etinspect_ask "$@" | awk '
        {
            gsub(/[][()|]/, " ")
            n = split($0, w, /[ \t]+/)
            for (i = 1; i <= n; i++) {
                f = w[i]; v = ""
                if (f !~ /^--[A-Za-z0-9][A-Za-z0-9_-]*(=.*)?,?$/) continue
                sub(/,$/, "", f)
                if (f ~ /=/) { v = substr(f, index(f, "=") + 1); f = substr(f, 1, index(f, "=") - 1) }
                else if (i < n) v = w[i + 1]
                sub(/,$/, "", v)
                if (v !~ /^(\{[^}]*\}|<[^>]*>|[A-Z][A-Z0-9_.:-]*)$/) v = ""
                if (!(f in spec)) { order[++k] = f; spec[f] = v }
                else if (v != "" && (spec[f] == "" || (v ~ /^\{/ && spec[f] !~ /^\{/))) spec[f] = v
            }
        }
        END { for (j = 1; j <= k; j++) printf "%s\t%s\n", order[j], spec[order[j]] }'
}

# _etinspect_positionals CMD ARGS...: the positional arguments of the usage
# line(s) of the help text `CMD ARGS...` prints, in order, one a line: what
# is left of the usage once the program and script names, [optional
# groups] and flags with their metavars are taken out ("ETDUMP", "A.etdp",
# "etdump", "A"...)
_etinspect_positionals()
{
    local name=${*: -1}
    _etinspect_ask "$@" | awk -v name="$name" '
        tolower($1) == "usage:" { on = 1; $1 = "" }
        on && /^[ \t]*$/ { on = 0 }
        on { text = text " " $0 }
        END {
            # an optional positional ("[A]", "[DUMPS]") is still one
            while (match(text, /\[[A-Za-z][A-Za-z0-9_.]*\]/))
                text = substr(text, 1, RSTART - 1) substr(text, RSTART + 1, RLENGTH - 2) substr(text, RSTART + RLENGTH)
            while (gsub(/\[[^][]*\]/, " ", text)) {}
            n = split(text, w, /[ \t]+/)
            for (i = 1; i <= n; i++) {
                if (w[i] == "" || w[i] == "..." || w[i] ~ /etinspect$/) continue
                if (w[i] == name && !named) { named = 1; continue }
                if (w[i] ~ /^-/) { if (i < n && w[i + 1] ~ /^([A-Z][A-Z0-9_.:-]*|<[^>]*>|\{[^}]*\})$/) i++; continue }
                print w[i]
            }
        }'
}

# _etinspect_file_kind FLAG-OR-ARGUMENT: the extensions of the files it
# takes ("etdp", "etrecord|bin"), "-" for any file, "" for a value that is
# not a file.  Inputs are filtered by their usual extension, outputs too
# (directories are always offered); "dir" for a directory.
_etinspect_file_kind()
{
    case $1 in
        --etdump_path | ETDUMP* | etdump* | A | B | A.etdp | B.etdp | '<a>' | '<b>' | DUMPS | --base | --test) echo etdp ;;
        --etrecord_path | --etrecord | ETRECORD* | etrecord* | '<etrecord>') echo 'etrecord|bin|zip' ;;
        --bundled_program_path) echo bpte ;;
        --program_path) echo pte ;;
        --debug_buffer_path | --profile_results_path) echo bin ;;
        --tsv_path) echo tsv ;;
        --json | --trace_path) echo json ;;
        --sqlite_path) echo 'db|sqlite|sqlite3' ;;
        --html_path) echo 'html|htm' ;;
        --model_explorer_path | --parquet_path) echo dir ;;
        *_path | *PATH | *FILE | OUT | '<'*'path>' | '<out>' | '<file>') echo - ;;
        *) echo '' ;;
    esac
}

# _etinspect_value SPEC NAME: complete the value of a flag (or a positional
# argument) NAME whose help SPEC is {choices} or a metavar
_etinspect_value()
{
    local spec=$1 name=$2 kind choices
    if [[ $spec == \{*\} ]]; then
        choices=${spec#\{}
        choices=${choices%\}}
        COMPREPLY=($(compgen -W "${choices//,/ }" -- "$cur"))
        return
    fi
    # choices the help text does not spell out
    case $name in
        *time_scale) COMPREPLY=($(compgen -W 'ns us ms s cycles' -- "$cur")); return ;;
        --format) COMPREPLY=($(compgen -W 'box plain markdown tsv csv json' -- "$cur")); return ;;
    esac
    kind=$(_etinspect_file_kind "$name")
    [[ $kind == "" ]] && kind=$(_etinspect_file_kind "$spec")
    case $kind in
        '') ;;
        -) _filedir ;;
        dir) _filedir -d ;;
        *) _filedir "$kind" ;;
    esac
}

# _etinspect_complete_flags CMD ARGS...: complete the current word as a flag
# or a flag's value, from the help text `CMD ARGS...` prints.  Returns 1
# when the word is neither (a positional argument).
_etinspect_complete_flags()
{
    local table flag spec
    table=$(_etinspect_flags "$@")
    if [[ $prev == --* ]]; then
        spec=$(awk -F '\t' -v f="$prev" '$1 == f { print $2; exit }' <<<"$table")
        # --flag=value, or --flag value for a flag that takes one
        if [[ -n $spec || $split == true ]]; then
            _etinspect_value "$spec" "$prev"
            return 0
        fi
    fi
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$({ cut -f1 <<<"$table"; printf '%s\n' ${extra_flags-}; } | sort -u)" -- "$cur"))
        return 0
    fi
    return 1
}

# _etinspect_complete_positional CMD SCRIPT: complete the current word as
# the script's next positional argument: count those before it (words that
# are neither flags nor a flag's value), name it from the usage line, and
# offer the files of its kind (any file past the last one)
_etinspect_complete_positional()
{
    local table positionals i n=0 spec
    table=$(_etinspect_flags "$1" --help "$2")
    positionals=($(_etinspect_positionals "$1" --help "$2"))
    for ((i = 2; i < cword; i++)); do
        case ${words[i]} in
            --*=*) ;;
            -*)
                spec=$(awk -F '\t' -v f="${words[i]}" '$1 == f { print $2; exit }' <<<"$table")
                [[ -n $spec ]] && ((i++))
                ;;
            *) ((n++)) ;;
        esac
    done
    local kind=-
    ((n < ${#positionals[@]})) && kind=$(_etinspect_file_kind "${positionals[n]}")
    case $kind in
        '') ;;
        -) _filedir ;;
        dir) _filedir -d ;;
        *) _filedir "$kind" ;;
    esac
}

_etinspect()
{
    local cur prev words cword split
    _init_completion -s || return
    local cmd=${words[0]} scripts extra_flags
    [[ $cmd == "~"* ]] && cmd=${cmd/#\~/$HOME}

    # the bundled scripts: the lines before the user scripts' section
    scripts=$(_etinspect_ask "$cmd" --list-scripts | awk 'NF == 0 { exit } { print $1 }')

    if ((cword == 1)); then
        if [[ $cur == -* || $split == true ]]; then
            # the Lua host's options are not all in the inspector_cli help
            extra_flags='-e -l -i --no-init --list-scripts --help --version'
            _etinspect_complete_flags "$cmd" --help
        else
            COMPREPLY=($(compgen -W "$scripts" -- "$cur"))
            _filedir 'etdp|lua|bin|etrecord'
        fi
        return
    fi

    local first=${words[1]} w
    case $first in
        --help | -h)
            if ((cword == 2)); then
                COMPREPLY=($(compgen -W "$scripts" -- "$cur"))
                _filedir lua
            fi
            return
            ;;
        -e | -l)
            # a chunk or a module name, then more host options or a script
            [[ $prev == -[el] ]] && return
            if [[ $cur == -* ]]; then
                COMPREPLY=($(compgen -W '-e -l -i --no-init --' -- "$cur"))
            else
                _filedir lua
            fi
            return
            ;;
        -i | -- | *.lua)
            _filedir
            return
            ;;
    esac

    for w in $scripts; do
        if [[ $first == "$w" ]]; then
            # a bundled script: its own flags, and its positional arguments
            # by their names in its usage line
            _etinspect_complete_flags "$cmd" --help "$first" && return
            _etinspect_complete_positional "$cmd" "$first"
            return
        fi
    done

    # the inspector_cli command line (etinspect FILE or etinspect --flag ...)
    _etinspect_complete_flags "$cmd" --help || _filedir
}

complete -F _etinspect etinspect
