/* stage.h - a pipeline stage: one table entry per kind of stage (see
 * src/stages/), plus the parameters one use of it on the command line has. */
#ifndef GF_STAGE_H
#define GF_STAGE_H

#include <stddef.h>

#include "border.h"
#include "gf.h"
#include "gpu.h"

typedef struct gf_stage gf_stage;

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
    } u;
};

extern const gf_stage_ops gf_stage_mean;
extern const gf_stage_ops gf_stage_transpose; /* transpose, transverse, rotate 90/270 */
extern const gf_stage_ops gf_stage_mirror;    /* flip, flop, rotate 180 */

/* Index of variant `name` in ops->variants, or -1. */
int gf_stage_variant_index(const gf_stage_ops *ops, const char *name);

/* Bytes a stage moves through device memory for a width x height input: each
 * input pixel read once, each output pixel written once (the floor's count). */
double gf_stage_bytes(const gf_stage *s, int width, int height);

#endif
