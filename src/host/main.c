/*
 * main.c - the etinspect program: the inspector_cli-compatible command
 * line, or a Lua host.
 *
 *   etinspect --etdump_path F [...]        the command line (cli.c)
 *   etinspect SCRIPT.lua [ARGS...]         run a Lua script (lua_host.c)
 *   etinspect -e CODE | -l MODULE | -i     Lua host options
 *   etinspect NAME [ARGS...]               a bundled report script
 *   etinspect --list-scripts, --help NAME  the bundled scripts' help
 *   etinspect                              the REPL on a terminal, else usage
 */
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "lua_host.h"
#include "signals.h"

static int is_lua_option(const char *a)
{
    return strcmp(a, "-e") == 0 || strcmp(a, "-l") == 0 || strcmp(a, "-i") == 0 ||
           strcmp(a, "--") == 0;
}

int main(int argc, char **argv)
{
    et_signals_install(); /* temporary files removed on SIGINT/SIGTERM; SIGBUS */
    if (argc == 1)
        return isatty(STDIN_FILENO) ? et_lua_host_main(argc, argv) : et_cli_main(argc, argv);
    if (is_lua_option(argv[1]) || argv[1][0] != '-' || strcmp(argv[1], "--list-scripts") == 0 ||
        (argc == 3 && strcmp(argv[1], "--help") == 0))
        return et_lua_host_main(argc, argv);
    return et_cli_main(argc, argv);
}
