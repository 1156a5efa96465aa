/*
 * cli.h - the inspector_cli-compatible command line (see cli.c).
 */
#ifndef ET_CLI_H
#define ET_CLI_H

/* et_cli_main's answer when what is left to do is the Lua host's: an
 * ETRecord given alone is summarised by the bundled `etrecord` script. */
#define ET_CLI_LUA (-1)

/* The arguments the Lua host is to run (et_cli_main returned ET_CLI_LUA),
 * shaped as main()'s: argv[0] "etinspect", argv[1] a bundled script's
 * name, its arguments after it, argv[argc] NULL.  The strings are
 * main()'s (or literals): they live as long as the arguments given. */
typedef struct {
    int argc;
    char *argv[6];
} et_cli_next;

/* Run the command line with main()'s arguments: options, input files
 * told apart by content, then the tables and files they ask for (those
 * the Lua library writes, --html_path and --compare_results, in the run's
 * Lua state, et_host_lua).  Returns the exit status (host.h: 0 success,
 * 1 bad input, 2 usage), or ET_CLI_LUA with `next` filled. */
int et_cli_main(int argc, char **argv, et_cli_next *next);

#endif
