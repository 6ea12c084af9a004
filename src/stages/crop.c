/* crop.c - the crop stage: --crop WxH+X+Y (src/stages/crop.h). */
#include "crop.h"

#include <stdio.h>
#include <string.h>

_Static_assert(sizeof(gf_crop_params) <= GF_STAGE_PARAMS, "crop params");

int gf_crop_of(const gf_stage *s, int w, int h, int *x, int *y, int *cw, int *ch)
{
    return gf_crop_region(&GF_CPARAMS(s, gf_crop_params)->region, w, h, x, y, cw, ch);
}

/* The gold: a sample at a time from the region. */
static int crop_gold(const gf_stage *s, const gf_image *in, gf_image *out)
{
    int x0, y0, cw, ch;

    if (gf_crop_of(s, in->width, in->height, &x0, &y0, &cw, &ch) || out->width != cw ||
        out->height != ch || out->channels != in->channels || out->bits != in->bits)
        return gf_err(GF_EINTERNAL, NULL, "crop: output is %dx%d for a %dx%d input", out->width,
                      out->height, in->width, in->height);
    for (int y = 0; y < ch; y++)
        for (int x = 0; x < cw; x++)
            for (int c = 0; c < in->channels; c++)
                gf_sample_set(out, x, y, c, gf_sample(in, x0 + x, y0 + y, c));
    return 0;
}

/* The CPU backend's path: a row at a time. */
static int crop_cpu(const gf_stage *s, const gf_image *in, gf_image *out)
{
    const size_t px = GF_PIXEL_BYTES(in->channels, in->bits);
    int x0, y0, cw, ch;

    if (gf_crop_of(s, in->width, in->height, &x0, &y0, &cw, &ch) || out->width != cw ||
        out->height != ch)
        return gf_err(GF_EINTERNAL, NULL, "crop: output is %dx%d for a %dx%d input", out->width,
                      out->height, in->width, in->height);
    for (int y = 0; y < ch; y++)
        memcpy(out->data + (size_t)y * out->stride,
               in->data + (size_t)(y0 + y) * in->stride + (size_t)x0 * px, (size_t)cw * px);
    return 0;
}

static void crop_label(const gf_stage *s, char *buf, size_t n)
{
    snprintf(buf, n, "crop %s", GF_CPARAMS(s, gf_crop_params)->text);
}

static void crop_out_shape(const gf_stage *s, const gf_shape *in, gf_shape *out)
{
    gf_shape o = *in;
    int x, y;
    if (gf_crop_of(s, in->width, in->height, &x, &y, &o.width, &o.height))
        o.width = o.height = 1; /* refused by crop_check first */
    *out = o;
}

static int crop_check(const gf_stage *s, const gf_shape *in)
{
    int x, y, w, h;
    if (gf_crop_of(s, in->width, in->height, &x, &y, &w, &h))
        return gf_err(GF_EUSAGE, NULL, "--crop: the region %s lies outside the %dx%d image",
                      GF_CPARAMS(s, gf_crop_params)->text, in->width, in->height);
    return 0;
}

static int crop_unchanged(const gf_stage *s, const gf_shape *in)
{
    int x, y, w, h;
    return gf_crop_of(s, in->width, in->height, &x, &y, &w, &h) == 0 && w == in->width &&
           h == in->height;
}

/* The bytes through device memory: the region read once and written once. */
static double crop_bytes(const gf_stage *s, const gf_shape *in)
{
    int x, y, w, h;
    if (gf_crop_of(s, in->width, in->height, &x, &y, &w, &h))
        return 0.0;
    return 2.0 * (double)w * h * (double)GF_PIXEL_BYTES(in->channels, in->bits);
}

static int parse_crop(gf_stage *s, const char *arg)
{
    gf_crop_params *p = GF_PARAMS(s, gf_crop_params);
    char why[160];

    if (gf_crop_parse(arg, &p->region, why, sizeof why))
        return gf_err(GF_EUSAGE, NULL, "--crop: %s", why);
    snprintf(p->text, sizeof p->text, "%.47s", arg);
    return 0;
}

/* Configurations: a region inside, one partly outside on each side, one
 * larger than any test image; random from rng. */
static int crop_config(gf_stage *s, int i, int bench, uint64_t *rng)
{
    char g[64];

    if (i >= (bench ? 1 : 4))
        return 0;
    switch (i) {
    case 0: snprintf(g, sizeof g, "%ux%u+%u+%u", 1 + gf_rand(rng) % 50, 1 + gf_rand(rng) % 50,
                     gf_rand(rng) % 3, gf_rand(rng) % 3); break;
    case 1: snprintf(g, sizeof g, "%ux%u-%u-%u", 1 + gf_rand(rng) % 300, 1 + gf_rand(rng) % 300,
                     gf_rand(rng) % 5, gf_rand(rng) % 5); break;
    case 2: snprintf(g, sizeof g, "100000x100000+%u+%u", gf_rand(rng) % 2, gf_rand(rng) % 2); break;
    default: snprintf(g, sizeof g, "%ux%u", 1 + gf_rand(rng) % 7, 1 + gf_rand(rng) % 7); break;
    }
    return parse_crop(s, bench ? "4096x4096+17+33" : g) == 0;
}

static const gf_stage_opt crop_opts[] = {
    {"crop", "WxH+X+Y",
     "cut out the region W x H pixels from column X and row Y (WxH alone: from 0,0; X and Y may "
     "be negative), cut to the image as convert -crop GEOMETRY +repage",
     GF_OPT_ADD, parse_crop},
    {NULL, NULL, NULL, 0, NULL},
};

static const gf_variant crop_variants[] = {
    {"copy", GF_CUDA(gf_crop_copy_cuda)},
    {"vector", GF_CUDA(gf_crop_vector_cuda)},
    {NULL, NULL},
};

static const gf_default crop_defaults[] = {
    {0, 0, "vector"},
    {0, 0, NULL},
};

const gf_stage_ops gf_stage_crop = {
    .cpu_cost = 0.05,
    .floor_bytes = crop_bytes,
    .name = "crop",
    .group = "resize",
    .opts = crop_opts,
    .variants = crop_variants,
    .defaults = crop_defaults,
    .layouts = GF_LAYOUTS_ALL,
    .check = crop_check,
    .unchanged = crop_unchanged,
    .label = crop_label,
    .out_shape = crop_out_shape,
    .gold = crop_gold,
    .cpu = crop_cpu,
    .config = crop_config,
};
