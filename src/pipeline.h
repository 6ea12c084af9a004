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
 * means the CPU backend. On success *out is the result: owned by the caller
 * when *owned (free with gf_image_free), else a view of gpu's pinned buffer,
 * valid until gpu's next transfer. Adds rows to rep. With o->compare, every
 * variant of every stage also runs on the same input and is checked against
 * the CPU reference; a mismatch returns GF_EINTERNAL after all rows are
 * recorded. Errors: GF_EINTERNAL (CUDA error, out of memory, mismatch). */
int gf_pipeline_run(const gf_options *o, gf_gpu *gpu, gf_image *img, gf_image *out, int *owned,
                    gf_report *rep);

/* First pixel where a and b (same size, host) differ, as *x, *y; returns 1
 * if they differ (or differ in size), else 0. */
int gf_image_diff(const gf_image *a, const gf_image *b, int *x, int *y);

#endif
