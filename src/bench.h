/* bench.h - `gpufilt bench`: the classic CUDA memory experiments, run with
 * gpufilt's own verified kernels (every stage in the registry, every
 * variant), each beside the copy-bandwidth floor and the library peers; and
 * the table it prints. */
#ifndef GF_BENCH_H
#define GF_BENCH_H

#include <stdio.h>

#include <jansson.h>

#include "report/table.h"

typedef struct gf_bench_table {
    gf_table t; /* the rows; t.copy_gbps is the floor's rate */
    int reps;   /* timed runs per row */
    char device[128], driver[64], runtime[16];
    char notes[1024]; /* tolerances and peers left out, one line */
} gf_bench_table;

/* Prints b as an aligned table ending with the device line. */
void gf_bench_print_text(const gf_bench_table *b, FILE *f);

/* b as a new JSON object: device, driver, cuda_runtime, reps, copy_gbps,
 * notes, rows and passed. */
json_t *gf_bench_json(const gf_bench_table *b);

/* argv[0] is "bench". Returns the exit status: 0 all checks passed, 64 usage,
 * 69 no usable GPU, 70 a check failed or a CUDA error. */
int gf_bench_main(int argc, char **argv);

#endif
