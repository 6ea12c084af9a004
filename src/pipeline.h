/* pipeline.h - runs a list of stages in order on one backend. On the GPU the
 * image is uploaded once, stays on the device between stages and is
 * downloaded once. Also what --compare, make test-gpu and gpufilt bench use
 * to run every variant of a stage and check it against the gold reference. */
#ifndef GF_PIPELINE_H
#define GF_PIPELINE_H

#include "report/timing.h"
#include "stage.h"

/* Timed repeats per variant with --compare (after one warm-up run); the
 * median is reported. */
#define GF_COMPARE_REPS 7

typedef struct gf_pipeline {
    const gf_stage *stages;
    int nstages;
    int compare; /* also run every variant and check each against the gold */
    /* The CPU backend's stage rows as laps: when not NULL, each row is timed
     * from *lap (ms, gf_now_ms: the end of the caller's last row) and *lap
     * moves to its end, so that what runs between rows (the next image's
     * allocation, a skipped stage, the scheduler taking the core) is in a
     * row, and a file's rows add up to its total. NULL: each row from its
     * stage's own start. The GPU's rows are CUDA events either way. */
    double *lap;
} gf_pipeline;

/* Runs pl's stages over *img (host memory; consumed: freed or kept). gpu
 * NULL means the CPU backend. On the GPU, out NULL leaves the result on the
 * device (no download: report-only runs), and *final (when not NULL)
 * receives it there, valid until gpu's next run. results[i] receives report stage i's values
 * (pl->nstages entries, zeroed by the caller; free each .vals); a report
 * stage right after another of its kind, with no image stage between, gets
 * a copy of its values without running again. On success *out is the
 * result: owned by the caller when *owned (free with gf_image_free), else a
 * view of gpu's pinned buffer, valid until gpu's next transfer. Adds rows to
 * rep. With pl->compare every CPU path and CUDA variant of every stage also
 * runs on the same input and is checked against the gold; a mismatch
 * returns GF_EINTERNAL after all rows are recorded.
 * The stages must take the image's layout (gf_stages_check), else
 * GF_EUSAGE.
 * Errors: GF_EINTERNAL (CUDA error, out of memory, mismatch). */
int gf_pipeline_run(const gf_pipeline *pl, gf_gpu *gpu, gf_image *img, gf_image *out,
                    int *owned, gf_dimage *final, gf_report *rep, gf_result *results);

/* The device bytes a buffer needs to hold an input of shape `shape` and
 * every image pl's stages make from it: what a decoder on the device
 * (nvJPEG) allocates for an input that gf_pipeline_run_device runs in. */
size_t gf_pipeline_capacity(const gf_pipeline *pl, const gf_shape *shape);

/* gf_pipeline_run on the GPU for an input already on the device: *in, in
 * a buffer of gpu's device with at least gf_pipeline_capacity bytes, which
 * the stages use as one of their two image buffers (its pixels are not
 * kept). The buffer must stay allocated, and unused elsewhere, until the
 * result is downloaded and *final is no longer read; the caller waits for
 * gpu's stream (gf_gpu_sync) before it reuses it. out and final as for
 * gf_pipeline_run. Not with --compare. Errors: GF_EINTERNAL (a buffer too
 * small, CUDA errors). */
int gf_pipeline_run_device(const gf_pipeline *pl, gf_gpu *gpu, const gf_dimage *in,
                           gf_image *out, gf_dimage *final, gf_report *rep, gf_result *results);

/* Runs each stage once with the variant it would use, on a 16x16 image of
 * layout's channels and bits in gpu's reusable buffers: CUDA loads a
 * kernel's module at its first launch, and this moves that cost out of the
 * first file's timings (gpufilt calls it during start-up, behind decoding).
 * Stages that do not take the layout are left alone. Errors: CUDA errors. */
int gf_pipeline_warm(const gf_pipeline *pl, gf_gpu *gpu, const gf_shape *layout);

#define GF_MAX_VARIANTS 8

typedef struct gf_variant_result {
    double ms;     /* median time, ms (CUDA events on the GPU, wall clock on the CPU) */
    int match;     /* 1 when bit-identical to the gold */
    char why[192]; /* the first difference, when not */
    /* An inexact variant (gf_stage_ops.inexact) of the gold's shape: its
     * difference is measured and reported, never a failure; 0 for the
     * others, and for an inexact variant that gives the wrong shape. */
    int inexact;
    unsigned max_diff;      /* the largest absolute difference of a sample (or value) */
    double ndiff, nsamples; /* samples (values) that differ, of all */
    int runs;               /* the timed runs of ms (gf_gpu_time_runs: fewer for a slow
                               variant); 0 on the CPU */
} gf_variant_result;

/* What one run of a stage produced on the host: an image (image stages) or
 * n values (report stages). */
typedef struct gf_output {
    gf_image img;
    uint32_t *vals;
    size_t n;
} gf_output;

void gf_output_free(gf_output *o);

/* The gold reference of s on host (host memory) into *ref (free with
 * gf_output_free); *ms its wall time. Errors: GF_EINTERNAL. */
int gf_stage_reference(const gf_stage *s, const gf_image *host, gf_output *ref, double *ms);

/* The CPU backend's path of s on host: run once to warm up, then `reps`
 * times (median wall time in res->ms), checked against ref.
 * Errors: GF_EINTERNAL (out of memory). */
int gf_stage_check_cpu(const gf_stage *s, const gf_image *host, const gf_output *ref, int reps,
                       gf_variant_result *res);

/* Every CUDA variant of s on src (device memory, the pixels ref came from):
 * variant `keep` writes into keep_out, the others into scratch (each with
 * capacity for the output image, or for a report stage's values; they may
 * be the same buffer). Each output is poisoned, the variant warmed up and
 * timed `reps` times (gf_gpu_time), then downloaded and compared with ref:
 * res[v] for each variant (at most GF_MAX_VARIANTS). Mismatches are results,
 * not errors. Errors: CUDA errors, out of memory. */
int gf_stage_variants(gf_gpu *gpu, const gf_stage *s, const gf_dimage *src,
                      const gf_output *ref, int keep, gf_dimage *keep_out, gf_dimage *scratch,
                      int reps, gf_variant_result *res);

/* gf_stage_variants on host image img: uploads it to device buffers of its
 * own, runs and checks every variant, and frees the buffers. */
int gf_stage_check(gf_gpu *gpu, const gf_stage *s, const gf_image *img, const gf_output *ref,
                   int reps, gf_variant_result *res);

/* First sample where a and b (host) differ, as pixel *x, *y and channel
 * *c; returns 1 if they differ (or differ in size or layout: *x, *y, *c
 * then -1), else 0. */
int gf_image_diff(const gf_image *a, const gf_image *b, int *x, int *y, int *c);

/* How far a and b (host, the same shape) differ: the largest absolute
 * difference of a sample into *max_diff and the count of samples that
 * differ into *ndiff. Returns 0, or -1 when their shapes differ. */
int gf_image_error(const gf_image *a, const gf_image *b, unsigned *max_diff, double *ndiff);

#endif
