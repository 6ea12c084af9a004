/* cli.h - command-line options -> gf_options (getopt_long). */
#ifndef GF_CLI_H
#define GF_CLI_H

#include <stdio.h>

#include "image.h"
#include "stage.h"

#define GF_MAX_STAGES 64

typedef enum gf_backend { GF_BACKEND_AUTO = 0, GF_BACKEND_CUDA, GF_BACKEND_CPU } gf_backend;
typedef enum gf_timings { GF_TIMINGS_TEXT = 0, GF_TIMINGS_JSON } gf_timings;

typedef struct gf_options {
    const char *input;       /* the file being processed: path, or "-" for stdin */
    char **inputs;           /* the operands (argv); more come from --files-from */
    int ninputs;
    const char *files_from;  /* --files-from: a file of paths, one a line, "-" stdin */
    int shard_k, shard_n;    /* --shard K/N (1 <= K <= N); 0/0 for all */
    int jobs;                /* --jobs: CPU workers; 0 = one per core */
    int skip_existing;       /* --skip-existing */
    int batch;               /* several inputs, or --files-from: templates, summary */
    int output_dir;          /* -o names a directory */
    const char *output;      /* path or template, "-" for stdout, or NULL */
    gf_format format;        /* of the output */
    int png_level;           /* 0..12 */
    gf_stage stages[GF_MAX_STAGES]; /* in the order of their flags */
    int nstages;
    gf_backend backend;
    int device;
    int compare;
    int quiet;
    int force;
    gf_timings timings;
    gf_limits limits;
    gf_report_opts report; /* quiet, --stats, --hist-log */
    int hist_rgb;          /* --hist-channels rgb */
} gf_options;

/* Parses argv into *o. Returns 0 to run, 1 when --help or --version was
 * printed to stdout (exit 0), or GF_EUSAGE with a recorded message. */
int gf_cli_parse(int argc, char **argv, gf_options *o);

/* The one-line usage, to f. */
void gf_cli_usage(FILE *f);

#endif
