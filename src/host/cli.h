/*
 * cli.h - the inspector_cli-compatible command line (see cli.c).
 */
#ifndef ET_CLI_H
#define ET_CLI_H

/* Run the command line with main()'s arguments; returns the exit code
 * (0 success, 1 bad input, 2 usage). */
int et_cli_main(int argc, char **argv);

#endif
