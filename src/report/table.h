/* table.h - gpufilt's one writer of row tables: the per-file timing report
 * (steps, and --compare's variants) and gpufilt bench's table. Rows are
 * typed; a column list says which fields a table shows, as aligned text or
 * as a JSON array of objects. */
#ifndef GF_TABLE_H
#define GF_TABLE_H

#include <stdio.h>

#include <jansson.h>

#define GF_TABLE_ROWS 256

typedef struct gf_row {
    char step[48];    /* "decode", "mean 5", "mean 3x3 8000x8000" */
    char variant[24]; /* kernel variant, "cpu", or "" */
    double ms;        /* wall or CUDA-event time, ms */
    double bytes;     /* bytes moved, for GB/s and the floor; 0: none */
    double flops;     /* for GFLOP/s instead; 0: none */
    double speedup;   /* baseline ms / ms; 0: none */
    int check;        /* -1 none (or the reference), 0 failed, 1 passed */
    /* An inexact variant's difference from the gold (gf_table_inexact): the
     * check column shows it instead of a pass or a failure. */
    int inexact;
    unsigned max_diff;        /* the largest absolute difference of a sample */
    double ndiff, nsamples;   /* samples that differ, of all */
    /* The runs the time is the median of where a slow step was timed fewer
     * times than the table's others (gf_gpu_time); 0: as many as them. The
     * check column says so. */
    int runs;
} gf_row;

typedef struct gf_table {
    gf_row rows[GF_TABLE_ROWS];
    int n;            /* rows, those past GF_TABLE_ROWS in `more` */
    gf_row *more;     /* rows GF_TABLE_ROWS.. (malloc'd, grown by gf_table_add) */
    int more_cap;
    double copy_gbps; /* the measured copy rate, for "x floor"; 0: none */
    int failed;       /* some row's check is 0 */
} gf_table;

/* What a column shows. */
typedef enum gf_col_kind {
    GF_COL_STEP,    /* the step or experiment */
    GF_COL_VARIANT,
    GF_COL_MS,      /* ms with `decimals` places */
    GF_COL_GBPS,    /* bytes / ms as GB/s; blank when no bytes */
    GF_COL_RATE,    /* GFLOP/s when flops, else GB/s, with its unit */
    GF_COL_FLOOR,   /* ms over the floor: bytes at copy_gbps */
    GF_COL_SPEEDUP,
    GF_COL_CHECK,   /* words[check + 1] */
} gf_col_kind;

typedef struct gf_col {
    gf_col_kind kind;
    const char *title;         /* text header */
    const char *key;           /* JSON key; a field with no value is left out */
    int width;                 /* text width; negative: left-aligned */
    int decimals;
    const char *const *words;  /* GF_COL_CHECK: {none, failed, passed} */
    int gap;                   /* extra spaces before the column in text */
} gf_col;

/* Appends a row and returns it: past GF_TABLE_ROWS in t->more, grown on
 * the heap (gf_table_free gives it back); a scratch row, not shown, only
 * when memory runs out. */
gf_row *gf_table_add(gf_table *t, const char *step, const char *variant, double ms,
                     double bytes);

/* Marks a row's check (0 failed marks the table failed). */
void gf_table_check(gf_table *t, gf_row *r, int check);

/* Row i (0 .. t->n - 1). */
const gf_row *gf_table_row(const gf_table *t, int i);

/* Frees the rows past GF_TABLE_ROWS and empties t (its copy rate kept). */
void gf_table_free(gf_table *t);

/* Marks a row as an inexact variant's, which differs from the gold by at
 * most max_diff in ndiff of nsamples samples: neither a pass nor a failure.
 * Text shows "inexact: max diff N, M of T differ"; JSON a check of
 * "inexact" with max_diff, differing and samples. */
void gf_table_inexact(gf_row *r, unsigned max_diff, double ndiff, double nsamples);

/* The row's time over its floor (bytes at the copy rate), or 0. */
double gf_table_floor(const gf_table *t, const gf_row *r);

/* Writes t's rows to f under a header line, columns as cols (ncols),
 * each line starting with `indent`. */
void gf_table_text(const gf_table *t, const gf_col *cols, int ncols, const char *indent,
                   FILE *f);

/* t's rows as a new JSON array of objects, keys as cols. */
json_t *gf_table_json(const gf_table *t, const gf_col *cols, int ncols);

#endif
