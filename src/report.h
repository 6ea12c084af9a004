/* report.h - the timing report: one row per step (decode, upload, each
 * stage, download, encode, write, total) and, with --compare, one row per
 * kernel variant; printed as a text table or one JSON object, on stderr. */
#ifndef GF_REPORT_H
#define GF_REPORT_H

#include <stdio.h>

#define GF_REPORT_ROWS 256

typedef struct gf_row {
    char step[32];    /* "decode", "mean 5", ... */
    char variant[16]; /* kernel variant, "cpu", or "" */
    double ms;        /* wall or CUDA-event time, ms */
    double bytes;     /* device/host bytes moved, for GB/s; 0 for none */
    double speedup;   /* compare rows: baseline ms / ms; 0 for none */
    int check;        /* compare rows: 1 match, 0 mismatch, -1 reference */
} gf_row;

typedef struct gf_report {
    const char *input;
    int width, height;         /* input, pixels */
    int out_width, out_height; /* after the stages */
    const char *backend;       /* "cuda" or "cpu" */
    char device[128];          /* GPU name, or "" */
    gf_row steps[GF_REPORT_ROWS];
    int nsteps;
    gf_row compare[GF_REPORT_ROWS];
    int ncompare;
} gf_report;

/* Appends a step row (ms, bytes as for gf_row) and returns it; rows past
 * GF_REPORT_ROWS are dropped (returns a scratch row). */
gf_row *gf_report_step(gf_report *r, const char *step, const char *variant, double ms,
                       double bytes);
gf_row *gf_report_compare(gf_report *r, const char *step, const char *variant, double ms,
                          double bytes);

/* Prints r to f as an aligned text table. */
void gf_report_text(const gf_report *r, FILE *f);

/* Prints r to f as one JSON object on one line. */
void gf_report_json(const gf_report *r, FILE *f);

/* Writes s to f as a JSON string literal, quotes included. */
void gf_json_string(FILE *f, const char *s);

#endif
