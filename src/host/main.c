/*
 * main.c - the etinspect program: the inspector_cli-compatible command
 * line, or a Lua host.
 *
 *   etinspect --etdump_path F [...]        the command line (cli.c)
 *   etinspect FILE... [...]                the same, inputs told apart by content
 *   etinspect SCRIPT.lua [ARGS...]         run a Lua script (lua_host.c)
 *   etinspect - [ARGS...]                  run a Lua script read from stdin
 *   etinspect -e CODE | -l MODULE | -i     Lua host options
 *   etinspect NAME [ARGS...]               a bundled report script
 *   etinspect --list-scripts, --help NAME  the bundled scripts' help
 *   etinspect                              the REPL on a terminal, else usage
 *
 * A first argument that is not an option goes to the Lua host, which tells
 * a bundled script's name, an input file and a script apart (lua_host.c)
 * and hands input files back to the command line.
 */
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "lua_host.h"
#include "signals.h"

/* Does argv[1] (of argc arguments) select the Lua host? */
static int is_lua(int argc, char **argv)
{
    const char *a = argv[1];
    if (a[0] != '-' || strcmp(a, "-") == 0)
        return 1; /* a script, a bundled script, an input file or stdin */
    return strcmp(a, "-e") == 0 || strcmp(a, "-l") == 0 || strcmp(a, "-i") == 0 ||
           strcmp(a, "--") == 0 || strcmp(a, "--list-scripts") == 0 ||
           (argc == 3 && strcmp(a, "--help") == 0);
}

int main(int argc, char **argv)
{
    et_signals_install(); /* temporary files removed on SIGINT/SIGTERM; SIGBUS */
    if (argc < 2)
        return isatty(STDIN_FILENO) ? et_lua_host_main(argc, argv) : et_cli_main(argc, argv);
    return is_lua(argc, argv) ? et_lua_host_main(argc, argv) : et_cli_main(argc, argv);
}
