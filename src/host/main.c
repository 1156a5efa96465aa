/*
 * main.c - the etinspect program.
 */
#include "cli.h"

int main(int argc, char **argv)
{
    return et_cli_main(argc, argv);
}
