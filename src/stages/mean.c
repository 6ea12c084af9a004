/* mean.c - the box mean stage: --mean 3|5 and --border MODE. */
#include "mean.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RADIUS 2

_Static_assert(sizeof(gf_mean_params) <= GF_STAGE_PARAMS, "mean params");

static int check_args(const gf_image *in, const gf_image *out, int ksize)
{
    if ((ksize != 3 && ksize != 5) || out->width != in->width || out->height != in->height)
        return gf_err(GF_EINTERNAL, NULL, "mean: bad arguments (ksize %d)", ksize);
    return 0;
}

static unsigned char round_mean(unsigned sum, unsigned area)
{
    return (unsigned char)((2 * sum + area) / (2 * area));
}

int gf_mean_gold(const gf_image *in, gf_image *out, int ksize, gf_border border)
{
    const int w = in->width, h = in->height, r = ksize / 2;
    int rc = check_args(in, out, ksize);

    if (rc)
        return rc;
#pragma omp parallel for schedule(static)
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            unsigned s = 0;
            for (int dy = -r; dy <= r; dy++)
                for (int dx = -r; dx <= r; dx++) {
                    int xx = gf_border_index(x + dx, w, border.mode);
                    int yy = gf_border_index(y + dy, h, border.mode);
                    s += xx < 0 || yy < 0 ? (unsigned)border.value
                                          : in->data[(size_t)yy * in->stride + xx];
                }
            out->data[(size_t)y * out->stride + x] = round_mean(s, (unsigned)(ksize * ksize));
        }
    return 0;
}

/* The fast path, one output row at a time: the column sums of the K window
 * rows into c[r .. r+w) (16-bit; at most 5 * 255), the border columns into
 * c[0 .. r) and c[r+w .. w+2r), then each pixel from K adjacent column sums.
 * The loops are written per K with constant divisors so that the compiler
 * turns them into vector code (16-bit lanes, the division a multiply-high),
 * for AVX2 and for the baseline x86-64 alike (target_clones). */
#define COLSUMS(K)                                                                            \
    for (int x = 0; x < w; x++) {                                                             \
        unsigned s = 0;                                                                       \
        for (int k = 0; k < (K); k++)                                                         \
            s += rows[k][x];                                                                  \
        c[(K) / 2 + x] = (uint16_t)s;                                                         \
    }
#define ROUND_ROW(K)                                                                          \
    for (int x = 0; x < w; x++) {                                                             \
        unsigned s = 0;                                                                       \
        for (int k = 0; k < (K); k++)                                                         \
            s += c[x + k];                                                                    \
        o[x] = (unsigned char)((uint16_t)(2 * s + (K) * (K)) / (uint16_t)(2 * (K) * (K)));   \
    }

GF_CLONES static void colsums3(const unsigned char *const *restrict rows, uint16_t *restrict c,
                               int w)
{
    COLSUMS(3)
}

GF_CLONES static void colsums5(const unsigned char *const *restrict rows, uint16_t *restrict c,
                               int w)
{
    COLSUMS(5)
}

GF_CLONES static void round_row3(const uint16_t *restrict c, unsigned char *restrict o, int w)
{
    ROUND_ROW(3)
}

GF_CLONES static void round_row5(const uint16_t *restrict c, unsigned char *restrict o, int w)
{
    ROUND_ROW(5)
}

int gf_mean_cpu(const gf_image *in, gf_image *out, int ksize, gf_border border)
{
    const int w = in->width, h = in->height, r = ksize / 2;
    int failed = 0, rc = check_args(in, out, ksize);

    if (rc)
        return rc;
#pragma omp parallel reduction(| : failed) if (GF_PARALLEL(w, h))
    {
        /* column sums with r border columns each side; a row of the
         * constant border's value, for window rows outside the image */
        uint16_t *c = malloc(((size_t)w + 2 * MAX_RADIUS) * sizeof *c);
        unsigned char *konst = malloc((size_t)w);
        const unsigned char *rows[2 * MAX_RADIUS + 1];

        if (!c || !konst)
            failed = 1;
        else
            memset(konst, border.value, (size_t)w);
#pragma omp for schedule(static)
        for (int y = 0; y < h; y++) {
            if (failed)
                continue;
            for (int dy = -r; dy <= r; dy++) {
                int yy = gf_border_index(y + dy, h, border.mode);
                rows[dy + r] = yy < 0 ? konst : in->data + (size_t)yy * in->stride;
            }
            (ksize == 3 ? colsums3 : colsums5)(rows, c, w);
            for (int x = -r; x < 0; x++) {
                int xx = gf_border_index(x, w, border.mode);
                c[x + r] = xx < 0 ? (uint16_t)(ksize * border.value) : c[xx + r];
            }
            for (int x = w; x < w + r; x++) {
                int xx = gf_border_index(x, w, border.mode);
                c[x + r] = xx < 0 ? (uint16_t)(ksize * border.value) : c[xx + r];
            }
            (ksize == 3 ? round_row3 : round_row5)(c, out->data + (size_t)y * out->stride, w);
        }
        free(c);
        free(konst);
    }
    if (failed)
        return gf_err(GF_EINTERNAL, NULL, "mean: out of memory");
    return 0;
}

static int mean_gold(const gf_stage *s, const gf_image *in, gf_image *out)
{
    const gf_mean_params *p = GF_CPARAMS(s, gf_mean_params);
    return gf_mean_gold(in, out, p->ksize, p->border);
}

static int mean_cpu(const gf_stage *s, const gf_image *in, gf_image *out)
{
    const gf_mean_params *p = GF_CPARAMS(s, gf_mean_params);
    return gf_mean_cpu(in, out, p->ksize, p->border);
}

static void mean_label(const gf_stage *s, char *buf, size_t n)
{
    snprintf(buf, n, "mean %d", GF_CPARAMS(s, gf_mean_params)->ksize);
}

static int parse_mean(gf_stage *s, const char *arg)
{
    gf_mean_params *p = GF_PARAMS(s, gf_mean_params);

    if (strcmp(arg, "3") && strcmp(arg, "5"))
        return gf_err(GF_EUSAGE, NULL, "--mean: size must be 3 or 5, not '%s'", arg);
    p->ksize = arg[0] - '0';
    p->border.mode = GF_BORDER_REPLICATE;
    return 0;
}

/* --border MODE: replicate, reflect101, constant or constant=V. */
static int parse_border(gf_stage *s, const char *arg)
{
    gf_border *b = &GF_PARAMS(s, gf_mean_params)->border;

    b->value = 0;
    if (!strcmp(arg, "replicate"))
        b->mode = GF_BORDER_REPLICATE;
    else if (!strcmp(arg, "reflect101"))
        b->mode = GF_BORDER_REFLECT101;
    else if (!strcmp(arg, "constant"))
        b->mode = GF_BORDER_CONSTANT;
    else if (!strncmp(arg, "constant=", 9)) {
        b->mode = GF_BORDER_CONSTANT;
        return gf_parse_int("--border constant", arg + 9, 0, 255, &b->value);
    } else
        return gf_err(GF_EUSAGE, NULL,
                      "--border: '%s' is not replicate, reflect101 or constant[=V]", arg);
    return 0;
}

/* Test configurations: both sizes with every border mode; bench: both
 * sizes, replicate. */
static int mean_config(gf_stage *s, int i, int bench, uint64_t *rng)
{
    static const gf_border_mode modes[] = {GF_BORDER_REPLICATE, GF_BORDER_REFLECT101,
                                           GF_BORDER_CONSTANT};
    gf_mean_params *p = GF_PARAMS(s, gf_mean_params);

    if (i >= (bench ? 2 : 6))
        return 0;
    p->ksize = i % 2 ? 5 : 3;
    p->border.mode = modes[i / 2];
    p->border.value = p->border.mode == GF_BORDER_CONSTANT ? (int)(gf_rand(rng) & 255) : 0;
    return 1;
}

static const gf_stage_opt mean_opts[] = {
    {"mean", "3|5", "box mean (box filter) of 3x3 or 5x5, rounded to nearest", GF_OPT_ADD,
     parse_mean},
    {"border", "MODE",
     "how --mean reads outside the image: replicate (default), reflect101, constant[=V]",
     GF_OPT_SETTING, parse_border},
    {NULL, NULL, NULL, 0, NULL},
};

static const gf_variant mean_variants[] = {
    {"global", GF_CUDA(gf_mean_global_cuda)},
    {"shared", GF_CUDA(gf_mean_shared_cuda)},
    {"warp", GF_CUDA(gf_mean_warp_cuda)},
    {NULL, NULL},
};

static const gf_default mean_defaults[] = {
    {0, 0, "warp"}, /* see docs/benchmarks.md */
    {0, 0, NULL},
};

const gf_stage_ops gf_stage_mean = {
    .cpu_cost = 0.45,
    .name = "mean",
    .group = "mean",
    .opts = mean_opts,
    .variants = mean_variants,
    .defaults = mean_defaults,
    .label = mean_label,
    .gold = mean_gold,
    .cpu = mean_cpu,
    .config = mean_config,
};
