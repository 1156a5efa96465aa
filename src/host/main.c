/*
 * main.c - the etinspect program: what to run, decided in one place.
 *
 *   etinspect --etdump_path F [...]        the command line (cli.c)
 *   etinspect FILE... [...]                the same, inputs told apart by content
 *   etinspect SCRIPT.lua [ARGS...]         run a Lua script (lua_host.c)
 *   etinspect - [ARGS...]                  standard input: an ETDump (the command
 *                                          line), or a Lua script (text)
 *   etinspect -e CODE | -l MODULE | -i     Lua host options
 *   etinspect --no-init [-i ...]           the REPL without its startup file
 *   etinspect NAME [ARGS...]               a bundled report script
 *   etinspect --list-scripts, --help NAME  the bundled scripts' help
 *   etinspect                              the REPL on a terminal (repl.c),
 *                                          else the command line's usage error
 *
 * As lua(1) does, the arguments are classified once (classify: the Lua
 * options, the argument naming what to run, a misused option), then one
 * sequence runs (run): the command line, or the Lua host's steps - the
 * Lua options in order, the script, the REPL.  cli.c, lua_host.c and
 * repl.c never call each other; they share the run's state (host.c: the
 * one Lua state, made when something first needs Lua, closed here at the
 * end).  What one part leaves to another comes back here:
 *
 *  - an argument naming what to run, first on the line, is told apart by
 *    etinspect.scripts.resolve (a bundled script's name, then an input
 *    file by its content, then a Lua script: a file whose name ends in
 *    .lua) before anything runs; input files go to the command line, which
 *    uses the same Lua state if it needs one (--html_path,
 *    --compare_results).  No data file is ever run as code: a text file
 *    whose name does not end in .lua is an input error naming it
 *    (inputs.c), wherever it stands;
 *  - the command line hands an ETRecord given alone back to the Lua host
 *    (ET_CLI_LUA): the bundled `etrecord` script summarises it.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "host.h"
#include "inputs.h"
#include "lua_host.h"
#include "repl.h"
#include "signals.h"
#include "stdout_guard.h"

/* What the arguments ask for. */
typedef enum {
    RUN_COMMAND_LINE, /* the command line's options (and its usage error for none) */
    RUN_LIST_SCRIPTS, /* --list-scripts */
    RUN_SCRIPT_HELP,  /* --help NAME */
    RUN_LUA,          /* Lua options, a script, input files first, the REPL */
} run_kind;

typedef struct {
    run_kind kind;
    /* RUN_LUA: */
    int options_end; /* the Lua options (-e, -l, -i) are argv[1 .. options_end) */
    int target;      /* argv[target] names what to run (a bundled script's name,
                      * input files, a script, "-"), or 0: nothing */
    int bad;         /* argv[bad] is an unknown option or -e/-l without its
                      * argument, or 0; the options before it run first */
    int interactive; /* -i, or no argument on a terminal: the REPL at the end */
    int no_init;     /* --no-init: the REPL skips its startup file */
} plan;

/* Classify main()'s arguments. */
static plan classify(int argc, char **argv)
{
    plan p = {RUN_LUA, 1, 0, 0, 0, 0};
    if (argc < 2) {
        if (isatty(STDIN_FILENO))
            p.interactive = 1;
        else
            p.kind = RUN_COMMAND_LINE;
        return p;
    }
    const char *a = argv[1];
    if (strcmp(a, "--list-scripts") == 0) {
        p.kind = RUN_LIST_SCRIPTS;
        return p;
    }
    if (argc == 3 && strcmp(a, "--help") == 0) {
        p.kind = RUN_SCRIPT_HELP;
        return p;
    }
    if (argc == 2 && strcmp(a, "--no-init") == 0) { /* as no argument, without the startup file */
        p.interactive = 1;
        p.no_init = 1;
        return p;
    }
    if (a[0] == '-' && a[1] && strcmp(a, "-e") != 0 && strcmp(a, "-l") != 0 &&
        strcmp(a, "-i") != 0 && strcmp(a, "--") != 0 && strcmp(a, "--no-init") != 0) {
        p.kind = RUN_COMMAND_LINE;
        return p;
    }
    int i;
    for (i = 1; i < argc; i++) {
        a = argv[i];
        if (strcmp(a, "-i") == 0) {
            p.interactive = 1;
        } else if (strcmp(a, "--no-init") == 0) {
            p.no_init = 1;
        } else if (strcmp(a, "-e") == 0 || strcmp(a, "-l") == 0) {
            if (i + 1 >= argc) {
                p.bad = i;
                break;
            }
            i++;
        } else if (strcmp(a, "--") == 0) {
            p.options_end = i;
            p.target = i + 1 < argc ? i + 1 : 0;
            return p;
        } else if (a[0] == '-' && a[1]) {
            p.bad = i;
            break;
        } else { /* a name, a path or "-" */
            p.target = i;
            break;
        }
    }
    p.options_end = i;
    return p;
}

static int run(const plan *p, int argc, char **argv);

/* The command line, then the Lua host when it hands the rest back. */
static int command_line(int argc, char **argv)
{
    et_cli_next next;
    int status = et_cli_main(argc, argv, &next);
    if (status == ET_CLI_LUA) { /* next.argv[1] a bundled script: not handed back again */
        plan p = classify(next.argc, next.argv);
        status = run(&p, next.argc, next.argv);
    }
    return status;
}

/* Is `how` (from et_lua_host_resolve) input files? */
static int is_data(const char *how)
{
    return how && strcmp(how, "data") == 0;
}

/* Run what `p` says; returns the exit status. */
static int run(const plan *p, int argc, char **argv)
{
    if (p->kind == RUN_COMMAND_LINE)
        return command_line(argc, argv);
    int status = et_lua_host_open();
    const char *how = NULL;
    if (status == 0 && p->kind == RUN_LUA && p->target == 1) {
        /* the first argument, before anything runs: input files are the
         * command line's, with the Lua state as it is */
        status = et_lua_host_resolve(argv[1], &how);
        if (status == 0 && is_data(how))
            return command_line(argc, argv);
        /* "-": standard input, told apart by its content: a Lua script
         * when it is text (or empty), else a dump for the command line */
        if (status == 0 && how && strcmp(how, "stdin") == 0 &&
            et_host_stdin_kind() != ET_INPUT_TEXT)
            return command_line(argc, argv);
    }
    if (status == 0)
        status = et_lua_host_fit_terminal();
    if (status != 0)
        return status;
    if (p->kind == RUN_LIST_SCRIPTS)
        return et_lua_host_list_scripts();
    if (p->kind == RUN_SCRIPT_HELP) {
        status = et_lua_host_resolve(argv[2], &how);
        return status != 0 ? status : et_lua_host_script_help(argv[2], how);
    }
    for (int i = 1; i < p->options_end && status == 0; i++) {
        if (strcmp(argv[i], "-e") == 0)
            status = et_lua_host_run_code(argv[++i]);
        else if (strcmp(argv[i], "-l") == 0)
            status = et_lua_host_require(argv[++i]);
    }
    if (status != 0)
        return status;
    if (p->bad) {
        const char *a = argv[p->bad];
        if (strcmp(a, "-e") == 0 || strcmp(a, "-l") == 0)
            fprintf(stderr, "etinspect: '%s' needs an argument\n", a);
        else
            fprintf(stderr, "etinspect: unknown option '%s' here (Lua options: -e CODE, "
                            "-l MODULE, -i, --no-init; etinspect --help)\n", a);
        return ET_EXIT_USAGE;
    }
    if (p->target > 1) {
        status = et_lua_host_resolve(argv[p->target], &how);
        if (status != 0)
            return status;
        if (is_data(how) && et_input_kind_of(argv[p->target]) == ET_INPUT_TEXT) {
            fprintf(stderr, "etinspect: error: %s: " ET_INPUT_TEXT_WHY "\n", argv[p->target]);
            return ET_EXIT_INPUT;
        }
        if (is_data(how)) {
            fprintf(stderr, "etinspect: %s: an input file after Lua options; open it from "
                            "Lua (etinspect.Inspector{...}, or .open in the REPL)\n",
                    argv[p->target]);
            return ET_EXIT_USAGE;
        }
    }
    if (p->target && how) {
        status = et_lua_host_set_arg(argc, argv, p->target);
        if (status == 0)
            status = et_lua_host_run_script(argc, argv, p->target, how);
    } else if (!p->target) {
        status = et_lua_host_set_arg(argc, argv, 0);
    }
    if (status == 0 && p->interactive) {
        lua_State *L = et_host_lua();
        status = et_repl_run(L, p->no_init);
    }
    return status;
}

int main(int argc, char **argv)
{
    et_signals_install(); /* temporary files removed on SIGINT/SIGTERM; SIGBUS */
    et_stdout_guard_install(); /* a failed write to stdout: exit status 1 */
    plan p = classify(argc, argv);
    int status = run(&p, argc, argv);
    et_host_close();
    return et_stdout_guard_status(status);
}
