/* stage.h - a pipeline stage: one table entry per kind of stage (see
 * src/stages/), plus the parameters one use of it on the command line has. */
#ifndef GF_STAGE_H
#define GF_STAGE_H

#include <stddef.h>
#include <stdint.h>

#include "border.h"
#include "gf.h"
#include "gpu.h"

typedef struct gf_stage gf_stage;

/* What a report stage produced: n 32-bit counts or sums (host memory), and
 * the size of the image it saw. */
typedef struct gf_result {
    const char *input; /* the input file's name, for messages */
    int width, height;
    size_t n;
    uint32_t *vals;
    const uint32_t (*rgb)[256]; /* R, G, B histograms of the decoded image, or NULL */
} gf_result;

/* Settings shared by every report stage of a run. */
typedef struct gf_report_opts {
    int quiet;    /* no statistics line on stderr */
    int stats;    /* histogram statistics as key=value lines on stdout */
    int hist_log; /* histogram plots on a log scale */
    int batch;    /* several files: --stats blocks start with file=NAME */
} gf_report_opts;

typedef struct gf_stage_ops {
    const char *name;              /* option name: "mean" */
    const char *description;       /* one line for --help */
    const char *const *variants;   /* CUDA kernel variants, NULL-terminated;
                                      [0] is the baseline ("global") */
    int default_variant;           /* index into variants: the faster one on an H100 */
    /* Writes the label used in timing tables ("mean 5") into buf (n bytes). */
    void (*label)(const gf_stage *s, char *buf, size_t n);
    /* Output size for a width x height input. */
    void (*out_size)(const gf_stage *s, int width, int height, int *out_w, int *out_h);
    /* CPU reference: in (host) -> out (host, allocated by the callee with
     * gf_image_alloc). Returns 0 or GF_E*. */
    int (*run_cpu)(const gf_stage *s, const gf_image *in, gf_image *out);
    /* CUDA: in (device) -> out (device, capacity already large enough; the
     * callee sets its shape). Launches on `stream` and does not wait. */
    int (*run_cuda)(const gf_stage *s, int variant, const gf_dimage *in, gf_dimage *out,
                    void *stream);

    /* Report stages (histogram, projections) set these instead of run_cpu and
     * run_cuda: the image passes unchanged and the stage yields
     * report_len(width, height) 32-bit values. */
    size_t (*report_len)(const gf_stage *s, int width, int height);
    /* CPU reference: in (host) -> vals (host, report_len values). */
    int (*report_cpu)(const gf_stage *s, const gf_image *in, uint32_t *vals);
    /* CUDA: in (device) -> vals (device, report_len values). Launches on
     * `stream`; the launcher zeroes vals itself where it accumulates. */
    int (*report_cuda)(const gf_stage *s, int variant, const gf_dimage *in, uint32_t *vals,
                       void *stream);
    /* Writes the result to the stage's file and prints what it reports.
     * Errors: GF_ECREATE, GF_EIO. */
    int (*report_write)(const gf_stage *s, const gf_result *r, const gf_report_opts *o);
} gf_stage_ops;

struct gf_stage {
    const gf_stage_ops *ops;
    int variant; /* index into ops->variants, or -1 for the default */
    union {
        struct {
            int ksize;        /* 3 or 5 */
            gf_border border;
        } mean;
        struct {
            int op; /* gf_orient_op (stages/orient.h) */
        } orient;
        struct {
            const char *path; /* .csv, .json, .png or "-" (CSV on stdout); NULL: none */
            int rgb;          /* histogram: also R, G and B of the decoded image */
        } report;
    } u;
};

extern const gf_stage_ops gf_stage_mean;
extern const gf_stage_ops gf_stage_transpose; /* transpose, transverse, rotate 90/270 */
extern const gf_stage_ops gf_stage_mirror;    /* flip, flop, rotate 180 */
extern const gf_stage_ops gf_stage_hist;
extern const gf_stage_ops gf_stage_colsum;
extern const gf_stage_ops gf_stage_rowsum;

/* Index of variant `name` in ops->variants, or -1. */
int gf_stage_variant_index(const gf_stage_ops *ops, const char *name);

/* 1 when s is a report stage (the image passes unchanged). */
static inline int gf_stage_is_report(const gf_stage *s)
{
    return s->ops->report_len != NULL;
}

/* out_size for stages that keep the size. */
void gf_stage_same_size(const gf_stage *s, int width, int height, int *out_w, int *out_h);

/* Bytes a stage moves through device memory for a width x height input: each
 * input pixel read once, each output pixel written once (the floor's count). */
double gf_stage_bytes(const gf_stage *s, int width, int height);

#endif
