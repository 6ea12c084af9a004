/* timing.h - the timing report of one file: one row per step (start-up,
 * read, decode, upload, each stage, download, encode, write, total) and,
 * with --compare, one row per kernel variant; printed on stderr as a text
 * table or one JSON line. */
#ifndef GF_TIMING_H
#define GF_TIMING_H

#include <stdio.h>

#include <jansson.h>

#include "../gf.h"
#include "table.h"

typedef struct gf_report {
    const char *input;
    gf_shape in;               /* the decoded input */
    gf_shape out;              /* after the stages */
    const char *backend;       /* "cuda" or "cpu" */
    char device[128];          /* GPU name, or "" */
    char why[192];             /* why this backend ran, or "" */
    double done_ms;            /* when the file was done, ms since the process started */
    gf_table steps;
    gf_table compare;
} gf_report;

/* Appends a step row (ms, bytes as for gf_row) and returns it. */
gf_row *gf_report_step(gf_report *r, const char *step, const char *variant, double ms,
                       double bytes);

/* Appends a --compare row and returns it. */
gf_row *gf_report_compare(gf_report *r, const char *step, const char *variant, double ms,
                          double bytes);

/* Prints r to f as a text table. */
void gf_report_text(const gf_report *r, FILE *f);

/* r as a new JSON object. */
json_t *gf_report_json(const gf_report *r);

#endif
