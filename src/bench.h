/* bench.h - `gpufilt bench`: the classic CUDA memory experiments, run with
 * gpufilt's own verified kernels, each beside the copy-bandwidth floor and
 * the library peers; and the table it prints. */
#ifndef GF_BENCH_H
#define GF_BENCH_H

#include <stdio.h>

#define GF_BENCH_ROWS 160

typedef struct gf_bench_row {
    char experiment[40];
    char variant[24];
    double ms;      /* median, ms */
    double bytes;   /* that must move, for GB/s and the floor; 0: none */
    double flops;   /* for GFLOP/s instead (matmul); 0: none */
    double speedup; /* over the experiment's baseline variant; 0: none */
    int check;      /* 1 PASS, 0 FAIL, -1 none */
} gf_bench_row;

typedef struct gf_bench_table {
    gf_bench_row rows[GF_BENCH_ROWS];
    int nrows;
    int failed;       /* a check failed */
    int reps;         /* timed runs per row */
    double copy_gbps; /* measured copy rate: the floor; 0: not measured */
    char device[128], driver[64], runtime[16];
    char notes[512];  /* tolerances and peers left out, one line */
} gf_bench_table;

/* Appends a row and returns it (a scratch row past GF_BENCH_ROWS); check 0
 * marks the table failed. */
gf_bench_row *gf_bench_add(gf_bench_table *t, const char *experiment, const char *variant,
                           double ms, double bytes, int check);

/* The row's time over its floor (bytes at the copy rate), or 0. */
double gf_bench_floor_ratio(const gf_bench_table *t, const gf_bench_row *r);

/* Prints t as an aligned table ending with the device line, or as one JSON
 * object on one line. */
void gf_bench_print_text(const gf_bench_table *t, FILE *f);
void gf_bench_print_json(const gf_bench_table *t, FILE *f);

/* argv[0] is "bench". Returns the exit status: 0 all checks passed, 64 usage,
 * 69 no usable GPU, 70 a check failed or a CUDA error. */
int gf_bench_main(int argc, char **argv);

#endif
