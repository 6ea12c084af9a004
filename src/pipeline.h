/* pipeline.h - runs the stages in order on one backend. On the GPU the image
 * is uploaded once, stays on the device between stages and is downloaded
 * once. */
#ifndef GF_PIPELINE_H
#define GF_PIPELINE_H

#include "cli.h"
#include "report.h"

/* Timed repeats per variant with --compare (after one warm-up run); the
 * median is reported. */
#define GF_COMPARE_REPS 7

/* Runs o's stages over *img (host memory; consumed: freed or kept). gpu NULL
 * means the CPU backend. results[i] receives report stage i's values
 * (o->nstages entries, zeroed by the caller; free each .vals). On success *out is the result: owned by the caller
 * when *owned (free with gf_image_free), else a view of gpu's pinned buffer,
 * valid until gpu's next transfer. Adds rows to rep. With o->compare, every
 * variant of every stage also runs on the same input and is checked against
 * the CPU reference; a mismatch returns GF_EINTERNAL after all rows are
 * recorded. Errors: GF_EINTERNAL (CUDA error, out of memory, mismatch). */
int gf_pipeline_run(const gf_options *o, gf_gpu *gpu, gf_image *img, gf_image *out, int *owned,
                    gf_report *rep, gf_result *results);

#define GF_MAX_VARIANTS 8

typedef struct gf_variant_result {
    double ms;     /* median CUDA-event time, ms */
    int match;     /* 1 when bit-identical to the CPU reference */
    char why[160]; /* the first difference, when not */
} gf_variant_result;

/* What one run of a stage produced on the host: an image (image stages) or
 * n values (report stages). */
typedef struct gf_output {
    gf_image img;
    uint32_t *vals;
    size_t n;
} gf_output;

void gf_output_free(gf_output *o);

/* Runs stage s's CPU reference on host (host memory; result in *ref, which
 * the caller frees with gf_output_free) and every CUDA variant of s on src
 * (device memory, the same pixels as host). Variant `keep` writes into
 * keep_out, the others into scratch (each with capacity for the output image,
 * or for a report stage's values; they may be the same buffer).
 * Each output is poisoned, the variant warmed up and timed `reps` times
 * (gf_gpu_time), then downloaded and compared with *ref: res[v] for each
 * variant (at most GF_MAX_VARIANTS), *cpu_ms the reference's wall time in ms.
 * Mismatches are results, not errors. Errors: CUDA errors, out of memory. */
int gf_stage_variants(gf_gpu *gpu, const gf_stage *s, const gf_image *host,
                      const gf_dimage *src, int keep, gf_dimage *keep_out, gf_dimage *scratch,
                      int reps, gf_output *ref, double *cpu_ms, gf_variant_result *res);

/* gf_stage_variants on host image img: uploads it to device buffers of its
 * own, runs and checks every variant, and frees the buffers. */
int gf_stage_check(gf_gpu *gpu, const gf_stage *s, const gf_image *img, int reps,
                   gf_output *ref, double *cpu_ms, gf_variant_result *res);

/* Runs each of o's stages once, with its chosen variant, on a 16x16 image
 * in gpu's reusable buffers: CUDA loads a kernel's module at its first
 * launch, and this moves that cost out of the first file's stage timings
 * (gpufilt calls it during start-up, behind decoding). Errors: CUDA errors. */
int gf_pipeline_warm(const gf_options *o, gf_gpu *gpu);

/* First pixel where a and b (same size, host) differ, as *x, *y; returns 1
 * if they differ (or differ in size), else 0. */
int gf_image_diff(const gf_image *a, const gf_image *b, int *x, int *y);

#endif
