/* orient.c - the orientation stages: --transpose, --transverse,
 * --rotate 90|180|270, --flip, --flop. Two tables: the ops that swap the
 * axes (tiled kernels) and the mirrors (no tile needed). */
#include "orient.h"

#include <stdio.h>

#include "../kernels.h"
#include "../stage.h"

/* CPU blocking: a 64x64 block of input and output bytes stays in L1. */
#define CPU_BLOCK 64

int gf_orient_cpu(const gf_image *in, gf_image *out, gf_orient_op op)
{
    const int w = in->width, h = in->height;
    const int sw = gf_orient_swaps(op);

    if (out->width != (sw ? h : w) || out->height != (sw ? w : h))
        return gf_err(GF_EINTERNAL, NULL, "orient: output is %dx%d for a %dx%d input",
                      out->width, out->height, w, h);
#pragma omp parallel for schedule(static)
    for (int by = 0; by < h; by += CPU_BLOCK)
        for (int bx = 0; bx < w; bx += CPU_BLOCK)
            for (int y = by; y < h && y < by + CPU_BLOCK; y++) {
                const unsigned char *row = in->data + (size_t)y * in->stride;
                for (int x = bx; x < w && x < bx + CPU_BLOCK; x++) {
                    int ox, oy;
                    gf_orient_dest(op, x, y, w, h, &ox, &oy);
                    out->data[(size_t)oy * out->stride + ox] = row[x];
                }
            }
    return 0;
}

static const char *const op_labels[GF_ORIENT_NOPS] = {
    "transpose", "transverse", "rotate 90", "rotate 270", "rotate 180", "flip", "flop",
};

static void orient_label(const gf_stage *s, char *buf, size_t n)
{
    snprintf(buf, n, "%s", op_labels[s->u.orient.op]);
}

static void orient_out_size(const gf_stage *s, int w, int h, int *ow, int *oh)
{
    int sw = gf_orient_swaps(s->u.orient.op);
    *ow = sw ? h : w;
    *oh = sw ? w : h;
}

static int orient_run_cpu(const gf_stage *s, const gf_image *in, gf_image *out)
{
    int ow, oh, rc;

    orient_out_size(s, in->width, in->height, &ow, &oh);
    rc = gf_image_alloc(out, ow, oh);
    if (rc == 0 && (rc = gf_orient_cpu(in, out, s->u.orient.op)))
        gf_image_free(out);
    return rc;
}

static int orient_run_cuda(const gf_stage *s, int variant, const gf_dimage *in, gf_dimage *out,
                           void *stream)
{
    return gf_orient_cuda(in, out, s->u.orient.op, variant, stream);
}

static const char *const transpose_variants[] = {"global", "shared", NULL};
static const char *const mirror_variants[] = {"global", "vector", NULL};

const gf_stage_ops gf_stage_transpose = {
    .name = "transpose",
    .description = "transpose, transverse, rotate 90 or 270 (axes swap)",
    .variants = transpose_variants,
    .default_variant = GF_ORIENT_SHARED,
    .label = orient_label,
    .out_size = orient_out_size,
    .run_cpu = orient_run_cpu,
    .run_cuda = orient_run_cuda,
};

const gf_stage_ops gf_stage_mirror = {
    .name = "mirror",
    .description = "flip, flop or rotate 180",
    .variants = mirror_variants,
    .default_variant = GF_ORIENT_VECTOR,
    .label = orient_label,
    .out_size = orient_out_size,
    .run_cpu = orient_run_cpu,
    .run_cuda = orient_run_cuda,
};
