/* gray.c - the gray stage: --gray. */
#include "gray.h"

#include <stdint.h>
#include <string.h>

static int check_size(const gf_image *in, const gf_image *out)
{
    if (out->width != in->width || out->height != in->height || out->channels != 1 ||
        out->bits != in->bits)
        return gf_err(GF_EINTERNAL, NULL, "gray: output is %dx%d %s for a %dx%d %s input",
                      out->width, out->height, gf_layout_name(out->channels, out->bits),
                      in->width, in->height, gf_layout_name(in->channels, in->bits));
    return 0;
}

/* The luma of pixel (x, y) of in. */
static unsigned luma_at(const gf_image *in, int x, int y)
{
    if (in->channels <= 2)
        return gf_sample(in, x, y, 0);
    return gf_luma(gf_sample(in, x, y, 0), gf_sample(in, x, y, 1), gf_sample(in, x, y, 2));
}

int gf_gray_gold(const gf_image *in, gf_image *out)
{
    int rc = check_size(in, out);

    for (int y = 0; rc == 0 && y < in->height; y++)
        for (int x = 0; x < in->width; x++)
            gf_sample_set(out, x, y, 0, luma_at(in, x, y));
    return rc;
}

/* A row of w pixels of C channels of type T into its luma: the colour
 * weights in 32-bit lanes, a loop the compiler vectorises for each C. */
#define GRAY_ROW(NAME, T, C)                                                                  \
    GF_CLONES static void NAME(const unsigned char *restrict src, unsigned char *restrict dst, \
                               int w)                                                         \
    {                                                                                         \
        const T *restrict s = (const T *)(const void *)src;                                   \
        T *restrict d = (T *)(void *)dst;                                                     \
        for (int x = 0; x < w; x++)                                                           \
            d[x] = (C) <= 2 ? s[(size_t)x * (C)]                                              \
                            : (T)gf_luma(s[(size_t)x * (C)], s[(size_t)x * (C) + 1],          \
                                         s[(size_t)x * (C) + 2]);                             \
    }
GRAY_ROW(gray_row_8_2, uint8_t, 2)
GRAY_ROW(gray_row_8_3, uint8_t, 3)
GRAY_ROW(gray_row_8_4, uint8_t, 4)
GRAY_ROW(gray_row_16_2, uint16_t, 2)
GRAY_ROW(gray_row_16_3, uint16_t, 3)
GRAY_ROW(gray_row_16_4, uint16_t, 4)

int gf_gray_cpu(const gf_image *in, gf_image *out)
{
    static void (*const rows[2][3])(const unsigned char *restrict, unsigned char *restrict,
                                    int) = {{gray_row_8_2, gray_row_8_3, gray_row_8_4},
                                            {gray_row_16_2, gray_row_16_3, gray_row_16_4}};
    int rc = check_size(in, out);

    if (rc)
        return rc;
    if (in->channels == 1) {
        for (int y = 0; y < in->height; y++)
            memcpy(out->data + (size_t)y * out->stride, in->data + (size_t)y * in->stride,
                   (size_t)in->width * (size_t)(in->bits / 8));
        return 0;
    }
    void (*row)(const unsigned char *restrict, unsigned char *restrict, int) =
        rows[in->bits / 16][in->channels - 2];
#pragma omp parallel for schedule(static) if (GF_PARALLEL(in->width, in->height))
    for (int y = 0; y < in->height; y++)
        row(in->data + (size_t)y * in->stride, out->data + (size_t)y * out->stride, in->width);
    return 0;
}

static int gray_gold(const gf_stage *s, const gf_image *in, gf_image *out)
{
    (void)s;
    return gf_gray_gold(in, out);
}

static int gray_cpu(const gf_stage *s, const gf_image *in, gf_image *out)
{
    (void)s;
    return gf_gray_cpu(in, out);
}

static void gray_label(const gf_stage *s, char *buf, size_t n)
{
    (void)s;
    snprintf(buf, n, "gray");
}

static void gray_out_shape(const gf_stage *s, const gf_shape *in, gf_shape *out)
{
    const gf_shape src = *in;
    (void)s;
    *out = src;
    out->channels = 1;
}

static int gray_unchanged(const gf_stage *s, const gf_shape *in)
{
    (void)s;
    return in->channels == 1;
}

static int parse_gray(gf_stage *s, const char *arg)
{
    (void)s, (void)arg;
    return 0;
}

static int gray_config(gf_stage *s, int i, int bench, uint64_t *rng)
{
    (void)s, (void)bench, (void)rng;
    return i == 0;
}

static const gf_stage_opt gray_opts[] = {
    {"gray", NULL,
     "the luma as one channel: (77 R + 150 G + 29 B) >> 8, alpha dropped; first, a JPEG's own Y",
     GF_OPT_ADD, parse_gray},
    {NULL, NULL, NULL, 0, NULL},
};

static const gf_variant gray_variants[] = {
    {"global", GF_CUDA(gf_gray_global_cuda)},
    {NULL, NULL},
};

const gf_stage_ops gf_stage_gray = {
    .cpu_cost = 0.30,
    .name = "gray",
    .group = "convert",
    .opts = gray_opts,
    .variants = gray_variants,
    .layouts = GF_LAYOUTS_ALL,
    .unchanged = gray_unchanged,
    .label = gray_label,
    .out_shape = gray_out_shape,
    .gold = gray_gold,
    .cpu = gray_cpu,
    .config = gray_config,
};
