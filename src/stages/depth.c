/* depth.c - the depth stage: --depth 8|16. */
#include "depth.h"

#include <stdint.h>
#include <string.h>

_Static_assert(sizeof(gf_depth_params) <= GF_STAGE_PARAMS, "depth params");

static int check_size(const gf_image *in, const gf_image *out)
{
    if (out->width != in->width || out->height != in->height || out->channels != in->channels)
        return gf_err(GF_EINTERNAL, NULL, "depth: output is %dx%d %s for a %dx%d %s input",
                      out->width, out->height, gf_layout_name(out->channels, out->bits),
                      in->width, in->height, gf_layout_name(in->channels, in->bits));
    return 0;
}

/* A sample of in's depth at out's. */
static unsigned convert(unsigned v, int from, int to)
{
    return from == to ? v : to == 8 ? gf_depth_16to8(v) : gf_depth_8to16(v);
}

int gf_depth_gold(const gf_image *in, gf_image *out)
{
    int rc = check_size(in, out);

    for (int y = 0; rc == 0 && y < in->height; y++)
        for (int x = 0; x < in->width; x++)
            for (int c = 0; c < in->channels; c++)
                gf_sample_set(out, x, y, c, convert(gf_sample(in, x, y, c), in->bits, out->bits));
    return rc;
}

GF_CLONES static void row_16to8(const unsigned char *restrict src, unsigned char *restrict dst,
                                size_t n)
{
    const uint16_t *restrict s = (const uint16_t *)(const void *)src;
    for (size_t i = 0; i < n; i++)
        dst[i] = (unsigned char)gf_depth_16to8(s[i]);
}

GF_CLONES static void row_8to16(const unsigned char *restrict src, unsigned char *restrict dst,
                                size_t n)
{
    uint16_t *restrict d = (uint16_t *)(void *)dst;
    for (size_t i = 0; i < n; i++)
        d[i] = (uint16_t)gf_depth_8to16(src[i]);
}

int gf_depth_cpu(const gf_image *in, gf_image *out)
{
    const size_t n = (size_t)in->width * (size_t)in->channels;
    int rc = check_size(in, out);

    if (rc)
        return rc;
    if (in->bits == out->bits) {
        for (int y = 0; y < in->height; y++)
            memcpy(out->data + (size_t)y * out->stride, in->data + (size_t)y * in->stride,
                   n * (size_t)(in->bits / 8));
        return 0;
    }
#pragma omp parallel for schedule(static) if (GF_PARALLEL(n, in->height))
    for (int y = 0; y < in->height; y++)
        (out->bits == 8 ? row_16to8 : row_8to16)(in->data + (size_t)y * in->stride,
                                                 out->data + (size_t)y * out->stride, n);
    return 0;
}

static int depth_gold(const gf_stage *s, const gf_image *in, gf_image *out)
{
    (void)s;
    return gf_depth_gold(in, out);
}

static int depth_cpu(const gf_stage *s, const gf_image *in, gf_image *out)
{
    (void)s;
    return gf_depth_cpu(in, out);
}

static void depth_label(const gf_stage *s, char *buf, size_t n)
{
    snprintf(buf, n, "depth %d", GF_CPARAMS(s, gf_depth_params)->bits);
}

static void depth_out_shape(const gf_stage *s, const gf_shape *in, gf_shape *out)
{
    const gf_shape src = *in;
    *out = src;
    out->bits = GF_CPARAMS(s, gf_depth_params)->bits;
}

static int depth_unchanged(const gf_stage *s, const gf_shape *in)
{
    return in->bits == GF_CPARAMS(s, gf_depth_params)->bits;
}

static int parse_depth(gf_stage *s, const char *arg)
{
    gf_depth_params *p = GF_PARAMS(s, gf_depth_params);

    if (strcmp(arg, "8") && strcmp(arg, "16"))
        return gf_err(GF_EUSAGE, NULL, "--depth: bits must be 8 or 16, not '%s'", arg);
    p->bits = arg[0] == '8' ? 8 : 16;
    return 0;
}

/* Configurations: to 8 and to 16 bits (each changes the images of the
 * other depth). */
static int depth_config(gf_stage *s, int i, int bench, uint64_t *rng)
{
    (void)bench, (void)rng;
    if (i >= 2)
        return 0;
    GF_PARAMS(s, gf_depth_params)->bits = i ? 16 : 8;
    return 1;
}

static const gf_stage_opt depth_opts[] = {
    {"depth", "8|16",
     "every sample to 8 bits (nearest: (v * 255 + 32767) / 65535) or to 16 (v * 257)",
     GF_OPT_ADD, parse_depth},
    {NULL, NULL, NULL, 0, NULL},
};

static const gf_variant depth_variants[] = {
    {"global", GF_CUDA(gf_depth_global_cuda)},
    {NULL, NULL},
};

const gf_stage_ops gf_stage_depth = {
    .cpu_cost = 0.20,
    .name = "depth",
    .group = "convert",
    .opts = depth_opts,
    .variants = depth_variants,
    .layouts = GF_LAYOUTS_ALL,
    .unchanged = depth_unchanged,
    .label = depth_label,
    .out_shape = depth_out_shape,
    .gold = depth_gold,
    .cpu = depth_cpu,
    .config = depth_config,
};
