/* cli.h - the command line (getopt_long) -> a gf_plan. Stage options and
 * their --help lines come from the stage registry; the rest from a table in
 * cli.c. */
#ifndef GF_CLI_H
#define GF_CLI_H

#include <stdio.h>

#include "plan.h"

/* Parses argv into *p (p's strings point into argv). Returns 0 to run, 1
 * when --help or --version was printed to stdout (exit 0), or GF_EUSAGE
 * with a recorded message. */
int gf_cli_parse(int argc, char **argv, gf_plan *p);

/* The one-line usage, to f. */
void gf_cli_usage(FILE *f);

#endif
